package buf

import (
	"errors"
	"math"
	"testing"
)

func TestULEB(t *testing.T) {
	tests := []struct {
		in   []byte
		want uint64
		err  error
	}{
		{[]byte{0x00}, 0, nil},
		{[]byte{0x7f}, 127, nil},
		{[]byte{0x80, 0x01}, 128, nil},
		{[]byte{0xe5, 0x8e, 0x26}, 624485, nil},
		{[]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}, math.MaxUint64, nil},
		// Padding bytes past bit 63 are fine when they add no bits.
		{[]byte{0x81, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00}, 1, nil},
		{[]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02}, 0, ErrOverflow},
		{[]byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01}, 0, ErrOverflow},
		{[]byte{0x80}, 0, ErrTruncated},
		{nil, 0, ErrTruncated},
	}
	for _, tt := range tests {
		r := New("t", ".s", tt.in, false)
		got := r.ULEB()
		if !errors.Is(r.Err(), tt.err) || (tt.err == nil && got != tt.want) {
			t.Errorf("ULEB(% x) = %d, %v; want %d, %v", tt.in, got, r.Err(), tt.want, tt.err)
		}
		if tt.err == nil && r.Len() != 0 {
			t.Errorf("ULEB(% x) left %d bytes", tt.in, r.Len())
		}
	}
}

func TestSLEB(t *testing.T) {
	tests := []struct {
		in   []byte
		want int64
		err  error
	}{
		{[]byte{0x00}, 0, nil},
		{[]byte{0x02}, 2, nil},
		{[]byte{0x7e}, -2, nil},
		{[]byte{0xff, 0x00}, 127, nil},
		{[]byte{0x81, 0x7f}, -127, nil},
		{[]byte{0x80, 0x7f}, -128, nil},
		{[]byte{0xc0, 0xbb, 0x78}, -123456, nil},
		{[]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x00}, math.MaxInt64, nil},
		{[]byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x7f}, math.MinInt64, nil},
		// Sign-extension padding past bit 63 is allowed.
		{[]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f}, -1, nil},
		{[]byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01}, 0, ErrOverflow},
		{[]byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01}, 0, ErrOverflow},
		{[]byte{0xff}, 0, ErrTruncated},
	}
	for _, tt := range tests {
		r := New("t", ".s", tt.in, false)
		got := r.SLEB()
		if !errors.Is(r.Err(), tt.err) || (tt.err == nil && got != tt.want) {
			t.Errorf("SLEB(% x) = %d, %v; want %d, %v", tt.in, got, r.Err(), tt.want, tt.err)
		}
	}
}

func TestFixedAndSticky(t *testing.T) {
	data := []byte{1, 2, 3, 4, 5, 6, 7, 8, 9}
	le := New("t", ".s", data, false)
	if got := le.U16(); got != 0x0201 {
		t.Errorf("U16 le = %#x", got)
	}
	if got := le.Uint(3); got != 0x050403 {
		t.Errorf("Uint(3) le = %#x", got)
	}
	be := New("t", ".s", data, true)
	if got := be.U32(); got != 0x01020304 {
		t.Errorf("U32 be = %#x", got)
	}
	if got := be.Uint(3); got != 0x050607 {
		t.Errorf("Uint(3) be = %#x", got)
	}
	// Past the end: the error sticks, names the offset, and later reads give zeros.
	if got := be.U64(); got != 0 {
		t.Errorf("short U64 = %#x", got)
	}
	var de *DecodeError
	if !errors.As(be.Err(), &de) || de.Offset != 7 || de.Section != ".s" || !errors.Is(de, ErrTruncated) {
		t.Fatalf("error = %v", be.Err())
	}
	if want := "t: .s+0x7: need 8 bytes, 2 left"; de.Error() != want {
		t.Errorf("message %q, want %q", de.Error(), want)
	}
	if got := be.U8(); got != 0 {
		t.Errorf("read after error = %d", got)
	}
}

func TestInitialLengthAndLimit(t *testing.T) {
	data := []byte{0xff, 0xff, 0xff, 0xff, 8, 0, 0, 0, 0, 0, 0, 0, 'a', 'b', 0, 'c'}
	r := New("t", ".s", data, false)
	n, d64 := r.InitialLength()
	if n != 8 || !d64 || r.Offset() != 12 {
		t.Fatalf("InitialLength = %d, %v at %d", n, d64, r.Offset())
	}
	if s := r.CString(); string(s) != "ab" {
		t.Errorf("CString = %q", s)
	}
	r.SetLimit(15)
	if r.Len() != 0 {
		t.Errorf("Len = %d", r.Len())
	}
	if s := r.CString(); s != nil || !errors.Is(r.Err(), ErrTruncated) {
		t.Errorf("CString past limit = %q, %v", s, r.Err())
	}
	r2 := New("t", ".s", []byte{0xf0, 0xff, 0xff, 0xff}, false)
	if r2.InitialLength(); !errors.Is(r2.Err(), ErrFormat) {
		t.Errorf("reserved length: %v", r2.Err())
	}
	r3 := New("t", ".s", data, false)
	r3.SetLimit(100)
	if !errors.Is(r3.Err(), ErrTruncated) {
		t.Errorf("SetLimit past section: %v", r3.Err())
	}
}

func FuzzReader(f *testing.F) {
	f.Add([]byte{0x80, 0x80, 0x01, 0xff, 0x7f, 'a', 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		r := New("t", ".s", data, len(data)%2 == 0)
		for r.Err() == nil && r.Len() > 0 {
			before := r.Offset()
			switch data[before] % 7 {
			case 0:
				r.ULEB()
			case 1:
				r.SLEB()
			case 2:
				r.CString()
			case 3:
				r.Uint(int(data[before]%9) + 0)
			case 4:
				r.InitialLength()
			case 5:
				r.Bytes(uint64(data[before])>>4 + 1)
			default:
				r.U8()
			}
			if r.Err() == nil && r.Offset() <= before {
				t.Fatalf("no progress at %d", before)
			}
		}
	})
}

func BenchmarkULEB(b *testing.B) {
	data := make([]byte, 0, 4096)
	for i := 0; len(data) < 4000; i++ {
		v := uint64(i * 37)
		for {
			c := byte(v & 0x7f)
			v >>= 7
			if v != 0 {
				c |= 0x80
			}
			data = append(data, c)
			if v == 0 {
				break
			}
		}
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		r := New("t", ".s", data, false)
		for r.Len() > 0 {
			r.ULEB()
		}
	}
}
