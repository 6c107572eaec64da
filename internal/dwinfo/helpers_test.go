package dwinfo

import (
	"debug/dwarf"
	"debug/elf"
	"encoding/binary"
	"testing"

	"github.com/symbolize-go/symbolize/internal/dwinfo/dwinfotest"
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
func fixturePaths() []string { return dwinfotest.Fixtures("../../testdata/elf", "DWINFO_EXTRA") }

// loadELF reads the DWARF sections of an ELF file (decompressing
// SHF_COMPRESSED ones) and reports whether it has .debug_info.
func loadELF(t testing.TB, path string) (Sections, *elf.File, bool) {
	t.Helper()
	e, ok, err := dwinfotest.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if !ok {
		return Sections{}, nil, false
	}
	t.Cleanup(func() { e.File.Close() })
	s := Sections{
		Info:       e.Section(".debug_info"),
		Abbrev:     e.Section(".debug_abbrev"),
		Str:        e.Section(".debug_str"),
		LineStr:    e.Section(".debug_line_str"),
		StrOffsets: e.Section(".debug_str_offsets"),
		Addr:       e.Section(".debug_addr"),
		Ranges:     e.Section(".debug_ranges"),
		Rnglists:   e.Section(".debug_rnglists"),
		Aranges:    e.Section(".debug_aranges"),
		BigEndian:  e.File.ByteOrder == binary.BigEndian,
	}
	return s, e.File, s.Info != nil
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
