package symbolize

import (
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/symbolize-go/symbolize/internal/buf"
)

// batchChunk is how many addresses one worker symbolizes at a time.
const batchChunk = 2048

// Batch symbolizes many addresses and calls yield for each, in the order of
// pcs, with its frames (as AppendFrames would append them) and any error for
// that address alone: a corrupt unit fails the addresses that land in it,
// not the batch. frames is reused after yield returns. Returning false
// from yield stops the batch.
//
// Large batches are cut into chunks symbolized on all cores
// (runtime.GOMAXPROCS) while yield consumes earlier chunks in order. A run
// of sorted addresses that share an answer (the same line-table row,
// inline chain and symbol, as in profiles) is symbolized once: the later
// ones cost a comparison and a copy, not a search.
func (b *Binary) Batch(pcs []uint64, yield func(i int, frames []Frame, err error) bool) {
	workers := runtime.GOMAXPROCS(0)
	if len(pcs) <= batchChunk || workers < 2 {
		var c chunkResult
		c.fill(b, pcs)
		c.emit(0, yield)
		return
	}
	if len(pcs) >= readAheadMin {
		// Many addresses will touch most units: inflate compressed
		// sections ahead of the workers, so that they rarely wait.
		if s, _ := b.loadDWARF(pcs[0]); s != nil {
			go s.readAhead(&b.closed)
		}
	}
	nchunks := (len(pcs) + batchChunk - 1) / batchChunk
	results := make([]*chunkResult, nchunks)
	done := make([]chan struct{}, nchunks)
	for i := range done {
		done[i] = make(chan struct{})
	}
	// Workers take chunks in order; at most 2*workers chunks are held
	// ahead of the consumer, bounding memory.
	ahead := make(chan struct{}, 2*workers)
	next := make(chan int)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for ci := range next {
				c := chunkPool.Get().(*chunkResult)
				lo := ci * batchChunk
				c.fill(b, pcs[lo:min(lo+batchChunk, len(pcs))])
				results[ci] = c
				close(done[ci])
			}
		})
	}
	go func() {
		defer close(next)
		for ci := range nchunks {
			select {
			case ahead <- struct{}{}:
			case <-stop:
				return
			}
			select {
			case next <- ci:
			case <-stop:
				return
			}
		}
	}()
	ok := true
	for ci := 0; ci < nchunks && ok; ci++ {
		<-done[ci]
		c := results[ci]
		ok = c.emit(ci*batchChunk, yield)
		results[ci] = nil
		c.reset()
		chunkPool.Put(c)
		<-ahead
	}
	close(stop)
	wg.Wait()
	for _, c := range results {
		if c != nil {
			c.reset()
			chunkPool.Put(c)
		}
	}
}

// readAheadMin is the batch size from which Batch inflates lazily read
// sections ahead of its workers.
const readAheadMin = 2 * batchChunk

// readAhead inflates the lazy sections to their ends, a step at a time so
// that lookups needing bytes are not held up behind the whole section. It
// stops when closed is set.
func (s *dwarfState) readAhead(closed *atomic.Bool) {
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
// one slice, ends[i] marking where address i's frames stop.
type chunkResult struct {
	frames []Frame
	ends   []int
	errs   []error // nil, or one per address
}

func (c *chunkResult) reset() {
	clear(c.frames) // drop string references
	c.frames, c.ends, c.errs = c.frames[:0], c.ends[:0], c.errs[:0]
}

func (c *chunkResult) fill(b *Binary, pcs []uint64) {
	// [lo, hi) is where the previous address's answer holds too: sorted
	// addresses that stay inside it reuse that answer without a search.
	var lo, hi, prevPC uint64
	prevStart := 0
	for i, pc := range pcs {
		start := len(c.frames)
		var err error
		if i > 0 && lo <= pc && pc < hi && (c.errs == nil || c.errs[i-1] == nil) {
			c.frames = append(c.frames, c.frames[prevStart:start]...)
			if out := &c.frames[len(c.frames)-1]; out.SymbolName != "" {
				out.SymbolOffset += pc - prevPC
			}
		} else {
			c.frames, lo, hi, err = b.appendFrames(c.frames, pc)
		}
		prevPC, prevStart = pc, start
		if err != nil && c.errs == nil {
			c.errs = make([]error, len(pcs))
		}
		if c.errs != nil {
			c.errs[i] = err
		}
		c.ends = append(c.ends, len(c.frames))
	}
}

func (c *chunkResult) emit(base int, yield func(int, []Frame, error) bool) bool {
	start := 0
	for i, end := range c.ends {
		var err error
		if c.errs != nil {
			err = c.errs[i]
		}
		if !yield(base+i, c.frames[start:end:end], err) {
			return false
		}
		start = end
	}
	return true
}
