package symbolize

import "testing"

// TestUnitEvictBytes: once a unit's index is built, the module evicts its
// mapped pages only when the units built since its last eviction hold at
// least unitEvictBytes of DIEs: after every unit at 0, after none when the
// threshold is out of reach, and after the second of two units whose sizes
// together just reach it.
func TestUnitEvictBytes(t *testing.T) {
	b, err := NewBytes(fixture(t, "go-trimpath"), &Options{Inlines: true})
	if err != nil {
		t.Fatal(err)
	}
	type unit struct{ off, pc, size uint64 }
	var units []unit
	seen := map[uint64]bool{}
	if _, err := b.AppendFrames(nil, b.code[0][0]); err != nil { // loads the DWARF
		t.Fatal(err)
	}
	s := b.loaded.Load()
	if s == nil {
		t.Fatal("no DWARF loaded")
	}
	s.index.BuildAll()
	for _, r := range b.code {
		for pc := r[0]; pc < r[1]; pc += 16 {
			off, _, _, ok := s.index.LookupRange(pc)
			if !ok || seen[off] {
				continue
			}
			seen[off] = true
			if _, built := s.units.Load(off); built {
				continue
			}
			us, err := s.unitAt(off)
			if err != nil {
				continue
			}
			units = append(units, unit{off, pc, us.unit.End - us.unit.DIEOffset})
		}
	}
	if len(units) < 7 {
		t.Fatalf("%d units not yet built: too few to test", len(units))
	}
	evictions := 0
	s.evict = func() { evictions++ }
	defer func(v uint64) { unitEvictBytes = v }(unitEvictBytes)
	build := func(u unit) {
		t.Helper()
		if _, err := s.unit(u.off, u.pc); err != nil {
			t.Fatal(err)
		}
	}

	unitEvictBytes = 0
	for _, u := range units[:3] {
		build(u)
	}
	if evictions != 3 {
		t.Fatalf("threshold 0: %d evictions after 3 units, want 3", evictions)
	}
	unitEvictBytes = 1 << 62
	for _, u := range units[3:5] {
		build(u)
	}
	if evictions != 3 {
		t.Fatalf("threshold out of reach: %d evictions, want still 3", evictions)
	}
	s.evictDue.Store(0)
	unitEvictBytes = units[5].size + units[6].size
	build(units[5])
	if evictions != 3 {
		t.Fatalf("%d evictions after a unit of %d bytes below the threshold %d", evictions, units[5].size, unitEvictBytes)
	}
	build(units[6])
	if evictions != 4 || s.evictDue.Load() != 0 {
		t.Fatalf("after two units reaching the threshold: %d evictions (want 4), %d bytes due (want 0)", evictions, s.evictDue.Load())
	}
}
