package symbolize

import (
	"hash/maphash"
	"sync"
	"unsafe"

	"github.com/symbolize-go/symbolize/symtab"
)

// demangledCache remembers the demangled form of each linkage name asked
// for, for the life of a Binary. It is sharded under mutexes (two workers
// rarely meet on one of eight shards), and each shard packs its answers
// into chunks: a template-heavy C++ program asks for tens of thousands of
// names, 450 bytes each on average, which a sync.Map held at about 125
// bytes of overhead a name and one allocation each, rounded up to its size
// class. A shard's map costs about 50 bytes a name.
type demangledCache struct {
	shards [demangledShards]demangledShard
}

const demangledShards = 8

// Chunk sizes of a shard: the first small, so that a binary asking for a
// few names holds little, doubling up to the last.
const (
	demangledChunkMin = 1 << 10
	demangledChunkMax = 32 << 10
)

var demangledSeed = maphash.MakeSeed()

type demangledShard struct {
	mu    sync.Mutex
	names map[string]string
	// chunk is the tail of the chunk being filled: its bytes up to len
	// back strings already handed out and are never written again.
	chunk []byte
	next  int // size of the next chunk
	_     [64]byte
}

// get returns symtab.Demangle(name, symtab.StyleLLVM), demangling it once
// (or, when two workers meet on a new name, twice). The answer is name
// itself where the demangler leaves the name as it is. The shard's lock is
// not held while demangling.
func (c *demangledCache) get(name string) string {
	s := &c.shards[maphash.String(demangledSeed, name)%demangledShards]
	s.mu.Lock()
	d, ok := s.names[name]
	s.mu.Unlock()
	if ok {
		return d
	}
	var tmp [1024]byte
	out := symtab.AppendDemangle(tmp[:0], name, symtab.StyleLLVM)
	s.mu.Lock()
	defer s.mu.Unlock()
	if d, ok := s.names[name]; ok {
		return d
	}
	if s.names == nil {
		s.names = make(map[string]string)
	}
	d = name
	if string(out) != name {
		d = s.keep(out)
	}
	s.names[name] = d
	return d
}

// keep returns a string holding a copy of b, packed into the shard's
// chunks unless it is large.
func (s *demangledShard) keep(b []byte) string {
	if len(b) > demangledChunkMax/8 {
		return string(b)
	}
	if len(s.chunk)+len(b) > cap(s.chunk) {
		s.next = min(max(s.next, demangledChunkMin), demangledChunkMax)
		s.chunk = make([]byte, 0, s.next)
		s.next *= 2
	}
	at := len(s.chunk)
	s.chunk = append(s.chunk, b...)
	return unsafe.String(&s.chunk[at], len(b))
}
