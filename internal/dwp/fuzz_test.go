package dwp

import (
	"debug/elf"
	"encoding/binary"
	"path/filepath"
	"testing"
)

// fixtureIndexes returns the .debug_cu_index sections of the packages in
// testdata/split (the fixtures of split DWARF), by file name.
func fixtureIndexes(t testing.TB) map[string][]byte {
	paths, _ := filepath.Glob("../../testdata/split/*.dwp")
	out := map[string][]byte{}
	for _, p := range paths {
		f, err := elf.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		if s := f.Section(".debug_cu_index"); s != nil {
			if b, err := s.Data(); err == nil {
				out[filepath.Base(p)] = b
			}
		}
		f.Close()
	}
	return out
}

// TestFixtures parses the packages' indexes: every row is found by its
// signature, and its contributions are the ones llvm-dwarfdump-14
// --debug-cu-index prints (a few spot checks, taken from its output).
func TestFixtures(t *testing.T) {
	idx := fixtureIndexes(t)
	if len(idx) == 0 {
		t.Skip("no packages in testdata/split")
	}
	want := map[string]struct {
		version uint16
		cols    []Kind
		sig     uint64
		info    Contribution
	}{
		"gcc-dwarf5.dwp": {5, []Kind{Info, Abbrev, Line, Loclists, StrOffsets, Rnglists}, 0x067eac8cf55241ff, Contribution{0, 0x4ef}},
		"gcc-dwarf4.dwp": {2, []Kind{Info, Abbrev, Line, Loc, StrOffsets}, 0xe94e673bf39ea307, Contribution{0, 0x588}},
		"clang-dwarf5.dwp": {5, []Kind{Info, Abbrev, Loclists, StrOffsets, Rnglists}, 0x095a36986a6b6621,
			Contribution{0x76c, 0x13a8 - 0x76c}},
	}
	for name, data := range idx {
		ix, err := Parse(".debug_cu_index", data, false)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		n := 0
		for r := range ix.All() {
			n++
			if got, ok, err := ix.Find(r.Signature); !ok || err != nil || got.Unit() != r.Unit() {
				t.Errorf("%s: Find(%#x) = %v, %v", name, r.Signature, ok, err)
			}
		}
		if n != ix.Len() || n != 5 {
			t.Errorf("%s: %d rows of %d, want 5", name, n, ix.Len())
		}
		w, ok := want[name]
		if !ok {
			continue
		}
		if ix.Version != w.version || len(ix.Columns()) != len(w.cols) {
			t.Errorf("%s: version %d, columns %v", name, ix.Version, ix.Columns())
		}
		for i, k := range ix.Columns() {
			if i < len(w.cols) && k != w.cols[i] {
				t.Errorf("%s: column %d is %v, want %v", name, i, k, w.cols[i])
			}
		}
		r, ok, _ := ix.Find(w.sig)
		if !ok || r.Unit() != w.info {
			t.Errorf("%s: Find(%#x) = %v, INFO %+v; want %+v", name, w.sig, ok, r.Unit(), w.info)
		}
	}
}

// FuzzParse feeds corrupt indexes to Parse and looks up every signature
// the index holds and one the input names: nothing may panic or hang, and
// a good row is found by its signature. Seeds: the fixtures' indexes (a
// few hundred bytes each) and small hand-made ones.
func FuzzParse(f *testing.F) {
	for _, data := range fixtureIndexes(f) {
		f.Add(data, uint64(0), false)
	}
	f.Add(index{version: 2, cols: []uint32{1, 3}, slots: 2, units: []unit{{sig: 7, slot: -1, contribs: [][2]uint32{{0, 1}, {2, 3}}}}}.bytes(), uint64(7), false)
	f.Add(index{version: 5, cols: v5cols, slots: 4, big: true, units: []unit{{sig: 9, slot: -1, contribs: row(3)}}}.bytes(), uint64(9), true)
	f.Fuzz(func(t *testing.T, data []byte, sig uint64, big bool) {
		for _, sec := range []string{".debug_cu_index", ".debug_tu_index"} {
			ix, err := Parse(sec, data, big)
			if ix == nil {
				if err == nil {
					t.Fatal("nil index without an error")
				}
				continue
			}
			for r := range ix.All() {
				// A good slot is the first of its signature on its
				// probe sequence (a later copy is a bad slot): Find
				// gives exactly its row.
				if got, ok, err := ix.Find(r.Signature); !ok || err != nil || got.n != r.n {
					t.Fatalf("good row %d (%#x): Find = row %d, %v, %v", r.n, r.Signature, got.n, ok, err)
				}
				for k := Unknown; k <= Rnglists; k++ {
					r.Contribution(k)
				}
			}
			ix.Find(sig)
			if len(data) >= 24 {
				ix.Find(binary.LittleEndian.Uint64(data[16:]))
			}
		}
	})
}
