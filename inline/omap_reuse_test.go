package inline

import (
	"math/rand"
	"slices"
	"testing"
)

// TestOmapSplitsAndReuse replays random operations large enough to split
// chunks, on one omap reset between rounds as pooled builders reuse it,
// against the model.
func TestOmapSplitsAndReuse(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	var m omap
	for round := 0; round < 6; round++ {
		m.reset()
		md := model{}
		n := 500 + r.Intn(2500)
		keys := uint64(100 + r.Intn(8000))
		for i := 0; i < n; i++ {
			lo := uint64(r.Int63n(int64(keys)))
			if round%2 == 0 { // mostly ascending, as DIE pre-order inserts
				lo = uint64(i)*keys/uint64(n) + uint64(r.Intn(5))
			}
			hi := lo + uint64(r.Intn(60))
			if r.Intn(20) == 0 {
				hi = uint64(r.Int63n(int64(keys)))
			}
			m.insert(lo, hi, int32(i))
			md.insert(lo, hi, int32(i))
		}
		if got, want := m.flatten(), md.sorted(); !slices.Equal(got, want) {
			t.Fatalf("round %d (%d ops): %d entries, want %d", round, n, len(got), len(want))
		}
	}
}
