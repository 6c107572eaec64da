package inflate

import (
	"encoding/binary"
	"errors"
)

// spec decodes the start of a part of a stream without the 32 KiB of
// output before it, the first phase of a speculative part (parallel.go).
// buf[:32 KiB] stands for that unknown window and holds anything. Every
// output byte is either known (a literal, a stored byte, or copied from a
// known byte) or not, kept as one bit a byte in taint. A match that reads
// a byte not known is logged, in order, and its copies of such bytes are
// not known either; last, the highest index that may hold a byte not
// known, spares most matches the look at taint. Once the part has its
// window (it is placed), replaying the log over buf with the real window
// in buf[:32 KiB] rewrites every byte that was not known: a logged match
// reads only bytes that were known or were rewritten by a match logged
// before it.
//
// The phase ends once the last 32 KiB of output are all known (track):
// no later back-reference can reach a byte that is not, so the ordinary
// decoder continues from there into the same buffer.
type spec struct {
	d          *Decoder
	buf        []byte
	o          int // next output index in buf
	last       int // the last index of buf that may hold a byte not known
	log        []logged
	taint      []uint64 // bit i: buf[i] is not known
	headers    int      // block headers read
	maxHeaders int      // return after reading this many (0: no limit)
	track      bool
}

// logged is a match that read bytes not known: it wrote buf[at:at+n]
// from dist bytes back.
type logged struct {
	at      uint32
	dist, n uint16
}

// errLimit: a speculative decode ran out of buffer.
var errLimit = errors.New("inflate: speculative output budget exceeded")

// start prepares s to decode with d from d's position into buf; with
// track, the window's bytes count as not known and the matches reading
// them are logged (a trial needs neither).
func (s *spec) start(d *Decoder, buf []byte, track bool) {
	s.d, s.buf, s.o, s.headers, s.maxHeaders, s.track = d, buf, windowSize, 0, 0, track
	s.log = s.log[:0]
	s.last = -1
	if track {
		s.last = windowSize - 1
		k := (len(buf) + 63) / 64
		if cap(s.taint) < k {
			s.taint = make([]uint64, k)
		}
		s.taint = s.taint[:k]
		clear(s.taint)
		for i := range windowSize / 64 {
			s.taint[i] = ^uint64(0)
		}
	}
}

// copied records a match of n bytes from src to o: if it read a byte not
// known, it is logged, its copies of such bytes are not known and last
// moves past it.
func (s *spec) copied(src, o, n int) {
	t := s.taint
	any := false
	for lo, hi := src, src+n; lo < hi; {
		w := t[lo>>6] >> (lo & 63)
		k := min(64-lo&63, hi-lo)
		if k < 64 {
			w &= 1<<k - 1
		}
		if w != 0 {
			any = true
			break
		}
		lo += k
	}
	if !any {
		return
	}
	s.log = append(s.log, logged{uint32(o), uint16(o - src), uint16(n)})
	for i := range n {
		if t[(src+i)>>6]>>((src+i)&63)&1 != 0 {
			t[(o+i)>>6] |= 1 << ((o + i) & 63)
		}
	}
	s.last = o + n - 1
}

// clean reports whether the last 32 KiB of output are all known.
func (s *spec) clean() bool { return s.o-s.last > windowSize }

// replay rewrites the bytes not known of buf, whose first 32 KiB must now
// hold the real window.
func replay(buf []byte, log []logged) {
	for _, m := range log {
		at, src := int(m.at), int(m.at)-int(m.dist)
		dst := buf[at : at+int(m.n)]
		s := buf[src : src+int(m.n)]
		for i := range dst {
			dst[i] = s[i]
		}
	}
}

// run decodes until the output is clean (with track), the decoder stops
// (stopAt) or reaches the end of its final block, maxHeaders headers have
// been read, the buffer is full (errLimit) or a fault. It leaves d in a
// state DecodeTo continues from.
func (s *spec) run() error {
	d := s.d
	for {
		switch d.state {
		case stHeader:
			if d.final {
				d.state = stTrailer
				return nil
			}
			if d.stopAt > 0 && d.bitPos() >= d.stopAt {
				d.stopped = true
				return nil
			}
			if s.track && s.clean() {
				return nil
			}
			if d.record {
				d.bounds = append(d.bounds, bound{int64(s.o - windowSize), d.bitPos()})
			}
			if err := d.header(); err != nil {
				return err
			}
			if s.headers++; s.headers == s.maxHeaders {
				return nil
			}
		case stStored:
			k := min(d.stored, len(d.in)-d.pos, len(s.buf)-s.o)
			if k == 0 {
				if len(s.buf) == s.o {
					return errLimit
				}
				return d.truncated()
			}
			copy(s.buf[s.o:s.o+k], d.in[d.pos:])
			s.o += k
			d.pos += k
			if d.stored -= k; d.stored == 0 {
				d.state = stHeader
			}
		case stHuffman:
			if err := s.huffman(); err != nil {
				return err
			}
			if d.state == stHuffman {
				return nil // clean in mid-block
			}
		default:
			return nil
		}
	}
}

// refill tops the bit buffer up with one 8-byte load where 8 bytes
// remain, keeping the bits above nbits zero.
func (d *Decoder) refill() {
	if d.pos+8 > len(d.in) {
		d.fill()
		return
	}
	d.bits |= binary.LittleEndian.Uint64(d.in[d.pos:]) << d.nbits
	k := (63 - d.nbits) >> 3
	d.pos += int(k)
	d.nbits += k * 8
	d.bits &= 1<<d.nbits - 1
}

// huffman decodes symbols of a Huffman block into buf until the block
// ends, the output turns clean, or a fault: the fast loop where it can,
// else one symbol at a time with every check.
func (s *spec) huffman() error {
	d := s.d
	for {
		if d.pos <= len(d.in)-fastIn && s.o <= len(s.buf)-fastOut {
			if err := s.fast(); err != nil || d.state != stHuffman || s.track && s.clean() {
				return err
			}
			if d.pos <= len(d.in)-fastIn && s.o <= len(s.buf)-fastOut {
				continue
			}
		}
		d.refill()
		e := d.lit[d.bits&(1<<litBits-1)]
		n := uint(e >> 8 & 15)
		if e&flagSub != 0 {
			e = d.lit[(e>>16+uint32(d.bits>>litBits)&(1<<(e>>8&15)-1))&(litSize-1)]
			n = litBits + uint(e>>8&15)
		}
		if n > d.nbits {
			return d.truncated()
		}
		if e&flagBad != 0 {
			return d.fail(ErrCorrupt, "invalid literal/length codeword")
		}
		if e&flagEOB != 0 {
			d.bits >>= n
			d.nbits -= n
			d.state = stHeader
			return nil
		}
		if s.o+258 > len(s.buf) {
			return errLimit
		}
		d.bits >>= n
		d.nbits -= n
		if e&flagLit != 0 {
			s.buf[s.o] = byte(e >> 16)
			s.o++
			continue
		}
		x, ok := d.getBits(extraBits(e))
		if !ok {
			return d.truncated()
		}
		length := int(e>>16) + int(x)

		e = d.dist[d.bits&(1<<distBits-1)]
		n = uint(e >> 8 & 15)
		if e&flagSub != 0 {
			e = d.dist[(e>>16+uint32(d.bits>>distBits)&(1<<(e>>8&15)-1))&(distSize-1)]
			n = distBits + uint(e>>8&15)
		}
		if n > d.nbits {
			return d.truncated()
		}
		if e&flagBad != 0 {
			return d.fail(ErrCorrupt, "invalid distance codeword")
		}
		d.bits >>= n
		d.nbits -= n
		x, ok = d.getBits(extraBits(e))
		if !ok {
			return d.truncated()
		}
		dist := int(e>>16) + int(x)
		if dist > s.o {
			return d.fail(ErrCorrupt, "distance %d reaches before the start of the output", dist)
		}
		src := s.o - dist
		dst := s.buf[s.o : s.o+length]
		for i := range dst {
			dst[i] = s.buf[src+i]
		}
		if src <= s.last {
			s.copied(src, s.o, length)
		}
		s.o += length
		if s.track && s.clean() {
			return nil
		}
	}
}

// fast is the fast loop of fast.go with the bookkeeping of bytes not
// known: it decodes into buf while at least fastIn input bytes and
// fastOut bytes of room remain, and returns at the end of the block, on a
// fault, or (with track) once the output is clean. The loops are kept
// apart so that the ordinary one pays nothing for it.
func (s *spec) fast() error {
	d := s.d
	in, out := d.in, s.buf
	pos, bits, nbits := d.pos, d.bits, d.nbits
	o, last := s.o, s.last
	lt, dt := &d.lit, &d.dist
	inEnd, outEnd := len(in)-fastIn, len(out)-fastOut
	var err error
	for pos <= inEnd && o <= outEnd {
		bits |= binary.LittleEndian.Uint64(in[pos:]) << (nbits & 63)
		pos += int(7 - nbits>>3&7)
		nbits |= 56
		e := lt[bits&(1<<litBits-1)]
		if e&flagSub != 0 {
			bits >>= litBits
			nbits -= litBits
			e = lt[(e>>16+uint32(bits)&(1<<(e>>8&15)-1))&(litSize-1)]
		}
		if e&flagLit != 0 {
			bits >>= e & 63
			nbits -= uint(e)
			out[o] = byte(e >> 16)
			o++
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
		length := int(e>>16) + int(saved&(1<<(e&63)-1)>>(e>>8&15))
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
		saved = bits
		bits >>= de & 63
		nbits -= uint(de)
		dist := int(de>>16) + int(saved&(1<<(de&63)-1)>>(de>>8&15))
		if dist > o {
			err = errFar
			break
		}
		src := o - dist
		if src <= last {
			s.copied(src, o, length)
			last = s.last
		}
		end := o + length
		switch {
		case dist >= 8:
			t := out[o : o+16]
			u := out[src : src+16]
			binary.LittleEndian.PutUint64(t, binary.LittleEndian.Uint64(u))
			binary.LittleEndian.PutUint64(t[8:], binary.LittleEndian.Uint64(u[8:]))
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
		if s.track && o-last > windowSize {
			break
		}
	}
	nbits &= 0xff
	d.pos, d.bits, d.nbits = pos, bits&(1<<(nbits&63)-1), nbits
	s.o, s.last = o, last
	switch err {
	case nil:
		return nil
	case errBadLit:
		return d.fail(ErrCorrupt, "invalid literal/length codeword")
	case errBadDist:
		return d.fail(ErrCorrupt, "invalid distance codeword")
	default:
		return d.fail(ErrCorrupt, "distance reaches before the start of the output")
	}
}
