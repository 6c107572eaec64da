package linetable

import (
	"errors"
	"fmt"
	"math"

	"github.com/symbolize-go/symbolize/internal/dw"
	"github.com/symbolize-go/symbolize/internal/dwasm"
)

// This file is the writing side of the package: an assembler for line-number
// programs. It exists so that tests (here and in packages that embed line
// tables in synthetic objects) and fuzzers can state a line table as rows or
// as opcodes and get the exact bytes a producer would emit, for every
// version, format and header parameter, including hostile ones.

// ErrNotEncodable is returned (wrapped) by Assembler.WriteRows and Assemble
// for a row list that no line program can produce under the given header:
// see WriteRows for the rules.
var ErrNotEncodable = errors.New("rows not encodable")

// standardLengths are the operand counts of DW_LNS_copy..DW_LNS_set_isa
// [DWARF5 6.2.4 item 12].
var standardLengths = [...]uint8{0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1}

// StandardOpcodeLengths returns the standard_opcode_lengths array for an
// opcode_base of base: the operand counts the specification gives for
// opcodes 1..12, then 0 for any further (vendor) opcodes. It returns nil for
// a base of 0 or 1.
func StandardOpcodeLengths(base uint8) []uint8 {
	if base <= 1 {
		return nil
	}
	l := make([]uint8, base-1)
	copy(l, standardLengths[:])
	return l
}

// DefaultHeader returns a header with the parameters gcc and clang use on
// x86-64 (minimum_instruction_length 1, line_base -5, line_range 14,
// opcode_base 13, default_is_stmt true, 8-byte addresses) and a one-file
// table naming "a.c" in directory "/src", laid out for version: for
// versions 2-4 Dirs[0] and Files[0] are the placeholders Header documents;
// for version 5 the entry formats are DW_FORM_string paths and a
// DW_FORM_udata directory index. Change any field before assembling.
func DefaultHeader(version uint16) Header {
	h := Header{
		Version:               version,
		AddressSize:           8,
		MinInstLength:         1,
		MaxOpsPerInst:         1,
		DefaultIsStmt:         true,
		LineBase:              -5,
		LineRange:             14,
		OpcodeBase:            13,
		StandardOpcodeLengths: StandardOpcodeLengths(13),
	}
	if version >= 5 {
		h.DirFormats = []EntryFormat{{LNCTPath, uint64(dw.FormString)}}
		h.FileFormats = []EntryFormat{{LNCTPath, uint64(dw.FormString)}, {LNCTDirectoryIndex, uint64(dw.FormUdata)}}
		h.Dirs = []string{"/src"}
		h.Files = []File{{Name: "a.c", Dir: 0}}
	} else {
		h.Dirs = []string{"", "/src"}
		h.Files = []File{{}, {Name: "a.c", Dir: 1}}
	}
	return h
}

// AsmOptions adjust what an Assembler writes beyond the header's fields. The
// zero value writes a little-endian unit at offset 0 of a fresh section with
// truthful lengths.
type AsmOptions struct {
	BigEndian bool

	// Line, LineStr and Str are existing contents of .debug_line,
	// .debug_line_str and .debug_str. The unit is written after Line, so
	// its offset is len(Line), and new strings after LineStr and Str. The
	// slices are copied, never modified.
	Line, LineStr, Str []byte

	// UnitLength and HeaderLength, when non-nil, are written instead of
	// the true unit_length and header_length, to build corrupt units.
	UnitLength, HeaderLength *uint64

	// SetAddressFirst makes WriteRows begin every sequence with
	// DW_LNE_set_address, as compilers do (the linker relocates it), instead
	// of whatever encoding is shortest.
	SetAddressFirst bool

	// EntryValue, when non-nil, is asked for the encoded bytes of each
	// DWARF 5 directory (dir true) or file entry field; a nil result
	// means the assembler encodes it. Use it for vendor content types
	// and for deliberately malformed values. index is the entry's index
	// in Header.Dirs or Header.Files.
	EntryValue func(dir bool, index int, f EntryFormat) []byte
}

// Assembled is an assembled unit and the sections it refers to.
type Assembled struct {
	Line    []byte   // the whole .debug_line: AsmOptions.Line, then the unit
	LineStr []byte   // .debug_line_str, with any DW_FORM_line_strp paths
	Str     []byte   // .debug_str, with any DW_FORM_strp paths
	StrX    []string // strings named by DW_FORM_strx* indexes, by index

	Offset        uint64 // of the unit within Line
	ProgramOffset uint64 // of the first opcode, where the true header_length points
	EndOffset     uint64 // just past the unit

	bigEndian   bool
	addressSize uint8
}

// Options returns the decoding options that match how the unit was
// assembled: byte order, string sections, a StrX resolver over StrX, and
// for versions 2-4 the header's AddressSize.
func (a *Assembled) Options() *Options {
	strx := a.StrX
	return &Options{
		BigEndian:   a.bigEndian,
		LineStr:     a.LineStr,
		Str:         a.Str,
		AddressSize: a.addressSize,
		StrX: func(i uint64) (string, error) {
			if i >= uint64(len(strx)) {
				return "", fmt.Errorf("strx index %d out of range", i)
			}
			return strx[i], nil
		},
	}
}

// Assembler writes one line-number program unit [DWARF5 6.2]. NewAssembler
// writes the header; then rows (WriteRows) and single opcodes (the other
// methods) append to the program in call order; Finish patches the lengths.
//
// The opcode methods write exactly what they are asked to, whether or not
// it makes sense under the header (an opcode_base below the opcode, an
// operand too wide for the address size): they are for building hostile
// programs and never fail. An Assembler is not safe for concurrent use and
// must not be used after Finish.
type Assembler struct {
	h       Header
	opts    AsmOptions
	b       *dwasm.Builder
	unit    dwasm.Label
	hdrLen  dwasm.Label
	start   int // unit offset
	progOff int

	lineStr, str *dwasm.Builder
	lineStrAt    map[string]uint64
	strAt        map[string]uint64
	strx         []string
	strxAt       map[string]uint64

	// Candidate encodings in WriteRows: a row's (scratch), and within
	// one, the opcodes that append it (sub). See shortest.
	scratch, sub *dwasm.Builder
}

// NewAssembler returns an Assembler that has written the header h: every
// field that a version-h.Version header holds is written as given, even
// values a decoder must reject (a zero line_range, an unknown version).
// Output-only fields (Offset, UnitLength, HeaderLength, ProgramOffset,
// EndOffset) are ignored. For versions 2-4, Dirs[0] and Files[0] are the
// placeholders Header documents and are not written; names must be
// non-empty there, since an empty name ends the table. For version 5, each
// entry is written by DirFormats and FileFormats: DW_LNCT_path as
// DW_FORM_string, DW_FORM_line_strp, DW_FORM_strp or DW_FORM_strx*
// (adding the string to the matching output), integer contents as
// DW_FORM_udata, DW_FORM_sdata or DW_FORM_data1/2/4/8, DW_LNCT_MD5 as
// DW_FORM_data16, and vendor content types as a zero of their form, unless
// opts.EntryValue supplies the bytes. StandardOpcodeLengths nil means the
// standard lengths (StandardOpcodeLengths(h.OpcodeBase)); otherwise it must
// hold exactly OpcodeBase-1 entries. opts may be nil.
func NewAssembler(h *Header, opts *AsmOptions) (*Assembler, error) {
	a := &Assembler{h: *h}
	if opts != nil {
		a.opts = *opts
	}
	a.b = dwasm.NewAppend(append([]byte(nil), a.opts.Line...), a.opts.BigEndian)
	a.lineStr = dwasm.NewAppend(append([]byte(nil), a.opts.LineStr...), a.opts.BigEndian)
	a.str = dwasm.NewAppend(append([]byte(nil), a.opts.Str...), a.opts.BigEndian)
	a.lineStrAt = map[string]uint64{}
	a.strAt = map[string]uint64{}
	a.strxAt = map[string]uint64{}
	a.scratch = dwasm.New(a.opts.BigEndian)
	a.sub = dwasm.New(a.opts.BigEndian)
	if err := a.writeHeader(); err != nil {
		return nil, err
	}
	return a, nil
}

func asmErrorf(format string, args ...any) error {
	return fmt.Errorf("linetable: assemble: "+format, args...)
}

func (a *Assembler) writeHeader() error {
	h, b := &a.h, a.b
	lengths := h.StandardOpcodeLengths
	if lengths == nil {
		lengths = StandardOpcodeLengths(h.OpcodeBase)
	}
	if want := max(int(h.OpcodeBase)-1, 0); len(lengths) != want {
		return asmErrorf("%d standard_opcode_lengths for opcode_base %d, want %d", len(lengths), h.OpcodeBase, want)
	}
	a.start = b.Len()
	a.unit = b.BeginLength(h.Dwarf64)
	b.U16(h.Version)
	if h.Version >= 5 {
		b.U8(h.AddressSize).U8(h.SegmentSelectorSize)
	}
	a.hdrLen = b.BeginOffLength(h.Dwarf64)
	b.U8(h.MinInstLength)
	if h.Version >= 4 {
		b.U8(h.MaxOpsPerInst)
	}
	b.U8(b2u(h.DefaultIsStmt)).U8(uint8(h.LineBase)).U8(h.LineRange).U8(h.OpcodeBase)
	b.Raw(lengths)
	if h.Version >= 5 {
		if err := a.writeEntries(true); err != nil {
			return err
		}
		if err := a.writeEntries(false); err != nil {
			return err
		}
	} else {
		for i := 1; i < len(h.Dirs); i++ {
			if h.Dirs[i] == "" {
				return asmErrorf("directory %d is empty, which would end the table", i)
			}
			b.CString(h.Dirs[i])
		}
		b.U8(0)
		for i := 1; i < len(h.Files); i++ {
			f := &h.Files[i]
			if f.Name == "" {
				return asmErrorf("file %d has an empty name, which would end the table", i)
			}
			b.CString(f.Name).ULEB(f.Dir).ULEB(f.MTime).ULEB(f.Size)
		}
		b.U8(0)
	}
	a.progOff = b.Len()
	return nil
}

// writeEntries writes a DWARF 5 entry-format list and its entries
// [DWARF5 6.2.4 items 14-20].
func (a *Assembler) writeEntries(dir bool) error {
	b := a.b
	formats, n := a.h.FileFormats, len(a.h.Files)
	what := "file"
	if dir {
		formats, n, what = a.h.DirFormats, len(a.h.Dirs), "directory"
	}
	if len(formats) > math.MaxUint8 {
		return asmErrorf("%d %s entry formats; the count is one byte", len(formats), what)
	}
	b.U8(uint8(len(formats)))
	for _, f := range formats {
		b.ULEB(f.Content).ULEB(f.Form)
	}
	b.ULEB(uint64(n))
	for i := range n {
		for _, f := range formats {
			if a.opts.EntryValue != nil {
				if v := a.opts.EntryValue(dir, i, f); v != nil {
					b.Raw(v)
					continue
				}
			}
			if err := a.writeEntryField(dir, i, f); err != nil {
				return asmErrorf("%s %d: %v", what, i, err)
			}
		}
	}
	return nil
}

func (a *Assembler) writeEntryField(dir bool, i int, f EntryFormat) error {
	var name string
	var file File
	if dir {
		name = a.h.Dirs[i]
	} else {
		file = a.h.Files[i]
		name = file.Name
	}
	form := dw.Form(f.Form)
	switch f.Content {
	case LNCTPath:
		return a.writeString(form, name)
	case LNCTDirectoryIndex:
		return a.writeUint(form, file.Dir)
	case LNCTTimestamp:
		return a.writeUint(form, file.MTime)
	case LNCTSize:
		return a.writeUint(form, file.Size)
	case LNCTMD5:
		if form != dw.FormData16 {
			return fmt.Errorf("DW_LNCT_MD5 in form %#x, want DW_FORM_data16", f.Form)
		}
		a.b.Raw(file.MD5[:])
		return nil
	}
	return a.writeZero(form)
}

// writeString writes a path in a string-class form, adding it to the
// string section or index list that form refers to.
func (a *Assembler) writeString(form dw.Form, s string) error {
	d64 := a.h.Dwarf64
	switch form {
	case dw.FormString:
		a.b.CString(s)
	case dw.FormLineStrp:
		a.b.Off(d64, intern(a.lineStr, a.lineStrAt, s))
	case dw.FormStrp:
		a.b.Off(d64, intern(a.str, a.strAt, s))
	case dw.FormStrx, dw.FormGNUStrIndex, dw.FormStrx1, dw.FormStrx2, dw.FormStrx3, dw.FormStrx4:
		idx, ok := a.strxAt[s]
		if !ok {
			idx = uint64(len(a.strx))
			a.strx = append(a.strx, s)
			a.strxAt[s] = idx
		}
		switch form {
		case dw.FormStrx1:
			return a.fixed(1, idx)
		case dw.FormStrx2:
			return a.fixed(2, idx)
		case dw.FormStrx3:
			return a.fixed(3, idx)
		case dw.FormStrx4:
			return a.fixed(4, idx)
		}
		a.b.ULEB(idx)
	default:
		return fmt.Errorf("path in non-string form %#x", uint64(form))
	}
	return nil
}

// intern returns the offset of s in the string section sec, appending it
// the first time.
func intern(sec *dwasm.Builder, at map[string]uint64, s string) uint64 {
	if off, ok := at[s]; ok {
		return off
	}
	off := uint64(sec.Len())
	sec.CString(s)
	at[s] = off
	return off
}

func (a *Assembler) fixed(n int, v uint64) error {
	if n < 8 && v >= 1<<(8*n) {
		return fmt.Errorf("value %#x does not fit %d bytes", v, n)
	}
	a.b.Uint(n, v)
	return nil
}

func (a *Assembler) writeUint(form dw.Form, v uint64) error {
	switch form {
	case dw.FormUdata:
		a.b.ULEB(v)
		return nil
	case dw.FormSdata:
		a.b.SLEB(int64(v))
		return nil
	case dw.FormData1:
		return a.fixed(1, v)
	case dw.FormData2:
		return a.fixed(2, v)
	case dw.FormData4:
		return a.fixed(4, v)
	case dw.FormData8:
		return a.fixed(8, v)
	}
	return fmt.Errorf("integer in unsupported form %#x", uint64(form))
}

// writeZero writes a zero value of form, for content types the assembler
// has no value for.
func (a *Assembler) writeZero(form dw.Form) error {
	offSize := 4
	if a.h.Dwarf64 {
		offSize = 8
	}
	n := 0
	switch form {
	case dw.FormFlagPresent, dw.FormImplicitConst:
	case dw.FormData1, dw.FormRef1, dw.FormFlag, dw.FormStrx1, dw.FormAddrx1, dw.FormBlock1:
		n = 1
	case dw.FormData2, dw.FormRef2, dw.FormStrx2, dw.FormAddrx2, dw.FormBlock2:
		n = 2
	case dw.FormStrx3, dw.FormAddrx3:
		n = 3
	case dw.FormData4, dw.FormRef4, dw.FormStrx4, dw.FormAddrx4, dw.FormRefSup4, dw.FormBlock4:
		n = 4
	case dw.FormData8, dw.FormRef8, dw.FormRefSig8, dw.FormRefSup8:
		n = 8
	case dw.FormData16:
		n = 16
	case dw.FormUdata, dw.FormSdata, dw.FormStrx, dw.FormAddrx, dw.FormRefUdata, dw.FormLoclistx,
		dw.FormRnglistx, dw.FormBlock, dw.FormExprloc, dw.FormGNUAddrIndex, dw.FormGNUStrIndex, dw.FormString:
		n = 1 // a one-byte LEB128 zero, an empty block, or an empty string
	case dw.FormStrp, dw.FormLineStrp, dw.FormSecOffset, dw.FormStrpSup, dw.FormGNUStrpAlt, dw.FormGNURefAlt,
		dw.FormRefAddr:
		n = offSize
	case dw.FormAddr:
		n = int(a.h.AddressSize)
	default:
		return fmt.Errorf("no value for form %#x (supply one with AsmOptions.EntryValue)", uint64(form))
	}
	a.b.Zeros(n)
	return nil
}

// Finish patches unit_length and header_length (or writes the overrides
// from AsmOptions) and returns the sections.
func (a *Assembler) Finish() *Assembled {
	b := a.b
	hl := uint64(a.progOff - a.hdrLen.Start())
	if a.opts.HeaderLength != nil {
		hl = *a.opts.HeaderLength
	}
	b.Patch(a.hdrLen, hl)
	ul := uint64(b.Len() - a.unit.Start())
	if a.opts.UnitLength != nil {
		ul = *a.opts.UnitLength
	}
	b.Patch(a.unit, ul)
	addrSize := uint8(0)
	if a.h.Version < 5 {
		addrSize = a.h.AddressSize
	}
	return &Assembled{
		Line:          b.Bytes(),
		LineStr:       a.lineStr.Bytes(),
		Str:           a.str.Bytes(),
		StrX:          a.strx,
		Offset:        uint64(a.start),
		ProgramOffset: uint64(a.progOff),
		EndOffset:     uint64(b.Len()),
		bigEndian:     a.opts.BigEndian,
		addressSize:   addrSize,
	}
}

// Offset returns the offset within the section that the next opcode will
// have, so a test can predict where a decoder should report an error.
func (a *Assembler) Offset() uint64 { return uint64(a.b.Len()) }

// Assemble writes a unit with header h whose program encodes rows, choosing
// the shortest opcodes (see WriteRows). opts may be nil.
func Assemble(h *Header, rows []Row, opts *AsmOptions) (*Assembled, error) {
	a, err := NewAssembler(h, opts)
	if err != nil {
		return nil, err
	}
	if err := a.WriteRows(rows); err != nil {
		return nil, err
	}
	return a.Finish(), nil
}

// ---- Opcodes, one by one ----

// Standard writes standard opcode op followed by its operands as ULEB128s.
// Use it for opcodes past DW_LNS_set_isa (which a decoder must skip by
// standard_opcode_lengths) or to give a known opcode the wrong operands.
func (a *Assembler) Standard(op Opcode, operands ...uint64) {
	a.b.U8(uint8(op))
	for _, v := range operands {
		a.b.ULEB(v)
	}
}

// Copy writes DW_LNS_copy: append a row, then reset discriminator,
// basic_block, prologue_end and epilogue_begin.
func (a *Assembler) Copy() { a.b.U8(uint8(OpCopy)) }

// AdvancePC writes DW_LNS_advance_pc with an operation advance [DWARF5
// 6.2.5.1] (a byte count divided by minimum_instruction_length when
// maximum_operations_per_instruction is 1).
func (a *Assembler) AdvancePC(opAdvance uint64) { a.b.U8(uint8(OpAdvancePC)).ULEB(opAdvance) }

// AdvanceLine writes DW_LNS_advance_line.
func (a *Assembler) AdvanceLine(delta int64) { a.b.U8(uint8(OpAdvanceLine)).SLEB(delta) }

// SetFile writes DW_LNS_set_file.
func (a *Assembler) SetFile(file uint64) { a.b.U8(uint8(OpSetFile)).ULEB(file) }

// SetColumn writes DW_LNS_set_column.
func (a *Assembler) SetColumn(col uint64) { a.b.U8(uint8(OpSetColumn)).ULEB(col) }

// NegateStmt writes DW_LNS_negate_stmt.
func (a *Assembler) NegateStmt() { a.b.U8(uint8(OpNegateStmt)) }

// SetBasicBlock writes DW_LNS_set_basic_block.
func (a *Assembler) SetBasicBlock() { a.b.U8(uint8(OpSetBasicBlock)) }

// ConstAddPC writes DW_LNS_const_add_pc: the operation advance of special
// opcode 255.
func (a *Assembler) ConstAddPC() { a.b.U8(uint8(OpConstAddPC)) }

// FixedAdvancePC writes DW_LNS_fixed_advance_pc: add delta bytes (not
// scaled by minimum_instruction_length) and set op_index to 0.
func (a *Assembler) FixedAdvancePC(delta uint16) { a.b.U8(uint8(OpFixedAdvancePC)).U16(delta) }

// SetPrologueEnd writes DW_LNS_set_prologue_end.
func (a *Assembler) SetPrologueEnd() { a.b.U8(uint8(OpSetPrologueEnd)) }

// SetEpilogueBegin writes DW_LNS_set_epilogue_begin.
func (a *Assembler) SetEpilogueBegin() { a.b.U8(uint8(OpSetEpilogueBegin)) }

// SetISA writes DW_LNS_set_isa.
func (a *Assembler) SetISA(isa uint64) { a.b.U8(uint8(OpSetISA)).ULEB(isa) }

// SpecialOpcode writes the byte op, which a decoder treats as a special
// opcode when op >= opcode_base.
func (a *Assembler) SpecialOpcode(op uint8) { a.b.U8(op) }

// Special writes the special opcode that advances the operation pointer by
// opAdvance and the line by lineDelta, then appends a row [DWARF5
// 6.2.5.1]. It fails if no special opcode encodes that pair under the
// header.
func (a *Assembler) Special(opAdvance uint64, lineDelta int64) error {
	op, ok := a.special(opAdvance, lineDelta)
	if !ok {
		return asmErrorf("no special opcode for operation advance %d, line delta %d (line_base %d, line_range %d, opcode_base %d)",
			opAdvance, lineDelta, a.h.LineBase, a.h.LineRange, a.h.OpcodeBase)
	}
	a.b.U8(op)
	return nil
}

// Extended writes extended opcode op with payload as its operands, and the
// truthful length 1+len(payload).
func (a *Assembler) Extended(op Opcode, payload []byte) {
	a.b.U8(0).ULEB(uint64(1 + len(payload))).U8(uint8(op)).Raw(payload)
}

// ExtendedLen writes the extended-opcode introducer with a declared length
// of length, followed by body (the opcode byte and operands) whether or not
// it is that long: for lengths of 0 or lengths that overrun the unit.
func (a *Assembler) ExtendedLen(length uint64, body []byte) {
	a.b.U8(0).ULEB(length).Raw(body)
}

// EndSequence writes DW_LNE_end_sequence.
func (a *Assembler) EndSequence() { a.Extended(OpEndSequence, nil) }

// SetAddress writes DW_LNE_set_address with an operand of the header's
// address size (8 if that is 0).
func (a *Assembler) SetAddress(addr uint64) {
	n := a.addrSize()
	a.b.U8(0).ULEB(uint64(1+n)).U8(uint8(OpSetAddress)).Uint(n, addr)
}

func (a *Assembler) addrSize() int {
	if n := int(a.h.AddressSize); n >= 1 && n <= 8 {
		return n
	}
	return 8
}

// DefineFile writes DW_LNE_define_file (DWARF 2-4), which adds a file to
// the table as the next index.
func (a *Assembler) DefineFile(name string, dir, mtime, size uint64) {
	p := dwasm.New(a.opts.BigEndian).CString(name).ULEB(dir).ULEB(mtime).ULEB(size)
	a.Extended(OpDefineFile, p.Bytes())
}

// SetDiscriminator writes DW_LNE_set_discriminator.
func (a *Assembler) SetDiscriminator(d uint64) {
	a.Extended(OpSetDiscriminator, dwasm.AppendULEB(nil, d))
}

// Raw writes p unchanged.
func (a *Assembler) Raw(p []byte) { a.b.Raw(p) }

// ---- Rows, encoded automatically ----

// special returns the special opcode for (opAdvance, lineDelta), if one
// exists: opcode = (lineDelta - line_base) + line_range*opAdvance +
// opcode_base <= 255 [DWARF5 6.2.5.1].
func (a *Assembler) special(opAdvance uint64, lineDelta int64) (uint8, bool) {
	h := &a.h
	if h.LineRange == 0 || opAdvance > 255 {
		return 0, false
	}
	adj := lineDelta - int64(h.LineBase)
	if adj < 0 || adj >= int64(h.LineRange) {
		return 0, false
	}
	op := adj + int64(h.LineRange)*int64(opAdvance) + int64(h.OpcodeBase)
	if op > 255 || op < 1 {
		return 0, false
	}
	return uint8(op), true
}

// has reports whether standard opcode op exists under the header: opcodes
// at or past opcode_base are special opcodes instead.
func (a *Assembler) has(op Opcode) bool { return op < Opcode(a.h.OpcodeBase) }

// regs are the state-machine registers the encoder tracks between rows
// [DWARF5 6.2.2]. Discriminator and the one-row flags are always 0 between
// rows.
type regs struct {
	addr, op                uint64
	file, line, column, isa uint64
	isStmt                  bool
}

func (a *Assembler) initialRegs() regs {
	return regs{file: 1, line: 1, isStmt: a.h.DefaultIsStmt}
}

func (a *Assembler) maxOps() uint64 {
	if a.h.Version < 4 {
		return 1 // the field is absent before DWARF 4
	}
	return uint64(a.h.MaxOpsPerInst)
}

// WriteRows appends a program that produces exactly rows, in the fewest
// bytes this encoder knows: a special opcode when the address and line
// deltas fit one, else DW_LNS_const_add_pc plus a special, else
// DW_LNS_advance_pc, DW_LNS_fixed_advance_pc or DW_LNE_set_address for the
// address and DW_LNS_advance_line for the line, with set_file, set_column,
// negate_stmt, set_isa, set_discriminator and the flag opcodes only where a
// register differs. Only standard opcodes below opcode_base are used, with
// their DWARF operands whatever standard_opcode_lengths declares (as
// decoders that know them read them).
//
// A row list is encodable when:
//   - it is empty or ends with an EndSequence row, and each sequence is the
//     rows up to and including an EndSequence row;
//   - within a sequence, (Address, OpIndex) never decreases;
//   - OpIndex < maximum_operations_per_instruction (so it is 0 for versions
//     2-3 and when that field is 1), and Address fits the address size;
//   - each register that differs from the one before it has an opcode
//     under the header (set_file needs opcode_base > 4, and so on), and a
//     row can be appended (by DW_LNS_copy or a special opcode).
//
// The registers are those a decoder reports: BasicBlock, PrologueEnd,
// EpilogueBegin and Discriminator belong to one row (they reset after it);
// File, Line, Column, ISA and IsStmt carry over to the next row; all reset
// after an EndSequence row. WriteRows assumes the registers hold their
// initial values when it is called, as they do at the start of the program
// and after DW_LNE_end_sequence, so manual opcodes may be mixed in between
// sequences but not inside one.
//
// On error nothing is written; the error wraps ErrNotEncodable and names
// the row.
func (a *Assembler) WriteRows(rows []Row) error {
	if len(rows) > 0 && !rows[len(rows)-1].EndSequence {
		return asmErrorf("row %d: %w: the last row is not an EndSequence row", len(rows)-1, ErrNotEncodable)
	}
	if a.h.OpcodeBase == 0 {
		return asmErrorf("%w: opcode_base 0", ErrNotEncodable)
	}
	mark := a.b.Len()
	s := a.initialRegs()
	first := true
	for i := range rows {
		if err := a.writeRow(&s, &rows[i], first); err != nil {
			a.b.Truncate(mark)
			return asmErrorf("row %d: %w: %v", i, ErrNotEncodable, err)
		}
		first = rows[i].EndSequence
		if first {
			s = a.initialRegs()
		}
	}
	return nil
}

func (a *Assembler) writeRow(s *regs, r *Row, first bool) error {
	maxOps := a.maxOps()
	if uint64(r.OpIndex) >= max(maxOps, 1) {
		return fmt.Errorf("op_index %d with maximum_operations_per_instruction %d", r.OpIndex, maxOps)
	}
	if maxOps == 0 {
		return errors.New("maximum_operations_per_instruction is 0")
	}
	if n := a.addrSize(); n < 8 && r.Address >= 1<<(8*n) {
		return fmt.Errorf("address %#x does not fit %d bytes", r.Address, n)
	}
	if !first && (r.Address < s.addr || r.Address == s.addr && uint64(r.OpIndex) < s.op) {
		return fmt.Errorf("address %#x op_index %d before the previous row's %#x op_index %d", r.Address, r.OpIndex, s.addr, s.op)
	}
	need := func(op Opcode, what string) error {
		if !a.has(op) {
			return fmt.Errorf("%s needs standard opcode %d, opcode_base is %d", what, op, a.h.OpcodeBase)
		}
		return nil
	}
	// Registers first: their order does not matter, they only have to be
	// set before the opcode that appends the row.
	if uint64(r.File) != s.file {
		if err := need(OpSetFile, "file"); err != nil {
			return err
		}
		a.SetFile(uint64(r.File))
		s.file = uint64(r.File)
	}
	if uint64(r.Column) != s.column {
		if err := need(OpSetColumn, "column"); err != nil {
			return err
		}
		a.SetColumn(uint64(r.Column))
		s.column = uint64(r.Column)
	}
	if r.IsStmt != s.isStmt {
		if err := need(OpNegateStmt, "is_stmt"); err != nil {
			return err
		}
		a.NegateStmt()
		s.isStmt = r.IsStmt
	}
	if uint64(r.ISA) != s.isa {
		if err := need(OpSetISA, "isa"); err != nil {
			return err
		}
		a.SetISA(uint64(r.ISA))
		s.isa = uint64(r.ISA)
	}
	if r.Discriminator != 0 {
		a.SetDiscriminator(uint64(r.Discriminator))
	}
	if r.BasicBlock {
		if err := need(OpSetBasicBlock, "basic_block"); err != nil {
			return err
		}
		a.SetBasicBlock()
	}
	if r.PrologueEnd {
		if err := need(OpSetPrologueEnd, "prologue_end"); err != nil {
			return err
		}
		a.SetPrologueEnd()
	}
	if r.EpilogueBegin {
		if err := need(OpSetEpilogueBegin, "epilogue_begin"); err != nil {
			return err
		}
		a.SetEpilogueBegin()
	}

	// Then the address, line and the row itself, trying every
	// combination this encoder knows and keeping the shortest.
	target := regs{addr: r.Address, op: uint64(r.OpIndex), line: uint64(r.Line)}
	lineDelta := int64(r.Line) - int64(s.line)
	moves := a.addressMoves(s, &target)
	if first && a.opts.SetAddressFirst {
		moves = moves[len(moves)-1:] // set_address is always last
	}
	plans := make([]func() bool, len(moves))
	for i, m := range moves {
		plans[i] = func() bool {
			return m.prefix(a) && a.finishRow(m.residual, lineDelta, r.EndSequence)
		}
	}
	if !a.shortest(a.scratch, plans...) {
		return errors.New("no opcode sequence reaches the row's address and line")
	}
	s.addr, s.op, s.line = r.Address, uint64(r.OpIndex), uint64(r.Line)
	return nil
}

// shortest runs each plan with the output redirected to scratch, then
// writes the shortest output among the plans that succeeded, and reports
// whether any did. scratch must not be in use by an enclosing shortest.
func (a *Assembler) shortest(scratch *dwasm.Builder, plans ...func() bool) bool {
	var best []byte
	saved := a.b
	for _, plan := range plans {
		scratch.Truncate(0)
		a.b = scratch
		ok := plan()
		a.b = saved
		if ok && (best == nil || scratch.Len() < len(best)) {
			best = append(best[:0], scratch.Bytes()...)
		}
	}
	if best == nil {
		return false
	}
	a.b.Raw(best)
	return true
}

// move is one way to bring the address registers to a row's: the opcodes
// in prefix, leaving an operation advance of residual to fold into the
// opcode that appends the row.
type move struct {
	prefix   func(a *Assembler) bool
	residual uint64
}

// opAdvance returns the operation advance that takes (s.addr, s.op) to
// (t.addr, t.op) [DWARF5 6.2.5.1], if one exists.
func (a *Assembler) opAdvance(s, t *regs) (uint64, bool) {
	maxOps := a.maxOps()
	minInst := uint64(a.h.MinInstLength)
	if t.addr < s.addr {
		return 0, false
	}
	delta := t.addr - s.addr
	var k uint64
	switch {
	case minInst == 0:
		if delta != 0 {
			return 0, false
		}
	case delta%minInst != 0:
		return 0, false
	default:
		k = delta / minInst
	}
	if k > (math.MaxUint64-t.op)/maxOps {
		return 0, false
	}
	n := k*maxOps + t.op
	if n < s.op {
		return 0, false
	}
	return n - s.op, true
}

func (a *Assembler) addressMoves(s, t *regs) []move {
	var ms []move
	if n, ok := a.opAdvance(s, t); ok {
		ms = append(ms, move{func(*Assembler) bool { return true }, n})
		if a.has(OpConstAddPC) && a.h.LineRange != 0 {
			c := uint64((255 - int(a.h.OpcodeBase)) / int(a.h.LineRange))
			if c > 0 && n >= c {
				ms = append(ms, move{func(a *Assembler) bool { a.ConstAddPC(); return true }, n - c})
			}
		}
		if a.has(OpAdvancePC) && n > 0 {
			ms = append(ms, move{func(a *Assembler) bool { a.AdvancePC(n); return true }, 0})
		}
	}
	// fixed_advance_pc and set_address both leave op_index 0, so the
	// target op_index remains as an advance that cannot move the address.
	if a.has(OpFixedAdvancePC) && t.addr >= s.addr && t.addr-s.addr <= math.MaxUint16 {
		d := uint16(t.addr - s.addr)
		ms = append(ms, move{func(a *Assembler) bool { a.FixedAdvancePC(d); return true }, t.op})
	}
	ms = append(ms, move{func(a *Assembler) bool { a.SetAddress(t.addr); return true }, t.op})
	return ms
}

// finishRow writes the line change and the opcode that appends the row,
// absorbing an operation advance of residual, in the fewest bytes.
func (a *Assembler) finishRow(residual uint64, lineDelta int64, end bool) bool {
	if end {
		// DW_LNE_end_sequence appends the row; no special opcode may.
		if residual > 0 {
			if !a.has(OpAdvancePC) {
				return false
			}
			a.AdvancePC(residual)
		}
		if lineDelta != 0 {
			if !a.has(OpAdvanceLine) {
				return false
			}
			a.AdvanceLine(lineDelta)
		}
		a.EndSequence()
		return true
	}
	if op, ok := a.special(residual, lineDelta); ok {
		a.b.U8(op)
		return true
	}
	// Two or more bytes from here: try the variants in the nested
	// scratch and keep the shortest.
	return a.shortest(a.sub,
		// Line by advance_line, advance by the special.
		func() bool {
			op, ok := a.special(residual, 0)
			if !ok || !a.has(OpAdvanceLine) {
				return false
			}
			a.AdvanceLine(lineDelta)
			a.b.U8(op)
			return true
		},
		// Advance by advance_pc, line by the special, advance_line or neither.
		func() bool {
			if residual > 0 {
				if !a.has(OpAdvancePC) {
					return false
				}
				a.AdvancePC(residual)
			}
			if op, ok := a.special(0, lineDelta); ok {
				a.b.U8(op)
				return true
			}
			if lineDelta != 0 {
				if !a.has(OpAdvanceLine) {
					return false
				}
				a.AdvanceLine(lineDelta)
			}
			if a.has(OpCopy) {
				a.Copy()
				return true
			}
			op, ok := a.special(0, 0)
			if ok {
				a.b.U8(op)
			}
			return ok
		})
}
