package inline

import (
	"github.com/symbolize-go/symbolize/internal/dw"
	"github.com/symbolize-go/symbolize/internal/dwinfo"
)

// References into a supplementary file (dwz -m). A debug file that dwz
// processed keeps the DIEs with code in its compile units and moves what
// several files share (types, declarations, the abstract instances of
// inline functions) into partial units, of its own .debug_info (reached
// by DW_FORM_ref_addr, like any other unit) or of the supplementary
// file's (reached by DW_FORM_GNU_ref_alt or DW_FORM_ref_sup4/8). Names,
// declaration lines and declaration files are found through those
// references as through any other, and a DIE of the supplementary file
// refers within that file (DW_FORM_ref_addr, unit-relative forms); its
// DW_AT_decl_file names a file of the line table of the partial unit that
// holds it (its DW_AT_stmt_list, in the supplementary file's .debug_line),
// which Options.LineTable supplies as for any other unit. This is what GNU
// addr2line reads (bfd's find_abstract_instance); llvm-symbolizer 14
// takes DW_FORM_GNU_ref_alt for an offset in the file's own .debug_info.
// DW_TAG_imported_unit, which only says where a partial unit's DIEs are in
// scope, matters to neither: symbolization starts from the DIEs with code
// and follows references.

// supState is a Build's view of the supplementary file: the units and
// DIEs that references led to there.
type supState struct {
	units map[uint64]*unitInfo // by unit offset in the supplementary .debug_info
	recs  map[uint64]int32     // DIEs by offset: index into recs, or -1 (no DIE there)
}

// reset empties s for the next Build.
func (s *supState) reset() {
	clear(s.units)
	clear(s.recs)
}

// refOf resolves the reference v of a DIE of u to an offset, and whether
// that offset is in the supplementary file rather than in the Data being
// built; ok is false when it names nothing this Build can read.
func (b *builder) refOf(u *dwinfo.Unit, v dw.Value) (off uint64, sup, ok bool) {
	d, off, ok := u.Target(v)
	switch {
	case !ok:
		return 0, false, false
	case d == b.d:
		return off, false, true
	case d == b.d.Sup():
		return off, true, true
	}
	return 0, false, false
}

// lookupTarget is lookupRec for the reference of a rec: an offset in the
// Data being built, or with sup in its supplementary file.
func (b *builder) lookupTarget(off uint64, sup bool) int32 {
	if !sup {
		return b.lookupRec(off)
	}
	if i, ok := b.sup.recs[off]; ok {
		return i
	}
	i := int32(-1)
	if ui := b.supUnit(off); ui != nil {
		if r, ok := b.readRec(ui.u, off); ok {
			r.ui = ui
			i = b.addRec(-1, &r)
		}
	}
	if b.sup.recs == nil {
		b.sup.recs = make(map[uint64]int32)
	}
	b.sup.recs[off] = i
	return i
}

// supUnit returns the unit of the supplementary file holding .debug_info
// offset off, loading it once; nil if none does.
func (b *builder) supUnit(off uint64) *unitInfo {
	d := b.d.Sup()
	if d == nil {
		return nil
	}
	h, ok, _ := d.UnitContaining(off)
	if !ok {
		return nil
	}
	if ui, ok := b.sup.units[h.Offset]; ok {
		return ui
	}
	var ui *unitInfo
	if u, err := d.LoadUnit(h); err == nil {
		ui = &unitInfo{u: u, files: fileTable{dir: string(u.Root.CompDir), shared: b.opts.Strings}}
	} else {
		b.note(err)
	}
	if b.sup.units == nil {
		b.sup.units = make(map[uint64]*unitInfo)
	}
	b.sup.units[h.Offset] = ui
	return ui
}
