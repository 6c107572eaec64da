package main

import (
	"debug/elf"
	"errors"
	"io"
	"os"
	"path"
	"strings"
	"syscall"

	"github.com/symbolize-go/symbolize"
)

// module is one opened binary, cached by the name the requests use.
type module struct {
	bin *symbolize.Binary // nil when opening failed
	err error             // why opening failed; reported with the first request only

}

// moduleCache opens each module once, like llvm-symbolizer's cache: a
// module that failed to open stays failed, and only the first request for
// it reports why.
type moduleCache struct {
	opts symbolize.Options
	mods map[string]*module
}

// get returns the module called name and the error to report now (nil
// after the first request for a module that failed to open).
func (c *moduleCache) get(name string) (*module, error) {
	if m, ok := c.mods[name]; ok {
		return m, nil
	}
	m := &module{}
	m.bin, m.err = symbolize.Open(name, &c.opts)
	if m.err != nil && !c.opts.NoDebugFile && hasELFMagic(name) {
		// A separate debug file that cannot be used (a build-ID mismatch,
		// say) must not stop the binary's own symbols from answering, as
		// in llvm-symbolizer.
		o := c.opts
		o.NoDebugFile = true
		if b, err := symbolize.Open(name, &o); err == nil {
			m.bin, m.err = b, nil
		}
	}
	if m.err != nil {
		m.err = errors.New(llvmMessage(name, m.err))
	}
	c.mods[name] = m
	return m, m.err
}

func (c *moduleCache) close() {
	for _, m := range c.mods {
		if m.bin != nil {
			m.bin.Close()
		}
	}
}

// llvmMessage words an open failure as llvm-symbolizer does: the C library's
// strerror text for system errors, LLVM's own sentence for files that are
// not object files.
func llvmMessage(name string, err error) string {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		msg := errno.Error()
		return strings.ToUpper(msg[:1]) + msg[1:]
	}
	if !hasELFMagic(name) {
		return "The file was not recognized as a valid object file"
	}
	return err.Error()
}

func hasELFMagic(name string) bool {
	f, err := os.Open(name)
	if err != nil {
		return false
	}
	defer f.Close()
	var magic [4]byte
	_, err = io.ReadFull(f, magic[:])
	return err == nil && string(magic[:]) == elf.ELFMAG
}

// symbols returns the symbol table DATA requests search: the one the root
// package names functions with (the binary's .symtab, else its separate

// relative strips the compilation directory from file, for
// --relativenames, where llvm-symbolizer leaves it out while joining the line
// table's directory and file name.
func relative(compDir, file string) string {
	if file == "" || compDir == "" {
		return file
	}
	p, ok := strings.CutPrefix(file, compDir+"/")
	if !ok {
		return file
	}
	// A relative comp dir (Go's ".") can have been joined twice.
	for compDir == "." && strings.HasPrefix(p, "./") {
		p = p[2:]
	}
	return p
}

// fileName applies --basenames or --relativenames.
func (s *session) fileName(compDir, file string) string {
	switch s.cfg.paths {
	case pathBase:
		if file != "" {
			return path.Base(file)
		}
	case pathRelative:
		return relative(compDir, file)
	}
	return file
}
