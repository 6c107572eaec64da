package symbolize_test

// Malformed-input tests that check what is still answered: a bad attribute
// costs that attribute, a bad unit that unit, a bad section that section,
// and the rest of the file answers as before (and, where llvm-symbolizer-14
// reads the damaged file, as it does).

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/symbolize-go/symbolize"
)

// patchedFixture copies testdata/elf/name into a temporary file after
// patch has changed its bytes, and returns the copy's path.
func patchedFixture(t *testing.T, name string, patch func(t *testing.T, f *elf.File, data []byte)) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata/elf", name))
	if err != nil {
		t.Fatal(err)
	}
	f, err := elf.NewFile(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	patch(t, f, data)
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// sectionBytes returns the file bytes of section name, aliasing data.
func sectionBytes(t *testing.T, f *elf.File, data []byte, name string) []byte {
	t.Helper()
	s := f.Section(name)
	if s == nil || s.Type == elf.SHT_NOBITS {
		t.Fatalf("no section %s", name)
	}
	return data[s.Offset : s.Offset+s.FileSize]
}

// uleb decodes an unsigned LEB128 number at b[*i], advancing *i.
func uleb(b []byte, i *int) uint64 {
	var v uint64
	for shift := 0; *i < len(b); shift += 7 {
		c := b[*i]
		*i++
		v |= uint64(c&0x7f) << shift
		if c < 0x80 {
			break
		}
	}
	return v
}

// patchAbbrevForm rewrites, in every abbreviation of .debug_abbrev, the
// one-byte form of attribute attr from one form to another of the same
// size, and returns how many it changed.
func patchAbbrevForm(t *testing.T, f *elf.File, data []byte, attr, from, to byte) int {
	t.Helper()
	ab := sectionBytes(t, f, data, ".debug_abbrev")
	n := 0
	for i := 0; i < len(ab); {
		if uleb(ab, &i) == 0 { // end of one table
			continue
		}
		uleb(ab, &i) // tag
		i++          // children
		for i < len(ab) {
			a, fi := uleb(ab, &i), i
			form := uleb(ab, &i)
			if form == 0x21 { // DW_FORM_implicit_const
				for i < len(ab) && ab[i]&0x80 != 0 {
					i++
				}
				i++
			}
			if a == 0 && form == 0 {
				break
			}
			if a == uint64(attr) && form == uint64(from) && i == fi+1 {
				ab[fi] = to
				n++
			}
		}
	}
	if n == 0 {
		t.Fatalf("no attribute %#x in form %#x", attr, from)
	}
	return n
}

// degradeAddrs are the fixture's sampled addresses.
func degradeAddrs(t *testing.T, path string) []uint64 {
	addrs := sampleAddrs(t, path)
	if len(addrs) > 800 {
		addrs = addrs[:800]
	}
	return addrs
}

func openFrames(t *testing.T, path string, addrs []uint64, o symbolize.Options) ([][]refFrame, []error) {
	t.Helper()
	b, err := symbolize.Open(path, &o)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer b.Close()
	got := framesOf(t, b, addrs)
	return got, b.Warnings()
}

// wantDecodeWarning checks that warns holds a *DecodeError for section.
func wantDecodeWarning(t *testing.T, warns []error, section string) {
	t.Helper()
	for _, w := range warns {
		var de *symbolize.DecodeError
		if errors.As(w, &de) && de.Section == section {
			return
		}
	}
	t.Errorf("no *DecodeError for %s among the warnings %v", section, warns)
}

// sameAsLLVM compares got with llvm-symbolizer-14 on the same (damaged)
// file, when it is installed.
func sameAsLLVM(t *testing.T, path string, addrs []uint64, got [][]refFrame) {
	t.Helper()
	llvm, err := exec.LookPath("llvm-symbolizer-14")
	if err != nil {
		t.Log("llvm-symbolizer-14 not installed: not compared")
		return
	}
	ref := queryLLVM(t, llvm, []string{"--obj=" + path, "--output-style=JSON", "--no-demangle", "--inlines"}, addrs)
	bad := 0
	for i, a := range addrs {
		if !reflect.DeepEqual(ref[i].Symbol, got[i]) && !(len(ref[i].Symbol) == 1 && len(got[i]) == 1 &&
			ref[i].Symbol[0] == (refFrame{FunctionName: "??"}) && got[i][0] == (refFrame{})) {
			if bad++; bad <= 5 {
				t.Errorf("%#x: llvm-symbolizer-14 %+v, ours %+v", a, ref[i].Symbol, got[i])
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d addresses differ from llvm-symbolizer-14", bad, len(addrs))
	}
}

// TestBadRootAttribute: the producer of every unit in a form this reader
// cannot resolve (DW_FORM_strp_sup, as dwz writes DW_FORM_GNU_strp_alt,
// in a file that names no supplementary file) costs the producer alone:
// every answer is the undamaged file's, and the cause is one warning.
func TestBadRootAttribute(t *testing.T) {
	const name = "c-gcc-O2-dwarf5"
	path := patchedFixture(t, name, func(t *testing.T, f *elf.File, data []byte) {
		patchAbbrevForm(t, f, data, 0x25 /* DW_AT_producer */, 0x0e /* strp */, 0x1d /* strp_sup */)
	})
	addrs := degradeAddrs(t, path)
	o := symbolize.Options{Inlines: true}
	want, _ := openFrames(t, filepath.Join("testdata/elf", name), addrs, o)
	got, warns := openFrames(t, path, addrs, o)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("answers changed with the producer unreadable")
	}
	var se *symbolize.SupError
	if len(warns) != 1 || !errors.As(warns[0], &se) || se.Name != "" || !strings.Contains(warns[0].Error(), "names one") {
		t.Errorf("warnings %v: want one *SupError saying that no supplementary file is named", warns)
	}
}

// TestBadCompressionHeader: a compressed debug section whose header names
// an unknown compression type costs that section: with .debug_info gone
// the symbol table names every function; with .debug_line gone the DIEs
// still give names, inline chains and call sites. Both as llvm-symbolizer-14
// answers the same file.
func TestBadCompressionHeader(t *testing.T) {
	const name = "c-gcc-O2-gz-zlib"
	for _, sec := range []string{".debug_info", ".debug_line"} {
		t.Run(sec, func(t *testing.T) {
			path := patchedFixture(t, name, func(t *testing.T, f *elf.File, data []byte) {
				b := sectionBytes(t, f, data, sec)
				if f.Section(sec).Flags&elf.SHF_COMPRESSED == 0 {
					t.Fatalf("%s is not compressed", sec)
				}
				binary.LittleEndian.PutUint32(b, 0x7f) // Elf64_Chdr.ch_type
			})
			addrs := degradeAddrs(t, path)
			got, warns := openFrames(t, path, addrs, symbolize.Options{Inlines: true})
			wantDecodeWarning(t, warns, sec)
			named := 0
			for _, fr := range got {
				if len(fr) > 0 && fr[len(fr)-1].FunctionName != "" {
					named++
				}
			}
			if named < len(addrs)/2 {
				t.Errorf("only %d of %d addresses named", named, len(addrs))
			}
			sameAsLLVM(t, path, addrs, got)
		})
	}
}

// TestBadUnit: one unit whose abbreviation offset points past
// .debug_abbrev costs that unit's DWARF: its addresses are named by the
// symbol table, and every address of the other units answers as before.
func TestBadUnit(t *testing.T) {
	const name = "c-gcc-O2-dwarf5"
	var lo, hi uint64 // the damaged unit's code range, from its DW_AT_low_pc/high_pc
	path := patchedFixture(t, name, func(t *testing.T, f *elf.File, data []byte) {
		d, err := f.DWARF()
		if err != nil {
			t.Fatal(err)
		}
		r := d.Reader()
		for {
			e, err := r.Next()
			if err != nil || e == nil {
				t.Fatal("no unit with a contiguous code range")
			}
			if rs, err := d.Ranges(e); err == nil && len(rs) == 1 && e.Offset > 0 {
				lo, hi = rs[0][0], rs[0][1]
				info := sectionBytes(t, f, data, ".debug_info")
				// DWARF 5 header: length(4) version(2) unit_type(1)
				// address_size(1) debug_abbrev_offset(4).
				unit := e.Offset - 12 // the unit DIE follows the 12-byte header
				binary.LittleEndian.PutUint32(info[unit+8:], 0xfffffff0)
				break
			}
			r.SkipChildren()
		}
	})
	addrs := degradeAddrs(t, path)
	o := symbolize.Options{Inlines: true}
	want, _ := openFrames(t, filepath.Join("testdata/elf", name), addrs, o)
	got, warns := openFrames(t, path, addrs, o)
	wantDecodeWarning(t, warns, ".debug_abbrev")
	inUnit, other := 0, 0
	for i, a := range addrs {
		if a >= lo && a < hi {
			inUnit++
			if len(got[i]) != 1 || got[i][0].FileName != "" || (len(want[i]) > 0 && got[i][0].FunctionName != want[i][len(want[i])-1].FunctionName) {
				t.Errorf("%#x in the damaged unit: %+v, want the symbol table's name alone", a, got[i])
			}
			continue
		}
		other++
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Errorf("%#x outside the damaged unit: %+v, want %+v", a, got[i], want[i])
		}
	}
	if inUnit == 0 || other == 0 {
		t.Errorf("%d addresses in the damaged unit [%#x, %#x), %d outside: the test checks nothing", inUnit, lo, hi, other)
	}
}

// TestBadSymbolEntry: a .symtab entry whose name lies outside the string
// table ends the table there; the symbols before it still name addresses.
func TestBadSymbolEntry(t *testing.T) {
	const name = "c-gcc-O2-dwarf5"
	var cut uint64 // address of the first symbol lost
	path := patchedFixture(t, name, func(t *testing.T, f *elf.File, data []byte) {
		st := sectionBytes(t, f, data, ".symtab")
		syms, _ := f.Symbols()
		// The last function symbol: entry i+1 of the table (entry 0 is null).
		for i := len(syms) - 1; i >= 0; i-- {
			if elf.ST_TYPE(syms[i].Info) == elf.STT_FUNC && syms[i].Size > 0 {
				cut = syms[i].Value
				binary.LittleEndian.PutUint32(st[(i+1)*24:], 0xffffff00) // st_name
				return
			}
		}
		t.Fatal("no function symbol")
	})
	b, err := symbolize.Open(path, &symbolize.Options{NoDebugFile: true})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	named := 0
	for _, a := range degradeAddrs(t, path) {
		m, ok, err := b.LookupSymbol(a)
		if err != nil {
			t.Fatalf("%#x: %v", a, err)
		}
		if ok && m.Start != cut {
			named++
		}
	}
	if named == 0 {
		t.Error("no address named after the bad entry")
	}
	wantDecodeWarning(t, b.Warnings(), ".symtab")
}
