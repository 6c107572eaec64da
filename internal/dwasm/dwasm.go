// Package dwasm builds DWARF-shaped byte strings for tests and for the
// line-program assembler: fixed-width integers in either byte order,
// LEB128, NUL-terminated strings, section offsets, and initial lengths whose
// value is back-patched once the block they measure is complete.
//
// It exists so that edge cases are written as structure ("a DWARF64 unit
// whose header_length is one byte too long") rather than as hand-counted
// hex. It is the writing twin of internal/buf and shares no code with it, so
// a test that decodes what dwasm wrote checks both.
//
// A Builder never fails: every method appends exactly what it is asked to,
// including values a decoder must reject, which is the point.
package dwasm

import "fmt"

// Builder appends encoded values to a byte slice. The zero value is a
// little-endian builder with nothing written. A Builder is not safe for
// concurrent use.
type Builder struct {
	buf []byte
	big bool
}

// New returns an empty builder of the given byte order.
func New(bigEndian bool) *Builder { return &Builder{big: bigEndian} }

// NewAppend returns a builder that appends to dst (its first len(dst) bytes
// are kept, and offsets count from dst's start).
func NewAppend(dst []byte, bigEndian bool) *Builder { return &Builder{buf: dst, big: bigEndian} }

// Bytes returns everything written so far. It aliases the builder's buffer
// until the next write.
func (b *Builder) Bytes() []byte { return b.buf }

// Len returns the number of bytes written, which is also the offset the
// next byte will have.
func (b *Builder) Len() int { return len(b.buf) }

// U8 appends one byte.
func (b *Builder) U8(v uint8) *Builder {
	b.buf = append(b.buf, v)
	return b
}

// U16 appends a 2-byte integer.
func (b *Builder) U16(v uint16) *Builder { return b.Uint(2, uint64(v)) }

// U32 appends a 4-byte integer.
func (b *Builder) U32(v uint32) *Builder { return b.Uint(4, uint64(v)) }

// U64 appends an 8-byte integer.
func (b *Builder) U64(v uint64) *Builder { return b.Uint(8, v) }

// Uint appends the low n bytes of v, n in 1..8 (an address of size n, or a
// DW_FORM_strx3 index). Other sizes are a programming error and panic.
func (b *Builder) Uint(n int, v uint64) *Builder {
	if n < 1 || n > 8 {
		panic(fmt.Sprintf("dwasm: integer size %d", n))
	}
	for i := range n {
		shift := 8 * i
		if b.big {
			shift = 8 * (n - 1 - i)
		}
		b.buf = append(b.buf, byte(v>>shift))
	}
	return b
}

// Off appends a section offset: 8 bytes for DWARF64, else 4 (truncating v).
func (b *Builder) Off(dwarf64 bool, v uint64) *Builder {
	if dwarf64 {
		return b.U64(v)
	}
	return b.U32(uint32(v))
}

// ULEB appends v as an unsigned LEB128 in the fewest bytes.
func (b *Builder) ULEB(v uint64) *Builder {
	b.buf = AppendULEB(b.buf, v)
	return b
}

// ULEBPadded appends v as an unsigned LEB128 of at least n bytes, padding
// with 0x80 continuation bytes the way some linkers leave room for
// relaxation. Decoders must accept the padding while the value fits in 64
// bits.
func (b *Builder) ULEBPadded(v uint64, n int) *Builder {
	start := len(b.buf)
	b.buf = AppendULEB(b.buf, v)
	for len(b.buf)-start < n {
		b.buf[len(b.buf)-1] |= 0x80
		b.buf = append(b.buf, 0)
	}
	return b
}

// SLEB appends v as a signed LEB128 in the fewest bytes.
func (b *Builder) SLEB(v int64) *Builder {
	b.buf = AppendSLEB(b.buf, v)
	return b
}

// CString appends s and a terminating NUL. s should not contain NUL; if it
// does, the bytes are written anyway (a reader will stop early).
func (b *Builder) CString(s string) *Builder {
	b.buf = append(b.buf, s...)
	b.buf = append(b.buf, 0)
	return b
}

// Raw appends p unchanged.
func (b *Builder) Raw(p []byte) *Builder {
	b.buf = append(b.buf, p...)
	return b
}

// Zeros appends n zero bytes.
func (b *Builder) Zeros(n int) *Builder {
	for range n {
		b.buf = append(b.buf, 0)
	}
	return b
}

// Label marks a length field written by BeginLength or BeginOffLength, to
// be patched by End or Patch. The zero Label is invalid.
type Label struct {
	at      int // offset of the value (after any 0xffffffff escape)
	size    int // 4 or 8
	valid   bool
	initial bool // an initial length (may carry the DWARF64 escape)
}

// Offset returns the offset of the length field's first byte (the escape,
// for a DWARF64 initial length).
func (l Label) Offset() int {
	if l.initial && l.size == 8 {
		return l.at - 4
	}
	return l.at
}

// Start returns the offset just past the length field: the first byte the
// length counts.
func (l Label) Start() int { return l.at + l.size }

// BeginLength appends a DWARF initial length [DWARF5 7.4] to be patched by
// End: a 4-byte placeholder, or for DWARF64 the 0xffffffff escape and an
// 8-byte placeholder.
func (b *Builder) BeginLength(dwarf64 bool) Label {
	if dwarf64 {
		b.U32(0xffffffff)
		l := Label{at: len(b.buf), size: 8, valid: true, initial: true}
		b.U64(0)
		return l
	}
	l := Label{at: len(b.buf), size: 4, valid: true, initial: true}
	b.U32(0)
	return l
}

// BeginOffLength appends a plain 4- or 8-byte length (no escape), such as a
// line program's header_length, to be patched by End.
func (b *Builder) BeginOffLength(dwarf64 bool) Label {
	size := 4
	if dwarf64 {
		size = 8
	}
	l := Label{at: len(b.buf), size: size, valid: true}
	b.Zeros(size)
	return l
}

// End patches l with the number of bytes written since the length field,
// and returns that number.
func (b *Builder) End(l Label) uint64 {
	n := uint64(len(b.buf) - l.Start())
	b.Patch(l, n)
	return n
}

// Patch overwrites l's value with v (truncated to the field's size), to
// build lengths that lie.
func (b *Builder) Patch(l Label, v uint64) {
	if !l.valid {
		panic("dwasm: patch of the zero Label")
	}
	b.PutUint(l.at, l.size, v)
}

// PutUint overwrites the n bytes at offset at with v in the builder's byte
// order. It panics if they were not written yet.
func (b *Builder) PutUint(at, n int, v uint64) {
	if at < 0 || n < 1 || n > 8 || at+n > len(b.buf) {
		panic(fmt.Sprintf("dwasm: PutUint(%d, %d) outside %d written bytes", at, n, len(b.buf)))
	}
	for i := range n {
		shift := 8 * i
		if b.big {
			shift = 8 * (n - 1 - i)
		}
		b.buf[at+i] = byte(v >> shift)
	}
}

// AppendULEB appends v to dst as an unsigned LEB128 in the fewest bytes.
func AppendULEB(dst []byte, v uint64) []byte {
	for v >= 0x80 {
		dst = append(dst, byte(v)|0x80)
		v >>= 7
	}
	return append(dst, byte(v))
}

// AppendSLEB appends v to dst as a signed LEB128 in the fewest bytes.
func AppendSLEB(dst []byte, v int64) []byte {
	for {
		c := byte(v & 0x7f)
		v >>= 7
		// Done when the rest is pure sign and bit 6 of c already carries it.
		if (v == 0 && c&0x40 == 0) || (v == -1 && c&0x40 != 0) {
			return append(dst, c)
		}
		dst = append(dst, c|0x80)
	}
}

// Truncate discards everything written after the first n bytes, so a
// caller can back out of a partly written record. Labels past n become
// meaningless.
func (b *Builder) Truncate(n int) {
	if n < 0 || n > len(b.buf) {
		panic(fmt.Sprintf("dwasm: Truncate(%d) outside %d written bytes", n, len(b.buf)))
	}
	b.buf = b.buf[:n]
}
