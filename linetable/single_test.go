package linetable

import (
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
)

// checkTableFor compares NewTableFor(pc) with NewTable for every pc of
// pcs: the same error and header, and the same answers for pc first, then
// for every pc (which makes the Table build the whole one), then Len and
// the sequences.
func checkTableFor(t *testing.T, data []byte, off uint64, opts *Options, pcs []uint64) {
	t.Helper()
	whole, werr := NewTable(data, off, opts)
	for _, pc := range pcs {
		tab, err := NewTableFor(data, off, opts, pc)
		if (tab == nil) != (whole == nil) || (err == nil) != (werr == nil) || (err != nil && err.Error() != werr.Error()) {
			t.Fatalf("unit %#x, pc %#x: NewTableFor %v (table %v), NewTable %v (table %v)", off, pc, err, tab != nil, werr, whole != nil)
		}
		if tab == nil {
			return
		}
		if !reflect.DeepEqual(tab.Header(), whole.Header()) {
			t.Fatalf("unit %#x, pc %#x: header %+v, NewTable's %+v", off, pc, tab.Header(), whole.Header())
		}
		same := func(pc uint64) {
			r1, e1, ok1 := tab.LookupRange(pc)
			r2, e2, ok2 := whole.LookupRange(pc)
			if r1 != r2 || e1 != e2 || ok1 != ok2 {
				t.Fatalf("unit %#x, table for %#x: LookupRange(%#x) = %+v %#x %v, NewTable's %+v %#x %v", off, pc, pc, r1, e1, ok1, r2, e2, ok2)
			}
			if r, ok := tab.Lookup(pc); r != r1 || ok != ok1 {
				t.Fatalf("unit %#x, table for %#x: Lookup(%#x) = %+v %v, LookupRange's %+v %v", off, pc, pc, r, ok, r1, ok1)
			}
		}
		same(pc)
		if tab.part != nil && tab.part.whole != nil {
			t.Fatalf("unit %#x: the lookup of %#x built the whole table", off, pc)
		}
		for _, q := range pcs {
			same(q)
		}
		if tab.Len() != whole.Len() || !slices.Equal(slices.Collect(tab.Sequences()), slices.Collect(whole.Sequences())) {
			t.Fatalf("unit %#x, table for %#x: %d rows, NewTable %d, or other sequences", off, pc, tab.Len(), whole.Len())
		}
	}
	// A Table for the first address, walked up with one Hint: its own
	// sequence, then the others (from the whole Table it builds).
	if len(pcs) == 0 {
		return
	}
	tab, _ := NewTableFor(data, off, opts, pcs[0])
	if tab == nil {
		return
	}
	var h Hint
	for _, q := range slices.Sorted(slices.Values(pcs)) {
		r1, e1, ok1 := tab.LookupRangeFrom(q, &h)
		r2, e2, ok2 := whole.LookupRange(q)
		if r1 != r2 || e1 != e2 || ok1 != ok2 {
			t.Fatalf("unit %#x, table for %#x: LookupRangeFrom(%#x) = %+v %#x %v, NewTable's LookupRange %+v %#x %v", off, pcs[0], q, r1, e1, ok1, r2, e2, ok2)
		}
	}
}

// TestTableForFixtures: on every unit of every fixture, for row addresses,
// their neighbours and sequence edges, NewTableFor answers as NewTable.
func TestTableForFixtures(t *testing.T) {
	units, lookups := 0, 0
	for _, fx := range elfFixtures(t) {
		if fx.rel {
			continue // ET_REL: a relocatable object's tables answer per section
		}
		for _, off := range unitOffsets(t, fx.line, &fx.opts) {
			whole, err := NewTable(fx.line, off, &fx.opts)
			if whole == nil {
				t.Logf("%s: unit %#x: %v", fx.name, off, err)
				continue
			}
			pcs := tableProbes(whole)
			if len(pcs) > 96 {
				// A sample, in random order: the first pc decides
				// which sequence the table keeps.
				rand.New(rand.NewPCG(uint64(off), 7)).Shuffle(len(pcs), func(i, j int) { pcs[i], pcs[j] = pcs[j], pcs[i] })
				pcs = pcs[:96]
			}
			checkTableFor(t, fx.line, off, &fx.opts, pcs)
			units++
			lookups += len(pcs)
		}
	}
	if units == 0 {
		t.Fatal("no unit checked")
	}
	t.Logf("%d units, %d tables for one pc", units, lookups)
}

// TestTableForOverlaps: where sequences overlap, the one that answers pc
// is LLVM's (the first by High above pc), and the kept rows answer only
// the addresses for which it is.
func TestTableForOverlaps(t *testing.T) {
	h := twoFileHeader(4)
	seq := func(lo, hi uint64, line uint32) []Row {
		return []Row{
			{Address: lo, File: 1, Line: line, IsStmt: true},
			{Address: (lo + hi) / 2, File: 2, Line: line + 1, IsStmt: true},
			{Address: hi, File: 1, Line: line + 2, IsStmt: true, EndSequence: true},
		}
	}
	var rows []Row
	rows = append(rows, seq(0x1000, 0x1400, 10)...) // holds the next two
	rows = append(rows, seq(0x1100, 0x1200, 20)...)
	rows = append(rows, seq(0x1180, 0x1300, 30)...)
	rows = append(rows, seq(0x2000, 0x2000, 40)...) // empty: dropped
	rows = append(rows, seq(0x3000, 0x3100, 50)...)
	out, err := Assemble(&h, rows, &AsmOptions{})
	if err != nil {
		t.Fatal(err)
	}
	opts := &Options{AddressSize: 8}
	var pcs []uint64
	for pc := uint64(0xff0); pc < 0x3110; pc += 0x10 {
		pcs = append(pcs, pc, pc+1)
	}
	checkTableFor(t, out.Line, out.Offset, opts, pcs)
	// Where the kept rows answer: the first sequence by High above
	// 0x1180 is the second (High 0x1200), which answers all of
	// [0x1100, 0x1200); above it the first answers, from the third's
	// High on.
	tab, _ := NewTableFor(out.Line, out.Offset, opts, 0x1180)
	if p := tab.part; p == nil || p.lo != 0x1100 || p.last != 0x11ff {
		t.Fatalf("table for 0x1180 answers %+v, want [0x1100, 0x11ff]", tab.part)
	}
	tab, _ = NewTableFor(out.Line, out.Offset, opts, 0x1350)
	if p := tab.part; p == nil || p.lo != 0x1300 || p.last != 0x13ff {
		t.Fatalf("table for 0x1350 answers %+v, want [0x1300, 0x13ff]", tab.part)
	}
	// define_file in every sequence: the header holds them all, whichever
	// sequence the table keeps; and a program that goes bad after two
	// sequences keeps NewTable's error and sequences.
	for _, bad := range []bool{false, true} {
		a, err := NewAssembler(&h, nil)
		if err != nil {
			t.Fatal(err)
		}
		for i, lo := range []uint64{0x1000, 0x2000, 0x3000} {
			a.Raw([]byte{0, 7, byte(OpDefineFile), 'f', byte('0' + i), 0, 0, 0, 0})
			a.SetAddress(lo)
			a.Copy()
			a.AdvancePC(0x80)
			a.EndSequence()
			if bad && i == 1 {
				a.ExtendedLen(50, []byte{byte(OpSetAddress)})
			}
		}
		out := a.Finish()
		pcs := []uint64{0x1010, 0x2010, 0x3010, 0x500}
		checkTableFor(t, out.Line, out.Offset, opts, pcs)
		tab, err := NewTableFor(out.Line, out.Offset, opts, 0x2010)
		if n := len(tab.Header().Files); n != len(h.Files)+3 && !bad || bad && (err == nil || n != len(h.Files)+2) {
			t.Fatalf("bad=%v: %d files (%v), want %d more than the header's %d", bad, n, err, 3-b2i(bad), len(h.Files))
		}
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestTableForLastAddress: a Table for the last address, which no sequence
// holds, answers it without building the whole Table (its range once
// ended at pc+1, which wrapped to 0: found by FuzzDecode).
func TestTableForLastAddress(t *testing.T) {
	out := build(t, DefaultHeader(5), nil, func(a *Assembler) {
		a.SetAddress(0x1000)
		a.Copy()
		a.AdvancePC(0x10)
		a.EndSequence()
	})
	pc := ^uint64(0)
	tab, err := NewTableFor(out.Line, 0, out.Options(), pc)
	if err != nil {
		t.Fatal(err)
	}
	if r, ok := tab.Lookup(pc); ok {
		t.Fatalf("Lookup(%#x) = %+v", pc, r)
	}
	if p := tab.part; p == nil || p.whole != nil || p.lo != pc || p.last != pc {
		t.Fatalf("table for %#x: %+v, want [pc, pc] and no whole table", pc, tab.part)
	}
	checkTableFor(t, out.Line, 0, out.Options(), []uint64{pc, pc - 1, 0x1000, 0x100f, 0x1010})
}
