package dwinfotest

import "encoding/binary"

// The fuzz targets are seeded with small cuts of the fixtures: the fuzzer
// minimizes every input that finds new coverage, at a cost quadratic in
// each argument's length, and runs nothing new meanwhile, so whole
// sections of tens of KiB stall it. These helpers find where the pieces a
// unit reads end.

// AbbrevTableEnd returns the offset just past the abbreviation table at
// the start of data: declarations (code, tag, children flag, then attribute
// and form pairs up to 0, 0, with an SLEB128 value after
// DW_FORM_implicit_const) up to a 0 code [DWARF5 7.5.3], or len(data).
func AbbrevTableEnd(data []byte) int {
	i := 0
	uleb := func() uint64 {
		var v uint64
		for shift := 0; i < len(data); shift += 7 {
			b := data[i]
			i++
			if shift < 64 {
				v |= uint64(b&0x7f) << shift
			}
			if b < 0x80 {
				break
			}
		}
		return v
	}
	for i < len(data) {
		if uleb() == 0 {
			break
		}
		uleb()
		i++ // children
		for i < len(data) {
			at, form := uleb(), uleb()
			if at == 0 && form == 0 {
				break
			}
			if form == 0x21 { // DW_FORM_implicit_const
				uleb()
			}
		}
	}
	return min(i, len(data))
}

// FirstContribution returns the first unit-length-prefixed contribution of
// a DWARF 5 section (.debug_str_offsets, .debug_addr, .debug_rnglists,
// .debug_loclists), or data itself when it does not start with one (Go's
// linker writes .debug_addr and .debug_rnglists without headers).
func FirstContribution(data []byte, big bool) []byte {
	if len(data) < 4 {
		return data
	}
	order := binary.ByteOrder(binary.LittleEndian)
	if big {
		order = binary.BigEndian
	}
	n, hdr := uint64(order.Uint32(data)), uint64(4)
	if n == 0xffffffff && len(data) >= 12 {
		n, hdr = order.Uint64(data[4:]), 12
	}
	if n > uint64(len(data))-hdr {
		return data
	}
	return data[:hdr+n]
}
