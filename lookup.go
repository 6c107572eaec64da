package symbolize

import (
	"sync"

	"github.com/symbolize-go/symbolize/symtab"
)

// fnFrame is one entry of a unit's inline chain for an address, innermost
// first: the subprogram or inlined subroutine DIE that covers it.
type fnFrame struct {
	Name      string // linkage name preferred, through origins and specifications
	ShortName string // DW_AT_name
	DeclFile  string // resolved declaration file
	DeclLine  uint32
	Low       uint64 // DW_AT_low_pc, when HasLow
	HasLow    bool
	// Where this frame was called from (DW_AT_call_*), giving the location
	// of the next frame out. Valid for inlined subroutines.
	CallFile          string
	CallLine          uint32
	CallColumn        uint32
	CallDiscriminator uint32
}

var chainPool = sync.Pool{New: func() any { s := make([]fnFrame, 0, 16); return &s }}

// AppendFrames appends the frames of pc to dst, innermost first (one frame
// unless Options.Inlines), and returns the extended slice. An address that
// nothing covers appends one frame with Source SourceNone. err reports
// corrupt debug data or I/O, with dst returned unchanged.
//
// Cost: after the first lookup in a unit (which decodes the unit), an
// index search, a line-table search and a walk of the unit's function
// intervals, O(log n + depth); no allocation when dst has room and
// Options.Demangle is off.
func (b *Binary) AppendFrames(dst []Frame, pc uint64) ([]Frame, error) {
	if b.closed.Load() {
		return dst, ErrClosed
	}
	n := len(dst)
	dst, err := b.appendDWARF(dst, pc)
	if err != nil {
		return dst[:n], err
	}
	if !b.opts.NoSymbolTable {
		syms, err := b.symbols()
		if err != nil {
			return dst[:n], err
		}
		if m, ok := syms.Lookup(pc); ok {
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
			dst[i].Function = symtab.Demangle(dst[i].Function, symtab.StyleLLVM)
		}
	}
	return dst, nil
}

// appendDWARF appends what DWARF knows of pc: nothing when no unit covers
// it; else the inline chain (or its single llvm-symbolizer --no-inlines
// summary) with the line table's location on the innermost frame.
func (b *Binary) appendDWARF(dst []Frame, pc uint64) ([]Frame, error) {
	s, err := b.loadDWARF()
	if s == nil {
		return dst, err
	}
	off, ok := s.index.Lookup(pc)
	if !ok {
		return dst, nil
	}
	us, err := s.unit(off)
	if err != nil {
		return dst, err
	}
	var loc Frame
	hasRow := false
	if us.lines != nil {
		if row, ok := us.lines.Lookup(pc); ok {
			hasRow = true
			loc.File = us.fileName(uint64(row.File))
			loc.Line, loc.Column, loc.Discriminator = row.Line, row.Column, row.Discriminator
		}
	}
	cp := chainPool.Get().(*[]fnFrame)
	chain := (*cp)[:0]
	if us.funcs != nil {
		chain = us.funcs.appendChain(chain, pc)
	}
	defer func() { *cp = chain[:0]; chainPool.Put(cp) }()

	if len(chain) == 0 {
		if !hasRow {
			return dst, nil
		}
		loc.Source = SourceDWARF
		return append(dst, loc), nil
	}
	last := len(chain)
	if !b.opts.Inlines {
		// llvm-symbolizer 14 --no-inlines names the frame after the
		// innermost DIE (the symbol table then renames it) and takes its
		// declaration line and low_pc.
		last = 1
	}
	for i := 0; i < last; i++ {
		fn := &chain[i]
		f := Frame{
			DWARFName:       fn.Name,
			Function:        fn.Name,
			StartFile:       fn.DeclFile,
			StartLine:       fn.DeclLine,
			StartAddress:    fn.Low,
			HasStartAddress: fn.HasLow,
			Inlined:         i+1 < last,
			Source:          SourceDWARF,
		}
		if b.opts.FunctionNames == NamesShort {
			f.Function = fn.ShortName
		}
		if i == 0 {
			f.File, f.Line, f.Column, f.Discriminator = loc.File, loc.Line, loc.Column, loc.Discriminator
		} else {
			in := &chain[i-1]
			f.File, f.Line, f.Column, f.Discriminator = in.CallFile, in.CallLine, in.CallColumn, in.CallDiscriminator
		}
		dst = append(dst, f)
	}
	return dst, nil
}
