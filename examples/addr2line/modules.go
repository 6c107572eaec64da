package main

import (
	"debug/elf"
	"errors"
	"io"
	"os"
	"path"
	"sort"
	"strings"
	"sync"
	"syscall"

	"github.com/symbolize-go/symbolize"
	"github.com/symbolize-go/symbolize/elfx"
	"github.com/symbolize-go/symbolize/internal/dwinfo"
	"github.com/symbolize-go/symbolize/symtab"
)

// module is one opened binary, cached by the name the requests use.
type module struct {
	bin *symbolize.Binary // nil when opening failed
	err error             // why opening failed; reported with the first request only

	symOnce sync.Once
	syms    *symtab.Table // for DATA requests

	dirOnce  sync.Once
	compDirs []string // for --relativenames, longest first
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
// debug file's, merged with .dynsym).
func (m *module) symbols() *symtab.Table {
	m.symOnce.Do(func() {
		read := func(f *elfx.File, dynamic bool) []symtab.Symbol {
			if f == nil {
				return nil
			}
			var t elfx.SymbolTable
			var ok bool
			var err error
			if dynamic {
				t, ok, err = f.DynamicSymbols()
			} else {
				t, ok, err = f.Symbols()
			}
			if err != nil || !ok {
				return nil
			}
			syms, err := symtab.ReadELF(t.Syms, t.Strings, symtab.ELFOptions{
				Class64:     t.Class == elf.ELFCLASS64,
				BigEndian:   t.BigEndian,
				Machine:     uint16(f.Machine),
				NumSections: uint32(len(f.Sections)),
				Section:     t.Section,
			})
			if err != nil {
				return nil
			}
			return syms
		}
		st := read(m.bin.ELF(), false)
		if len(st) == 0 {
			st = read(m.bin.DebugFile(), false)
		}
		m.syms = symtab.New(symtab.PreferELF(st, read(m.bin.ELF(), true)))
	})
	return m.syms
}

// relative strips the compilation directory from file, for
// --relativenames. llvm-symbolizer leaves it out while joining the line
// table's directory and file name; the root package hands out joined paths,
// so this takes the compilation directories of all units and strips the
// longest one that prefixes file. (Frame has no CompDir field yet.)
func (m *module) relative(file string) string {
	if file == "" || m.bin == nil {
		return file
	}
	m.dirOnce.Do(func() { m.compDirs = compDirs(m.bin) })
	for _, dir := range m.compDirs {
		if p, ok := strings.CutPrefix(file, dir+"/"); ok {
			// A relative comp dir (Go's ".") can have been joined twice.
			for dir == "." && strings.HasPrefix(p, "./") {
				p = p[2:]
			}
			return p
		}
	}
	return file
}

// compDirs lists the distinct DW_AT_comp_dir values of b's units, longest
// first. Errors end the walk: what was read so far is still useful.
func compDirs(b *symbolize.Binary) []string {
	f := b.DebugFile()
	if f == nil {
		f = b.ELF()
	}
	data := func(name string) []byte {
		s := f.Section(name)
		if s == nil || !s.HasData() {
			return nil
		}
		d, _ := s.Data()
		return d
	}
	d := dwinfo.New(dwinfo.Sections{
		Info: data(".debug_info"), Abbrev: data(".debug_abbrev"), Str: data(".debug_str"),
		LineStr: data(".debug_line_str"), StrOffsets: data(".debug_str_offsets"),
		Addr: data(".debug_addr"), BigEndian: f.Data == elf.ELFDATA2MSB,
	}, nil)
	seen := map[string]bool{}
	var dirs []string
	ur := d.Units()
	for {
		var h dwinfo.Header
		if ur.Next(&h) != nil {
			break
		}
		u, err := d.LoadUnit(h)
		if err != nil {
			continue
		}
		dir := strings.TrimRight(string(u.Root.CompDir), "/")
		if dir != "" && !seen[dir] {
			seen[dir] = true
			dirs = append(dirs, dir)
		}
	}
	sort.Slice(dirs, func(i, j int) bool { return len(dirs[i]) > len(dirs[j]) })
	return dirs
}

// fileName applies --basenames or --relativenames.
func (s *session) fileName(m *module, file string) string {
	switch s.cfg.paths {
	case pathBase:
		if file != "" {
			return path.Base(file)
		}
	case pathRelative:
		return m.relative(file)
	}
	return file
}
