package symbolize

import (
	"cmp"
	"context"
	"iter"
	"math/bits"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/symbolize-go/symbolize/internal/buf"
	"github.com/symbolize-go/symbolize/slide"
)

// batchChunk is how many addresses one worker symbolizes at a time.
const batchChunk = 2048

// minChunk is the fewest addresses a worker is given: a batch of at most
// minChunk addresses is symbolized on the caller's goroutine, and a
// window of fewer than 2*batchChunk addresses is cut into chunks of
// about half of it, no smaller, so that both cores take part.
const minChunk = 256

// Answer is what a batch yields for one address.
type Answer struct {
	// Mapping is the mapping that holds the address, in the batches of
	// Modules and Process; nil in Binary.Batch.
	Mapping *slide.Module
	// Offset is the address's offset in the mapped file, PC - Start +
	// Offset of Mapping, set whenever Mapping is: with a file that
	// answers nothing, it is what a module+offset frame prints.
	Offset uint64
	// Addr is the file (link-time) address that was looked up; 0 when the
	// runtime address had none (Err says why).
	Addr uint64
	// Frames are the address's frames, innermost first, as AppendFrames
	// would append them; they are reused once the iteration continues.
	Frames []Frame
	// Err is this address's error alone: a corrupt unit, a mapping whose
	// file is missing or of another build, a cancelled context.
	Err error
}

// Batch returns an iterator over the answers for many addresses, in the
// order of pcs: for each, its index in pcs and its Answer (Frames as
// AppendFrames would append them, Err any error for that address alone:
// a corrupt unit fails the addresses that land in it, not the batch).
// Frames is reused once the iteration continues; breaking out of the loop
// stops the batch. Once ctx is done, the addresses not yet symbolized are
// yielded with its error.
//
// A batch of more than a few hundred addresses is cut into windows of a
// few thousand, each sorted and symbolized in address order on all cores
// (runtime.GOMAXPROCS) while the loop consumes the previous window; when
// it has thousands of addresses, or the binary's .debug_info is 1 MiB or
// more, its compressed debug sections are inflated whole, on all cores. A run
// of sorted addresses that share an answer (the same line-table row,
// inline chain and symbol, as in profiles) is symbolized once: the later
// ones cost a comparison and a copy, not a search. Such a bulk batch takes
// the pages it read of a mapped file out of the process's resident set as
// it goes (they stay in the page cache and fault back in when read again),
// so that a large uncompressed debug file, read mostly once, does not
// count against the process whole. A bulk batch with few addresses for the
// size of the DWARF (below 1,024 a MiB of .debug_info, counting the
// Binary's earlier batches) over a compressed .debug_line, which is given
// back once every unit has its line table, keeps in each unit's table only
// the rows its addresses read: on libradosgw's debug file, the tables of
// 10,000 addresses hold 3.5 MB of rows against 28.6. A later lookup that
// needs a row dropped inflates .debug_line again, once, and builds that
// unit's whole table, giving that program's bytes back then, so that a
// stream of such batches pays each unit's table twice: on the same file,
// 40,000 addresses in the addr2line command's batches of 16,384 took 14%
// longer than with whole tables, in 1% less memory. Pass a profile's
// addresses as one batch.
//
// A Batch of one address as a Binary's first lookup (a command asked for
// one address, a crash's one PC) finds its symbol by one pass over the
// symbol table, without building the table, which the next lookup that
// needs it builds.
func (b *Binary) Batch(ctx context.Context, pcs []uint64) iter.Seq2[int, Answer] {
	return func(yield func(int, Answer) bool) {
		b.batch(ctx, pcs, func(i int, frames []Frame, err error) bool {
			return yield(i, Answer{Addr: pcs[i], Frames: frames, Err: err})
		})
	}
}

// batch is Batch with a plain callback: yield returns false to stop.
func (b *Binary) batch(ctx context.Context, pcs []uint64, yield func(i int, frames []Frame, err error) bool) {
	if ctx == nil {
		ctx = context.Background()
	}
	if len(pcs) == 1 && !b.started.Load() && b.started.CompareAndSwap(false, true) {
		b.alone.Store(true) // see Binary.alone
		defer b.alone.Store(false)
	}
	workers := runtime.GOMAXPROCS(0)
	parallel := parallelBatch(len(pcs))
	b.prepare(pcs[0], len(pcs), func() []uint64 {
		sorted := slices.Clone(pcs)
		sortKeys(sorted)
		return sorted
	})
	defer b.endBatch()
	if !parallel {
		var c chunkResult
		for lo := 0; lo < len(pcs); lo += batchChunk {
			hi := min(lo+batchChunk, len(pcs))
			if err := ctx.Err(); err != nil {
				cancelled(lo, len(pcs), err, yield)
				return
			}
			c.fill(b, pcs[lo:hi])
			if !c.emit(lo, yield) {
				return
			}
			c.reset()
		}
		return
	}
	// The addresses are taken a window at a time and each window is
	// symbolized in address order: unsorted input (a profile's samples,
	// a crash log's stacks) then visits each unit's tables in order
	// instead of jumping between units on every address, and equal or
	// neighbouring addresses reuse one answer. Small windows keep the
	// answers held before yield consumes them (and so memory) small; the
	// next window is symbolized while yield consumes this one.
	nwin := (len(pcs) + batchWindow - 1) / batchWindow
	wins := make([]*window, nwin)
	done := make([]chan struct{}, nwin)
	for i := range done {
		done[i] = make(chan struct{})
	}
	ahead := make(chan struct{}, 1) // windows held beyond the one yield consumes
	jobs := make(chan job)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for j := range jobs {
				w := j.w
				c := chunkPool.Get().(*chunkResult)
				lo := j.chunk * w.chunk
				c.fill(b, w.pcs[lo:min(lo+w.chunk, len(w.pcs))])
				w.chunks[j.chunk] = c
				b.evict() // what the chunk read is indexed
				if w.left.Add(-1) == 0 {
					close(done[w.index])
				}
			}
		})
	}
	go func() {
		defer close(jobs)
		for wi := range nwin {
			if wi > 0 {
				select {
				case ahead <- struct{}{}:
				case <-stop:
					return
				}
			}
			lo := wi * batchWindow
			w := newWindow(wi, pcs[lo:min(lo+batchWindow, len(pcs))])
			wins[wi] = w
			for ci := range w.chunks {
				select {
				case jobs <- job{w, ci}:
				case <-stop:
					return
				}
			}
		}
	}()
	ok := true
	for wi := 0; wi < nwin && ok; wi++ {
		if err := ctx.Err(); err != nil {
			cancelled(wi*batchWindow, len(pcs), err, yield)
			break
		}
		<-done[wi]
		w := wins[wi]
		ok = w.emit(wi*batchWindow, yield)
		w.release()
		wins[wi] = nil
		if wi+1 < nwin {
			<-ahead
		}
	}
	close(stop)
	wg.Wait()
	// The workers are done, and so is the producer (it closed jobs).
	for _, w := range wins {
		if w != nil {
			w.release()
		}
	}
}

// parallelBatch reports whether a batch of n addresses is symbolized on
// workers (Binary.Batch's windows, Modules.Batch's shared chunks).
func parallelBatch(n int) bool { return n > minChunk && runtime.GOMAXPROCS(0) > 1 }

// prepare readies b for a batch of n addresses, pc the first one looked
// up. Many addresses will touch most units: a parallel batch of at least
// readAheadMin, or of more than minChunk over a large .debug_info, makes b
// bulk (set before the DWARF loads: see loadModule) and inflates
// compressed sections ahead of the workers, so that they rarely wait,
// whole, on all cores, when they are not started yet. Any batch of more
// than one address tells the DWARF how dense it is (noteBatch).
func (b *Binary) prepare(pc uint64, n int, sorted func() []uint64) {
	if n <= 1 {
		return
	}
	bulk := parallelBatch(n) && (n >= readAheadMin || b.bigDWARF())
	if bulk {
		b.bulk.Store(true)
	}
	s := b.loadDWARF(pc)
	if s == nil {
		return
	}
	if bulk {
		b.bg.Go(func() { s.readAhead(&b.closed) })
	}
	s.noteBatch(n, sorted)
}

// endBatch ends what prepare set up for one batch: the line tables built
// after it (a later lookup's, in a unit the batch did not reach) keep all
// their rows, rather than those of addresses no longer asked for, which
// would have the table built twice.
func (b *Binary) endBatch() {
	if s := b.loaded.Load(); s != nil {
		s.keep.Store(nil)
	}
}

// bigDWARF reports whether b's .debug_info is at least bulkMinInfo bytes
// decompressed, or of a size its source cannot tell without reading it.
func (b *Binary) bigDWARF() bool {
	if s, ok := b.src.(sizedSource); ok {
		return s.dwarfSize(".debug_info") >= bulkMinInfo
	}
	return true
}

// evict takes the pages of the binary's mapped files out of the
// process's resident set once the Binary has run a bulk batch: after each
// chunk of a batch, and after each unit's index is built, in that batch or
// any lookup after it (elfx.File.Evict; they fault back in when read again,
// the file being mapped, not copied). A Binary that never ran a bulk batch
// (interactive lookups) keeps what it read, but for what it reads once
// (handBack, below). A large uncompressed
// debug file is read mostly once: a unit's top-level DIEs when it is
// scanned, a function's subtree and names when an address first lands in
// it, and what was read is indexed on the heap, so the pages would
// otherwise stay in the resident set until Close beside the indexes made
// of them. On a 144 MB clang -g file, 200,000 addresses touch 114 MB of
// it, most of it in the first window; evicting as units and chunks are
// done keeps about 80 MB of it resident at the peak, for about 4,500 more
// page faults (each maps 64 KiB of the page cache back). Inflated
// sections are anonymous memory and are not touched (.debug_line goes
// back on its own, linerelease.go).
func (b *Binary) evict() {
	if e, ok := b.src.(evicter); ok && b.bulk.Load() && !b.closed.Load() {
		e.evict()
	}
}

// handBack takes the pages of bytes read once to be indexed on the heap out
// of the process's resident set, in every Binary, bulk or not: the DIEs
// that the scan of a large unit has passed (inline.Options.Passed; a
// lookup reads again only those of the function it lands in), a line
// program once its table is built, and the units' range lists once the
// first lookup has read them to find its unit. Without it, the first
// lookup in a unit of a large uncompressed debug file held the whole
// unit's pages at once: on a clang -g C++ program with 10.8 MB units, 15.4
// of the 24.6 MB peak of a one-address run were the file's pages. What is
// read again faults back in from the page cache. Bytes that are not a
// mapped file's (inflated sections, a split unit's file) are left alone.
func (b *Binary) handBack(once []byte) {
	if e, ok := b.src.(evicter); ok && !b.closed.Load() {
		e.evictBytes(once)
	}
}

// cancelled yields err for the addresses [lo, hi) of a batch whose context
// is done.
func cancelled(lo, hi int, err error, yield func(int, []Frame, error) bool) {
	for i := lo; i < hi; i++ {
		if !yield(i, nil, err) {
			return
		}
	}
}

// batchWindow is how many addresses Batch sorts and symbolizes together.
const batchWindow = 2 * batchChunk

// chunkSize is how many addresses each chunk of a window (or of a
// Modules group) of n addresses takes: batchChunk, or about half of a
// smaller window, so that two workers share it, but not below minChunk.
func chunkSize(n int) int { return min(batchChunk, max(minChunk, (n+1)/2)) }

// chunkCount is how many chunks of chunkSize(n) n addresses make.
func chunkCount(n int) int { return (n + chunkSize(n) - 1) / chunkSize(n) }

// A window is a run of a batch's addresses, sorted, cut into chunks for
// the workers.
type window struct {
	index  int
	pcs    []uint64 // the window's addresses in ascending order
	pos    []int32  // pos[i]: where the window's i-th address sits in pcs
	chunk  int      // addresses per chunk
	chunks []*chunkResult
	left   atomic.Int32 // chunks not yet filled
}

// A job is one chunk of a window for a worker.
type job struct {
	w     *window
	chunk int
}

func newWindow(index int, in []uint64) *window {
	w := &window{index: index, pcs: make([]uint64, len(in)), pos: make([]int32, len(in))}
	if slices.IsSorted(in) {
		copy(w.pcs, in)
		for i := range w.pos {
			w.pos[i] = int32(i)
		}
	} else if shift := bits.Len(uint(len(in))); bits.Len64(slices.Max(in)) <= 64-shift {
		// Each address with its index in the low bits, sorted as plain
		// integers: several times faster than sorting the indexes
		// through a comparison function.
		keys := w.pcs // reused: each key becomes its address below
		for i, pc := range in {
			keys[i] = pc<<shift | uint64(i)
		}
		sortKeys(keys)
		mask := uint64(1)<<shift - 1
		for k, key := range keys {
			w.pos[key&mask] = int32(k)
			keys[k] = key >> shift
		}
	} else {
		order := make([]int32, len(in))
		for i := range order {
			order[i] = int32(i)
		}
		slices.SortFunc(order, func(a, b int32) int { return cmp.Compare(in[a], in[b]) })
		for k, i := range order {
			w.pcs[k] = in[i]
			w.pos[i] = int32(k)
		}
	}
	w.chunk = chunkSize(len(in))
	w.chunks = make([]*chunkResult, chunkCount(len(in)))
	w.left.Store(int32(len(w.chunks)))
	return w
}

// sortKeys sorts keys in increasing order. A window's keys, addresses of
// one module with an index below, span 30 to 40 bits: a least significant
// digit radix sort takes four passes of at most 11 bits over them, several
// times faster than a comparison sort. Fewer keys, or wider spans, are
// left to slices.Sort.
func sortKeys(keys []uint64) {
	const minRadix, maxPasses, maxDigit = 512, 4, 11
	if len(keys) < minRadix || len(keys) > 1<<31-1 {
		slices.Sort(keys)
		return
	}
	lo, hi := slices.Min(keys), slices.Max(keys)
	span := bits.Len64(hi - lo)
	passes := (span + maxDigit - 1) / maxDigit
	switch {
	case passes == 0:
		return // all equal
	case passes > maxPasses:
		slices.Sort(keys)
		return
	}
	width := (span + passes - 1) / passes
	tp := radixPool.Get().(*[]uint64)
	tmp := slices.Grow((*tp)[:0], len(keys))[:len(keys)]
	var count [1 << maxDigit]int32
	src, dst := keys, tmp
	mask := uint64(1)<<width - 1
	for p := range passes {
		sh := uint(p * width)
		clear(count[:mask+1])
		for _, k := range src {
			count[(k-lo)>>sh&mask]++
		}
		var sum int32
		for i, c := range count[:mask+1] {
			count[i], sum = sum, sum+c
		}
		for _, k := range src {
			d := (k - lo) >> sh & mask
			dst[count[d]] = k
			count[d]++
		}
		src, dst = dst, src
	}
	if passes%2 == 1 {
		copy(keys, src) // the last pass wrote tmp
	}
	*tp = tmp
	radixPool.Put(tp)
}

// radixPool holds sortKeys' scratch.
var radixPool = sync.Pool{New: func() any { return new([]uint64) }}

// emit yields the window's answers in the order of its input.
func (w *window) emit(base int, yield func(int, []Frame, error) bool) bool {
	for i, k := range w.pos {
		frames, err := w.chunks[int(k)/w.chunk].answer(int(k) % w.chunk)
		if !yield(base+i, frames, err) {
			return false
		}
	}
	return true
}

func (w *window) release() {
	for i, c := range w.chunks {
		if c != nil {
			c.reset()
			chunkPool.Put(c)
			w.chunks[i] = nil
		}
	}
}

// readAheadMin is the batch size from which Batch inflates lazily read
// sections ahead of its workers, whatever their size. A batch with
// workers does so from minChunk+1 addresses when .debug_info is at least
// bulkMinInfo bytes: a few hundred addresses already touch most units of a
// large library (on libradosgw's debug file, 300 random ones lead to units
// all over its 315 MB .debug_info, the first of them sorted by address
// too: cold code is laid out first), and waiting for one core to inflate
// up to them took 1.2-1.5 s where inflating the whole section on both
// cores takes 0.6.
const readAheadMin = 2 * batchChunk

// bulkMinInfo is the size of .debug_info from which a batch of more than
// minChunk addresses is bulk. Below it what bulk saves (the pages of the
// file and of .debug_line given back, a section inflated on all cores
// from 8 MiB) is small, and reading the sections ahead whole makes the
// first lookups wait for all of them: Modules.Batch over the fixtures (at
// most 0.8 MB of .debug_info each, 8 runs) took 5% longer with every
// group above minChunk bulk. cmd/go's 5.3 MiB is above it (1,000
// addresses: 2.7 MB less at the peak). A variable for tests.
var bulkMinInfo uint64 = 1 << 20

// readAhead inflates the lazy sections to their ends. A module loaded for
// a bulk batch has them whole already (loadModule inflates each on all
// cores, as elfx inflates a whole section): .debug_line is then set up
// to be given back. Otherwise they inflate a step at a time, so that
// lookups needing bytes are not held up behind the whole section, and
// stop when closed is set.
func (s *dwarfModule) readAhead(closed *atomic.Bool) {
	if s.bulk {
		s.aheadOnce.Do(s.prepareLineRelease)
		return
	}
	s.aheadOnce.Do(func() {
		const step = 8 << 20
		for _, l := range []*buf.Lazy{s.line, s.info} {
			if l == nil || l.Fetch == nil {
				continue
			}
			for n := uint64(step); ; n += step {
				if closed.Load() {
					return
				}
				if b, err := l.UpTo(n); err != nil || uint64(len(b)) >= l.Size {
					break
				}
			}
		}
	})
}

var chunkPool = sync.Pool{New: func() any { return new(chunkResult) }}

// chunkResult holds the answers for a run of addresses: frames packed in
// one slice, spans[i] saying where address i's frames are. Sorted
// addresses that share an answer share its frames: only the first of a
// run stores them, and answer copies them out with the symbol offset of
// the address asked for. So a window of profile samples or of a small
// program's addresses, many of them equal or neighbours, holds each
// answer once.
type chunkResult struct {
	frames  []Frame
	spans   []span
	errs    []error // nil, or one per address
	scratch []Frame // answer's copy of a shared run's frames
	hint    hint    // fill's, from one address to the next
	// deferred are the addresses fill answers last (their unit was
	// being built by another chunk when it reached them).
	deferred []int32
}

// A span is where one address's frames sit in chunkResult.frames, and the
// symbol offset of its outermost frame.
type span struct {
	start, end int32
	off        uint64
}

// reset empties c for reuse from chunkPool. errs goes back to nil, not to
// an empty slice: fill and emit take a non-nil errs to hold one error per
// address.
func (c *chunkResult) reset() {
	clear(c.frames) // drop string references
	clear(c.scratch)
	c.frames, c.spans, c.errs, c.scratch = c.frames[:0], c.spans[:0], nil, c.scratch[:0]
	c.hint.reset() // nor hold on to a Binary's unit
}

func (c *chunkResult) fill(b *Binary, pcs []uint64) {
	// Room for the frames the last chunk of b took, and an eighth more:
	// a chunk that grew its frames by appending would leave arrays of
	// about its final size behind (a chunk's frames take a megabyte).
	if want := int(b.chunkFrames.Load()) * (len(pcs) + 1) / batchChunk; cap(c.frames) < want {
		c.frames = make([]Frame, 0, want+want/8)
	}
	defer func() { b.chunkFrames.Store(int64(len(c.frames)) * batchChunk / int64(len(pcs)+1)) }()
	c.spans = slices.Grow(c.spans[:0], len(pcs))[:len(pcs)]
	c.hint.reset() // another Binary's, or stale
	st := fillState{prev: -1}
	// An address whose unit another chunk is building waits until the
	// end of the chunk, rather than this worker waiting for that one:
	// the two workers of a window otherwise meet in the unit where their
	// chunks join, or in a big one.
	s := b.loaded.Load()
	c.deferred = c.deferred[:0]
	for i, pc := range pcs {
		reuse := st.prev == i-1 && st.holds(pc)
		if !reuse && (s != nil && s.busy(pc, &c.hint) || testHookBusy != nil && testHookBusy(pc)) {
			c.deferred = append(c.deferred, int32(i))
			continue
		}
		c.one(b, pcs, i, &st)
	}
	for _, i := range c.deferred {
		c.one(b, pcs, int(i), &st)
	}
}

// testHookBusy, when set (by tests), makes fill defer the addresses it
// reports, as if their units were being built elsewhere.
var testHookBusy func(pc uint64) bool

// fillState is where fill stands: the address answered last (prev), and
// [lo, hi), where its answer holds too.
type fillState struct {
	lo, hi, prevPC uint64
	prev           int
}

// holds reports whether pc is in the range of the last answer.
func (st *fillState) holds(pc uint64) bool { return st.lo <= pc && pc < st.hi }

// one answers the chunk's i-th address. Sorted addresses that stay inside
// the range of the answer of the address before them (i-1, answered just
// before) reuse it without a search: an answer shared is shared by
// neighbours only, as answer expects.
func (c *chunkResult) one(b *Binary, pcs []uint64, i int, st *fillState) {
	pc := pcs[i]
	if st.prev == i-1 && i > 0 && st.holds(pc) && (c.errs == nil || c.errs[i-1] == nil) {
		sp := c.spans[i-1]
		if sp.end > sp.start && c.frames[sp.end-1].SymbolName != "" {
			sp.off += pc - st.prevPC
		}
		c.spans[i] = sp
		st.prevPC, st.prev = pc, i
		return
	}
	var err error
	start := len(c.frames)
	c.frames, st.lo, st.hi, err = b.appendFrames(c.frames, pc, &c.hint)
	st.prevPC, st.prev = pc, i
	if err != nil && c.errs == nil {
		c.errs = make([]error, len(pcs))
	}
	if c.errs != nil {
		c.errs[i] = err
	}
	sp := span{start: int32(start), end: int32(len(c.frames))}
	if sp.end > sp.start {
		sp.off = c.frames[sp.end-1].SymbolOffset
	}
	c.spans[i] = sp
}

// answer returns the frames and error of the chunk's i-th address. The
// frames of a run that shares them are a copy, valid until the next call.
func (c *chunkResult) answer(i int) ([]Frame, error) {
	var err error
	if c.errs != nil {
		err = c.errs[i]
	}
	sp := c.spans[i]
	frames := c.frames[sp.start:sp.end:sp.end]
	if (i > 0 && c.spans[i-1].start == sp.start) || (i+1 < len(c.spans) && c.spans[i+1].start == sp.start) {
		// Shared with a neighbour: a copy, so that a caller writing to
		// its frames does not change the next address's answer.
		c.scratch = append(c.scratch[:0], frames...)
		frames = c.scratch[:len(frames):len(frames)]
		if n := len(frames); n > 0 {
			frames[n-1].SymbolOffset = sp.off
		}
	}
	return frames, err
}

func (c *chunkResult) emit(base int, yield func(int, []Frame, error) bool) bool {
	for i := range c.spans {
		frames, err := c.answer(i)
		if !yield(base+i, frames, err) {
			return false
		}
	}
	return true
}
