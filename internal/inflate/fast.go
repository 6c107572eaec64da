package inflate

import (
	"encoding/binary"
	"errors"
	"unsafe"
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
// no longer stHuffman) or on an error. It runs the assembly loop where
// there is one (fastasm.go), else fastGo: the same steps, the same
// results.
func (d *Decoder) fast(out []byte, o int) (int, error) {
	if useAsm && !d.goLoop {
		return d.fastAsm(out, o)
	}
	return d.fastGo(out, o)
}

// fastGo is fast in Go.
//
// Each iteration starts with a refill to at least 56 valid bits, enough
// for a length and a distance with their extra bits (16+28 when the
// length's codeword fits the primary table) and the primary-table lookup
// of the next symbol (11), which is made before the match is copied so
// that the two overlap. Above the valid bits the buffer may hold bits of
// the next input bytes, which a later refill ORs in again unchanged; they
// are cleared on the way out. nbits is exact only in its low 8 bits: the
// loop subtracts whole table entries from it (see huffman.go).
//
// The loop reads in and writes out through unsafe pointers (load, store,
// put): the loop condition bounds every access (pos <= len(in)-fastIn
// before an iteration's at most two refills of 7 bytes each and one of 8;
// o <= len(out)-fastOut before it writes at most fastOut bytes; a match
// reads only bytes below what it writes, from dist <= o back), and Go's
// bounds checks there kept enough registers busy that the loop's state
// went through the stack. checkptr (go test -race, and the fuzz targets
// with -race) checks each pointer stays inside its slice.
func (d *Decoder) fastGo(out []byte, o int) (int, error) {
	in := d.in
	ib := unsafe.Pointer(unsafe.SliceData(in))
	ob := unsafe.Pointer(unsafe.SliceData(out))
	pos, bits, nbits := d.pos, d.bits, d.nbits
	lt, dt := &d.lit, &d.dist
	inEnd, outEnd := len(in)-fastIn, len(out)-fastOut
	var err error
	e := lt[bits&(1<<litBits-1)] // needs litBits valid bits: refilled below if not
	if nbits < litBits && pos <= inEnd {
		bits |= load(ib, pos) << (nbits & 63)
		pos += int(7 - nbits>>3&7)
		nbits |= 56
		e = lt[bits&(1<<litBits-1)]
	}
	for pos <= inEnd && o <= outEnd {
		bits |= load(ib, pos) << (nbits & 63)
		pos += int(7 - nbits>>3&7)
		nbits |= 56

		if e&flagLit != 0 {
			// Up to three literals on one refill: 3*11 bits, and the
			// lookup after them needs 11 more.
			bits >>= e & 63
			nbits -= uint(e)
			put(ob, o, byte(e>>16))
			o++
			e = lt[bits&(1<<litBits-1)]
			if e&flagLit == 0 {
				continue
			}
			bits >>= e & 63
			nbits -= uint(e)
			put(ob, o, byte(e>>16))
			o++
			e = lt[bits&(1<<litBits-1)]
			if e&flagLit == 0 {
				continue
			}
			bits >>= e & 63
			nbits -= uint(e)
			put(ob, o, byte(e>>16))
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
				put(ob, o, byte(e>>16))
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
			bits |= load(ib, pos) << (nbits & 63)
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
			store(ob, o, load(ob, src))
			store(ob, o+8, load(ob, src+8))
			for o, src = o+16, src+16; o < end; o, src = o+8, src+8 {
				store(ob, o, load(ob, src))
			}
		default:
			// A period shorter than 8 bytes: repeat its first dist
			// bytes across a word, then store the word every
			// whole number of periods (at most 8 bytes on).
			v := load(ob, src) & (1<<(8*dist) - 1)
			v |= v << (8 * dist)
			v |= v << (16 * dist)
			v |= v << (32 * dist)
			step := 8 - 8%dist
			for ; o < end; o += step {
				store(ob, o, v)
			}
		}
		o = end
	}
	return d.fastExit(o, pos, bits, nbits, err)
}

// fastExit leaves a fast loop: it stores the loop's input position and
// bits, clearing those above the valid ones, and reports err (nil or one
// of the fast loop's faults) as the careful loop would.
func (d *Decoder) fastExit(o, pos int, bits uint64, nbits uint, err error) (int, error) {
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

// load returns the 8 bytes at p+i, little-endian; store and put write 8
// and 1 at p+i. Only fast calls them, within the bounds its loop
// condition ensures.
func load(p unsafe.Pointer, i int) uint64 {
	return binary.LittleEndian.Uint64((*[8]byte)(unsafe.Add(p, i))[:])
}

func store(p unsafe.Pointer, i int, v uint64) {
	binary.LittleEndian.PutUint64((*[8]byte)(unsafe.Add(p, i))[:], v)
}

func put(p unsafe.Pointer, i int, b byte) {
	*(*byte)(unsafe.Add(p, i)) = b
}

// Faults the fast loop hands to fail; plain values, so leaving the loop
// allocates nothing until the error is built.
var (
	errBadLit  = errors.New("bad literal/length")
	errBadDist = errors.New("bad distance")
	errFar     = errors.New("distance too far")
)
