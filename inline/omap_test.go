package inline

import (
	"math/rand"
	"slices"
	"testing"
)

// model is a literal transcription of LLVM's std::map updates
// (DWARFUnit::updateAddressDieMap), slow but obviously right.
type model map[uint64]span

func (m model) floor(k uint64) (span, bool) {
	var best span
	found := false
	for lo, s := range m {
		if lo <= k && (!found || lo > best.lo) {
			best, found = s, true
		}
	}
	return best, found
}

func (m model) insert(lo, hi uint64, node int32) {
	if b, ok := m.floor(lo); ok && lo < b.hi {
		if hi < b.hi {
			m[hi] = span{hi, b.hi, b.node}
		}
		if lo > b.lo {
			e := m[b.lo]
			e.hi = lo
			m[b.lo] = e
		}
	}
	m[lo] = span{lo, hi, node}
}

func (m model) sorted() []span {
	var out []span
	for _, s := range m {
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b span) int {
		switch {
		case a.lo < b.lo:
			return -1
		case a.lo > b.lo:
			return 1
		}
		return 0
	})
	return out
}

// checkOmap replays ops on both and compares.
func checkOmap(t *testing.T, ops [][2]uint64) {
	t.Helper()
	var m omap
	md := model{}
	for i, op := range ops {
		m.insert(op[0], op[1], int32(i))
		md.insert(op[0], op[1], int32(i))
	}
	got, want := m.flatten(), md.sorted()
	if !slices.Equal(got, want) {
		t.Fatalf("ops %v:\n got %v\nwant %v", ops, got, want)
	}
	// The map's spans as offsets answer as the spans whole.
	var wide, narrow chains
	wide.lo, wide.hi, wide.node = m.columns()
	var ok bool
	if narrow.base, narrow.lo32, narrow.hi32, narrow.node, ok = m.columns32(); ok {
		for pc := range uint64(260) {
			checkFind(t, &wide, &narrow, pc)
		}
	}
}

func TestOmapMatchesModel(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for iter := 0; iter < 300; iter++ {
		n := 1 + r.Intn(60)
		ops := make([][2]uint64, n)
		for i := range ops {
			lo := uint64(r.Intn(200))
			hi := lo + uint64(r.Intn(40))
			if r.Intn(10) == 0 { // reversed ranges happen in bad input
				hi = uint64(r.Intn(200))
			}
			ops[i] = [2]uint64{lo, hi}
		}
		checkOmap(t, ops)
	}
	// Enough entries to split chunks, in descending order.
	var ops [][2]uint64
	for i := 3000; i > 0; i-- {
		ops = append(ops, [2]uint64{uint64(i) * 4, uint64(i)*4 + 3})
	}
	var m omap
	for i, op := range ops {
		m.insert(op[0], op[1], int32(i))
	}
	f := m.flatten()
	if len(f) != 3000 || !slices.IsSortedFunc(f, func(a, b span) int { return int(a.lo) - int(b.lo) }) {
		t.Fatalf("chunked map lost order: %d entries", len(f))
	}
}

func FuzzAddrMap(f *testing.F) {
	f.Add([]byte{10, 20, 12, 15, 11, 30, 5, 6})
	f.Fuzz(func(t *testing.T, b []byte) {
		// Longer inputs are not cut but ignored: bytes that change
		// nothing would still be minimized (at a cost quadratic in the
		// input's length) with every input that finds new coverage.
		if len(b) > 400 {
			return
		}
		var ops [][2]uint64
		for i := 0; i+1 < len(b); i += 2 {
			ops = append(ops, [2]uint64{uint64(b[i]), uint64(b[i+1])})
		}
		checkOmap(t, ops)
	})
}

// flatten returns the entries in key order.
func (m *omap) flatten() []span {
	out := make([]span, 0, m.n)
	for _, c := range m.chunks {
		out = append(out, c...)
	}
	return out
}
