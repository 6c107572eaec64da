package main

import (
	"context"
	"debug/elf"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path"
	"strings"
	"syscall"

	"github.com/symbolize-go/symbolize"
	"github.com/symbolize-go/symbolize/debuginfod"
	"github.com/symbolize-go/symbolize/macho"
)

// module is one opened binary, cached by the name the requests use.
type module struct {
	bin *symbolize.Binary // nil when opening failed
	err error             // why opening failed; reported with the first request only

	warned int // how many of bin.Warnings() have been reported
}

// reportWarnings writes to w, once each, the problems m's binary met in
// debug information it could still partly use (a unit or a section that
// did not decode): the answers went on without that part, as
// llvm-symbolizer's do, and the warning says what was lost.
func (m *module) reportWarnings(w io.Writer, seen map[string]bool) {
	if m == nil || m.bin == nil {
		return
	}
	ws := m.bin.Warnings()
	for _, e := range ws[min(m.warned, len(ws)):] {
		msg := "warning: " + m.bin.Path() + ": " + e.Error()
		if !seen[msg] {
			seen[msg] = true
			io.WriteString(w, msg+"\n")
		}
	}
	m.warned = len(ws)
}

// moduleCache opens each module once, like llvm-symbolizer's cache: a
// module that failed to open stays failed, and only the first request for
// it reports why.
type moduleCache struct {
	opts        symbolize.Options
	defaultArch string   // --default-arch
	dsymHints   []string // --dsym-hint bundles
	debugDirs   []string // --debug-file-directory, for BUILDID:HEX modules
	net         *debuginfod.Client
	mods        map[string]*module
	order       []string // module names in the order of their first request
}

// get returns the module called name and the error to report now (nil
// after the first request for a module that failed to open).
func (c *moduleCache) get(name string) (*module, error) {
	if m, ok := c.mods[name]; ok {
		return m, nil
	}
	c.order = append(c.order, name)
	m := &module{}
	path, arch := splitArch(name, c.defaultArch)
	if h, ok := strings.CutPrefix(path, buildIDPrefix); ok {
		p, err := findBuildID(context.Background(), h, c.debugDirs, c.net)
		if err != nil {
			m.err = err
			c.mods[name] = m
			return m, err
		}
		path = p
	}
	if macho.FileHasMagic(path) {
		m.bin, m.err = c.openMachO(path, arch)
	} else {
		m.bin, m.err = symbolize.Open(path, &c.opts)
	}
	if m.err != nil && !c.opts.NoDebugFile && hasELFMagic(path) {
		// A separate debug file that cannot be used (a build-ID mismatch,
		// say) must not stop the binary's own symbols from answering, as
		// in llvm-symbolizer.
		o := c.opts
		o.NoDebugFile = true
		if b, err := symbolize.Open(path, &o); err == nil {
			m.bin, m.err = b, nil
		}
	}
	if m.err != nil {
		m.err = errors.New(llvmMessage(path, m.err))
	}
	c.mods[name] = m
	return m, m.err
}

// openMachO opens a Mach-O file's arch slice with the first dSYM whose UUID
// matches, in llvm-symbolizer's order: the bundle beside the binary, then
// each --dsym-hint; without one, the binary alone answers (a mismatched
// dSYM is skipped silently, as LLVM does).
func (c *moduleCache) openMachO(path, arch string) (*symbolize.Binary, error) {
	o := c.opts
	o.Arch = arch
	if !o.NoDebugFile {
		b, err := symbolize.Open(path, &o)
		if err == nil {
			if _, dsym, _ := b.MachO(); dsym != "" || len(c.dsymHints) == 0 {
				return b, nil
			}
			b.Close()
		}
		for _, h := range c.dsymHints {
			oh := o
			oh.DSYM = h
			if b, err := symbolize.Open(path, &oh); err == nil {
				return b, nil
			}
		}
	}
	o.NoDebugFile = true
	return symbolize.Open(path, &o)
}

// machoArches are the architecture names accepted after the colon of a
// FILE:ARCH module name (llvm-symbolizer accepts any name its Triple
// parser knows; these are the Mach-O ones).
var machoArches = map[string]bool{
	"arm64": true, "arm64e": true, "arm64_32": true, "x86_64": true, "x86_64h": true, "i386": true,
	"armv7": true, "armv7s": true, "armv7k": true, "armv6": true, "ppc": true, "ppc64": true,
}

// splitArch splits "FILE:ARCH" when the part after the last colon names an
// architecture; otherwise the whole name is the file and def the arch.
func splitArch(name, def string) (path, arch string) {
	if i := strings.LastIndexByte(name, ':'); i >= 0 && machoArches[name[i+1:]] {
		return name[:i], name[i+1:]
	}
	return name, def
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
	if !hasELFMagic(name) && !macho.FileHasMagic(name) {
		return "The file was not recognized as a valid object file"
	}
	return err.Error()
}

// magic returns the first four bytes of the file name; ok is false when
// it cannot be read or is shorter.
func magic(name string) (m [4]byte, ok bool) {
	f, err := os.Open(name)
	if err != nil {
		return m, false
	}
	defer f.Close()
	_, err = io.ReadFull(f, m[:])
	return m, err == nil
}

func hasELFMagic(name string) bool {
	m, ok := magic(name)
	return ok && string(m[:]) == elf.ELFMAG
}

// moduleName is the module as JSON answers name it: a BUILDID:HEX module
// by its HEX, as later LLVMs do.
func moduleName(module string) string {
	if h, ok := strings.CutPrefix(module, buildIDPrefix); ok {
		return h
	}
	return module
}

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

// identityRecord is one line of --identity: the module as the requests
// named it, and its identity record or why it did not open.
type identityRecord struct {
	Module string `json:"module"`
	*symbolize.Identity
	Error string `json:"error,omitempty"`
}

// writeIdentities writes one JSON identity record a line for each module
// used, in the order of first use.
func (c *moduleCache) writeIdentities(w io.Writer) error {
	enc := json.NewEncoder(w)
	for _, name := range c.order {
		m := c.mods[name]
		rec := identityRecord{Module: name}
		if m.bin == nil {
			rec.Error = m.err.Error()
		} else if id, err := m.bin.Identity(); err != nil {
			rec.Error = err.Error()
		} else {
			rec.Identity = &id
		}
		if err := enc.Encode(rec); err != nil {
			return err
		}
	}
	return nil
}
