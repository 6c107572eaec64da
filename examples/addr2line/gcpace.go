package main

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
)

// gcHeadroom is the least the heap may grow past what the last collection
// left live before the next collection starts.
//
// The command's heap is mostly indexes that live until it exits, built up
// from a near-empty heap. With GOGC's default a collection starts at 4 MB
// and again each time the heap doubles: seven of them on cmd/go's 200,000
// addresses, five while the heap was under 11 MB, each marking again what
// the one before had marked, with write barriers on meanwhile. A headroom
// of 32 MB (GOGC set to 32 MB over the live heap, at most 400%) lets a
// small heap grow by that much between collections (one on cmd/go), and a
// heap of more than 32 MB live double as before, so a large input's peak
// is about what it was. Measured in bench/RESULTS.md (2026-12-07): cmd/go
// 173.0 against 154.8 ms, 38.3 against 41.3 MB (gimli's: 43.3 MB); 16 MB
// gave 161.1 ms and 39.3 MB. The peaks of libradosgw's and the
// one-address runs did not move; the C++ program's 200,000 addresses
// peaked 5 MB higher in 3 runs (118 against 113 MB; gimli's: 165).
const gcHeadroom = 32 << 20

// paceGC keeps the collector's headroom at least gcHeadroom, unless $GOGC
// is set, which then decides alone: it sets GOGC for the live heap now and
// after each collection, until the live heap is past gcHeadroom.
func paceGC() {
	if os.Getenv("GOGC") != "" {
		return
	}
	p := &gcPacer{sample: []metrics.Sample{{Name: "/gc/heap/live:bytes"}}}
	if p.set() {
		p.arm()
	}
}

// gcPercent returns GOGC for a live heap of live bytes: gcHeadroom over
// it, between 100 and 400 percent (400 for an empty heap, so that the
// first collection starts at 16 MB rather than 4).
func gcPercent(live uint64) int {
	if live == 0 {
		return 400
	}
	return int(min(max(100*gcHeadroom/live, 100), 400))
}

// A gcPacer sets GOGC after each collection.
type gcPacer struct {
	sample  []metrics.Sample
	percent int
}

// gcSentinel is what a gcPacer waits to see collected.
type gcSentinel struct{ _ [64]byte }

// arm has p.set run after the next collection: an object's cleanup runs
// once a collection has found it unreachable, and nothing refers to a
// sentinel.
func (p *gcPacer) arm() {
	runtime.AddCleanup(new(gcSentinel), func(p *gcPacer) {
		if p.set() {
			p.arm()
		}
	}, p)
}

// set sets GOGC for the live heap and reports whether it is still above
// 100, the headroom mattering. Only one call runs at a time: each arms the
// next.
func (p *gcPacer) set() bool {
	metrics.Read(p.sample)
	var live uint64
	if p.sample[0].Value.Kind() == metrics.KindUint64 {
		live = p.sample[0].Value.Uint64()
	}
	p.percent = gcPercent(live)
	debug.SetGCPercent(p.percent)
	return p.percent > 100
}
