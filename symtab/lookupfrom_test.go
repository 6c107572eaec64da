package symtab

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// checkLookupFrom fails t where LookupFrom answers any of pcs otherwise
// than Lookup: walking them in ascending order with one hint (as a Batch
// chunk does), and each with a hint left by another address, below or
// above it, or out of range. It returns how many lookups galloped (started
// from the hint rather than searching the whole table).
func checkLookupFrom(t *testing.T, name string, tb *Table, pcs []uint64, r *rand.Rand) (galloped int) {
	t.Helper()
	pcs = slices.Clone(pcs)
	slices.Sort(pcs)
	h := 0
	for _, pc := range pcs {
		before := h
		want, wok := tb.Lookup(pc)
		got, gok := tb.LookupFrom(pc, &h)
		if got != want || gok != wok {
			t.Fatalf("%s: LookupFrom(%#x) from hint %d = %+v, %v; Lookup = %+v, %v", name, pc, before, got, gok, want, wok)
		}
		if before >= 0 && before < tb.Len() && tb.addrs[before] <= pc {
			galloped++
		}
	}
	for range 4 * len(pcs) {
		pc := pcs[r.IntN(len(pcs))]
		h := r.IntN(tb.Len()+4) - 2
		before := h
		want, wok := tb.Lookup(pc)
		got, gok := tb.LookupFrom(pc, &h)
		if got != want || gok != wok {
			t.Fatalf("%s: LookupFrom(%#x) from hint %d = %+v, %v; Lookup = %+v, %v", name, pc, before, got, gok, want, wok)
		}
	}
	return galloped
}

// TestLookupFrom checks LookupFrom against Lookup on both symbol tables of
// every ELF fixture, at every address where the answer can change.
func TestLookupFrom(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	galloped := 0
	for _, path := range fixtureFiles(t) {
		ef := readELFFile(t, path)
		for i, syms := range [][]Symbol{ef.symtab, ef.dynsym} {
			if len(syms) == 0 {
				continue
			}
			galloped += checkLookupFrom(t, path+[...]string{" .symtab", " .dynsym"}[i], New(syms), lookupPCs(syms), r)
		}
	}
	if galloped < 1000 {
		t.Fatalf("only %d lookups started from their hint", galloped)
	}
}
