package linetable

import (
	"errors"
	"math/rand/v2"
	"reflect"
	"slices"
	"sync"
	"testing"
)

// checkKeep compares NewTable with Options.Keep (keep, sorted here) with
// NewTable without it: the same error and header; the same answers for
// the kept addresses without building the whole Table and without reading
// data again (it is zeroed once NewTable returns, as a caller that gives
// it back would leave it); then the same answers for every probe, built
// from Again's bytes, which is called at most once; then Len and the
// sequences. It returns whether the Table dropped rows.
func checkKeep(t *testing.T, data []byte, off uint64, opts *Options, keep, probes []uint64) (dropped bool) {
	t.Helper()
	whole, werr := NewTable(data, off, opts)
	keep = slices.Clone(keep)
	slices.Sort(keep)
	o := *optsOrZero(opts)
	o.Keep = keep
	again := 0
	o.Again = func(build func([]byte)) error { again++; build(data); return nil }
	mine := slices.Clone(data)
	tab, err := NewTable(mine, off, &o)
	clear(mine)
	if (tab == nil) != (whole == nil) || (err == nil) != (werr == nil) || (err != nil && err.Error() != werr.Error()) {
		t.Fatalf("unit %#x: with Keep %v (table %v), without %v (table %v)", off, err, tab != nil, werr, whole != nil)
	}
	if tab == nil {
		return false
	}
	if !reflect.DeepEqual(tab.Header(), whole.Header()) {
		t.Fatalf("unit %#x: header %+v, without Keep %+v", off, tab.Header(), whole.Header())
	}
	kept := tab.keptPart() != nil
	if (tab.part != nil) != kept {
		t.Fatalf("unit %#x: a part %+v that Keep did not make", off, tab.part)
	}
	same := func(pc uint64) {
		r1, e1, ok1 := tab.LookupRange(pc)
		r2, e2, ok2 := whole.LookupRange(pc)
		if r1 != r2 || e1 != e2 || ok1 != ok2 {
			t.Fatalf("unit %#x: LookupRange(%#x) = %+v %#x %v, without Keep %+v %#x %v", off, pc, r1, e1, ok1, r2, e2, ok2)
		}
		if r, ok := tab.Lookup(pc); r != r1 || ok != ok1 {
			t.Fatalf("unit %#x: Lookup(%#x) = %+v %v, LookupRange's %+v %v", off, pc, r, ok, r1, ok1)
		}
	}
	for _, pc := range keep {
		same(pc)
	}
	if again != 0 || (tab.part != nil && tab.part.whole != nil) {
		t.Fatalf("unit %#x: the kept addresses built the whole table (Again called %d times)", off, again)
	}
	for _, pc := range probes {
		same(pc)
	}
	if tab.Len() != whole.Len() || !slices.Equal(slices.Collect(tab.Sequences()), slices.Collect(whole.Sequences())) {
		t.Fatalf("unit %#x: %d rows, without Keep %d, or other sequences", off, tab.Len(), whole.Len())
	}
	if again > 1 || (again == 1) != kept {
		t.Fatalf("unit %#x: Again called %d times, rows dropped %v", off, again, kept)
	}
	// Another such Table, walked up with one Hint (as a sparse batch's
	// chunk walks it): the kept addresses, then every probe.
	tab2, _ := NewTable(slices.Clone(data), off, &o)
	var h Hint
	for _, list := range [][]uint64{keep, slices.Sorted(slices.Values(probes))} {
		for _, pc := range list {
			r1, e1, ok1 := tab2.LookupRangeFrom(pc, &h)
			r2, e2, ok2 := whole.LookupRange(pc)
			if r1 != r2 || e1 != e2 || ok1 != ok2 {
				t.Fatalf("unit %#x: LookupRangeFrom(%#x) = %+v %#x %v, without Keep LookupRange %+v %#x %v", off, pc, r1, e1, ok1, r2, e2, ok2)
			}
		}
	}
	return kept
}

// tableProbes returns, sorted, the addresses of every row of t and their
// neighbours, and every sequence's edges.
func tableProbes(t *Table) []uint64 {
	var probes []uint64
	for s := range t.Sequences() {
		probes = append(probes, s.Low-1, s.Low, s.High-1, s.High)
		for r := range t.Rows(s) {
			probes = append(probes, r.Address-1, r.Address, r.Address+1)
		}
	}
	slices.Sort(probes)
	return slices.Compact(probes)
}

// TestTableKeepFixtures: on every unit of every fixture, a Table that keeps
// the rows of a sample of addresses answers them, and then every other
// address, as the whole Table does.
func TestTableKeepFixtures(t *testing.T) {
	units, dropped, lookups := 0, 0, 0
	for _, fx := range elfFixtures(t) {
		if fx.rel {
			continue // Keep does not apply per section
		}
		for _, off := range unitOffsets(t, fx.line, &fx.opts) {
			whole, _ := NewTable(fx.line, off, &fx.opts)
			if whole == nil {
				continue
			}
			probes := tableProbes(whole)
			rng := rand.New(rand.NewPCG(uint64(off), 11))
			var keep []uint64
			for _, pc := range probes {
				if rng.IntN(16) == 0 {
					keep = append(keep, pc)
				}
			}
			if len(probes) > 4096 {
				rng.Shuffle(len(probes), func(i, j int) { probes[i], probes[j] = probes[j], probes[i] })
				probes = probes[:4096]
			}
			if checkKeep(t, fx.line, off, &fx.opts, keep, probes) {
				dropped++
			}
			// No address kept: every row dropped, and the first lookup
			// builds the whole Table.
			checkKeep(t, fx.line, off, &fx.opts, []uint64{}, probes[:min(len(probes), 64)])
			units++
			lookups += len(keep) + len(probes)
		}
	}
	if units == 0 || dropped == 0 {
		t.Fatalf("%d units checked, %d of them with rows dropped", units, dropped)
	}
	t.Logf("%d units, %d with rows dropped, %d lookups", units, dropped, lookups)
}

// TestTableKeepShapes: overlapping, empty and out-of-order sequences, each
// address kept alone and then all of them in turn.
func TestTableKeepShapes(t *testing.T) {
	h := twoFileHeader(4)
	seq := func(lo, hi uint64, line uint32) []Row {
		var rows []Row
		for a := lo; a < hi; a += 0x20 {
			rows = append(rows, Row{Address: a, File: 1 + uint32(a/0x20%2), Line: line, IsStmt: true})
			line++
		}
		return append(rows, Row{Address: hi, File: 1, Line: line, IsStmt: true, EndSequence: true})
	}
	var rows []Row
	rows = append(rows, seq(0x1000, 0x1400, 10)...) // holds the next two
	rows = append(rows, seq(0x1100, 0x1200, 100)...)
	rows = append(rows, seq(0x1180, 0x1300, 200)...)
	rows = append(rows, seq(0x2000, 0x2000, 300)...) // empty: dropped
	rows = append(rows, seq(0x3000, 0x3300, 400)...)
	out, err := Assemble(&h, rows, &AsmOptions{})
	if err != nil {
		t.Fatal(err)
	}
	opts := &Options{AddressSize: 8}
	var probes []uint64
	for pc := uint64(0xff0); pc < 0x3310; pc += 0x8 {
		probes = append(probes, pc, pc+1)
	}
	for _, pc := range probes {
		checkKeep(t, out.Line, out.Offset, opts, []uint64{pc}, probes)
	}
	// A sequence out of address order is kept whole, or not at all.
	asm := unsortedProgram(t, 3*rowBlock+2, 12)
	var all []uint64
	for pc := uint64(0); pc < 0x1100; pc++ {
		all = append(all, pc)
	}
	for _, keep := range [][]uint64{{0x10}, {0x1001}, {0x1031}, {0x10, 0x1050}} {
		checkKeep(t, asm.Line, 0, asm.Options(), keep, all)
	}
	tab, _ := NewTable(asm.Line, 0, &Options{Keep: []uint64{0x1031}})
	if len(tab.unsorted) != 1 || tab.keptPart() == nil || len(tab.enc) == 0 {
		t.Fatalf("table keeping 0x1031: %d unsorted sequences, kept %v, %d bytes", len(tab.unsorted), tab.keptPart() != nil, len(tab.enc))
	}
	if s := tab.seqs[0]; s.blk0 != droppedSeq {
		t.Fatalf("sequence %#x-%#x kept (blk0 %#x)", s.Low, s.High, s.blk0)
	}
}

// TestTableKeepUnordered: Keep out of ascending order keeps less than it
// could (sequences it seems to miss are not packed), never an answer.
func TestTableKeepUnordered(t *testing.T) {
	fixtures := elfFixtures(t)
	fx := fixtures[len(fixtures)/2]
	for _, off := range unitOffsets(t, fx.line, &fx.opts) {
		whole, _ := NewTable(fx.line, off, &fx.opts)
		if whole == nil {
			continue
		}
		probes := tableProbes(whole)
		keep := slices.Clone(probes)
		slices.Reverse(keep)
		o := fx.opts
		o.Keep = keep[:len(keep)/3]
		tab, err := NewTable(fx.line, off, &o)
		if err != nil {
			t.Fatal(err)
		}
		for _, pc := range probes {
			r1, e1, ok1 := tab.LookupRange(pc)
			r2, e2, ok2 := whole.LookupRange(pc)
			if r1 != r2 || e1 != e2 || ok1 != ok2 {
				t.Fatalf("%s, unit %#x: LookupRange(%#x) = %+v %#x %v, without Keep %+v %#x %v", fx.name, off, pc, r1, e1, ok1, r2, e2, ok2)
			}
		}
	}
}

// TestTableKeepAgainFails: when Again fails, the rows dropped answer
// nothing, and the rows kept still answer.
func TestTableKeepAgainFails(t *testing.T) {
	h := twoFileHeader(4)
	rows := []Row{
		{Address: 0x1000, File: 1, Line: 1, IsStmt: true},
		{Address: 0x1010, File: 1, Line: 2, IsStmt: true},
		{Address: 0x1020, File: 1, Line: 3, IsStmt: true, EndSequence: true},
		{Address: 0x2000, File: 2, Line: 7, IsStmt: true},
		{Address: 0x2020, File: 2, Line: 8, IsStmt: true, EndSequence: true},
	}
	out, err := Assemble(&h, rows, &AsmOptions{})
	if err != nil {
		t.Fatal(err)
	}
	opts := &Options{AddressSize: 8, Keep: []uint64{0x1014}, Again: func(func([]byte)) error { return errors.New("gone") }}
	tab, err := NewTable(out.Line, out.Offset, opts)
	if err != nil {
		t.Fatal(err)
	}
	if r, ok := tab.Lookup(0x1014); !ok || r.Line != 2 {
		t.Fatalf("Lookup(0x1014) = %+v %v, want line 2", r, ok)
	}
	if r, ok := tab.Lookup(0x2004); ok {
		t.Fatalf("Lookup(0x2004) = %+v, want nothing (Again failed)", r)
	}
	if r, ok := tab.Lookup(0x1004); !ok || r.Line != 1 {
		t.Fatalf("Lookup(0x1004) = %+v %v, want line 1 (the kept block)", r, ok)
	}
}

// checkLazyFiles compares NewTable with Options.LazyFiles with NewTable
// without it: the same error, rows and header (Header decodes the tables
// then), and FilePaths the paths of Header().FilePath before and after
// that. It returns whether the tables were left to decode.
func checkLazyFiles(t *testing.T, data []byte, off uint64, opts *Options) (lazy bool) {
	t.Helper()
	eager, eerr := NewTable(data, off, opts)
	o := *optsOrZero(opts)
	o.LazyFiles = true
	tab, err := NewTable(data, off, &o)
	if (tab == nil) != (eager == nil) || (err == nil) != (eerr == nil) || (err != nil && err.Error() != eerr.Error()) {
		t.Fatalf("unit %#x: with LazyFiles %v (table %v), without %v (table %v)", off, err, tab != nil, eerr, eager != nil)
	}
	if tab == nil {
		return false
	}
	lazy = tab.files != nil
	if lazy && (tab.h.Files != nil || tab.h.Dirs != nil) {
		t.Fatalf("unit %#x: tables left to decode, yet %d dirs and %d files kept", off, len(tab.h.Dirs), len(tab.h.Files))
	}
	paths := func(tb *Table, dir string) (p []string, ok []bool) {
		for s, k := range tb.FilePaths(dir) {
			p, ok = append(p, s), append(ok, k)
		}
		return p, ok
	}
	h := eager.Header()
	for _, dir := range []string{"", "/comp/dir", "rel"} {
		var want []string
		var wok []bool
		for i := range h.Files {
			s, k := h.FilePath(uint64(i), dir)
			want, wok = append(want, s), append(wok, k)
		}
		for round := range 2 {
			got, gok := paths(tab, dir)
			if !slices.Equal(got, want) || !slices.Equal(gok, wok) {
				t.Fatalf("unit %#x, comp dir %q, round %d: FilePaths %q %v, Header's %q %v", off, dir, round, got, gok, want, wok)
			}
			if round == 0 && dir == "" && lazy && (tab.h.Files != nil || tab.files.done.Load()) {
				t.Fatalf("unit %#x: FilePaths kept the tables", off)
			}
			if !reflect.DeepEqual(tab.Header(), h) {
				t.Fatalf("unit %#x: header %+v, without LazyFiles %+v", off, tab.Header(), h)
			}
		}
	}
	for s := range eager.Sequences() {
		if !slices.Equal(slices.Collect(tab.Rows(s)), slices.Collect(eager.Rows(s))) {
			t.Fatalf("unit %#x: rows of %#x-%#x differ", off, s.Low, s.High)
		}
	}
	return lazy
}

// TestTableLazyFiles: on every unit of every fixture, a Table that leaves
// its directory and file tables to decode answers, names files and gives
// its header as one that decodes them at once.
func TestTableLazyFiles(t *testing.T) {
	units, lazy := 0, 0
	for _, fx := range elfFixtures(t) {
		for _, off := range unitOffsets(t, fx.line, &fx.opts) {
			if checkLazyFiles(t, fx.line, off, &fx.opts) {
				lazy++
			}
			units++
		}
	}
	if lazy == 0 {
		t.Fatalf("%d units, none left its tables to decode", units)
	}
	t.Logf("%d units, %d left their tables to decode", units, lazy)
	// A define_file in the program: decoded at once, the header's files
	// followed by the one it adds.
	h := twoFileHeader(4)
	a, err := NewAssembler(&h, nil)
	if err != nil {
		t.Fatal(err)
	}
	a.SetAddress(0x1000)
	a.Raw([]byte{0, 7, byte(OpDefineFile), 'f', '9', 0, 0, 0, 0})
	a.Copy()
	a.AdvancePC(4)
	a.EndSequence()
	out := a.Finish()
	tab, err := NewTable(out.Line, 0, &Options{LazyFiles: true})
	if err != nil || tab.files != nil || len(tab.Header().Files) != 4 || tab.Header().Files[3].Name != "f9" {
		t.Fatalf("define_file: %v, lazy %v, files %+v", err, tab.files != nil, tab.Header().Files)
	}
	checkLazyFiles(t, out.Line, 0, nil)
}

// TestTableLazyFilesConcurrent: Header and FilePaths from several
// goroutines at once (for the race detector) give one header.
func TestTableLazyFilesConcurrent(t *testing.T) {
	for _, fx := range elfFixtures(t) {
		offs := unitOffsets(t, fx.line, &fx.opts)
		if len(offs) == 0 {
			continue
		}
		o := fx.opts
		o.LazyFiles = true
		tab, err := NewTable(fx.line, offs[0], &o)
		if err != nil || tab.files == nil {
			continue
		}
		var wg sync.WaitGroup
		hs := make([]*Header, 4)
		for g := range hs {
			wg.Go(func() {
				for range tab.FilePaths("/x") {
				}
				hs[g] = tab.Header()
				for range tab.FilePaths("") {
				}
			})
		}
		wg.Wait()
		for _, h := range hs[1:] {
			if h != hs[0] || len(h.Files) == 0 {
				t.Fatalf("%s: headers %p and %p, %d files", fx.name, hs[0], h, len(h.Files))
			}
		}
		return
	}
	t.Fatal("no fixture unit left its tables to decode")
}
