package inflate

import (
	"errors"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/symbolize-go/symbolize/internal/mmap"
)

// DecodeParallel is DecodeTo(out, 0) on up to workers goroutines
// (GOMAXPROCS when workers <= 0): it decodes the stream from its start
// into out and returns the same count, the same bytes and the same
// error, io.EOF at the end of the stream included; the Decoder is left
// where that DecodeTo would leave it, so DecodeTo(out, n) may follow (to
// check that the stream ends, for one). With SetCheckpoints it takes the
// same checkpoints. The Decoder must not have decoded anything yet.
//
// It splits the compressed stream into parts of a few MB. The first part
// decodes as usual, straight into out. For each later part a worker looks
// for a dynamic Huffman block header at or past the part's start
// (findBlock) and decodes from there without knowing the 32 KiB before
// it: back-references into that window are kept as markers (spec16)
// until 32 KiB of output hold none, then the fast loop takes over, into
// buffers of the part's own. A part is used only if the decoding before
// it stops exactly at its first block header; its markers are then
// resolved from the window in out and its bytes copied after it. A part
// that starts elsewhere, fails or would not fit is decoded again in
// order, by the ordinary decoder, which also reports any error. Parts
// are handed out in order and at most a few ahead of the ordered
// decoding, which bounds the buffers to a few times a part's output.
//
// Streams under 2 MB, and workers == 1, are decoded by DecodeTo alone.
//
// On libradosgw's .debug_info (143 MB of zlib, 314 MB out) two workers
// take about 0.55 times one's wall time, for about 1.1 times its CPU
// time (bench/RESULTS.md).
func (d *Decoder) DecodeParallel(out []byte, workers int) (int, error) {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	return d.decodeParallel(out, workers, defaultPart)
}

// SetProgress makes DecodeParallel call f with Consumed each time its
// ordered decoding has passed another part of the input, from one
// goroutine at a time, so that a caller may drop the input behind it as
// DecodeTo's callers do between calls (elfx releases a mapped file's
// compressed pages as they are inflated, not all at the end). Speculative
// parts may still read input behind that point after the ordered decoding
// passed them, to no effect on the result: dropped pages of a mapped file
// fault back in.
func (d *Decoder) SetProgress(f func(consumed int)) { d.progress = f }

// defaultPart is the compressed size of a part, in bytes; a stream is
// cut into at most maxParts.
const (
	defaultPart = 4 << 20
	maxParts    = 1024
)

// Buffers of a speculative part hold segSize bytes of output after a copy
// of the 32 KiB before them. A part whose first phase (spec) does not end
// within its first buffer fails.
const segSize = 8 << 20

// bound is a block boundary a part met: the output offset (from the
// part's start) and the input bit offset.
type bound struct{ out, bit int64 }

// reset prepares d to decode src as a part, from bit 0, keeping its
// tables' memory.
func (d *Decoder) reset(src []byte) {
	d.in, d.pos, d.bits, d.nbits = src, 0, 0, 0
	d.state, d.final, d.stored, d.copyLen, d.copyDist, d.fixed = stHeader, false, 0, 0, 0, false
	d.total, d.zlib, d.adler, d.err = 0, false, 0, nil
	d.win, d.rpos, d.wend = nil, 0, 0
	d.cpEvery, d.cpNext, d.cps, d.callStart, d.adlerAt = 0, 0, nil, 0, 0
	d.stopAt, d.stopped, d.part, d.record, d.bounds = 0, false, true, false, nil
}

// part states
const (
	ptIdle    = iota // not started
	ptRunning        // a worker decodes it speculatively
	ptReady          // decoded speculatively, waiting to be placed
	ptFailed         // speculation failed, or its start was not a block boundary
	ptOrdered        // the ordered decoder has it, or passed it
)

type part struct {
	lo, hi int64 // the compressed bits where its first block is looked for

	find  sync.Once
	start int64 // the block header found, or -1

	state int // under par.mu

	// The result: segs hold the bytes, each after a copy of the 32 KiB
	// before it (for the first, a stand-in for the unknown window); of
	// the first known bytes, some are not known until log is replayed
	// (spec).
	segs   [][]byte
	log    []logged
	known  int    // the first phase's output bytes: log rewrites some of them
	n      int64  // output bytes in all
	adler  uint32 // Adler-32 (from 1) of the bytes after the first known
	end    int64  // the bit where it stopped
	final  bool   // it ended with the stream's final block
	bounds []bound

	job []byte // once placed: where the bytes of segs not yet copied go
}

// copyTail copies bytes [a, b) of the part's segments to dst[a:b].
func (pt *part) copyTail(dst []byte, a, b int) {
	off := 0
	for _, s := range pt.segs {
		data := s[windowSize:]
		if lo, hi := max(a, off), min(b, off+len(data)); lo < hi {
			copy(dst[lo:hi], data[lo-off:hi-off])
		}
		off += len(data)
	}
}

// testHookWindow, when set (by tests), runs in work while it holds no
// lock between two looks at the state.
var testHookWindow atomic.Pointer[func()]

// partsPlaced counts the speculative parts used, over all decodes: the
// tests check that they exercise that path and not only the fallback.
// segmentsMapped counts the segment buffers allocated outside the heap.
var partsPlaced, segmentsMapped atomic.Int64

// par is one parallel decode.
type par struct {
	d     *Decoder
	src   []byte
	out   []byte
	parts []*part

	mu     sync.Mutex
	cond   sync.Cond
	gen    uint64 // broadcasts so far (under mu): see work
	r      int    // the part the ordered decoder is in
	busy   bool   // a worker is using d
	done   bool
	n      int
	err    error
	cancel atomic.Bool
	free   [][]byte // segment buffers for reuse
	jobs   []*part  // placed parts with bytes still to copy
	ahead  int      // how far ahead of r a part may be started
	smu    sync.Mutex
	spare  []scratch // idle scratch decoders
	placed int       // parts placed (for tests)

	// Segment buffers allocated, in bytes, and their bound: half of
	// out, plus two a worker (a part that needs more fails).
	allocated, budget int
	// anon holds the segment buffers allocated outside the Go heap,
	// unmapped when the decode returns: on the heap, the tens of MB that
	// a large stream's parts hold at once would stay with the process
	// (free, but its) for the rest of its run.
	anon [][]byte
}

func (d *Decoder) decodeParallel(out []byte, workers, partSize int) (int, error) {
	if d.err != nil {
		return 0, d.err
	}
	if d.total != 0 || d.state != stHeader || d.win != nil {
		return 0, errors.New("inflate: DecodeParallel: the Decoder has decoded already")
	}
	// At most maxParts parts: the bookkeeping stays a small share
	// whatever the part size asked for.
	partSize = max(partSize, (len(d.in)-d.pos)/maxParts)
	nparts := (len(d.in) - d.pos) / partSize
	if workers <= 1 || nparts < 2 {
		return d.DecodeTo(out, 0)
	}
	p := &par{d: d, src: d.in, out: out, ahead: workers + 1}
	p.budget = len(out)/2 + 2*workers*(windowSize+segSize)
	p.cond.L = &p.mu
	base := int64(d.pos) * 8
	for i := range nparts {
		lo := base + int64(i)*int64(partSize)*8
		hi := base + int64(i+1)*int64(partSize)*8
		if i == nparts-1 {
			hi = int64(len(d.in)) * 8
		}
		p.parts = append(p.parts, &part{lo: lo, hi: hi, start: -1})
	}
	p.parts[0].start = base
	p.parts[0].find.Do(func() {})
	p.parts[0].state = ptOrdered
	var wg sync.WaitGroup
	for range workers - 1 {
		wg.Go(p.work)
	}
	p.work()
	wg.Wait()
	for _, b := range p.anon {
		mmap.Free(b)
	}
	partsPlaced.Add(int64(p.placed))
	return p.n, p.err
}

// startOf returns part i's first block header, searching once.
func (p *par) startOf(i int) int64 {
	pt := p.parts[i]
	pt.find.Do(func() {
		sc := p.getScratch()
		pt.start = findBlock(sc.d, sc.s, sc.buf, p.src, pt.lo, pt.hi)
		p.putScratch(sc)
	})
	return pt.start
}

// scratch is a worker's decoder, with a buffer for trials.
type scratch struct {
	d   *Decoder
	s   *spec
	buf []byte
}

func (p *par) getScratch() scratch {
	p.smu.Lock()
	defer p.smu.Unlock()
	if k := len(p.spare); k > 0 {
		sc := p.spare[k-1]
		p.spare = p.spare[:k-1]
		return sc
	}
	// No trial needs more output than out could take.
	return scratch{new(Decoder), new(spec), make([]byte, windowSize+min(trialOut, len(p.out)+fastOut))}
}

func (p *par) putScratch(sc scratch) {
	p.smu.Lock()
	p.spare = append(p.spare, sc)
	p.smu.Unlock()
}

// nextStart returns the first part after i with a block header found,
// and that header's bit; len(parts), 0 if none.
func (p *par) nextStart(i int) (int, int64) {
	for j := i + 1; j < len(p.parts); j++ {
		if s := p.startOf(j); s >= 0 {
			return j, s
		}
	}
	return len(p.parts), 0
}

// work is one worker's loop: the ordered decoder's next step when it is
// free, else a speculative part, else waiting.
func (p *par) work() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for !p.done || len(p.jobs) > 0 {
		if k := len(p.jobs); k > 0 {
			pt := p.jobs[0]
			p.jobs = p.jobs[1:]
			p.mu.Unlock()
			pt.copyTail(pt.job, 0, len(pt.job))
			p.mu.Lock()
			pt.job = nil
			p.release(pt)
			p.broadcast()
			continue
		}
		if p.done {
			break
		}
		if !p.busy {
			r := p.r
			take := p.parts[r].state != ptRunning
			if !take {
				// Wait for a part being decoded from where d stands,
				// not for one that started elsewhere.
				// Whatever another worker changed while the lock was
				// let go, it announced with a broadcast that nobody
				// waited for: then look again from the top, rather than
				// wait for one more (which may never come: the stream
				// may have ended).
				g := p.gen
				p.mu.Unlock()
				s := p.startOf(r)
				if h := testHookWindow.Load(); h != nil {
					(*h)()
				}
				p.mu.Lock()
				if p.gen != g {
					continue
				}
				take = !p.busy && p.r == r && (p.parts[r].state != ptRunning || s != p.d.bitPos())
			}
			if take && !p.done {
				p.busy = true
				p.mu.Unlock()
				p.step()
				if f := p.d.progress; f != nil {
					f(p.d.Consumed()) // d is this worker's while busy
				}
				p.mu.Lock()
				p.busy = false
				p.broadcast()
				continue
			}
		}
		if j := p.idle(); j >= 0 {
			p.parts[j].state = ptRunning
			p.mu.Unlock()
			ok := p.speculate(p.parts[j], j)
			p.mu.Lock()
			switch {
			case p.parts[j].state != ptRunning:
				p.release(p.parts[j]) // the ordered decoder passed it
			case ok:
				p.parts[j].state = ptReady
			default:
				p.release(p.parts[j])
				p.parts[j].state = ptFailed
			}
			p.broadcast()
			continue
		}
		p.cond.Wait()
	}
}

// idle returns the first part after r not yet started, within reach, or -1.
func (p *par) idle() int {
	for j := p.r + 1; j < len(p.parts) && j <= p.r+p.ahead; j++ {
		if p.parts[j].state == ptIdle {
			return j
		}
	}
	return -1
}

// release returns a part's buffers to the free list (under mu); once no
// part after the ordered decoder's is left to start, they are given back
// instead: the running parts hold what they need, and a large stream's
// output is nearly all in out by then, beside them.
func (p *par) release(pt *part) {
	for _, s := range pt.segs {
		p.free = append(p.free, s[:cap(s)])
	}
	if !slices.ContainsFunc(p.parts[min(p.r+1, len(p.parts)):], func(q *part) bool { return q.state == ptIdle }) {
		for _, s := range p.free {
			p.allocated -= len(s)
			if i := slices.IndexFunc(p.anon, func(a []byte) bool { return &a[0] == &s[0] }); i >= 0 {
				mmap.Free(p.anon[i])
				p.anon = slices.Delete(p.anon, i, i+1)
			}
		}
		clear(p.free)
		p.free = p.free[:0]
	}
	pt.segs, pt.log, pt.bounds = nil, nil, nil
}

// step advances the ordered decoder d by one part: it places part r if
// that was decoded speculatively from where d stands, else decodes on
// itself to the next part's header. It runs with p.busy set, outside mu.
func (p *par) step() {
	d := p.d
	p.mu.Lock()
	pt := p.parts[p.r]
	ready := pt.state == ptReady && pt.start == d.bitPos()
	if !ready && pt.state != ptOrdered {
		if pt.state == ptReady {
			p.release(pt)
		}
		pt.state = ptOrdered
	}
	p.mu.Unlock()

	placed := ready && p.place(pt)
	if placed {
		p.placed++ // only the one using d writes it
	}
	if placed && pt.job != nil {
		p.mu.Lock()
		p.jobs = append(p.jobs, pt)
		pt.state = ptOrdered
		p.mu.Unlock()
		ready = false // released by the job
	}
	if ready {
		p.mu.Lock()
		p.release(pt)
		pt.state = ptOrdered
		p.mu.Unlock()
	}
	if placed && pt.final {
		// The trailer.
		_, err := d.DecodeTo(p.out, int(d.total))
		p.finish(int(d.total), err)
		return
	}
	if !placed {
		// Decode in order up to the next part's block header.
		j, s := p.nextStart(p.r)
		d.stopAt, d.stopped = s, false
		_, err := d.DecodeTo(p.out, int(d.total))
		if err != nil || !d.stopped {
			// The end of the stream, an error, or out is full.
			d.stopAt = 0
			p.finish(int(d.total), err)
			return
		}
		d.stopAt, d.stopped = 0, false
		p.mu.Lock()
		p.r = j
		if d.bitPos() != s {
			// Not a real block header: the ordered decoder passed it.
			if p.parts[j].state == ptReady {
				p.release(p.parts[j])
			}
			p.parts[j].state = ptOrdered
		}
		p.mu.Unlock()
		return
	}
	// Placed: on to the next part with a header, which this one stopped at
	// or passed.
	j, s := p.nextStart(p.r)
	p.mu.Lock()
	defer p.mu.Unlock()
	if j == len(p.parts) {
		// Cannot happen: a part that is not final stopped at a header.
		p.finishLocked(int(d.total), errors.New("inflate: parallel: part ends at no header"))
		return
	}
	p.r = j
	if d.bitPos() != s {
		if p.parts[j].state == ptReady {
			p.release(p.parts[j])
		}
		p.parts[j].state = ptOrdered
	}
}

// broadcast wakes the waiting workers after a change of state (under mu).
func (p *par) broadcast() {
	p.gen++
	p.cond.Broadcast()
}

func (p *par) finish(n int, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.finishLocked(n, err)
}

func (p *par) finishLocked(n int, err error) {
	p.n, p.err, p.done = n, err, true
	p.cancel.Store(true)
	p.broadcast()
}

// place resolves part pt's markers from the window in out, copies its
// bytes after it and moves d to its end, checkpoints and checksum
// included. It reports false, changing nothing of d, if the part does
// not fit in out or reaches before the start of the stream.
func (p *par) place(pt *part) bool {
	d, out := p.d, p.out
	base := int(d.total)
	if int64(len(out)-base) < pt.n {
		return false
	}
	// The real window, then the bytes that were not known.
	seg := pt.segs[0]
	w := min(base, windowSize)
	for _, m := range pt.log {
		if int(m.at)-int(m.dist) < windowSize-w {
			return false // reaches before the start of the stream
		}
	}
	copy(seg[windowSize-w:windowSize], out[base-w:base])
	replay(seg, pt.log)

	// Without checkpoints, only the last 32 KiB are copied here, as the
	// window for what follows; the rest is a job for any worker.
	all := out[base : int64(base)+pt.n]
	async := 0
	if d.cpEvery == 0 {
		async = max(len(all)-windowSize, 0)
	}
	pt.copyTail(all, async, len(all))
	if async > 0 {
		pt.job = all[:async]
	}
	end := int64(base) + pt.n
	first := seg[windowSize : windowSize+pt.known]
	if d.zlib {
		if d.cpEvery > 0 {
			// The checkpoints need the checksum at each of them.
			at := base
			for _, b := range pt.bounds {
				if c := int64(base) + b.out; c >= d.cpNext {
					d.adler = adler32(d.adler, out[at:c])
					at = int(c)
					p.checkpoint(at, b.bit)
				}
			}
			d.adler = adler32(d.adler, out[at:end])
		} else {
			d.adler = adler32(d.adler, first)
			d.adler = adler32Combine(d.adler, pt.adler, pt.n-int64(len(first)))
		}
	} else if d.cpEvery > 0 {
		for _, b := range pt.bounds {
			if c := int64(base) + b.out; c >= d.cpNext {
				p.checkpoint(int(c), b.bit)
			}
		}
	}
	d.total = end
	d.seek(pt.end)
	d.state, d.final, d.fixed, d.stored, d.copyLen = stHeader, false, false, 0, 0
	if pt.final {
		d.state = stTrailer
	}
	return true
}

// checkpoint records a Checkpoint at out[at], input bit bit, with d.adler
// the checksum of out[:at].
func (p *par) checkpoint(at int, bit int64) {
	d := p.d
	w := min(at, windowSize)
	d.cps = append(d.cps, Checkpoint{
		Out:    int64(at),
		in:     bit,
		window: append([]byte(nil), p.out[at-w:at]...),
		adler:  d.adler,
		zlib:   d.zlib,
	})
	d.cpNext = int64(at) + d.cpEvery
}

// speculate decodes part i from its first block header to the first
// block header at or past the next part's, into pt's buffers. It reports
// false if there is no header, the decoding fails or runs past out's
// size, or the decode as a whole is over.
func (p *par) speculate(pt *part, i int) bool {
	start := p.startOf(i)
	if start < 0 {
		return false
	}
	_, stop := p.nextStart(i)
	sc := p.getScratch()
	defer p.putScratch(sc)
	d, s := sc.d, sc.s
	d.reset(p.src)
	d.seek(start)
	d.stopAt = stop
	d.record = p.d.cpEvery > 0
	limit := int64(len(p.out))
	pt.adler = 1

	// The first phase, to where the output is clean, must fit in the
	// first segment.
	seg := p.segment()
	if seg == nil {
		return false
	}
	s.start(d, seg, true)
	if err := s.run(); err != nil {
		pt.segs = append(pt.segs, seg[:windowSize])
		return false
	}
	pt.log = append(pt.log[:0], s.log...)
	pt.known = s.o - windowSize
	n := s.o
	pt.n = int64(n - windowSize)
	if !d.stopped && d.state != stTrailer {
		// The output is clean: the ordinary decoder from here on.
		d.total = pt.n
		d.zlib, d.adler = true, 1
		for {
			if p.cancel.Load() || pt.n > limit {
				pt.segs = append(pt.segs, seg[:n])
				return false
			}
			m, err := d.DecodeTo(seg[:min(n+1<<20, len(seg))], n)
			n += m
			pt.n += int64(m)
			if err != nil {
				pt.segs = append(pt.segs, seg[:n])
				return false
			}
			if d.stopped || d.state == stTrailer {
				break
			}
			if n == len(seg) {
				pt.segs = append(pt.segs, seg)
				next := p.segment()
				if next == nil {
					return false
				}
				copy(next, seg[n-windowSize:n])
				seg, n = next, windowSize
			} else if m == 0 {
				pt.segs = append(pt.segs, seg[:n])
				return false // cannot happen: DecodeTo progresses
			}
		}
		pt.adler = d.adler
	}
	pt.segs = append(pt.segs, seg[:n])
	pt.end, pt.final = d.bitPos(), d.state == stTrailer
	pt.bounds = d.bounds
	return pt.n <= limit
}

// segment returns a buffer for a part's bytes, or nil once the buffers
// allocated reach their budget (see budget).
func (p *par) segment() []byte {
	p.mu.Lock()
	defer p.mu.Unlock()
	if k := len(p.free); k > 0 {
		s := p.free[k-1]
		p.free = p.free[:k-1]
		return s
	}
	// A part's output fits in out, or the part fails.
	n := windowSize + min(segSize, len(p.out)+fastOut)
	if p.allocated+n > p.budget {
		return nil
	}
	p.allocated += n
	if b := mmap.Anon(n); b != nil {
		p.anon = append(p.anon, b)
		segmentsMapped.Add(1)
		return b
	}
	return make([]byte, n)
}
