package dwinfo

import (
	"debug/dwarf"
	"debug/elf"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fixtures returns the ELF files the differential tests run over: every
// file under testdata/elf, plus any listed in $DWINFO_EXTRA
// (colon-separated), which is how throwaway binaries are tried locally.
func fixtures(t testing.TB) []string {
	t.Helper()
	out := fixturePaths()
	if len(out) == 0 {
		t.Skip("no fixtures under testdata/elf")
	}
	return out
}

// fixturePaths lists the fixtures, possibly none.
func fixturePaths() []string {
	var out []string
	filepath.WalkDir("../../testdata/elf", func(p string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			out = append(out, p)
		}
		return nil
	})
	if x := os.Getenv("DWINFO_EXTRA"); x != "" {
		out = append(out, strings.Split(x, ":")...)
	}
	return out
}

// loadELF reads the DWARF sections of an ELF file (decompressing
// SHF_COMPRESSED ones) and reports whether it has .debug_info.
func loadELF(t testing.TB, path string) (Sections, *elf.File, bool) {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		return Sections{}, nil, false
	}
	t.Cleanup(func() { f.Close() })
	get := func(name string) []byte {
		s := f.Section(name)
		if s == nil || s.Type == elf.SHT_NOBITS {
			return nil
		}
		b, err := io.ReadAll(s.Open())
		if err != nil {
			t.Fatalf("%s: %s: %v", path, name, err)
		}
		return b
	}
	s := Sections{
		Info:       get(".debug_info"),
		Abbrev:     get(".debug_abbrev"),
		Str:        get(".debug_str"),
		LineStr:    get(".debug_line_str"),
		StrOffsets: get(".debug_str_offsets"),
		Addr:       get(".debug_addr"),
		Ranges:     get(".debug_ranges"),
		Rnglists:   get(".debug_rnglists"),
		Aranges:    get(".debug_aranges"),
		BigEndian:  f.ByteOrder.String() == "BigEndian",
	}
	return s, f, s.Info != nil
}

// loadDWARF is loadELF for the differential tests: it returns the file
// read by this package and by debug/dwarf, skipping the test when the file
// has no .debug_info or debug/dwarf cannot read it.
func loadDWARF(t *testing.T, path string) (*Data, *dwarf.Data) {
	t.Helper()
	secs, f, ok := loadELF(t, path)
	if !ok {
		t.Skip("no .debug_info")
	}
	gd, err := f.DWARF()
	if err != nil {
		t.Skipf("debug/dwarf cannot read it: %v", err)
	}
	return New(secs, nil), gd
}

// loadUnits loads every unit of d, failing the test on any error.
func loadUnits(tb testing.TB, d *Data) []*Unit {
	hs, err := d.Headers()
	if err != nil {
		tb.Fatal(err)
	}
	var us []*Unit
	for _, h := range hs {
		u, err := d.LoadUnit(h)
		if err != nil {
			tb.Fatal(err)
		}
		us = append(us, u)
	}
	return us
}
