// Package dw holds the DWARF encodings that several decoders share: form
// codes and a reader for attribute values of any form [DWARF5 7.5.6], used by
// line-table entry formats and by .debug_info alike.
package dw

import (
	"github.com/symbolize-go/symbolize/internal/buf"
)

// Form is a DW_FORM_* code.
type Form uint64

// Form codes [DWARF5 7.5.6, table 7.6], plus the GNU extensions that real
// producers emit.
const (
	FormAddr          Form = 0x01
	FormBlock2        Form = 0x03
	FormBlock4        Form = 0x04
	FormData2         Form = 0x05
	FormData4         Form = 0x06
	FormData8         Form = 0x07
	FormString        Form = 0x08
	FormBlock         Form = 0x09
	FormBlock1        Form = 0x0a
	FormData1         Form = 0x0b
	FormFlag          Form = 0x0c
	FormSdata         Form = 0x0d
	FormStrp          Form = 0x0e
	FormUdata         Form = 0x0f
	FormRefAddr       Form = 0x10
	FormRef1          Form = 0x11
	FormRef2          Form = 0x12
	FormRef4          Form = 0x13
	FormRef8          Form = 0x14
	FormRefUdata      Form = 0x15
	FormIndirect      Form = 0x16
	FormSecOffset     Form = 0x17
	FormExprloc       Form = 0x18
	FormFlagPresent   Form = 0x19
	FormStrx          Form = 0x1a
	FormAddrx         Form = 0x1b
	FormRefSup4       Form = 0x1c
	FormStrpSup       Form = 0x1d
	FormData16        Form = 0x1e
	FormLineStrp      Form = 0x1f
	FormRefSig8       Form = 0x20
	FormImplicitConst Form = 0x21
	FormLoclistx      Form = 0x22
	FormRnglistx      Form = 0x23
	FormRefSup8       Form = 0x24
	FormStrx1         Form = 0x25
	FormStrx2         Form = 0x26
	FormStrx3         Form = 0x27
	FormStrx4         Form = 0x28
	FormAddrx1        Form = 0x29
	FormAddrx2        Form = 0x2a
	FormAddrx3        Form = 0x2b
	FormAddrx4        Form = 0x2c
	FormGNUAddrIndex  Form = 0x1f01 // DW_FORM_GNU_addr_index (pre-v5 split DWARF)
	FormGNUStrIndex   Form = 0x1f02 // DW_FORM_GNU_str_index
	FormGNURefAlt     Form = 0x1f20 // DW_FORM_GNU_ref_alt (dwz)
	FormGNUStrpAlt    Form = 0x1f21 // DW_FORM_GNU_strp_alt (dwz)
)

// Class says how to interpret a Value.
type Class uint8

const (
	ClassNone      Class = iota
	ClassAddress         // U is an address
	ClassAddrx           // U is an index into .debug_addr (from addr_base)
	ClassBlock           // B is the block or expression
	ClassConstant        // U (and S for sdata/implicit_const) is the value
	ClassData16          // B is 16 bytes (e.g. an MD5)
	ClassFlag            // U is 0 or 1
	ClassRef             // U is a unit-relative DIE offset
	ClassRefAddr         // U is a .debug_info offset
	ClassRefSig8         // U is a type signature
	ClassRefAlt          // U is an offset in a supplementary file
	ClassSecOffset       // U is an offset into another section
	ClassString          // B is the string itself (DW_FORM_string)
	ClassStrp            // U is a .debug_str offset
	ClassLineStrp        // U is a .debug_line_str offset
	ClassStrx            // U is an index into .debug_str_offsets
	ClassStrpAlt         // U is an offset in a supplementary file's strings
	ClassRnglistx        // U is an index into the rnglists offsets table
	ClassLoclistx        // U is an index into the loclists offsets table
)

// Value is one decoded attribute value. Block and string values alias the
// section. S holds the signed reading for DW_FORM_sdata and
// DW_FORM_implicit_const (U holds the same bits).
type Value struct {
	Class Class
	U     uint64
	S     int64
	B     []byte
}

// Unit is what reading a form needs to know about its unit.
type Unit struct {
	Version  uint16
	Dwarf64  bool
	AddrSize uint8
}

// maxIndirect bounds chains of DW_FORM_indirect.
const maxIndirect = 8

// Read decodes one value of form f. implicit is the value stored in the
// abbreviation for DW_FORM_implicit_const. Unknown forms record ErrFormat in
// r, since their size cannot be known.
func Read(r *buf.Reader, f Form, u Unit, implicit int64) Value {
	for range maxIndirect {
		switch f {
		case FormAddr:
			return Value{Class: ClassAddress, U: r.Uint(int(u.AddrSize))}
		case FormBlock1:
			return Value{Class: ClassBlock, B: r.Bytes(uint64(r.U8()))}
		case FormBlock2:
			return Value{Class: ClassBlock, B: r.Bytes(uint64(r.U16()))}
		case FormBlock4:
			return Value{Class: ClassBlock, B: r.Bytes(uint64(r.U32()))}
		case FormBlock, FormExprloc:
			return Value{Class: ClassBlock, B: r.Bytes(r.ULEB())}
		case FormData1:
			return Value{Class: ClassConstant, U: uint64(r.U8())}
		case FormData2:
			return Value{Class: ClassConstant, U: uint64(r.U16())}
		case FormData4:
			return Value{Class: ClassConstant, U: uint64(r.U32())}
		case FormData8:
			return Value{Class: ClassConstant, U: r.U64()}
		case FormData16:
			return Value{Class: ClassData16, B: r.Bytes(16)}
		case FormSdata:
			s := r.SLEB()
			return Value{Class: ClassConstant, U: uint64(s), S: s}
		case FormUdata:
			return Value{Class: ClassConstant, U: r.ULEB()}
		case FormImplicitConst:
			return Value{Class: ClassConstant, U: uint64(implicit), S: implicit}
		case FormString:
			return Value{Class: ClassString, B: r.CString()}
		case FormStrp:
			return Value{Class: ClassStrp, U: r.Off(u.Dwarf64)}
		case FormLineStrp:
			return Value{Class: ClassLineStrp, U: r.Off(u.Dwarf64)}
		case FormStrpSup, FormGNUStrpAlt:
			return Value{Class: ClassStrpAlt, U: r.Off(u.Dwarf64)}
		case FormStrx, FormGNUStrIndex:
			return Value{Class: ClassStrx, U: r.ULEB()}
		case FormStrx1:
			return Value{Class: ClassStrx, U: uint64(r.U8())}
		case FormStrx2:
			return Value{Class: ClassStrx, U: uint64(r.U16())}
		case FormStrx3:
			return Value{Class: ClassStrx, U: r.Uint(3)}
		case FormStrx4:
			return Value{Class: ClassStrx, U: uint64(r.U32())}
		case FormAddrx, FormGNUAddrIndex:
			return Value{Class: ClassAddrx, U: r.ULEB()}
		case FormAddrx1:
			return Value{Class: ClassAddrx, U: uint64(r.U8())}
		case FormAddrx2:
			return Value{Class: ClassAddrx, U: uint64(r.U16())}
		case FormAddrx3:
			return Value{Class: ClassAddrx, U: r.Uint(3)}
		case FormAddrx4:
			return Value{Class: ClassAddrx, U: uint64(r.U32())}
		case FormFlag:
			return Value{Class: ClassFlag, U: uint64(r.U8())}
		case FormFlagPresent:
			return Value{Class: ClassFlag, U: 1}
		case FormRef1:
			return Value{Class: ClassRef, U: uint64(r.U8())}
		case FormRef2:
			return Value{Class: ClassRef, U: uint64(r.U16())}
		case FormRef4:
			return Value{Class: ClassRef, U: uint64(r.U32())}
		case FormRef8:
			return Value{Class: ClassRef, U: r.U64()}
		case FormRefUdata:
			return Value{Class: ClassRef, U: r.ULEB()}
		case FormRefAddr:
			// DWARF 2 wrote ref_addr with the address size.
			if u.Version <= 2 {
				return Value{Class: ClassRefAddr, U: r.Uint(int(u.AddrSize))}
			}
			return Value{Class: ClassRefAddr, U: r.Off(u.Dwarf64)}
		case FormRefSig8:
			return Value{Class: ClassRefSig8, U: r.U64()}
		case FormRefSup4:
			return Value{Class: ClassRefAlt, U: uint64(r.U32())}
		case FormRefSup8:
			return Value{Class: ClassRefAlt, U: r.U64()}
		case FormGNURefAlt:
			return Value{Class: ClassRefAlt, U: r.Off(u.Dwarf64)}
		case FormSecOffset:
			return Value{Class: ClassSecOffset, U: r.Off(u.Dwarf64)}
		case FormRnglistx:
			return Value{Class: ClassRnglistx, U: r.ULEB()}
		case FormLoclistx:
			return Value{Class: ClassLoclistx, U: r.ULEB()}
		case FormIndirect:
			f = Form(r.ULEB())
			continue
		}
		r.Fail(r.Offset(), buf.ErrFormat, "unknown form %#x", uint64(f))
		return Value{}
	}
	r.Fail(r.Offset(), buf.ErrFormat, "DW_FORM_indirect nested too deep")
	return Value{}
}
