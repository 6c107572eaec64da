package linetable

import (
	"debug/elf"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"
)

// fixture is the line-table material of one ELF file under testdata/elf.
type fixture struct {
	name    string
	path    string
	rel     bool // ET_REL: section data is unrelocated
	zstd    bool // a zstd-compressed debug section, which LLVM 14 cannot read
	line    []byte
	opts    Options
	hasLine bool
}

// elfFixtures returns every ELF file under ../testdata/elf (recursively)
// that has a .debug_line section. Fixtures that are absent are skipped, so
// the tests pass before the fixtures exist.
func elfFixtures(t testing.TB) []fixture {
	t.Helper()
	out := findFixtures(t)
	if len(out) == 0 {
		t.Skip("no ELF fixtures with .debug_line under testdata/elf")
	}
	return out
}

// findFixtures is elfFixtures without the skip.
func findFixtures(t testing.TB) []fixture {
	t.Helper()
	var paths []string
	filepath.WalkDir("../testdata/elf", func(p string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			paths = append(paths, p)
		}
		return nil
	})
	sort.Strings(paths)
	var out []fixture
	for _, p := range paths {
		fx, err := loadFixture(p)
		if err != nil {
			t.Logf("%s: %v", p, err)
			continue
		}
		if fx.hasLine {
			out = append(out, fx)
		}
	}
	return out
}

func loadFixture(p string) (fixture, error) {
	f, err := elf.Open(p)
	if err != nil {
		return fixture{}, err
	}
	defer f.Close()
	fx := fixture{name: filepath.Base(p), path: p, rel: f.Type == elf.ET_REL}
	for _, s := range f.Sections {
		if s.Flags&elf.SHF_COMPRESSED != 0 {
			// The compression header's ch_type is the first word of the
			// raw section in both ELF classes.
			var typ [4]byte
			if raw, err := os.Open(p); err == nil {
				raw.ReadAt(typ[:], int64(s.Offset))
				raw.Close()
			}
			fx.zstd = fx.zstd || f.ByteOrder.Uint32(typ[:]) == uint32(elf.COMPRESS_ZSTD)
		}
	}
	fx.opts.BigEndian = f.ByteOrder == binary.BigEndian
	fx.opts.AddressSize = 8
	if f.Class == elf.ELFCLASS32 {
		fx.opts.AddressSize = 4
	}
	get := func(name string) ([]byte, error) {
		s := f.Section(name)
		if s == nil {
			s = f.Section(".zdebug" + name[len(".debug"):])
		}
		if s == nil || s.Type == elf.SHT_NOBITS {
			return nil, nil
		}
		d, err := s.Data()
		if err != nil {
			return nil, fmt.Errorf("%s: %v", name, err)
		}
		return d, nil
	}
	if fx.line, err = get(".debug_line"); err != nil {
		return fixture{}, err
	}
	fx.hasLine = len(fx.line) > 0
	if fx.opts.LineStr, err = get(".debug_line_str"); err != nil {
		return fixture{}, err
	}
	if fx.opts.Str, err = get(".debug_str"); err != nil {
		return fixture{}, err
	}
	return fx, nil
}

// unitOffsets lists the units of a fixture's .debug_line.
func unitOffsets(t testing.TB, data []byte, opts *Options) []uint64 {
	t.Helper()
	var offs []uint64
	for off, err := range Units(data, opts) {
		if err != nil {
			t.Fatalf("Units: %v", err)
		}
		offs = append(offs, off)
	}
	return offs
}

// dumpRow formats a row as llvm-dwarfdump-14 --debug-line does.
func dumpRow(r *Row) string {
	s := fmt.Sprintf("0x%016x %6d %6d %6d %3d %13d ", r.Address, r.Line, r.Column, r.File, r.ISA, r.Discriminator)
	if r.IsStmt {
		s += " is_stmt"
	}
	if r.BasicBlock {
		s += " basic_block"
	}
	if r.PrologueEnd {
		s += " prologue_end"
	}
	if r.EpilogueBegin {
		s += " epilogue_begin"
	}
	if r.EndSequence {
		s += " end_sequence"
	}
	return s
}
