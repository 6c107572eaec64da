//go:build amd64 && !purego

#include "textflag.h"

// The table entries' flags (huffman.go).
#define FLAG_LIT $0x1000
#define FLAG_EOB $0x2000
#define FLAG_SUB $0x4000
#define FLAG_BAD $0x8000
#define FLAG_EOB_BAD $0xa000
#define FLAG_SUB_EOB_BAD $0xe000

// fastState's offsets (fastasm.go).
#define ST_IN 0
#define ST_IN_END 8
#define ST_OUT 16
#define ST_OUT_END 24
#define ST_OUT_BASE 32
#define ST_BITS 40
#define ST_NBITS 48
#define ST_E 56
#define ST_LIT 64
#define ST_DIST 72
#define ST_STATUS 80

// REFILL ORs the next input bytes into the bit buffer above its valid
// bits, as fastGo's refill: bits |= load(in) << (nbits & 63); in += 7 -
// (nbits >> 3 & 7); nbits |= 56.
#define REFILL \
	MOVQ  (SI), BX; \
	SHLXQ R11, BX, BX; \
	ORQ   BX, R10; \
	MOVQ  R11, CX; \
	SHRQ  $3, CX; \
	ANDQ  $7, CX; \
	SUBQ  CX, SI; \
	ADDQ  $7, SI; \
	ORQ   $56, R11

// CONSUME drops the bits of entry E from the buffer: bits >>= E & 63;
// nbits -= E.
#define CONSUME(E) \
	SHRXQ E, R10, R10; \
	SUBQ  E, R11

// LITERAL writes the literal of entry AX and consumes it.
#define LITERAL \
	CONSUME(AX); \
	MOVL  AX, BX; \
	SHRL  $16, BX; \
	MOVB  BX, (DI); \
	INCQ  DI

// NEXT looks up the next literal/length entry into AX.
#define NEXT \
	MOVL  R10, BX; \
	ANDL  $0x7ff, BX; \
	MOVL  (R12)(BX*4), AX

// VALUE sets DST to the value of entry E plus its extra bits, taken from
// the buffer SAVED as it was before E was consumed: E >> 16 + (SAVED &
// (1<<(E & 0xff) - 1)) >> (E >> 8 & 15). SAVED is clobbered, and CX.
#define VALUE(E, SAVED, DST) \
	BZHIQ E, SAVED, SAVED; \
	MOVL  E, CX; \
	SHRL  $8, CX; \
	ANDL  $15, CX; \
	SHRXQ CX, SAVED, SAVED; \
	MOVL  E, DST; \
	SHRL  $16, DST; \
	ADDQ  SAVED, DST

// SUBENTRY replaces entry E, a subtable pointer whose primary bits have
// been consumed, by the subtable's entry for the next bits, from table
// TAB of MASK+1 entries: E = TAB[(E >> 16 + bits & (1<<(E >> 8 & 15) -
// 1)) & MASK].
#define SUBENTRY(E, TAB, MASK) \
	MOVL  E, CX; \
	SHRL  $8, CX; \
	ANDL  $15, CX; \
	BZHIQ CX, R10, BX; \
	SHRL  $16, E; \
	ADDL  E, BX; \
	ANDL  MASK, BX; \
	MOVL  (TAB)(BX*4), E

// func hasBMI2() bool
TEXT ·hasBMI2(SB), NOSPLIT, $0-1
	MOVL $0, AX
	CPUID
	CMPL AX, $7
	JLT  no
	MOVL $7, AX
	MOVL $0, CX
	CPUID
	SHRL $8, BX
	ANDL $1, BX
	MOVB BX, ret+0(FP)
	RET
no:
	MOVB $0, ret+0(FP)
	RET

// func fastLoop(st *fastState)
//
// Registers: SI the input, R8 its last start; DI the output, R9 its last
// start, R15 its base; R10 the bit buffer, R11 its count; R12 and R13 the
// literal/length and distance tables; AX the next literal/length entry;
// DX a match's length, then its end; R14 a distance entry, then the
// distance; BX and CX scratch.
TEXT ·fastLoop(SB), NOSPLIT, $0-8
	MOVQ st+0(FP), BX
	MOVQ ST_IN(BX), SI
	MOVQ ST_IN_END(BX), R8
	MOVQ ST_OUT(BX), DI
	MOVQ ST_OUT_END(BX), R9
	MOVQ ST_OUT_BASE(BX), R15
	MOVQ ST_BITS(BX), R10
	MOVQ ST_NBITS(BX), R11
	MOVQ ST_E(BX), AX
	MOVQ ST_LIT(BX), R12
	MOVQ ST_DIST(BX), R13

loop:
	CMPQ SI, R8
	JHI  bounds
	CMPQ DI, R9
	JHI  bounds
	REFILL
	TESTL FLAG_LIT, AX
	JZ    notlit

	// Up to three literals on one refill.
	LITERAL
	NEXT
	TESTL FLAG_LIT, AX
	JZ    loop
	LITERAL
	NEXT
	TESTL FLAG_LIT, AX
	JZ    loop
	LITERAL
	NEXT
	JMP   loop

notlit:
	TESTL FLAG_SUB_EOB_BAD, AX
	JNZ   special
	// A length.
	MOVQ R10, BX
	CONSUME(AX)
	VALUE(AX, BX, DX)
	JMP  distance

special:
	TESTL FLAG_SUB, AX
	JNZ   sub
	TESTL FLAG_BAD, AX
	JNZ   badlit
	CONSUME(AX)
	JMP   eob

sub:
	// A codeword longer than the primary bits.
	SHRQ  $11, R10
	SUBQ  $11, R11
	SUBENTRY(AX, R12, $0xfff)
	TESTL FLAG_LIT, AX
	JZ    sublen
	LITERAL
	NEXT
	JMP   loop

sublen:
	TESTL FLAG_EOB_BAD, AX
	JNZ   subspecial
	MOVQ  R10, BX
	CONSUME(AX)
	VALUE(AX, BX, DX)
	// Up to 11+4+5 bits are gone: refill for the distance and the next
	// lookup.
	REFILL
	JMP   distance

subspecial:
	TESTL FLAG_BAD, AX
	JNZ   badlit
	CONSUME(AX)
	JMP   eob

distance:
	MOVL  R10, BX
	ANDL  $0xff, BX
	MOVL  (R13)(BX*4), R14
	TESTL FLAG_SUB, R14
	JZ    dprimary
	SHRQ  $8, R10
	SUBQ  $8, R11
	SUBENTRY(R14, R13, $0x1ff)

dprimary:
	TESTL FLAG_BAD, R14
	JNZ   baddist
	MOVQ  R10, BX
	CONSUME(R14)
	VALUE(R14, BX, R14)
	// The distance may reach back to the output's start, no further.
	MOVQ  DI, BX
	SUBQ  R15, BX
	CMPQ  R14, BX
	JHI   far
	// DX: the match's end; CX: its source.
	ADDQ  DI, DX
	MOVQ  DI, CX
	SUBQ  R14, CX
	CMPQ  R14, $8
	JCS   period

	// The next symbol's entry, before the copy. Each 8-byte load reads
	// bytes already written, even when the match overlaps itself; the
	// stores may run up to 7 bytes past the match's end, into the room
	// fastOut reserves.
	NEXT
	MOVQ (CX), BX
	MOVQ BX, (DI)
	MOVQ 8(CX), BX
	MOVQ BX, 8(DI)
	ADDQ $16, DI
	ADDQ $16, CX
	CMPQ DI, DX
	JCC  copied

copy8:
	MOVQ (CX), BX
	MOVQ BX, (DI)
	ADDQ $8, DI
	ADDQ $8, CX
	CMPQ DI, DX
	JCS  copy8

copied:
	MOVQ DX, DI
	JMP  loop

period:
	// A period of 1 to 7 bytes: repeat it across a word (only its first
	// step bytes need to be right), then store the word every step bytes,
	// step being the largest multiple of the period up to 8. AX is
	// scratch here, the next entry looked up after.
	MOVQ  (CX), BX
	MOVQ  R14, CX
	SHLQ  $3, CX
	BZHIQ CX, BX, BX
	SHLXQ CX, BX, AX
	ORQ   AX, BX
	CMPQ  CX, $16
	JHI   step
	SHLQ  $1, CX
	SHLXQ CX, BX, AX
	ORQ   AX, BX
	CMPQ  CX, $16
	JNE   step
	SHLQ  $1, CX
	SHLXQ CX, BX, AX
	ORQ   AX, BX

step:
	// step = byte dist of 0x0706050806080800: 8, 8, 6, 8, 5, 6, 7.
	MOVQ  R14, CX
	SHLQ  $3, CX
	MOVQ  $0x0706050806080800, R14
	SHRXQ CX, R14, R14
	ANDL  $0xff, R14

store:
	MOVQ BX, (DI)
	ADDQ R14, DI
	CMPQ DI, DX
	JCS  store
	MOVQ DX, DI
	NEXT
	JMP  loop

bounds:
	MOVQ $0, CX
	JMP  exit

eob:
	MOVQ $1, CX
	JMP  exit

badlit:
	MOVQ $2, CX
	JMP  exit

baddist:
	MOVQ $3, CX
	JMP  exit

far:
	MOVQ $4, CX

exit:
	MOVQ st+0(FP), BX
	MOVQ SI, ST_IN(BX)
	MOVQ DI, ST_OUT(BX)
	MOVQ R10, ST_BITS(BX)
	MOVQ R11, ST_NBITS(BX)
	MOVQ AX, ST_E(BX)
	MOVQ CX, ST_STATUS(BX)
	RET
