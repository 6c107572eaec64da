package symbolize

import (
	"cmp"
	"container/list"
	"context"
	"debug/elf"
	"encoding/hex"
	"errors"
	"fmt"
	"iter"
	"math/bits"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/symbolize-go/symbolize/slide"
)

// Causes of a *ModuleError, for errors.Is.
var (
	// ErrBuildIDMismatch: the file at a mapping's path has another build
	// ID than the mapping says (it was replaced since it was mapped, or the
	// profile comes from another machine).
	ErrBuildIDMismatch = errors.New("file has another build ID than its mapping")
	// ErrDeleted: the mapped file was deleted (its maps line ends in
	// " (deleted)"), so nothing can be read of it.
	ErrDeleted = errors.New("mapped file was deleted")
	// ErrNotMapped: no mapping of the process holds the address.
	ErrNotMapped = errors.New("no mapping holds the address")
	// ErrNoFile: the mapping has no file (anonymous memory, the stack, a
	// pseudo mapping other than [vdso]).
	ErrNoFile = errors.New("mapping has no file")
)

// ModuleError says why the file of a mapping answers nothing: it is
// missing, unreadable, not an object file, deleted, or of another build.
// It is the error of every address of that mapping, not of a batch.
type ModuleError struct {
	Path    string // the mapping's path
	BuildID string // the build ID the mapping asked for, hex ("" when none)
	// FileBuildID is the build ID the file has, with ErrBuildIDMismatch.
	FileBuildID string
	Err         error
}

func (e *ModuleError) Error() string {
	if errors.Is(e.Err, ErrBuildIDMismatch) {
		return fmt.Sprintf("symbolize: %s: build ID %s, mapping wants %s: %v", e.Path, e.FileBuildID, e.BuildID, e.Err)
	}
	return fmt.Sprintf("symbolize: %s: %v", e.Path, e.Err)
}

func (e *ModuleError) Unwrap() error { return e.Err }

// ModulesOptions configure NewModules, OpenProcess and NewProcess.
type ModulesOptions struct {
	// Options is how each module's file is opened (Inlines, Demangle,
	// the debug-file search, ...).
	Options
	// MaxOpen bounds the modules kept open; when one more is needed, the
	// least recently used one that no lookup holds is closed. 0 means 64.
	MaxOpen int
}

// defaultMaxOpen is ModulesOptions.MaxOpen's default.
const defaultMaxOpen = 64

// Modules symbolizes runtime addresses of the files of many mappings, as
// a profiler holds them: each (mapping, address) pair is rebased to its
// file's own addresses as pprof rebases it (slide.MappingBase), and
// answered by that file, opened once with the usual debug-file search and
// kept in a bounded cache (ModulesOptions.MaxOpen, least recently used
// closed first). A file is known by its path and the mapping's build ID:
// when the mapping names one, a file with another build ID answers nothing
// (a *ModuleError with ErrBuildIDMismatch).
//
// A Modules is safe for concurrent use. Its answers are Binary's: the
// same frames as AppendFrames of the file at the rebased address.
type Modules struct {
	opts Options
	max  int
	// open opens a module's file; Process replaces it for [vdso].
	open func(path string, o *Options) (*Binary, error)

	mu     sync.Mutex
	byKey  map[moduleKey]*openModule
	lru    list.List // of *openModule, most recently used first
	closed bool
}

// moduleKey names one file: its path and the build ID asked for.
type moduleKey struct{ path, buildID string }

// An openModule is one cache entry: a file opened (or failed) once.
type openModule struct {
	key  moduleKey
	once sync.Once
	bin  *Binary
	img  slide.ELFImage
	err  error // why the file answers nothing (a *ModuleError)

	// Guarded by Modules.mu.
	refs    int           // lookups holding the module
	elem    *list.Element // in Modules.lru; nil once evicted
	evicted bool          // out of the cache: closed when refs drops to 0
}

// NewModules returns an empty cache of modules.
func NewModules(opts *ModulesOptions) *Modules {
	m := &Modules{max: defaultMaxOpen, open: Open, byKey: make(map[moduleKey]*openModule)}
	if opts != nil {
		m.opts = opts.Options
		if opts.MaxOpen > 0 {
			m.max = opts.MaxOpen
		}
	}
	return m
}

// acquire returns the module of mapping mp's file, opening it on first
// use; release must follow.
func (m *Modules) acquire(mp *slide.Module) (*openModule, error) {
	key := moduleKey{path: mp.Path, buildID: normBuildID(mp.UUID)}
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil, ErrClosed
	}
	om := m.byKey[key]
	if om == nil {
		om = &openModule{key: key}
		m.byKey[key] = om
		om.elem = m.lru.PushFront(om)
	} else {
		m.lru.MoveToFront(om.elem)
	}
	om.refs++
	victims := m.evictLocked()
	m.mu.Unlock()
	closeAll(victims)
	om.once.Do(func() { m.load(om) })
	return om, nil
}

// release gives back a module from acquire, closing it when it was evicted
// meanwhile and no other lookup holds it.
func (m *Modules) release(om *openModule) {
	m.mu.Lock()
	om.refs--
	last := om.refs == 0 && om.evicted
	m.mu.Unlock()
	if last {
		om.close()
	}
}

// evictLocked takes the least recently used modules that no lookup holds
// out of the cache while it holds more than m.max, and returns them for
// closing outside the lock. Held modules stay (the cache may exceed max
// while they are held).
func (m *Modules) evictLocked() []*openModule {
	var out []*openModule
	for e := m.lru.Back(); e != nil && m.lru.Len() > m.max; {
		prev := e.Prev()
		om := e.Value.(*openModule)
		if om.refs == 0 {
			m.lru.Remove(e)
			delete(m.byKey, om.key)
			om.elem, om.evicted = nil, true
			out = append(out, om)
		}
		e = prev
	}
	return out
}

func closeAll(oms []*openModule) {
	for _, om := range oms {
		om.close()
	}
}

// close closes the module's file once its loading is over.
func (om *openModule) close() {
	om.once.Do(func() { om.err = ErrClosed })
	if om.bin != nil {
		om.bin.Close()
	}
}

// load opens the module's file and checks its build ID.
func (m *Modules) load(om *openModule) {
	path := om.key.path
	fail := func(err error) { om.err = &ModuleError{Path: path, BuildID: om.key.buildID, Err: err} }
	switch {
	case path == "" || strings.HasPrefix(path, "[") && path != "[vdso]":
		fail(ErrNoFile)
		return
	case strings.HasSuffix(path, " (deleted)"):
		fail(ErrDeleted)
		return
	}
	o := m.opts
	b, err := m.open(path, &o)
	if err != nil {
		fail(err)
		return
	}
	img, ok := b.elfImage()
	if !ok {
		b.Close()
		fail(slide.ErrFileType)
		return
	}
	if want := om.key.buildID; want != "" {
		have := ""
		if e, ok := b.src.(*elfSource); ok {
			if id, ok, _ := e.bin.BuildID(); ok {
				have = hex.EncodeToString(id)
			}
		}
		if have != want {
			b.Close()
			om.err = &ModuleError{Path: path, BuildID: want, FileBuildID: have, Err: ErrBuildIDMismatch}
			return
		}
	}
	om.bin, om.img = b, img
}

// normBuildID returns a mapping's build ID as lower-case hex without
// separators, as build IDs are compared.
func normBuildID(s string) string {
	if s == "" {
		return ""
	}
	s = strings.ToLower(strings.ReplaceAll(s, "-", ""))
	return s
}

// elfImage returns what slide.MappingBase needs of an ELF binary; ok is
// false for other formats.
func (b *Binary) elfImage() (img slide.ELFImage, ok bool) {
	e, ok := b.src.(*elfSource)
	if !ok {
		return img, false
	}
	f := e.bin
	img.Type, img.Text = uint16(f.Type), -1
	var text *uint64
	if s := f.Section(".text"); s != nil {
		text = &s.Addr
	}
	for _, p := range f.Progs {
		if p.Type != elf.PT_LOAD {
			continue
		}
		if text != nil && img.Text < 0 && p.Flags&elf.PF_X != 0 && *text >= p.Vaddr && *text-p.Vaddr < p.Memsz {
			img.Text = len(img.Loads)
		}
		img.Loads = append(img.Loads, slide.Segment{Vaddr: p.Vaddr, Offset: p.Off, Filesz: p.Filesz, Memsz: p.Memsz, Flags: uint32(p.Flags), Align: p.Align})
	}
	return img, true
}

// AppendFrames appends the frames of pc, a runtime address inside the
// mapping mp, innermost first: those of its file (mp.Path, with the build
// ID mp.UUID when set) at the address slide.MappingBase rebases pc to.
// When the file answers nothing (a *ModuleError) or pc has no file
// address (a *slide.MappingError), dst is returned unchanged with that
// error; an address the file does not cover appends one frame whose Source
// is SourceNone, as Binary.AppendFrames does.
//
// Cost: a map lookup and the file's lookup; nothing is allocated beyond
// dst's growth once the module is open and its unit built.
func (m *Modules) AppendFrames(dst []Frame, mp *slide.Module, pc uint64) ([]Frame, error) {
	dst, _, err := m.appendFrames(dst, mp, pc)
	return dst, err
}

func (m *Modules) appendFrames(dst []Frame, mp *slide.Module, pc uint64) ([]Frame, uint64, error) {
	om, err := m.acquire(mp)
	if err != nil {
		return dst, 0, err
	}
	defer m.release(om)
	if om.err != nil {
		return dst, 0, om.err
	}
	base, err := slide.MappingBase(&om.img, mp, pc)
	if err != nil {
		return dst, 0, err
	}
	addr := pc - base
	dst, err = om.bin.AppendFrames(dst, addr)
	return dst, addr, err
}

// Request is one address of a batch: a runtime address and the mapping
// that holds it.
type Request struct {
	Mapping *slide.Module
	PC      uint64
}

// Batch returns an iterator over the answers of many requests, each
// yielded once with its index in reqs. The requests are grouped by file,
// each file's addresses are symbolized in address order and equal ones
// once, and files are symbolized on all cores (runtime.GOMAXPROCS), a big
// file's chunks on several: the answers come a chunk of one file at a
// time, each chunk in address order, not in the order of reqs. Each file
// is readied for its share of the batch as Binary.Batch readies a binary
// for as many addresses (its compressed sections inflated whole on all
// cores, the pages it read of a mapped file given back as chunks finish).
// Answer.Frames is reused once the iteration continues; breaking out of
// the loop stops the batch. A request whose file answers nothing or
// whose address has no file address carries that error alone, with one
// frame whose Source is SourceNone; once ctx is done, the requests not yet
// symbolized are yielded so, with its error.
func (m *Modules) Batch(ctx context.Context, reqs []Request) iter.Seq2[int, Answer] {
	return func(yield func(int, Answer) bool) {
		m.batch(ctx, reqs, yield)
	}
}

// A batchGroup is the requests of one file, in address order.
type batchGroup struct {
	key  moduleKey
	reqs []int32 // indices into the batch's requests
}

// A batchPart is up to batchChunk answers of one group, ready to yield.
type batchPart struct {
	reqs  []int32 // the requests answered, in the order of c's answers
	addrs []uint64
	errs  []error // per request, nil when c answered it
	c     *chunkResult
	om    *openModule // held until the part is yielded
	none  [1]Frame    // the answer of a request that failed
}

func (m *Modules) batch(ctx context.Context, reqs []Request, yield func(int, Answer) bool) {
	if ctx == nil {
		ctx = context.Background()
	}
	groups := groupRequests(reqs)
	if len(groups) == 0 {
		return
	}
	// The files with the most requests go first, so that the cores finish
	// together rather than one waiting on a big file taken last (longest
	// job first). Each file is one job: its first lookups (opening,
	// indexing, the symbol table) are serial. Once a file is open its
	// chunks are shared: a worker with no file left to start helps with
	// the chunks of files still being symbolized.
	slices.SortStableFunc(groups, func(a, b batchGroup) int { return cmp.Compare(len(b.reqs), len(a.reqs)) })
	s := &batchRun{m: m, ctx: ctx, reqs: reqs, groups: groups, stop: make(chan struct{})}
	s.cond.L = &s.mu
	workers := min(runtime.GOMAXPROCS(0), max(len(groups), s.chunksOf(groups[0])))
	s.out = make(chan *batchPart, 2*workers)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(s.work)
	}
	go func() {
		wg.Wait()
		close(s.out)
	}()
	ok := true
	for p := range s.out {
		if ok {
			ok = p.emit(reqs, yield)
			if !ok {
				close(s.stop)
			}
		}
		p.free(m)
	}
}

// A batchRun is one Batch call's shared state: the groups not yet
// started, and the open groups whose chunks any worker may take.
type batchRun struct {
	m      *Modules
	ctx    context.Context
	reqs   []Request
	groups []batchGroup
	out    chan *batchPart
	stop   chan struct{}

	mu       sync.Mutex
	next     int          // index of the next group to start
	cond     sync.Cond    // on mu: a group opened or a start ended
	open     []*groupWork // groups with chunks left, oldest first
	starting int          // groups taken but not yet open or done
}

// A groupWork is one file's rebased addresses, cut into chunks that
// workers claim in address order.
type groupWork struct {
	om      *openModule
	rb      []rebased
	chunk   atomic.Int64 // the next chunk to claim
	size    int          // addresses per chunk
	nchunks int64
}

// sortRebased puts rb in address order, equal addresses in the order of
// the batch. When every address fits beside an index, address and index
// pack into one word and sort as integers, several times faster than
// sorting the pairs through a comparison function.
func sortRebased(rb []rebased) {
	ib := bits.Len(uint(len(rb)))
	var top uint64
	for _, r := range rb {
		top |= r.addr
	}
	if bits.Len64(top)+ib > 64 {
		slices.SortFunc(rb, func(a, b rebased) int {
			if c := cmp.Compare(a.addr, b.addr); c != 0 {
				return c
			}
			return cmp.Compare(a.i, b.i)
		})
		return
	}
	keys := make([]uint64, len(rb))
	for k, r := range rb {
		keys[k] = r.addr<<ib | uint64(k)
	}
	slices.Sort(keys)
	sorted := make([]rebased, len(rb))
	for k, key := range keys {
		sorted[k] = rb[key&(1<<ib-1)]
	}
	copy(rb, sorted)
}

// A rebased request: its file address and its index in the batch.
type rebased struct {
	addr uint64
	i    int32
}

func (s *batchRun) chunksOf(g batchGroup) int { return chunkCount(len(g.reqs)) }

// work starts groups while some are left, then helps with the chunks of
// groups that others started, until none is left.
func (s *batchRun) work() {
	for {
		s.mu.Lock()
		k := s.next
		if k < len(s.groups) {
			s.next++
			s.starting++
		}
		s.mu.Unlock()
		if k < len(s.groups) {
			if !s.startGroup(s.groups[k]) {
				return
			}
			continue
		}
		gw := s.join()
		if gw == nil {
			return
		}
		ok := s.runChunks(gw)
		s.m.release(gw.om)
		if !ok {
			return
		}
	}
}

// testHookJoin, when set by a test, is called when a worker joins another's
// group, with the group's path.
var testHookJoin func(path string)

// join takes a hold on the module of the oldest open group that has
// chunks left, waiting while groups are being opened; nil when no group
// has chunks left and none is being opened.
func (s *batchRun) join() *groupWork {
	s.mu.Lock()
	defer s.mu.Unlock()
	for {
		for len(s.open) > 0 {
			gw := s.open[0]
			if gw.chunk.Load() < gw.nchunks {
				// The group's starter holds the module until it has
				// taken the group off s.open, under s.mu: the hold
				// taken here cannot be the one that closes it.
				s.m.retain(gw.om)
				if testHookJoin != nil {
					testHookJoin(gw.om.key.path)
				}
				return gw
			}
			s.open = s.open[1:]
		}
		if s.starting == 0 {
			return nil
		}
		s.cond.Wait()
	}
}

// opened ends a start: the group, when not nil, has chunks to share.
func (s *batchRun) opened(gw *groupWork) {
	s.mu.Lock()
	s.starting--
	if gw != nil {
		s.open = append(s.open, gw)
	}
	s.mu.Unlock()
	s.cond.Broadcast()
}

// send hands a part to the consumer; false when the batch stopped.
func (s *batchRun) send(p *batchPart) bool {
	select {
	case s.out <- p:
		return true
	case <-s.stop:
		p.free(s.m)
		return false
	}
}

// startGroup opens one group's file, rebases its addresses, sends the
// requests that failed, and symbolizes its chunks with any workers that
// join; false when the batch stopped.
func (s *batchRun) startGroup(g batchGroup) bool {
	m, reqs := s.m, s.reqs
	var om *openModule
	var openErr error
	if mp := reqs[g.reqs[0]].Mapping; mp == nil {
		openErr = &ModuleError{Err: ErrNotMapped}
	} else {
		om, openErr = m.acquire(mp)
		if openErr == nil && om.err != nil {
			openErr = om.err
		}
	}
	// Rebase every address; those that fail carry their error.
	rb := make([]rebased, 0, len(g.reqs))
	var failed []int32
	var failErr []error
	for _, i := range g.reqs {
		if openErr != nil {
			failed, failErr = append(failed, i), append(failErr, openErr)
			continue
		}
		base, err := slide.MappingBase(&om.img, reqs[i].Mapping, reqs[i].PC)
		if err != nil {
			failed, failErr = append(failed, i), append(failErr, err)
			continue
		}
		rb = append(rb, rebased{reqs[i].PC - base, i})
	}
	sortRebased(rb)
	var gw *groupWork
	if len(rb) > 0 {
		gw = &groupWork{om: om, rb: rb, size: chunkSize(len(rb)), nchunks: int64(chunkCount(len(rb)))}
		if om.bin != nil {
			om.bin.prepare(rb[0].addr, len(rb), func() []uint64 {
				sorted := make([]uint64, len(rb))
				for i, r := range rb {
					sorted[i] = r.addr
				}
				return sorted
			})
		}
	}
	if gw != nil && gw.nchunks > 1 {
		s.opened(gw)
	} else {
		s.opened(nil)
	}
	if len(failed) > 0 {
		p := &batchPart{reqs: failed, errs: failErr, addrs: make([]uint64, len(failed))}
		if om != nil {
			m.retain(om)
			p.om = om
		}
		if !s.send(p) {
			if gw != nil {
				gw.chunk.Store(gw.nchunks) // nothing more to claim
				if om.bin != nil {
					om.bin.endBatch() // as below: later lookups keep every row
				}
			}
			s.leave(gw)
			m.releaseIf(om)
			return false
		}
	}
	if gw == nil {
		m.releaseIf(om)
		return true
	}
	ok := s.runChunks(gw)
	if om.bin != nil {
		om.bin.endBatch() // what other workers still build keeps every row
	}
	s.leave(gw)
	m.release(om)
	return ok
}

// leave takes the starter's group off s.open, before the starter lets go
// of its module.
func (s *batchRun) leave(gw *groupWork) {
	if gw == nil {
		return
	}
	s.mu.Lock()
	if k := slices.Index(s.open, gw); k >= 0 {
		s.open = slices.Delete(s.open, k, k+1)
	}
	s.mu.Unlock()
}

// runChunks symbolizes the group's chunks until none is left to claim;
// false when the batch stopped. The caller holds the module.
func (s *batchRun) runChunks(gw *groupWork) bool {
	m := s.m
	for {
		k := gw.chunk.Add(1) - 1
		if k >= gw.nchunks {
			return true
		}
		lo := int(k) * gw.size
		part := gw.rb[lo:min(lo+gw.size, len(gw.rb))]
		p := &batchPart{reqs: make([]int32, len(part)), addrs: make([]uint64, len(part))}
		for j, r := range part {
			p.reqs[j], p.addrs[j] = r.i, r.addr
		}
		if err := s.ctx.Err(); err != nil {
			p.errs = make([]error, len(part))
			for j := range p.errs {
				p.errs[j] = err
			}
		} else {
			p.c = chunkPool.Get().(*chunkResult)
			p.c.fill(gw.om.bin, p.addrs)
			gw.om.bin.evict() // what the chunk read is indexed
		}
		m.retain(gw.om)
		p.om = gw.om
		if !s.send(p) {
			return false
		}
	}
}

// groupRequests cuts the requests' indices into one group per file, each
// in the order of reqs (startGroup sorts a group's addresses, on the
// worker that takes it).
func groupRequests(reqs []Request) []batchGroup {
	// A profile's requests share a few mappings: look them up by pointer
	// first, and by file only once per mapping.
	byMapping := make(map[*slide.Module]int32)
	ids := make(map[moduleKey]int32)
	file := make([]int32, len(reqs))
	var last *slide.Module
	lastID := int32(-1)
	for i := range reqs {
		mp := reqs[i].Mapping
		if mp != last || lastID < 0 {
			id, seen := byMapping[mp]
			if !seen {
				k := moduleKey{path: "\x00unmapped"}
				if mp != nil {
					k = moduleKey{path: mp.Path, buildID: normBuildID(mp.UUID)}
				}
				id, seen = ids[k]
				if !seen {
					id = int32(len(ids))
					ids[k] = id
				}
				byMapping[mp] = id
			}
			last, lastID = mp, id
		}
		file[i] = lastID
	}
	// A counting sort by file keeps each file's requests in their order.
	starts := make([]int32, len(ids)+1)
	for _, f := range file {
		starts[f+1]++
	}
	for f := range len(ids) {
		starts[f+1] += starts[f]
	}
	idx := make([]int32, len(reqs))
	fill := slices.Clone(starts[:len(ids)])
	for i, f := range file {
		idx[fill[f]] = int32(i)
		fill[f]++
	}
	groups := make([]batchGroup, len(ids))
	for k, id := range ids {
		groups[id] = batchGroup{key: k, reqs: idx[starts[id]:starts[id+1]:starts[id+1]]}
	}
	return groups
}

// retain takes one more hold on a module already held.
func (m *Modules) retain(om *openModule) {
	m.mu.Lock()
	om.refs++
	m.mu.Unlock()
}

func (m *Modules) releaseIf(om *openModule) {
	if om != nil {
		m.release(om)
	}
}

// emit yields the part's answers; false when the loop broke.
func (p *batchPart) emit(reqs []Request, yield func(int, Answer) bool) bool {
	for k, i := range p.reqs {
		a := Answer{Mapping: reqs[i].Mapping}
		if mp := a.Mapping; mp != nil {
			a.Offset = reqs[i].PC - mp.Start + mp.Offset
		}
		if p.errs != nil && p.errs[k] != nil {
			// As Lookup answers: one frame that knows nothing.
			a.Err = p.errs[k]
			p.none[0] = Frame{}
			a.Frames = p.none[:1:1]
		} else {
			a.Addr = p.addrs[k]
			a.Frames, a.Err = p.c.answer(k)
		}
		if !yield(int(i), a) {
			return false
		}
	}
	return true
}

// free returns the part's buffers and its hold on the module.
func (p *batchPart) free(m *Modules) {
	if p.c != nil {
		p.c.reset()
		chunkPool.Put(p.c)
		p.c = nil
	}
	if p.om != nil {
		m.release(p.om)
		p.om = nil
	}
}

// Close closes every open module. Lookups after Close fail with ErrClosed;
// modules that lookups hold are closed when they are released.
func (m *Modules) Close() error {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil
	}
	m.closed = true
	var victims []*openModule
	for e := m.lru.Front(); e != nil; e = e.Next() {
		om := e.Value.(*openModule)
		om.evicted, om.elem = true, nil
		if om.refs == 0 {
			victims = append(victims, om)
		}
	}
	m.lru.Init()
	clear(m.byKey)
	m.mu.Unlock()
	closeAll(victims)
	return nil
}
