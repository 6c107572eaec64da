// Package pprofsym symbolizes pprof profiles (github.com/google/pprof/profile)
// whose locations hold only addresses and mappings, as the standalone
// pprof's local symbolization (-symbolize=local) does with llvm-symbolizer,
// but in process and on every core:
//
//	m := symbolize.NewModules(&symbolize.ModulesOptions{Options: symbolize.Options{Inlines: true, Demangle: true}})
//	defer m.Close()
//	rep, err := pprofsym.Symbolize(ctx, prof, m, nil)
//
// Each location of a mapping that needs it gets one Line per frame, the
// innermost first, each with its Function, line and column; the mapping's
// HasFunctions, HasFilenames, HasLineNumbers and HasInlineFrames are set as
// pprof sets them. The functions added are shared by every line with the
// same name, file and declaration line (as in pprof, not with the
// functions the profile had), numbered after the profile's, in pprof's
// order, and named as pprof names them: SystemName is
// the linkage name llvm-symbolizer -demangle=false prints, Name the
// demangled name without parameters or template arguments (pprof's
// default display). So `pprof -symbolize=none -traces` on the result prints
// what `pprof -symbolize=local -traces` prints on the input when pprof
// drives llvm-symbolizer-14; the end-to-end test in e2e checks that on C,
// C++ and libc profiles.
//
// What is symbolized follows pprof's rules: mappings without locations and
// mappings already symbolized (HasFunctions, HasFilenames or
// HasLineNumbers) are left alone. Unlike pprof, a location that already
// has lines keeps them, and nothing fails silently: a mapping without a
// file, of a pseudo-file ([vdso], //anon, ...) or whose file cannot be
// used (missing, another build ID: whatever the Symbolizer says of it) is
// a *MappingError in the Report, and its locations are left as they were;
// a location in no mapping, or outside its mapping's range, is a
// *LocationError. Everything else is symbolized.
//
// Where pprof does more: its driver first looks each mapping's file up by
// build ID under $PPROF_BINARY_PATH (here the mapping's File is the file,
// as the Symbolizer finds it); after symbolizing, it also simplifies the
// names of functions that were already in the profile (Name equal to
// SystemName), which are left as they are here; and it asks
// llvm-symbolizer for the data symbol of an address in a segment that is
// not executable, which is looked up as code here.
//
// SymbolizeData does the same on an encoded profile without decoding its
// samples, which are most of its bytes: examples/pprofsym uses it.
//
// The package does not read files itself: a Symbolizer (the root
// package's *symbolize.Modules) opens each mapping's file, checks its
// build ID and rebases the addresses (package slide's MappingBase).
// Malformed profiles (as profile.Parse returns them, or built by hand)
// never make it panic.
package pprofsym

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/google/pprof/profile"
	"github.com/symbolize-go/symbolize/frame"
	"github.com/symbolize-go/symbolize/slide"
)

// Symbolizer answers addresses of mapped files. The root package's
// *symbolize.Modules implements it. Implementations must be safe for
// concurrent use: Symbolize calls AppendFrames from several goroutines.
type Symbolizer interface {
	// AppendFrames appends the frames of pc, innermost first, to dst: pc
	// is a runtime address inside the mapping m, which m.Start, m.End
	// (pprof's Limit), m.Offset, m.Path (pprof's File) and m.UUID
	// (pprof's BuildID) describe. An address nothing covers appends one
	// frame whose Source is frame.SourceNone. An error means no answer
	// for pc, and then dst is returned unchanged: a *slide.MappingError
	// (anywhere in its chain) is about pc alone, any other error about the
	// mapping's file (missing, another build ID, unreadable), which
	// Symbolize then asks nothing more.
	AppendFrames(dst []frame.Frame, m *slide.Module, pc uint64) ([]frame.Frame, error)
}

// Options configures Symbolize. The zero value is ready to use.
type Options struct {
	// Workers is how many goroutines look addresses up; 0 means
	// runtime.GOMAXPROCS(0).
	Workers int
}

// Causes of a *MappingError or *LocationError, for errors.Is.
var (
	// ErrNoFile: the mapping names no file.
	ErrNoFile = errors.New("mapping has no file")
	// ErrNotAFile: the mapping's file is a pseudo-file pprof does not
	// symbolize ([vdso], [vsyscall], linux-vdso.so.1, //anon, /memfd:...,
	// /dev/dri/...) or, without a build ID, a URL.
	ErrNotAFile = errors.New("mapping is not of a file that can be symbolized")
	// ErrNoMapping: the location has no mapping, or one the profile does
	// not list.
	ErrNoMapping = errors.New("location is in no mapping of the profile")
)

// MappingError says why the locations of one mapping were not symbolized.
type MappingError struct {
	Mapping *profile.Mapping
	Err     error
}

func (e *MappingError) Error() string {
	m := e.Mapping
	id := ""
	if m.BuildID != "" {
		id = ", build ID " + m.BuildID
	}
	return fmt.Sprintf("pprofsym: mapping %d (%q%s) [%#x, %#x) at offset %#x: %v", m.ID, m.File, id, m.Start, m.Limit, m.Offset, e.Err)
}

func (e *MappingError) Unwrap() error { return e.Err }

// LocationError says why one location was not symbolized. Err is
// ErrNoMapping, a *slide.MappingError (slide.ErrOutsideMapping when the
// address is outside its mapping's range) or what the Symbolizer returned
// for the address.
type LocationError struct {
	Location *profile.Location
	Err      error
}

func (e *LocationError) Error() string {
	return fmt.Sprintf("pprofsym: location %d at %#x: %v", e.Location.ID, e.Location.Address, e.Err)
}

func (e *LocationError) Unwrap() error { return e.Err }

// Report says what Symbolize did. Errors are in the profile's order
// (mappings, then locations).
type Report struct {
	Mappings  int // mappings whose locations were looked up
	Addresses int // distinct addresses looked up
	Locations int // locations that received lines
	Functions int // functions added to the profile

	MappingErrors  []*MappingError
	LocationErrors []*LocationError
}

// Err returns the report's errors joined (errors.Join), nil when there are
// none.
func (r *Report) Err() error {
	var errs []error
	for _, e := range r.MappingErrors {
		errs = append(errs, e)
	}
	for _, e := range r.LocationErrors {
		errs = append(errs, e)
	}
	return errors.Join(errs...)
}

// chunkSize is how many consecutive distinct addresses of one mapping a
// worker looks up at a time.
const chunkSize = 256

// mapWork is one mapping to symbolize: its distinct addresses needing
// lines, in address order, and their answers.
type mapWork struct {
	pm   *profile.Mapping
	mod  slide.Module
	locs []*profile.Location // in profile order
	pcs  []uint64            // distinct, sorted
	// ans[i] is pcs[i]'s answer: lines[lo:hi] of its chunk's buffer.
	ans    []answer
	chunks [][]line
	failed atomic.Bool
	errMu  sync.Mutex
	err    error // the mapping's error, from the lowest chunk that had one
	errAt  int   // that chunk
}

type answer struct {
	lo, hi int32
	err    error // about this address alone
}

// line is one frame of an answer, as pprof keeps it: the workers turn
// each frame into one, so that filling the profile reads 64 bytes a frame
// rather than a whole frame.Frame.
type line struct {
	system, name, file  string // Function.SystemName, .Name and .Filename
	line, column, start uint32
}

// worker is what one lookup goroutine reuses: its frame buffer, and the
// display names it computed (pprof's simplification is a demangling).
type worker struct {
	frames []frame.Frame
	names  map[string]string
}

func (wk *worker) displayName(system string) string {
	name, ok := wk.names[system]
	if !ok {
		name = displayName(system)
		wk.names[system] = name
	}
	return name
}

// Symbolize fills in the lines of p's locations, as the package doc says,
// looking addresses up with s. It changes p only once every lookup is
// done: when ctx is cancelled first, it returns ctx's error and p is as it
// was. The other errors are in the Report; Symbolize returns an error
// itself only for a nil profile or Symbolizer. Cost: one lookup per
// distinct address of each mapping.
func Symbolize(ctx context.Context, p *profile.Profile, s Symbolizer, opts *Options) (*Report, error) {
	if p == nil || s == nil {
		return nil, errors.New("pprofsym: nil profile or Symbolizer")
	}
	if opts == nil {
		opts = &Options{}
	}
	rep := &Report{}

	// Which mappings are the profile's, and which locations need lines.
	index := make(map[*profile.Mapping]int, len(p.Mapping))
	for i, m := range p.Mapping {
		if m != nil {
			if _, dup := index[m]; !dup {
				index[m] = i
			}
		}
	}
	work := make([]*mapWork, len(p.Mapping))
	for _, l := range p.Location {
		if l == nil || len(l.Line) > 0 {
			continue
		}
		i, ok := index[l.Mapping]
		if !ok {
			rep.LocationErrors = append(rep.LocationErrors, &LocationError{l, ErrNoMapping})
			continue
		}
		w := work[i]
		if w == nil {
			w = &mapWork{pm: l.Mapping}
			work[i] = w
		}
		w.locs = append(w.locs, l)
	}
	var todo []*mapWork
	for i, w := range work {
		if w == nil {
			continue
		}
		m := w.pm
		if m.HasFunctions || m.HasFilenames || m.HasLineNumbers {
			work[i] = nil // already symbolized: pprof leaves it alone
			continue
		}
		if err := fileErr(m); err != nil {
			rep.MappingErrors = append(rep.MappingErrors, &MappingError{m, err})
			work[i] = nil
			continue
		}
		w.mod = slide.Module{Name: baseName(m.File), Path: m.File, Start: m.Start, End: m.Limit, Offset: m.Offset, UUID: m.BuildID}
		pcs := make([]uint64, 0, len(w.locs))
		for _, l := range w.locs {
			if m.Start < m.Limit && (l.Address < m.Start || l.Address >= m.Limit) {
				continue
			}
			pcs = append(pcs, l.Address)
		}
		slices.Sort(pcs)
		w.pcs = slices.Compact(pcs)
		w.ans = make([]answer, len(w.pcs))
		w.chunks = make([][]line, (len(w.pcs)+chunkSize-1)/chunkSize)
		w.errAt = -1
		todo = append(todo, w)
		rep.Mappings++
		rep.Addresses += len(w.pcs)
	}

	if err := lookUp(ctx, todo, s, opts.Workers); err != nil {
		return nil, err
	}
	fill(p, work, rep)
	sortErrors(p, index, rep)
	return rep, nil
}

// sortErrors puts the report's errors in the profile's order.
func sortErrors(p *profile.Profile, index map[*profile.Mapping]int, rep *Report) {
	slices.SortStableFunc(rep.MappingErrors, func(a, b *MappingError) int { return index[a.Mapping] - index[b.Mapping] })
	if len(rep.LocationErrors) < 2 {
		return
	}
	pos := make(map[*profile.Location]int, len(rep.LocationErrors))
	for _, e := range rep.LocationErrors {
		pos[e.Location] = -1
	}
	for i, l := range p.Location {
		if pos[l] == -1 {
			pos[l] = i
		}
	}
	slices.SortStableFunc(rep.LocationErrors, func(a, b *LocationError) int { return pos[a.Location] - pos[b.Location] })
}

// fileErr says why m's file cannot be symbolized, as pprof skips it: no
// file, a pseudo-file, or a URL without a build ID.
func fileErr(m *profile.Mapping) error {
	if m.File == "" {
		return ErrNoFile
	}
	if m.Unsymbolizable() {
		return ErrNotAFile
	}
	if m.BuildID == "" {
		if u, err := url.Parse(m.File); err == nil && u.IsAbs() && strings.Contains(strings.ToLower(u.Scheme), "http") {
			return ErrNotAFile
		}
	}
	return nil
}

func baseName(path string) string {
	if i := strings.LastIndexByte(path, '/'); i >= 0 {
		return path[i+1:]
	}
	return path
}

// lookUp answers every chunk of every mapping of todo on workers
// goroutines taking chunks in order from a shared counter, so that each
// looks up runs of consecutive addresses.
func lookUp(ctx context.Context, todo []*mapWork, s Symbolizer, workers int) error {
	type task struct {
		w     *mapWork
		chunk int
	}
	var tasks []task
	for _, w := range todo {
		for c := range w.chunks {
			tasks = append(tasks, task{w, c})
		}
	}
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, len(tasks))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			wk := &worker{names: make(map[string]string)}
			for {
				i := next.Add(1) - 1
				if i >= int64(len(tasks)) || ctx.Err() != nil {
					return
				}
				t := tasks[i]
				if !t.w.failed.Load() {
					t.w.lookUpChunk(s, t.chunk, wk)
				}
			}
		})
	}
	wg.Wait()
	return ctx.Err()
}

// lookUpChunk answers the addresses of chunk c of w.
func (w *mapWork) lookUpChunk(s Symbolizer, c int, wk *worker) {
	lo, hi := c*chunkSize, min((c+1)*chunkSize, len(w.pcs))
	var lines []line
	for i := lo; i < hi; i++ {
		n := len(lines)
		var err error
		wk.frames, err = s.AppendFrames(wk.frames[:0], &w.mod, w.pcs[i])
		if err != nil {
			var me *slide.MappingError
			if !errors.As(err, &me) {
				w.fail(c, err)
				return
			}
		} else {
			if lines == nil {
				lines = make([]line, 0, 2*(hi-lo))
			}
			for j := range wk.frames {
				f := &wk.frames[j]
				sys := systemName(f, j == len(wk.frames)-1)
				lines = append(lines, line{system: sys, name: wk.displayName(sys), file: f.File, line: f.Line, column: f.Column, start: f.StartLine})
			}
		}
		w.ans[i] = answer{lo: int32(n), hi: int32(len(lines)), err: err}
	}
	w.chunks[c] = lines
}

// fail records err as the mapping's error and stops its lookups.
func (w *mapWork) fail(c int, err error) {
	w.failed.Store(true)
	w.errMu.Lock()
	defer w.errMu.Unlock()
	if w.errAt < 0 || c < w.errAt {
		w.err, w.errAt = err, c
	}
}

// funcKey is what makes two of pprof's functions one: pprof's symbolizer
// keys them by value, and Name follows from SystemName.
type funcKey struct {
	system, file string
	startLine    int64
}

// fill writes the answers into the locations, in pprof's order (mappings in
// profile order, each one's locations in profile order), so that new
// functions are numbered as pprof numbers them.
func fill(p *profile.Profile, work []*mapWork, rep *Report) {
	var nextID uint64
	for _, f := range p.Function {
		if f != nil && f.ID > nextID {
			nextID = f.ID
		}
	}
	funcs := make(map[funcKey]*profile.Function)
	for _, w := range work {
		if w == nil {
			continue
		}
		m := w.pm
		if w.err != nil {
			rep.MappingErrors = append(rep.MappingErrors, &MappingError{m, w.err})
			continue
		}
		// Every location's lines come from one slab.
		at := make([]int32, len(w.locs))
		total := 0
		for k, l := range w.locs {
			i, found := slices.BinarySearch(w.pcs, l.Address)
			if !found {
				at[k] = -1
				continue
			}
			at[k] = int32(i)
			total += int(w.ans[i].hi - w.ans[i].lo)
		}
		slab := make([]profile.Line, 0, total)
		for k, l := range w.locs {
			i := at[k]
			if i < 0 {
				rep.LocationErrors = append(rep.LocationErrors, &LocationError{l, &slide.MappingError{
					Start: m.Start, End: m.Limit, Offset: m.Offset, Addr: l.Address, Err: slide.ErrOutsideMapping}})
				continue
			}
			a := w.ans[i]
			if a.err != nil {
				rep.LocationErrors = append(rep.LocationErrors, &LocationError{l, a.err})
				continue
			}
			lines := w.chunks[i/chunkSize][a.lo:a.hi]
			if len(lines) == 0 {
				continue
			}
			start := len(slab)
			for j := range lines {
				ln := &lines[j]
				if ln.system != "" {
					m.HasFunctions = true
				}
				if ln.file != "" {
					m.HasFilenames = true
				}
				if ln.line != 0 {
					m.HasLineNumbers = true
				}
				k := funcKey{ln.system, ln.file, int64(ln.start)}
				fn := funcs[k]
				if fn == nil {
					nextID++
					fn = &profile.Function{ID: nextID, Name: ln.name, SystemName: k.system, Filename: k.file, StartLine: k.startLine}
					funcs[k] = fn
					p.Function = append(p.Function, fn)
					rep.Functions++
				}
				slab = append(slab, profile.Line{Function: fn, Line: int64(ln.line), Column: int64(ln.column)})
			}
			l.Line = slab[start:len(slab):len(slab)]
			l.IsFolded = false
			m.HasInlineFrames = true
			rep.Locations++
		}
	}
}

// systemName is the name llvm-symbolizer -demangle=false prints for f, the
// outermost of its address's frames or not: the covering symbol's name on
// the outermost frame, else the DWARF (linkage) name; f.Function when the
// Symbolizer gave neither.
func systemName(f *frame.Frame, outermost bool) string {
	if f.Function == "" {
		return ""
	}
	if outermost && f.SymbolName != "" {
		return f.SymbolName
	}
	if f.DWARFName != "" {
		return f.DWARFName
	}
	if f.SymbolName != "" {
		return f.SymbolName
	}
	return f.Function
}
