package symbolize

import (
	"slices"
	"testing"
)

// TestBusyHint: busy hands a unit it finds built to the hint, with the
// range the index gives it, so that the lookup after it starts from there;
// a unit not yet built is left to the lookup, and the answers are the
// same either way.
func TestBusyHint(t *testing.T) {
	for _, name := range []string{"cpp-gcc-O3", "go-trimpath"} {
		b, err := NewBytes(fixture(t, name), &Options{Inlines: true})
		if err != nil {
			t.Fatal(err)
		}
		var pcs []uint64
		for _, r := range b.code {
			for pc := r[0]; pc < r[1]; pc += 97 {
				pcs = append(pcs, pc)
			}
		}
		// The first lookup loads the DWARF; build every tier of the
		// index so that busy can place each address.
		if _, err := b.AppendFrames(nil, pcs[0]); err != nil {
			t.Fatal(err)
		}
		s := b.loaded.Load()
		if s == nil {
			t.Fatalf("%s: no DWARF loaded", name)
		}
		s.index.BuildAll()
		handed, left := 0, 0
		for _, pc := range pcs {
			off, lo, hi, ok := s.index.LookupRange(pc)
			if !ok {
				continue
			}
			var h hint
			v, built := s.units.Load(off)
			built = built && v.(*unitState).building.Load() == 2
			if s.busy(pc, &h) {
				t.Fatalf("%s %#x: busy with no build running", name, pc)
			}
			switch {
			case built && (h.mod != s || h.us != v.(*unitState) || h.ulo != lo || h.uhi != hi):
				t.Fatalf("%s %#x: the hint holds %p [%#x, %#x), want the built unit %p [%#x, %#x)", name, pc, h.us, h.ulo, h.uhi, v, lo, hi)
			case built:
				handed++
			case h.us != nil:
				t.Fatalf("%s %#x: the hint holds a unit not built", name, pc)
			default:
				left++
			}
			got, _, _, err := b.appendFrames(nil, pc, &h)
			want, werr := b.AppendFrames(nil, pc)
			if err != nil || werr != nil || !slices.Equal(got, want) {
				t.Fatalf("%s %#x: from busy's hint %v %v, alone %v %v", name, pc, got, err, want, werr)
			}
		}
		if handed == 0 || left == 0 {
			t.Fatalf("%s: %d addresses in built units, %d in units not built: the test needs both", name, handed, left)
		}
	}
}
