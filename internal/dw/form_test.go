package dw

import (
	"bytes"
	"errors"
	"testing"

	"github.com/symbolize-go/symbolize/internal/buf"
	"github.com/symbolize-go/symbolize/internal/dwasm"
)

// readCase is one form, the bytes a producer writes for it (built with
// dwasm, the writing twin of buf), and the value Read must return.
type readCase struct {
	form  Form
	write func(b *dwasm.Builder)
	want  Value
}

func readCases(u Unit) []readCase {
	blk := []byte{1, 2, 3}
	md5 := bytes.Repeat([]byte{0xab}, 16)
	off := func(b *dwasm.Builder) { b.Off(u.Dwarf64, 0x1234) }
	c := []readCase{
		{FormAddr, func(b *dwasm.Builder) { b.Uint(int(u.AddrSize), 0x4010) }, Value{Class: ClassAddress, U: 0x4010}},
		{FormBlock1, func(b *dwasm.Builder) { b.U8(3).Raw(blk) }, Value{Class: ClassBlock, B: blk}},
		{FormBlock2, func(b *dwasm.Builder) { b.U16(3).Raw(blk) }, Value{Class: ClassBlock, B: blk}},
		{FormBlock4, func(b *dwasm.Builder) { b.U32(3).Raw(blk) }, Value{Class: ClassBlock, B: blk}},
		{FormBlock, func(b *dwasm.Builder) { b.ULEB(3).Raw(blk) }, Value{Class: ClassBlock, B: blk}},
		{FormExprloc, func(b *dwasm.Builder) { b.ULEB(3).Raw(blk) }, Value{Class: ClassBlock, B: blk}},
		{FormData1, func(b *dwasm.Builder) { b.U8(0xfe) }, Value{Class: ClassConstant, U: 0xfe}},
		{FormData2, func(b *dwasm.Builder) { b.U16(0xfedc) }, Value{Class: ClassConstant, U: 0xfedc}},
		{FormData4, func(b *dwasm.Builder) { b.U32(0xfedcba98) }, Value{Class: ClassConstant, U: 0xfedcba98}},
		{FormData8, func(b *dwasm.Builder) { b.U64(1<<63 | 5) }, Value{Class: ClassConstant, U: 1<<63 | 5}},
		{FormData16, func(b *dwasm.Builder) { b.Raw(md5) }, Value{Class: ClassData16, B: md5}},
		{FormSdata, func(b *dwasm.Builder) { b.SLEB(-300) }, Value{Class: ClassConstant, U: 1<<64 - 300, S: -300}},
		{FormUdata, func(b *dwasm.Builder) { b.ULEB(300) }, Value{Class: ClassConstant, U: 300}},
		{FormImplicitConst, func(*dwasm.Builder) {}, Value{Class: ClassConstant, U: 1<<64 - 7, S: -7}},
		{FormString, func(b *dwasm.Builder) { b.CString("main.c") }, Value{Class: ClassString, B: []byte("main.c")}},
		{FormStrp, off, Value{Class: ClassStrp, U: 0x1234}},
		{FormLineStrp, off, Value{Class: ClassLineStrp, U: 0x1234}},
		{FormStrpSup, off, Value{Class: ClassStrpAlt, U: 0x1234}},
		{FormGNUStrpAlt, off, Value{Class: ClassStrpAlt, U: 0x1234}},
		{FormStrx, func(b *dwasm.Builder) { b.ULEB(200) }, Value{Class: ClassStrx, U: 200}},
		{FormGNUStrIndex, func(b *dwasm.Builder) { b.ULEB(200) }, Value{Class: ClassStrx, U: 200}},
		{FormStrx1, func(b *dwasm.Builder) { b.U8(7) }, Value{Class: ClassStrx, U: 7}},
		{FormStrx2, func(b *dwasm.Builder) { b.U16(0x0102) }, Value{Class: ClassStrx, U: 0x0102}},
		{FormStrx3, func(b *dwasm.Builder) { b.Uint(3, 0x010203) }, Value{Class: ClassStrx, U: 0x010203}},
		{FormStrx4, func(b *dwasm.Builder) { b.U32(0x01020304) }, Value{Class: ClassStrx, U: 0x01020304}},
		{FormAddrx, func(b *dwasm.Builder) { b.ULEB(200) }, Value{Class: ClassAddrx, U: 200}},
		{FormGNUAddrIndex, func(b *dwasm.Builder) { b.ULEB(200) }, Value{Class: ClassAddrx, U: 200}},
		{FormAddrx1, func(b *dwasm.Builder) { b.U8(7) }, Value{Class: ClassAddrx, U: 7}},
		{FormAddrx2, func(b *dwasm.Builder) { b.U16(0x0102) }, Value{Class: ClassAddrx, U: 0x0102}},
		{FormAddrx3, func(b *dwasm.Builder) { b.Uint(3, 0x010203) }, Value{Class: ClassAddrx, U: 0x010203}},
		{FormAddrx4, func(b *dwasm.Builder) { b.U32(0x01020304) }, Value{Class: ClassAddrx, U: 0x01020304}},
		{FormFlag, func(b *dwasm.Builder) { b.U8(1) }, Value{Class: ClassFlag, U: 1}},
		{FormFlagPresent, func(*dwasm.Builder) {}, Value{Class: ClassFlag, U: 1}},
		{FormRef1, func(b *dwasm.Builder) { b.U8(0x20) }, Value{Class: ClassRef, U: 0x20}},
		{FormRef2, func(b *dwasm.Builder) { b.U16(0x2000) }, Value{Class: ClassRef, U: 0x2000}},
		{FormRef4, func(b *dwasm.Builder) { b.U32(0x200000) }, Value{Class: ClassRef, U: 0x200000}},
		{FormRef8, func(b *dwasm.Builder) { b.U64(1 << 40) }, Value{Class: ClassRef, U: 1 << 40}},
		{FormRefUdata, func(b *dwasm.Builder) { b.ULEB(0x2000) }, Value{Class: ClassRef, U: 0x2000}},
		{FormRefSig8, func(b *dwasm.Builder) { b.U64(0x0123456789abcdef) }, Value{Class: ClassRefSig8, U: 0x0123456789abcdef}},
		{FormRefSup4, func(b *dwasm.Builder) { b.U32(0x300) }, Value{Class: ClassRefAlt, U: 0x300}},
		{FormRefSup8, func(b *dwasm.Builder) { b.U64(0x300) }, Value{Class: ClassRefAlt, U: 0x300}},
		{FormGNURefAlt, off, Value{Class: ClassRefAlt, U: 0x1234}},
		{FormSecOffset, off, Value{Class: ClassSecOffset, U: 0x1234}},
		{FormRnglistx, func(b *dwasm.Builder) { b.ULEB(3) }, Value{Class: ClassRnglistx, U: 3}},
		{FormLoclistx, func(b *dwasm.Builder) { b.ULEB(3) }, Value{Class: ClassLoclistx, U: 3}},
		// DW_FORM_indirect names the real form in a ULEB128 first.
		{FormIndirect, func(b *dwasm.Builder) { b.ULEB(uint64(FormData2)).U16(0x0102) }, Value{Class: ClassConstant, U: 0x0102}},
	}
	// DWARF 2 wrote DW_FORM_ref_addr with the address size, later versions
	// as an offset.
	if u.Version <= 2 {
		c = append(c, readCase{FormRefAddr, func(b *dwasm.Builder) { b.Uint(int(u.AddrSize), 0x4010) }, Value{Class: ClassRefAddr, U: 0x4010}})
	} else {
		c = append(c, readCase{FormRefAddr, off, Value{Class: ClassRefAddr, U: 0x1234}})
	}
	return c
}

var readUnits = []Unit{
	{Version: 2, AddrSize: 4},
	{Version: 4, AddrSize: 8},
	{Version: 5, AddrSize: 8, Dwarf64: true},
}

// TestRead reads every form in both byte orders, DWARF32 and DWARF64, and
// checks the value and that exactly the written bytes were consumed; then
// that every truncation of them is an ErrTruncated *DecodeError.
func TestRead(t *testing.T) {
	for _, u := range readUnits {
		for _, big := range []bool{false, true} {
			for _, c := range readCases(u) {
				b := dwasm.New(big)
				c.write(b)
				data := b.Bytes()
				r := buf.New("dw", ".test", data, big)
				got := Read(&r, c.form, u, -7)
				if r.Err() != nil || r.Len() != 0 || got.Class != c.want.Class || got.U != c.want.U ||
					got.S != c.want.S || !bytes.Equal(got.B, c.want.B) {
					t.Errorf("unit %+v big=%v form %#x: %+v, %d bytes left, err %v; want %+v",
						u, big, c.form, got, r.Len(), r.Err(), c.want)
				}
				for n := range len(data) {
					r := buf.New("dw", ".test", data[:n], big)
					Read(&r, c.form, u, -7)
					var de *buf.DecodeError
					if err := r.Err(); !errors.As(err, &de) || !errors.Is(err, buf.ErrTruncated) {
						t.Errorf("unit %+v big=%v form %#x cut to %d bytes: %v", u, big, c.form, n, err)
					}
				}
			}
		}
	}
}

// TestReadBadForms: an unknown form, or DW_FORM_indirect nested without
// end, records ErrFormat (an unknown form's size cannot be known).
func TestReadBadForms(t *testing.T) {
	u := Unit{Version: 5, AddrSize: 8}
	for _, tc := range []struct {
		name string
		form Form
		data []byte
	}{
		{"reserved 0x02", 0x02, []byte{0}},
		{"past addrx4", FormAddrx4 + 1, []byte{0}},
		{"indirect to unknown", FormIndirect, []byte{0x7f, 0}},
		{"indirect chain", FormIndirect, bytes.Repeat([]byte{byte(FormIndirect)}, 64)},
	} {
		r := buf.New("dw", ".test", tc.data, false)
		if v := Read(&r, tc.form, u, 0); v.Class != ClassNone || !errors.Is(r.Err(), buf.ErrFormat) {
			t.Errorf("%s: %+v, err %v", tc.name, v, r.Err())
		}
	}
}

// FuzzRead reads one value of any form from any bytes: no panic, no read
// past the data, and every error a *DecodeError.
func FuzzRead(f *testing.F) {
	for _, u := range readUnits {
		for _, c := range readCases(u) {
			b := dwasm.New(false)
			c.write(b)
			f.Add(b.Bytes(), uint64(c.form), u.Version, u.Dwarf64, u.AddrSize, false)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte, form uint64, version uint16, dwarf64 bool, addrSize uint8, big bool) {
		r := buf.New("dw", ".test", data, big)
		v := Read(&r, Form(form), Unit{Version: version, Dwarf64: dwarf64, AddrSize: addrSize}, 0)
		if err := r.Err(); err != nil {
			var de *buf.DecodeError
			if !errors.As(err, &de) || de.Package != "dw" || de.Section != ".test" || de.Offset > uint64(len(data)) {
				t.Fatalf("error %v (%T)", err, err)
			}
			return
		}
		if r.Offset() > uint64(len(data)) || len(v.B) > len(data) {
			t.Fatalf("read %d bytes, block of %d, from %d", r.Offset(), len(v.B), len(data))
		}
	})
}
