// Package reftwin lets the differential tests compare a fixture that a
// reference tool cannot read with that tool's answers on the fixture's
// committed twin: a fixture that testdata/build.sh derives from it without
// changing any section's content (objcopy --compress-debug-sections=zstd of
// c-gcc-O2-dwarf5 gives c-gcc-O2-zstd, which LLVM 14 and elfutils 0.188
// cannot decompress). The library is run on the fixture itself; only the
// reference reads the twin, and only after Of has checked, with Go's
// debug/elf, that every section of the two holds the same bytes once
// decompressed.
//
// It is used by tests only.
package reftwin

import (
	"bytes"
	"debug/elf"
	"fmt"
	"path/filepath"
)

// twins maps a fixture's base name to its twin's, in the same directory.
var twins = map[string]string{
	// testdata/MANIFEST: objcopy --compress-debug-sections=zstd (from
	// c-gcc-O2-dwarf5). LLVM 14 and elfutils 0.188 read no zstd (ch_type
	// 2) section and answer from the symbol table alone.
	"c-gcc-O2-zstd": "c-gcc-O2-dwarf5",
}

// Has reports whether the fixture at path has a twin.
func Has(path string) bool {
	_, ok := twins[filepath.Base(path)]
	return ok
}

// Of returns the path of the twin of the ELF fixture at path, after
// checking that the two have the same sections (names, types, addresses,
// flags but SHF_COMPRESSED) with the same decompressed bytes and the same
// program headers; it returns path itself when the fixture has no twin.
func Of(path string) (string, error) {
	name, ok := twins[filepath.Base(path)]
	if !ok {
		return path, nil
	}
	twin := filepath.Join(filepath.Dir(path), name)
	if err := same(path, twin); err != nil {
		return "", fmt.Errorf("reftwin: %s is not %s's twin: %w", twin, path, err)
	}
	return twin, nil
}

func same(path, twin string) error {
	a, err := elf.Open(path)
	if err != nil {
		return err
	}
	defer a.Close()
	b, err := elf.Open(twin)
	if err != nil {
		return err
	}
	defer b.Close()
	if a.FileHeader != b.FileHeader {
		return fmt.Errorf("file headers %+v and %+v", a.FileHeader, b.FileHeader)
	}
	if len(a.Progs) != len(b.Progs) {
		return fmt.Errorf("%d and %d program headers", len(a.Progs), len(b.Progs))
	}
	for i := range a.Progs {
		if a.Progs[i].ProgHeader != b.Progs[i].ProgHeader {
			return fmt.Errorf("program header %d: %+v and %+v", i, a.Progs[i].ProgHeader, b.Progs[i].ProgHeader)
		}
	}
	if len(a.Sections) != len(b.Sections) {
		return fmt.Errorf("%d and %d sections", len(a.Sections), len(b.Sections))
	}
	compressed := 0
	for i, sa := range a.Sections {
		sb := b.Sections[i]
		if sa.Name != sb.Name || sa.Type != sb.Type || sa.Addr != sb.Addr ||
			sa.Flags&^elf.SHF_COMPRESSED != sb.Flags&^elf.SHF_COMPRESSED || sa.Link != sb.Link || sa.Info != sb.Info {
			return fmt.Errorf("section %d: %+v and %+v", i, sa.SectionHeader, sb.SectionHeader)
		}
		if sa.Flags&elf.SHF_COMPRESSED != 0 {
			compressed++
		}
		if sa.Type == elf.SHT_NOBITS {
			continue
		}
		da, err := sa.Data()
		if err != nil {
			return fmt.Errorf("section %s: %w", sa.Name, err)
		}
		db, err := sb.Data()
		if err != nil {
			return fmt.Errorf("twin's section %s: %w", sb.Name, err)
		}
		if !bytes.Equal(da, db) {
			return fmt.Errorf("section %s: %d and %d bytes, not the same", sa.Name, len(da), len(db))
		}
	}
	if compressed == 0 {
		return fmt.Errorf("no compressed section: nothing for the twin to stand in for")
	}
	return nil
}
