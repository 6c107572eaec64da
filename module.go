package symbolize

import (
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/symbolize-go/symbolize/inline"
	"github.com/symbolize-go/symbolize/internal/buf"
	"github.com/symbolize-go/symbolize/internal/dw"
	"github.com/symbolize-go/symbolize/internal/dwinfo"
	"github.com/symbolize-go/symbolize/linetable"
)

// dwarfModule is one file's DWARF: its sections, the address index over
// its units, and each unit's line table and inline index, built on first
// use. It is the layer answers are composed from: an ELF binary or its
// debug file is one module, a Mach-O image or its dSYM another, and each
// object file of a Mach-O debug map is a module of its own. A module is
// safe for concurrent use.
type dwarfModule struct {
	data    *dwinfo.Data
	index   *dwinfo.Index
	line    *buf.Lazy // nil without .debug_line
	info    *buf.Lazy // the same bytes dwinfo reads (both fetch from one cache)
	lineStr []byte
	str     []byte
	addr    []byte // .debug_addr and .debug_ranges, which split units read too
	ranges  []byte
	// rnglists is .debug_rnglists, for handBack.
	rnglists []byte
	big      bool
	units    sync.Map       // .debug_info offset -> *unitState
	strs     inline.Strings // the names and paths of every unit's inline index
	recent   [64]atomic.Pointer[unitState]

	aheadOnce sync.Once
	lineRel   lineRelease // a bulk module's .debug_line, given back (linerelease.go)
	// ahead, when set, starts building what lookups will need besides
	// the DWARF (the binary's symbol table, or pc's symbol) on another
	// goroutine, once after is closed (at once when nil).
	ahead func(after <-chan struct{}, pc uint64)
	// oneTable is set once a unit took a one-sequence line table;
	// speculated once a lookup ran speculate.
	oneTable, speculated atomic.Bool
	// sparse is set while the batches so far have had few addresses
	// for the size of .debug_info (see noteBatch): units are then read
	// lazily whatever their size. batched counts those addresses.
	sparse  atomic.Bool
	batched atomic.Uint64
	// keep, while set, is the current sparse batch's addresses, sorted,
	// whose rows the line tables built meanwhile keep (noteBatch).
	keep atomic.Pointer[[]uint64]
	// again is .debug_line inflated anew, for the tables that need rows
	// they dropped once .debug_line was given back (rebuildLines).
	againOnce sync.Once
	again     *buf.Lazy
	againErr  error
	// bulk: loaded for a bulk batch, its lazy sections inflated whole
	// by loadModule.
	bulk  bool
	warns *warnList
	// evict, when set, takes the pages of the module's mapped files out
	// of the resident set once units of unitEvictBytes of DIEs have had
	// their indexes built since it last did (Binary.evict); evictDue
	// counts those bytes.
	evict    func()
	evictDue atomic.Uint64
	// handBack, when set, takes the pages of bytes read once out of the
	// resident set (Binary.handBack).
	handBack func(once []byte)

	// split finds the split units of skeleton units (split DWARF); nil
	// where there are none to find (Mach-O).
	split *splitter

	// sup is the supplementary file of a dwz-processed module, found on
	// first use (module_sup.go); nil where there is none to find.
	sup *supplementary

	// obj is the source when it is a relocatable object whose line
	// tables answer per section (source.go); nil otherwise.
	obj objectSource
}

// An objectSource may be a relocatable object (source.go), whose sections
// all start at 0: lineSections gives its line tables' per-section lookup
// (linetable.Options.SectionOf and PCSection), nil for other files, and
// relocationErrs the relocations its debug sections read so far could not
// take (elfx skips them).
type objectSource interface {
	lineSections() (sectionOf, pcSection func(uint64) uint32)
	relocationErrs() []error
}

// The sections a module reads, as indexes into dwarfSections.
const (
	secInfo = iota
	secAbbrev
	secStr
	secLineStr
	secStrOffsets
	secAddr
	secRanges
	secRnglists
	secAranges
	secLine
)

var dwarfSections = [...]string{
	secInfo: ".debug_info", secAbbrev: ".debug_abbrev", secStr: ".debug_str", secLineStr: ".debug_line_str",
	secStrOffsets: ".debug_str_offsets", secAddr: ".debug_addr", secRanges: ".debug_ranges",
	secRnglists: ".debug_rnglists", secAranges: ".debug_aranges", secLine: ".debug_line",
}

// sectionSource is what a module is read from: DWARF section bytes by
// their ELF names (".debug_info"; Mach-O's __debug_info answers to it) and
// the byte order. A sectionSource that is also a lazySource lets
// compressed .debug_info and .debug_line inflate only as far as needed.
type sectionSource interface {
	// dwarfSection returns the decompressed section ".debug_X" (or nil
	// when absent).
	dwarfSection(name string) ([]byte, error)
	bigEndian() bool
}

// loadModule decompresses the sections symbolication needs from src, both
// cores at a time, and builds the address index's first tier; it returns
// nil when src has no .debug_info. pc is the first address looked up:
// while the other sections inflate, the unit that covers it (by
// .debug_aranges) is made available too, unless bulk: for a bulk batch
// .debug_info and .debug_line inflate whole, from the start, on all
// cores, beside the other sections (a prefix inflated first would keep
// them serial); spare, when not nil, is called once every section but
// .debug_info is in, while .debug_info still inflates on one core (on
// cmd/go, 10 ms with the other core idle), so that it can start what the
// lookups will need next. A section that does not decode costs that
// section alone, its error going to warns.
func loadModule(src sectionSource, pc uint64, bulk bool, warns *warnList, spare func()) *dwarfModule {
	names := &dwarfSections
	var out [len(names)][]byte
	var errs [len(names)]error
	// .debug_info and .debug_line, when compressed, are inflated
	// only as far as the units looked up need (the bulk of a large
	// debug file's DWARF); the rest are needed whole, and inflate
	// in parallel.
	var lazy [len(names)]*buf.Lazy
	ls, _ := src.(lazySource)
	for _, i := range []int{secInfo, secLine} {
		if ls != nil {
			lazy[i] = ls.lazySection(names[i])
		}
	}
	// wg waits for every section, others for all but a bulk batch's
	// .debug_info, which inflates last, alone.
	var wg, others sync.WaitGroup
	// The aranges are small: read them first, build the index's first
	// tier from them alongside the other sections, and, when .debug_info
	// is lazy, inflate it through pc's unit alongside the rest too.
	out[secAranges], errs[secAranges] = src.dwarfSection(names[secAranges])
	var arIndex *dwinfo.Index
	if errs[secAranges] == nil {
		aranges := dwinfo.New(dwinfo.Sections{Aranges: out[secAranges], BigEndian: src.bigEndian()}, nil)
		if lazy[secInfo] != nil && !bulk {
			if off, ok := arangesUnit(aranges, pc); ok {
				wg.Go(func() { lazy[secInfo].Unit(off) })
			}
		}
		others.Go(func() { arIndex = dwinfo.NewIndex(aranges) })
	}
	for i, name := range names {
		if lazy[i] != nil || out[i] != nil || i == secAranges {
			continue
		}
		others.Go(func() { out[i], errs[i] = src.dwarfSection(name) })
	}
	if bulk {
		// A bulk batch needs .debug_info and .debug_line whole before
		// its first lookup can start: they inflate along with the
		// other sections, not after them, so that no core waits while
		// one of them (libradosgw's 44 MB .debug_str) inflates alone.
		if l := lazy[secLine]; l != nil && l.Fetch != nil {
			others.Go(func() { l.UpTo(l.Size) })
		}
		if l := lazy[secInfo]; l != nil && l.Fetch != nil {
			wg.Go(func() { l.UpTo(l.Size) })
			if spare != nil {
				// Once the other sections are in, .debug_info
				// inflates on one core alone (cmd/go's for 10 ms):
				// spare has the other.
				wg.Go(func() {
					others.Wait()
					spare()
				})
			}
		}
	}
	others.Wait()
	wg.Wait()
	// A section that does not decode (a bad compression header, an
	// unknown compression type, a corrupt stream) costs that section
	// alone, as in llvm-symbolizer: the others, and the symbol table,
	// still answer.
	for i, err := range errs {
		if err != nil {
			warns.add(err)
			out[i] = nil
		}
	}
	for _, i := range []int{secInfo, secLine} {
		if lazy[i] == nil && out[i] != nil {
			lazy[i] = buf.NewLazy(out[i], 0, nil)
		}
	}
	if lazy[secInfo] == nil {
		return nil // no DWARF: the symbol table answers alone
	}
	// Without .debug_line (stripped of it alone) the DIEs still name
	// the inline chain and its call sites, as in llvm-symbolizer.
	big := src.bigEndian()
	secs := dwinfo.Sections{
		Info: out[secInfo], Abbrev: out[secAbbrev], Str: out[secStr], LineStr: out[secLineStr],
		StrOffsets: out[secStrOffsets], Addr: out[secAddr], Ranges: out[secRanges],
		Rnglists: out[secRnglists], Aranges: out[secAranges], BigEndian: big,
	}
	if lazy[secInfo].Fetch != nil {
		secs.InfoPrefix, secs.InfoSize = lazy[secInfo].Fetch, lazy[secInfo].Size
	}
	d := dwinfo.New(secs, nil)
	var index *dwinfo.Index
	if arIndex != nil { // built from the aranges d holds
		index = arIndex.WithData(d)
	} else {
		index = dwinfo.NewIndex(d)
	}
	m := &dwarfModule{data: d, index: index, line: lazy[secLine], info: lazy[secInfo], bulk: bulk,
		lineStr: out[secLineStr], str: out[secStr], addr: out[secAddr], ranges: out[secRanges], rnglists: out[secRnglists],
		big: big, warns: warns}
	if obj, ok := src.(objectSource); ok {
		if sectionOf, _ := obj.lineSections(); sectionOf != nil {
			m.obj = obj
		}
		for _, err := range obj.relocationErrs() {
			warns.add(err)
		}
	}
	return m
}

// arangesUnit returns the unit of the first .debug_aranges tuple holding
// pc: a guess of the unit that the index will pick, good enough to start
// inflating .debug_info early, without building the index first.
func arangesUnit(d *dwinfo.Data, pc uint64) (uint64, bool) {
	ar := d.Aranges()
	var a dwinfo.Arange
	for ar.Next(&a) == nil {
		if a.Start <= pc && pc-a.Start < a.Length {
			return a.Unit, true
		}
	}
	return 0, false
}

// unitState is one compilation unit's lazily built lookup structures. The
// line table is built apart from the inline index because building one
// unit's inline index may need another unit's line table (gcc LTO keeps
// abstract origins in units of their own), and so that it can be built
// on another core while the inline index reads the unit's DIEs.
type unitState struct {
	off      uint64 // of the unit in .debug_info
	unitOnce sync.Once
	unit     *dwinfo.Unit
	compDir  string
	unitErr  error

	// lineOnce builds lines, keeping what went wrong in lineWarns;
	// reportOnce then reports those, in order, from the lookup that
	// asked for the table (so that warnings keep their order however
	// the table was built).
	lineOnce   sync.Once
	lines      *linetable.Table
	lineWarns  []error
	reportOnce sync.Once

	inlOnce sync.Once
	inl     *inline.Index
	inlErr  error
	// building is 1 while a goroutine builds inl (in inlOnce), 2 once
	// it is built: a batch's chunk defers its addresses in a unit
	// another chunk is building (dwarfModule.busy).
	building atomic.Int32
	// split is the split unit whose DIEs inl was built from, for a
	// skeleton unit whose split unit was found (split.go); nil otherwise.
	split *splitUnit
}

// unitAt returns the unit at .debug_info offset off, its DIEs' header and
// root read.
func (s *dwarfModule) unitAt(off uint64) (*unitState, error) {
	// A small direct-mapped cache in front of the map: lookups of nearby
	// addresses hit the same few units.
	slot := &s.recent[(off>>4)%uint64(len(s.recent))]
	us := slot.Load()
	if us == nil || us.off != off {
		v, ok := s.units.Load(off)
		if !ok {
			v, _ = s.units.LoadOrStore(off, &unitState{off: off})
		}
		us = v.(*unitState)
		slot.Store(us)
	}
	us.unitOnce.Do(func() {
		// Reported once per unit: the error is kept and every later
		// lookup in the unit gets it without a new warning.
		if us.unitErr = s.loadUnit(us, true); us.unitErr != nil {
			s.warn(us.unitErr)
		}
	})
	return us, us.unitErr
}

// unitLines returns the unit at .debug_info offset off with its line table.
func (s *dwarfModule) unitLines(off uint64) (*unitState, error) {
	us, err := s.unitAt(off)
	if err != nil {
		return nil, err
	}
	s.linesOf(us)
	return us, nil
}

// linesOf returns us's line table (nil without one), built on first use,
// and reports what went wrong building it.
func (s *dwarfModule) linesOf(us *unitState) *linetable.Table {
	us.lineOnce.Do(func() { s.loadLines(us) })
	us.reportOnce.Do(func() {
		for _, err := range us.lineWarns {
			s.warn(err)
		}
		us.lineWarns = nil
	})
	return us.lines
}

// aheadMinUnit is the size of a unit's DIEs from which its line table is
// built on another goroutine while the unit's inline index is built (a
// variable for the tests).
var aheadMinUnit uint64 = 1 << 20

// speculation turns speculate on (a variable for the tests);
// speculationsKept counts the units it kept, for the tests.
var (
	speculation      = true
	speculationsKept atomic.Int64
)

// unit returns the unit at off with its line table and inline index. pc
// is the address being looked up.
func (s *dwarfModule) unit(off, pc uint64) (*unitState, error) {
	us, err := s.unitAt(off)
	if err != nil {
		return nil, err
	}
	us.inlOnce.Do(func() {
		us.building.Store(1)
		s.buildIndex(us, pc, s.lineTableOf, true)
		us.building.Store(2)
		if s.evict != nil && s.evictDue.Add(us.unit.End-us.unit.DIEOffset) >= unitEvictBytes {
			s.evictDue.Store(0)
			s.evict()
		}
	})
	return us, nil
}

// unitEvictBytes is how many bytes of DIEs the units built since the last
// eviction must hold before the next (a variable for the tests). A unit of
// clang's C++ program (about 10 MB) still evicts at once; the kernel's
// 2,352 units (170 KB on average) evicted after each dropped and faulted
// back the pages every unit reads (strings, abbreviations, line programs)
// 2,352 times: 9% of a 200,000-address batch's wall time (1179 against
// 1074 ms, bench/RESULTS.md 2026-12-07).
var unitEvictBytes uint64 = 8 << 20

// busy reports whether the unit of pc is being built by another goroutine
// (a lookup there would wait for it), judging from what is built: the
// unit of h's last lookup is built, and an address the index cannot place
// without building its units tier counts as not busy. A unit found built
// becomes h's, so that the lookup of pc that follows need not search the
// index again.
func (s *dwarfModule) busy(pc uint64, h *hint) bool {
	if h.mod == s && h.ulo <= pc && pc < h.uhi {
		return false
	}
	off, lo, hi, ok := s.index.LookupBuilt(pc)
	if !ok {
		return false
	}
	v, ok := s.units.Load(off)
	if !ok {
		return false
	}
	switch us := v.(*unitState); us.building.Load() {
	case 1:
		return true
	case 2:
		// Built by unit: its inlOnce and unitOnce have run without
		// error, as appendFrames needs of h.us.
		h.mod, h.us, h.ulo, h.uhi = s, us, lo, hi
	}
	return false
}

// buildIndex builds us's inline index, and its line table beside the
// scan of a big unit's DIEs. lineTable gives other units' tables. With
// report, what went wrong goes to Warnings as it is met; without, the
// line table's problems stay in us.lineWarns and the index's in us.inlErr
// (speculate reports them).
func (s *dwarfModule) buildIndex(us *unitState, pc uint64, lineTable func(*dwinfo.Unit) *linetable.Table, report bool) {
	d, u := s.data, us.unit
	// Another unit's line table names the declaration files of the
	// abstract origins it holds: of this module, or of its
	// supplementary file (module_sup.go).
	// Lazy: a function's inline tree is read on the first lookup that
	// lands in it; what it reports then goes to Warnings.
	opts := &inline.Options{LineTable: lineTable, Lazy: true, Strings: &s.strs, Passed: s.handBack}
	if s.sparse.Load() {
		opts.LazyMinSize = 1
	}
	var after <-chan struct{}
	if s.split != nil && isSkeleton(us.unit) {
		s.linesOf(us) // reported before what the split unit reports
		if sp := s.splitOf(us.unit); sp != nil {
			// A skeleton: the DIEs are its split unit's, the line
			// table (and every file index) the skeleton's.
			us.split, d, u = sp, sp.data, sp.unit
			opts.LineTable = func(*dwinfo.Unit) *linetable.Table { return us.lines }
			opts.Skeleton = us.unit
		}
	}
	if us.split == nil && u.End-u.DIEOffset >= aheadMinUnit && runtime.GOMAXPROCS(0) > 1 {
		// A big unit: its line table is built beside the scan of its
		// DIEs. Build asks for it before it returns. The first such
		// unit of a module not loaded for a bulk batch (one address, a
		// few) has a table of pc's sequence alone at first
		// (linetable.NewTableFor).
		one := !s.bulk && s.oneTable.CompareAndSwap(false, true)
		done := make(chan struct{})
		go func() {
			us.lineOnce.Do(func() { s.loadLinesFor(us, pc, one) })
			close(done)
		}()
		after = done
	}
	if s.ahead != nil {
		// The symbol table, on another core, after the line table
		// (which is needed first).
		s.ahead(after, pc)
	}
	lines := func() *linetable.Table {
		if report {
			return s.linesOf(us)
		}
		us.lineOnce.Do(func() { s.loadLines(us) })
		return us.lines
	}
	opts.Lines = lines
	// Build returns a usable (possibly partial) index even with an
	// error; the error is kept as a warning.
	if sp := us.split; sp != nil {
		opts.Warn = func(err error) { s.warn(sp.wrap(err)) }
	} else {
		opts.Warn = s.warn
	}
	us.inl, us.inlErr = inline.Build(d, u, nil, opts)
	lines() // asked for already, unless Build failed early
	if us.inlErr != nil {
		if us.split != nil {
			us.inlErr = us.split.wrap(us.inlErr)
		}
		if report {
			s.warn(us.inlErr)
		}
	}
}

// speculate is for the first lookup of a module that the units tier of
// its index (every unit's ranges) has to answer, when that tier is not
// built: it decides pc's unit (dwinfo.Index.Decide: in one pass, or by
// building that tier) on another goroutine while it builds the
// unit the tier will likely pick (dwinfo.Index.Likely), and keeps that
// unit once the tier picks it, reporting its warnings then, in the order
// unit would have. The guess is dropped, and the lookup goes on as
// without it, when the tier picks another unit or when building it asked
// for another unit's line table (whose warnings would have come in
// between). Nothing is speculated for a bulk batch, a skeleton unit (split
// DWARF) or on one core.
func (s *dwarfModule) speculate(pc uint64) {
	if s.speculated.Load() || s.bulk || !speculation || runtime.GOMAXPROCS(0) < 2 || !s.speculated.CompareAndSwap(false, true) {
		return
	}
	guess, ok := s.index.Likely(pc)
	if !ok {
		return
	}
	if _, ok := s.units.Load(guess); ok {
		return
	}
	done := make(chan struct{})
	go func() {
		s.index.Decide(pc) // pc's unit without the whole tier, where no other unit's ranges hold pc
		// Every unit's ranges were read for it: the tier, which a later
		// lookup builds, reads them again.
		s.giveBack(s.rnglists, s.ranges, s.addr)
		close(done)
	}()
	defer func() { <-done }()
	us := &unitState{off: guess}
	if err := s.loadUnit(us, false); err != nil || isSkeleton(us.unit) {
		return // the usual path reports the error, or reads the split unit
	}
	// Another unit's line table, before the guess is confirmed, spoils
	// it; afterwards (the lazy index's later reads) it is as usual.
	var confirmed, spoilt atomic.Bool
	lineTable := func(u *dwinfo.Unit) *linetable.Table {
		if !confirmed.Load() {
			spoilt.Store(true)
			return nil
		}
		return s.lineTableOf(u)
	}
	s.buildIndex(us, pc, lineTable, false)
	<-done
	if off, ok := s.index.Lookup(pc); !ok || off != guess || spoilt.Load() {
		return
	}
	confirmed.Store(true)
	us.unitOnce.Do(func() {})
	us.inlOnce.Do(func() {})
	if _, loaded := s.units.LoadOrStore(guess, us); loaded {
		return // another lookup built it meanwhile, and reported
	}
	speculationsKept.Add(1)
	if u := us.unit; u.RootErr != nil {
		s.warn(u.RootErr)
	}
	s.linesOf(us)
	if us.inlErr != nil {
		s.warn(us.inlErr)
	}
}

// loadUnit reads the header and root DIE of the unit at us.off; with
// report, an attribute of the root DIE that does not decode goes to
// Warnings.
func (s *dwarfModule) loadUnit(us *unitState, report bool) error {
	h, err := s.data.HeaderAt(us.off)
	if err != nil {
		return err
	}
	u, err := s.data.LoadUnit(h)
	if err != nil {
		return err
	}
	us.unit = u
	us.compDir = string(u.Root.CompDir)
	if u.RootErr != nil && report {
		s.warn(u.RootErr) // that attribute is lost, the unit answers
	}
	return nil
}

// loadLines builds us's line table, keeping what went wrong in
// us.lineWarns: without a table the unit's DIEs still name its functions.
func (s *dwarfModule) loadLines(us *unitState) { s.loadLinesFor(us, 0, false) }

// loadLinesFor is loadLines, with a table of pc's sequence alone at first
// when one is set.
func (s *dwarfModule) loadLinesFor(us *unitState, pc uint64, one bool) {
	u := us.unit
	if !u.Root.HasStmt || s.line == nil {
		return
	}
	opts := &linetable.Options{
		BigEndian:   s.big,
		LineStr:     s.lineStr,
		Str:         s.str,
		AddressSize: u.AddrSize,
		// The file entries are decoded when inline resolves the unit's
		// paths, and not kept: the sections stay while the module does.
		LazyFiles: true,
		StrX: func(i uint64) (string, error) {
			b, err := u.String(dw.Value{Class: dw.ClassStrx, U: i})
			return string(b), err
		},
	}
	if s.obj != nil {
		opts.SectionOf, opts.PCSection = s.obj.lineSections()
	}
	line, err := s.line.Unit(u.Root.StmtList)
	if err != nil {
		us.lineWarns = append(us.lineWarns, err)
		return
	}
	var lt *linetable.Table
	if one {
		lt, err = linetable.NewTableFor(line, u.Root.StmtList, opts, pc)
	} else {
		if keep := s.keep.Load(); keep != nil {
			prog := u.Root.StmtList
			s.keptTable(prog)
			opts.Keep = *keep
			opts.Again = func(build func([]byte)) error { return s.rebuildLines(prog, build) }
			keptTables.Add(1)
		}
		lt, err = linetable.NewTable(line, u.Root.StmtList, opts)
	}
	if err != nil {
		// LLVM goes on without the line table; so do we, and say why.
		us.lineWarns = append(us.lineWarns, err)
		return
	}
	us.lines = lt
	if !one {
		s.lineBuilt(us.off, u.Root.StmtList)
	}
	// The table keeps nothing of its program (Unit gave it to its end).
	if off := u.Root.StmtList; off < uint64(len(line)) {
		s.giveBack(line[off:])
	}
}

// giveBack hands bs to handBack, when set: bytes read once.
func (s *dwarfModule) giveBack(bs ...[]byte) {
	if s.handBack == nil {
		return
	}
	for _, b := range bs {
		if len(b) > 0 {
			s.handBack(b)
		}
	}
}

func (s *dwarfModule) warn(err error) { s.warns.add(err) }

// splitOf returns the split unit of u when u is a skeleton unit whose
// split unit is found; the reason it is not found goes to Warnings, and the
// skeleton then answers alone.
func (s *dwarfModule) splitOf(u *dwinfo.Unit) *splitUnit {
	if s.split == nil || !isSkeleton(u) {
		return nil
	}
	su, err := s.split.unit(u)
	if err != nil {
		s.warn(err)
		return nil
	}
	return su
}

// denseMin is the number of addresses per MiB of .debug_info from which a
// batch reads small units whole (inline.DefaultLazyMinSize). Below it, a
// unit's few lookups land in few of its functions, and reading only those
// costs less than the whole unit: on cmd/go (5.3 MiB of DIEs in 318 units,
// nearly all below the default bound), 300 addresses took 60 ms with every
// unit lazy against 83 read whole, 1,000 took 65 against 75, 4,000 the
// same (83 ms), 8,000 and 16,384 more lazily (102 and 130 ms against 97
// and 108).
const denseMin = 1024

// noteBatch tells s that a batch of n addresses is starting: sparse is set
// while the batches so far, this one included, have had fewer than
// denseMin addresses per MiB of .debug_info. They count together: a
// stream of small batches (a command reading its input a block at a time,
// a profiler's periodic flushes) comes back to the same units, as one big
// batch would. The answers are the same either way.
//
// A sparse batch of a bulk module whose .debug_line is given back
// (linerelease.go) has its units' line tables keep only the rows its
// addresses read (linetable.Options.Keep): sorted gives them, in
// ascending order. On libradosgw's debug file, the tables of 10,000
// addresses hold 3.5 MB of packed rows against 28.6. A later lookup that
// needs a dropped row builds that unit's whole table, from .debug_line
// inflated again if it was given back (rebuildLines).
func (s *dwarfModule) noteBatch(n int, sorted func() []uint64) {
	total := s.batched.Add(uint64(n))
	sparse := total<<20 < denseMin*s.info.Size
	s.sparse.Store(sparse)
	if sparse && keepRows && s.bulk && s.line != nil && s.line.Release != nil {
		keep := sorted()
		s.keep.Store(&keep)
	} else {
		s.keep.Store(nil)
	}
}

// keepRows turns Options.Keep on for sparse batches (a variable for the
// tests); keptTables counts the line tables built with it.
var (
	keepRows   = true
	keptTables atomic.Int64
)
