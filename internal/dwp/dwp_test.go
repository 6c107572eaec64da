package dwp

import (
	"errors"
	"testing"

	"github.com/symbolize-go/symbolize/internal/dwasm"
)

// unit is one row of an index under construction: its signature, the slot
// it goes to (-1: where the probe sequence puts it) and one (offset, size)
// per column.
type unit struct {
	sig      uint64
	slot     int
	contribs [][2]uint32
}

// index assembles an index section: version (2 or 5), column ids, the
// slot count and the units; fix, when set, edits the slot tables (sigs,
// rows) before they are written.
type index struct {
	version uint16
	cols    []uint32
	slots   uint32
	units   []unit
	big     bool
	fix     func(sigs []uint64, rows []uint32)
}

func (x index) bytes() []byte {
	b := dwasm.New(x.big)
	if x.version == 2 {
		b.U32(2)
	} else {
		b.U16(x.version).U16(0)
	}
	b.U32(uint32(len(x.cols))).U32(uint32(len(x.units))).U32(x.slots)
	sigs := make([]uint64, x.slots)
	rows := make([]uint32, x.slots)
	for i, u := range x.units {
		h := u.slot
		if h < 0 {
			mask := x.slots - 1
			s, step := uint32(u.sig)&mask, uint32(u.sig>>32)&mask|1
			for rows[s] != 0 {
				s = (s + step) & mask
			}
			h = int(s)
		}
		sigs[h], rows[h] = u.sig, uint32(i+1)
	}
	if x.fix != nil {
		x.fix(sigs, rows)
	}
	for _, s := range sigs {
		b.U64(s)
	}
	for _, r := range rows {
		b.U32(r)
	}
	for _, c := range x.cols {
		b.U32(c)
	}
	for _, u := range x.units {
		for _, c := range u.contribs {
			b.U32(c[0])
		}
	}
	for _, u := range x.units {
		for _, c := range u.contribs {
			b.U32(c[1])
		}
	}
	return b.Bytes()
}

// v5 columns as llvm-dwp writes them for gcc: INFO ABBREV LINE LOCLISTS
// STR_OFFSETS RNGLISTS.
var v5cols = []uint32{1, 3, 4, 5, 6, 8}

func row(base uint32) [][2]uint32 {
	var c [][2]uint32
	for i := range uint32(6) {
		c = append(c, [2]uint32{base + i, 0x10 + i})
	}
	return c
}

func TestParseFind(t *testing.T) {
	for _, big := range []bool{false, true} {
		x := index{version: 5, cols: v5cols, slots: 8, big: big, units: []unit{
			{sig: 0x067eac8cf55241ff, slot: -1, contribs: row(0)},
			{sig: 0x4118822b64711cae, slot: -1, contribs: row(0x100)},
			// Same low bits as the first: placed by its step.
			{sig: 0x100000000000000 | 0x067eac8cf55241ff&7, slot: -1, contribs: row(0x200)},
		}}
		ix, err := Parse(".debug_cu_index", x.bytes(), big)
		if err != nil {
			t.Fatal(err)
		}
		if ix.Version != 5 || ix.Len() != 3 {
			t.Fatalf("version %d, %d units", ix.Version, ix.Len())
		}
		want := []Kind{Info, Abbrev, Line, Loclists, StrOffsets, Rnglists}
		for i, k := range ix.Columns() {
			if k != want[i] {
				t.Errorf("column %d = %v, want %v", i, k, want[i])
			}
		}
		for i, u := range x.units {
			r, ok, err := ix.Find(u.sig)
			if !ok || err != nil {
				t.Fatalf("big=%v Find(%#x) = %v, %v", big, u.sig, ok, err)
			}
			base := uint32(0x100 * i)
			if c := r.Unit(); c != (Contribution{uint64(base), 0x10}) {
				t.Errorf("Find(%#x).Unit() = %+v", u.sig, c)
			}
			if c, ok := r.Contribution(Rnglists); !ok || c != (Contribution{uint64(base + 5), 0x15}) {
				t.Errorf("Find(%#x) rnglists = %+v, %v", u.sig, c, ok)
			}
			if _, ok := r.Contribution(Loc); ok {
				t.Errorf("version 5 row has a LOC column")
			}
		}
		if _, ok, err := ix.Find(0x1234); ok || err != nil {
			t.Errorf("Find(absent) = %v, %v", ok, err)
		}
		n := 0
		for range ix.All() {
			n++
		}
		if n != 3 {
			t.Errorf("All gave %d rows", n)
		}
	}
}

func TestVersion2(t *testing.T) {
	// gcc's version 2: INFO ABBREV LINE LOC STR_OFFSETS (1 3 4 5 6);
	// a TU index names TYPES (2) for its units.
	cols := []uint32{1, 3, 4, 5, 6}
	c := [][2]uint32{{1, 2}, {3, 4}, {5, 6}, {7, 8}, {9, 10}}
	x := index{version: 2, cols: cols, slots: 2, units: []unit{{sig: 1, slot: -1, contribs: c}}}
	ix, err := Parse(".debug_cu_index", x.bytes(), false)
	if err != nil {
		t.Fatal(err)
	}
	r, ok, _ := ix.Find(1)
	if !ok {
		t.Fatal("Find(1) missing")
	}
	if got, _ := r.Contribution(Loc); got != (Contribution{7, 8}) {
		t.Errorf("LOC = %+v", got)
	}
	if got, _ := r.Contribution(StrOffsets); got != (Contribution{9, 10}) {
		t.Errorf("STR_OFFSETS = %+v", got)
	}
	if _, err := Parse(".debug_tu_index", x.bytes(), false); !errors.Is(err, ErrFormat) {
		t.Errorf("v2 TU index without a TYPES column: %v", err)
	}
	x.cols = []uint32{2, 3, 4, 5, 6}
	if ix, err := Parse(".debug_tu_index", x.bytes(), false); err != nil {
		t.Error(err)
	} else if r, ok, _ := ix.Find(1); !ok || r.Unit() != (Contribution{1, 2}) {
		t.Errorf("TU row: %v %+v", ok, r.Unit())
	}
}

func TestBadIndex(t *testing.T) {
	good := func() index {
		return index{version: 5, cols: v5cols, slots: 4, units: []unit{
			{sig: 0x11, slot: -1, contribs: row(0)}, {sig: 0x22, slot: -1, contribs: row(0x40)},
		}}
	}
	for _, tc := range []struct {
		name string
		edit func(x *index) []byte
		want error
	}{
		{"empty", func(x *index) []byte { return nil }, ErrTruncated},
		{"short header", func(x *index) []byte { return x.bytes()[:15] }, ErrTruncated},
		{"version 3", func(x *index) []byte { x.version = 3; return x.bytes() }, ErrUnsupportedVersion},
		{"slots not a power of two", func(x *index) []byte { b := x.bytes(); b[12] = 3; return b }, ErrFormat},
		{"more units than slots", func(x *index) []byte { x.slots = 1; x.units = x.units[:1]; b := x.bytes(); b[8] = 2; return b }, ErrFormat},
		{"tables past the end", func(x *index) []byte { b := x.bytes(); return b[:len(b)-1] }, ErrTruncated},
		{"huge counts", func(x *index) []byte { b := x.bytes(); b[12], b[15], b[11] = 0, 0x80, 0x7f; return b }, ErrTruncated},
		{"no INFO column", func(x *index) []byte { x.cols = []uint32{3, 3 + 1, 5, 6, 8, 7}; return x.bytes() }, ErrFormat},
		{"INFO twice", func(x *index) []byte { x.cols = []uint32{1, 1, 4, 5, 6, 8}; return x.bytes() }, ErrFormat},
		{"no columns", func(x *index) []byte {
			x.cols = nil
			x.units[0].contribs, x.units[1].contribs = nil, nil
			return x.bytes()
		}, ErrFormat},
	} {
		x := good()
		ix, err := Parse(".debug_cu_index", tc.edit(&x), false)
		if ix != nil || !errors.Is(err, tc.want) {
			t.Errorf("%s: Parse = %v, %v; want nil, %v", tc.name, ix != nil, err, tc.want)
			continue
		}
		var de *DecodeError
		if !errors.As(err, &de) || de.Section != ".debug_cu_index" {
			t.Errorf("%s: %v is not a *DecodeError of .debug_cu_index", tc.name, err)
		}
	}
}

// Inconsistent slots cost themselves: the other rows are still found, and
// looking up a bad slot's signature gives its error.
func TestInconsistentSlots(t *testing.T) {
	base := func() index {
		return index{version: 5, cols: v5cols, slots: 8, units: []unit{
			{sig: 0x11, slot: -1, contribs: row(0)}, {sig: 0x22, slot: -1, contribs: row(0x40)},
			{sig: 0x33, slot: -1, contribs: row(0x80)},
		}}
	}
	for _, tc := range []struct {
		name    string
		fix     func(sigs []uint64, rows []uint32)
		bad     uint64 // the signature whose lookup fails
		lookErr bool   // Find(bad) reports the error (else: absent)
	}{
		{"row past unit_count", func(s []uint64, r []uint32) { r[3] = 9 }, 0x33, true},
		{"row named twice", func(s []uint64, r []uint32) { s[5], r[5] = 0x55, 1 }, 0x55, true},
		// 0x22 moved to slot 7: its sequence (2, 5, ...) meets the empty
		// slot 2 first.
		{"unreachable", func(s []uint64, r []uint32) { s[7], r[7] = s[2], r[2]; s[2], r[2] = 0, 0 }, 0x22, true},
		// 0x11 (slot 1) again in slot 2, a later slot of its sequence:
		// slot 2 is dropped, and 0x22, its row, is not found.
		{"signature twice", func(s []uint64, r []uint32) { s[2] = 0x11 }, 0x22, false},
	} {
		x := base()
		x.fix = tc.fix
		ix, err := Parse(".debug_cu_index", x.bytes(), false)
		if ix == nil || !errors.Is(err, ErrFormat) {
			t.Errorf("%s: Parse = %v, %v; want an index and ErrFormat", tc.name, ix != nil, err)
			continue
		}
		for _, u := range x.units {
			if u.sig == tc.bad {
				continue
			}
			if _, ok, err := ix.Find(u.sig); !ok || err != nil {
				t.Errorf("%s: Find(%#x) = %v, %v", tc.name, u.sig, ok, err)
			}
		}
		_, ok, err := ix.Find(tc.bad)
		if ok || (err != nil) != tc.lookErr {
			t.Errorf("%s: Find(%#x) = %v, %v; want error %v", tc.name, tc.bad, ok, err, tc.lookErr)
		}
	}
}

// A full table without the signature: LLVM 14 loops forever; Find ends.
func TestFullTable(t *testing.T) {
	var units []unit
	for i := range 8 {
		units = append(units, unit{sig: uint64(i) * 0x1_0000_0008, slot: -1, contribs: row(0)})
	}
	ix, err := Parse(".debug_cu_index", index{version: 5, cols: v5cols, slots: 8, units: units}.bytes(), false)
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range units {
		if _, ok, _ := ix.Find(u.sig); !ok {
			t.Errorf("Find(%#x) missing", u.sig)
		}
	}
	if _, ok, err := ix.Find(0xdead); ok || err != nil {
		t.Errorf("Find(absent) in a full table = %v, %v", ok, err)
	}
}
