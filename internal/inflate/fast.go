package inflate

import (
	"encoding/binary"
	"errors"
)

// The fast loop's margins. One iteration refills the bit buffer at most
// twice, each an 8-byte load at most 7 bytes past the previous one, and
// writes at most 3 literals, or 2 and a 258-byte match rounded up to 8-byte
// stores.
const (
	fastIn  = 16
	fastOut = 2 + 258 + 8 + 6
)

// fast decodes from out[o:] while at least fastIn input bytes and fastOut
// bytes of room remain, and returns early at the end of the block (state
// no longer stHuffman) or on an error. The bit buffer holds at least 56
// valid bits after a refill, enough for a length and a distance with
// their extra bits (15+5+15+13 = 48). Above the valid bits it may hold
// bits of the next input bytes, which a later refill ORs in again
// unchanged; they are cleared on the way out.
func (d *Decoder) fast(out []byte, o int) (int, error) {
	in := d.in
	pos, bits, nbits := d.pos, d.bits, d.nbits
	lt, dt := &d.lit, &d.dist
	inEnd, outEnd := len(in)-fastIn, len(out)-fastOut
	var err error
loop:
	for pos <= inEnd && o <= outEnd {
		bits |= binary.LittleEndian.Uint64(in[pos:]) << (nbits & 63)
		pos += int(7 - nbits>>3&7)
		nbits |= 56

		e := lt[bits&(1<<litBits-1)]
		if e&flagLit != 0 {
			n := e & 0xff
			bits >>= n
			nbits -= uint(n)
			out[o] = byte(e >> 16)
			o++
			e = lt[bits&(1<<litBits-1)]
			if e&flagLit != 0 {
				n := e & 0xff
				bits >>= n
				nbits -= uint(n)
				out[o] = byte(e >> 16)
				o++
				e = lt[bits&(1<<litBits-1)]
				if e&flagLit != 0 {
					n := e & 0xff
					bits >>= n
					nbits -= uint(n)
					out[o] = byte(e >> 16)
					o++
					continue
				}
			}
			// A length needs up to 48 bits: top up. The low bits do
			// not change, so e stays valid.
			bits |= binary.LittleEndian.Uint64(in[pos:]) << (nbits & 63)
			pos += int(7 - nbits>>3&7)
			nbits |= 56
		}
		if e&flagSub != 0 {
			bits >>= litBits
			nbits -= litBits
			e = lt[(e>>16+uint32(bits)&(1<<(e>>8&15)-1))&(litSize-1)]
			if e&flagLit != 0 {
				n := e & 0xff
				bits >>= n
				nbits -= uint(n)
				out[o] = byte(e >> 16)
				o++
				continue
			}
		}
		if e&(flagEOB|flagBad) != 0 {
			if e&flagBad != 0 {
				err = errBadLit
				break
			}
			n := e & 0xff
			bits >>= n
			nbits -= uint(n)
			d.state = stHeader
			break
		}
		n := e & 0xff
		bits >>= n
		nbits -= uint(n)
		extra := e >> 8 & 15
		length := int(e>>16) + int(bits&(1<<extra-1))
		bits >>= extra
		nbits -= uint(extra)

		e = dt[bits&(1<<distBits-1)]
		if e&flagSub != 0 {
			bits >>= distBits
			nbits -= distBits
			e = dt[(e>>16+uint32(bits)&(1<<(e>>8&15)-1))&(distSize-1)]
		}
		if e&flagBad != 0 {
			err = errBadDist
			break
		}
		n = e & 0xff
		bits >>= n
		nbits -= uint(n)
		extra = e >> 8 & 15
		dist := int(e>>16) + int(bits&(1<<extra-1))
		bits >>= extra
		nbits -= uint(extra)
		if dist > o {
			err = errFar
			break
		}

		src := o - dist
		end := o + length
		switch {
		case dist >= 8:
			// Each 8-byte load reads bytes already written, even when
			// the match overlaps itself; the last store may spill up
			// to 7 bytes past end, into room fastOut reserves.
			for {
				binary.LittleEndian.PutUint64(out[o:], binary.LittleEndian.Uint64(out[src:]))
				o += 8
				src += 8
				if o >= end {
					break
				}
			}
		case dist == 1:
			v := uint64(out[src]) * 0x0101010101010101
			for {
				binary.LittleEndian.PutUint64(out[o:], v)
				o += 8
				if o >= end {
					break
				}
			}
		default:
			for ; o < end; o++ {
				out[o] = out[o-dist]
			}
		}
		o = end
		continue loop
	}
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
