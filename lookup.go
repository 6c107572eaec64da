package symbolize

import (
	"strings"
	"sync"

	"github.com/symbolize-go/symbolize/inline"
	"github.com/symbolize-go/symbolize/symtab"
)

var chainPool = sync.Pool{New: func() any { s := make([]inline.Frame, 0, 16); return &s }}

// AppendFrames appends the frames of pc to dst, innermost first (one frame
// unless Options.Inlines), and returns the extended slice. An address that
// nothing covers appends one frame with Source SourceNone. Corrupt debug
// data is not an error here: what decodes answers, and what does not is
// reported once in Warnings. err is ErrClosed after Close.
//
// Cost: after the first lookup in a unit (which decodes the unit), an
// index search, a line-table search and a walk of the unit's function
// intervals, O(log n + depth); no allocation when dst has room and
// Options.Demangle is off.
func (b *Binary) AppendFrames(dst []Frame, pc uint64) ([]Frame, error) {
	dst, _, _, err := b.appendFrames(dst, pc, nil)
	return dst, err
}

// A hint is what a caller looking up ascending addresses (a Batch chunk)
// keeps from one lookup to the next: where in each table the last one
// landed, so that the next search starts there (symtab.Table.LookupFrom).
// A nil hint keeps nothing; the zero hint is a start.
type hint struct {
	sym int         // in the symbol table
	inl inline.Hint // in a unit's address map and line table
	// The unit of the last lookup, of module mod, and the range [ulo,
	// uhi) where the module's index gives it.
	mod      *dwarfModule
	us       *unitState
	ulo, uhi uint64
	chain    []inline.Frame // the inline chain's buffer
}

// reset makes h a start, keeping the chain buffer's room but none of the
// strings it held.
func (h *hint) reset() {
	ch := h.chain[:cap(h.chain)]
	clear(ch)
	*h = hint{chain: ch[:0]}
}

// appendFrames is AppendFrames that also returns the range [lo, hi) around
// pc whose answers equal pc's but for the outermost frame's SymbolOffset,
// so that Batch can reuse them for sorted addresses. The range may be
// [pc, pc+1). h, when not nil, carries the previous lookup's positions.
func (b *Binary) appendFrames(dst []Frame, pc uint64, h *hint) (_ []Frame, lo, hi uint64, err error) {
	if b.closed.Load() {
		return dst, pc, pc + 1, ErrClosed
	}
	if !b.started.Load() {
		b.started.Store(true)
	}
	n := len(dst)
	lo, hi = pc, pc+1
	// DWARF answers only code addresses: GNU ld leaves the DWARF of
	// sections removed by --gc-sections at address 0 (see codeRange).
	if clo, chi, ok := b.codeRange(pc); ok {
		for _, a := range b.answerers {
			var present bool
			if dst, lo, hi, present = a.appendFrames(b, dst, pc, clo, chi, h); present {
				break
			}
		}
	}
	if !b.opts.NoSymbolTable {
		dst, lo, hi = b.nameOutermost(dst, n, pc, lo, hi, h)
	}
	if len(dst) == n {
		dst = append(dst, Frame{})
	}
	switch {
	case b.opts.FunctionNames == NamesNone:
		for i := n; i < len(dst); i++ {
			dst[i].Function = ""
		}
	case b.opts.Demangle:
		for i := n; i < len(dst); i++ {
			dst[i].Function = b.demangle(dst[i].Function)
		}
	}
	if hi <= pc || lo > pc {
		lo, hi = pc, pc+1
	}
	return dst, lo, hi, nil
}

// An answerer is one source of frames: a module's DWARF, a Mach-O image's
// debug map, and so on. Each binary format lists its answerers in the
// order they are tried (source.answerers); the first one present answers
// alone, and the namers then name the outermost frame. Adding a source of
// answers is adding an answerer, not another branch in appendFrames.
type answerer interface {
	// appendFrames appends what the answerer knows of pc, which lies in
	// the code range [lo, hi), and returns the range around pc that has
	// the same answer. present is false when the answerer has no
	// information for this binary at all (a binary without DWARF), so
	// that the next one is tried; a present answerer that knows nothing
	// of pc appends nothing and ends the list.
	// h, when not nil, carries the caller's previous lookup (Batch).
	appendFrames(b *Binary, dst []Frame, pc, lo, hi uint64, h *hint) (_ []Frame, flo, fhi uint64, present bool)
}

// dwarfAnswerer answers from the binary's own module (its DWARF, its
// separate debug file's or its dSYM's).
type dwarfAnswerer struct{}

func (dwarfAnswerer) appendFrames(b *Binary, dst []Frame, pc, lo, hi uint64, h *hint) ([]Frame, uint64, uint64, bool) {
	if b.opts.GoPCLN == GoPCLNAlways && b.goTable() != nil {
		return dst, pc, pc + 1, false // the Go tables answer instead
	}
	s := b.loadDWARF(pc)
	if s == nil {
		return dst, pc, pc + 1, false
	}
	dst, lo, hi = s.appendFrames(dst, pc, lo, hi, &b.opts, h)
	return dst, lo, hi, true
}

// naming is a namer's answer for an address: the function (symbol) that
// holds it.
type naming struct {
	name   string
	file   string // the file to print when no line table answered (an ELF local symbol's STT_FILE)
	start  uint64 // the function's first address
	lo, hi uint64 // where this naming holds (Batch reuses it there)
	source Source
	// rename lets the naming replace the DWARF name of the outermost
	// frame, as llvm-symbolizer lets the symbol table do; otherwise it
	// only answers an address no answerer knows.
	rename bool
}

// A namer names the outermost frame: the final pass after the answerers.
// Of the namers that cover an address, the one whose function starts
// nearest below it wins, the earlier in the list on a tie.
type namer interface {
	naming(b *Binary, pc uint64, h *hint) (naming, bool)
}

// symtabNamer names from the binary's symbol table.
type symtabNamer struct{}

func (symtabNamer) naming(b *Binary, pc uint64, h *hint) (naming, bool) {
	var m symtab.Match
	var ok bool
	if h != nil && !b.alone.Load() { // alone, symbolAt may scan instead
		m, ok = b.symbols().LookupFrom(pc, &h.sym)
	} else {
		m, ok = b.symbolAt(pc)
	}
	if !ok {
		return naming{}, false
	}
	return naming{name: m.Name, file: m.File, start: m.Start, lo: m.Start, hi: m.End, source: SourceSymbolTable, rename: true}, true
}

// nameOutermost runs the namers over the frames dst[n:] of pc: the winning
// naming renames the outermost frame or, when no answerer knew pc, is its
// only frame. [lo, hi) is narrowed to where the answer still holds.
func (b *Binary) nameOutermost(dst []Frame, n int, pc, lo, hi uint64, h *hint) (_ []Frame, _, _ uint64) {
	var best naming
	found := false
	for _, nm := range b.namers {
		if c, ok := nm.naming(b, pc, h); ok && (!found || c.start > best.start) {
			best, found = c, true
		}
	}
	if !found {
		return dst, pc, pc + 1
	}
	lo, hi = max(lo, best.lo), min(hi, best.hi)
	if len(dst) == n {
		dst = append(dst, Frame{Source: best.source})
	} else if !best.rename {
		return dst, lo, hi
	}
	out := &dst[len(dst)-1]
	out.SymbolName, out.SymbolOffset = best.name, pc-best.start
	// llvm-symbolizer lets the symbol table name the outermost frame when
	// it asks for linkage names.
	if b.opts.FunctionNames == NamesLinkage {
		out.Function = best.name
		out.StartAddress, out.HasStartAddress = best.start, true
		if out.File == "" {
			// No line table answered: llvm-symbolizer names the local
			// symbol's STT_FILE instead.
			out.File = best.file
		}
	}
	return dst, lo, hi
}

// appendFrames appends what the module's DWARF knows of pc: nothing when
// no unit covers it (or the unit does not decode: that costs the unit, and
// its error is a warning); else the inline chain (or its single
// llvm-symbolizer --no-inlines summary) with the line table's location on
// the innermost frame. pc, lo and hi are in the module's address space,
// [lo, hi) the code range around pc; it returns the range around pc with
// the same answer. h, when not nil, carries the caller's previous lookup.
func (s *dwarfModule) appendFrames(dst []Frame, pc, lo, hi uint64, o *Options, h *hint) ([]Frame, uint64, uint64) {
	s.speculate(pc)
	var us *unitState
	if h != nil && h.mod == s && h.ulo <= pc && pc < h.uhi {
		us = h.us // the last lookup's unit, built
		lo, hi = max(lo, h.ulo), min(hi, h.uhi)
	} else {
		off, ulo, uhi, ok := s.index.LookupRange(pc)
		if !ok {
			return dst, pc, pc + 1
		}
		lo, hi = max(lo, ulo), min(hi, uhi)
		var err error
		if us, err = s.unit(off, pc); err != nil {
			// An undecodable unit costs that unit's DWARF (the error
			// is in Warnings, reported once): the symbol table still
			// names pc.
			return dst, pc, pc + 1
		}
		if h != nil {
			h.mod, h.us, h.ulo, h.uhi = s, us, ulo, uhi
		}
	}
	// The chain's buffer: the caller's (a chunk's), else one from the
	// pool.
	var cp *[]inline.Frame
	if h != nil {
		cp = &h.chain
	} else {
		cp = chainPool.Get().(*[]inline.Frame)
	}
	// llvm-symbolizer 14 --no-inlines names its one frame after the
	// innermost DIE (the symbol table then renames it when asked for
	// linkage names) and takes its declaration line and low_pc.
	limit := 0
	if !o.Inlines {
		limit = 1
	}
	var ih *inline.Hint
	if h != nil {
		ih = &h.inl
	}
	chain, clo, chi := us.inl.AppendChainFrom((*cp)[:0], pc, limit, ih)
	lo, hi = max(lo, clo), min(hi, chi)
	last := len(chain)
	for i := 0; i < last; i++ {
		fn := &chain[i]
		f := Frame{
			Function:        fn.Name,
			DWARFName:       fn.Name,
			File:            fn.File,
			Line:            fn.Line,
			Column:          fn.Column,
			Discriminator:   fn.Discriminator,
			StartFile:       fn.StartFile,
			StartLine:       fn.StartLine,
			StartAddress:    fn.StartAddress,
			HasStartAddress: fn.HasStartAddress,
			CompDir:         us.compDir,
			Inlined:         i+1 < last,
			Source:          SourceDWARF,
		}
		if o.FunctionNames == NamesShort {
			f.Function = fn.ShortName
		}
		dst = append(dst, f)
	}
	*cp = chain[:0]
	if h == nil {
		chainPool.Put(cp)
	}
	return dst, lo, hi
}

// demangle returns symtab.Demangle(name, symtab.StyleLLVM), remembering
// each answer: the same few names (inlined library functions) recur across
// addresses, and demangling costs microseconds. The cache holds at most one
// entry per distinct name of the binary.
func (b *Binary) demangle(name string) string {
	if len(name) < 2 || name[0] != '_' ||
		!strings.HasPrefix(name, "_Z") && !strings.HasPrefix(name, "___Z") && !strings.HasPrefix(name, "_R") {
		return name // not mangled (C, Go): nothing to remember
	}
	return b.demangled.get(name)
}
