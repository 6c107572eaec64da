package buf

import "bytes"

// Reader reads little- or big-endian values from a section. It is a small
// value type: copy it to fork a cursor. Positions are absolute offsets into
// the section given to New, and reads never pass the limit set by New or
// SetLimit.
type Reader struct {
	data    []byte // the whole section
	off     int    // next byte to read
	end     int    // reads stop here (<= len(data))
	big     bool   // big-endian
	err     error  // sticky; nil while all reads succeeded
	pkg     string // for errors
	section string // for errors
}

// New returns a Reader over the whole of data, positioned at offset 0.
func New(pkg, section string, data []byte, bigEndian bool) Reader {
	return Reader{data: data, end: len(data), big: bigEndian, pkg: pkg, section: section}
}

// Err returns the first error met, or nil.
func (r *Reader) Err() error { return r.err }

// Offset returns the absolute offset of the next byte.
func (r *Reader) Offset() uint64 { return uint64(r.off) }

// Limit returns the absolute offset reads stop at.
func (r *Reader) Limit() uint64 { return uint64(r.end) }

// Len returns how many bytes are left before the limit.
func (r *Reader) Len() int { return r.end - r.off }

// BigEndian reports the reader's byte order.
func (r *Reader) BigEndian() bool { return r.big }

// Data returns the whole section the reader reads from.
func (r *Reader) Data() []byte { return r.data }

// Seek moves to the absolute offset off, which must lie within
// [0, limit]; otherwise it records ErrTruncated.
func (r *Reader) Seek(off uint64) {
	if off > uint64(r.end) {
		r.fail(uint64(r.off), ErrTruncated, "seek to %#x past limit %#x", off, r.end)
		return
	}
	r.off = int(off)
}

// SetLimit restricts reads to end before the absolute offset end. An end
// beyond the section (or before the current offset) records ErrTruncated and
// leaves the limit unchanged.
func (r *Reader) SetLimit(end uint64) {
	if end > uint64(len(r.data)) || end < uint64(r.off) {
		r.fail(uint64(r.off), ErrTruncated, "length reaches %#x, section ends at %#x", end, len(r.data))
		return
	}
	r.end = int(end)
}

// Fail records err (if no error is recorded yet) as a *DecodeError at
// absolute offset off with a formatted detail; reads then return zeros.
func (r *Reader) Fail(off uint64, sentinel error, format string, args ...any) {
	r.fail(off, sentinel, format, args...)
}

func (r *Reader) fail(off uint64, sentinel error, format string, args ...any) {
	if r.err == nil {
		r.err = Errorf(r.pkg, r.section, off, sentinel, format, args...)
	}
	r.off = r.end
}

func (r *Reader) short(n int) {
	r.fail(uint64(r.off), ErrTruncated, "need %d bytes, %d left", n, r.end-r.off)
}

// U8 reads one byte.
func (r *Reader) U8() uint8 {
	if r.off >= r.end {
		r.short(1)
		return 0
	}
	b := r.data[r.off]
	r.off++
	return b
}

// U16 reads a 2-byte unsigned integer.
func (r *Reader) U16() uint16 {
	if r.end-r.off < 2 {
		r.short(2)
		return 0
	}
	b := r.data[r.off : r.off+2]
	r.off += 2
	if r.big {
		return uint16(b[1]) | uint16(b[0])<<8
	}
	return uint16(b[0]) | uint16(b[1])<<8
}

// U32 reads a 4-byte unsigned integer.
func (r *Reader) U32() uint32 {
	if r.end-r.off < 4 {
		r.short(4)
		return 0
	}
	b := r.data[r.off : r.off+4]
	r.off += 4
	if r.big {
		return uint32(b[3]) | uint32(b[2])<<8 | uint32(b[1])<<16 | uint32(b[0])<<24
	}
	return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
}

// U64 reads an 8-byte unsigned integer.
func (r *Reader) U64() uint64 {
	if r.end-r.off < 8 {
		r.short(8)
		return 0
	}
	b := r.data[r.off : r.off+8]
	r.off += 8
	if r.big {
		return uint64(b[7]) | uint64(b[6])<<8 | uint64(b[5])<<16 | uint64(b[4])<<24 |
			uint64(b[3])<<32 | uint64(b[2])<<40 | uint64(b[1])<<48 | uint64(b[0])<<56
	}
	return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
		uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
}

// Uint reads an n-byte unsigned integer, n in 1..8 (an address of
// address_size n). Other sizes record ErrFormat.
func (r *Reader) Uint(n int) uint64 {
	switch n {
	case 1:
		return uint64(r.U8())
	case 2:
		return uint64(r.U16())
	case 4:
		return uint64(r.U32())
	case 8:
		return r.U64()
	}
	if n < 1 || n > 8 {
		r.fail(uint64(r.off), ErrFormat, "integer size %d", n)
		return 0
	}
	if r.end-r.off < n {
		r.short(n)
		return 0
	}
	var v uint64
	b := r.data[r.off : r.off+n]
	r.off += n
	for i := range n {
		if r.big {
			v = v<<8 | uint64(b[i])
		} else {
			v |= uint64(b[i]) << (8 * i)
		}
	}
	return v
}

// Off reads a section offset of 4 or 8 bytes (DWARF32 or DWARF64).
func (r *Reader) Off(dwarf64 bool) uint64 {
	if dwarf64 {
		return r.U64()
	}
	return uint64(r.U32())
}

// InitialLength reads a DWARF initial length [DWARF5 7.4]: a 4-byte length,
// or 0xffffffff followed by an 8-byte length (DWARF64). Values
// 0xfffffff0-0xfffffffe are reserved and record ErrFormat.
func (r *Reader) InitialLength() (length uint64, dwarf64 bool) {
	start := r.off
	l := r.U32()
	switch {
	case l == 0xffffffff:
		return r.U64(), true
	case l >= 0xfffffff0:
		r.fail(uint64(start), ErrFormat, "reserved initial length %#x", l)
		return 0, false
	}
	return uint64(l), false
}

// ULEB reads an unsigned LEB128. A value past 64 bits records ErrOverflow;
// one cut off by the limit records ErrTruncated.
func (r *Reader) ULEB() uint64 {
	if r.off < r.end {
		if b := r.data[r.off]; b < 0x80 {
			r.off++
			return uint64(b)
		}
	}
	return r.ulebSlow()
}

func (r *Reader) ulebSlow() uint64 {
	start := r.off
	var v uint64
	var shift uint
	for {
		if r.off >= r.end {
			r.fail(uint64(start), ErrTruncated, "unterminated LEB128")
			return 0
		}
		b := r.data[r.off]
		r.off++
		if shift < 64 {
			if shift == 63 && b&0x7f > 1 {
				r.fail(uint64(start), ErrOverflow, "LEB128 exceeds 64 bits")
				return 0
			}
			v |= uint64(b&0x7f) << shift
		} else if b&0x7f != 0 {
			r.fail(uint64(start), ErrOverflow, "LEB128 exceeds 64 bits")
			return 0
		}
		shift += 7
		if b < 0x80 {
			return v
		}
	}
}

// SLEB reads a signed LEB128, with the same error rules as ULEB.
func (r *Reader) SLEB() int64 {
	if r.off < r.end {
		if b := r.data[r.off]; b < 0x80 {
			r.off++
			return int64(int8(b<<1)) >> 1 // sign-extend bit 6
		}
	}
	return r.slebSlow()
}

func (r *Reader) slebSlow() int64 {
	start := r.off
	var v int64
	var shift uint
	var b byte
	for {
		if r.off >= r.end {
			r.fail(uint64(start), ErrTruncated, "unterminated LEB128")
			return 0
		}
		b = r.data[r.off]
		r.off++
		if shift == 63 && b&0x7f != 0 && b&0x7f != 0x7f {
			r.fail(uint64(start), ErrOverflow, "LEB128 exceeds 64 bits")
			return 0
		}
		if shift < 64 {
			v |= int64(b&0x7f) << shift
		} else if sign := int64(v) >> 63; (b&0x7f != 0x7f || sign != -1) && (b&0x7f != 0 || sign != 0) {
			// Bytes past bit 63 may only repeat the sign.
			r.fail(uint64(start), ErrOverflow, "LEB128 exceeds 64 bits")
			return 0
		}
		shift += 7
		if b < 0x80 {
			break
		}
	}
	if shift < 64 && b&0x40 != 0 {
		v |= -1 << shift
	}
	return v
}

// Bytes returns the next n bytes, aliasing the section.
func (r *Reader) Bytes(n uint64) []byte {
	if n > uint64(r.end-r.off) {
		r.fail(uint64(r.off), ErrTruncated, "need %d bytes, %d left", n, r.end-r.off)
		return nil
	}
	b := r.data[r.off : r.off+int(n) : r.off+int(n)]
	r.off += int(n)
	return b
}

// Skip advances n bytes.
func (r *Reader) Skip(n uint64) {
	if n > uint64(r.end-r.off) {
		r.fail(uint64(r.off), ErrTruncated, "need %d bytes, %d left", n, r.end-r.off)
		return
	}
	r.off += int(n)
}

// CString returns the bytes before the next NUL (aliasing the section) and
// moves past the NUL. A missing NUL records ErrTruncated.
func (r *Reader) CString() []byte {
	if i := bytes.IndexByte(r.data[r.off:r.end], 0); i >= 0 {
		end := r.off + i
		s := r.data[r.off:end:end]
		r.off = end + 1
		return s
	}
	r.fail(uint64(r.off), ErrTruncated, "unterminated string")
	return nil
}

// CStringAt returns the NUL-terminated string at absolute offset off of
// data (a string section such as .debug_str), aliasing it, and whether one
// was there.
func CStringAt(data []byte, off uint64) ([]byte, bool) {
	if off >= uint64(len(data)) {
		return nil, false
	}
	if i := bytes.IndexByte(data[off:], 0); i >= 0 {
		end := int(off) + i
		return data[off:end:end], true
	}
	return nil, false
}
