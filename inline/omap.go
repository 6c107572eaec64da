package inline

// span is one entry of the address map: [lo, hi) belongs to node. Entries
// may be reversed or overlap, exactly as LLVM's map allows.
type span struct {
	lo, hi uint64
	node   int32
}

// chunkMax bounds a chunk of the ordered map; inserting into a chunk costs
// at most this many moves, so building from n ranges in any order costs
// O(n (log n + chunkMax)) rather than the O(n^2) of one sorted slice.
const chunkMax = 512

// omap is an ordered map from lo to span, a sorted sequence of sorted
// chunks. It exists to replay LLVM's std::map updates (see insert) in
// O(log n) per operation plus a bounded memmove.
type omap struct {
	chunks [][]span
	n      int
	free   [][]span // empty chunks kept by reset for reuse
	// hint is the position floor answered last. Inserts come in runs of
	// ascending keys (a function's inlined ranges), often interleaved with
	// another run (gcc's .cold parts), so the next key usually has the
	// same floor or the one after it.
	hintC, hintI int
}

// reset empties m, keeping its chunks' memory for the next Build.
func (m *omap) reset() {
	for _, c := range m.chunks {
		m.free = append(m.free, c[:0])
	}
	clear(m.chunks)
	m.chunks, m.n = m.chunks[:0], 0
	m.hintC, m.hintI = 0, 0
}

// chunk returns an empty chunk with room for chunkMax+1 entries, so that
// appending to it never reallocates before it splits.
func (m *omap) chunk() []span {
	if k := len(m.free); k > 0 {
		c := m.free[k-1]
		m.free = m.free[:k-1]
		return c
	}
	return make([]span, 0, chunkMax+1)
}

// floor returns the position of the entry with the greatest lo <= k.
// DIE pre-order inserts mostly at or near the end of the map, or just
// after the previous insert, so those keys are answered without a search.
func (m *omap) floor(k uint64) (ci, i int, ok bool) {
	nc := len(m.chunks)
	if nc == 0 || k < m.chunks[0][0].lo {
		return 0, 0, false
	}
	if last := m.chunks[nc-1]; k >= last[len(last)-1].lo {
		return nc - 1, len(last) - 1, true
	}
	// The hint, or the entry after it, if its key is <= k and the next
	// key (which exists: k is below the last) is > k. Checking the keys
	// makes a stale hint harmless.
	if ci, i := m.hintC, m.hintI; ci < nc && i < len(m.chunks[ci]) && m.chunks[ci][i].lo <= k {
		for range 2 {
			nci, ni := ci, i+1
			if ni == len(m.chunks[ci]) {
				nci, ni = ci+1, 0
			}
			if m.chunks[nci][ni].lo > k {
				m.hintC, m.hintI = ci, i
				return ci, i, true
			}
			ci, i = nci, ni
		}
	}
	// Last chunk whose first key is <= k: chunks[0] qualifies.
	lo, hi := 1, nc
	for lo < hi {
		h := int(uint(lo+hi) >> 1)
		if m.chunks[h][0].lo > k {
			hi = h
		} else {
			lo = h + 1
		}
	}
	ci = lo - 1
	c := m.chunks[ci]
	// Last entry of c whose key is <= k: c[0] qualifies.
	lo, hi = 1, len(c)
	for lo < hi {
		h := int(uint(lo+hi) >> 1)
		if c[h].lo > k {
			hi = h
		} else {
			lo = h + 1
		}
	}
	m.hintC, m.hintI = ci, lo-1
	return ci, lo - 1, true
}

// set assigns m[lo] = (hi, node), inserting the key if absent.
func (m *omap) set(lo, hi uint64, node int32) {
	ci, i, ok := m.floor(lo)
	if ok && m.chunks[ci][i].lo == lo {
		m.chunks[ci][i] = span{lo, hi, node}
		return
	}
	m.n++
	if len(m.chunks) == 0 {
		m.chunks = append(m.chunks, append(m.chunk(), span{lo, hi, node}))
		return
	}
	if !ok { // smaller than every key: front of the first chunk
		ci, i = 0, -1
	}
	c := m.chunks[ci]
	c = append(c, span{})
	copy(c[i+2:], c[i+1:])
	c[i+1] = span{lo, hi, node}
	if len(c) <= chunkMax {
		m.chunks[ci] = c
		return
	}
	// Split: the second half moves to a chunk of its own, so that appending
	// to the first cannot overwrite it.
	h := len(c) / 2
	b := append(m.chunk(), c[h:]...)
	m.chunks[ci] = c[:h]
	m.chunks = append(m.chunks, nil)
	copy(m.chunks[ci+2:], m.chunks[ci+1:])
	m.chunks[ci+1] = b
}

// insert adds the range [lo, hi) of node the way LLVM 14's
// DWARFUnit::updateAddressDieMap does, bug for bug: if the entry at or
// below lo overlaps lo, its tail past hi is re-added as its own entry and
// its head is cut at lo; then m[lo] is overwritten. Later (deeper, in DIE
// pre-order) ranges thus win over earlier ones. Entries that start inside
// [lo, hi) are left alone, so the result is not always a clean overlay;
// llvm-symbolizer answers from it all the same.
func (m *omap) insert(lo, hi uint64, node int32) {
	if ci, i, ok := m.floor(lo); ok {
		b := m.chunks[ci][i]
		if lo < b.hi {
			if hi < b.hi {
				m.set(hi, b.hi, b.node)
			}
			if lo > b.lo {
				// The entry at b.lo may have moved within the chunks (or
				// been rewritten with the same value by the set above).
				if cj, j, ok := m.floor(b.lo); ok && m.chunks[cj][j].lo == b.lo {
					m.chunks[cj][j].hi = lo
				}
			}
		}
	}
	m.set(lo, hi, node)
}

// columns returns the entries in key order as three arrays.
func (m *omap) columns() (lo, hi []uint64, node []int32) {
	lo, hi, node = make([]uint64, 0, m.n), make([]uint64, 0, m.n), make([]int32, 0, m.n)
	for _, c := range m.chunks {
		for _, s := range c {
			lo, hi, node = append(lo, s.lo), append(hi, s.hi), append(node, s.node)
		}
	}
	return lo, hi, node
}

// columns32 returns the entries in key order as offsets from the first
// key, and false (and nothing) if an end lies below it or an offset does
// not fit in 32 bits.
func (m *omap) columns32() (base uint64, lo, hi []uint32, node []int32, ok bool) {
	if m.n == 0 {
		return 0, nil, nil, nil, false
	}
	base = m.chunks[0][0].lo
	for _, c := range m.chunks {
		for _, s := range c {
			if s.lo-base > 1<<32-1 || s.hi < base || s.hi-base > 1<<32-1 {
				return 0, nil, nil, nil, false
			}
		}
	}
	lo, hi, node = make([]uint32, 0, m.n), make([]uint32, 0, m.n), make([]int32, 0, m.n)
	for _, c := range m.chunks {
		for _, s := range c {
			lo, hi, node = append(lo, uint32(s.lo-base)), append(hi, uint32(s.hi-base)), append(node, s.node)
		}
	}
	return base, lo, hi, node, true
}
