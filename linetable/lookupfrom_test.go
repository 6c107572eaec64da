package linetable

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// checkLookupRangeFrom fails t where LookupRangeFrom answers any of the
// ascending probes otherwise than LookupRange: walking them with one Hint
// (as a Batch chunk does), then each from a Hint of random indexes. It
// returns how many of the walk's lookups started from their Hint's
// sequence.
func checkLookupRangeFrom(t *testing.T, name string, tab *Table, probes []uint64, r *rand.Rand) (fromHint int) {
	t.Helper()
	var h Hint
	for _, pc := range probes {
		before := h
		row, end, ok := tab.LookupRange(pc)
		grow, gend, gok := tab.LookupRangeFrom(pc, &h)
		if grow != row || gend != end || gok != ok {
			t.Fatalf("%s: LookupRangeFrom(%#x) from %+v = %+v, %#x, %v; LookupRange = %+v, %#x, %v", name, pc, before, grow, gend, gok, row, end, ok)
		}
		if s := before.seq; s > 0 && s < len(tab.seqs) && tab.seqs[s-1].High <= pc {
			fromHint++
		}
	}
	for range len(probes) {
		pc := probes[r.IntN(len(probes))]
		h := Hint{seq: r.IntN(len(tab.seqs)+4) - 2, blk: r.IntN(len(tab.boff)+4) - 2}
		before := h
		row, end, ok := tab.LookupRange(pc)
		grow, gend, gok := tab.LookupRangeFrom(pc, &h)
		if grow != row || gend != end || gok != ok {
			t.Fatalf("%s: LookupRangeFrom(%#x) from %+v = %+v, %#x, %v; LookupRange = %+v, %#x, %v", name, pc, before, grow, gend, gok, row, end, ok)
		}
	}
	return fromHint
}

// TestLookupRangeFrom checks LookupRangeFrom against LookupRange on every
// unit of every fixture, at every row's address and around it, and on the
// overlapping, empty and unordered sequences of TestTableLookup's program.
func TestLookupRangeFrom(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	units, fromHint := 0, 0
	for _, fx := range elfFixtures(t) {
		for _, off := range unitOffsets(t, fx.line, &fx.opts) {
			tab, _ := NewTable(fx.line, off, &fx.opts)
			if tab == nil {
				continue
			}
			fromHint += checkLookupRangeFrom(t, fmt.Sprintf("%s unit %#x", fx.name, off), tab, tableProbes(tab), r)
			units++
		}
	}
	t.Logf("%d units, %d lookups from their hint", units, fromHint)
	if units < 50 || fromHint < 10000 {
		t.Fatalf("%d units, %d lookups from their hint", units, fromHint)
	}
}
