package elfx

import (
	"unsafe"

	"github.com/symbolize-go/symbolize/internal/mmap"
	"github.com/symbolize-go/symbolize/locate"
)

// dropPayload releases the resident pages of the file bytes [off, off+n)
// when the file is mapped by Open and not yet closed (never for
// caller-owned bytes, whose pages must not be discarded).
func (f *File) dropPayload(off, n uint64) {
	if d, ok := f.closer.(dropper); ok {
		d.Drop(off, n)
	}
}

// Evict takes every resident page of a file mapped by Open or
// NewLocated out of the process's resident set. Nothing is lost, and
// slices of the file stay valid: the mapping is of the file itself, so
// its bytes stay in the page cache and fault back in when read again (at
// the cost of a page fault per 64 KiB or so). Inflated sections, which
// live in anonymous memory, are not touched. A long batch over a large
// uncompressed debug file calls it now and then, so that the pages it
// read once (the names of functions already indexed, the DIEs of units
// already scanned) do not all count against the process at once. It does
// nothing for files made by NewBytes or NewReaderAt, nor after Close.
func (f *File) Evict() { f.dropPayload(0, f.size) }

// EvictBytes takes the resident pages wholly within b out of the
// process's resident set, as Evict does for the whole file, when b lies
// within the mapping of a file mapped by Open or NewLocated (an
// uncompressed section's Data, or part of it). Any other bytes (an
// inflated section's, a copy, a file made by NewBytes) are left alone,
// so a caller need not know where the bytes it is done with came from.
func (f *File) EvictBytes(b []byte) {
	if len(b) == 0 || len(f.data) == 0 {
		return
	}
	base := uintptr(unsafe.Pointer(unsafe.SliceData(f.data)))
	p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	if p < base || p-base > uintptr(len(f.data)) || uintptr(len(f.data))-(p-base) < uintptr(len(b)) {
		return
	}
	f.dropPayload(uint64(p-base), uint64(len(b)))
}

// dropper is a mapped file's closer: a *mmap.Mapping from Open, or a
// mapped *locate.File from NewLocated.
type dropper interface{ Drop(off, n uint64) }

var _ dropper = (*mmap.Mapping)(nil)

// mapper is a closer that can say whether the file is mapped: a
// *mmap.Mapping from Open, or a *locate.File from NewLocated.
type mapper interface{ Mapped() bool }

var (
	_ mapper  = (*mmap.Mapping)(nil)
	_ mapper  = (*locate.File)(nil)
	_ dropper = (*locate.File)(nil)
)

// alloc returns n zeroed bytes for a section's inflated data. For a
// mapped file they are anonymous memory outside the Go heap, released by
// Close: the section data of a mapped file is already invalid after
// Close, and inflated sections are the largest buffers we hold (hundreds
// of MB for a distribution debug file), which on the heap would raise
// the garbage collector's goal by as much, and with it the peak of
// garbage kept around. Other files get heap memory, valid as long as it
// is referenced.
//
// anon reports that the bytes are outside the heap (Section.Release may
// give their pages back).
func (f *File) alloc(n uint64) (b []byte, anon bool) {
	if m, ok := f.closer.(mapper); ok && m.Mapped() && n > 0 && uint64(int(n)) == n {
		if b := mmap.Anon(int(n)); b != nil {
			f.anonMu.Lock()
			f.anon = append(f.anon, b)
			f.anonMu.Unlock()
			return b, true
		}
	}
	return make([]byte, n), false
}

// release gives back the pages of b[off:off+n], where b starts a buffer
// from alloc outside the heap, unless Close has freed it (under anonMu, so
// that the pages cannot be another mapping's by then).
func (f *File) release(b []byte, off, n uint64) {
	f.anonMu.Lock()
	defer f.anonMu.Unlock()
	for _, a := range f.anon {
		if len(b) > 0 && len(a) > 0 && &a[0] == &b[0] {
			mmap.Release(b, off, n)
			return
		}
	}
}

// freeAnon releases what alloc took outside the heap.
func (f *File) freeAnon() {
	f.anonMu.Lock()
	a := f.anon
	f.anon = nil
	f.anonMu.Unlock()
	for _, b := range a {
		mmap.Free(b)
	}
}
