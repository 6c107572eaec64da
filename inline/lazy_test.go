package inline

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"testing"
	"unsafe"

	"github.com/symbolize-go/symbolize/internal/dwinfo"
	"github.com/symbolize-go/symbolize/linetable"
)

// TestLazyMatchesWhole: on every unit of every fixture, a lazy Index
// answers every address as the whole-unit Build does: the same frames,
// the same subroutine DIE, and a reuse range inside the whole-unit one
// that holds the address. The addresses are every span edge of the
// whole-unit map (its start, last byte and end) and samples of every
// function symbol, asked in address order of one lazy Index and in a
// random order of another, so that trees are read in both orders.
func TestLazyMatchesWhole(t *testing.T) {
	var units, lazyUnits, escaped, pcs, pending int
	for _, path := range fixtures(t) {
		o, ok := openObject(t, path)
		if !ok {
			continue
		}
		hs, err := o.d.Headers()
		if err != nil {
			continue
		}
		syms := samplePCs(funcSyms(o.f), 20000)
		for _, h := range hs {
			u, err := o.d.LoadUnit(h)
			if err != nil {
				continue
			}
			units++
			opts := &Options{LineTable: o.table}
			whole, werr := Build(o.d, u, o.table(u), opts)
			lopts := &Options{LineTable: o.table, Lazy: true, LazyMinSize: 1}
			var warned []error
			lopts.Warn = func(err error) { warned = append(warned, err) }
			lazy1, lerr := Build(o.d, u, o.table(u), lopts)
			lazy2, _ := Build(o.d, u, o.table(u), lopts)
			// Options.Lines in place of lt: asked for once, late, by
			// the lazy and the whole-unit Build alike.
			var asked int
			lines := func() *linetable.Table { asked++; return o.table(u) }
			l3 := *lopts
			l3.Lines = lines
			lazy3, _ := Build(o.d, u, nil, &l3)
			w3 := *opts
			w3.Lines = lines
			whole3, _ := Build(o.d, u, nil, &w3)
			if asked != 2 {
				t.Fatalf("%s: unit %#x: Options.Lines called %d times by two Builds", path, h.Offset, asked)
			}
			if (werr == nil) != (lerr == nil) && lerr != nil {
				t.Errorf("%s: unit %#x: lazy Build error %v, whole-unit %v", path, h.Offset, lerr, werr)
			}
			if lazy1.lz != nil {
				lazyUnits++
			}
			var list []uint64
			wlo, whi := whole.spanLo(), whole.spanHi()
			for i := range wlo {
				list = append(list, wlo[i], whi[i]-1, whi[i])
			}
			list = append(list, syms...)
			slices.Sort(list)
			list = slices.Compact(list)
			shuffled := slices.Clone(list)
			rand.New(rand.NewPCG(1, uint64(h.Offset))).Shuffle(len(shuffled), func(i, j int) {
				shuffled[i], shuffled[j] = shuffled[j], shuffled[i]
			})
			var a, b []Frame
			check := func(ix *Index, pc uint64) {
				pcs++
				var alo, ahi, blo, bhi uint64
				a, alo, ahi = whole.AppendChainRange(a[:0], pc, 0)
				b, blo, bhi = ix.AppendChainRange(b[:0], pc, 0)
				if !slices.Equal(a, b) {
					t.Fatalf("%s: unit %#x at %#x: lazy %+v, whole-unit %+v", path, h.Offset, pc, b, a)
				}
				if blo > pc || bhi <= pc || blo < alo || bhi > ahi {
					t.Fatalf("%s: unit %#x at %#x: lazy range [%#x, %#x), whole-unit [%#x, %#x)", path, h.Offset, pc, blo, bhi, alo, ahi)
				}
				wd, wok := whole.Subroutine(pc)
				ld, lok := ix.Subroutine(pc)
				if wd != ld || wok != lok {
					t.Fatalf("%s: unit %#x at %#x: lazy subroutine %#x %v, whole-unit %#x %v", path, h.Offset, pc, ld, lok, wd, wok)
				}
			}
			for _, pc := range list {
				check(lazy1, pc)
			}
			// From a Hint, walking the addresses up as Batch does, then
			// each from a Hint left at another span: the whole-unit
			// Index and a lazy one answer as AppendChainRange does.
			var hw, hl Hint
			for k, pc := range list {
				for _, c := range []struct {
					ix *Index
					h  *Hint
				}{{whole, &hw}, {lazy1, &hl}} {
					if k%5 == 4 {
						c.h.span = int(pc % 97)
					}
					var alo, ahi, blo, bhi uint64
					a, alo, ahi = c.ix.AppendChainRange(a[:0], pc, 0)
					b, blo, bhi = c.ix.AppendChainFrom(b[:0], pc, 0, c.h)
					if !slices.Equal(a, b) || alo != blo || ahi != bhi {
						t.Fatalf("%s: unit %#x at %#x: from a Hint %+v [%#x, %#x), without %+v [%#x, %#x)", path, h.Offset, pc, b, blo, bhi, a, alo, ahi)
					}
				}
			}
			for _, pc := range shuffled {
				// The innermost frame first (--no-inlines), which names
				// that node alone, then the chain.
				b, _, _ = lazy2.AppendChainRange(b[:0], pc, 1)
				if a = whole.AppendChain(a[:0], pc); len(a) > 1 {
					a = a[:1]
				}
				if !slices.Equal(a, b) {
					t.Fatalf("%s: unit %#x at %#x: lazy innermost %+v, whole-unit %+v", path, h.Offset, pc, b, a)
				}
				check(lazy2, pc)
			}
			for _, pc := range list {
				check(lazy3, pc)
				check(whole3, pc)
			}
			if lz := lazy1.lz; lz != nil {
				for i := range lz.roots {
					if c := lz.roots[i].ch.Load(); c != nil {
						for n := range int32(c.nodeCount()) {
							if c.isPending(n) {
								pending++
							}
						}
					}
				}
			}
			if lazy1.lz != nil && lazy1.lz.escaped.Load() {
				escaped++
				t.Logf("%s: unit %#x: a tree left its function's ranges", path, h.Offset)
			}
		}
	}
	t.Logf("%d units (%d lazy, %d escaped), %d lookups, %d nodes never named", units, lazyUnits, escaped, pcs, pending)
	if pending == 0 {
		t.Error("every node of every tree read was named: resolveLazy deferred nothing")
	}
}

// TestLazyConcurrent: goroutines that look up the addresses of one lazy
// Index at once, each in its own order, read every tree once and get the
// whole-unit answers (run it with -race).
func TestLazyConcurrent(t *testing.T) {
	o, ok := openObject(t, "../testdata/elf/cpp-gcc-O3")
	if !ok {
		t.Skip("fixture missing")
	}
	hs, _ := o.d.Headers()
	for _, h := range hs {
		u, err := o.d.LoadUnit(h)
		if err != nil {
			continue
		}
		whole, _ := Build(o.d, u, o.table(u), &Options{LineTable: o.table})
		wlo := whole.spanLo()
		if len(wlo) == 0 {
			continue
		}
		tab := o.table(u)
		lazy, _ := Build(o.d, u, tab, &Options{Lazy: true, LazyMinSize: 1})
		want := make([][]Frame, len(wlo))
		for i, pc := range wlo {
			want[i] = whole.AppendChain(nil, pc)
		}
		errs := make(chan string, 4)
		for g := range 4 {
			go func() {
				order := rand.New(rand.NewPCG(uint64(g), 7)).Perm(len(wlo))
				var fs []Frame
				for _, i := range order {
					fs = lazy.AppendChain(fs[:0], wlo[i])
					if !slices.Equal(fs, want[i]) {
						errs <- "differs"
						return
					}
				}
				errs <- ""
			}()
		}
		for range 4 {
			if e := <-errs; e != "" {
				t.Fatalf("unit %#x: a concurrent lookup %s from the whole-unit answer", h.Offset, e)
			}
		}
	}
}

// TestLazySynth covers the cases a lazy Index hands to the whole-unit map
// (lazy.go) on synthetic units, each checked at every address against the
// whole-unit Build: overlapping functions (a conflict span), a subprogram
// nested in another with ranges of its own, an inlined subroutine whose
// range leaves its function's (the Index switches to the whole-unit map),
// and ranges below a function without any (Build reads the unit whole).
func TestLazySynth(t *testing.T) {
	name := func(s string) tattr { return str(dwinfo.AttrName, s) }
	cases := []struct {
		name    string
		root    *tdie
		lazy    bool // Build keeps it lazy
		escapes bool // reading a tree switches to the whole-unit map
	}{
		{"overlap", cu(
			&tdie{tag: dwinfo.TagSubprogram, attrs: attrs([]tattr{name("f")}, pcRange(0x10, 0x30)), kids: []*tdie{
				{tag: dwinfo.TagInlinedSubroutine, attrs: attrs([]tattr{name("g")}, pcRange(0x14, 0x18))}}},
			&tdie{tag: dwinfo.TagSubprogram, attrs: attrs([]tattr{name("h")}, pcRange(0x20, 0x40))},
			&tdie{tag: dwinfo.TagSubprogram, attrs: attrs([]tattr{name("k")}, pcRange(0x50, 0x60)), kids: []*tdie{
				{tag: dwinfo.TagInlinedSubroutine, attrs: attrs([]tattr{name("m")}, pcRange(0x52, 0x58))}}},
		), true, false},
		{"nested", cu(
			&tdie{tag: dwinfo.TagSubprogram, attrs: attrs([]tattr{name("outer")}, pcRange(0x10, 0x30)), kids: []*tdie{
				{tag: dwinfo.TagLexicalBlock, kids: []*tdie{
					{tag: dwinfo.TagSubprogram, attrs: attrs([]tattr{name("local")}, pcRange(0x100, 0x120)), kids: []*tdie{
						{tag: dwinfo.TagInlinedSubroutine, attrs: attrs([]tattr{name("in-local")}, pcRange(0x104, 0x108))}}}}},
				{tag: dwinfo.TagInlinedSubroutine, attrs: attrs([]tattr{name("in-outer")}, pcRange(0x12, 0x16))}}},
		), true, false},
		{"escape", cu(
			&tdie{tag: dwinfo.TagSubprogram, attrs: attrs([]tattr{name("f")}, pcRange(0x10, 0x20)), kids: []*tdie{
				{tag: dwinfo.TagInlinedSubroutine, attrs: attrs([]tattr{name("stray")}, pcRange(0x1c, 0x34))}}},
			&tdie{tag: dwinfo.TagSubprogram, attrs: attrs([]tattr{name("g")}, pcRange(0x30, 0x40))},
		), true, true},
		{"rangeless-in-root", cu(
			&tdie{tag: dwinfo.TagSubprogram, attrs: attrs([]tattr{name("f")}, pcRange(0x10, 0x30)), kids: []*tdie{
				{tag: dwinfo.TagSubprogram, attrs: []tattr{name("decl")}, kids: []*tdie{
					{tag: dwinfo.TagInlinedSubroutine, attrs: attrs([]tattr{name("coded")}, pcRange(0x14, 0x18))}}}}},
		), false, false},
		{"declarations", cu(
			&tdie{tag: dwinfo.TagStructureType, attrs: []tattr{name("C")}, kids: []*tdie{
				{tag: dwinfo.TagSubprogram, attrs: []tattr{name("m1")}, kids: []*tdie{{tag: dwinfo.TagFormalParameter}}},
				{tag: dwinfo.TagSubprogram, attrs: []tattr{name("m2")}, kids: []*tdie{{tag: dwinfo.TagFormalParameter}}}}},
			&tdie{tag: dwinfo.TagSubprogram, attrs: attrs([]tattr{name("f")}, pcRange(0x10, 0x30)), kids: []*tdie{
				{tag: dwinfo.TagInlinedSubroutine, attrs: attrs([]tattr{name("g")}, pcRange(0x14, 0x18)), kids: []*tdie{
					{tag: dwinfo.TagInlinedSubroutine, attrs: attrs([]tattr{name("h")}, pcRange(0x15, 0x16))}}}}},
			&tdie{tag: dwinfo.TagSubprogram, attrs: attrs([]tattr{name("k")}, pcRange(0x40, 0x50))},
		), true, false},
		{"rangeless", cu(
			&tdie{tag: dwinfo.TagSubprogram, attrs: []tattr{name("abstract")}, kids: []*tdie{
				{tag: dwinfo.TagInlinedSubroutine, attrs: attrs([]tattr{name("coded")}, pcRange(0x10, 0x20))}}},
		), false, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d, u := loadSynth(t, c.root)
			scanBoth(t, d, u, c.name)
			whole, _ := Build(d, u, nil, nil)
			lazy, _ := Build(d, u, nil, &Options{Lazy: true, LazyMinSize: 1})
			if (lazy.lz != nil) != c.lazy {
				t.Fatalf("lazy Index: %v, want %v", lazy.lz != nil, c.lazy)
			}
			var a, b []Frame
			for pc := uint64(0); pc < 0x130; pc++ {
				a = whole.AppendChain(a[:0], pc)
				b = lazy.AppendChain(b[:0], pc)
				if !slices.Equal(a, b) {
					t.Fatalf("at %#x: lazy %s, whole-unit %s", pc, describe(b), describe(a))
				}
			}
			if got := lazy.lz != nil && lazy.lz.escaped.Load(); got != c.escapes {
				t.Errorf("escaped %v, want %v", got, c.escapes)
			}
		})
	}
}

// TestScanCodes: on every unit of every fixture, the scan that has the
// reader return only the subroutines that can change what it records
// (scanSets) finds the roots, ranges, subtree ends and errors of the scan
// that sees every subroutine DIE, or gives up on laziness where that one
// does.
func TestScanCodes(t *testing.T) {
	units, bySet := 0, 0
	eachUnit(t, func(path string, o *object, h dwinfo.Header, u *dwinfo.Unit) {
		units++
		if _, ok := scanCodes(u); ok {
			bySet++
		}
		scanBoth(t, o.d, u, path)
	})
	t.Logf("%d units, %d scanned by code sets", units, bySet)
}

// scanBoth runs the scan both ways on u and fails where they differ. A
// scan by sets may give up where the other does not (an inlined
// subroutine outside functions, below depth 1) but not the reverse.
func scanBoth(t *testing.T, d *dwinfo.Data, u *dwinfo.Unit, name string) {
	t.Helper()
	type result struct {
		spans  []topSpan
		roots  [][2]uint64
		stopAt uint64
		err    string
		ok     bool
	}
	run := func(byTag bool) result {
		lz := &lazyIndex{stopAt: ^uint64(0), strs: newStrTable(), others: map[uint64]*unitInfo{}, recIdx: map[uint64]int32{}}
		b := newBuilderAt(d, u, nil, &Options{}, u.DIEOffset, u.DIEOffset, nil)
		spans, err, ok := b.scan(lz, byTag)
		b.release()
		r := result{spans: spans, stopAt: lz.stopAt, ok: ok}
		if err != nil {
			r.err = err.Error()
		}
		for i := range lz.roots {
			r.roots = append(r.roots, [2]uint64{lz.roots[i].off, lz.roots[i].end})
		}
		return r
	}
	a, b := run(true), run(false)
	if !b.ok && a.ok {
		t.Logf("%s: unit %#x: the scan by sets gave up, the scan by tags did not", name, u.Offset)
		return
	}
	if a.ok != b.ok || a.stopAt != b.stopAt || a.err != b.err || !slices.Equal(a.spans, b.spans) || !slices.Equal(a.roots, b.roots) {
		t.Errorf("%s: unit %#x: by sets ok %v stop %#x err %q, %d spans, %d roots; by tags ok %v stop %#x err %q, %d spans, %d roots",
			name, u.Offset, b.ok, b.stopAt, b.err, len(b.spans), len(b.roots), a.ok, a.stopAt, a.err, len(a.spans), len(a.roots))
	}
}

// TestLazyNames: a tree of a lazy Index describes a node when a lookup
// first returns it, unless the node's DIE refers into the tree itself,
// which is described as the tree is read; a reference that leads back
// into the tree from outside has the tree read again. Each case is
// checked at every address against the whole-unit Build, and against a
// lazy Index that describes every node as it reads a tree.
func TestLazyNames(t *testing.T) {
	name := func(s string) tattr { return str(dwinfo.AttrName, s) }
	origin := func(l string) tattr { return ref(dwinfo.AttrAbstractOrigin, l) }
	into := func(at dwinfo.Attr, l string, v uint64) tattr { r := ref(at, l); r.v = v; return r }
	cases := []struct {
		name string
		root *tdie
		// after the first lookup, at pc, whether each node of the tree
		// (in the walk's order: a parent first) is pending; walks is how
		// many times the checks read a tree again.
		pc      uint64
		pending []bool
		walks   int64
	}{
		{"deferred", cu(
			&tdie{label: "gA", tag: dwinfo.TagSubprogram, attrs: []tattr{name("g")}},
			&tdie{label: "hA", tag: dwinfo.TagSubprogram, attrs: []tattr{name("h")}},
			&tdie{tag: dwinfo.TagSubprogram, attrs: attrs([]tattr{name("f")}, pcRange(0x10, 0x30)), kids: []*tdie{
				{tag: dwinfo.TagInlinedSubroutine, attrs: attrs([]tattr{origin("gA")}, pcRange(0x12, 0x14))},
				{tag: dwinfo.TagInlinedSubroutine, attrs: attrs([]tattr{origin("hA")}, pcRange(0x20, 0x24))}}},
		), 0x12, []bool{false, false, true}, 0},
		{"origin-in-tree", cu(
			&tdie{tag: dwinfo.TagSubprogram, attrs: attrs([]tattr{name("f")}, pcRange(0x10, 0x30)), kids: []*tdie{
				{label: "d", tag: dwinfo.TagSubprogram, attrs: []tattr{name("local")}},
				{tag: dwinfo.TagInlinedSubroutine, attrs: attrs([]tattr{origin("d")}, pcRange(0x20, 0x24))}}},
		), 0x12, []bool{false, false}, 0},
		{"back-into-tree", cu(
			&tdie{label: "A", tag: dwinfo.TagSubprogram, attrs: []tattr{ref(dwinfo.AttrSpecification, "d")}},
			&tdie{tag: dwinfo.TagSubprogram, attrs: attrs([]tattr{name("f")}, pcRange(0x10, 0x30)), kids: []*tdie{
				{label: "d", tag: dwinfo.TagSubprogram, attrs: []tattr{name("declared-inside")}},
				{tag: dwinfo.TagInlinedSubroutine, attrs: attrs([]tattr{origin("A")}, pcRange(0x20, 0x24))}}},
		), 0x12, []bool{false, true}, 1},
		{"back-into-tree-not-a-DIE", cu(
			&tdie{label: "A", tag: dwinfo.TagSubprogram, attrs: []tattr{into(dwinfo.AttrSpecification, "d", 1), name("a")}},
			&tdie{tag: dwinfo.TagSubprogram, attrs: attrs([]tattr{name("f")}, pcRange(0x10, 0x30)), kids: []*tdie{
				{label: "d", tag: dwinfo.TagSubprogram, attrs: []tattr{name("declared-inside")}},
				{tag: dwinfo.TagInlinedSubroutine, attrs: attrs([]tattr{origin("A")}, pcRange(0x20, 0x24))}}},
		), 0x12, []bool{false, true}, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d, u := loadSynth(t, c.root)
			whole, _ := Build(d, u, nil, nil)
			deferNames = false
			eager, _ := Build(d, u, nil, &Options{Lazy: true, LazyMinSize: 1})
			deferNames = true
			lazy, _ := Build(d, u, nil, &Options{Lazy: true, LazyMinSize: 1})
			if lazy.lz == nil || !eager.lz.eager || lazy.lz.eager {
				t.Fatal("not the lazy Indexes asked for")
			}
			walks := namedByWalk.Load()
			var a, b []Frame
			b = lazy.AppendChain(b[:0], c.pc)
			if a = whole.AppendChain(a[:0], c.pc); !slices.Equal(a, b) {
				t.Fatalf("at %#x: lazy %s, whole-unit %s", c.pc, describe(b), describe(a))
			}
			fn := -1
			ch, _, _ := lazy.lz.chainsOf(c.pc, &fn)
			if ch.nodeCount() != len(c.pending) {
				t.Fatalf("%d nodes, want %d", ch.nodeCount(), len(c.pending))
			}
			for n, want := range c.pending {
				if got := ch.isPending(int32(n)); got != want {
					t.Errorf("node %d: pending %v, want %v", n, got, want)
				}
			}
			for pc := uint64(0); pc < 0x40; pc++ {
				a = whole.AppendChain(a[:0], pc)
				b = lazy.AppendChain(b[:0], pc)
				e := eager.AppendChain(nil, pc)
				if !slices.Equal(a, b) || !slices.Equal(a, e) {
					t.Fatalf("at %#x: lazy %s, eager %s, whole-unit %s", pc, describe(b), describe(e), describe(a))
				}
			}
			for n := range int32(ch.nodeCount()) {
				if ch.isPending(n) {
					t.Errorf("node %d still pending after every address", n)
				}
			}
			if got := namedByWalk.Load() - walks; got != c.walks {
				t.Errorf("tree read again %d times, want %d", got, c.walks)
			}
		})
	}
}

// TestLazyPassed: the scan of a lazy Build hands Options.Passed the DIEs
// it has passed, as passedBuild checks (a 16 KiB step here), and never
// reads them again: the Index answers every address as the whole-unit
// Build does.
func TestLazyPassed(t *testing.T) {
	defer func(s uint64) { passedStep = s }(passedStep)
	passedStep = 16 << 10
	var units, calls int
	syms := map[string][]uint64{}
	eachUnit(t, func(path string, o *object, h dwinfo.Header, u *dwinfo.Unit) {
		if u.End-u.DIEOffset < 4*passedStep {
			return
		}
		if syms[path] == nil {
			syms[path] = samplePCs(funcSyms(o.f), 2000)
		}
		whole, _ := Build(o.d, u, o.table(u), &Options{LineTable: o.table})
		lazy, n := passedBuild(t, o.d, u, o.secs.Info, bytes.Clone(o.secs.Info), o.table)
		if lazy.lz == nil {
			return // read whole: no scan
		}
		if calls += n; n > 1 {
			units++
		}
		var a, b []Frame
		for _, pc := range append(whole.spanLo(), syms[path]...) {
			a = whole.AppendChain(a[:0], pc)
			b = lazy.AppendChain(b[:0], pc)
			if !slices.Equal(a, b) {
				t.Fatalf("%s: unit %#x at %#x: lazy %+v, whole-unit %+v", path, h.Offset, pc, b, a)
			}
		}
	})
	if units < 2 {
		t.Fatalf("%d units handed to Passed more than once: too few to test", units)
	}
	t.Logf("%d units handed to Passed more than once, %d calls", units, calls)
}

// passedBuild builds u lazily from d, whose .debug_info is info (orig
// holds the same bytes), with a Passed that requires the DIEs it is
// handed to come in order, contiguous from the unit's first, each at least
// passedStep bytes and within the unit (the last ones, after the last
// subroutine the scan stops at, are not handed over), and overwrites
// them: a scan that read one again would answer otherwise. info is
// restored from orig once Build returns. It returns the Index and how
// many times Passed was called.
func passedBuild(t testing.TB, d *dwinfo.Data, u *dwinfo.Unit, info, orig []byte, lineTable func(*dwinfo.Unit) *linetable.Table) (*Index, int) {
	t.Helper()
	next, calls := u.DIEOffset, 0
	var lt *linetable.Table
	if lineTable != nil {
		lt = lineTable(u)
	}
	ix, _ := Build(d, u, lt, &Options{LineTable: lineTable, Lazy: true, LazyMinSize: 1, Warn: func(error) {}, Passed: func(dies []byte) {
		calls++
		off := uint64(uintptr(unsafe.Pointer(unsafe.SliceData(dies))) - uintptr(unsafe.Pointer(unsafe.SliceData(info))))
		if off != next || uint64(len(dies)) < passedStep || off+uint64(len(dies)) > u.End {
			t.Fatalf("unit %#x: passed [%#x, %#x), want from %#x, at least %d bytes, within [%#x, %#x)",
				u.Offset, off, off+uint64(len(dies)), next, passedStep, u.DIEOffset, u.End)
		}
		next += uint64(len(dies))
		for i := range dies {
			dies[i] = 0xa5
		}
	}})
	copy(info[u.DIEOffset:u.End], orig[u.DIEOffset:u.End])
	return ix, calls
}
