package symbolize

import (
	"bytes"
	"cmp"
	"context"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/symbolize-go/symbolize/slide"
)

// Process symbolizes runtime addresses of one process: the program
// counters a Go program holds of itself (runtime.Callers, cgo tracebacks,
// return addresses C code records) or a profiler holds of another
// process. It knows every mapping of the process's address space, opens
// the file of each mapped ELF module on first use (with the usual
// debug-file search, through a Modules cache), rebases each address to
// its file's own addresses (PIE executables, shared libraries, ET_EXEC,
// several PT_LOADs, files mapped at an offset) and answers with the frames
// of that file and the mapping that held the address.
//
// A Process from OpenProcess reads /proc/PID/maps again when an address
// falls in no known mapping, so modules loaded later (dlopen) are found;
// its [vdso] is read from the process's memory, and each module's build ID
// is read from its mapped ELF headers and checked against the file, so a
// file replaced since it was mapped answers nothing (ErrBuildIDMismatch)
// rather than wrongly. A deleted or unreadable file costs its own
// addresses, which carry the mapping, their file offset and a
// *ModuleError; the other addresses answer.
//
// A Process is safe for concurrent use.
type Process struct {
	mods *Modules
	pid  int  // 0 for caller-supplied mappings
	live bool // maps are re-read on a miss

	maps   atomic.Pointer[procMaps]
	reload sync.Mutex // serializes re-reads of the maps

	warnMu sync.Mutex
	warns  []error
}

// procMaps is one reading of the process's mappings.
type procMaps struct {
	idx *slide.Index
}

// OpenProcess returns the symbolizer of the live process pid, built from
// /proc/PID/maps (os.Getpid() for the calling process). Lines of the maps
// file that do not parse are skipped (see Warnings); an error is returned
// only when the maps file cannot be read at all.
func OpenProcess(pid int, opts *ModulesOptions) (*Process, error) {
	p := &Process{mods: NewModules(opts), pid: pid, live: true}
	p.mods.open = p.openFile
	if err := p.readMaps(); err != nil {
		return nil, err
	}
	return p, nil
}

// NewProcess returns the symbolizer of a process whose mappings the caller
// lists: Start, End, Offset and Path of each (as /proc/PID/maps gives
// them), and UUID, the file's build ID in hex, when known (then checked).
// Mappings are never re-read. A mapping that overlaps an earlier one (in
// Start order) is left out, with a *MappingOverlapError in Warnings, and so
// is an empty one (End not above Start, unless End is 0: unknown), with an
// error wrapping ErrFormat.
func NewProcess(maps []slide.Module, opts *ModulesOptions) (*Process, error) {
	p := &Process{mods: NewModules(opts)}
	p.maps.Store(p.index(slices.Clone(maps)))
	return p, nil
}

// MappingOverlapError says a mapping overlaps another and was left out.
type MappingOverlapError struct {
	Mapping, Other slide.Module
}

func (e *MappingOverlapError) Error() string {
	return fmt.Sprintf("symbolize: mapping [%#x, %#x) of %q overlaps [%#x, %#x) of %q; left out",
		e.Mapping.Start, e.Mapping.End, e.Mapping.Path, e.Other.Start, e.Other.End, e.Other.Path)
}

// Warnings returns the problems met in the process's mappings: maps lines
// that did not parse (*DecodeError), overlapping mappings
// (*MappingOverlapError), empty ones (ErrFormat). Each costs itself alone.
func (p *Process) Warnings() []error {
	p.warnMu.Lock()
	defer p.warnMu.Unlock()
	return slices.Clone(p.warns)
}

func (p *Process) warn(err error) {
	p.warnMu.Lock()
	defer p.warnMu.Unlock()
	if len(p.warns) < 64 {
		p.warns = append(p.warns, err)
	}
}

// index sorts maps, drops overlaps and reads build IDs of live modules.
func (p *Process) index(maps []slide.Module) *procMaps {
	slices.SortStableFunc(maps, func(a, b slide.Module) int { return cmp.Compare(a.Start, b.Start) })
	kept := maps[:0]
	for _, m := range maps {
		if m.End != 0 && m.End <= m.Start {
			p.warn(fmt.Errorf("symbolize: mapping [%#x, %#x) of %q is empty; left out: %w", m.Start, m.End, m.Path, ErrFormat))
			continue
		}
		if n := len(kept); n > 0 && (kept[n-1].End == 0 || kept[n-1].End > m.Start) {
			p.warn(&MappingOverlapError{Mapping: m, Other: kept[n-1]})
			continue
		}
		kept = append(kept, m)
	}
	if p.live {
		p.readBuildIDs(kept)
	}
	return &procMaps{idx: slide.NewIndex(kept)}
}

// readMaps (re)reads /proc/PID/maps.
func (p *Process) readMaps() error {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(p.pid) + "/maps")
	if err != nil {
		return fmt.Errorf("symbolize: process %d: %w", p.pid, err)
	}
	maps, perr := slide.ParseProcMaps(data)
	if perr != nil && p.maps.Load() == nil {
		p.warn(perr)
	}
	p.maps.Store(p.index(maps))
	return nil
}

// mapping returns the mapping that holds pc, reading the maps again once
// on a miss in a live process.
func (p *Process) mapping(pc uint64) *slide.Module {
	pm := p.maps.Load()
	if m, ok := pm.idx.Lookup(pc); ok {
		return m
	}
	if !p.live {
		return nil
	}
	p.reload.Lock()
	defer p.reload.Unlock()
	if cur := p.maps.Load(); cur != pm {
		// Another lookup read them meanwhile.
		if m, ok := cur.idx.Lookup(pc); ok {
			return m
		}
	}
	if p.readMaps() != nil {
		return nil
	}
	m, _ := p.maps.Load().idx.Lookup(pc)
	return m
}

// Lookup appends the frames of the runtime address pc to dst and returns
// them in an Answer with the mapping that holds pc, the address's offset
// in the mapped file and the file address looked up. When no mapping holds
// pc, or its file answers nothing, Frames is dst with one frame whose
// Source is SourceNone, and Err says why (ErrNotMapped, a *ModuleError, a
// *slide.MappingError).
func (p *Process) Lookup(dst []Frame, pc uint64) Answer {
	mp := p.mapping(pc)
	if mp == nil {
		return Answer{Frames: append(dst, Frame{}), Err: fmt.Errorf("symbolize: %#x: %w", pc, ErrNotMapped)}
	}
	n := len(dst)
	frames, addr, err := p.mods.appendFrames(dst, mp, pc)
	a := Answer{Mapping: mp, Offset: pc - mp.Start + mp.Offset, Addr: addr, Frames: frames, Err: err}
	if len(frames) == n {
		a.Frames = append(frames, Frame{})
	}
	return a
}

// AppendFrames appends the frames of the runtime address pc to dst: it
// makes a Process a Symbolizer. An address that no mapping holds, or
// whose file answers nothing, appends one frame whose Source is
// SourceNone; Lookup says why. err is ErrClosed after Close.
func (p *Process) AppendFrames(dst []Frame, pc uint64) ([]Frame, error) {
	a := p.Lookup(dst, pc)
	if errors.Is(a.Err, ErrClosed) {
		return dst, ErrClosed
	}
	return a.Frames, nil
}

var _ Symbolizer = (*Process)(nil)

// AddrInfo is what dladdr answers of an address, and the mapping.
type AddrInfo struct {
	Mapping *slide.Module // the mapping that holds the address
	Path    string        // the module's file (dli_fname)
	// Base is the runtime address of the module's first byte, its ELF
	// header (dli_fbase); Bias is what was added to its file addresses
	// (0 for ET_EXEC).
	Base, Bias uint64
	// Symbol is the linkage name of the symbol that covers the address
	// (dli_sname), by the rules that name outermost frames; Name is the
	// same demangled when Options.Demangle is set. SymbolAddr is its
	// runtime address (dli_saddr). All empty when no symbol covers it.
	Symbol, Name string
	SymbolAddr   uint64
}

// Addr answers as dladdr does, without decoding DWARF: the module that
// holds pc, where it is loaded, and the symbol that covers pc. The error
// is ErrNotMapped (wrapped), a *ModuleError or a *slide.MappingError; with
// a *ModuleError, Mapping and Path are still set.
func (p *Process) Addr(pc uint64) (AddrInfo, error) {
	mp := p.mapping(pc)
	if mp == nil {
		return AddrInfo{}, fmt.Errorf("symbolize: %#x: %w", pc, ErrNotMapped)
	}
	info := AddrInfo{Mapping: mp, Path: mp.Path}
	om, err := p.mods.acquire(mp)
	if err != nil {
		return info, err
	}
	defer p.mods.release(om)
	if om.err != nil {
		return info, om.err
	}
	bias, err := slide.MappingBase(&om.img, mp, pc)
	if err != nil {
		return info, err
	}
	info.Bias = bias
	if len(om.img.Loads) > 0 {
		info.Base = bias + om.img.Loads[0].Vaddr - om.img.Loads[0].Offset
	}
	m, ok, err := om.bin.LookupSymbol(pc - bias)
	if err != nil || !ok {
		return info, err
	}
	info.Symbol, info.SymbolAddr, info.Name = m.Name, m.Start+bias, m.Name
	if om.bin.opts.Demangle {
		info.Name = om.bin.demangle(m.Name)
	}
	return info, nil
}

// Batch returns an iterator over the answers for many runtime addresses,
// each yielded once with its index in pcs, as Modules.Batch yields them:
// grouped by file, each file's addresses in address order, equal ones
// symbolized once, on all cores. Answers are as Lookup's: an address
// without an answer has one frame whose Source is SourceNone, and Err
// says why. Answer.Frames is reused once the iteration continues.
func (p *Process) Batch(ctx context.Context, pcs []uint64) iter.Seq2[int, Answer] {
	return func(yield func(int, Answer) bool) {
		reqs := make([]Request, len(pcs))
		pm := p.maps.Load()
		missed := false
		for i, pc := range pcs {
			m, ok := pm.idx.Lookup(pc)
			if !ok {
				missed = true
			}
			reqs[i] = Request{Mapping: m, PC: pc}
		}
		if missed && p.live {
			// One re-read of the maps for the whole batch.
			p.mapping(pcs[slices.IndexFunc(reqs, func(r Request) bool { return r.Mapping == nil })])
			pm = p.maps.Load()
			for i := range reqs {
				if reqs[i].Mapping == nil {
					reqs[i].Mapping, _ = pm.idx.Lookup(reqs[i].PC)
				}
			}
		}
		p.mods.batch(ctx, reqs, func(i int, a Answer) bool {
			if a.Mapping == nil {
				a.Err = fmt.Errorf("symbolize: %#x: %w", pcs[i], ErrNotMapped)
			}
			return yield(i, a)
		})
	}
}

// Close closes every module the process opened.
func (p *Process) Close() error { return p.mods.Close() }

// openFile opens a module of a live process: [vdso] from its memory,
// anything else as Open does.
func (p *Process) openFile(path string, o *Options) (*Binary, error) {
	if path != "[vdso]" {
		return Open(path, o)
	}
	pm := p.maps.Load()
	if pm == nil {
		return nil, ErrNoFile
	}
	for _, m := range pm.idx.Modules() {
		if m.Path != "[vdso]" {
			continue
		}
		if m.End <= m.Start || m.End-m.Start > maxVDSO {
			return nil, fmt.Errorf("[vdso] of %d bytes: %w", m.End-m.Start, ErrLimit)
		}
		data, err := p.readMem(m.Start, m.End-m.Start)
		if err != nil {
			return nil, err
		}
		o := *o
		o.NoDebugFile = true
		b, err := NewBytes(data, &o)
		if err == nil {
			b.path = "[vdso]"
		}
		return b, err
	}
	return nil, ErrNoFile
}

// maxVDSO bounds the [vdso] image read from memory.
const maxVDSO = 1 << 20

// readMem reads n bytes of the process's memory at addr.
func (p *Process) readMem(addr, n uint64) ([]byte, error) {
	f, err := os.Open("/proc/" + strconv.Itoa(p.pid) + "/mem")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if addr > 1<<63-1 {
		return nil, fmt.Errorf("address %#x: %w", addr, ErrOverflow)
	}
	data := make([]byte, n)
	if _, err := f.ReadAt(data, int64(addr)); err != nil {
		return nil, err
	}
	return data, nil
}

// readBuildIDs sets UUID, the build ID in hex, of each file-backed mapping
// whose file's ELF headers are mapped (the mapping at file offset 0) and
// hold a build-ID note, read from the process's memory: Modules then
// checks the file on disk against it. Mappings whose memory cannot be
// read keep no build ID, and their file is taken as it is.
func (p *Process) readBuildIDs(maps []slide.Module) {
	mem, err := os.Open("/proc/" + strconv.Itoa(p.pid) + "/mem")
	if err != nil {
		return
	}
	defer mem.Close()
	ids := make(map[string]string)
	for i := range maps {
		m := &maps[i]
		if m.Offset != 0 || m.Path == "" || m.Path[0] != '/' || m.End-m.Start < 64 {
			continue
		}
		if _, seen := ids[m.Path]; seen {
			continue
		}
		id, _ := memBuildID(mem, m.Start, m.End)
		ids[m.Path] = id
	}
	for i := range maps {
		if id := ids[maps[i].Path]; id != "" && maps[i].UUID == "" {
			maps[i].UUID = id
		}
	}
}

// memBuildID reads the GNU build-ID note of the ELF image whose first
// bytes are mapped at [start, end), through its program headers' PT_NOTE
// segments that lie inside that mapping. It reads at most a few pages.
func memBuildID(mem io.ReaderAt, start, end uint64) (string, bool) {
	if start > 1<<63-1 {
		return "", false
	}
	size := end - start
	var hdr [64]byte
	if _, err := mem.ReadAt(hdr[:], int64(start)); err != nil || string(hdr[:4]) != "\x7fELF" {
		return "", false
	}
	var bo binary.ByteOrder = binary.LittleEndian
	if hdr[5] == 2 {
		bo = binary.BigEndian
	}
	is64 := hdr[4] == 2
	var phoff, phentsize, phnum uint64
	if is64 {
		phoff, phentsize, phnum = bo.Uint64(hdr[32:]), uint64(bo.Uint16(hdr[54:])), uint64(bo.Uint16(hdr[56:]))
	} else {
		phoff, phentsize, phnum = uint64(bo.Uint32(hdr[28:])), uint64(bo.Uint16(hdr[42:])), uint64(bo.Uint16(hdr[44:]))
	}
	want := uint64(32)
	if is64 {
		want = 56
	}
	if phentsize < want || phnum == 0 || phnum > 256 || phoff > size || phnum*phentsize > size-phoff {
		return "", false
	}
	ph := make([]byte, phnum*phentsize)
	if _, err := mem.ReadAt(ph, int64(start+phoff)); err != nil {
		return "", false
	}
	for i := uint64(0); i < phnum; i++ {
		e := ph[i*phentsize:]
		var typ uint32
		var off, filesz, align uint64
		if is64 {
			typ, off, filesz, align = bo.Uint32(e), bo.Uint64(e[8:]), bo.Uint64(e[32:]), bo.Uint64(e[48:])
		} else {
			typ, off, filesz, align = bo.Uint32(e), uint64(bo.Uint32(e[4:])), uint64(bo.Uint32(e[16:])), uint64(bo.Uint32(e[28:]))
		}
		const ptNote = 4
		if typ != ptNote || off > size || filesz > size-off || filesz > 1<<16 {
			continue
		}
		notes := make([]byte, filesz)
		if _, err := mem.ReadAt(notes, int64(start+off)); err != nil {
			continue
		}
		if id, ok := gnuBuildIDNote(notes, bo, align); ok {
			return hex.EncodeToString(id), true
		}
	}
	return "", false
}

// gnuBuildIDNote finds the NT_GNU_BUILD_ID note in a note segment's bytes.
func gnuBuildIDNote(b []byte, bo binary.ByteOrder, align uint64) ([]byte, bool) {
	pad := func(n uint64) uint64 {
		if align == 8 {
			return (n + 7) &^ 7
		}
		return (n + 3) &^ 3
	}
	for len(b) >= 12 {
		namesz, descsz, typ := uint64(bo.Uint32(b)), uint64(bo.Uint32(b[4:])), bo.Uint32(b[8:])
		b = b[12:]
		nl, dl := pad(namesz), pad(descsz)
		if nl > uint64(len(b)) || dl > uint64(len(b))-nl {
			return nil, false
		}
		const ntGNUBuildID = 3
		if typ == ntGNUBuildID && namesz == 4 && bytes.Equal(b[:4], []byte("GNU\x00")) && descsz > 0 {
			return b[nl : nl+descsz], true
		}
		b = b[nl+dl:]
	}
	return nil, false
}
