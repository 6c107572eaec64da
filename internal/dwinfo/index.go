package dwinfo

import (
	"container/heap"
	"io"
	"slices"
	"sync"
	"sync/atomic"
)

// Index maps a PC to the .debug_info offset of the unit that covers it,
// reproducing llvm-symbolizer 14 (LLVM's DWARFDebugAranges): ranges come
// from .debug_aranges, and units not named there contribute the ranges of
// their unit DIE (DW_AT_low_pc/DW_AT_high_pc, else DW_AT_ranges); empty
// ranges are ignored; where ranges overlap, the unit with the lowest
// offset wins, except that a range already being extended keeps its unit
// while it stays valid (LLVM's sweep does exactly that).
//
// The index has two tiers so that a huge binary pays only for what it uses.
// The aranges tier is built by NewIndex from .debug_aranges alone. The
// units tier (every unit header and unit DIE) is built on the first Lookup
// the aranges tier misses, or at once when there are no aranges; a first
// lookup can have its answer without it (Decide).
//
// Deviation from LLVM: LLVM sweeps both kinds of range together, so where a
// unit missing from .debug_aranges overlaps a range listed there and has
// the lower offset, LLVM picks it; here the aranges tier answers first.
// Producers do not emit such overlaps in practice.
//
// Lookup costs O(log n) and allocates nothing. An Index is immutable after
// each tier is built and safe for concurrent use.
type Index struct {
	d       *Data
	aranges []ivl
	listed  map[uint64]struct{} // units named in .debug_aranges
	arErr   error

	unitsOnce sync.Once
	built     atomic.Bool // the units tier is built; unitErrs may be read
	units     []ivl
	unitErrs  []error

	decided atomic.Pointer[decision] // Decide's answer, while the units tier is not built
}

// decision is the units tier's answer for one PC, found by Decide without
// building the tier.
type decision struct {
	pc, unit uint64
	ok       bool
}

// ivl is one disjoint, sorted index range.
type ivl struct {
	lo, hi uint64
	unit   uint64
}

// NewIndex builds the aranges tier from .debug_aranges. A corrupt set ends
// the tier at the sets before it, as in LLVM; the error is kept in Errors.
func NewIndex(d *Data) *Index {
	ix := &Index{d: d, listed: make(map[uint64]struct{})}
	// A set's tuples count only once the set ends well: LLVM parses a
	// whole set before using it, and stops at the first bad one. Every
	// good set names its unit, even with no tuples (the unit then
	// contributes nothing).
	var rs, pending []span
	ar := d.Aranges()
	ar.onSetEnd = func(unit uint64) {
		ix.listed[unit] = struct{}{}
		rs = append(rs, pending...)
		pending = pending[:0]
	}
	var a Arange
	for {
		err := ar.Next(&a)
		if err == io.EOF {
			break
		}
		if err != nil {
			ix.arErr = err
			break
		}
		pending = appendSpan(pending, a.Unit, a.Start, a.Start+a.Length)
	}
	ix.aranges = construct(rs)
	return ix
}

// WithData returns an Index over d with ix's aranges tier, for a d whose
// .debug_aranges is the one ix was built from: the tier can then be built
// before d's other sections are read. Its units tier is d's own, built as
// NewIndex's would be.
func (ix *Index) WithData(d *Data) *Index {
	return &Index{d: d, aranges: ix.aranges, listed: ix.listed, arErr: ix.arErr}
}

// Lookup returns the offset of the unit covering pc and whether one does.
func (ix *Index) Lookup(pc uint64) (uint64, bool) {
	u, _, _, ok := ix.LookupRange(pc)
	return u, ok
}

// LookupRange is Lookup that also returns the range [lo, hi) around pc
// that maps to the same unit, so that a caller walking sorted PCs can skip
// the search while it stays inside.
func (ix *Index) LookupRange(pc uint64) (unit, lo, hi uint64, ok bool) {
	if r, ok := findRange(ix.aranges, pc); ok {
		return r.unit, r.lo, r.hi, true
	}
	if d := ix.decided.Load(); d != nil && d.pc == pc && !ix.built.Load() {
		if !d.ok {
			return 0, 0, 0, false
		}
		return d.unit, pc, pc + 1, true
	}
	ix.unitsOnce.Do(ix.buildUnits)
	if r, ok := findRange(ix.units, pc); ok {
		return r.unit, r.lo, r.hi, true
	}
	return 0, 0, 0, false
}

// LookupBuilt is LookupRange from the tiers already built, building none
// and waiting for none: ok is false where LookupRange would have to build
// the units tier (or wait for it) to answer. Where ok, it gives what
// LookupRange gives.
func (ix *Index) LookupBuilt(pc uint64) (unit, lo, hi uint64, ok bool) {
	if r, ok := findRange(ix.aranges, pc); ok {
		return r.unit, r.lo, r.hi, true
	}
	if !ix.built.Load() {
		return 0, 0, 0, false
	}
	if r, ok := findRange(ix.units, pc); ok {
		return r.unit, r.lo, r.hi, true
	}
	return 0, 0, 0, false
}

// Errors returns the problems met while building the tiers built so far
// (corrupt aranges, unreadable units), each a *DecodeError. Units that
// failed simply contribute no ranges, as in LLVM.
func (ix *Index) Errors() []error {
	var errs []error
	if ix.arErr != nil {
		errs = append(errs, ix.arErr)
	}
	if ix.built.Load() {
		errs = append(errs, ix.unitErrs...)
	}
	return errs
}

// BuildAll builds the units tier now instead of on the first miss.
func (ix *Index) BuildAll() { ix.unitsOnce.Do(ix.buildUnits) }

// Likely returns the unit that Lookup(pc) will likely return when Lookup
// would have to build the units tier for it: the first unit in section
// order whose unit DIE's ranges hold pc, read up to that unit, without
// building the tier. Lookup picks another only where units' ranges
// overlap (see Index). ok is false when Lookup needs no units tier for pc
// (the aranges tier holds it, or the units tier is built) or no unit
// holds pc.
func (ix *Index) Likely(pc uint64) (unit uint64, ok bool) {
	if _, ok := findRange(ix.aranges, pc); ok || ix.built.Load() {
		return 0, false
	}
	hs, _ := ix.d.Headers()
	for _, h := range hs {
		if _, ok := ix.listed[h.Offset]; ok || h.IsType() {
			continue
		}
		if ix.holds(h, pc) {
			return h.Offset, true
		}
	}
	return 0, false
}

// Decide finds the units tier's answer for pc ahead of a Lookup that would
// build the tier for it, for a binary's first lookup: when the ranges of
// one unit at most hold pc, the sweep can give pc to no other unit (the
// range holding pc goes to a unit valid there), so one pass over the
// units, keeping one unit's ranges at a time, finds the answer, which
// LookupRange then gives for pc (with the range [pc, pc+1)) without
// building the tier. A unit is read by its unit DIE alone (loadRoot, which
// parses its abbreviation table only up to that DIE's declaration) unless
// its ranges hold pc: then as the tier reads it. Where several units'
// ranges hold pc, where a unit's ranges do not decode or the unit headers
// do not, Decide builds the tier instead. It does nothing when the aranges
// tier holds pc or the units tier is built.
func (ix *Index) Decide(pc uint64) {
	if _, ok := findRange(ix.aranges, pc); ok || ix.built.Load() {
		return
	}
	hs, err := ix.d.Headers()
	if err != nil {
		ix.BuildAll()
		return
	}
	var rs []span
	d := &decision{pc: pc}
	for _, h := range hs {
		if _, ok := ix.listed[h.Offset]; ok || h.IsType() {
			continue
		}
		// The unit DIE alone first (loadRoot): a unit whose ranges do
		// not hold pc cannot change the answer for pc, whether the rest
		// of its abbreviation table decodes or not. One whose ranges
		// may hold pc is read as the tier reads it.
		if u, err := ix.d.loadRoot(h); err == nil {
			if rs, err = unitRangesOf(rs[:0], u); err == nil && !spansHold(rs, pc) {
				continue
			}
		}
		if rs, err = ix.unitRanges(rs[:0], h); err != nil {
			ix.BuildAll()
			return
		}
		if spansHold(rs, pc) {
			if d.ok && d.unit != h.Offset {
				ix.BuildAll()
				return
			}
			d.ok, d.unit = true, h.Offset
		}
	}
	ix.decided.Store(d)
}

// holds reports whether the ranges of h's unit DIE, read as unitRanges
// reads them, hold pc; it stops at the first that does.
func (ix *Index) holds(h Header, pc uint64) bool {
	u, err := ix.d.LoadUnit(h)
	if err != nil {
		return false
	}
	ri := &u.Root
	if ri.HasLowPC && ri.HighPC.Class != 0 {
		hi, err := u.HighPC(ri.LowPC, ri.HighPC)
		return err == nil && ri.LowPC <= pc && pc < hi
	}
	if ri.Ranges.Class == 0 {
		return false
	}
	rr := u.Ranges(ri.Ranges)
	var rg Range
	for rr.Next(&rg) == nil {
		if rg.Low <= pc && pc < rg.High {
			return true
		}
	}
	return false
}

func (ix *Index) buildUnits() {
	defer ix.built.Store(true)
	var rs []span
	hs, herr := ix.d.Headers()
	for _, h := range hs {
		if _, ok := ix.listed[h.Offset]; ok || h.IsType() {
			continue
		}
		var err error
		if rs, err = ix.unitRanges(rs, h); err != nil {
			ix.unitErrs = append(ix.unitErrs, err)
		}
	}
	if herr != nil {
		ix.unitErrs = append(ix.unitErrs, herr)
	}
	ix.units = construct(rs)
}

// unitRanges appends the ranges of h's unit DIE, as LLVM's
// DWARFDie::getAddressRanges does: low_pc with high_pc first, else
// DW_AT_ranges.
func (ix *Index) unitRanges(rs []span, h Header) ([]span, error) {
	u, err := ix.d.LoadUnit(h)
	if err != nil {
		return rs, err
	}
	return unitRangesOf(rs, u)
}

// spansHold reports whether one of rs holds pc.
func spansHold(rs []span, pc uint64) bool {
	for _, r := range rs {
		if r.lo <= pc && pc < r.hi {
			return true
		}
	}
	return false
}

// unitRangesOf appends the ranges of u's unit DIE (see unitRanges).
func unitRangesOf(rs []span, u *Unit) ([]span, error) {
	h := u.Header
	ri := &u.Root
	if ri.HasLowPC && ri.HighPC.Class != 0 {
		hi, err := u.HighPC(ri.LowPC, ri.HighPC)
		if err != nil {
			return rs, err
		}
		return appendSpan(rs, h.Offset, ri.LowPC, hi), nil
	}
	if ri.Ranges.Class == 0 {
		return rs, nil
	}
	rr := u.Ranges(ri.Ranges)
	var rg Range
	for {
		err := rr.Next(&rg)
		if err == io.EOF {
			return rs, nil
		}
		if err != nil {
			// LLVM drops the whole list when it fails to parse.
			return rs, err
		}
		rs = appendSpan(rs, h.Offset, rg.Low, rg.High)
	}
}

// span is a range with its unit, before the sweep.
type span struct {
	lo, hi, unit uint64
}

// appendSpan keeps non-empty ranges only (LLVM's appendRange).
func appendSpan(rs []span, unit, lo, hi uint64) []span {
	if lo >= hi {
		return rs
	}
	return append(rs, span{lo, hi, unit})
}

// construct turns overlapping spans into sorted disjoint ranges, as
// LLVM's DWARFDebugAranges::construct does (see sweep). The sweep runs
// only where spans overlap: sorted by start, the spans fall into clusters
// of spans that overlap one another, and a span that overlaps no other
// (as producers emit them) takes a shortcut with the sweep's result: it
// extends the previous range if it starts where that one ends and has its
// unit, and is a range of its own otherwise. A cluster is swept after the
// ranges before it, so that its first segment extends the last of them
// as one sweep of all would: a clang C++ program's units overlap only
// where the linker left discarded COMDAT copies at 0, and the tens of
// thousands of ranges of its units take the shortcut. It reorders rs.
func construct(rs []span) []ivl {
	if len(rs) == 0 {
		return nil
	}
	byLo := func(a, b span) int {
		switch {
		case a.lo < b.lo:
			return -1
		case a.lo > b.lo:
			return 1
		}
		return 0
	}
	if !slices.IsSortedFunc(rs, byLo) {
		slices.SortFunc(rs, byLo)
	}
	out := make([]ivl, 0, len(rs))
	for i := 0; i < len(rs); {
		j, end := i+1, rs[i].hi
		for j < len(rs) && rs[j].lo < end {
			end = max(end, rs[j].hi)
			j++
		}
		if r, n := rs[i], len(out); j-i > 1 {
			out = sweep(out, rs[i:j])
		} else if n > 0 && out[n-1].hi == r.lo && out[n-1].unit == r.unit {
			out[n-1].hi = r.hi
		} else {
			out = append(out, ivl{r.lo, r.hi, r.unit})
		}
		i = j
	}
	return slices.Clip(out)
}

// sweep is LLVM's DWARFDebugAranges::construct: sweep the endpoints
// keeping the multiset of units covering the current address; a segment
// extends the previous range if that range ends here and its unit still
// covers the segment, and otherwise starts a range owned by the lowest
// covering unit. It appends the ranges to out, whose last range a first
// segment may extend.
func sweep(out []ivl, rs []span) []ivl {
	type endpoint struct {
		addr  uint64
		unit  uint64
		start bool
	}
	eps := make([]endpoint, 0, 2*len(rs))
	for _, r := range rs {
		eps = append(eps, endpoint{r.lo, r.unit, true}, endpoint{r.hi, r.unit, false})
	}
	slices.SortFunc(eps, func(a, b endpoint) int {
		switch {
		case a.addr < b.addr:
			return -1
		case a.addr > b.addr:
			return 1
		}
		return 0
	})
	count := make(map[uint64]int) // covering units, with multiplicity
	var h unitHeap                // min-heap of units; stale entries dropped lazily
	prev := ^uint64(0)
	for _, e := range eps {
		if prev < e.addr && len(count) > 0 {
			if n := len(out); n > 0 && out[n-1].hi == prev && count[out[n-1].unit] > 0 {
				out[n-1].hi = e.addr
			} else {
				for count[h[0]] == 0 {
					heap.Pop(&h)
				}
				out = append(out, ivl{prev, e.addr, h[0]})
			}
		}
		if e.start {
			if count[e.unit] == 0 {
				heap.Push(&h, e.unit)
			}
			count[e.unit]++
		} else {
			if count[e.unit]--; count[e.unit] == 0 {
				delete(count, e.unit)
			}
		}
		prev = e.addr
	}
	return out
}

// unitHeap is a min-heap of unit offsets.
type unitHeap []uint64

func (h unitHeap) Len() int           { return len(h) }
func (h unitHeap) Less(i, j int) bool { return h[i] < h[j] }
func (h unitHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *unitHeap) Push(x any)        { *h = append(*h, x.(uint64)) }
func (h *unitHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// findRange returns the range of rs holding pc: LLVM's findAddress, the
// first range whose end is past pc, if it starts at or before pc. It is
// written out rather than slices.BinarySearchFunc, whose comparison call
// is not inlined: that measured 2-3x slower on BenchmarkLookup.
func findRange(rs []ivl, pc uint64) (ivl, bool) {
	lo, hi := 0, len(rs)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if rs[m].hi <= pc {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(rs) && rs[lo].lo <= pc {
		return rs[lo], true
	}
	return ivl{}, false
}
