package inline

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestFind32 checks that a map's spans held as 32-bit offsets answer as
// the same spans held whole, reversed and overlapping spans included.
func TestFind32(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for iter := range 200 {
		var m omap
		base := uint64(r.IntN(1 << 20))
		if iter%3 == 0 {
			base += 1 << 40
		}
		for range 1 + r.IntN(40) {
			lo := base + uint64(r.IntN(4096))
			hi := lo + uint64(r.IntN(300))
			if r.IntN(10) == 0 && lo > base {
				hi = lo - 1 - uint64(r.IntN(int(lo-base))) // reversed, not below the first key
			}
			m.insert(lo, hi, int32(r.IntN(100)))
		}
		var wide, narrow chains
		wide.lo, wide.hi, wide.node = m.columns()
		var ok bool
		narrow.base, narrow.lo32, narrow.hi32, narrow.node, ok = m.columns32()
		if !ok {
			continue
		}
		first := wide.lo[0]
		for _, pc := range []uint64{0, first - 1, first, first + 5000, ^uint64(0)} {
			checkFind(t, &wide, &narrow, pc)
		}
		pcs := make([]uint64, 500)
		for i := range pcs {
			pcs[i] = base + uint64(r.IntN(5000)) - 100
			checkFind(t, &wide, &narrow, pcs[i])
		}
		// find32From, walking them up with one hint, then from random
		// ones, answers as find32.
		slices.Sort(pcs)
		h := 0
		for k, pc := range pcs {
			if k%7 == 6 {
				h = r.IntN(len(narrow.lo32)+4) - 2
			}
			n1, lo1, hi1 := narrow.find32(pc)
			n2, lo2, hi2 := narrow.find32From(pc, &h)
			if n1 != n2 || lo1 != lo2 || hi1 != hi2 {
				t.Fatalf("find32From(%#x): %d [%#x, %#x), find32 %d [%#x, %#x)", pc, n2, lo2, hi2, n1, lo1, hi1)
			}
		}
	}
	var m omap
	m.insert(10, 1<<33, 1)
	if _, _, _, _, ok := m.columns32(); ok {
		t.Error("columns32 took an end 2^33 past the first key")
	}
}

func checkFind(t *testing.T, wide, narrow *chains, pc uint64) {
	t.Helper()
	n1, lo1, hi1 := wide.find(pc)
	n2, lo2, hi2 := narrow.find(pc)
	if n1 != n2 || lo1 != lo2 || hi1 != hi2 {
		t.Fatalf("find(%#x): whole spans say %d [%#x, %#x), offsets %d [%#x, %#x)", pc, n1, lo1, hi1, n2, lo2, hi2)
	}
}
