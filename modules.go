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
	"runtime"
	"slices"
	"strings"
	"sync"

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
// once, and files are symbolized on all cores (runtime.GOMAXPROCS): the
// answers come grouped by file and in address order, not in the order of
// reqs. Answer.Frames is reused once the iteration continues; breaking
// out of the loop stops the batch. A request whose file answers nothing or
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
	workers := min(runtime.GOMAXPROCS(0), len(groups))
	// The files with the most requests go first, so that the cores finish
	// together rather than one waiting on a big file taken last (longest
	// job first). With fewer files than twice the cores, big ones are cut
	// so that the cores share one file's work too; with more, each file
	// stays whole: its first lookups (opening, indexing, the symbol table)
	// are serial, and a second core would only wait on them.
	slices.SortStableFunc(groups, func(a, b batchGroup) int { return cmp.Compare(len(b.reqs), len(a.reqs)) })
	var jobs []batchGroup
	per := max(batchChunk, len(reqs)/(4*max(workers, 1)))
	if len(groups) >= 2*workers {
		per = len(reqs)
	}
	for _, g := range groups {
		for lo := 0; lo < len(g.reqs); lo += per {
			jobs = append(jobs, batchGroup{key: g.key, reqs: g.reqs[lo:min(lo+per, len(g.reqs))]})
		}
	}
	workers = min(runtime.GOMAXPROCS(0), len(jobs))
	out := make(chan *batchPart, 2*workers)
	stop := make(chan struct{})
	next := make(chan batchGroup)
	go func() {
		defer close(next)
		for _, j := range jobs {
			select {
			case next <- j:
			case <-stop:
				return
			}
		}
	}()
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for j := range next {
				if !m.runGroup(ctx, reqs, j, out, stop) {
					return
				}
			}
		})
	}
	go func() {
		wg.Wait()
		close(out)
	}()
	ok := true
	for p := range out {
		if ok {
			ok = p.emit(reqs, yield)
			if !ok {
				close(stop)
			}
		}
		p.free(m)
	}
}

// groupRequests sorts the requests' indices by file, mapping and address,
// and returns them cut into one group per file.
func groupRequests(reqs []Request) []batchGroup {
	type keyed struct {
		file int32 // index of the file's first request, as a group id
		i    int32
	}
	ids := make(map[moduleKey]int32)
	order := make([]keyed, len(reqs))
	var last *slide.Module
	var lastID int32
	for i := range reqs {
		mp := reqs[i].Mapping
		if mp != last || i == 0 {
			k := moduleKey{path: "\x00unmapped"}
			if mp != nil {
				k = moduleKey{path: mp.Path, buildID: normBuildID(mp.UUID)}
			}
			id, seen := ids[k]
			if !seen {
				id = int32(len(ids))
				ids[k] = id
			}
			last, lastID = mp, id
		}
		order[i] = keyed{lastID, int32(i)}
	}
	slices.SortFunc(order, func(a, b keyed) int {
		if c := cmp.Compare(a.file, b.file); c != 0 {
			return c
		}
		return cmp.Compare(reqs[a.i].PC, reqs[b.i].PC)
	})
	keys := make([]moduleKey, len(ids))
	for k, id := range ids {
		keys[id] = k
	}
	idx := make([]int32, len(order))
	var groups []batchGroup
	for i, o := range order {
		idx[i] = o.i
		if i == 0 || o.file != order[i-1].file {
			groups = append(groups, batchGroup{key: keys[o.file], reqs: idx[i:i]})
		}
		g := &groups[len(groups)-1]
		g.reqs = g.reqs[:len(g.reqs)+1]
	}
	return groups
}

// runGroup symbolizes one group's requests and sends them to out a part
// at a time; false when the batch stopped.
func (m *Modules) runGroup(ctx context.Context, reqs []Request, g batchGroup, out chan<- *batchPart, stop <-chan struct{}) bool {
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
	type rebased struct {
		addr uint64
		i    int32
	}
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
	// A file's mappings rebase in order unless their bases differ.
	if !slices.IsSortedFunc(rb, func(a, b rebased) int { return cmp.Compare(a.addr, b.addr) }) {
		slices.SortStableFunc(rb, func(a, b rebased) int { return cmp.Compare(a.addr, b.addr) })
	}
	send := func(p *batchPart) bool {
		select {
		case out <- p:
			return true
		case <-stop:
			p.free(m)
			return false
		}
	}
	if len(failed) > 0 {
		p := &batchPart{reqs: failed, errs: failErr, addrs: make([]uint64, len(failed))}
		if om != nil {
			m.retain(om)
			p.om = om
		}
		if !send(p) {
			m.releaseIf(om)
			return false
		}
	}
	for lo := 0; lo < len(rb); lo += batchChunk {
		part := rb[lo:min(lo+batchChunk, len(rb))]
		p := &batchPart{reqs: make([]int32, len(part)), addrs: make([]uint64, len(part))}
		for k, r := range part {
			p.reqs[k], p.addrs[k] = r.i, r.addr
		}
		if err := ctx.Err(); err != nil {
			p.errs = make([]error, len(part))
			for k := range p.errs {
				p.errs[k] = err
			}
		} else {
			p.c = chunkPool.Get().(*chunkResult)
			p.c.fill(om.bin, p.addrs)
		}
		m.retain(om)
		p.om = om
		if !send(p) {
			m.releaseIf(om)
			return false
		}
	}
	m.releaseIf(om)
	return true
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
