// Package dwinfotest loads the ELF test fixtures for the tests of dwinfo
// and of the packages built on it. It reads sections with debug/elf, not
// package elfx, so that differential tests do not share elfx's bugs. It is
// imported by tests only, and imports no package of this module (dwinfo's
// own tests use it).
package dwinfotest

import (
	"debug/elf"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Fixtures lists the regular files under dir, plus those named in the
// colon-separated environment variable env (how throwaway binaries are
// tried locally), sorted.
func Fixtures(dir, env string) []string {
	var out []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			out = append(out, p)
		}
		return nil
	})
	if x := os.Getenv(env); x != "" {
		out = append(out, strings.Split(x, ":")...)
	}
	slices.Sort(out)
	return out
}

// ELF is one ELF file with its .debug_* sections as debug/elf reads them,
// SHF_COMPRESSED ones decompressed.
type ELF struct {
	File *elf.File
	Zstd bool // some section was zstd-compressed (LLVM 14 cannot read those)
	secs map[string][]byte
}

// Section returns the bytes of the named .debug_* section, or nil.
func (e *ELF) Section(name string) []byte { return e.secs[name] }

// Open reads the .debug_* sections of the ELF file at path, reporting
// false if path is no readable ELF file (fixture directories hold sources
// and scripts too) and an error if a section does not read. The caller
// closes e.File.
func Open(path string) (e *ELF, ok bool, err error) {
	f, err := elf.Open(path)
	if err != nil {
		return nil, false, nil
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		f.Close()
		return nil, false, nil
	}
	e = &ELF{File: f, secs: make(map[string][]byte)}
	for _, s := range f.Sections {
		if !strings.HasPrefix(s.Name, ".debug_") || s.Type == elf.SHT_NOBITS {
			continue
		}
		if s.Flags&elf.SHF_COMPRESSED != 0 && s.Offset+4 <= uint64(len(raw)) &&
			f.ByteOrder.Uint32(raw[s.Offset:]) == uint32(elf.COMPRESS_ZSTD) {
			e.Zstd = true
		}
		b, err := io.ReadAll(s.Open())
		if err != nil {
			f.Close()
			return nil, false, fmt.Errorf("%s: %s: %w", path, s.Name, err)
		}
		e.secs[s.Name] = b
	}
	return e, true, nil
}
