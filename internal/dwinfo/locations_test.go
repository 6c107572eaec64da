package dwinfo

import (
	"errors"
	"io"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/symbolize-go/symbolize/internal/dwasm"
	"github.com/symbolize-go/symbolize/internal/dwinfo/dwinfotest"
)

// locUnit returns a loaded unit of the given version and format with
// address size asz and, in DWARF 5, DW_AT_loclists_base base.
func locUnit(t *testing.T, version uint16, dwarf64 bool, asz uint8, base uint64, big bool) *Unit {
	t.Helper()
	ab := dwasm.New(big).ULEB(1).ULEB(uint64(TagCompileUnit)).U8(0)
	if version >= 5 {
		ab.ULEB(uint64(AttrLoclistsBase)).ULEB(0x17) // sec_offset
	}
	ab.U8(0).U8(0).U8(0)
	b := dwasm.New(big)
	l := b.BeginLength(dwarf64)
	if version >= 5 {
		b.U16(version).U8(uint8(UnitCompile)).U8(asz).Off(dwarf64, 0)
	} else {
		b.U16(version).Off(dwarf64, 0).U8(asz)
	}
	b.ULEB(1)
	if version >= 5 {
		b.Off(dwarf64, base)
	}
	b.End(l)
	d := New(Sections{Info: b.Bytes(), Abbrev: ab.Bytes(), BigEndian: big}, nil)
	h, err := d.HeaderAt(0)
	if err != nil {
		t.Fatal(err)
	}
	u, err := d.LoadUnit(h)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// readList returns every entry of the list at off, and the error that
// ended it (nil for io.EOF after the end entry).
func readList(u *Unit, sec []byte, off uint64) ([]LocEntry, error) {
	lr := u.LocList(sec, off)
	var out []LocEntry
	for n := 0; n <= len(sec); n++ {
		var e LocEntry
		err := lr.Next(&e)
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, e)
	}
	panic("more entries than bytes")
}

func TestLocListV4(t *testing.T) {
	for _, big := range []bool{false, true} {
		for _, asz := range []uint8{4, 8} {
			b := dwasm.New(big).U8(0xee) // the list starts at 1
			b.Uint(int(asz), 0x10).Uint(int(asz), 0x20).U16(2).U8(0x91).U8(0x7c)
			b.Uint(int(asz), ^uint64(0)>>(64-8*uint(asz))).Uint(int(asz), 0x4000)
			b.Uint(int(asz), 0).Uint(int(asz), 0)
			sec := b.Bytes()
			u := locUnit(t, 4, false, asz, 0, big)
			got, err := readList(u, sec, 1)
			want := []LocEntry{
				{Kind: LLEOffsetPair, V0: 0x10, V1: 0x20, Expr: []byte{0x91, 0x7c}},
				{Kind: LLEBaseAddress, V0: 0x4000},
				{Kind: LLEEndOfList},
			}
			if diff := cmp.Diff(want, got); diff != "" || err != nil {
				t.Errorf("big %v, size %d: err %v, entries (-want +got):\n%s", big, asz, err, diff)
			}
			// Every cut before the end is ErrTruncated.
			for n := 1; n < len(sec); n++ {
				if _, err := readList(u, sec[:n], 1); !errors.Is(err, ErrTruncated) {
					t.Errorf("big %v, size %d, cut at %d: %v, want ErrTruncated", big, asz, n, err)
				}
			}
		}
	}
}

func TestLocListV5(t *testing.T) {
	b := dwasm.New(false).U8(0xee)
	b.U8(0x01).ULEB(3)                                 // base_addressx
	b.U8(0x02).ULEB(1).ULEB(2).ULEB(1).U8(0x50)        // startx_endx
	b.U8(0x03).ULEB(4).ULEB(0x10).ULEB(1).U8(0x51)     // startx_length
	b.U8(0x04).ULEB(0x10).ULEB(0x20).ULEB(1).U8(0x52)  // offset_pair
	b.U8(0x05).ULEB(2).U8(0x91).U8(0x00)               // default_location
	b.U8(0x06).U64(0x1000)                             // base_address
	b.U8(0x07).U64(0x1000).U64(0x1100).ULEB(0)         // start_end, empty expression
	b.U8(0x08).U64(0x2000).ULEB(0x80).ULEB(1).U8(0x53) // start_length
	b.U8(0x00)
	sec := b.Bytes()
	u := locUnit(t, 5, false, 8, 12, false)
	got, err := readList(u, sec, 1)
	want := []LocEntry{
		{Kind: LLEBaseAddressx, V0: 3},
		{Kind: LLEStartxEndx, V0: 1, V1: 2, Expr: []byte{0x50}},
		{Kind: LLEStartxLength, V0: 4, V1: 0x10, Expr: []byte{0x51}},
		{Kind: LLEOffsetPair, V0: 0x10, V1: 0x20, Expr: []byte{0x52}},
		{Kind: LLEDefaultLocation, Expr: []byte{0x91, 0x00}},
		{Kind: LLEBaseAddress, V0: 0x1000},
		{Kind: LLEStartEnd, V0: 0x1000, V1: 0x1100, Expr: []byte{}},
		{Kind: LLEStartLength, V0: 0x2000, V1: 0x80, Expr: []byte{0x53}},
		{Kind: LLEEndOfList},
	}
	if diff := cmp.Diff(want, got); diff != "" || err != nil {
		t.Errorf("err %v, entries (-want +got):\n%s", err, diff)
	}
	for n := 1; n < len(sec); n++ {
		if _, err := readList(u, sec[:n], 1); !errors.Is(err, ErrTruncated) {
			t.Errorf("cut at %d: %v, want ErrTruncated", n, err)
		}
	}
	// An unknown kind is an error, sticky.
	bad := []byte{0x05, 0x00, 0x09, 0x00}
	lr := u.LocList(bad, 0)
	var e LocEntry
	if err := lr.Next(&e); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if err := lr.Next(&e); !errors.Is(err, ErrFormat) {
			t.Errorf("kind 9: %v, want ErrFormat", err)
		}
	}
	// An offset past the section.
	if _, err := readList(u, sec, uint64(len(sec))+1); !errors.Is(err, ErrTruncated) {
		t.Errorf("offset past the section: %v", err)
	}
}

func TestLoclistxOffset(t *testing.T) {
	for _, dwarf64 := range []bool{false, true} {
		b := dwasm.New(false)
		l := b.BeginLength(dwarf64)
		b.U16(5).U8(8).U8(0).U32(2)
		base := uint64(b.Len())
		b.Off(dwarf64, 0x40).Off(dwarf64, 0x50)
		b.End(l)
		sec := b.Bytes()
		u := locUnit(t, 5, dwarf64, 8, base, false)
		for i, want := range []uint64{base + 0x40, base + 0x50} {
			if got, err := u.LoclistxOffset(sec, uint64(i)); got != want || err != nil {
				t.Errorf("dwarf64 %v, index %d: %#x, %v; want %#x", dwarf64, i, got, err, want)
			}
		}
		if _, err := u.LoclistxOffset(sec, 2); !errors.Is(err, ErrFormat) {
			t.Errorf("dwarf64 %v: index past offset_entry_count: %v", dwarf64, err)
		}
		if _, err := u.LoclistxOffset(sec[:base+4], 1); !errors.Is(err, ErrTruncated) {
			t.Errorf("dwarf64 %v: offsets table cut: %v", dwarf64, err)
		}
		if _, err := u.LoclistxOffset(sec[:base-1], 0); err == nil {
			t.Errorf("dwarf64 %v: header cut: no error", dwarf64)
		}
		if _, err := u.LoclistxOffset(sec, 1<<62); err == nil {
			t.Errorf("dwarf64 %v: huge index: no error", dwarf64)
		}
	}
	// loclists_base smaller than a header.
	u := locUnit(t, 5, false, 8, 4, false)
	if _, err := u.LoclistxOffset(make([]byte, 64), 0); !errors.Is(err, ErrFormat) {
		t.Errorf("loclists_base 4: %v", err)
	}
}

// FuzzLocList reads a location list from arbitrary bytes, both encodings,
// any address size and offset: no panic, and at most one entry per byte.
func FuzzLocList(f *testing.F) {
	f.Add([]byte{0x04, 0x00, 0x10, 0x02, 0x91, 0x70, 0x00}, true, uint8(8), uint64(0), uint64(0))
	// The first lists of the fixtures' location sections.
	for _, p := range fixturePaths() {
		e, ok, err := dwinfotest.Open(p)
		if err != nil || !ok {
			continue
		}
		if s := e.Section(".debug_loclists"); len(s) > 12 {
			f.Add(s[:min(len(s), 256)], true, uint8(8), uint64(12), uint64(12))
		}
		if s := e.Section(".debug_loc"); len(s) > 0 {
			f.Add(s[:min(len(s), 256)], false, uint8(8), uint64(0), uint64(0))
		}
		e.File.Close()
	}
	f.Add(dwasm.New(false).U64(1).U64(2).U16(1).U8(0x50).U64(0).U64(0).Bytes(), false, uint8(8), uint64(0), uint64(0))
	f.Add([]byte{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x05, 0x01, 0x50, 0x00}, true, uint8(4), uint64(12), uint64(12))
	f.Fuzz(func(t *testing.T, sec []byte, v5 bool, asz uint8, off, base uint64) {
		version := uint16(4)
		if v5 {
			version = 5
		}
		if asz != 4 && asz != 8 {
			asz = 8
		}
		u := locUnit(t, version, false, asz, base, false)
		if _, err := readList(u, sec, off); err != nil && !errors.Is(err, ErrTruncated) && !errors.Is(err, ErrFormat) && !errors.Is(err, ErrOverflow) {
			t.Fatalf("unexpected error kind: %v", err)
		}
		if v5 {
			if o, err := u.LoclistxOffset(sec, off); err == nil {
				readList(u, sec, o)
			}
		}
	})
}
