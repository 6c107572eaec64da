package symbolize

import (
	"slices"
	"sync"
	"sync/atomic"

	"github.com/symbolize-go/symbolize/inline"
	"github.com/symbolize-go/symbolize/internal/buf"
	"github.com/symbolize-go/symbolize/internal/dw"
	"github.com/symbolize-go/symbolize/internal/dwinfo"
	"github.com/symbolize-go/symbolize/linetable"
	"github.com/symbolize-go/symbolize/symtab"
)

// Binary symbolizes addresses of one module: an ELF file (with its separate
// debug file, if any) or a Mach-O image (with its dSYM). It is safe for concurrent use: everything it decodes
// lazily (sections, the address index, each unit's line table and inline
// index, the symbol table) is built once, by the first goroutine that needs
// it, and shared read-only afterwards.
type Binary struct {
	path   string
	src    source
	opts   Options
	code   [][2]uint64 // sorted code section ranges; nil if unknown
	closed atomic.Bool

	dwarfOnce sync.Once
	dwarf     *dwarfState // nil when the file has no usable DWARF

	warns warnList

	demangled sync.Map // linkage name -> demangled name

	symOnce sync.Once
	syms    *symtab.Table
}

func newBinary(path string, src source, o Options) *Binary {
	return &Binary{path: path, src: src, opts: o, code: src.codeRanges()}
}

// codeRange returns the code section holding pc, or the whole address
// space when sections are unknown; ok is false when pc is outside code.
// DWARF answers only code addresses: GNU ld leaves the DWARF of sections
// removed by --gc-sections at address 0 (a tombstone), and llvm-symbolizer
// 14 wrongly resolves low PCs to those dead functions.
func (b *Binary) codeRange(pc uint64) (lo, hi uint64, ok bool) {
	if b.code == nil {
		return 0, ^uint64(0), true
	}
	i, _ := slices.BinarySearchFunc(b.code, pc, func(r [2]uint64, pc uint64) int {
		if r[1] <= pc {
			return -1
		}
		if r[0] > pc {
			return 1
		}
		return 0
	})
	if i < len(b.code) && b.code[i][0] <= pc && pc < b.code[i][1] {
		return b.code[i][0], b.code[i][1], true
	}
	return 0, 0, false
}

// inCode reports whether pc may be code (see codeRange).
func (b *Binary) inCode(pc uint64) bool {
	_, _, ok := b.codeRange(pc)
	return ok
}

// Path returns the path the binary was opened from.
func (b *Binary) Path() string { return b.path }

// Warnings returns the problems met so far in debug information, each
// reported once: what did not decode was left out and the rest answered. A
// bad attribute costs that attribute (a unit's producer in a form this
// reader cannot resolve), a bad unit that unit's DWARF (its addresses are
// named by the symbol table), a bad section that section (a compression
// header of unknown type, a corrupt stream), a bad symbol-table entry the
// entries after it. Each is a *DecodeError naming section and offset, or a
// *DebugObjectError for a Mach-O debug-map object that was not used; at
// most 64 are kept.
func (b *Binary) Warnings() []error {
	b.warns.mu.Lock()
	defer b.warns.mu.Unlock()
	return append([]error(nil), b.warns.list...)
}

// Close releases the files. Lookups after Close return ErrClosed; Close
// must not run while lookups are in flight.
func (b *Binary) Close() error {
	if b.closed.Swap(true) {
		return nil
	}
	return b.src.close()
}

// dwarfState is the decoded view of the DWARF sections.
type dwarfState struct {
	data    *dwinfo.Data
	index   *dwinfo.Index
	line    *buf.Lazy // nil without .debug_line
	info    *buf.Lazy // the same bytes dwinfo reads (both fetch from one cache)
	lineStr []byte
	str     []byte
	big     bool
	units   sync.Map // .debug_info offset -> *unitState
	recent  [64]atomic.Pointer[unitState]

	aheadOnce sync.Once
	warns     *warnList
}

// The sections loadDWARF reads, as indexes into dwarfSections.
const (
	secInfo = iota
	secAbbrev
	secStr
	secLineStr
	secStrOffsets
	secAddr
	secRanges
	secRnglists
	secAranges
	secLine
)

var dwarfSections = [...]string{
	secInfo: ".debug_info", secAbbrev: ".debug_abbrev", secStr: ".debug_str", secLineStr: ".debug_line_str",
	secStrOffsets: ".debug_str_offsets", secAddr: ".debug_addr", secRanges: ".debug_ranges",
	secRnglists: ".debug_rnglists", secAranges: ".debug_aranges", secLine: ".debug_line",
}

// loadDWARF decompresses the sections symbolication needs, both cores at a
// time, and builds the address index's first tier. pc is the first address
// looked up: while the other sections inflate, the unit that covers it (by
// .debug_aranges) is made available too.
func (b *Binary) loadDWARF(pc uint64) *dwarfState {
	b.dwarfOnce.Do(func() {
		names := &dwarfSections
		var out [len(names)][]byte
		var errs [len(names)]error
		// .debug_info and .debug_line, when compressed, are inflated
		// only as far as the units looked up need (the bulk of a large
		// debug file's DWARF); the rest are needed whole, and inflate
		// in parallel.
		var lazy [len(names)]*buf.Lazy
		ls, _ := b.src.(lazySource)
		for _, i := range []int{secInfo, secLine} {
			if ls != nil {
				if fetch, size, ok := ls.lazySection(names[i]); ok {
					lazy[i] = buf.NewLazy(nil, size, fetch)
				}
			}
		}
		var wg sync.WaitGroup
		if lazy[secInfo] != nil {
			// The aranges are small: read them first to find pc's unit
			// and inflate .debug_info through it alongside the rest.
			out[secAranges], errs[secAranges] = b.src.dwarfSection(names[secAranges])
			aranges := dwinfo.New(dwinfo.Sections{Aranges: out[secAranges]}, nil)
			if off, _, _, ok := dwinfo.NewIndex(aranges).LookupRange(pc); ok && errs[secAranges] == nil {
				wg.Go(func() { lazy[secInfo].Unit(off) })
			}
		}
		for i, name := range names {
			if lazy[i] != nil || out[i] != nil {
				continue
			}
			wg.Go(func() { out[i], errs[i] = b.src.dwarfSection(name) })
		}
		wg.Wait()
		// A section that does not decode (a bad compression header, an
		// unknown compression type, a corrupt stream) costs that section
		// alone, as in llvm-symbolizer: the others, and the symbol table,
		// still answer.
		for i, err := range errs {
			if err != nil {
				b.warns.add(err)
				out[i] = nil
			}
		}
		for _, i := range []int{secInfo, secLine} {
			if lazy[i] == nil && out[i] != nil {
				lazy[i] = buf.NewLazy(out[i], 0, nil)
			}
		}
		if lazy[secInfo] == nil {
			return // no DWARF: the symbol table answers alone
		}
		// Without .debug_line (stripped of it alone) the DIEs still name
		// the inline chain and its call sites, as in llvm-symbolizer.
		big := b.src.bigEndian()
		secs := dwinfo.Sections{
			Info: out[secInfo], Abbrev: out[secAbbrev], Str: out[secStr], LineStr: out[secLineStr],
			StrOffsets: out[secStrOffsets], Addr: out[secAddr], Ranges: out[secRanges],
			Rnglists: out[secRnglists], Aranges: out[secAranges], BigEndian: big,
		}
		if lazy[secInfo].Fetch != nil {
			secs.InfoPrefix, secs.InfoSize = lazy[secInfo].Fetch, lazy[secInfo].Size
		}
		d := dwinfo.New(secs, nil)
		b.dwarf = &dwarfState{data: d, index: dwinfo.NewIndex(d), line: lazy[secLine], info: lazy[secInfo],
			lineStr: out[secLineStr], str: out[secStr], big: big, warns: &b.warns}
	})
	return b.dwarf
}

// unitState is one compilation unit's lazily built lookup structures. The
// line table is built apart from the inline index because building one
// unit's inline index may need another unit's line table (gcc LTO keeps
// abstract origins in units of their own).
type unitState struct {
	off      uint64 // of the unit in .debug_info
	lineOnce sync.Once
	unit     *dwinfo.Unit
	lines    *linetable.Table
	compDir  string
	lineErr  error

	inlOnce sync.Once
	inl     *inline.Index
	inlErr  error
}

// unitLines returns the unit at .debug_info offset off with its line table.
func (s *dwarfState) unitLines(off uint64) (*unitState, error) {
	// A small direct-mapped cache in front of the map: lookups of nearby
	// addresses hit the same few units.
	slot := &s.recent[(off>>4)%uint64(len(s.recent))]
	us := slot.Load()
	if us == nil || us.off != off {
		v, ok := s.units.Load(off)
		if !ok {
			v, _ = s.units.LoadOrStore(off, &unitState{off: off})
		}
		us = v.(*unitState)
		slot.Store(us)
	}
	us.lineOnce.Do(func() {
		// Reported once per unit: the error is kept and every later
		// lookup in the unit gets it without a new warning.
		if us.lineErr = s.loadLines(us, off); us.lineErr != nil {
			s.warn(us.lineErr)
		}
	})
	return us, us.lineErr
}

// unit returns the unit at off with its line table and inline index.
func (s *dwarfState) unit(off uint64) (*unitState, error) {
	us, err := s.unitLines(off)
	if err != nil {
		return nil, err
	}
	us.inlOnce.Do(func() {
		opts := &inline.Options{LineTable: func(u *dwinfo.Unit) *linetable.Table {
			if o, err := s.unitLines(u.Offset); err == nil {
				return o.lines
			}
			return nil
		}}
		// Build returns a usable (possibly partial) index even with an
		// error; the error is kept as a warning.
		us.inl, us.inlErr = inline.Build(s.data, us.unit, us.lines, opts)
		if us.inlErr != nil {
			s.warn(us.inlErr)
		}
	})
	return us, nil
}

func (s *dwarfState) loadLines(us *unitState, off uint64) error {
	h, err := s.data.HeaderAt(off)
	if err != nil {
		return err
	}
	u, err := s.data.LoadUnit(h)
	if err != nil {
		return err
	}
	us.unit = u
	us.compDir = string(u.Root.CompDir)
	if u.RootErr != nil {
		s.warn(u.RootErr) // that attribute is lost, the unit answers
	}
	if !u.Root.HasStmt || s.line == nil {
		return nil
	}
	opts := &linetable.Options{
		BigEndian:   s.big,
		LineStr:     s.lineStr,
		Str:         s.str,
		AddressSize: h.AddrSize,
		StrX: func(i uint64) (string, error) {
			b, err := u.String(dw.Value{Class: dw.ClassStrx, U: i})
			return string(b), err
		},
	}
	line, err := s.line.Unit(u.Root.StmtList)
	if err != nil {
		// The unit's DIEs still name its functions, without lines.
		s.warn(err)
		return nil
	}
	lt, err := linetable.NewTable(line, u.Root.StmtList, opts)
	if err != nil {
		// LLVM goes on without the line table; so do we, and say why.
		s.warn(err)
		return nil
	}
	us.lines = lt
	return nil
}

// maxWarnings bounds the warnings a Binary keeps.
const maxWarnings = 64

// warnList collects warnings; safe for concurrent use.
type warnList struct {
	mu   sync.Mutex
	list []error
}

// add records a warning, keeping at most maxWarnings.
func (w *warnList) add(err error) {
	w.mu.Lock()
	if len(w.list) < maxWarnings {
		w.list = append(w.list, err)
	}
	w.mu.Unlock()
}

func (s *dwarfState) warn(err error) { s.warns.add(err) }

// symbols returns the module's symbol table, built on first use. A table
// that does not decode whole keeps the entries before the bad one, and the
// error goes to Warnings: it costs the rest of that table, not the lookup.
func (b *Binary) symbols() *symtab.Table {
	b.symOnce.Do(func() {
		syms, err := b.src.symbols()
		if err != nil {
			b.warns.add(err)
		}
		b.syms = symtab.New(syms)
	})
	return b.syms
}

// LookupSymbol returns the symbol-table entry covering pc (a function or a
// data object), as llvm-symbolizer's DATA requests report it.
func (b *Binary) LookupSymbol(pc uint64) (symtab.Match, bool, error) {
	if b.closed.Load() {
		return symtab.Match{}, false, ErrClosed
	}
	m, ok := b.symbols().Lookup(pc)
	return m, ok, nil
}
