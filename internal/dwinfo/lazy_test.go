package dwinfo

import (
	"io"
	"testing"
)

// TestLazyInfo checks that a lazy .debug_info (Sections.InfoPrefix) reads
// the same units and DIEs as the whole section, and that loading one unit
// asks only for the bytes up to its end.
func TestLazyInfo(t *testing.T) {
	for _, path := range fixtures(t) {
		s, _, ok := loadELF(t, path)
		if !ok || len(s.Info) == 0 {
			continue
		}
		full := s.Info
		eager := New(s, nil)
		hs, err := eager.Headers()
		if err != nil || len(hs) < 2 {
			continue
		}
		var asked uint64
		lazy := s
		lazy.Info, lazy.InfoSize = nil, uint64(len(full))
		lazy.InfoPrefix = func(n uint64) ([]byte, error) {
			asked = max(asked, n)
			return full[:min(n+100, uint64(len(full)))], nil // a little more, as an inflater would give
		}
		d := New(lazy, nil)
		// One unit from the middle: no bytes past its end are asked for.
		h := hs[len(hs)/2]
		u, err := d.UnitAt(h.Offset)
		if err != nil {
			t.Fatalf("%s: UnitAt(%#x): %v", path, h.Offset, err)
		}
		if asked > h.End {
			t.Errorf("%s: loading the unit at %#x (end %#x) asked for %#x bytes", path, h.Offset, h.End, asked)
		}
		want, _ := eager.UnitAt(h.Offset)
		if got, exp := countDIEs(t, u), countDIEs(t, want); got != exp {
			t.Errorf("%s: unit %#x: %d DIEs lazily, %d eagerly", path, h.Offset, got, exp)
		}
		// Walking every header makes the whole section available.
		lhs, err := d.Headers()
		if err != nil || len(lhs) != len(hs) {
			t.Errorf("%s: %d headers lazily (%v), %d eagerly", path, len(lhs), err, len(hs))
		}
	}
}

func countDIEs(t *testing.T, u *Unit) int {
	n := 0
	er := u.Entries()
	var e Entry
	for {
		err := er.Next(&e)
		if err == io.EOF {
			return n
		}
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
}
