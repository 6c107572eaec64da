package symbolize

import (
	"github.com/symbolize-go/symbolize/inline"
)

// Local is one local variable or parameter of the function at an address,
// as llvm-symbolizer's FRAME request reports it (LLVM's DILocal): the
// sanitizers use it to name the stack object an address falls in.
//
// It is the same type as inline.Local, which decodes it.
type Local = inline.Local

// Locals returns the local variables and parameters of the function at pc,
// as llvm-symbolizer 14 answers a FRAME request: every DW_TAG_variable and
// DW_TAG_formal_parameter under the innermost subprogram or inlined
// subroutine that covers pc (its inlined calls included, its callers not),
// in DIE order; the rules are package inline's AppendLocals. An address
// that no function covers has none, and nor has one in a split unit (split
// DWARF), as in LLVM 14.
//
// Bad debug information costs only what it touches, as for AppendFrames:
// a unit that does not decode has no locals, a location list or type that
// does not decode costs that field of that variable, a location section
// that does not decompress costs the frame offsets it holds; each problem
// goes to Warnings. err is ErrClosed after Close, and otherwise nil.
//
// Cost: the first lookup in a unit builds it as AppendFrames does; then a
// walk of the function's DIEs, with each variable's type chain. Nothing is
// cached: FRAME requests are rare (one per stack-use report).
func (b *Binary) Locals(pc uint64) ([]Local, error) {
	return b.AppendLocals(nil, pc)
}

// AppendLocals is Locals appending to dst.
func (b *Binary) AppendLocals(dst []Local, pc uint64) ([]Local, error) {
	if b.closed.Load() {
		return dst, ErrClosed
	}
	if !b.inCode(pc) {
		return dst, nil
	}
	// Only the binary's own DWARF: llvm-symbolizer reads no Mach-O debug
	// map.
	s := b.loadDWARF(pc)
	if s == nil {
		return dst, nil
	}
	off, ok := s.index.Lookup(pc)
	if !ok {
		return dst, nil
	}
	us, err := s.unit(off, pc)
	if err != nil {
		return dst, nil // in Warnings already
	}
	if us.split != nil {
		// A skeleton unit (split DWARF) has no locals: LLVM 14's FRAME
		// reads the skeleton's own DIEs, not its split unit's
		// (DWARFContext::getLocalsForAddress, unlike the inline chain).
		return dst, nil
	}
	die, ok := us.inl.Subroutine(pc)
	if !ok {
		return dst, nil
	}
	opts := &inline.LocalsOptions{LineTable: us.lines, AddrSize: s.firstAddrSize(us), PartialLineTable: s.lineTableOf}
	name := ".debug_loc"
	if us.unit.Version >= 5 {
		name = ".debug_loclists"
	}
	// The source keeps a section once read: this decompresses it once.
	if sec, err := b.src.dwarfSection(name); err != nil {
		s.warn(err)
	} else if us.unit.Version >= 5 {
		opts.Loclists = sec
	} else {
		opts.Loc = sec
	}
	dst, err = inline.AppendLocals(dst, s.data, us.unit, die, opts)
	if err != nil {
		s.warn(err)
	}
	return dst, nil
}

// firstAddrSize is the address size LLVM sizes pointers with, the first
// unit's (DWARFContext::getCUAddrSize), else us's.
func (s *dwarfModule) firstAddrSize(us *unitState) uint8 {
	if h, err := s.data.HeaderAt(0); err == nil {
		return h.AddrSize
	}
	return us.unit.AddrSize
}
