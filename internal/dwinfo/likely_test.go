package dwinfo

import (
	"testing"
)

// TestLikelyMatchesLookup: on every fixture, at the start, middle and last
// byte of every range of the units tier, Likely on a fresh Index names the
// unit Lookup picks (the fixtures' units do not overlap), or, where the
// aranges tier answers, nothing; and Likely builds no units tier.
func TestLikelyMatchesLookup(t *testing.T) {
	guessed := 0
	for _, p := range fixtures(t) {
		s, _, ok := loadELF(t, p)
		if !ok {
			continue
		}
		all := NewIndex(New(s, nil))
		all.BuildAll()
		for _, r := range all.units {
			for _, pc := range []uint64{r.lo, r.lo + (r.hi-r.lo)/2, r.hi - 1} {
				ix := NewIndex(New(s, nil))
				guess, gok := ix.Likely(pc)
				if ix.built.Load() {
					t.Fatalf("%s: Likely(%#x) built the units tier", p, pc)
				}
				want, wok := ix.Lookup(pc)
				if _, inAranges := findRange(ix.aranges, pc); inAranges {
					if gok {
						t.Fatalf("%s: Likely(%#x) = %#x where the aranges tier answers", p, pc, guess)
					}
					continue
				}
				if !wok || !gok || guess != want {
					t.Fatalf("%s: Likely(%#x) = %#x %v, Lookup %#x %v", p, pc, guess, gok, want, wok)
				}
				guessed++
			}
		}
	}
	if guessed == 0 {
		t.Fatal("no address guessed")
	}
	t.Logf("%d addresses guessed", guessed)
}
