package dwinfo

import (
	"io"

	"github.com/symbolize-go/symbolize/internal/buf"
	"github.com/symbolize-go/symbolize/internal/dw"
)

// Range is a half-open address range [Low, High).
type Range struct {
	Low, High uint64
}

// Range list entry kinds of .debug_rnglists [DWARF5 7.25].
const (
	rleEndOfList    = 0x00 // DW_RLE_end_of_list
	rleBaseAddressx = 0x01 // DW_RLE_base_addressx
	rleStartxEndx   = 0x02 // DW_RLE_startx_endx
	rleStartxLength = 0x03 // DW_RLE_startx_length
	rleOffsetPair   = 0x04 // DW_RLE_offset_pair
	rleBaseAddress  = 0x05 // DW_RLE_base_address
	rleStartEnd     = 0x06 // DW_RLE_start_end
	rleStartLength  = 0x07 // DW_RLE_start_length
)

// RangeReader reads one range list, from .debug_ranges (DWARF 2-4) or
// .debug_rnglists (DWARF 5), resolving base addresses and .debug_addr
// indexes. It reads strictly forward, so a list that never ends stops at
// its section's end with ErrTruncated: no list can loop.
//
// Ranges are returned as the producer wrote them, empty or reversed ones
// included (LLVM keeps them too; the address index drops them). Additions
// wrap at 64 bits as in LLVM.
type RangeReader struct {
	r        buf.Reader
	v5       bool
	addrSize uint8
	base     uint64
	d        *Data
	addrBase uint64
	err      error // sticky, io.EOF once the list ended
}

// Ranges returns a reader for the range list named by a DW_AT_ranges value
// of this unit: a section offset (or, in DWARF 2/3, a constant) into
// .debug_ranges or .debug_rnglists, or a DW_FORM_rnglistx index. The
// unit's base address (Root.LowPC) starts as the list's base.
func (u *Unit) Ranges(v dw.Value) RangeReader {
	off, err := u.RangesOffset(v)
	rr := u.d.RangeList(off, u.Version >= 5, u.AddrSize, u.Root.LowPC, u.Root.AddrBase)
	if err != nil {
		rr.err = err
	}
	return rr
}

// RangesOffset returns the absolute offset, in .debug_ranges or
// .debug_rnglists, of the list a DW_AT_ranges value names. For
// DW_FORM_rnglistx it reads the offsets table at rnglists_base [DWARF5
// 7.28]; entries there are relative to that base.
func (u *Unit) RangesOffset(v dw.Value) (uint64, error) {
	switch v.Class {
	case dw.ClassSecOffset:
		if u.split && u.Version < 5 {
			// GNU split DWARF 4: from the skeleton's
			// DW_AT_GNU_ranges_base (LLVM's RangeSectionBase).
			off := u.Root.RnglistsBase + v.U
			if off < v.U {
				return 0, buf.Errorf(pkg, secInfo, u.Offset, ErrOverflow, "range list offset %#x past ranges base %#x", v.U, u.Root.RnglistsBase)
			}
			return off, nil
		}
		return v.U, nil
	case dw.ClassConstant:
		if u.Version < 4 { // DWARF 2/3 wrote rangelistptr as data4/data8
			return v.U, nil
		}
	case dw.ClassRnglistx:
		base := u.Root.RnglistsBase
		os := u.offSize()
		off, ok := mulAdd(base, v.U, os)
		data := u.d.s.Rnglists
		if !ok || off > uint64(len(data)) || uint64(len(data))-off < os {
			return 0, buf.Errorf(pkg, secRnglists, base, ErrFormat, "range list index %d out of range", v.U)
		}
		r := u.d.reader(secRnglists, data)
		r.Seek(off)
		rel := r.Off(u.Dwarf64)
		if base+rel < base {
			return 0, buf.Errorf(pkg, secRnglists, off, ErrOverflow, "range list offset %#x", rel)
		}
		return base + rel, r.Err()
	}
	return 0, buf.Errorf(pkg, secInfo, u.Offset, ErrFormat, "DW_AT_ranges of class %d", v.Class)
}

// RangeList returns a reader for the list at absolute offset off of
// .debug_rnglists (v5) or .debug_ranges, with the given address size,
// initial base address and addr_base (for DW_RLE_*x entries).
func (d *Data) RangeList(off uint64, v5 bool, addrSize uint8, base, addrBase uint64) RangeReader {
	rr := RangeReader{v5: v5, addrSize: addrSize, base: base, d: d, addrBase: addrBase}
	if v5 {
		rr.r = d.reader(secRnglists, d.s.Rnglists)
	} else {
		rr.r = d.reader(secRanges, d.s.Ranges)
	}
	rr.r.Seek(off)
	if addrSize < 1 || addrSize > 8 {
		rr.r.Fail(off, ErrFormat, "address size %d", addrSize)
	}
	rr.err = rr.r.Err()
	return rr
}

// Next fills rg with the next range. It returns io.EOF at the list's end
// entry, and a sticky *DecodeError for a list that runs off its section,
// holds an unknown entry kind or an unresolvable address index.
func (rr *RangeReader) Next(rg *Range) error {
	if rr.err != nil {
		return rr.err
	}
	if rr.v5 {
		rr.err = rr.nextV5(rg)
	} else {
		rr.err = rr.nextV4(rg)
	}
	return rr.err
}

// nextV4 reads (start, end) pairs [DWARF4 2.17.3]: (0, 0) ends the list and
// a start of all ones (for the address size) selects a new base address.
func (rr *RangeReader) nextV4(rg *Range) error {
	n := int(rr.addrSize)
	maxAddr := ^uint64(0) >> (64 - 8*uint(n))
	for {
		lo := rr.r.Uint(n)
		hi := rr.r.Uint(n)
		if err := rr.r.Err(); err != nil {
			return err
		}
		switch {
		case lo == 0 && hi == 0:
			return io.EOF
		case lo == maxAddr:
			rr.base = hi
			continue
		}
		rg.Low, rg.High = lo+rr.base, hi+rr.base
		return nil
	}
}

// nextV5 reads DW_RLE_* entries [DWARF5 2.17.3].
func (rr *RangeReader) nextV5(rg *Range) error {
	n := int(rr.addrSize)
	for {
		kindOff := rr.r.Offset()
		kind := rr.r.U8()
		if err := rr.r.Err(); err != nil {
			return err
		}
		var lo, hi uint64
		var err error
		switch kind {
		case rleEndOfList:
			return io.EOF
		case rleBaseAddressx:
			rr.base, err = rr.addrx(rr.r.ULEB())
			if err == nil {
				err = rr.r.Err()
			}
			if err != nil {
				return err
			}
			continue
		case rleBaseAddress:
			rr.base = rr.r.Uint(n)
			if err := rr.r.Err(); err != nil {
				return err
			}
			continue
		case rleStartxEndx:
			a, b := rr.r.ULEB(), rr.r.ULEB()
			if lo, err = rr.addrx(a); err == nil {
				hi, err = rr.addrx(b)
			}
		case rleStartxLength:
			a, l := rr.r.ULEB(), rr.r.ULEB()
			lo, err = rr.addrx(a)
			hi = lo + l
		case rleOffsetPair:
			a, b := rr.r.ULEB(), rr.r.ULEB()
			lo, hi = rr.base+a, rr.base+b
		case rleStartEnd:
			lo = rr.r.Uint(n)
			hi = rr.r.Uint(n)
		case rleStartLength:
			lo = rr.r.Uint(n)
			hi = lo + rr.r.ULEB()
		default:
			return buf.Errorf(pkg, secRnglists, kindOff, ErrFormat, "unknown range list entry kind %#x", kind)
		}
		if e := rr.r.Err(); e != nil {
			return e
		}
		if err != nil {
			return err
		}
		rg.Low, rg.High = lo, hi
		return nil
	}
}

// addrx reads entry i of the unit's .debug_addr contribution; the reader's
// own error (if any) takes precedence, since i is then meaningless.
func (rr *RangeReader) addrx(i uint64) (uint64, error) {
	if rr.r.Err() != nil {
		return 0, nil
	}
	return rr.d.addrx(rr.addrBase, i, rr.addrSize)
}
