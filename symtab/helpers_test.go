package symtab

import (
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// fixtureFiles returns the ELF fixtures under testdata/elf plus any files
// named in $SYMTAB_EXTRA_ELF (colon-separated; for local experiments with
// system libraries), skipping the test when there are none.
func fixtureFiles(t testing.TB) []string {
	t.Helper()
	files := fixturePaths()
	if len(files) == 0 {
		t.Skip("no ELF fixtures in testdata/elf")
	}
	return files
}

// fixturePaths is fixtureFiles without the skip.
func fixturePaths() []string {
	var files []string
	ents, _ := os.ReadDir("../testdata/elf")
	for _, e := range ents {
		if e.Type().IsRegular() {
			p := filepath.Join("../testdata/elf", e.Name())
			if isELF(p) {
				files = append(files, p)
			}
		}
	}
	if extra := os.Getenv("SYMTAB_EXTRA_ELF"); extra != "" {
		files = append(files, strings.Split(extra, ":")...)
	}
	return files
}

func isELF(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	var magic [4]byte
	_, err = f.ReadAt(magic[:], 0)
	return err == nil && string(magic[:]) == elf.ELFMAG
}

// elfFile holds what the tests need from one ELF file.
type elfFile struct {
	symtab, dynsym []Symbol
	hasDWARF       bool
	opts           ELFOptions
	raw            [2][2][]byte // [symtab|dynsym][entries|strings]
}

// readELFFile decodes both symbol tables of path with debug/elf finding the
// sections, as the elfx package does for real.
func readELFFile(t testing.TB, path string) *elfFile {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	defer f.Close()
	ef := &elfFile{opts: ELFOptions{
		Class64:     f.Class == elf.ELFCLASS64,
		BigEndian:   f.Data == elf.ELFDATA2MSB,
		Machine:     uint16(f.Machine),
		NumSections: uint32(len(f.Sections)),
	}}
	// A debug link lets llvm-symbolizer find DWARF in another file.
	ef.hasDWARF = f.Section(".debug_info") != nil || f.Section(".zdebug_info") != nil ||
		f.Section(".gnu_debuglink") != nil
	for i, typ := range []elf.SectionType{elf.SHT_SYMTAB, elf.SHT_DYNSYM} {
		for _, s := range f.Sections {
			if s.Type != typ || s.Link >= uint32(len(f.Sections)) {
				continue
			}
			data, err := s.Data()
			if err != nil {
				t.Fatalf("%s: %s: %v", path, s.Name, err)
			}
			strs, err := f.Sections[s.Link].Data()
			if err != nil {
				t.Fatalf("%s: %s: %v", path, f.Sections[s.Link].Name, err)
			}
			opts := ef.opts
			opts.Section = s.Name
			syms, err := ReadELF(data, strs, opts)
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			ef.raw[i] = [2][]byte{data, strs}
			if i == 0 {
				ef.symtab = syms
			} else {
				ef.dynsym = syms
			}
			break
		}
	}
	return ef
}

func lookPath(t testing.TB, tool string) string {
	t.Helper()
	p, err := exec.LookPath(tool)
	if err != nil {
		t.Skipf("%s not installed", tool)
	}
	return p
}
