package inflate

// adler32 extends the Adler-32 checksum a [RFC1950 9] with p. Summing 8
// bytes per step, with the second sum's weights written out, shortens
// the chain of dependent additions to one per 8 bytes; this keeps the
// checksum a small share of the time next to the fast loop.
func adler32(a uint32, p []byte) uint32 {
	const (
		mod = 65521
		// nmax is the most bytes before s2 could pass 2^32 [zlib's
		// NMAX], a multiple of 8.
		nmax = 5552
	)
	s1, s2 := a&0xffff, a>>16
	for len(p) > 0 {
		c := p[:min(len(p), nmax)]
		p = p[len(c):]
		for len(c) >= 8 {
			b0, b1, b2, b3 := uint32(c[0]), uint32(c[1]), uint32(c[2]), uint32(c[3])
			b4, b5, b6, b7 := uint32(c[4]), uint32(c[5]), uint32(c[6]), uint32(c[7])
			s2 += 8*s1 + 8*b0 + 7*b1 + 6*b2 + 5*b3 + 4*b4 + 3*b5 + 2*b6 + b7
			s1 += b0 + b1 + b2 + b3 + b4 + b5 + b6 + b7
			c = c[8:]
		}
		for _, b := range c {
			s1 += uint32(b)
			s2 += s1
		}
		s1 %= mod
		s2 %= mod
	}
	return s2<<16 | s1
}
