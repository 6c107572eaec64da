package dwasm

import (
	"bytes"
	"errors"
	"math"
	"math/bits"
	"testing"

	"github.com/symbolize-go/symbolize/internal/buf"
)

func TestFixedWidth(t *testing.T) {
	for _, big := range []bool{false, true} {
		b := New(big)
		b.U8(0x01).U16(0x0203).U32(0x04050607).U64(0x08090a0b0c0d0e0f).Uint(3, 0x101112).Off(false, 0x13141516).Off(true, 0x1718191a1b1c1d1e)
		r := buf.New("dwasm", ".test", b.Bytes(), big)
		if g := r.U8(); g != 0x01 {
			t.Errorf("big=%v U8 = %#x", big, g)
		}
		if g := r.U16(); g != 0x0203 {
			t.Errorf("big=%v U16 = %#x", big, g)
		}
		if g := r.U32(); g != 0x04050607 {
			t.Errorf("big=%v U32 = %#x", big, g)
		}
		if g := r.U64(); g != 0x08090a0b0c0d0e0f {
			t.Errorf("big=%v U64 = %#x", big, g)
		}
		if g := r.Uint(3); g != 0x101112 {
			t.Errorf("big=%v Uint(3) = %#x", big, g)
		}
		if g := r.Off(false); g != 0x13141516 {
			t.Errorf("big=%v Off32 = %#x", big, g)
		}
		if g := r.Off(true); g != 0x1718191a1b1c1d1e {
			t.Errorf("big=%v Off64 = %#x", big, g)
		}
		if r.Err() != nil || r.Len() != 0 {
			t.Errorf("big=%v: err %v, %d left", big, r.Err(), r.Len())
		}
	}
	// Byte order spelled out once, so both readers and writers cannot be
	// wrong the same way.
	if got := New(true).U32(0x01020304).Bytes(); !bytes.Equal(got, []byte{1, 2, 3, 4}) {
		t.Errorf("big-endian U32 = % x", got)
	}
	if got := New(false).U32(0x01020304).Bytes(); !bytes.Equal(got, []byte{4, 3, 2, 1}) {
		t.Errorf("little-endian U32 = % x", got)
	}
}

var ulebCases = []struct {
	v    uint64
	want []byte
}{
	{0, []byte{0x00}},
	{1, []byte{0x01}},
	{0x7f, []byte{0x7f}},
	{0x80, []byte{0x80, 0x01}},
	{624485, []byte{0xe5, 0x8e, 0x26}},
	{0x3fff, []byte{0xff, 0x7f}},
	{0x4000, []byte{0x80, 0x80, 0x01}},
	{math.MaxUint32, []byte{0xff, 0xff, 0xff, 0xff, 0x0f}},
	{1 << 63, []byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01}},
	{math.MaxUint64, []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}},
}

var slebCases = []struct {
	v    int64
	want []byte
}{
	{0, []byte{0x00}},
	{1, []byte{0x01}},
	{-1, []byte{0x7f}},
	{63, []byte{0x3f}},
	{64, []byte{0xc0, 0x00}},
	{-64, []byte{0x40}},
	{-65, []byte{0xbf, 0x7f}},
	{-123456, []byte{0xc0, 0xbb, 0x78}},
	{127, []byte{0xff, 0x00}},
	{-128, []byte{0x80, 0x7f}},
	{math.MaxInt64, []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x00}},
	{math.MinInt64, []byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x7f}},
}

func TestLEB(t *testing.T) {
	for _, c := range ulebCases {
		got := New(false).ULEB(c.v).Bytes()
		if !bytes.Equal(got, c.want) {
			t.Errorf("ULEB(%#x) = % x, want % x", c.v, got, c.want)
		}
		if n := ulebLen(c.v); n != len(c.want) {
			t.Errorf("ulebLen(%#x) = %d, want %d", c.v, n, len(c.want))
		}
		r := buf.New("dwasm", ".test", got, false)
		if v := r.ULEB(); v != c.v || r.Err() != nil || r.Len() != 0 {
			t.Errorf("buf.ULEB(% x) = %#x, err %v, %d left", got, v, r.Err(), r.Len())
		}
	}
	for _, c := range slebCases {
		got := New(false).SLEB(c.v).Bytes()
		if !bytes.Equal(got, c.want) {
			t.Errorf("SLEB(%d) = % x, want % x", c.v, got, c.want)
		}
		if n := slebLen(c.v); n != len(c.want) {
			t.Errorf("slebLen(%d) = %d, want %d", c.v, n, len(c.want))
		}
		r := buf.New("dwasm", ".test", got, false)
		if v := r.SLEB(); v != c.v || r.Err() != nil || r.Len() != 0 {
			t.Errorf("buf.SLEB(% x) = %d, err %v, %d left", got, v, r.Err(), r.Len())
		}
	}
}

// ulebLen is the size of the shortest unsigned LEB128 of v: 7 bits a byte.
func ulebLen(v uint64) int { return max(1, (bits.Len64(v)+6)/7) }

// slebLen is the size of the shortest signed LEB128 of v: its significant
// bits and a sign bit, 7 bits a byte.
func slebLen(v int64) int {
	if v < 0 {
		v = ^v
	}
	return (bits.Len64(uint64(v)) + 1 + 6) / 7
}

// TestLEBSweep checks every power-of-two boundary and its neighbours, where
// an off-by-one in the continuation logic would show.
func TestLEBSweep(t *testing.T) {
	var us []uint64
	var ss []int64
	for s := range 64 {
		for _, d := range []int64{-1, 0, 1} {
			us = append(us, uint64(1)<<s+uint64(d))
			ss = append(ss, int64(1)<<s+d, -(int64(1)<<s)+d)
		}
	}
	for _, v := range us {
		b := New(true).ULEB(v).Bytes()
		r := buf.New("dwasm", ".test", b, true)
		if g := r.ULEB(); g != v || r.Err() != nil || r.Len() != 0 || len(b) != ulebLen(v) {
			t.Errorf("ULEB round trip %#x: got %#x (% x), err %v", v, g, b, r.Err())
		}
	}
	for _, v := range ss {
		b := New(true).SLEB(v).Bytes()
		r := buf.New("dwasm", ".test", b, true)
		if g := r.SLEB(); g != v || r.Err() != nil || r.Len() != 0 || len(b) != slebLen(v) {
			t.Errorf("SLEB round trip %d: got %d (% x), err %v", v, g, b, r.Err())
		}
	}
}

func TestULEBPadded(t *testing.T) {
	b := New(false).ULEBPadded(5, 4).Bytes()
	if want := []byte{0x85, 0x80, 0x80, 0x00}; !bytes.Equal(b, want) {
		t.Errorf("ULEBPadded(5, 4) = % x, want % x", b, want)
	}
	// Padding never shortens: a value longer than n keeps its length.
	if b := New(false).ULEBPadded(0x4000, 1).Bytes(); len(b) != 3 {
		t.Errorf("ULEBPadded(0x4000, 1) = % x", b)
	}
	// Padded to 10 bytes still fits 64 bits; 11 bytes of padding are legal
	// too as long as the high bits stay zero.
	for _, n := range []int{10, 11, 16} {
		b := New(false).ULEBPadded(math.MaxUint64>>1, n).Bytes()
		r := buf.New("dwasm", ".test", b, false)
		if g := r.ULEB(); g != math.MaxUint64>>1 || r.Err() != nil {
			t.Errorf("padded to %d: got %#x, err %v", n, g, r.Err())
		}
	}
}

// TestLEBErrors checks that what a builder can produce for hostile tests
// (a LEB cut off, a LEB past 64 bits) is reported by buf at the LEB's
// first byte.
func TestLEBErrors(t *testing.T) {
	b := New(false).U8(0xaa)
	b.Raw([]byte{0x80, 0x80}) // unterminated
	r := buf.New("dwasm", ".test", b.Bytes(), false)
	r.U8()
	r.ULEB()
	var de *buf.DecodeError
	if !errors.As(r.Err(), &de) || !errors.Is(r.Err(), buf.ErrTruncated) || de.Offset != 1 {
		t.Errorf("truncated ULEB: %v", r.Err())
	}

	b = New(false).U16(0).ULEB(math.MaxUint64)
	b.Bytes()[b.Len()-1] = 0x02 // bit 64 set
	r = buf.New("dwasm", ".test", b.Bytes(), false)
	r.U16()
	r.ULEB()
	if !errors.As(r.Err(), &de) || !errors.Is(r.Err(), buf.ErrOverflow) || de.Offset != 2 {
		t.Errorf("overlong ULEB: %v", r.Err())
	}
}

func TestLengths(t *testing.T) {
	for _, big := range []bool{false, true} {
		for _, d64 := range []bool{false, true} {
			b := New(big).U8(0xee)
			outer := b.BeginLength(d64)
			b.U16(5)
			inner := b.BeginOffLength(d64)
			b.CString("abc").ULEB(300)
			nInner := b.End(inner)
			b.U8(1)
			nOuter := b.End(outer)

			wantInner := uint64(4 + 2)
			if nInner != wantInner {
				t.Errorf("inner length %d, want %d", nInner, wantInner)
			}
			off := 4
			if d64 {
				off = 8
			}
			if want := uint64(2+off) + wantInner + 1; nOuter != want {
				t.Errorf("outer length %d, want %d", nOuter, want)
			}
			if outer.Offset() != 1 {
				t.Errorf("outer offset %d", outer.Offset())
			}

			r := buf.New("dwasm", ".test", b.Bytes(), big)
			r.U8()
			l, is64 := r.InitialLength()
			if l != nOuter || is64 != d64 || r.Offset() != uint64(outer.Start()) {
				t.Errorf("d64=%v big=%v: InitialLength = %d,%v at %d", d64, big, l, is64, r.Offset())
			}
			r.U16()
			if hl := r.Off(d64); hl != nInner || r.Offset() != uint64(inner.Start()) {
				t.Errorf("d64=%v big=%v: header length = %d", d64, big, hl)
			}
			if s := r.CString(); string(s) != "abc" {
				t.Errorf("CString = %q", s)
			}
			if v := r.ULEB(); v != 300 {
				t.Errorf("ULEB = %d", v)
			}
			if r.U8() != 1 || r.Err() != nil || r.Len() != 0 {
				t.Errorf("tail: err %v, %d left", r.Err(), r.Len())
			}

			b.Patch(outer, 0x1234)
			r = buf.New("dwasm", ".test", b.Bytes(), big)
			r.U8()
			if l, _ := r.InitialLength(); l != 0x1234 {
				t.Errorf("patched length = %#x", l)
			}
		}
	}
}

func TestAppendKeepsPrefix(t *testing.T) {
	b := NewAppend([]byte{9, 9}, false)
	l := b.BeginLength(false)
	b.U8(7)
	b.End(l)
	if want := []byte{9, 9, 1, 0, 0, 0, 7}; !bytes.Equal(b.Bytes(), want) {
		t.Errorf("got % x, want % x", b.Bytes(), want)
	}
	if l.Offset() != 2 || l.Start() != 6 {
		t.Errorf("label at %d, start %d", l.Offset(), l.Start())
	}
}
