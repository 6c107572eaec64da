package symbolize_test

import (
	"bytes"
	"context"
	"debug/elf"
	"encoding/binary"
	"errors"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"testing"

	"github.com/symbolize-go/symbolize"
)

// TestAheadMatchesSerial: with every unit's line table built beside its
// DIE scan, the first unit's for the first address's sequence alone, the
// symbol table built ahead, the first unit built while the index's
// units tier is (speculate) and the first lookup's symbol answered by one
// pass over the table, every answer and every warning (in order) is the
// serial build's: for each fixture, from a fresh Binary whose first lookup
// is each of a few addresses, then all the others, its symbols untagged
// or not; also on fixtures whose line tables, producers or symbol tables
// do not decode.
func TestAheadMatchesSerial(t *testing.T) {
	paths, _ := filepath.Glob("testdata/elf/*")
	paths = append(paths, patchedFixture(t, "c-gcc-O2-dwarf5", func(t *testing.T, f *elf.File, data []byte) {
		patchAbbrevForm(t, f, data, 0x25 /* DW_AT_producer */, 0x0e /* strp */, 0x1d /* strp_sup */)
		// The first line table's line_range (DWARF 5: after unit_length
		// 4, version 2, address_size 1, seg_sel 1, header_length 4,
		// min_inst 1, max_ops 1, default_is_stmt 1, line_base 1) is 0.
		sectionBytes(t, f, data, ".debug_line")[4+2+1+1+4+1+1+1+1] = 0
	}))
	// clang writes no .debug_aranges: the first lookup speculates.
	paths = append(paths, patchedFixture(t, "c-clang14-O2-dwarf5", func(t *testing.T, f *elf.File, data []byte) {
		// The first unit's line table's line_range is 0.
		sectionBytes(t, f, data, ".debug_line")[4+2+1+1+4+1+1+1+1] = 0
	}))
	paths = append(paths, patchedFixture(t, "cpp-clang14-O2", func(t *testing.T, f *elf.File, data []byte) {
		// The first unit's last DW_LNE_end_sequence gets a length
		// past the unit's end: its table keeps the sequences before,
		// with an error.
		line := sectionBytes(t, f, data, ".debug_line")
		end := 4 + int(binary.LittleEndian.Uint32(line))
		i := bytes.LastIndex(line[:end], []byte{0, 1, 1})
		if i < 0 {
			t.Fatal("no end_sequence")
		}
		line[i+1] = 0x7f
	}))
	// A .symtab entry's name past the string table: the table keeps the
	// entries before it, with an error.
	paths = append(paths, patchedFixture(t, "cpp-gcc-O2", func(t *testing.T, f *elf.File, data []byte) {
		tab := sectionBytes(t, f, data, ".symtab")
		binary.LittleEndian.PutUint32(tab[len(tab)/2/24*24:], 0xfffffff0)
	}))
	// Every .symtab address tagged in its top byte: only untagged do the
	// symbols answer.
	paths = append(paths, patchedFixture(t, "c-gcc-O2-dwarf5", func(t *testing.T, f *elf.File, data []byte) {
		tab := sectionBytes(t, f, data, ".symtab")
		for i := 24; i+24 <= len(tab); i += 24 {
			tab[i+8+7] = 0x2a // st_value's top byte
		}
	}))
	checked, scans := 0, symbolize.SymbolScansForTest()
	for _, path := range paths {
		if f, err := elf.Open(path); err != nil {
			continue
		} else {
			f.Close()
		}
		addrs := degradeAddrs(t, path)
		if len(addrs) == 0 {
			continue
		}
		for k, first := range []int{0, len(addrs) / 3, len(addrs) / 2, len(addrs) - 1} {
			order := append([]uint64{addrs[first]}, addrs...)
			run := func(ahead bool) ([][]symbolize.Frame, []error) {
				if ahead {
					defer symbolize.SetAheadMinUnitForTest(0)()
				} else {
					defer symbolize.SetSpeculateForTest(false)()
					defer symbolize.SetSymbolScanForTest(false)()
				}
				b, err := symbolize.Open(path, &symbolize.Options{Inlines: true, UntagSymbols: k%2 == 1})
				if err != nil {
					return nil, []error{err} // the same error both ways
				}
				defer b.Close()
				var out [][]symbolize.Frame
				var warns []error
				for i, pc := range order {
					var fr []symbolize.Frame
					var err error
					if i == 0 {
						// A Batch of one: alone (the one-pass
						// symbol lookup).
						for _, a := range b.Batch(context.Background(), order[:1]) {
							fr, err = append([]symbolize.Frame(nil), a.Frames...), a.Err
						}
					} else {
						fr, err = b.AppendFrames(nil, pc)
					}
					if err != nil {
						t.Fatalf("%s: %#x: %v", path, pc, err)
					}
					out = append(out, fr)
					if i == 0 {
						// What the first lookup met, reported by then.
						warns = append(b.Warnings(), nil)
					}
				}
				return out, append(warns, b.Warnings()...)
			}
			want, wantW := run(false)
			before := symbolize.SpeculationsKeptForTest()
			got, gotW := run(true)
			kept := symbolize.SpeculationsKeptForTest() - before
			if len(got) != len(want) {
				t.Fatalf("%s: %d answers, serially %d", path, len(got), len(want))
			}
			for i := range want {
				if !reflect.DeepEqual(got[i], want[i]) {
					t.Fatalf("%s, first %#x: at %#x: %+v, serially %+v", path, order[0], order[i], got[i], want[i])
				}
			}
			if !reflect.DeepEqual(gotW, wantW) {
				t.Fatalf("%s, first %#x: warnings %v, serially %v", path, order[0], gotW, wantW)
			}
			checked++
			if path == paths[len(paths)-5] && len(wantW) < 2 || path == paths[len(paths)-4] && len(wantW) < 1 || path == paths[len(paths)-3] && len(wantW) < 1 {
				t.Fatalf("%s: warnings %v: want the producers' and the line table's, or the line table's", path, wantW)
			}
			if path == paths[len(paths)-2] && !hasSection(wantW, ".symtab") {
				t.Fatalf("%s: warnings %v: want the symbol table's", path, wantW)
			}
			if path == paths[len(paths)-3] && kept == 0 {
				t.Fatalf("%s: the first lookup did not keep its speculative unit", path)
			}
		}
	}
	if checked < 40 {
		t.Fatalf("%d runs checked", checked)
	}
	// One scan per ahead run, but where the first lookup needs no symbol
	// (the DWARF answers and the symbol table covers no such address).
	if n := symbolize.SymbolScansForTest() - scans; n < int64(checked)*3/4 {
		t.Fatalf("%d of %d first lookups answered by the one-pass symbol lookup", n, checked)
	}
}

// hasSection reports a *DecodeError of section among warns.
func hasSection(warns []error, section string) bool {
	for _, w := range warns {
		var de *symbolize.DecodeError
		if errors.As(w, &de) && de.Section == section {
			return true
		}
	}
	return false
}

// TestSymbolsAheadOfInfo: a bulk batch over a compressed .debug_info
// starts the symbol table once the other sections are in, while
// .debug_info inflates (loadModule's spare core), before any lookup, and
// answers as one address at a time does.
func TestSymbolsAheadOfInfo(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	for _, fixture := range []string{"c-gcc-O2-gz-zlib", "c-gcc-O2-zstd"} {
		path := filepath.Join("testdata/elf", fixture)
		addrs := sampleAddrs(t, path)
		// A bulk batch: readAheadMin (4,096) addresses or more.
		pcs := slices.Repeat(addrs, 4096/len(addrs)+1)
		b, err := symbolize.Open(path, nil)
		if err != nil {
			t.Fatal(err)
		}
		ref, err := symbolize.Open(path, nil)
		if err != nil {
			t.Fatal(err)
		}
		for i, a := range b.Batch(context.Background(), pcs) {
			want, err := ref.AppendFrames(nil, pcs[i])
			if !reflect.DeepEqual(a.Frames, want) || !reflect.DeepEqual(a.Err, err) {
				t.Fatalf("%s: %#x: batch answered %v, %v; one at a time %v, %v", fixture, pcs[i], a.Frames, a.Err, want, err)
			}
		}
		if !symbolize.SymbolsStartedAheadForTest(b) {
			t.Errorf("%s: the symbol table was not started ahead", fixture)
		}
		b.Close()
		ref.Close()
	}
}
