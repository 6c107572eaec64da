//go:build amd64 && !purego

package linetable

import "unsafe"

// The block decoder (rowsasm_amd64.s) decodes a program 64 bytes at a
// time, for fill, on CPUs with AVX-512BW. A decoder that branches on each
// opcode pays about one mispredicted branch a row, since which opcodes
// come before a row's special opcode is close to random (3.1 bits a row on
// cmd/go; bench/RESULTS.md, 2026-12-07); the block decoder has no branch
// that depends on an opcode in its common path:
//
//   - It compares the block's 64 bytes with the opcodes it knows, giving
//     one bit a byte for each class: special, copy, negate_stmt,
//     const_add_pc, the four opcodes with one LEB128 operand (2-5), 0x80
//     or more.
//   - Which bytes are opcodes and which are operands then follows from
//     the runs of bytes 2-5 alone, with additions and masks: a byte after
//     a byte outside such a run is an opcode, and within a run opcodes and
//     operands alternate. That holds up to the first opcode whose operand
//     has more than one byte, or that the block does not know (an extended
//     opcode, say): the block stops there.
//   - is_stmt before each byte is the parity of the negate_stmt opcodes
//     before it, a carry-less multiplication of their mask by ones.
//   - Then each opcode other than negate_stmt, found by counting trailing
//     zeros, is executed through its 40-byte entry of spTable.ent: the
//     address and line advances, the operand's multiplier into the
//     address, a mask for the operand's line advance, selectors for the
//     file and column, and the bytes of the row it appends (40 or 0). Each
//     opcode stores a row at the next slot, which the next opcode
//     overwrites unless this one appended it.
//   - The stops that Go's programs make most often are decoded inside the
//     block, which then goes on: a two-byte advance_line (for the first
//     four in a block by adding a correction in the loop), set_address,
//     end_sequence, and set_prologue_end before a special opcode. After
//     each, the classification is right again from the next opcode on, or
//     the block ends there.
//
// Anything else goes back to fill's Go loop, an opcode at a time, as does
// the end of a unit (its last 66 bytes). On cmd/go the block decoder runs
// about 4 times as many rows per CPU-second as debug/dwarf (medians of
// 3.95-4.16 over the sets measured), where fill's Go loop runs 2.8 times as
// many (BENCHMARKS.md).

// useRowsAsm reports whether rowsAsm can run: AVX-512BW (and the OS's
// support for its registers), BMI1, BMI2, POPCNT and PCLMULQDQ.
var useRowsAsm = hasRowsAsm()

func hasRowsAsm() bool

// rowState is rowsAsm's state, read and written by offset: keep
// rowsasm_amd64.s in step with the field order.
type rowState struct {
	p      unsafe.Pointer  // 0: the next opcode
	pLast  unsafe.Pointer  // 8: the last block start: the unit's end less 67
	dst    unsafe.Pointer  // 16: the next row
	rem    uint64          // 24: rows left in dst
	tab    *[256][5]uint64 // 32: spTable.ent
	addr   uint64          // 40
	line   uint64          // 48: low 32 bits
	fileHi uint64          // 56: file << 32
	col    uint64          // 64
	stmt   uint64          // 72: 0 or 1
	isaHi  uint64          // 80: isa << 32
	base   uint64          // 88: opcode_base
	flags  uint64          // 96: rowsExt, rowsDefaultStmt
}

// rowsAsm decodes rows from st.p into st.dst until it leaves a block at an
// opcode it does not decode, fewer than 67 bytes are left before the
// unit's end, or dst is full, and returns with st at that opcode. It needs
// maximum_operations_per_instruction 1, opcode_base 10 or more, and the
// per-row registers (discriminator, basic_block, prologue_end,
// epilogue_begin) clear.
//
//go:noescape
func rowsAsm(st *rowState)

// rowState.flags.
const (
	rowsExt         = 1 << iota // set_address (8 bytes) and end_sequence may be decoded
	rowsDefaultStmt             // default_is_stmt
)

// rowsasm_amd64.s reads rowState by offset (ST_*): thirteen 8-byte fields
// in order, flags last at 96. This fails to compile if that changes.
var (
	_ [unsafe.Offsetof(rowState{}.flags) - 96]struct{}
	_ [96 - unsafe.Offsetof(rowState{}.flags)]struct{}
	_ [unsafe.Sizeof(rowState{}) - 104]struct{}
	_ [104 - unsafe.Sizeof(rowState{})]struct{}
)
