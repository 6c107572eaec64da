package inflate

import "math/bits"

// Table entries. One uint32 per entry so a single load decodes a symbol
// and everything needed to act on it [RFC1951 3.2.5]:
//
//	bits  0..7   bits to consume for this entry: the codeword length plus
//	             the extra bits that follow it (lengths and distances), so
//	             one shift consumes both; for a subtable entry the length
//	             counts past the primary bits; for a subtable pointer, the
//	             primary bits
//	bits  8..11  the codeword length alone (for a subtable entry, past the
//	             primary bits): the extra bits are the consumed bits above
//	             it; for a subtable pointer, the subtable's index bits
//	bits 12..15  flags below
//	bits 16..31  value: the literal byte, the length or distance base, the
//	             code-length symbol, or a subtable pointer's start index
//
// The fast loop shifts the bit buffer by the whole entry (a shift count
// uses only its low 6 bits) and subtracts the whole entry from its bit
// count (only the count's low 8 bits are kept exact), which saves a mask
// each time.
const (
	flagLit = 1 << 12 // a literal byte
	flagEOB = 1 << 13 // end of block (symbol 256)
	flagSub = 1 << 14 // pointer into a subtable for codes longer than the primary bits
	flagBad = 1 << 15 // no symbol: an unused code, or litlen 286/287 or distance 30/31
)

// Primary table sizes (in index bits) and table sizes. A complete code
// of 288 symbols and at most 15 bits needs at most 2342 entries with an
// 11-bit primary table, 32 symbols at most 402 with an 8-bit one (these
// bounds come from enumerating every complete code, as zlib's "enough"
// tool does); the sizes are powers of two so a masked index needs no
// bounds check. build refuses to overflow them anyway.
const (
	litBits   = 11
	litSize   = 4096
	distBits  = 8
	distSize  = 512
	clenBits  = 7 // code-length codes are at most 7 bits: no subtables
	clenSize  = 1 << clenBits
	maxCodeLn = 15

	numLitSyms  = 288 // 286 and 287 occur only in the fixed code and are invalid
	numDistSyms = 32  // 30 and 31 likewise
)

// litEntry and distEntry hold each symbol's value and flags, with its
// number of extra bits in bits 8..11 until build replaces them with the
// codeword length.
var litEntry, distEntry, clenEntry = func() (l [numLitSyms]uint32, d [numDistSyms]uint32, c [19]uint32) {
	for s := range 256 {
		l[s] = flagLit | uint32(s)<<16
	}
	l[256] = flagEOB
	// [RFC1951 3.2.5] length codes 257..285.
	base, extra := uint32(3), uint32(0)
	for s := 257; s < 285; s++ {
		if s >= 265 {
			extra = uint32(s-261) / 4
		}
		l[s] = base<<16 | extra<<8
		base += 1 << extra
	}
	l[285] = 258 << 16
	l[286], l[287] = flagBad, flagBad
	base, extra = 1, 0
	for s := range 30 {
		if s >= 4 {
			extra = uint32(s-2) / 2
		}
		d[s] = base<<16 | extra<<8
		base += 1 << extra
	}
	d[30], d[31] = flagBad, flagBad
	for s := range c {
		c[s] = uint32(s) << 16
	}
	return
}()

// build fills t with the decoding table for the canonical Huffman code
// whose symbol i has codeword length lens[i] (0: unused) [RFC1951 3.2.2],
// with a primary table of pbits index bits followed by subtables. ent
// gives each symbol's entry without its length.
//
// Like compress/flate (and zlib), it rejects over-subscribed and
// incomplete codes except two that zlib's encoder emits: the empty code
// (every entry bad, so using it fails) and a single codeword of length 1
// (the other 1-bit pattern is bad).
func build(t []uint32, pbits uint, lens []uint8, ent []uint32) bool {
	var count [maxCodeLn + 1]int
	for _, l := range lens {
		count[l]++
	}
	count[0] = 0
	left, total := 1, 0
	for l := 1; l <= maxCodeLn; l++ {
		left = left<<1 - count[l]
		if left < 0 {
			return false // over-subscribed
		}
		total += count[l]
	}
	if left != 0 {
		if total > 1 || (total == 1 && count[1] != 1) {
			return false // incomplete
		}
		for i := range 1 << pbits {
			t[i] = flagBad
		}
		if total == 0 {
			return true
		}
	}

	// Symbols sorted by (length, symbol): canonical code order.
	var offs [maxCodeLn + 2]int
	for l := 1; l <= maxCodeLn; l++ {
		offs[l+1] = offs[l] + count[l]
	}
	var sorted [numLitSyms]uint16
	for s, l := range lens {
		if l != 0 {
			sorted[offs[l]] = uint16(s)
			offs[l]++
		}
	}

	// The primary table grows from 2 entries, doubling before each
	// length: the copy repeats every shorter codeword's entries for the
	// new top index bit, and the codewords of the length fill the places
	// left (an incomplete code's flagBad entries are copied likewise).
	// On libradosgw's .debug_info this halves build's instructions
	// against a strided fill per codeword.
	psize := 1 << pbits
	code, i := 0, 0 // next codeword (most significant bit first), index into sorted
	for l := 1; l <= int(pbits); l++ {
		if l > 1 {
			copy(t[1<<(l-1):1<<l], t[:1<<(l-1)])
		}
		for range count[l] {
			t[reverse(code, l)] = entry(ent[sorted[i]], uint32(l))
			i++
			code++
		}
		code <<= 1
	}

	// Longer codes go to subtables, one per primary prefix. Codes sharing
	// a prefix are consecutive in canonical order and exactly fill the
	// prefix's share of the code space.
	next, prefix := psize, -1
	var subStart, subBits int
	for l := int(pbits) + 1; l <= maxCodeLn; l++ {
		for k := range count[l] {
			s := sorted[i]
			i++
			drop := l - int(pbits)
			if p := code >> drop; p != prefix {
				prefix = p
				// The subtable is as deep as the longest code under the
				// prefix: spend the prefix's space on the remaining codes
				// of length l, l+1, ... until it is full.
				subBits = drop
				space := 1<<drop - (count[l] - k)
				for space > 0 && int(pbits)+subBits < maxCodeLn {
					subBits++
					space = space<<1 - count[int(pbits)+subBits]
				}
				subStart = next
				next += 1 << subBits
				if next > len(t) {
					return false // cannot happen for complete codes
				}
				t[reverse(p, int(pbits))] = flagSub | uint32(subStart)<<16 | uint32(subBits)<<8 | uint32(pbits)
			}
			e := entry(ent[s], uint32(drop))
			for j := reverse(code&(1<<drop-1), drop); j < 1<<subBits; j += 1 << drop {
				t[subStart+j] = e
			}
			code++
		}
		code <<= 1
	}
	return true
}

// entry completes the template t (value, flags and extra-bit count) for a
// codeword of n bits: n+extra bits to consume, n as the codeword length.
func entry(t, n uint32) uint32 {
	extra := t >> 8 & 15
	return t&^0xfff | n<<8 | (n + extra)
}

// reverse returns the low n bits of code in reverse order: Huffman codes
// are sent most significant bit first, into a stream read from the least
// significant bit [RFC1951 3.1.1].
func reverse(code, n int) int {
	return int(bits.Reverse16(uint16(code)) >> (16 - n))
}
