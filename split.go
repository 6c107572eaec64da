package symbolize

import (
	"context"
	"debug/elf"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sync"

	"github.com/symbolize-go/symbolize/elfx"
	"github.com/symbolize-go/symbolize/internal/buf"
	"github.com/symbolize-go/symbolize/internal/dwinfo"
	"github.com/symbolize-go/symbolize/internal/dwp"
	"github.com/symbolize-go/symbolize/locate"
)

// Split DWARF (gcc and clang -gsplit-dwarf) [DWARF5 3.1.3, 7.3.2; gcc's
// DebugFission for the DWARF 4 extension] leaves in the binary a skeleton
// unit per compilation unit: its address ranges, its line table, the bases
// of its .debug_addr contribution, and the name and dwo_id of its split
// unit, which holds the DIEs (subprograms, inlined subroutines) in a .dwo
// file, or in a DWARF package (.dwp) that llvm-dwp or dwp made of the
// .dwo files.
//
// The skeleton's unit state is composed with its split unit: when a
// lookup first needs the inline index of a skeleton unit, the module's
// splitter finds the split unit (once per unit) and the index is built
// from the split unit's DIEs and the skeleton's line table, which is what
// LLVM 14 reads (DWARFUnit::getInlinedChainForAddress takes the DIEs of
// the DWO unit; DWARFContext::getInliningInfoForAddress the skeleton's
// line table, for the innermost location and call files alike; and
// DWARFFormValue::getAsFile resolves DW_AT_decl_file through the split
// unit's skeleton, getLinkedUnit). The .debug_line.dwo of a split unit,
// which only type units use, is never read. Without its split unit (a
// missing .dwo, a dwo_id that matches nothing) a skeleton answers what it
// knows, the line table's location, which the symbol table names, as
// llvm-symbolizer does; the reason is a *SplitUnitError in Warnings.
//
// Where split units are looked for, as LLVM 14 (DWARFContext::
// getDWOContext) and GDB do: a package first, Options.DWP else BINARY.dwp
// beside the binary; when there is one, every split unit comes from it and
// .dwo files are not looked for. Without a package, each unit's .dwo
// through the locator (locate.KindDWO: DW_AT_dwo_name under
// DW_AT_comp_dir, beside the binary, in the debug directories). A file is
// used only when it holds a unit of the skeleton's dwo_id.

// ErrDWOIDMismatch is wrapped by the *SplitUnitError of a skeleton unit
// whose .dwo holds no unit with the skeleton's dwo_id (it is another
// build's), or whose DWARF package has no row of that signature.
var ErrDWOIDMismatch = errors.New("no split unit with the skeleton's dwo_id")

// SplitUnitError says why the split unit of a skeleton unit (split DWARF)
// did not answer, or what in it did not decode. Err wraps fs.ErrNotExist
// when no file was found, ErrDWOIDMismatch when none holds the unit, a
// *DecodeError for a split unit, package index or section that does not
// decode (its Section the .dwo section's name, ".debug_info.dwo"), else
// the error opening the file. Binary.Warnings reports it; the skeleton
// answers without the split unit's DIEs. A package that is unusable as a
// whole has no DWOName.
type SplitUnitError struct {
	DWOName string // DW_AT_dwo_name of the skeleton
	DWOID   uint64
	Path    string // the .dwo or .dwp, when one was found
	Err     error
}

func (e *SplitUnitError) Error() string {
	if e.DWOName == "" {
		return fmt.Sprintf("symbolize: DWARF package %s: %v", e.Path, e.Err)
	}
	if e.Path == "" {
		return fmt.Sprintf("symbolize: split unit %s (dwo_id %#x): %v", e.DWOName, e.DWOID, e.Err)
	}
	return fmt.Sprintf("symbolize: split unit %s (dwo_id %#x) in %s: %v", e.DWOName, e.DWOID, e.Path, e.Err)
}

// Unwrap returns the cause.
func (e *SplitUnitError) Unwrap() error { return e.Err }

// The sections of a .dwo or .dwp that split units are read from. The
// location lists are not: no answer reads them (a split unit has no FRAME
// locals, as in LLVM 14).
const (
	dwoInfo = iota
	dwoAbbrev
	dwoStr
	dwoStrOffsets
	dwoRnglists
	dwoCUIndex
	numDWO
)

var dwoSections = [numDWO]string{
	dwoInfo: ".debug_info.dwo", dwoAbbrev: ".debug_abbrev.dwo", dwoStr: ".debug_str.dwo",
	dwoStrOffsets: ".debug_str_offsets.dwo", dwoRnglists: ".debug_rnglists.dwo", dwoCUIndex: ".debug_cu_index",
}

// dwoFile is an opened .dwo or .dwp: its split-unit sections and, for a
// package, its unit index.
type dwoFile struct {
	f     *elfx.File
	path  string
	how   locate.How
	sec   [numDWO][]byte
	big   bool
	index *dwp.Index // a package's; nil for a .dwo
}

// openDWO decodes the file a locator found as a .dwo (or, with pkg, a
// .dwp); it takes lf over. A section that does not decompress is an error:
// the file is then not used.
func openDWO(lf *locate.File, pkg bool) (*dwoFile, error) {
	f, err := elfx.NewLocated(lf, nil)
	if err != nil {
		lf.Close()
		return nil, err
	}
	d := &dwoFile{f: f, path: lf.Path, how: lf.How, big: f.Data == elf.ELFDATA2MSB}
	for i, name := range dwoSections {
		s := f.Section(name)
		if s == nil || !s.HasData() {
			continue
		}
		if d.sec[i], err = s.Data(); err != nil {
			f.Close()
			return nil, err
		}
	}
	if d.sec[dwoInfo] == nil {
		f.Close()
		return nil, fmt.Errorf("no %s section", dwoSections[dwoInfo])
	}
	if pkg {
		if d.sec[dwoCUIndex] == nil {
			f.Close()
			return nil, fmt.Errorf("no %s section", dwoSections[dwoCUIndex])
		}
		// Slots the index reader finds inconsistent cost their units
		// alone (Find reports them); only an unusable index refuses
		// the package.
		ix, err := dwp.Parse(dwoSections[dwoCUIndex], d.sec[dwoCUIndex], d.big)
		if ix == nil {
			f.Close()
			return nil, err
		}
		d.index = ix
	}
	return d, nil
}

// splitter finds the split units of one module's skeleton units, through
// the locator, each at most once (the module's unit state keeps it). It is
// safe for concurrent use.
type splitter struct {
	loc     locate.Locator
	ctx     context.Context
	from    string // the binary: .dwo files beside it
	dwpFrom string // the file holding the skeletons, whose name + ".dwp" is the package
	dwpName string // Options.DWP
	// The skeleton file's .debug_addr and .debug_ranges, which split
	// units read their addresses and (DWARF 4) ranges from.
	addr, ranges []byte
	warns        *warnList
	skeletonBase bool // Options.SplitBaseFromSkeleton
	// contribute records a file that answers in the Binary's identity.
	contribute func(role string, d *dwoFile)

	pkgOnce sync.Once
	pkg     *dwoFile // the package, nil without one

	mu    sync.Mutex
	dwos  map[string]*dwoFile // .dwo files by path
	files []*dwoFile          // everything opened, to close
}

// newSplitter returns the splitter of m, the module of an ELF binary's
// DWARF (split DWARF exists only there); nil for other sources.
func (b *Binary) newSplitter(m *dwarfModule) *splitter {
	es, ok := b.src.(*elfSource)
	if !ok || m == nil {
		return nil
	}
	// LLVM looks for the package beside the file it reads the DWARF of
	// (DWARFContext::getDWOContext): the separate debug file's, when the
	// skeletons are there.
	dwpFrom := b.path
	if es.dbg != nil {
		if lf := es.dbg.Located(); lf != nil {
			dwpFrom = lf.Path
		}
	}
	return &splitter{loc: b.opts.locator(), ctx: b.opts.context(), from: b.path, dwpFrom: dwpFrom, dwpName: b.opts.DWP,
		addr: m.addr, ranges: m.ranges, warns: &b.warns, skeletonBase: b.opts.SplitBaseFromSkeleton,
		contribute: func(role string, d *dwoFile) { b.contribute(role, d.path, d.how, nil, nil, d.f.WriteTo) }}
}

// isSkeleton reports whether u names a split unit: a dwo name and a
// dwo_id, which is what LLVM's parseDWO asks of a unit (gcc's DWARF 4
// skeletons are DW_TAG_compile_units with DW_AT_GNU_dwo_name).
func isSkeleton(u *dwinfo.Unit) bool {
	return u != nil && len(u.Root.DWOName) > 0 && u.Root.HasDWOID && u.Type != dwinfo.UnitSplitCompile
}

// splitUnit is a skeleton unit's split unit: the DIEs that its inline
// index is built from. data reads the unit's contribution to
// .debug_info.dwo alone (so that no reference leaves it, and no other unit
// of a package is read with this one's bases).
type splitUnit struct {
	data    *dwinfo.Data
	unit    *dwinfo.Unit
	file    *dwoFile
	infoOff uint64 // of the contribution in .debug_info.dwo
	name    string
	id      uint64
}

// unit returns the split unit of skel, a skeleton unit (see isSkeleton),
// or the reason it has none, a *SplitUnitError.
func (sp *splitter) unit(skel *dwinfo.Unit) (*splitUnit, error) {
	name, id := string(skel.Root.DWOName), skel.Root.DWOID
	fail := func(path string, err error) (*splitUnit, error) {
		return nil, &SplitUnitError{DWOName: name, DWOID: id, Path: path, Err: err}
	}
	if pkg := sp.pack(); pkg != nil {
		row, ok, err := pkg.index.Find(id)
		if err != nil {
			return fail(pkg.path, err)
		}
		if !ok {
			return fail(pkg.path, fmt.Errorf("%w: no row for %#x in %s", ErrDWOIDMismatch, id, dwoSections[dwoCUIndex]))
		}
		su, err := pkg.rowUnit(row, skel, sp)
		if err != nil {
			return fail(pkg.path, err)
		}
		return su, nil
	}
	k := locate.Key{Kind: locate.KindDWO, From: sp.from, Name: name, CompDir: string(skel.Root.CompDir), DWOID: id}
	var su *splitUnit
	var tried string // the last candidate refused
	_, err := locate.First(sp.ctx, sp.loc, k, func(lf *locate.File) error {
		tried = lf.Path
		// LTO can make several skeletons share one .dwo: it is opened
		// once, and kept only once it holds a wanted unit (First closes
		// the candidates refused).
		sp.mu.Lock()
		d := sp.dwos[lf.Path]
		sp.mu.Unlock()
		cached := d != nil
		if cached {
			lf.Close()
		} else {
			var err error
			if d, err = openDWO(lf, false); err != nil {
				return err
			}
		}
		var err error
		if su, err = d.findUnit(skel, sp); su == nil && err == nil {
			err = fmt.Errorf("%w %#x", ErrDWOIDMismatch, id)
		}
		if err != nil {
			if !cached {
				d.f.Close()
			}
			return err
		}
		if !cached {
			sp.keep(lf.Path, d)
		}
		return nil
	})
	if su != nil {
		return su, nil
	}
	if err == nil {
		p := name
		if !filepath.IsAbs(p) && len(skel.Root.CompDir) > 0 {
			p = filepath.Join(string(skel.Root.CompDir), p)
		}
		return fail("", &fs.PathError{Op: "open", Path: p, Err: fs.ErrNotExist})
	}
	return fail(tried, err)
}

// keep records an opened .dwo, to find it again, to close it and in the
// Binary's identity.
func (sp *splitter) keep(path string, d *dwoFile) {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	if sp.dwos == nil {
		sp.dwos = make(map[string]*dwoFile)
	}
	sp.files = append(sp.files, d)
	if sp.dwos[path] == nil {
		sp.dwos[path] = d
		sp.contribute("dwo", d)
	}
}

// pack returns the DWARF package, found on first use: Options.DWP, else
// BINARY.dwp (locate.KindDWP), or DEBUGFILE.dwp for the skeletons of a
// separate debug file, as LLVM names it. A package that does not open is reported
// once and not used (the .dwo files are looked for instead).
func (sp *splitter) pack() *dwoFile {
	sp.pkgOnce.Do(func() {
		k := locate.Key{Kind: locate.KindDWP, From: sp.dwpFrom, Name: sp.dwpName}
		if k.From == "" && k.Name == "" {
			return
		}
		var d *dwoFile
		_, err := locate.First(sp.ctx, sp.loc, k, func(lf *locate.File) error {
			var err error
			d, err = openDWO(lf, true)
			if err != nil {
				return &SplitUnitError{Path: lf.Path, Err: err}
			}
			return nil
		})
		if err != nil {
			sp.warns.add(err)
		}
		if d != nil {
			sp.pkg = d
			sp.mu.Lock()
			sp.files = append(sp.files, d)
			sp.mu.Unlock()
			sp.contribute("dwp", d)
		}
	})
	return sp.pkg
}

// close closes every file opened.
func (sp *splitter) close() error {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	var first error
	for _, d := range sp.files {
		if err := d.f.Close(); err != nil && first == nil {
			first = err
		}
	}
	sp.files, sp.dwos = nil, nil
	return first
}

// findUnit returns the unit of a .dwo whose dwo_id is skel's (LLVM's
// getDWOCompileUnitForHash without an index: the DWARF 5 header's dwo_id,
// else the unit DIE's DW_AT_GNU_dwo_id), or nil.
func (d *dwoFile) findUnit(skel *dwinfo.Unit, sp *splitter) (*splitUnit, error) {
	all := dwinfo.New(dwinfo.Sections{Info: d.sec[dwoInfo], BigEndian: d.big}, nil)
	hs, err := all.Headers()
	for _, h := range hs {
		if h.Version >= 5 && (h.Type != dwinfo.UnitSplitCompile || h.DWOID != skel.Root.DWOID) {
			continue
		}
		// A DWARF 4 unit says its dwo_id in its unit DIE, which load
		// reads (once: the unit is kept when it matches).
		su, err := d.load(dwp.Contribution{Offset: h.Offset, Size: h.End - h.Offset}, nil, skel, sp)
		if h.Version < 5 && errors.Is(err, ErrDWOIDMismatch) {
			continue
		}
		return su, err
	}
	if err != nil {
		return nil, dwoError(err, 0)
	}
	return nil, nil
}

// rowUnit returns the split unit of a package's row.
func (d *dwoFile) rowUnit(row dwp.Row, skel *dwinfo.Unit, sp *splitter) (*splitUnit, error) {
	return d.load(row.Unit(), &row, skel, sp)
}

// load reads the split unit whose .debug_info.dwo contribution is info,
// with the other contributions of row (nil in a .dwo), as the split unit
// of skel.
func (d *dwoFile) load(info dwp.Contribution, row *dwp.Row, skel *dwinfo.Unit, sp *splitter) (*splitUnit, error) {
	var b dwinfo.SplitBases
	b.AddrBase = skel.Root.AddrBase
	if sp.skeletonBase {
		b.Base, b.HasBase = skel.Root.LowPC, true
	}
	if skel.Version < 5 {
		b.RangesBase = skel.Root.RnglistsBase // DW_AT_GNU_ranges_base
	}
	if row != nil {
		for _, c := range [...]struct {
			k   dwp.Kind
			sec int
			dst *uint64
		}{
			{dwp.Abbrev, dwoAbbrev, &b.Abbrev}, {dwp.StrOffsets, dwoStrOffsets, &b.StrOffsets},
			{dwp.Rnglists, dwoRnglists, &b.Rnglists},
		} {
			if cc, ok := row.Contribution(c.k); ok {
				if err := d.checkContribution(c.sec, cc); err != nil {
					return nil, err
				}
				*c.dst = cc.Offset
			}
		}
	}
	if err := d.checkContribution(dwoInfo, info); err != nil {
		return nil, err
	}
	slice := d.sec[dwoInfo][info.Offset : info.Offset+info.Size]
	data := dwinfo.New(dwinfo.Sections{Info: slice, Abbrev: d.sec[dwoAbbrev], Str: d.sec[dwoStr],
		StrOffsets: d.sec[dwoStrOffsets], Addr: sp.addr, Ranges: sp.ranges, Rnglists: d.sec[dwoRnglists],
		BigEndian: d.big}, nil)
	su := &splitUnit{data: data, file: d, infoOff: info.Offset, name: string(skel.Root.DWOName), id: skel.Root.DWOID}
	h, err := data.HeaderAt(0)
	if err != nil {
		return nil, su.rebase(err)
	}
	if row != nil && h.End != info.Size {
		// LLVM's applyIndexEntry refuses such a unit too.
		return nil, buf.Errorf("symbolize", dwoSections[dwoInfo], info.Offset, buf.ErrFormat,
			"unit of %#x bytes in a contribution of %#x", h.End, info.Size)
	}
	if h.Version >= 5 && (h.Type != dwinfo.UnitSplitCompile || h.DWOID != skel.Root.DWOID) {
		return nil, fmt.Errorf("%w: unit at %s+%#x has type %#x, dwo_id %#x", ErrDWOIDMismatch, dwoSections[dwoInfo], info.Offset, uint8(h.Type), h.DWOID)
	}
	u, err := data.LoadSplitUnit(h, b)
	if err != nil {
		return nil, su.rebase(err)
	}
	if h.Version < 5 && (!u.Root.HasDWOID || u.Root.DWOID != skel.Root.DWOID) {
		return nil, fmt.Errorf("%w: unit at %s+%#x has dwo_id %#x", ErrDWOIDMismatch, dwoSections[dwoInfo], info.Offset, u.Root.DWOID)
	}
	su.unit = u
	return su, nil
}

// checkContribution reports an error unless c lies within section i.
func (d *dwoFile) checkContribution(i int, c dwp.Contribution) error {
	if n := uint64(len(d.sec[i])); c.Offset > n || c.Size > n-c.Offset {
		return buf.Errorf("symbolize", dwoSections[i], c.Offset, buf.ErrTruncated,
			"contribution of %#x bytes past the section's %#x", c.Size, n)
	}
	return nil
}

// rebase returns err, a problem met reading su, with its section named as
// in the .dwo (".debug_info.dwo") and .debug_info offsets made absolute in
// the file's section; wrapped in a *SplitUnitError.
func (su *splitUnit) rebase(err error) error {
	return dwoError(err, su.infoOff)
}

// wrap is rebase for the warnings of an answering split unit: a
// *SplitUnitError naming the unit.
func (su *splitUnit) wrap(err error) error {
	return &SplitUnitError{DWOName: su.name, DWOID: su.id, Path: su.file.path, Err: su.rebase(err)}
}

// dwoError renames the section of a *DecodeError read from a split unit:
// every section but the skeleton file's .debug_addr, .debug_ranges and
// .debug_line is the .dwo's; .debug_info offsets get infoOff added.
func dwoError(err error, infoOff uint64) error {
	de, ok := err.(*buf.DecodeError)
	if !ok {
		return err
	}
	switch de.Section {
	case ".debug_addr", ".debug_ranges", ".debug_line":
		return err
	}
	c := *de
	if c.Section == ".debug_info" {
		c.Offset += infoOff
	}
	c.Section += ".dwo"
	return &c
}
