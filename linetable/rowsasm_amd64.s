//go:build amd64 && !purego

#include "textflag.h"

#define ST_P 0
#define ST_PLAST 8
#define ST_DST 16
#define ST_REM 24
#define ST_TAB 32
#define ST_ADDR 40
#define ST_LINE 48
#define ST_FILEHI 56
#define ST_COL 64
#define ST_STMT 72
#define ST_ISAHI 80
#define ST_BASE 88
#define ST_FLAGS 96

// func hasRowsAsm() bool
TEXT ·hasRowsAsm(SB), NOSPLIT, $0-1
	MOVL $0, AX
	CPUID
	CMPL AX, $7
	JLT  no
	MOVL $1, AX
	MOVL $0, CX
	CPUID
	// PCLMULQDQ (1), POPCNT (23), OSXSAVE (27), AVX (28)
	MOVL CX, DX
	ANDL $0x18800002, DX
	CMPL DX, $0x18800002
	JNE  no
	MOVL $0, CX
	XGETBV
	// XMM, YMM, opmask, ZMM upper halves, ZMM16-31 enabled by the OS.
	ANDL $0xe6, AX
	CMPL AX, $0xe6
	JNE  no
	MOVL $7, AX
	MOVL $0, CX
	CPUID
	// BMI1 (3), AVX512F (16), BMI2 (8), AVX512BW (30)
	ANDL $0x40010108, BX
	CMPL BX, $0x40010108
	JNE  no
	MOVB $1, ret+0(FP)
	RET
no:
	MOVB $0, ret+0(FP)
	RET

// The entries of rowState.tab, 40 bytes an opcode.
#define E_ADDR 0
#define E_MUL 8
#define E_LINE 16
#define E_LINEMASK 20
#define E_EMIT 24
#define E_SEL 32

// CORR sets corr[CX] to what the two-byte advance_line at CX adds beyond
// what op adds for it: sext14(operand) - sext7(first byte). For CX = 64
// it reads two bytes past the block and sets the spare slot.
#define CORR \
	MOVBLZX 1(SI)(CX*1), DX; \
	MOVBLZX 2(SI)(CX*1), BX; \
	ANDL  $0x7f, DX; \
	SHLL  $7, BX; \
	ORL   BX, DX; \
	SHLL  $18, DX; \
	SARL  $18, DX; \
	MOVBLZX 1(SI)(CX*1), BX; \
	SHLL  $25, BX; \
	SARL  $25, BX; \
	SUBL  BX, DX; \
	MOVL  DX, corr-352(SP)(CX*4)

// OPERAND executes opcode OP (a register, 2-5, clobbered) with operand V
// (a register, at most 14 bits) through OP's entry, as op does with a
// one-byte operand. It clobbers R10.
#define OPERAND(OP, V) \
	LEAQ  (OP)(OP*4), OP; \
	MOVQ  V, R10; \
	IMULQ E_MUL(R15)(OP*8), R10; \
	ADDQ  R10, R11; \
	MOVL  V, R10; \
	SHLL  $18, R10; \
	SARL  $18, R10; \
	ANDL  E_LINEMASK(R15)(OP*8), R10; \
	ADDL  R10, R12; \
	MOVQ  V, R10; \
	SHLQ  $32, R10; \
	TESTB $1, E_SEL(R15)(OP*8); \
	CMOVQNE R10, R13; \
	TESTB $2, E_SEL(R15)(OP*8); \
	CMOVQNE V, R14

// SKIP moves SI on to byte CX of the block, or to the byte after it if the
// block took it for an operand, with is_stmt as it is before byte CX.
#define SKIP \
	SHRXQ CX, R9, DX; \
	ANDL  $1, DX; \
	MOVQ  DX, stmt-16(SP); \
	MOVQ  opnd-32(SP), AX; \
	SHRXQ CX, AX, AX; \
	ANDL  $1, AX; \
	ADDQ  CX, AX; \
	ADDQ  AX, SI

// SLOT clears corr at the position in slot P and stores there the
// position of BX's lowest bit (64 if none), which it clears. It clobbers
// DX.
#define SLOT(P) \
	MOVQ   P, DX; \
	MOVL   $0, corr-352(SP)(DX*4); \
	TZCNTQ BX, DX; \
	MOVQ   DX, P; \
	BLSRQ  BX, BX

// ROW stores a row of the registers at DI, with FLAGS (a register) at
// its IsStmt and the flags after it, and moves DI to the next.
#define ROW(FLAGS) \
	MOVQ  R11, 0(DI); \
	MOVQ  R13, 8(DI); \
	MOVL  R12, 16(DI); \
	MOVL  R14, 20(DI); \
	VMOVQ X8, 24(DI); \
	MOVQ  FLAGS, 32(DI); \
	ADDQ  $40, DI

// DROP takes the bytes of mask DX out of the block's opcodes, rows and
// stops. It clobbers R10.
#define DROP \
	ANDNQ R8, DX, R8; \
	MOVQ  rows-64(SP), R10; \
	ANDNQ R10, DX, R10; \
	MOVQ  R10, rows-64(SP); \
	MOVQ  stop-40(SP), R10; \
	ANDNQ R10, DX, R10; \
	MOVQ  R10, stop-40(SP)

// func rowsAsm(st *rowState)
//
// The block decoder (see rowsasm_amd64.go). Registers: SI the block, DI
// the next row; R11-R14 the address, line, file << 32 and column
// registers; R15 the opcode entries; R8 the block's opcodes left, R9
// is_stmt before each of its bytes (bit i for byte i), BX the opcodes of
// the current stretch (up to the next stop); X8 isa << 32, X9 ones; AX,
// CX, DX and R10 scratch. The frame holds the rest: the block's operand
// bytes, stops and rows (masks), the rows left in dst, and corr, the line
// corrections of the block's two-byte advance_lines (64 slots and a
// spare).
TEXT ·rowsAsm(SB), NOSPLIT, $352-8
	MOVQ st+0(FP), AX
	MOVQ AX, ptr-8(SP)
	MOVQ ST_STMT(AX), BX
	MOVQ BX, stmt-16(SP)
	MOVQ ST_REM(AX), BX
	MOVQ BX, rem-24(SP)
	VMOVQ ST_ISAHI(AX), X8
	VPCMPEQB X9, X9, X9
	MOVQ ST_P(AX), SI
	MOVQ ST_DST(AX), DI
	MOVQ ST_ADDR(AX), R11
	MOVQ ST_LINE(AX), R12
	MOVQ ST_FILEHI(AX), R13
	MOVQ ST_COL(AX), R14
	MOVQ ST_TAB(AX), R15
	MOVL $1, BX
	VPBROADCASTB BX, Z10
	MOVL $6, BX
	VPBROADCASTB BX, Z11
	MOVL $8, BX
	VPBROADCASTB BX, Z12
	MOVL $2, BX
	VPBROADCASTB BX, Z13
	MOVL $4, BX
	VPBROADCASTB BX, Z14
	MOVQ ST_BASE(AX), BX
	VPBROADCASTB BX, Z15
	MOVL $3, BX
	VPBROADCASTB BX, Z16
	VPXORQ Z31, Z31, Z31
	VMOVDQU64 Z31, corr-352(SP)
	VMOVDQU64 Z31, corr-288(SP)
	VMOVDQU64 Z31, corr-224(SP)
	VMOVDQU64 Z31, corr-160(SP)
	MOVQ $64, p1-56(SP)
	MOVQ $64, p2-72(SP)
	MOVQ $64, p3-80(SP)
	MOVQ $64, p4-88(SP)

block:
	MOVQ ptr-8(SP), AX
	CMPQ SI, ST_PLAST(AX)
	JHI  done
	CMPQ rem-24(SP), $0
	JEQ  done
	VMOVDQU8 (SI), Z0
	VPCMPEQB Z10, Z0, K1     // copy
	VPCMPEQB Z11, Z0, K2     // negate_stmt
	VPCMPEQB Z12, Z0, K3     // const_add_pc
	VPSUBB   Z13, Z0, Z1
	VPCMPUB  $1, Z14, Z1, K4 // 2-5: one LEB128 operand
	VPCMPUB  $5, Z15, Z0, K5 // special
	VPMOVB2M Z0, K6          // >= 0x80
	VPCMPEQB Z16, Z0, K7     // advance_line
	KORQ     K1, K5, K1      // K1: appends a row
	KORQ     K4, K3, K3      // K3: sets a register
	KORQ     K1, K3, K3      // K3: either
	KORQ     K3, K2, K5      // K5: every opcode handled here

	// Operand positions. Within a run of bytes 2-5 that starts at an
	// opcode, the opcodes and their operands alternate, and the byte
	// after a run of odd length is an operand; a run starts at an opcode
	// when the byte before it is not in the run.
	KMOVQ K4, R8
	MOVQ  R8, AX
	SHLQ  $1, AX
	ANDNQ R8, AX, AX         // run starts
	MOVQ  $0x5555555555555555, BX
	MOVQ  AX, CX
	ANDQ  BX, CX
	ADDQ  R8, CX
	XORQ  R8, CX             // runs starting at even positions, and the byte after
	NOTQ  BX
	ANDQ  BX, CX             // their odd positions
	ANDQ  BX, AX
	ADDQ  R8, AX
	XORQ  R8, AX
	NOTQ  BX
	ANDQ  BX, AX
	ORQ   CX, AX             // AX: operand positions
	KMOVQ K6, CX
	MOVQ  CX, R10
	ANDQ  AX, CX
	SHRQ  $1, CX             // CX: opcodes whose operand has more than one byte
	// Up to four advance_lines whose operand has two bytes, the second
	// neither 0x80 or more nor 2-5, and that end before byte 63: only
	// that second byte was taken for an opcode. R10: those advance_lines.
	ORQ   R8, R10
	SHRQ  $2, R10
	ANDNQ CX, R10, R10
	KMOVQ K7, DX
	ANDQ  DX, R10
	MOVQ  $0x3fffffffffffffff, DX
	ANDQ  DX, R10
	MOVQ  R10, DX
	BLSRQ DX, DX
	BLSRQ DX, DX
	BLSRQ DX, DX
	BLSRQ DX, DX
	ANDNQ R10, DX, R10
	ANDNQ CX, R10, CX        // the others stop the block
	// The last block's corrections out, this block's positions in.
	MOVQ  R10, BX
	SLOT(p1-56(SP))
	SLOT(p2-72(SP))
	SLOT(p3-80(SP))
	SLOT(p4-88(SP))
	MOVQ  R10, DX
	SHLQ  $2, DX
	ORQ   DX, AX
	MOVQ  AX, opnd-32(SP)
	NOTQ  AX                 // AX: opcode positions
	KMOVQ K5, DX
	ANDNQ AX, DX, DX         // opcodes not handled here
	ORQ   DX, CX
	BTSQ  $63, CX            // the block's end
	MOVQ  CX, stop-40(SP)
	KMOVQ K3, R8
	ANDQ  AX, R8             // R8: opcodes handled here, but negate_stmt
	KMOVQ K1, R10
	ANDQ  AX, R10
	MOVQ  R10, rows-64(SP)   // the rows
	KMOVQ K2, R9
	ANDQ  AX, R9             // negate_stmt
	// R9: is_stmt before each position, from the parity of the
	// negate_stmt opcodes before it (a carry-less multiply by ones).
	VMOVQ R9, X0
	VPCLMULQDQ $0, X9, X0, X0
	VMOVQ X0, DX
	XORQ  DX, R9
	MOVQ  stmt-16(SP), DX
	NEGQ  DX
	XORQ  DX, R9
	MOVQ  p1-56(SP), CX
	CORR
	MOVQ  p2-72(SP), CX
	CORR
	MOVQ  p3-80(SP), CX
	CORR
	MOVQ  p4-88(SP), CX
	CORR

seg:
	// The opcodes up to the next stop.
	TZCNTQ stop-40(SP), CX
	MOVQ  CX, end-48(SP)
	BZHIQ CX, R8, BX
	ANDNQ R8, BX, R8
	MOVQ  rows-64(SP), DX
	ANDQ  BX, DX
	POPCNTQ DX, R10
	CMPQ  R10, rem-24(SP)
	JAE   trim               // (each opcode stores a row at DI)
	SUBQ  R10, rem-24(SP)
	TESTQ BX, BX
	JEQ   stopped
op:
	TZCNTQ BX, CX
	BLSRQ BX, BX
	MOVBLZX (SI)(CX*1), AX
	MOVBLZX 1(SI)(CX*1), DX
	LEAQ  (AX)(AX*4), AX
	ADDQ  E_ADDR(R15)(AX*8), R11
	MOVQ  DX, R10
	IMULQ E_MUL(R15)(AX*8), R10
	ADDQ  R10, R11
	ADDL  E_LINE(R15)(AX*8), R12
	MOVL  DX, R10
	SHLL  $25, R10
	SARL  $25, R10
	ANDL  E_LINEMASK(R15)(AX*8), R10
	ADDL  R10, R12
	ADDL  corr-352(SP)(CX*4), R12
	MOVQ  DX, R10
	SHLQ  $32, R10
	TESTB $1, E_SEL(R15)(AX*8)
	CMOVQNE R10, R13
	TESTB $2, E_SEL(R15)(AX*8)
	CMOVQNE DX, R14
	SHRXQ CX, R9, R10
	ANDL  $1, R10
	MOVQ  R11, 0(DI)
	MOVQ  R13, 8(DI)
	MOVL  R12, 16(DI)
	MOVL  R14, 20(DI)
	VMOVQ X8, 24(DI)
	MOVQ  R10, 32(DI)
	ADDQ  E_EMIT(R15)(AX*8), DI
	TESTQ BX, BX
	JNE   op

stopped:
	CMPQ  rem-24(SP), $0
	JEQ   full
	MOVQ  end-48(SP), CX
	CMPQ  CX, $63
	JEQ   next
	// A stop inside the block: an opcode 2-5 whose operand has two
	// bytes, the second not 2-5, goes on with the block: only that
	// second byte was taken for an opcode.
	MOVBLZX (SI)(CX*1), AX
	TESTL AX, AX
	JEQ   inext
	CMPL  AX, $10
	JEQ   inpro
	LEAL  -2(AX), DX
	CMPL  DX, $3
	JHI   leave
	CMPQ  CX, $60
	JHI   leave
	MOVBLZX 2(SI)(CX*1), R10
	CMPL  R10, $0x80
	JAE   leave
	LEAL  -2(R10), DX
	CMPL  DX, $3
	JLS   leave
	CMPL  R10, $6
	JNE   nofix
	// The second byte was taken for a negate_stmt: undo its flip.
	LEAQ  3(CX), DX
	MOVQ  $-1, BX
	SHLXQ DX, BX, BX
	XORQ  BX, R9
nofix:
	MOVBLZX 1(SI)(CX*1), DX
	ANDL  $0x7f, DX
	SHLL  $7, R10
	ORL   R10, DX
	// Drop the stop and the second byte from every mask.
	MOVQ  stop-40(SP), R10
	BTRQ  CX, R10
	BTRQ  CX, R8
	ADDQ  $2, CX
	BTRQ  CX, R10
	MOVQ  R10, stop-40(SP)
	BTRQ  CX, R8
	MOVQ  rows-64(SP), R10
	BTRQ  CX, R10
	MOVQ  R10, rows-64(SP)
	OPERAND(AX, DX)
	JMP   seg

inext:
	// set_address or end_sequence inside the block. The blocks took
	// their bytes for opcodes and operands: drop those, and go on if
	// they took the byte after them for an opcode (as they do after an
	// end_sequence, whose bytes are 1s).
	MOVQ  ptr-8(SP), DX
	TESTQ $1, ST_FLAGS(DX)
	JEQ   leave
	CMPQ  CX, $52
	JHI   leave
	MOVBLZX 1(SI)(CX*1), DX
	MOVBLZX 2(SI)(CX*1), R10
	CMPL  DX, $9
	JNE   inend
	CMPL  R10, $2
	JNE   leave
	// The blocks must have taken the byte after it for an opcode.
	LEAQ  11(CX), DX
	MOVQ  opnd-32(SP), R10
	BTQ   DX, R10
	JCS   leave
	MOVQ  3(SI)(CX*1), R11
	MOVL  $0x7ff, DX
	SHLXQ CX, DX, DX
	DROP
	// Undo the flips of negate_stmt bytes taken among the eleven.
	SHRXQ CX, R9, DX
	LEAQ  11(CX), R10
	SHRXQ R10, R9, BX
	XORL  DX, BX
	ANDL  $1, BX
	NEGQ  BX
	SHLXQ R10, BX, BX
	XORQ  BX, R9
	JMP   seg
inend:
	CMPL  DX, $1
	JNE   leave
	CMPL  R10, $1
	JNE   leave
	SHRXQ CX, R9, DX
	ANDL  $1, DX
	ORQ   $0x10000, DX
	ROW(DX)
	XORL  R11, R11
	MOVL  $1, R12
	MOVQ  $0x100000000, R13
	XORL  R14, R14
	VPXOR X8, X8, X8
	MOVL  $7, DX
	SHLXQ CX, DX, DX
	DROP
	// is_stmt from default_is_stmt on.
	LEAQ  3(CX), R10
	SHRXQ R10, R9, BX
	MOVQ  ptr-8(SP), DX
	MOVQ  ST_FLAGS(DX), DX
	SHRQ  $1, DX
	XORL  DX, BX
	ANDL  $1, BX
	NEGQ  BX
	SHLXQ R10, BX, BX
	XORQ  BX, R9
	DECQ  rem-24(SP)
	JNE   seg
	MOVQ  R10, end-48(SP)
	JMP   full
inpro:
	// set_prologue_end inside the block, then a special opcode: its row.
	CMPQ  CX, $61
	JHI   leave
	MOVBLZX 1(SI)(CX*1), DX
	MOVQ  ptr-8(SP), R10
	CMPQ  DX, ST_BASE(R10)
	JB    leave
	LEAQ  (DX)(DX*4), DX
	ADDQ  E_ADDR(R15)(DX*8), R11
	ADDL  E_LINE(R15)(DX*8), R12
	SHRXQ CX, R9, DX
	ANDL  $1, DX
	ORQ   $0x1000000, DX
	ROW(DX)
	MOVL  $3, DX
	SHLXQ CX, DX, DX
	DROP
	DECQ  rem-24(SP)
	JNE   seg
	ADDQ  $2, CX
	MOVQ  CX, end-48(SP)
	JMP   full

next:
	// The block's end: on from its last opcode not decoded.
	SKIP
	JMP   block

leave:
	// The block stops at CX: decode here the commonest opcodes the
	// blocks leave, with every byte they read before the unit's end.
	SHRXQ CX, R9, DX
	ANDL  $1, DX
	MOVQ  DX, stmt-16(SP)
	ADDQ  CX, SI
	MOVQ  ptr-8(SP), AX
	MOVQ  ST_PLAST(AX), DX
	ADDQ  $56, DX
	CMPQ  SI, DX
	JHI   done
	MOVBLZX (SI), CX
	TESTL CX, CX
	JEQ   ext
	CMPL  CX, $10
	JEQ   prologue
	LEAL  -2(CX), DX
	CMPL  DX, $3
	JHI   done
	// 2-5 with an operand of two bytes.
	MOVBLZX 1(SI), DX
	MOVBLZX 2(SI), BX
	CMPL  BX, $0x80
	JAE   done
	ANDL  $0x7f, DX
	SHLL  $7, BX
	ORL   BX, DX
	ADDQ  $3, SI
	OPERAND(CX, DX)
	JMP   block

ext:
	TESTQ $1, ST_FLAGS(AX)
	JEQ   done
	MOVBLZX 1(SI), DX
	MOVBLZX 2(SI), BX
	CMPL  DX, $9
	JNE   notaddr
	CMPL  BX, $2
	JNE   done
	MOVQ  3(SI), R11         // DW_LNE_set_address
	ADDQ  $11, SI
	JMP   block
notaddr:
	CMPL  DX, $1
	JNE   done
	CMPL  BX, $1
	JNE   done
	CMPQ  rem-24(SP), $0
	JEQ   done
	// DW_LNE_end_sequence: the row, then the registers' initial values.
	MOVQ  stmt-16(SP), BX
	ORQ   $0x10000, BX
	ROW(BX)
	DECQ  rem-24(SP)
	XORL  R11, R11
	MOVL  $1, R12
	MOVQ  $0x100000000, R13
	XORL  R14, R14
	VPXOR X8, X8, X8
	MOVQ  ST_FLAGS(AX), BX
	SHRQ  $1, BX
	ANDL  $1, BX
	MOVQ  BX, stmt-16(SP)
	ADDQ  $3, SI
	JMP   block

prologue:
	// DW_LNS_set_prologue_end, then a special opcode: its row.
	MOVBLZX 1(SI), DX
	CMPQ  DX, ST_BASE(AX)
	JB    done
	CMPQ  rem-24(SP), $0
	JEQ   done
	LEAQ  (DX)(DX*4), DX
	ADDQ  E_ADDR(R15)(DX*8), R11
	ADDL  E_LINE(R15)(DX*8), R12
	MOVQ  stmt-16(SP), BX
	ORQ   $0x1000000, BX
	ROW(BX)
	DECQ  rem-24(SP)
	ADDQ  $2, SI
	JMP   block

trim:
	// As many rows as dst holds, or more: the stretch ends after row
	// number rem (counting from 1), and so does the call.
	MOVQ  rem-24(SP), R10
	DECQ  R10
	MOVL  $1, AX
	SHLXQ R10, AX, AX
	PDEPQ DX, AX, AX
	TZCNTQ AX, CX
	INCQ  CX
	BZHIQ CX, BX, BX
	MOVQ  CX, end-48(SP)
	MOVQ  $0, rem-24(SP)
	JMP   op

full:
	// dst is full: on from the last opcode decoded.
	MOVQ  end-48(SP), CX
	SKIP

done:
	MOVQ  ptr-8(SP), AX
	MOVQ  SI, ST_P(AX)
	MOVQ  DI, ST_DST(AX)
	MOVQ  rem-24(SP), BX
	MOVQ  BX, ST_REM(AX)
	MOVQ  R11, ST_ADDR(AX)
	MOVQ  R12, ST_LINE(AX)
	MOVQ  R13, ST_FILEHI(AX)
	MOVQ  R14, ST_COL(AX)
	MOVQ  stmt-16(SP), BX
	MOVQ  BX, ST_STMT(AX)
	VMOVQ X8, ST_ISAHI(AX)
	VZEROUPPER
	RET
