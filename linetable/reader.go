package linetable

import (
	"encoding/binary"
	"io"
	"iter"
	"sync/atomic"
	"unsafe"

	"github.com/symbolize-go/symbolize/internal/buf"
)

// Reader streams the rows of one line-number program. It executes the
// program as it goes and never holds more than the current registers, so
// decoding a unit costs its header plus nothing per row.
//
// Rows come in program order. A sequence ends with a row whose EndSequence
// is set (its address is the first one past the sequence); the next row, if
// any, begins a new sequence with the registers reset.
//
// How the opcodes act follows DWARF 5 section 6.2.5, with LLVM 14's choices
// where it is silent:
//   - Standard opcodes 1-12 below opcode_base have their DWARF meaning
//     whatever standard_opcode_lengths declares; others below opcode_base
//     are skipped by the ULEB128 operand counts it declares. With an
//     opcode_base below 13 the missing standard opcodes are special.
//   - An extended opcode's length is authoritative: decoding resumes after
//     it even if the operands were shorter or longer. Length 0 is a no-op.
//     DW_LNE_set_address reads an address of the operand's length when it
//     is 1, 2, 4 or 8 bytes and otherwise leaves the address unchanged.
//     DW_LNE_define_file is honoured in every version.
//   - maximum_operations_per_instruction > 1 uses the VLIW op_index
//     arithmetic of DWARF 5 6.2.5.1. LLVM 14 does not implement it and
//     advances as if it were 1, so rows of such (rare, VLIW-only) programs
//     differ from llvm-dwarfdump-14. A value of 0 is treated as 1, as LLVM
//     does; Go's debug/dwarf rejects it.
//   - Registers are as wide as Row's fields: file, line, column and isa
//     wrap modulo 2^32, addresses modulo 2^64. (LLVM keeps column and file
//     in 16 bits and isa in 8, which only matters for hostile input.)
//
// A Reader is not safe for concurrent use; its Header must not be modified.
type Reader struct {
	h Header
	// b reads every operand and records every error; it is limited to
	// the unit. The hot loop fetches opcode bytes from p at off itself
	// and moves b there only before handing it an opcode's operands.
	b      buf.Reader
	p      []byte // the section up to the unit's end: b.Data()[:b.Limit()]
	off    int    // the next opcode
	nfiles int    // len(h.Files) after the header, restored by Reset
	st     Row    // the state-machine registers

	// Set while the directory and file tables, which NewReader only
	// validated, wait for the first call to Header (see tables).
	lazy   bool
	tabOff uint64  // where the tables start
	opts   Options // for their names

	// Derived from the header once, so that the hot loop neither divides
	// nor branches on the version.
	minInst uint64
	maxOps  uint64 // >= 1
	spBase  uint8  // the first special opcode: max(opcode_base, 1)
	// For each opcode >= spBase: the operation advance and line advance of
	// the special opcode [DWARF5 6.2.5.1]. Entry 255 also serves
	// DW_LNS_const_add_pc. sp[op] is spAdv[op]*min_inst_length (< 2^16)
	// in the low 32 bits and the line advance (sign-extended to 32 bits)
	// in the high 32: one load and two adds per special opcode. Both are
	// shared between readers (see specialTables) and read-only.
	spAdv *[256]uint8
	sp    *[256]uint64
	ent   *[256][5]uint64

	// For Options.SectionOf: the section of the address register, and
	// that of each end_sequence row so far (for NewTable).
	sectionOf func(off uint64) uint32
	pcSection func(pc uint64) uint32
	section   uint32
	seqSecs   []uint32
	// keep is Options.Keep, for NewTable.
	keep []uint64

	// For NewTableFor: where the program starts for Reset (the header's
	// ProgramOffset unless narrowed to one sequence), and, with
	// recordEnds, the offset after each end_sequence opcode.
	start      int
	recordEnds bool
	seqEnds    []int
}

// NewReader decodes and validates the header of the unit at offset off of
// data, a whole .debug_line section, and returns a Reader positioned at the
// unit's first opcode. opts may be nil (little-endian, inline strings).
//
// NewReader validates the whole header, directory and file tables
// included, but leaves the tables' Dirs and Files to the first call to
// Header: rows need nothing from them, and making their slices and names
// cost about as much as decoding the rows of a small unit (on cmd/go,
// 2.0 MB of 2.04 MB allocated per pass over its 318 headers).
//
// The Header's strings are copied out of data and of the string sections;
// StandardOpcodeLengths aliases data.
func NewReader(data []byte, off uint64, opts *Options) (*Reader, error) {
	r := new(Reader)
	if err := r.initLazy(data, off, optsOrZero(opts), true); err != nil {
		return nil, err
	}
	return r, nil
}

// init is NewReader's work into r, with the tables decoded at once.
func (r *Reader) init(data []byte, off uint64, opts *Options) error {
	return r.initLazy(data, off, opts, false)
}

func (r *Reader) initLazy(data []byte, off uint64, opts *Options, lazy bool) error {
	r.b = newBuf(data, opts.BigEndian)
	tabOff, deferred, err := parseHeader(&r.h, &r.b, off, opts, lazy)
	if err != nil {
		return err
	}
	if deferred {
		r.lazy, r.tabOff, r.opts = true, tabOff, *opts
	}
	h := &r.h
	r.p = r.b.Data()[:r.b.Limit()]
	r.off = int(r.b.Offset())
	r.start = r.off
	r.nfiles = len(h.Files)
	r.minInst = uint64(h.MinInstLength)
	r.maxOps = uint64(max(h.MaxOpsPerInst, 1))
	r.spBase = max(h.OpcodeBase, 1)
	r.specialTables(h.OpcodeBase, h.LineBase, h.LineRange)
	r.sectionOf, r.pcSection = opts.SectionOf, opts.PCSection
	r.resetRegs()
	return nil
}

// specialTables sets spAdv and sp for these header fields and
// r.minInst, taking them from lastSP or making them. lineRange must not
// be 0.
func (r *Reader) specialTables(opBase uint8, lineBase int8, lineRange uint8) {
	key := uint32(opBase) | uint32(uint8(lineBase))<<8 | uint32(lineRange)<<16 | uint32(uint8(r.minInst))<<24
	t := lastSP.Load()
	if t == nil || t.key != key {
		t = newSPTable(key, opBase, lineBase, lineRange, r.minInst)
		lastSP.Store(t)
	}
	r.spAdv, r.sp, r.ent = &t.adv, &t.sp, t.ent
}

// spTable holds a Reader's special-opcode tables with the header fields
// they derive from.
type spTable struct {
	key uint32 // opcode_base, line_base, line_range, min_inst_length
	adv [256]uint8
	sp  [256]uint64
	// For rowsAsm, each opcode's action as five words: the address
	// advance, the multiplier of the operand added to the address, the
	// line advance (low 32 bits) and a mask of the operand's line advance
	// (high), the bytes of the row it appends (40 or 0), and whether the
	// operand sets the file (bit 0) or the column (bit 1). Nil where
	// rowsAsm cannot run.
	ent *[256][5]uint64
}

// lastSP is the spTable made last. The units of one binary nearly always
// share their special-opcode parameters, so one entry saves each Reader
// 2.3 KB and 256 steps (12.5 KB and 512 steps with rowsAsm's entries);
// readers of other parameters make their own.
var lastSP atomic.Pointer[spTable]

// newSPTable fills the tables for the opcodes from max(opBase, 1) up: an
// adjusted opcode (opcode - opcode_base) advances the operation by its
// quotient by line_range and the line by line_base plus its remainder
// [DWARF5 6.2.5.1]. They are counted here without dividing.
func newSPTable(key uint32, opBase uint8, lineBase int8, lineRange uint8, minInst uint64) *spTable {
	t := &spTable{key: key}
	adv, rem := uint8(0), uint8(0)
	if opBase == 0 {
		// Opcode 0 is extended, so the specials start at adjusted 1.
		adv, rem = 1/lineRange, 1%lineRange
	}
	for op := int(max(opBase, 1)); op < 256; op++ {
		t.adv[op] = adv
		line := int32(lineBase) + int32(rem)
		t.sp[op] = minInst*uint64(adv) | uint64(uint32(line))<<32
		if rem++; rem == lineRange {
			adv, rem = adv+1, 0
		}
	}
	if useRowsAsm {
		t.ent = rowEntries(opBase, minInst, &t.sp, t.adv[255])
	}
	return t
}

// rowEntries returns rowsAsm's entries (spTable.ent) for the special-opcode
// table sp, whose opcode 255 advances the operation by adv255.
func rowEntries(opBase uint8, minInst uint64, sp *[256]uint64, adv255 uint8) *[256][5]uint64 {
	ent := new([256][5]uint64)
	const rowBytes = uint64(unsafe.Sizeof(Row{}))
	for op := range 256 {
		e := &ent[op]
		switch {
		case op >= int(max(opBase, 1)):
			e[0], e[2], e[3] = sp[op]&0xffffffff, sp[op]>>32, rowBytes
		case Opcode(op) == OpCopy:
			e[3] = rowBytes
		case Opcode(op) == OpAdvancePC:
			e[1] = minInst
		case Opcode(op) == OpAdvanceLine:
			e[2] = 0xffffffff << 32
		case Opcode(op) == OpSetFile:
			e[4] = 1
		case Opcode(op) == OpSetColumn:
			e[4] = 2
		case Opcode(op) == OpConstAddPC:
			e[0] = minInst * uint64(adv255)
		}
	}
	return ent
}

// Header returns the unit's header. Its Files include those that
// DW_LNE_define_file opcodes decoded so far have added. The first call
// decodes the directory and file tables (which NewReader validated).
func (r *Reader) Header() *Header {
	r.tables()
	return &r.h
}

// tables decodes the directory and file tables if NewReader left them.
// NewReader's dry run made every read and check this one makes, so it
// cannot fail; if it somehow did, the tables would stay as far as they
// decoded rather than panic.
func (r *Reader) tables() {
	if !r.lazy {
		return
	}
	r.lazy = false
	b := newBuf(r.b.Data(), r.b.BigEndian())
	b.SetLimit(r.h.ProgramOffset)
	b.Seek(r.tabOff)
	parseTables(&r.h, &b, &r.opts, false)
	r.nfiles = len(r.h.Files)
	r.opts = Options{} // nothing else needs the string sections
}

// Offset returns the absolute .debug_line offset of the next opcode.
func (r *Reader) Offset() uint64 { return uint64(r.off) }

// Reset moves the Reader back to the first opcode of the program and drops
// the files DW_LNE_define_file added.
func (r *Reader) Reset() {
	if r.b.Err() != nil {
		// A buf.Reader's error is sticky: only a new one is clear of it.
		r.b = newBuf(r.b.Data(), r.b.BigEndian())
		r.b.SetLimit(r.h.EndOffset)
	}
	r.b.Seek(uint64(r.start))
	r.off = r.start
	r.h.Files = r.h.Files[:r.nfiles]
	if r.nfiles == 0 {
		r.h.Files = nil // as decoded: an empty table is nil (see Header)
	}
	r.seqSecs = r.seqSecs[:0]
	r.resetRegs()
}

// resetRegs sets the registers to their state at the start of a sequence
// [DWARF5 6.2.2, table 6.4].
func (r *Reader) resetRegs() {
	r.st = Row{File: 1, Line: 1, IsStmt: r.h.DefaultIsStmt}
	r.section = 0
}

// advance adds an operation advance to the address and op_index
// [DWARF5 6.2.5.1].
func (r *Reader) advance(opAdv uint64) {
	if r.maxOps == 1 {
		r.st.Address += r.minInst * opAdv
		return
	}
	r.st.Address, r.st.OpIndex = r.advanceVLIW(r.st.Address, r.st.OpIndex, opAdv)
}

// advanceVLIW is advance for maximum_operations_per_instruction > 1:
// address += min_inst * ((op_index + adv) / max_ops), op_index =
// (op_index + adv) % max_ops, computed without overflowing the sum.
func (r *Reader) advanceVLIW(addr uint64, opIndex uint32, opAdv uint64) (uint64, uint32) {
	q, rem := opAdv/r.maxOps, opAdv%r.maxOps
	t := uint64(opIndex) + rem // < 2*max_ops
	return addr + r.minInst*(q+t/r.maxOps), uint32(t % r.maxOps)
}

// Next stores the next row in *row. It returns io.EOF after the last row of
// the unit, and a *DecodeError if the program is malformed; either is
// returned again by every later call. Next does not allocate, except that a
// DW_LNE_define_file opcode appends to Header().Files.
//
// NextRows decodes many rows per call and is faster per row.
//
// The loop fetches opcodes and one-byte LEB128 operands straight from the
// bytes buf.Reader bounds (its Data up to its Limit), and hands everything
// else, including every multi-byte LEB128 and every error, to buf.Reader.
// Go's linker emits about two opcodes per row (negate_stmt, advance_line,
// set_file, then a special opcode), so a call per byte would cost more
// than the row itself.
func (r *Reader) Next(row *Row) error {
	p, i := r.p, r.off
	for i < len(p) {
		op := p[i]
		i++
		if op >= r.spBase {
			// Special opcode: advance, append a row, reset the per-row flags.
			e := r.sp[op]
			if r.maxOps == 1 {
				r.st.Address += uint64(uint32(e))
			} else {
				r.advance(uint64(r.spAdv[op]))
			}
			r.st.Line += uint32(e >> 32)
			r.off = i
			r.emit(row)
			return nil
		}
		switch Opcode(op) {
		case OpNegateStmt:
			r.st.IsStmt = !r.st.IsStmt
			continue
		case OpAdvanceLine:
			if i < len(p) && p[i] < 0x80 {
				r.st.Line += uint32(int32(int8(p[i]<<1) >> 1)) // sign-extend bit 6
				i++
				continue
			}
			// Go's linker often jumps more than 63 lines: two LEB128
			// bytes, sign-extended from bit 13, or more through buf.
			if i+1 < len(p) && p[i] >= 0x80 && p[i+1] < 0x80 {
				v := uint32(p[i]&0x7f) | uint32(p[i+1])<<7
				r.st.Line += uint32(int32(v<<18) >> 18)
				i += 2
				continue
			}
			r.b.Seek(uint64(i))
			r.st.Line += uint32(r.b.SLEB())
			i = int(r.b.Offset())
			continue
		case OpSetFile:
			if i < len(p) && p[i] < 0x80 {
				r.st.File = uint32(p[i])
				i++
				continue
			}
		case OpConstAddPC:
			r.advance(uint64(r.spAdv[255]))
			continue
		case OpCopy:
			r.off = i
			r.emit(row)
			return nil
		}
		r.b.Seek(uint64(i))
		appended := r.step(op, row)
		i = int(r.b.Offset()) // the unit's end after an error
		if appended {
			r.off = i
			return nil
		}
	}
	r.off = i
	if err := r.b.Err(); err != nil {
		return err
	}
	return io.EOF
}

// NextRows decodes up to len(dst) rows into dst and returns how many it
// stored. It returns 0 and io.EOF after the last row of the unit, and 0 and
// a *DecodeError once it meets malformed input (the rows before the error
// come back first, with a nil error); either is returned again by every
// later call. With an empty dst it returns 0 and nil. NextRows does not
// allocate, except that a DW_LNE_define_file opcode appends to
// Header().Files.
//
// It runs the same state machine as Next without a call per row, which
// makes it the fastest way to read a program; a dst of 64 to 256 rows is
// enough to amortize the call.
func (r *Reader) NextRows(dst []Row) (int, error) {
	if len(dst) == 0 {
		return 0, nil
	}
	if n := r.fill(dst); n > 0 {
		return n, nil
	}
	return 0, r.end()
}

// end returns the error that stopped the program, or io.EOF.
func (r *Reader) end() error {
	if err := r.b.Err(); err != nil {
		return err
	}
	return io.EOF
}

// fill executes the program from r.off, storing rows into dst until dst is
// full or the program ends (at its end or at an error), and returns the
// number of rows stored. It is Next's loop without a call, return and
// reload of the position per row. Where the block decoder can run
// (rowsasm_amd64.go: amd64 with AVX-512BW, not under the purego tag), it
// decodes most rows, 64 program bytes at a time, and hands this loop the
// opcodes it leaves and each unit's last 66 bytes.
//
// The registers that change on nearly every row (address, line, file,
// is_stmt) live in locals; r.st holds the others, and all of them around
// step. A row is a copy of r.st with the locals stored over it, which
// needs r.st's per-row registers (discriminator, basic_block,
// prologue_end, epilogue_begin) clear: after an opcode that sets one,
// Next decodes up to the row that carries it (on cmd/go, the 2% of rows
// after a set_prologue_end), so the special-opcode path tests nothing but
// the end of dst (DW_LNS_copy appends a row the same way). A special
// opcode's address and line advances come from one 8-byte entry of sp. The
// loop index is compared unsigned, which lets the compiler drop the bounds
// check of p[i]. VLIW programs take a separate path.
//
// Where the time goes on cmd/go (valgrind --tool=cachegrind
// --branch-sim=yes, BenchmarkRowsBatch): about 68 instructions and 0.95
// mispredicted branches per row (94 and 1.04 before the three changes
// above), the mispredictions coming from the opcode dispatch itself
// (which of negate_stmt, advance_line, set_file, ... precedes a special
// opcode is close to random). Tried and measured slower (see
// BENCHMARKS.md): a jump table over an opcode-kind table; copying rows
// field by field; applying the optional set_file/negate_stmt/
// const_add_pc/advance_line prefix of a Go-linker row with masks, byte by
// byte, from an 8-byte word with SWAR compares, or through a per-opcode
// descriptor table with one fast/slow branch (each trades the
// mispredictions, 7 times fewer with the descriptors, for a serial
// dependency through the offset and more instructions than the registers
// hold, which costs more); negate_stmt alone applied with a conditional
// move; a duplicate special-opcode test after negate_stmt and
// advance_line; testing negate_stmt before the other standard opcodes.
// Later (bench/RESULTS.md, 2026-12-01): the column in a local too, with
// rows stored field by field from the locals and constants, with file and
// column packed in one register, or with a jump table over every standard
// opcode (cmd/go 4-8% slower, gcc's programs no faster than with the
// column in r.st); negate_stmt applied with masks before the special test
// (13% slower).
func (r *Reader) fill(dst []Row) int {
	if r.maxOps != 1 || len(dst) == 0 {
		return r.fillVLIW(dst)
	}
	p, i, n := r.p, r.off, 0
	if r.perRowSet() {
		// Not after Reset, NextRows or Next, which leave a row's end;
		// kept so that fill never depends on that.
		if n = r.nextRow(dst, 0); n == len(dst) {
			return n
		}
		i = r.off
	}
	addr, line, file, stmt := r.st.Address, r.st.Line, r.st.File, r.st.IsStmt
	fast := useRowsAsm && r.spBase >= 10 // opcodes 1-9 standard
loop:
	for uint(i) < uint(len(p)) {
		if fast && i+67 <= len(p) {
			// The block decoder, from the registers in locals and r.st,
			// until it stops at an opcode it leaves to this loop.
			var st rowState
			st.p, st.pLast = unsafe.Pointer(&p[i]), unsafe.Pointer(&p[len(p)-67])
			st.dst, st.rem = unsafe.Pointer(&dst[n]), uint64(len(dst)-n)
			st.tab, st.base = r.ent, uint64(r.spBase)
			st.addr, st.line, st.fileHi, st.col = addr, uint64(line), uint64(file)<<32, uint64(r.st.Column)
			if stmt {
				st.stmt = 1
			}
			st.isaHi = uint64(r.st.ISA) << 32
			if r.sectionOf == nil && !r.recordEnds && !r.b.BigEndian() {
				st.flags |= rowsExt
			}
			if r.h.DefaultIsStmt {
				st.flags |= rowsDefaultStmt
			}
			rowsAsm(&st)
			i += int(uintptr(st.p) - uintptr(unsafe.Pointer(&p[i])))
			n = len(dst) - int(st.rem)
			addr, line, file, stmt = st.addr, uint32(st.line), uint32(st.fileHi>>32), st.stmt != 0
			r.st.Column, r.st.ISA = uint32(st.col), uint32(st.isaHi>>32)
			if n == len(dst) || i >= len(p) {
				break
			}
		}
		op := p[i]
		i++
		if op >= r.spBase {
			// Special opcode: advance, append a row [DWARF5 6.2.5.1].
			// The per-row registers in r.st are clear (see nextRow).
			e := r.sp[op]
			addr += uint64(uint32(e))
			line += uint32(e >> 32)
			d := &dst[n]
			*d = r.st
			d.Address, d.Line, d.File, d.IsStmt = addr, line, file, stmt
			if n++; n == len(dst) {
				break
			}
			continue
		}
		switch Opcode(op) {
		case OpNegateStmt:
			stmt = !stmt
			continue
		case OpAdvanceLine:
			if i < len(p) && p[i] < 0x80 {
				line += uint32(int32(int8(p[i]<<1) >> 1)) // sign-extend bit 6
				i++
				continue
			}
			// Go's linker often jumps more than 63 lines: two LEB128
			// bytes (the first >= 0x80, as the test above found),
			// sign-extended from bit 13. Longer ones go through step.
			if i+1 < len(p) && p[i+1] < 0x80 {
				v := uint32(p[i]&0x7f) | uint32(p[i+1])<<7
				line += uint32(int32(v<<18) >> 18)
				i += 2
				continue
			}
		case OpSetFile:
			if i < len(p) && p[i] < 0x80 {
				file = uint32(p[i])
				i++
				continue
			}
		case OpConstAddPC:
			addr += r.minInst * uint64(r.spAdv[255])
			continue
		case OpAdvancePC:
			if i < len(p) && p[i] < 0x80 {
				addr += r.minInst * uint64(p[i])
				i++
				continue
			}
		case OpSetColumn:
			// gcc's programs set a column before about half their rows.
			// It stays in r.st, which each row is copied from: another
			// local would cost Go's programs, which have no columns,
			// more in spills than gcc's gain.
			if i < len(p) && p[i] < 0x80 {
				r.st.Column = uint32(p[i])
				i++
				continue
			}
		case OpCopy:
			// gcc's location views: a row at an unchanged address (54%
			// of the rows of a gcc 12 -O2 C++ library, libradosgw).
			d := &dst[n]
			*d = r.st
			d.Address, d.Line, d.File, d.IsStmt = addr, line, file, stmt
			if n++; n == len(dst) {
				break loop
			}
			continue
		}
		// Everything else, including multi-byte operands, goes through
		// step with the registers in r.st.
		r.st.Address, r.st.Line, r.st.File, r.st.IsStmt = addr, line, file, stmt
		j, appended, ok := r.quickStep(op, i, &dst[n])
		if ok {
			i = j
		} else {
			r.b.Seek(uint64(i))
			appended = r.step(op, &dst[n])
			i = int(r.b.Offset()) // the unit's end after an error
		}
		if appended {
			n++
		} else if r.perRowSet() {
			// The opcode set a per-row register: Next runs the
			// program up to the row that carries it and clears it,
			// so that the special-opcode path above need not.
			r.off = i
			n = r.nextRow(dst, n)
			i = r.off
		}
		addr, line, file, stmt = r.st.Address, r.st.Line, r.st.File, r.st.IsStmt
		if n == len(dst) {
			break
		}
	}
	r.st.Address, r.st.Line, r.st.File, r.st.IsStmt = addr, line, file, stmt
	r.off = i
	return n
}

// quickStep executes, without buf.Reader, the opcodes that fill leaves to
// step but that every sequence or many rows have: DW_LNE_set_address with
// an 8- or 4-byte operand and DW_LNE_end_sequence (through step they cost a
// tenth of fill's time on cmd/go, for 5% of its opcodes), and
// DW_LNS_set_prologue_end and a DW_LNE_set_discriminator of one byte
// (before 2% of cmd/go's rows and 6% of a gcc library's), together with
// the special opcode that usually follows them and appends the row that
// carries them. op is the opcode at i-1, and r.st holds the registers. It
// returns the offset after what it executed, whether it appended a row into
// *row, and false for anything else (other opcodes or lengths, too few
// bytes left, or Options.SectionOf set), which step then decodes.
func (r *Reader) quickStep(op uint8, i int, row *Row) (int, bool, bool) {
	p := r.p
	switch {
	case Opcode(op) == OpSetPrologueEnd:
		r.st.PrologueEnd = true
		return r.quickSpecial(i, row)
	case op != 0 || r.sectionOf != nil || i+1 >= len(p):
		return i, false, false
	}
	switch length, sub := p[i], p[i+1]; {
	case sub == uint8(OpSetAddress) && length == 9 && i+10 <= len(p):
		if a := p[i+2 : i+10]; r.b.BigEndian() {
			r.st.Address = binary.BigEndian.Uint64(a)
		} else {
			r.st.Address = binary.LittleEndian.Uint64(a)
		}
		return i + 10, false, true
	case sub == uint8(OpSetAddress) && length == 5 && i+6 <= len(p):
		if a := p[i+2 : i+6]; r.b.BigEndian() {
			r.st.Address = uint64(binary.BigEndian.Uint32(a))
		} else {
			r.st.Address = uint64(binary.LittleEndian.Uint32(a))
		}
		return i + 6, false, true
	case sub == uint8(OpEndSequence) && length == 1:
		r.st.EndSequence = true
		r.emit(row)
		r.resetRegs()
		if r.recordEnds {
			r.seqEnds = append(r.seqEnds, i+2)
		}
		return i + 2, true, true
	case sub == uint8(OpSetDiscriminator) && length == 2 && i+2 < len(p) && p[i+2] < 0x80:
		r.st.Discriminator = uint32(p[i+2])
		return r.quickSpecial(i+3, row)
	}
	return i, false, false
}

// quickSpecial executes the special opcode at i, if there is one, for
// quickStep, and reports as quickStep does; otherwise it executes nothing.
func (r *Reader) quickSpecial(i int, row *Row) (int, bool, bool) {
	if i >= len(r.p) || r.p[i] < r.spBase {
		return i, false, true
	}
	e := r.sp[r.p[i]]
	r.st.Address += uint64(uint32(e))
	r.st.Line += uint32(e >> 32)
	r.emit(row)
	return i + 1, true, true
}

// perRowSet reports whether a register that applies to one row only is
// set [DWARF5 6.2.5.1].
func (r *Reader) perRowSet() bool {
	return r.st.Discriminator != 0 || r.st.BasicBlock || r.st.PrologueEnd || r.st.EpilogueBegin
}

// nextRow decodes the next row into dst[n] through Next (which clears the
// per-row registers after it), with the registers and position in r, and
// returns the number of rows in dst: n+1, or n at the program's end or an
// error.
func (r *Reader) nextRow(dst []Row, n int) int {
	if r.Next(&dst[n]) != nil {
		return n
	}
	return n + 1
}

// fillVLIW is fill for maximum_operations_per_instruction > 1 (and empty
// dst): a row at a time through Next, which handles op_index.
func (r *Reader) fillVLIW(dst []Row) int {
	for n := range dst {
		if r.Next(&dst[n]) != nil {
			return n
		}
	}
	return len(dst)
}

// step executes standard or extended opcode op, whose operands start at
// r.b's offset, and reports whether it appended a row into *row.
func (r *Reader) step(op uint8, row *Row) bool {
	b := &r.b
	switch Opcode(op) {
	case 0:
		return r.extended(row)
	case OpCopy:
		r.emit(row)
		return true
	case OpAdvancePC:
		r.advance(b.ULEB())
	case OpAdvanceLine:
		r.st.Line += uint32(b.SLEB())
	case OpSetFile:
		r.st.File = uint32(b.ULEB())
	case OpSetColumn:
		r.st.Column = uint32(b.ULEB())
	case OpNegateStmt:
		r.st.IsStmt = !r.st.IsStmt
	case OpSetBasicBlock:
		r.st.BasicBlock = true
	case OpConstAddPC:
		r.advance(uint64(r.spAdv[255]))
	case OpFixedAdvancePC:
		r.st.Address += uint64(b.U16())
		r.st.OpIndex = 0
	case OpSetPrologueEnd:
		r.st.PrologueEnd = true
	case OpSetEpilogueBegin:
		r.st.EpilogueBegin = true
	case OpSetISA:
		r.st.ISA = uint32(b.ULEB())
	default:
		// An opcode below opcode_base that this decoder does not know:
		// skip the operands the header declares for it.
		for range r.h.StandardOpcodeLengths[op-1] {
			b.ULEB()
		}
	}
	return false
}

// emit appends the registers as a row and clears the per-row ones
// [DWARF5 6.2.5.1].
func (r *Reader) emit(row *Row) {
	*row = r.st
	r.st.Discriminator = 0
	r.st.BasicBlock = false
	r.st.PrologueEnd = false
	r.st.EpilogueBegin = false
}

// extended decodes and executes the extended opcode after a 0 byte. It
// reports whether it appended a row (DW_LNE_end_sequence) into *row.
func (r *Reader) extended(row *Row) bool {
	b := &r.b
	lenOff := b.Offset()
	n := b.ULEB()
	if n == 0 || b.Err() != nil {
		// LLVM tolerates a zero length as a no-op.
		return false
	}
	start := b.Offset()
	if n > uint64(b.Len()) {
		b.Fail(lenOff, ErrTruncated, "extended opcode length %#x reaches past the unit end %#x", n, b.Limit())
		return false
	}
	end := start + n
	appended := false
	switch Opcode(b.U8()) {
	case OpEndSequence:
		r.st.EndSequence = true
		r.emit(row)
		if r.sectionOf != nil {
			r.seqSecs = append(r.seqSecs, r.section)
		}
		if r.recordEnds {
			r.seqEnds = append(r.seqEnds, int(end))
		}
		r.resetRegs()
		appended = true
	case OpSetAddress:
		switch size := n - 1; size {
		case 1, 2, 4, 8:
			if r.sectionOf != nil {
				r.section = r.sectionOf(b.Offset())
			}
			r.st.Address = b.Uint(int(size))
			r.st.OpIndex = 0
		}
	case OpDefineFile:
		r.tables() // the new file goes after the header's
		name := b.CString()
		dir, mtime, size := b.ULEB(), b.ULEB(), b.ULEB()
		if b.Err() == nil {
			r.h.Files = append(r.h.Files, File{Name: string(name), Dir: dir, MTime: mtime, Size: size})
		}
	case OpSetDiscriminator:
		r.st.Discriminator = uint32(b.ULEB())
	}
	if b.Err() == nil {
		b.Seek(end)
	}
	return appended
}

// All resets the Reader and yields each row of the program with a nil
// error; if the program is malformed, it ends with one zero Row and the
// error.
func (r *Reader) All() iter.Seq2[Row, error] {
	return func(yield func(Row, error) bool) {
		r.Reset()
		var row Row
		for {
			err := r.Next(&row)
			if err == io.EOF {
				return
			}
			if err != nil {
				yield(Row{}, err)
				return
			}
			if !yield(row, nil) {
				return
			}
		}
	}
}
