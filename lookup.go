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
	dst, _, _, err := b.appendFrames(dst, pc)
	return dst, err
}

// appendFrames is AppendFrames that also returns the range [lo, hi) around
// pc whose answers equal pc's but for the outermost frame's SymbolOffset,
// so that Batch can reuse them for sorted addresses. The range may be
// [pc, pc+1).
func (b *Binary) appendFrames(dst []Frame, pc uint64) (_ []Frame, lo, hi uint64, err error) {
	if b.closed.Load() {
		return dst, pc, pc + 1, ErrClosed
	}
	n := len(dst)
	dst, lo, hi, err = b.appendDWARF(dst, pc)
	if err != nil {
		return dst[:n], pc, pc + 1, err
	}
	if !b.opts.NoSymbolTable {
		m, ok := b.symbols().Lookup(pc)
		if ok {
			lo, hi = max(lo, m.Start), min(hi, m.End)
		} else {
			lo, hi = pc, pc+1
		}
		if start, name, fsOK := b.functionStart(pc); fsOK && (!ok || start > m.Start) {
			// LC_FUNCTION_STARTS knows a nearer function than the
			// symbol table (in a stripped image, __mh_execute_header
			// covers all of __text): it answers alone, or leaves the
			// DWARF name alone rather than rename it as LLVM would.
			ok = false
			lo, hi = pc, pc+1
			if len(dst) == n {
				dst = append(dst, Frame{Source: SourceFunctionStarts, SymbolName: name, SymbolOffset: pc - start})
				if b.opts.FunctionNames == NamesLinkage {
					dst[n].Function = name
					dst[n].StartAddress, dst[n].HasStartAddress = start, true
				}
			}
		}
		if ok {
			if len(dst) == n {
				dst = append(dst, Frame{Source: SourceSymbolTable})
			}
			out := &dst[len(dst)-1]
			out.SymbolName, out.SymbolOffset = m.Name, m.Offset
			// llvm-symbolizer lets the symbol table name the outermost
			// frame when it asks for linkage names.
			if b.opts.FunctionNames == NamesLinkage {
				out.Function = m.Name
				out.StartAddress, out.HasStartAddress = m.Start, true
				if out.File == "" {
					// No line table answered: llvm-symbolizer names
					// the local symbol's STT_FILE instead.
					out.File = m.File
				}
			}
		}
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

// appendDWARF appends what DWARF knows of pc: nothing when no unit covers
// it; else the inline chain (or its single llvm-symbolizer --no-inlines
// summary) with the line table's location on the innermost frame.
//
// It also returns the range around pc with the same DWARF answer.
func (b *Binary) appendDWARF(dst []Frame, pc uint64) (_ []Frame, lo, hi uint64, err error) {
	lo, hi, ok := b.codeRange(pc)
	if !ok {
		return dst, pc, pc + 1, nil
	}
	s := b.loadDWARF(pc)
	if s == nil {
		if m := b.debugMap(); m != nil {
			// A Mach-O image without DWARF or dSYM: its debug map's
			// objects answer (debugmap.go).
			return b.appendDebugMap(dst, m, pc, lo, hi)
		}
		return dst, pc, pc + 1, nil
	}
	return b.appendUnits(dst, s, pc, lo, hi)
}

// appendUnits is appendDWARF once the DWARF (of the image, its debug file,
// or a debug-map object, whose address space pc, lo and hi are then in) is
// known: [lo, hi) is the code range around pc.
func (b *Binary) appendUnits(dst []Frame, s *dwarfState, pc, lo, hi uint64) (_ []Frame, _, _ uint64, err error) {
	off, ulo, uhi, ok := s.index.LookupRange(pc)
	if !ok {
		return dst, pc, pc + 1, nil
	}
	lo, hi = max(lo, ulo), min(hi, uhi)
	us, err := s.unit(off)
	if err != nil {
		// An undecodable unit costs that unit's DWARF (the error is in
		// Warnings, reported once): the symbol table still names pc.
		return dst, pc, pc + 1, nil
	}
	cp := chainPool.Get().(*[]inline.Frame)
	// llvm-symbolizer 14 --no-inlines names its one frame after the
	// innermost DIE (the symbol table then renames it when asked for
	// linkage names) and takes its declaration line and low_pc.
	limit := 0
	if !b.opts.Inlines {
		limit = 1
	}
	chain, clo, chi := us.inl.AppendChainRange((*cp)[:0], pc, limit)
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
		if b.opts.FunctionNames == NamesShort {
			f.Function = fn.ShortName
		}
		dst = append(dst, f)
	}
	*cp = chain[:0]
	chainPool.Put(cp)
	return dst, lo, hi, nil
}

// demangle returns symtab.Demangle(name, symtab.StyleLLVM), remembering
// each answer: the same few names (inlined library functions) recur across
// addresses, and demangling costs microseconds. The cache holds at most one
// entry per distinct name of the binary.
func (b *Binary) demangle(name string) string {
	if !strings.HasPrefix(name, "_Z") && !strings.HasPrefix(name, "___Z") && !strings.HasPrefix(name, "_R") {
		return name // not mangled (C, Go): nothing to remember
	}
	if v, ok := b.demangled.Load(name); ok {
		return v.(string)
	}
	d := symtab.Demangle(name, symtab.StyleLLVM)
	b.demangled.Store(name, d)
	return d
}
