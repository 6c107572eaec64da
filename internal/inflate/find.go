package inflate

import "encoding/binary"

// peek returns the input bits from bit p on, at least 57 of them where
// the input holds them (zeros past its end).
func peek(src []byte, p int64) uint64 {
	i := int(p >> 3)
	if i+8 <= len(src) {
		return binary.LittleEndian.Uint64(src[i:]) >> (p & 7)
	}
	var b [8]byte
	copy(b[:], src[min(i, len(src)):])
	return binary.LittleEndian.Uint64(b[:]) >> (p & 7)
}

// findBlock returns the first bit offset in [lo, hi) where a non-final
// dynamic Huffman block plausibly starts, or -1. A candidate header
// [RFC1951 3.2.7] must have BFINAL 0, BTYPE 2, at most 286 literal/length
// and 30 distance codes and a complete code-length code (tested on a
// table of Kraft shares before anything is built); then its code
// definitions must build, with a codeword for end of block, and its
// first block must decode and be followed by a valid block header (see
// trial). About one bit position in nine reaches the Kraft test.
//
// A candidate can still be a false positive: the parallel decoder accepts
// a part only where the part before it ends exactly at its start.
func findBlock(d *Decoder, scratch *spec, buf []byte, src []byte, lo, hi int64) int64 {
	hi = min(hi, int64(len(src))*8-17)
	for p := max(lo, 0); p < hi; p++ {
		w := peek(src, p)
		if w&7 != 4 || w>>3&31 > 29 || w>>8&31 > 29 {
			continue
		}
		nclen := int(w>>13&15) + 4
		v := peek(src, p+17)
		kraft := 0
		for i := range nclen {
			if l := v >> (3 * i) & 7; l != 0 {
				kraft += 128 >> l
			}
		}
		if kraft != 128 {
			continue
		}
		if trial(d, scratch, buf, src, p) {
			return p
		}
	}
	return -1
}

// trialOut bounds the output a trial decodes: a first block that runs
// this far without a fault is taken as real.
const trialOut = 1 << 20

// trial decodes the block at bit p and the header of the next one into
// buf (windowSize+trialOut bytes), reporting whether that went without a
// fault.
func trial(d *Decoder, s *spec, buf []byte, src []byte, p int64) bool {
	d.reset(src)
	d.seek(p)
	s.start(d, buf, false)
	s.maxHeaders = 1
	if s.run() != nil || d.lens[256] == 0 {
		return false
	}
	s.maxHeaders = 2
	err := s.run()
	return err == nil || err == errLimit
}
