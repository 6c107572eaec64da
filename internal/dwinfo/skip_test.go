package dwinfo

import (
	"fmt"
	"math"
	"testing"
)

// sameAsGeneric reads every DIE of every unit of d three ways: with the
// skip programs (Next), on the generic path alone (what a unit of another
// format than its table's gets), and with NextWhere (for a set of tags
// and a depth); the first two must agree on every entry, position and
// error, and NextWhere must return exactly the entries of Next that it
// selects, as NextIn must for the codes of those tags. n bounds the
// loops.
func sameAsGeneric(d *Data, n int) error {
	hs, _ := d.Headers()
	for _, h := range hs {
		u, err := d.LoadUnit(h)
		if err != nil {
			continue
		}
		fast, slow := u.Entries(), u.Entries()
		slow.fast = false
		where, in := u.Entries(), u.Entries()
		tags := Tags(TagSubprogram, TagInlinedSubroutine)
		codes, haveCodes := u.Codes(func(ab *Abbrev) bool { return tags.Has(ab.Tag) })
		var a, b, c, e Entry
		last := fast.Offset() // the end of the last DIE Next returned
		for i := 0; i <= n; i++ {
			errA, errB := fast.Next(&a), slow.Next(&b)
			if fmt.Sprint(errA) != fmt.Sprint(errB) || a != b || fast.Offset() != slow.Offset() || fast.depth != slow.depth {
				return fmt.Errorf("unit %#x: skip programs %+v %v at %#x, generic path %+v %v at %#x",
					h.Offset, a, errA, fast.Offset(), b, errB, slow.Offset())
			}
			if errA == nil && !(a.Depth <= 1 || tags.Has(a.Tag)) {
				last = fast.Offset()
				continue
			}
			errC := where.NextWhere(&c, 1, tags)
			if fmt.Sprint(errA) != fmt.Sprint(errC) || errA == nil && (a != c || where.Offset() != fast.Offset()) {
				return fmt.Errorf("unit %#x: Next %+v %v, NextWhere %+v %v", h.Offset, a, errA, c, errC)
			}
			// NextIn with the codes of those tags is NextWhere.
			if haveCodes { // else codes too large for a set
				errE := in.NextIn(&e, 1, codes)
				if fmt.Sprint(errE) != fmt.Sprint(errC) || e != c || in.Offset() != where.Offset() {
					return fmt.Errorf("unit %#x: NextWhere %+v %v at %#x, NextIn %+v %v at %#x", h.Offset, c, errC, where.Offset(), e, errE, in.Offset())
				}
			}
			if errA != nil {
				if errA.Error() != "EOF" && where.Offset() != last {
					return fmt.Errorf("unit %#x: NextWhere failed at %#x, after the last DIE at %#x", h.Offset, where.Offset(), last)
				}
				break
			}
			last = fast.Offset()
		}
	}
	return inMatchesWhere(d, n)
}

// inMatchesWhere reads every unit of d with NextWhere and with NextIn
// for the codes of the same tags, at each of a few depths (the lazy scan
// of package inline asks for changing depths, below and above the unit
// DIE's, and for DIEs at the largest depth), and reports the first
// entry, position or error where they differ. n bounds the loops.
func inMatchesWhere(d *Data, n int) error {
	hs, _ := d.Headers()
	tags := Tags(TagSubprogram, TagInlinedSubroutine)
	for _, h := range hs {
		u, err := d.LoadUnit(h)
		if err != nil {
			continue
		}
		codes, ok := u.Codes(func(ab *Abbrev) bool { return tags.Has(ab.Tag) })
		if !ok {
			continue
		}
		for _, depth := range []int{-1, 0, 2, 3, 5, d.maxDepth - 1, d.maxDepth, math.MaxInt} {
			where, in := u.Entries(), u.Entries()
			var c, e Entry
			for i := 0; i <= n; i++ {
				errC, errE := where.NextWhere(&c, depth, tags), in.NextIn(&e, depth, codes)
				if fmt.Sprint(errE) != fmt.Sprint(errC) || e != c || in.Offset() != where.Offset() || in.depth != where.depth {
					return fmt.Errorf("unit %#x, depth %d: NextWhere %+v %v at %#x, NextIn %+v %v at %#x",
						h.Offset, depth, c, errC, where.Offset(), e, errE, in.Offset())
				}
				if errC != nil {
					break
				}
			}
		}
	}
	return nil
}

func TestSkipProgramsMatchGeneric(t *testing.T) {
	for _, p := range fixturePaths() {
		t.Run(p, func(t *testing.T) {
			s, _, ok := loadELF(t, p)
			if !ok {
				t.Skip("no .debug_info")
			}
			if err := sameAsGeneric(New(s, nil), math.MaxInt); err != nil {
				t.Fatal(err)
			}
		})
	}
	for _, dwarf64 := range []bool{false, true} {
		for _, maxDepth := range []int{0, 2, 3} {
			if err := sameAsGeneric(New(buildSynth(t, dwarf64, dwarf64).secs, &Options{MaxDepth: maxDepth}), math.MaxInt); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func TestTagSet(t *testing.T) {
	s := Tags(TagSubprogram, TagInlinedSubroutine, 0x4109)
	for tag, want := range map[Tag]bool{TagSubprogram: true, TagInlinedSubroutine: true, 0x4109: true, 0: false,
		TagCompileUnit: false, TagSubprogram + 1: false, 0xffff: false} {
		if s.Has(tag) != want {
			t.Errorf("Has(%#x) = %v", tag, !want)
		}
	}
	if Tags().Has(TagSubprogram) || Tags(0xffff).Has(0xfffe) || !Tags(0xffff).Has(0xffff) {
		t.Error("TagSet edge cases")
	}
}
