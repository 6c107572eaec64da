package dwinfo

import (
	"io"

	"github.com/symbolize-go/symbolize/internal/buf"
)

// Section names of location lists, used in errors.
const (
	secLoc      = ".debug_loc"
	secLoclists = ".debug_loclists"
)

// LocKind is a location list entry kind, DW_LLE_* [DWARF5 7.7.3]. Entries
// of a DWARF 2-4 .debug_loc list are reported with the kinds that mean the
// same: LLEOffsetPair, LLEBaseAddress and LLEEndOfList.
type LocKind uint8

// Location list entry kinds.
const (
	LLEEndOfList       LocKind = 0x00 // DW_LLE_end_of_list
	LLEBaseAddressx    LocKind = 0x01 // DW_LLE_base_addressx: V0 is a .debug_addr index
	LLEStartxEndx      LocKind = 0x02 // DW_LLE_startx_endx: V0, V1 are .debug_addr indexes
	LLEStartxLength    LocKind = 0x03 // DW_LLE_startx_length: V0 an index, V1 a length
	LLEOffsetPair      LocKind = 0x04 // DW_LLE_offset_pair: V0, V1 offsets from the base address
	LLEDefaultLocation LocKind = 0x05 // DW_LLE_default_location
	LLEBaseAddress     LocKind = 0x06 // DW_LLE_base_address: V0 is the new base
	LLEStartEnd        LocKind = 0x07 // DW_LLE_start_end: V0, V1 addresses
	LLEStartLength     LocKind = 0x08 // DW_LLE_start_length: V0 an address, V1 a length
)

// LocEntry is one location list entry as encoded: its kind, its two
// operands (see LocKind) and, for the kinds that describe a location, the
// DWARF expression, which aliases the section.
type LocEntry struct {
	Kind   LocKind
	V0, V1 uint64
	Expr   []byte
}

// LocReader reads one location list, from .debug_loc (DWARF 2-4) or
// .debug_loclists (DWARF 5), entry by entry as encoded: it decodes and does
// not interpret (resolving base addresses and .debug_addr indexes is the
// caller's business, as what to do about a list that cannot be resolved
// differs between consumers). It reads strictly forward, so a list without
// its end entry stops at the section's end with ErrTruncated.
type LocReader struct {
	r        buf.Reader
	v5       bool
	addrSize uint8
	err      error // sticky; io.EOF once the list ended
}

// LocList returns a reader of the location list at absolute offset off of
// sec, which is .debug_loclists for a DWARF 5 unit and .debug_loc before,
// with the unit's address size and byte order. sec is given by the caller
// because Sections does not hold the location sections.
func (u *Unit) LocList(sec []byte, off uint64) LocReader {
	lr := LocReader{v5: u.Version >= 5, addrSize: u.AddrSize}
	name := secLoc
	if lr.v5 {
		name = secLoclists
	}
	lr.r = u.d.reader(name, sec)
	lr.r.Seek(off)
	lr.err = lr.r.Err()
	return lr
}

// LoclistxOffset returns the absolute .debug_loclists offset of the list
// that DW_FORM_loclistx index i names in this unit: entry i of the offsets
// table that follows the list table header at DW_AT_loclists_base, plus
// that base [DWARF5 7.29]. An index at or past the header's
// offset_entry_count, or a header that does not fit, is an error.
func (u *Unit) LoclistxOffset(sec []byte, i uint64) (uint64, error) {
	base := u.Root.LoclistsBase
	os := u.offSize()
	hs := 8 + os // unit_length, version, address_size, segment_selector_size, offset_entry_count
	if os == 8 {
		hs += 4 // the 0xffffffff escape
	}
	if base < hs || base > uint64(len(sec)) {
		return 0, buf.Errorf(pkg, secLoclists, base, ErrFormat, "loclists_base %#x leaves no room for a header", base)
	}
	r := u.d.reader(secLoclists, sec)
	r.Seek(base - 4)
	count := uint64(r.U32())
	if err := r.Err(); err != nil {
		return 0, err
	}
	if i >= count {
		return 0, buf.Errorf(pkg, secLoclists, base, ErrFormat, "location list index %d not below offset_entry_count %d", i, count)
	}
	off, ok := mulAdd(base, i, os)
	if !ok || off > uint64(len(sec)) || uint64(len(sec))-off < os {
		return 0, buf.Errorf(pkg, secLoclists, base, ErrTruncated, "location list index %d past the section", i)
	}
	r.Seek(off)
	rel := r.Off(u.Dwarf64)
	if base+rel < base {
		return 0, buf.Errorf(pkg, secLoclists, off, ErrOverflow, "location list offset %#x", rel)
	}
	return base + rel, r.Err()
}

// Next fills e with the next entry. The end entry is returned too (Kind
// LLEEndOfList); the call after it returns io.EOF. A list that runs off
// its section, holds an unknown kind or a LEB128 past 64 bits gives a sticky
// *DecodeError.
func (lr *LocReader) Next(e *LocEntry) error {
	if lr.err != nil {
		return lr.err
	}
	if lr.v5 {
		lr.err = lr.nextV5(e)
	} else {
		lr.err = lr.nextV4(e)
	}
	if lr.err != nil {
		return lr.err
	}
	if e.Kind == LLEEndOfList {
		lr.err = io.EOF
	}
	return nil
}

// nextV4 reads a (start, end) pair and its 2-byte-length expression
// [DWARF4 2.6.2]: (0, 0) ends the list and a start of all ones (for the
// address size) selects a new base address.
func (lr *LocReader) nextV4(e *LocEntry) error {
	n := int(lr.addrSize)
	v0 := lr.r.Uint(n)
	v1 := lr.r.Uint(n)
	if err := lr.r.Err(); err != nil {
		return err
	}
	maxAddr := ^uint64(0) >> (64 - 8*uint(n))
	switch {
	case v0 == 0 && v1 == 0:
		*e = LocEntry{Kind: LLEEndOfList}
	case v0 == maxAddr:
		*e = LocEntry{Kind: LLEBaseAddress, V0: v1}
	default:
		l := lr.r.U16()
		*e = LocEntry{Kind: LLEOffsetPair, V0: v0, V1: v1, Expr: lr.r.Bytes(uint64(l))}
	}
	return lr.r.Err()
}

// nextV5 reads one DW_LLE_* entry [DWARF5 2.6.2, 7.7.3]; expressions have
// a ULEB128 length.
func (lr *LocReader) nextV5(e *LocEntry) error {
	n := int(lr.addrSize)
	kindOff := lr.r.Offset()
	*e = LocEntry{Kind: LocKind(lr.r.U8())}
	switch e.Kind {
	case LLEEndOfList, LLEDefaultLocation:
	case LLEBaseAddressx:
		e.V0 = lr.r.ULEB()
	case LLEStartxEndx, LLEStartxLength, LLEOffsetPair:
		e.V0, e.V1 = lr.r.ULEB(), lr.r.ULEB()
	case LLEBaseAddress:
		e.V0 = lr.r.Uint(n)
	case LLEStartEnd:
		e.V0 = lr.r.Uint(n)
		e.V1 = lr.r.Uint(n)
	case LLEStartLength:
		e.V0 = lr.r.Uint(n)
		e.V1 = lr.r.ULEB()
	default:
		if err := lr.r.Err(); err != nil {
			return err
		}
		return buf.Errorf(pkg, secLoclists, kindOff, ErrFormat, "unknown location list entry kind %#x", uint8(e.Kind))
	}
	switch e.Kind {
	case LLEEndOfList, LLEBaseAddressx, LLEBaseAddress:
	default:
		e.Expr = lr.r.Bytes(lr.r.ULEB())
	}
	return lr.r.Err()
}
