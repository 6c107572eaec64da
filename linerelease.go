package symbolize

import (
	"cmp"
	"slices"
	"sync"

	"github.com/symbolize-go/symbolize/internal/buf"
)

// lineRelease gives a bulk module's inflated .debug_line back to the
// system as its line programs are done with. In a module loaded for a bulk
// batch every unit's line table is built once and whole (no unit takes a
// one-sequence table and none is speculated), a Table keeps nothing of its
// program's bytes, and loadLinesFor is the only reader of the section: so
// once every unit that names a program has its table, nothing reads that
// program again. The pages of a run of such programs (and of the bytes
// between them, which no unit names) are released (buf.Lazy.Release: only
// memory outside the heap, inflated from a mapped file, goes back). On
// libradosgw's debug file that is 26 MB, given back during the first of
// 10,000 addresses' three windows, and the run's peak is at its end;
// cmd/go's is 2.3 MB.
//
// Which units name which program is read from every unit's root DIE once
// .debug_info and .debug_line are inflated whole (prepare, from
// readAhead); tables built before then are noted and counted then. Units
// are told apart by their .debug_info offset; a unit prepare did not see
// (one past a header that does not decode: nothing then is released) or a
// program that overlaps another (bad input) turns release off for good.
type lineRelease struct {
	mu      sync.Mutex
	ready   bool // prepare ran
	stopped bool // nothing more is released
	units   map[uint64]bool
	progs   []lineProg // sorted by offset, disjoint
	pending []uint64   // programs whose table was built before prepare ran
	open    int        // programs not done
	// Ranges to give back, gathered until they make releaseBatch bytes
	// (or every program is done), so that a table of a few pages does
	// not cost a system call (which also flushes the other cores' TLBs)
	// of its own: cmd/go has 318 programs of 7 KB on average.
	batch      []lineSpan
	batchBytes uint64
	// released is how many bytes of programs were handed back (their
	// Release called), for the tests.
	released uint64

	// keepers counts, for each program, the tables built with Keep that
	// rebuildLines has not rebuilt; againReleased is how many bytes of
	// the section inflated anew were handed back (for the tests).
	keepers       map[uint64]int
	againReleased uint64
}

// releaseBatch is how many bytes lineRelease gathers before it gives
// them back (a variable for the tests).
var releaseBatch uint64 = 1 << 20

type lineSpan struct{ lo, hi uint64 }

// A lineProg is one line program [off, end) of .debug_line and the number
// of units naming it whose table is not built yet.
type lineProg struct {
	off, end uint64
	left     int
}

// prepareLineRelease finds the programs of a bulk module's units, once
// its sections are inflated whole. It does nothing for a module whose
// .debug_line cannot be released.
func (s *dwarfModule) prepareLineRelease() {
	l := s.line
	if l == nil || l.Release == nil || !s.bulk {
		return
	}
	r := &s.lineRel
	progs, units, ok := s.linePrograms(l)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ready = true
	if !ok {
		r.stopped, r.pending = true, nil
		return
	}
	r.progs, r.units, r.open = progs, units, len(progs)
	for _, off := range r.pending {
		r.done(off, l)
	}
	r.pending = nil
}

// linePrograms returns the line programs the units of s name, sorted,
// with how many units name each, and the units' offsets; ok is false when
// a unit or a program cannot be placed.
func (s *dwarfModule) linePrograms(l *buf.Lazy) (progs []lineProg, units map[uint64]bool, ok bool) {
	data, err := l.UpTo(l.Size)
	if err != nil || uint64(len(data)) != l.Size {
		return nil, nil, false
	}
	hs, err := s.data.Headers()
	if err != nil {
		return nil, nil, false
	}
	refs := make(map[uint64]int)
	units = make(map[uint64]bool, len(hs))
	for _, h := range hs {
		units[h.Offset] = true
		u, err := s.data.LoadUnit(h)
		if err != nil || !u.Root.HasStmt {
			continue // such a unit reads no program: unitAt fails alike
		}
		refs[u.Root.StmtList]++
	}
	for off, n := range refs {
		end, ok := programEnd(data, off, s.big)
		if !ok {
			return nil, nil, false
		}
		progs = append(progs, lineProg{off: off, end: end, left: n})
	}
	slices.SortFunc(progs, func(a, b lineProg) int { return cmp.Compare(a.off, b.off) })
	for i := 1; i < len(progs); i++ {
		if progs[i].off < progs[i-1].end {
			return nil, nil, false
		}
	}
	return progs, units, true
}

// programEnd returns where the line program at off ends, as far as data
// holds it.
func programEnd(data []byte, off uint64, big bool) (uint64, bool) {
	if off >= uint64(len(data)) {
		return 0, false
	}
	r := buf.New("symbolize", ".debug_line", data, big)
	r.Seek(off)
	n, _ := r.InitialLength()
	if r.Err() != nil {
		return 0, false
	}
	start := r.Offset()
	return start + min(n, uint64(len(data))-start), true
}

// lineBuilt notes that unit unitOff of a bulk module has its line table,
// built from the program at off.
func (s *dwarfModule) lineBuilt(unitOff, off uint64) {
	l := s.line
	if l == nil || l.Release == nil || !s.bulk {
		return
	}
	r := &s.lineRel
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case r.stopped:
	case !r.ready:
		r.pending = append(r.pending, off)
	case !r.units[unitOff]:
		r.stopped = true
	default:
		r.done(off, l)
	}
}

// done counts a table built from the program at off and releases the run
// of programs around it once none of them is read again.
func (r *lineRelease) done(off uint64, l *buf.Lazy) {
	i, found := slices.BinarySearchFunc(r.progs, off, func(p lineProg, off uint64) int { return cmp.Compare(p.off, off) })
	if !found {
		r.stopped = true // a unit prepare did not count
		return
	}
	if r.progs[i].left--; r.progs[i].left != 0 {
		return
	}
	r.open--
	a, b := i, i
	for a > 0 && r.progs[a-1].left <= 0 {
		a--
	}
	for b+1 < len(r.progs) && r.progs[b+1].left <= 0 {
		b++
	}
	lo, hi := uint64(0), l.Size
	if a > 0 {
		lo = r.progs[a-1].end
	}
	if b+1 < len(r.progs) {
		hi = r.progs[b+1].off
	}
	// The rest of the run went back before, but for the pages it
	// shares with this program: a page on either side is enough.
	const page = 64 << 10 // at least any page size
	lo = max(lo, r.progs[i].off-min(r.progs[i].off, page))
	hi = min(hi, r.progs[i].end+page)
	r.batch = append(r.batch, lineSpan{lo, hi})
	r.batchBytes += r.progs[i].end - r.progs[i].off
	if r.batchBytes >= releaseBatch || r.open == 0 {
		// Units finish out of offset order: sorted, the spans that
		// touch or overlap (all within done runs) are one call.
		slices.SortFunc(r.batch, func(a, b lineSpan) int { return cmp.Compare(a.lo, b.lo) })
		k := 0
		for _, sp := range r.batch[1:] {
			if sp.lo <= r.batch[k].hi {
				r.batch[k].hi = max(r.batch[k].hi, sp.hi)
			} else {
				k++
				r.batch[k] = sp
			}
		}
		for _, sp := range r.batch[:k+1] {
			l.Release(sp.lo, sp.hi-sp.lo)
		}
		r.released += r.batchBytes
		r.batch, r.batchBytes = r.batch[:0], 0
	}
}

// keptTable notes a table of the program at off built with
// linetable.Options.Keep: rebuildLines may be asked for its rows.
func (s *dwarfModule) keptTable(off uint64) {
	r := &s.lineRel
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.keepers == nil {
		r.keepers = make(map[uint64]int)
	}
	r.keepers[off]++
}

// rebuildLines calls build with .debug_line for a table of the program at
// off that needs rows Keep dropped (linetable.Options.Again). From then on
// nothing more of the section as first inflated is given back: if nothing
// was, it is still whole and build reads it; otherwise .debug_line is
// inflated anew, once, and the program's pages in that copy go back once
// every table of it that kept rows has been rebuilt, provided every unit
// naming it had its table when release stopped (nothing reads them again
// then), so that a stream of sparse batches ends up holding no more of
// the section than one batch.
func (s *dwarfModule) rebuildLines(off uint64, build func([]byte)) error {
	r := &s.lineRel
	r.mu.Lock()
	r.stopped = true
	released := r.released > 0
	r.mu.Unlock()
	l := s.line
	if !released || l.Again == nil {
		data, err := l.UpTo(l.Size)
		if err == nil {
			build(data)
		}
		return err
	}
	s.againOnce.Do(func() { s.again, s.againErr = l.Again() })
	if s.againErr != nil {
		return s.againErr
	}
	a := s.again
	data, err := a.UpTo(a.Size)
	if err != nil {
		return err
	}
	build(data)
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.keepers[off]--; r.keepers[off] > 0 || a.Release == nil {
		return nil
	}
	i, found := slices.BinarySearchFunc(r.progs, off, func(p lineProg, off uint64) int { return cmp.Compare(p.off, off) })
	if !found || r.progs[i].left > 0 {
		return nil
	}
	a.Release(off, r.progs[i].end-off)
	r.againReleased += r.progs[i].end - off
	return nil
}
