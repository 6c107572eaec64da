package sorted

import (
	"math/rand/v2"
	"slices"
	"sort"
	"testing"
)

// TestLastFrom compares LastFrom with a binary search on random ascending
// slices (with runs of equal elements), from every valid start.
func TestLastFrom(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 300 {
		a := make([]uint32, 1+r.IntN(100))
		for i := range a {
			a[i] = uint32(r.IntN(200))
		}
		slices.Sort(a)
		for range 50 {
			v := uint32(r.IntN(220))
			want := sort.Search(len(a), func(k int) bool { return a[k] > v }) - 1
			for i := 0; i < len(a) && a[i] <= v; i++ {
				if got := LastFrom(a, v, i); got != want {
					t.Fatalf("LastFrom(%v, %d, %d) = %d, want %d", a, v, i, got, want)
				}
			}
		}
	}
}
