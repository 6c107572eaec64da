package dwinfo

import (
	"errors"
	"sync"

	"github.com/symbolize-go/symbolize/internal/buf"
	"github.com/symbolize-go/symbolize/internal/dw"
)

// Supplementary files. A debug file that dwz -m processed refers to a
// supplementary file holding the DIEs and strings it shares with other
// debug files: DW_FORM_GNU_ref_alt and DW_FORM_ref_sup4/8 are offsets in
// that file's .debug_info, DW_FORM_GNU_strp_alt and DW_FORM_strp_sup in its
// .debug_str [DWARF5 7.3.6]. dw reads them as dw.ClassRefAlt and
// dw.ClassStrpAlt; a Data resolves them through the Data of the
// supplementary file, which the caller supplies (SetSup) because finding
// the file is not a decoder's business. The supplementary file's own
// references stay within it: it has no supplementary file of its own.

// ErrNoSup is wrapped by the error of a string or reference in a
// supplementary file that is not available (none was set, or it was not
// found).
var ErrNoSup = errors.New("supplementary file not available")

// supLink is a Data's supplementary file, resolved on first use.
type supLink struct {
	once    sync.Once
	resolve func() *Data
	d       *Data
}

// SetSup makes resolve the source of d's supplementary file: it is called
// once, by the first lookup that needs a string or a DIE of that file (a
// unit DIE's DW_AT_comp_dir in DW_FORM_GNU_strp_alt, an abstract origin in
// DW_FORM_GNU_ref_alt), and may return nil when there is none (the caller
// then reports why, once). With a resolver set, a value that the missing
// file would resolve is not a unit's RootErr: the resolver reported it.
// SetSup must be called before d is shared between goroutines.
func (d *Data) SetSup(resolve func() *Data) { d.sup.resolve = resolve }

// Sup returns d's supplementary file, resolving it on first use; nil when
// d has none. Safe for concurrent use.
func (d *Data) Sup() *Data {
	if d.sup.resolve == nil {
		return nil
	}
	d.sup.once.Do(func() {
		if s := d.sup.resolve(); s != d {
			d.sup.d = s
		}
	})
	return d.sup.d
}

// supString returns the string at offset off of the supplementary file's
// .debug_str (DW_FORM_GNU_strp_alt, DW_FORM_strp_sup).
func (u *Unit) supString(off uint64) ([]byte, error) {
	sup := u.d.Sup()
	if sup == nil {
		return nil, buf.Errorf(pkg, secInfo, u.Offset, ErrNoSup, "string at %#x of the supplementary .debug_str", off)
	}
	return cstr(sup.s.Str, secStr, off)
}

// Data returns the Data that u was loaded from.
func (u *Unit) Data() *Data { return u.d }

// Target resolves a reference to the DIE it names: the Data holding it
// (u's own, or for DW_FORM_GNU_ref_alt and DW_FORM_ref_sup4/8 the
// supplementary file's) and the DIE's absolute .debug_info offset there.
// ok is false for DW_FORM_ref_sig8, other classes, and references into a
// supplementary file that is not available.
func (u *Unit) Target(v dw.Value) (d *Data, off uint64, ok bool) {
	if v.Class == dw.ClassRefAlt {
		if sup := u.d.Sup(); sup != nil {
			return sup, v.U, true
		}
		return nil, 0, false
	}
	off, ok = u.Ref(v)
	if !ok {
		return nil, 0, false
	}
	return u.d, off, true
}

// quietRootErr reports whether err, met decoding a unit DIE, is for the
// caller's resolver to report rather than the unit: the supplementary
// file is missing and a resolver was set (see SetSup).
func (u *Unit) quietRootErr(err error) bool {
	return u.d.sup.resolve != nil && errors.Is(err, ErrNoSup)
}
