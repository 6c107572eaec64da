package inline

import (
	"slices"

	"github.com/symbolize-go/symbolize/internal/dw"
	"github.com/symbolize-go/symbolize/internal/dwinfo"
	"github.com/symbolize-go/symbolize/linetable"
)

// builder holds the state of one Build.
type builder struct {
	d       *dwinfo.Data
	u       *dwinfo.Unit
	opts    Options
	m       omap
	nodes   []node
	nodeOff []uint64 // DIE offset of each node
	err     error    // first non-fatal problem

	// starts marks the DIE offsets of u (bit off-u.DIEOffset), so that a
	// reference is followed only to a real DIE, as LLVM's getDIEForOffset
	// requires.
	starts []uint64

	own     fileTable
	others  map[uint64]*unitInfo // by unit offset
	recs    map[uint64]*rec      // by DIE offset; nil value: no DIE there
	strs    map[string]uint32    // interned strings, indexes into strList
	strList []string
}

// fileTable is the resolved file paths of one unit's line table.
type fileTable struct {
	lt    *linetable.Table
	dir   string
	paths []string
	ok    []bool
}

// path resolves file index i, building the table on first use.
func (ft *fileTable) path(i uint64) string {
	if ft.lt == nil {
		return ""
	}
	if ft.paths == nil {
		h := ft.lt.Header()
		ft.paths = make([]string, len(h.Files))
		ft.ok = make([]bool, len(h.Files))
		for j := range h.Files {
			ft.paths[j], ft.ok[j] = h.FilePath(uint64(j), ft.dir)
		}
	}
	if i >= uint64(len(ft.paths)) {
		return ""
	}
	return ft.paths[i]
}

// unitInfo is another unit that a reference led to.
type unitInfo struct {
	u     *dwinfo.Unit
	files fileTable
	done  bool // files.lt was asked for
}

// rec holds the attributes of one DIE that name lookups read; the first
// occurrence of each attribute counts, as in LLVM's DWARFDie::find.
type rec struct {
	u        *dwinfo.Unit
	ui       *unitInfo // nil for the unit being built
	link     dw.Value  // first of DW_AT_linkage_name / DW_AT_MIPS_linkage_name
	name     dw.Value
	declLine dwinfo.Field
	declFile dwinfo.Field
	origin   dw.Value
	spec     dw.Value
}

func newBuilder(d *dwinfo.Data, u *dwinfo.Unit, lt *linetable.Table, opts *Options) *builder {
	b := &builder{d: d, u: u, recs: make(map[uint64]*rec), strs: map[string]uint32{"": 0}, strList: []string{""}}
	if opts != nil {
		b.opts = *opts
	}
	if b.opts.MaxRefs <= 0 {
		b.opts.MaxRefs = DefaultMaxRefs
	}
	b.own = fileTable{lt: lt, dir: string(u.Root.CompDir)}
	if u.End > u.DIEOffset {
		b.starts = make([]uint64, (u.End-u.DIEOffset+63)/64)
	}
	return b
}

// note records the first non-fatal problem.
func (b *builder) note(err error) {
	if b.err == nil {
		b.err = err
	}
}

func (b *builder) markDIE(off uint64) {
	if i := off - b.u.DIEOffset; off >= b.u.DIEOffset && i/64 < uint64(len(b.starts)) {
		b.starts[i/64] |= 1 << (i % 64)
	}
}

func (b *builder) isDIE(off uint64) bool {
	i := off - b.u.DIEOffset
	return off >= b.u.DIEOffset && i/64 < uint64(len(b.starts)) && b.starts[i/64]&(1<<(i%64)) != 0
}

// intern returns the index of s in the Build's string table, adding it
// once: equal names share one string and nodes hold 4-byte indexes.
func (b *builder) intern(s []byte) uint32 {
	if v, ok := b.strs[string(s)]; ok {
		return v
	}
	v := uint32(len(b.strList))
	str := string(s)
	b.strs[str] = v
	b.strList = append(b.strList, str)
	return v
}

// resolve fills in the names and start data of every node.
func (b *builder) resolve() error {
	b.own.path(0) // build the path table, which the Index keeps
	for i := range b.nodes {
		b.describe(&b.nodes[i], b.nodeOff[i])
	}
	return b.err
}

// lookupRec returns the rec of the DIE at absolute offset off, or nil if no
// DIE starts there. Within the unit being built, the offsets seen by the
// walk decide; in another unit, the entry decoded at off must start there
// (an offset inside a DIE is not detected: LLVM would ignore it).
func (b *builder) lookupRec(off uint64) *rec {
	if r, ok := b.recs[off]; ok {
		return r
	}
	var r *rec
	u, ui := b.u, (*unitInfo)(nil)
	if off < b.u.Offset || off >= b.u.End {
		ui = b.other(off)
		if ui != nil {
			u = ui.u
		}
	} else if !b.isDIE(off) {
		u = nil
	}
	if u != nil {
		r = b.readRec(u, off)
		if r != nil {
			r.ui = ui
		}
	}
	b.recs[off] = r
	return r
}

// other returns the unit holding .debug_info offset off, loading it once.
func (b *builder) other(off uint64) *unitInfo {
	h, ok, _ := b.d.UnitContaining(off)
	if !ok {
		return nil
	}
	if b.others == nil {
		b.others = make(map[uint64]*unitInfo)
	}
	if ui, ok := b.others[h.Offset]; ok {
		return ui
	}
	var ui *unitInfo
	if u, err := b.d.LoadUnit(h); err == nil {
		ui = &unitInfo{u: u, files: fileTable{dir: string(u.Root.CompDir)}}
	} else {
		b.note(err)
	}
	b.others[h.Offset] = ui
	return ui
}

func (b *builder) readRec(u *dwinfo.Unit, off uint64) *rec {
	er, err := u.EntriesAt(off)
	if err != nil {
		return nil
	}
	var e dwinfo.Entry
	if er.Next(&e) != nil || e.Offset != off {
		return nil
	}
	r := &rec{u: u}
	var seen [6]bool
	it := u.Attrs(&e)
	var f dwinfo.Field
	for it.Next(&f) {
		var k int
		switch f.Attr {
		case dwinfo.AttrLinkageName, dwinfo.AttrMIPSLinkageName:
			k = 0
		case dwinfo.AttrName:
			k = 1
		case dwinfo.AttrDeclLine:
			k = 2
		case dwinfo.AttrDeclFile:
			k = 3
		case dwinfo.AttrAbstractOrigin:
			k = 4
		case dwinfo.AttrSpecification:
			k = 5
		default:
			continue
		}
		if seen[k] {
			continue
		}
		seen[k] = true
		switch k {
		case 0:
			r.link = f.Val
		case 1:
			r.name = f.Val
		case 2:
			r.declLine = f
		case 3:
			r.declFile = f
		case 4:
			r.origin = f.Val
		case 5:
			r.spec = f.Val
		}
	}
	if err := it.Err(); err != nil {
		b.note(err)
	}
	return r
}

// ref resolves a reference attribute of r to the rec it names, or nil.
// LLVM treats DW_FORM_ref_sig8 and supplementary-file references as
// section offsets that rarely name anything; they name nothing here.
func (b *builder) ref(r *rec, v dw.Value) *rec {
	if v.Class == 0 {
		return nil
	}
	off, ok := r.u.Ref(v)
	if !ok {
		return nil
	}
	return b.lookupRec(off)
}

// describe resolves node n (the DIE at off): LLVM's getSubroutineName for
// both name kinds, getDeclLine and getDeclFile, all four through
// findRecursively.
func (b *builder) describe(n *node, off uint64) {
	self := b.lookupRec(off)
	if self == nil {
		return
	}
	// findRecursively: a depth-first worklist over abstract_origin and
	// specification references, each DIE visited once; the first DIE
	// holding an attribute answers for it (even if its value then proves
	// useless). The walk order does not depend on the attribute, so one
	// walk serves all four.
	var link, name, line, file *rec
	// Chains are short, so the visited set is a slice: MaxRefs bounds it.
	var workBuf, seenBuf [8]*rec
	work := append(workBuf[:0], self)
	seen := append(seenBuf[:0], self)
	for visits := 0; len(work) > 0 && visits < b.opts.MaxRefs; visits++ {
		r := work[len(work)-1]
		work = work[:len(work)-1]
		if link == nil && r.link.Class != 0 {
			link = r
		}
		if name == nil && r.name.Class != 0 {
			name = r
		}
		if line == nil && r.declLine.Attr != 0 {
			line = r
		}
		if file == nil && r.declFile.Attr != 0 {
			file = r
		}
		if link != nil && name != nil && line != nil && file != nil {
			break
		}
		if t := b.ref(r, r.origin); t != nil && !slices.Contains(seen, t) {
			seen = append(seen, t)
			work = append(work, t)
		}
		if t := b.ref(r, r.spec); t != nil && !slices.Contains(seen, t) {
			seen = append(seen, t)
			work = append(work, t)
		}
	}
	if name != nil {
		n.short = b.str(name, name.name)
	}
	n.name = n.short
	if link != nil {
		// A linkage name that does not resolve to a string falls back to
		// DW_AT_name, as LLVM's getName does.
		if s, ok := b.strOK(link, link.link); ok {
			n.name = s
		}
	}
	if line != nil {
		if v, ok := unsigned(line.declLine); ok {
			n.startLine = uint32(v)
		}
	}
	if file != nil {
		// llvm-symbolizer-14 names no file for a DW_AT_decl_file of form
		// DW_FORM_implicit_const, which gcc 11+ uses when every DIE of an
		// abbreviation shares the file (measured on the gcc fixtures; the
		// same form works for DW_AT_call_file).
		if v, ok := unsigned(file.declFile); ok && file.declFile.Form != dw.FormImplicitConst {
			ft := &b.own
			if file.ui != nil {
				if !file.ui.done {
					file.ui.done = true
					if b.opts.LineTable != nil {
						file.ui.files.lt = b.opts.LineTable(file.ui.u)
					}
				}
				ft = &file.ui.files
			}
			// Resolved in the line table of the unit holding the
			// attribute (LLVM's DWARFFormValue::getAsFile).
			n.startFile = b.intern([]byte(ft.path(v)))
		}
	}
}

func (b *builder) str(r *rec, v dw.Value) uint32 {
	s, _ := b.strOK(r, v)
	return s
}

func (b *builder) strOK(r *rec, v dw.Value) (uint32, bool) {
	s, err := r.u.String(v)
	if err != nil {
		return 0, false
	}
	return b.intern(s), true
}
