package buf

import (
	"sync"
	"sync/atomic"
)

// Lazy is a section whose bytes become available front to back, such as a
// compressed section inflated only as far as its readers need. It is safe
// for concurrent use. A nil Fetch makes it a plain byte slice.
type Lazy struct {
	// Fetch returns at least the first n bytes (all of them when n >=
	// Size); a slice it returned stays valid after later calls.
	Fetch func(n uint64) ([]byte, error)
	Size  uint64
	// Release, when set, is told that bytes [off, off+n) will not be
	// read again, so that memory holding them may be given back (they
	// may read as zeros afterwards).
	Release func(off, n uint64)
	// Again, when set, returns the whole section inflated anew (a Lazy
	// with its bytes, and a Release of their own), for a reader that
	// needs bytes after Release gave them back.
	Again func() (*Lazy, error)

	mu  sync.Mutex
	cur atomic.Pointer[[]byte]
}

// NewLazy returns a Lazy over fetch, or over data when fetch is nil.
func NewLazy(data []byte, size uint64, fetch func(n uint64) ([]byte, error)) *Lazy {
	l := &Lazy{Fetch: fetch, Size: size}
	if fetch == nil {
		l.Size = uint64(len(data))
	}
	l.cur.Store(&data)
	return l
}

// UpTo returns bytes covering at least [0, end), or the whole section when
// it is shorter. The first caller to need more fetches it, at most
// fetchStep bytes at a time, so that a reader of bytes already fetched
// waits at most one step behind a reader of bytes far ahead; others that
// need more wait. A reader of the whole section fetches it in one call
// (elfx then inflates it on all cores).
func (l *Lazy) UpTo(end uint64) ([]byte, error) {
	for {
		cur := *l.cur.Load()
		if uint64(len(cur)) >= end || l.Fetch == nil || uint64(len(cur)) >= l.Size {
			return cur, nil
		}
		if more, err := l.step(end); err != nil || !more {
			return *l.cur.Load(), err
		}
	}
}

// fetchStep is how far past what is available one Fetch goes when a
// reader needs more: readers of bytes already fetched wait at most one
// step for the lock.
const fetchStep = 4 << 20

// step fetches up to fetchStep more bytes toward end, unless another
// caller has meanwhile; more is false when Fetch gave no more bytes.
func (l *Lazy) step(end uint64) (more bool, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	cur := *l.cur.Load()
	if uint64(len(cur)) >= end {
		return true, nil
	}
	want := min(end, l.Size)
	if uint64(len(cur))+fetchStep < want && want < l.Size {
		want = uint64(len(cur)) + fetchStep
	}
	b, err := l.Fetch(want)
	if err != nil {
		return false, err
	}
	if len(b) <= len(cur) {
		return false, nil
	}
	l.cur.Store(&b)
	return true, nil
}

// Unit returns the bytes of the DWARF unit at off (initial length, header
// and contents: whatever its initial length covers), fetching them if
// needed. The result is the whole available section; a unit whose length
// runs past Size, or an off past the end, is left for the decoder to
// report. off may be anything (a DW_AT_stmt_list is untrusted): every
// sum below stays within Size, so none wraps.
func (l *Lazy) Unit(off uint64) ([]byte, error) {
	if off >= l.Size {
		return l.UpTo(0)
	}
	b, err := l.UpTo(off + min(12, l.Size-off)) // the longest initial length
	if err != nil || off > uint64(len(b)) || uint64(len(b))-off < 4 {
		return b, err
	}
	r := Reader{data: b, end: len(b), off: int(off)}
	n, _ := r.InitialLength()
	if r.err != nil || n > l.Size || r.Offset() > l.Size {
		return b, nil
	}
	return l.UpTo(r.Offset() + min(n, l.Size-r.Offset()))
}
