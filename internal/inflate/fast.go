package inflate

import (
	"encoding/binary"
	"errors"
)

// The fast loop's margins. One iteration refills the bit buffer at most
// twice, each an 8-byte load at most 7 bytes past the previous one, and
// writes at most 3 literals, or a 258-byte match rounded up to 8-byte
// stores (at least 16 bytes).
const (
	fastIn  = 16
	fastOut = 258 + 8
)

// fast decodes from out[o:] while at least fastIn input bytes and fastOut
// bytes of room remain, and returns early at the end of the block (state
// no longer stHuffman) or on an error.
//
// Each iteration starts with a refill to at least 56 valid bits, enough
// for a length and a distance with their extra bits (16+28 when the
// length's codeword fits the primary table) and the primary-table lookup
// of the next symbol (11), which is made before the match is copied so
// that the two overlap. Above the valid bits the buffer may hold bits of
// the next input bytes, which a later refill ORs in again unchanged; they
// are cleared on the way out. nbits is exact only in its low 8 bits: the
// loop subtracts whole table entries from it (see huffman.go).
func (d *Decoder) fast(out []byte, o int) (int, error) {
	in := d.in
	pos, bits, nbits := d.pos, d.bits, d.nbits
	lt, dt := &d.lit, &d.dist
	inEnd, outEnd := len(in)-fastIn, len(out)-fastOut
	var err error
	e := lt[bits&(1<<litBits-1)] // needs litBits valid bits: refilled below if not
	if nbits < litBits && pos <= inEnd {
		bits |= binary.LittleEndian.Uint64(in[pos:]) << (nbits & 63)
		pos += int(7 - nbits>>3&7)
		nbits |= 56
		e = lt[bits&(1<<litBits-1)]
	}
	for pos <= inEnd && o <= outEnd {
		bits |= binary.LittleEndian.Uint64(in[pos:]) << (nbits & 63)
		pos += int(7 - nbits>>3&7)
		nbits |= 56

		if e&flagLit != 0 {
			// Up to three literals on one refill: 3*11 bits, and the
			// lookup after them needs 11 more.
			bits >>= e & 63
			nbits -= uint(e)
			out[o] = byte(e >> 16)
			o++
			e = lt[bits&(1<<litBits-1)]
			if e&flagLit == 0 {
				continue
			}
			bits >>= e & 63
			nbits -= uint(e)
			out[o] = byte(e >> 16)
			o++
			e = lt[bits&(1<<litBits-1)]
			if e&flagLit == 0 {
				continue
			}
			bits >>= e & 63
			nbits -= uint(e)
			out[o] = byte(e >> 16)
			o++
			e = lt[bits&(1<<litBits-1)]
			continue
		}
		var length int
		if e&(flagSub|flagEOB|flagBad) == 0 {
			// A length: the extra bits are the consumed bits above
			// the codeword, taken from the buffer as it was.
			saved := bits
			bits >>= e & 63
			nbits -= uint(e)
			length = int(e>>16) + int(saved&(1<<(e&63)-1)>>(e>>8&15))
		} else {
			if e&flagSub == 0 {
				if e&flagBad != 0 {
					err = errBadLit
					break
				}
				bits >>= e & 63
				nbits -= uint(e)
				d.state = stHeader
				break
			}
			// A codeword longer than the primary bits.
			bits >>= litBits
			nbits -= litBits
			e = lt[(e>>16+uint32(bits)&(1<<(e>>8&15)-1))&(litSize-1)]
			if e&flagLit != 0 {
				bits >>= e & 63
				nbits -= uint(e)
				out[o] = byte(e >> 16)
				o++
				e = lt[bits&(1<<litBits-1)]
				continue
			}
			if e&(flagEOB|flagBad) != 0 {
				if e&flagBad != 0 {
					err = errBadLit
					break
				}
				bits >>= e & 63
				nbits -= uint(e)
				d.state = stHeader
				break
			}
			saved := bits
			bits >>= e & 63
			nbits -= uint(e)
			length = int(e>>16) + int(saved&(1<<(e&63)-1)>>(e>>8&15))
			// Up to 11+4+5 bits are gone: refill for the distance
			// and the next lookup (the low bits stay as they are).
			bits |= binary.LittleEndian.Uint64(in[pos:]) << (nbits & 63)
			pos += int(7 - nbits>>3&7)
			nbits |= 56
		}

		de := dt[bits&(1<<distBits-1)]
		if de&flagSub != 0 {
			bits >>= distBits
			nbits -= distBits
			de = dt[(de>>16+uint32(bits)&(1<<(de>>8&15)-1))&(distSize-1)]
		}
		if de&flagBad != 0 {
			err = errBadDist
			break
		}
		saved := bits
		bits >>= de & 63
		nbits -= uint(de)
		dist := int(de>>16) + int(saved&(1<<(de&63)-1)>>(de>>8&15))
		if dist > o {
			err = errFar
			break
		}
		// The next symbol's entry, before the copy.
		e = lt[bits&(1<<litBits-1)]

		// Copy the match. Matches are short (in DWARF, most under 16
		// bytes), so the first 16 bytes go without a test; the stores
		// may run up to 7 bytes past the match's end, into room
		// fastOut reserves.
		end := o + length
		src := o - dist
		switch {
		case dist >= 8:
			// Each 8-byte load reads bytes already written, even
			// when the match overlaps itself.
			s := out[src : src+16]
			t := out[o : o+16]
			binary.LittleEndian.PutUint64(t, binary.LittleEndian.Uint64(s))
			binary.LittleEndian.PutUint64(t[8:], binary.LittleEndian.Uint64(s[8:]))
			for o, src = o+16, src+16; o < end; o, src = o+8, src+8 {
				binary.LittleEndian.PutUint64(out[o:], binary.LittleEndian.Uint64(out[src:]))
			}
		case dist == 1:
			v := uint64(out[src]) * 0x0101010101010101
			for ; o < end; o += 8 {
				binary.LittleEndian.PutUint64(out[o:], v)
			}
		default:
			for ; o < end; o++ {
				out[o] = out[o-dist]
			}
		}
		o = end
	}
	nbits &= 0xff
	d.pos, d.bits, d.nbits = pos, bits&(1<<(nbits&63)-1), nbits
	if err != nil {
		// Report the error from the careful loop's point of view.
		switch err {
		case errBadLit:
			return o, d.fail(ErrCorrupt, "invalid literal/length codeword")
		case errBadDist:
			return o, d.fail(ErrCorrupt, "invalid distance codeword")
		default:
			return o, d.fail(ErrCorrupt, "distance reaches before the start of the output")
		}
	}
	return o, nil
}

// Faults the fast loop hands to fail; plain values, so leaving the loop
// allocates nothing until the error is built.
var (
	errBadLit  = errors.New("bad literal/length")
	errBadDist = errors.New("bad distance")
	errFar     = errors.New("distance too far")
)
