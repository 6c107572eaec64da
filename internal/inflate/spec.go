package inflate

import (
	"encoding/binary"
	"errors"
)

// spec16 decodes a part of a stream without the output before it, the
// first phase of a speculative part (parallel.go): each output symbol is
// a uint16, a byte below 256 or, from 256 up, a marker 256+i that stands
// for byte i of the unknown 32 KiB window before the part. buf[:32 KiB]
// holds the markers themselves, so a back-reference into the window
// copies markers like any other symbol and needs no test. The phase ends
// once the last 32 KiB of output hold no marker (track): from there on the
// part is bytes, decoded by the fast loop.
//
// It runs one symbol at a time, with every check, and is only used near
// the start of a part (and for the trial of a block header), so it is
// plain rather than fast.
type spec16 struct {
	d          *Decoder
	buf        []uint16
	o          int // next output index in buf
	last       int // the last index of buf that may hold a marker
	headers    int // block headers read
	maxHeaders int // return after reading this many (0: no limit)
	limit      int // fail with errLimit rather than let o pass this
	track      bool
}

// errLimit: a speculative decode ran past its output budget.
var errLimit = errors.New("inflate: speculative output budget exceeded")

// start prepares s to decode with d from d's position, with markers in
// the window if track (a trial needs no window contents).
func (s *spec16) start(d *Decoder, track bool) {
	s.d, s.o, s.last, s.headers, s.maxHeaders, s.track = d, windowSize, windowSize-1, 0, 0, track
	if len(s.buf) < 2*windowSize {
		s.buf = make([]uint16, 4*windowSize)
	}
	if track {
		for i := range windowSize {
			s.buf[i] = uint16(256 + i)
		}
	}
}

// clean reports whether the last 32 KiB of output hold no marker.
func (s *spec16) clean() bool { return s.o-s.last > windowSize }

// room makes room for k more symbols.
func (s *spec16) room(k int) error {
	if s.o+k > s.limit {
		return errLimit
	}
	if s.o+k <= len(s.buf) {
		return nil
	}
	nb := make([]uint16, min(max(2*len(s.buf), s.o+k), s.limit))
	copy(nb, s.buf[:s.o])
	s.buf = nb
	return nil
}

// run decodes until the window is clean (with track), the decoder stops
// (stopAt) or reaches the end of its final block, maxHeaders headers have
// been read, or a fault. It leaves d in a state DecodeTo continues from.
func (s *spec16) run() error {
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
			k := min(d.stored, len(d.in)-d.pos, 1<<16)
			if k == 0 && d.stored > 0 {
				return d.truncated()
			}
			if err := s.room(k); err != nil {
				return err
			}
			for i, c := range d.in[d.pos : d.pos+k] {
				s.buf[s.o+i] = uint16(c)
			}
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
// ends, the window turns clean or a fault.
func (s *spec16) huffman() error {
	d := s.d
	for {
		if d.pos <= len(d.in)-fastIn && s.room(fastOut+1<<16) == nil {
			if err := s.fast(); err != nil || d.state != stHuffman || s.track && s.clean() {
				return err
			}
			if d.pos <= len(d.in)-fastIn {
				continue
			}
		}
		if err := s.room(258); err != nil {
			return err
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
		d.bits >>= n
		d.nbits -= n
		if e&flagLit != 0 {
			s.buf[s.o] = uint16(e >> 16 & 0xff)
			s.o++
			continue
		}
		if e&flagEOB != 0 {
			d.state = stHeader
			return nil
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
		src, dst := s.buf[s.o-dist:s.o-dist+length], s.buf[s.o:s.o+length]
		var or uint16
		for i := range dst {
			v := src[i]
			dst[i] = v
			or |= v
		}
		if s.o += length; or >= 256 {
			s.last = s.o - 1
		} else if s.track && s.clean() {
			return nil
		}
	}
}

// fast is the fast loop of fast.go for symbols: it decodes into buf while
// at least fastIn input bytes and fastOut symbols of room remain, and
// returns at the end of the block, on a fault, or (with track) once the
// last 32 KiB hold no marker. A match is searched for markers only when
// its source starts at or before last, the only place markers can be.
func (s *spec16) fast() error {
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
			out[o] = uint16(e >> 16)
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
		src, dst := out[o-dist:o-dist+length], out[o:o+length]
		if src0 := o - dist; src0 > last {
			if dist >= length {
				copy(dst, src)
			} else {
				for i := range dst {
					dst[i] = src[i]
				}
			}
			o += length
			if s.track && o-last > windowSize {
				break
			}
			continue
		}
		var or uint16
		for i := range dst {
			v := src[i]
			dst[i] = v
			or |= v
		}
		o += length
		if or >= 256 {
			last = o - 1
		} else if s.track && o-last > windowSize {
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
