package inline

import (
	"hash/maphash"
	"strings"
	"sync"
	"sync/atomic"
)

// strTable interns the names and paths of an Index: each distinct string is
// stored once and named by its index, and strs[0] is "". A Go map of
// strings costs a slot of about 30 bytes a string and one allocation per
// string, rounded up to its size class; here a string costs its bytes,
// packed into shared chunks (at most about half of the last one unused),
// 16 bytes in list and a 4-byte slot of an
// open-addressing table kept at most two-thirds full. (The 143 MB clang++
// program of bench/run.sh cxx interns 18.3 MB of strings and map in the Go
// map for 200,000 addresses.)
//
// The strings handed out alias the chunks, which are written once and
// never again (a chunk is a strings.Builder grown once and filled up to
// its capacity), so they stay valid for as long as anyone holds them.
type strTable struct {
	list  []string
	slots []uint32 // 1 + an index into list, or 0 for an empty slot; a power of two long
	seed  maphash.Seed
	chunk strings.Builder
	next  int // the size of the next chunk

	// shared, when set, holds the bytes of the strings: t keeps the
	// indexes, shared the one copy of each string that every table
	// given it hands out (Options.Strings).
	shared *Strings

	// pub is list as of the last publish, for readers that do not hold
	// the lock its writer holds (a lazy Index's trees, which each once
	// kept a slice of list as it stood: every array append had outgrown
	// stayed alive, about twice the final list). Appends write only
	// beyond every published length, so a published list reads safely
	// while list grows.
	pub atomic.Pointer[[]string]
}

// publish makes the strings added so far visible to published.
func (t *strTable) publish() {
	l := t.list
	t.pub.Store(&l)
}

// published returns the strings as of the last publish.
func (t *strTable) published() []string { return *t.pub.Load() }

// Strings are packed into chunks of minChunk bytes, then twice that, and
// so on up to strChunk (a small unit's Index should not hold a big chunk
// nearly empty); a string longer than strChunk/8 gets an allocation of its
// own.
const (
	minChunk = 512
	strChunk = 32 << 10
)

func newStrTable() *strTable {
	t := &strTable{seed: maphash.MakeSeed()}
	t.reset()
	return t
}

// reset empties t, keeping its slots' capacity. The chunks in use stay
// with the strings handed out: the next string starts a new one.
func (t *strTable) reset() {
	clear(t.list)
	t.list = append(t.list[:0], "")
	clear(t.slots)
	if len(t.slots) == 0 {
		t.slots = make([]uint32, 64)
	}
	t.chunk, t.next = strings.Builder{}, minChunk
}

// bytes returns the index of s, adding it if it is new.
func (t *strTable) bytes(s []byte) uint32 {
	if len(s) == 0 {
		return 0
	}
	mask := uint64(len(t.slots) - 1)
	for i := maphash.Bytes(t.seed, s) & mask; ; i = (i + 1) & mask {
		v := t.slots[i]
		if v == 0 {
			return t.insert(i, t.store(s))
		}
		if t.list[v-1] == string(s) {
			return v - 1
		}
	}
}

// string returns the index of s, adding it if it is new.
func (t *strTable) string(s string) uint32 {
	if s == "" {
		return 0
	}
	mask := uint64(len(t.slots) - 1)
	for i := maphash.String(t.seed, s) & mask; ; i = (i + 1) & mask {
		v := t.slots[i]
		if v == 0 {
			// s is kept as it is: the strings passed here (paths of
			// the line table's files) are already the caller's own.
			if t.shared != nil {
				s = t.shared.string(s)
			}
			return t.insert(i, s)
		}
		if t.list[v-1] == s {
			return v - 1
		}
	}
}

// store copies s into the current chunk, or a new one, or (a long string)
// an allocation of its own.
func (t *strTable) store(s []byte) string {
	if t.shared != nil {
		return t.shared.bytes(s)
	}
	if len(s) > strChunk/8 {
		return string(s)
	}
	if t.chunk.Cap()-t.chunk.Len() < len(s) {
		t.chunk = strings.Builder{}
		t.chunk.Grow(max(t.next, len(s)))
		t.next = min(2*t.next, strChunk)
	}
	off := t.chunk.Len()
	t.chunk.Write(s)
	return t.chunk.String()[off:]
}

// insert adds s, which is not in t, at the empty slot i.
func (t *strTable) insert(i uint64, s string) uint32 {
	v := uint32(len(t.list))
	t.list = append(t.list, s)
	t.slots[i] = v + 1
	if 3*len(t.list) > 2*len(t.slots) {
		t.grow()
	}
	return v
}

// grow doubles the slots and places every string again.
func (t *strTable) grow() {
	t.slots = make([]uint32, 2*len(t.slots))
	mask := uint64(len(t.slots) - 1)
	for v := 1; v < len(t.list); v++ {
		i := maphash.String(t.seed, t.list[v]) & mask
		for t.slots[i] != 0 {
			i = (i + 1) & mask
		}
		t.slots[i] = uint32(v) + 1
	}
}

// Strings is one copy of each name and path that the Indexes given it
// (Options.Strings) hand out, shared between them: the units of one
// program repeat one another's (the inline functions of the headers they
// include, and those headers' paths). In libradosgw's debug file, whose
// 193 units have an Index each, 10,000 addresses intern 15.2 MB of names,
// 9.0 MB of them distinct. The zero Strings is ready for use; it is safe
// for concurrent use and keeps every string it holds.
type Strings struct {
	shards [stringShards]stringShard
}

// stringShards is how many strTables a Strings spreads its strings over,
// each under its own lock: two builders rarely meet on one.
const stringShards = 8

type stringShard struct {
	mu sync.Mutex
	t  *strTable
	_  [48]byte // a cache line to itself
}

var stringsSeed = maphash.MakeSeed()

// bytes returns the string held for s, copying s in if it is new.
func (ss *Strings) bytes(s []byte) string {
	sh := ss.lock(maphash.Bytes(stringsSeed, s))
	defer sh.mu.Unlock()
	return sh.t.list[sh.t.bytes(s)]
}

// string returns the string held for s, keeping s itself if it is new.
func (ss *Strings) string(s string) string {
	if s == "" {
		return ""
	}
	sh := ss.lock(maphash.String(stringsSeed, s))
	defer sh.mu.Unlock()
	return sh.t.list[sh.t.string(s)]
}

// lock returns the shard of the string hashing to h, locked, with its
// table made.
func (ss *Strings) lock(h uint64) *stringShard {
	sh := &ss.shards[h%stringShards]
	sh.mu.Lock()
	if sh.t == nil {
		sh.t = newStrTable()
	}
	return sh
}
