package linetable

import (
	"encoding/binary"
	"math/rand/v2"
	"testing"
)

// The tests here check fill's block decoder (rowsAsm, on amd64 with
// AVX-512BW) against Next, which decodes an opcode at a time in Go, on
// programs long enough for the blocks (67 bytes or more) and made of the
// opcodes and operand bytes that trip up a decoder that classifies 64
// bytes at once: operands of 2-5 (which are also opcodes with one
// operand) and of 6 (negate_stmt), LEB128 operands of two and three
// bytes, set_address operands holding such bytes, end_sequence,
// set_prologue_end before special opcodes and before others, and the
// opcodes the blocks leave to Go. Where rowsAsm cannot run they check the
// Go loop the same way.

// randomProgram returns n opcodes of a program for a header with opcode
// base base, drawn by rng.
func randomProgram(rng *rand.Rand, n int, base uint8) []byte {
	var p []byte
	operand := func() byte {
		// Bytes the block decoder treats specially, and any byte.
		switch rng.IntN(4) {
		case 0:
			return byte(2 + rng.IntN(5)) // 2-6
		case 1:
			return byte(rng.IntN(0x80))
		default:
			return byte(rng.IntN(0x40))
		}
	}
	leb := func() {
		switch rng.IntN(8) {
		case 0: // two bytes, the second anything below 0x80
			p = append(p, 0x80|operand(), operand()&0x7f)
		case 1: // three bytes
			p = append(p, 0x80|operand(), 0x80|operand(), operand()&0x7f)
		default:
			p = append(p, operand()&0x7f)
		}
	}
	special := func() byte { return base + byte(rng.IntN(256-int(base))) }
	for range n {
		switch k := rng.IntN(40); {
		case k < 14:
			p = append(p, special())
		case k < 20:
			p = append(p, byte(OpNegateStmt))
		case k < 29:
			// The opcodes with one LEB128 operand, advance_line most.
			ops := [...]Opcode{OpAdvanceLine, OpAdvanceLine, OpAdvanceLine, OpAdvanceLine, OpSetFile, OpSetFile, OpAdvancePC, OpAdvancePC, OpSetColumn}
			p = append(p, byte(ops[k-20]))
			leb()
		case k < 30:
			p = append(p, byte(OpConstAddPC))
		case k < 31:
			p = append(p, byte(OpCopy))
		case k < 32:
			p = append(p, byte(OpSetPrologueEnd))
		case k < 33:
			p = append(p, byte(OpSetBasicBlock), byte(OpSetEpilogueBegin))
		case k < 34:
			p = append(p, byte(OpFixedAdvancePC), operand(), operand())
		case k < 36:
			// set_address, its bytes often ones the blocks take for opcodes.
			p = append(p, 0, 9, byte(OpSetAddress))
			for range 8 {
				p = append(p, operand())
			}
		case k < 37:
			p = append(p, 0, 1, byte(OpEndSequence))
		case k < 38:
			p = append(p, 0, 2, byte(OpSetDiscriminator), operand()&0x7f)
		case k < 39:
			// set_isa, or an opcode past 12 below the base with one operand.
			if base > 13 {
				p = append(p, 13+byte(rng.IntN(int(base)-13)), operand()&0x7f)
			} else {
				p = append(p, 12, operand()&0x7f)
			}
		default:
			// An extended opcode of any length, or a bad one.
			l := rng.IntN(4)
			p = append(p, 0, byte(l))
			for range l {
				p = append(p, operand())
			}
		}
	}
	return p
}

// programUnit assembles prog as the whole program of one unit with h's
// parameters and returns the section and options.
func programUnit(t testing.TB, h Header, big bool, prog []byte) ([]byte, *Options) {
	h.StandardOpcodeLengths = StandardOpcodeLengths(h.OpcodeBase)
	a, err := NewAssembler(&h, &AsmOptions{BigEndian: big})
	if err != nil {
		t.Fatal(err)
	}
	a.Raw(prog)
	as := a.Finish()
	return as.Line, as.Options()
}

func TestRowsAsmRandom(t *testing.T) {
	if !useRowsAsm {
		t.Log("no rowsAsm on this CPU or build: checking the Go loop")
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 400 {
		h := DefaultHeader(uint16(2 + i%4))
		h.OpcodeBase = []uint8{10, 13, 13, 14, 20}[i%5]
		h.LineBase = int8(-1 - rng.IntN(8))
		h.LineRange = uint8(1 + rng.IntN(16))
		h.MinInstLength = []uint8{1, 1, 4}[i%3]
		h.DefaultIsStmt = i%7 != 0
		big := i%11 == 0
		prog := randomProgram(rng, 20+rng.IntN(600), h.OpcodeBase)
		data, opts := programUnit(t, h, big, prog)
		checkUnitRows(t, "program", data, 0, opts)
	}
}

// TestRowsAsmShapes checks the block decoder on programs of one repeated
// row shape each, at every alignment to the 64-byte blocks.
func TestRowsAsmShapes(t *testing.T) {
	shapes := [][]byte{
		{byte(OpNegateStmt), 0x20},
		{byte(OpAdvanceLine), 0x85, 0x01, 0x20},                                  // two-byte advance_line
		{byte(OpAdvanceLine), 0x85, 0x01, byte(OpAdvanceLine), 0xc1, 0x7f, 0x20}, // more than four a block
		{byte(OpAdvanceLine), 0x85, 0x03, 0x20},                                  // its second byte 3
		{byte(OpAdvanceLine), 0x85, 0x06, byte(OpNegateStmt), 0x20},              // its second byte 6
		{byte(OpSetFile), 0x82, 0x01, byte(OpAdvancePC), 0x90, 0x02, 0x20},       // two-byte operands
		{byte(OpAdvanceLine), 0x03, byte(OpSetFile), 0x02, 0x20},                 // operands 2-5
		{byte(OpSetPrologueEnd), 0x20, byte(OpSetPrologueEnd), byte(OpCopy)},
		{0, 9, byte(OpSetAddress), 2, 3, 6, 4, 5, 2, 3, 4, 0x20, 0, 1, byte(OpEndSequence)},
		{0, 9, byte(OpSetAddress), 2, 3, 6, 4, 5, 2, 3, 6, 0x20, 0, 1, byte(OpEndSequence)},
		{byte(OpNegateStmt), 0, 1, byte(OpEndSequence), 0x21},
		// set_address whose last bytes look like a two-byte advance_line
		// reaching past it.
		{0, 9, byte(OpSetAddress), 1, 1, 1, 1, 1, 1, 3, 0x85, 0x20, 0, 1, byte(OpEndSequence)},
	}
	h := DefaultHeader(5)
	for si, shape := range shapes {
		for pad := range 64 {
			var prog []byte
			for range pad {
				prog = append(prog, byte(OpConstAddPC))
			}
			for len(prog) < 400 {
				prog = append(prog, shape...)
			}
			data, opts := programUnit(t, h, false, prog)
			t.Logf("shape %d, pad %d", si, pad)
			checkUnitRows(t, "program", data, 0, opts)
		}
	}
}

// FuzzRowsAsm decodes prog as the program of one unit whose header's
// parameters come from params, with NextRows and with Next, which must
// agree (as in FuzzDecode, but every input is a program the blocks read).
func FuzzRowsAsm(f *testing.F) {
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range 8 {
		base := []uint8{13, 10, 14, 13}[i%4]
		f.Add(randomProgram(rng, 40+20*i, base), uint64(base)|uint64(i)<<8)
	}
	in, err := benchData()
	if err == nil {
		// A stretch of a Go program, whose header has opcode_base 10.
		r, err := NewReader(in.line, in.units[0], &in.opts)
		if err == nil {
			h := r.Header()
			p := in.line[h.ProgramOffset:h.EndOffset]
			f.Add(p[:min(len(p), 512)], uint64(h.OpcodeBase)|uint64(uint8(h.LineBase))<<16|uint64(h.LineRange)<<24)
		}
	}
	f.Fuzz(func(t *testing.T, prog []byte, params uint64) {
		var b [8]byte
		binary.LittleEndian.PutUint64(b[:], params)
		h := DefaultHeader(uint16(2 + b[1]%4))
		h.OpcodeBase = max(10, b[0])
		if b[2] != 0 {
			h.LineBase = int8(b[2])
		}
		h.LineRange = max(1, b[3])
		h.MinInstLength = max(1, b[4]%8)
		h.DefaultIsStmt = b[5]&1 == 0
		data, opts := programUnit(t, h, b[5]&2 != 0, prog)
		checkUnitRows(t, "program", data, 0, opts)
	})
}
