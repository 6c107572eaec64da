package linetable

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/symbolize-go/symbolize/internal/dw"
	"github.com/symbolize-go/symbolize/internal/dwasm"
)

// Decoder edge cases, each built by the assembler and run over every
// version x DWARF32/64 x byte order. Each unit is assembled after another
// valid unit, so that offsets in errors must be absolute.

// rtVariant is one header layout the tests cover.
type rtVariant struct {
	version uint16
	dwarf64 bool
	big     bool
}

func (v rtVariant) String() string {
	f, o := "dwarf32", "le"
	if v.dwarf64 {
		f = "dwarf64"
	}
	if v.big {
		o = "be"
	}
	return fmt.Sprintf("v%d/%s/%s", v.version, f, o)
}

func rtVariants() []rtVariant {
	var vs []rtVariant
	for _, ver := range []uint16{2, 3, 4, 5} {
		for _, d64 := range []bool{false, true} {
			for _, big := range []bool{false, true} {
				vs = append(vs, rtVariant{ver, d64, big})
			}
		}
	}
	return vs
}

func (v rtVariant) header() Header {
	h := DefaultHeader(v.version)
	h.Dwarf64 = v.dwarf64
	return h
}

// rtPrefix returns a small valid unit of the variant's format, to sit
// before the unit under test.
func rtPrefix(t testing.TB, v rtVariant) []byte {
	h := v.header()
	out, err := Assemble(&h, []Row{
		{Address: 0x10, File: 1, Line: 3, IsStmt: true},
		{Address: 0x20, File: 1, Line: 3, IsStmt: true, EndSequence: true},
	}, &AsmOptions{BigEndian: v.big})
	if err != nil {
		t.Fatal(err)
	}
	return out.Line
}

// rtDecode reads every row of the unit, returning the rows before any error.
func rtDecode(out *Assembled) ([]Row, *Reader, error) {
	r, err := NewReader(out.Line, out.Offset, out.Options())
	if err != nil {
		return nil, nil, err
	}
	var rows []Row
	for {
		var row Row
		err := r.Next(&row)
		if err == io.EOF {
			return rows, r, nil
		}
		if err != nil {
			return rows, r, err
		}
		rows = append(rows, row)
	}
}

// rtCheckErr checks that err is a *DecodeError of this package at off
// wrapping sentinel, with the house message shape.
func rtCheckErr(t *testing.T, name string, err, sentinel error, off uint64) {
	t.Helper()
	var de *DecodeError
	if !errors.As(err, &de) {
		t.Errorf("%s: err = %v, want a *DecodeError", name, err)
		return
	}
	if !errors.Is(err, sentinel) {
		t.Errorf("%s: err = %v, want %v", name, err, sentinel)
	}
	if de.Package != "linetable" || de.Section != ".debug_line" || de.Offset != off {
		t.Errorf("%s: err = %v (%s %s+%#x), want at .debug_line+%#x", name, err, de.Package, de.Section, de.Offset, off)
	}
	if prefix := fmt.Sprintf("linetable: .debug_line+%#x: ", off); !strings.HasPrefix(err.Error(), prefix) {
		t.Errorf("%s: message %q lacks prefix %q", name, err.Error(), prefix)
	}
}

// rtFieldOffset returns the offset of a header field of a unit at unit,
// counting from the header layout rather than by hand per case.
func rtFieldOffset(h *Header, unit uint64, field string) uint64 {
	off := unit + 4
	if h.Dwarf64 {
		off += 8
	}
	off += 2 // version
	if h.Version >= 5 {
		off += 2 // address_size, segment_selector_size
	}
	if field == "header_length" {
		return off
	}
	off += 4
	if h.Dwarf64 {
		off += 4
	}
	off++ // minimum_instruction_length
	if h.Version >= 4 {
		off++ // maximum_operations_per_instruction
	}
	off += 2 // default_is_stmt, line_base
	if field == "line_range" {
		return off
	}
	panic("rtFieldOffset: " + field)
}

func TestDecodeEdgeCases(t *testing.T) {
	type edgeCase struct {
		name string
		edit func(h *Header)
		// prog writes the program and returns the rows it must decode to,
		// and for a program that must fail, the offset of the error.
		prog    func(a *Assembler, h *Header) (want []Row, errOff uint64)
		wantErr error
		only    func(v rtVariant) bool // nil: every variant
	}
	row := func(addr uint64, line uint32) Row { return Row{Address: addr, File: 1, Line: line, IsStmt: true} }
	cases := []edgeCase{
		{
			name: "VLIW op_index arithmetic [DWARF5 6.2.5.1]",
			edit: func(h *Header) { h.MaxOpsPerInst = 3; h.MinInstLength = 4 },
			only: func(v rtVariant) bool { return v.version >= 4 },
			prog: func(a *Assembler, h *Header) ([]Row, uint64) {
				a.SetAddress(0x1000)
				rtMust(a.Special(2, 0)) // op 0+2: 0x1000 op 2
				rtMust(a.Special(2, 1)) // op 2+2 = 4: address += 4*1, op 1
				a.AdvancePC(7)          // op 1+7 = 8: address += 4*2, op 2
				a.Copy()
				a.ConstAddPC() // (255-13)/14 = 17: op 2+17 = 19: address += 4*6, op 1
				a.Copy()
				a.FixedAdvancePC(3) // not scaled; op_index back to 0
				a.Copy()
				a.AdvancePC(2)
				a.SetAddress(0x2000) // op_index back to 0
				a.Copy()
				a.AdvancePC(1 << 40) // a huge advance: 2^40 / 3 instructions
				a.EndSequence()
				r := row(0, 1)
				rows := []Row{}
				add := func(addr uint64, op uint32, line uint32) {
					r.Address, r.OpIndex, r.Line = addr, op, line
					rows = append(rows, r)
				}
				add(0x1000, 2, 1)
				add(0x1004, 1, 2)
				add(0x100c, 2, 2)
				add(0x1024, 1, 2)
				add(0x1027, 0, 2)
				add(0x2000, 0, 2)
				add(0x2000+4*((1<<40)/3), uint32((1<<40)%3), 2)
				rows[len(rows)-1].EndSequence = true
				return rows, 0
			},
		},
		{
			name: "max_ops 0 is taken as 1",
			edit: func(h *Header) { h.MaxOpsPerInst = 0; h.MinInstLength = 2 },
			prog: func(a *Assembler, h *Header) ([]Row, uint64) {
				rtMust(a.Special(3, 0))
				a.EndSequence()
				end := row(6, 1)
				end.EndSequence = true
				return []Row{row(6, 1), end}, 0
			},
		},
		{
			name: "opcode_base < 13: the missing standard opcodes are special",
			edit: func(h *Header) { h.OpcodeBase = 10; h.StandardOpcodeLengths = nil },
			prog: func(a *Assembler, h *Header) ([]Row, uint64) {
				a.AdvanceLine(100)
				a.SpecialOpcode(10)            // adjusted 0: line += -5
				a.SpecialOpcode(12)            // adjusted 2: line += -3
				a.SpecialOpcode(10 + 14*3 + 6) // address += 3, line += 1
				a.FixedAdvancePC(2)            // opcode 9 is still standard
				a.EndSequence()
				end := row(5, 94)
				end.EndSequence = true
				return []Row{row(0, 96), row(0, 93), row(3, 94), end}, 0
			},
		},
		{
			name: "opcode_base 1: every opcode but 0 is special",
			edit: func(h *Header) { h.OpcodeBase = 1; h.StandardOpcodeLengths = nil },
			prog: func(a *Assembler, h *Header) ([]Row, uint64) {
				a.SpecialOpcode(1)      // line += -5
				a.SpecialOpcode(1 + 19) // adjusted 19: address += 1, line += 0
				a.EndSequence()
				end := row(1, 1<<32-4)
				end.EndSequence = true
				return []Row{row(0, 1<<32-4), row(1, 1<<32-4), end}, 0
			},
		},
		{
			name: "opcode_base > 13: unknown standard opcodes skipped by declared lengths",
			edit: func(h *Header) {
				h.OpcodeBase = 17
				h.StandardOpcodeLengths = append(StandardOpcodeLengths(13), 2, 0, 1, 3)
			},
			prog: func(a *Assembler, h *Header) ([]Row, uint64) {
				a.Standard(13, 1<<63, 5)
				a.Standard(14)
				a.Standard(15, 0x7f)
				a.Standard(16, 1, 2, 3)
				rtMust(a.Special(1, 1))        // 17 is the first special opcode
				a.Standard(16, 0x80, 1<<20, 0) // operands that look like opcodes
				a.EndSequence()
				end := row(1, 2)
				end.EndSequence = true
				return []Row{row(1, 2), end}, 0
			},
		},
		{
			name: "unknown extended opcodes are skipped by their length",
			prog: func(a *Assembler, h *Header) ([]Row, uint64) {
				a.Extended(0x80, []byte{1, 2, 3, 4, 5}) // DW_LNE_lo_user
				a.Extended(0xff, nil)
				a.Extended(0x05, []byte{0x01}) // a future opcode whose operand looks like copy
				a.ExtendedLen(0, nil)          // length 0: a no-op
				// set_address reads an operand of its own length when that
				// is 1, 2, 4 or 8, whatever the address size...
				a.Extended(OpSetAddress, asmAddr(a, 4, 0x40))
				a.Copy()
				// ...and otherwise changes nothing, but is still skipped.
				a.Extended(OpSetAddress, []byte{1, 1, 1, 1, 1, 1, 1, 1, 1, 1})
				a.Copy()
				a.EndSequence()
				end := row(0x40, 1)
				end.EndSequence = true
				return []Row{row(0x40, 1), row(0x40, 1), end}, 0
			},
		},
		{
			name: "define_file adds a file",
			prog: func(a *Assembler, h *Header) ([]Row, uint64) {
				a.DefineFile("new.c", 0, 7, 9)
				a.SetFile(uint64(len(h.Files)))
				a.Copy()
				a.EndSequence()
				r := row(0, 1)
				r.File = uint32(len(h.Files))
				end := r
				end.EndSequence = true
				return []Row{r, end}, 0
			},
		},
		{
			name: "discriminator and one-row flags reset after each row",
			prog: func(a *Assembler, h *Header) ([]Row, uint64) {
				a.SetDiscriminator(7)
				a.SetBasicBlock()
				a.SetPrologueEnd()
				a.SetEpilogueBegin()
				a.Copy()
				a.Copy()
				a.SetDiscriminator(1 << 31)
				rtMust(a.Special(1, 0))
				rtMust(a.Special(1, 0))
				a.SetDiscriminator(3)
				a.EndSequence()
				first := row(0, 1)
				first.Discriminator, first.BasicBlock, first.PrologueEnd, first.EpilogueBegin = 7, true, true, true
				third := row(1, 1)
				third.Discriminator = 1 << 31
				end := row(2, 1)
				end.Discriminator, end.EndSequence = 3, true
				return []Row{first, row(0, 1), third, row(2, 1), end}, 0
			},
		},
		{
			name: "registers reset after end_sequence",
			prog: func(a *Assembler, h *Header) ([]Row, uint64) {
				a.SetAddress(0x100)
				a.SetFile(2)
				a.SetColumn(9)
				a.SetISA(4)
				a.NegateStmt()
				a.AdvanceLine(5)
				a.EndSequence()
				a.Copy()
				a.EndSequence()
				end1 := Row{Address: 0x100, File: 2, Line: 6, Column: 9, ISA: 4, EndSequence: true}
				end2 := row(0, 1)
				end2.EndSequence = true
				return []Row{end1, row(0, 1), end2}, 0
			},
		},
		{
			name: "const_add_pc and fixed_advance_pc with min_inst_length 4",
			edit: func(h *Header) { h.MinInstLength = 4 },
			prog: func(a *Assembler, h *Header) ([]Row, uint64) {
				a.ConstAddPC() // 17 instructions
				a.Copy()
				a.FixedAdvancePC(3) // bytes, not instructions
				a.Copy()
				a.AdvancePC(2)
				a.EndSequence()
				end := row(17*4+3+8, 1)
				end.EndSequence = true
				return []Row{row(17*4, 1), row(17*4+3, 1), end}, 0
			},
		},
		{
			name: "negate_stmt toggles",
			edit: func(h *Header) { h.DefaultIsStmt = false },
			prog: func(a *Assembler, h *Header) ([]Row, uint64) {
				a.Copy()
				a.NegateStmt()
				a.Copy()
				a.NegateStmt()
				a.EndSequence()
				r := row(0, 1)
				r.IsStmt = false
				end := r
				end.EndSequence = true
				return []Row{r, row(0, 1), end}, 0
			},
		},
		{
			name: "line and address registers wrap",
			prog: func(a *Assembler, h *Header) ([]Row, uint64) {
				a.AdvanceLine(-2) // 1 - 2 wraps to 2^32-1
				a.SetAddress(1<<64 - 1)
				a.Copy()
				a.AdvancePC(2)
				a.EndSequence()
				end := row(1, 1<<32-1)
				end.EndSequence = true
				return []Row{row(1<<64-1, 1<<32-1), end}, 0
			},
		},
		{
			name: "a program without end_sequence still yields its rows",
			prog: func(a *Assembler, h *Header) ([]Row, uint64) {
				a.Copy()
				return []Row{row(0, 1)}, 0
			},
		},
		{
			name:    "line_range 0",
			edit:    func(h *Header) { h.LineRange = 0 },
			wantErr: ErrFormat,
			prog: func(a *Assembler, h *Header) ([]Row, uint64) {
				return nil, rtFieldOffset(h, uint64(a.start), "line_range")
			},
		},
		{
			name:    "unsupported version 1",
			edit:    func(h *Header) { h.Version = 1 },
			wantErr: ErrUnsupportedVersion,
			prog: func(a *Assembler, h *Header) ([]Row, uint64) {
				return nil, rtFieldOffset(h, uint64(a.start), "header_length") - 2
			},
		},
		{
			name:    "unsupported version 6",
			edit:    func(h *Header) { h.Version = 6 },
			wantErr: ErrUnsupportedVersion,
			only:    func(v rtVariant) bool { return v.version == 5 },
			prog: func(a *Assembler, h *Header) ([]Row, uint64) {
				return nil, rtFieldOffset(h, uint64(a.start), "header_length") - 4
			},
		},
		{
			name:    "truncated LEB128",
			wantErr: ErrTruncated,
			prog: func(a *Assembler, h *Header) ([]Row, uint64) {
				a.Copy()
				a.Raw([]byte{byte(OpAdvancePC)})
				off := a.Offset()
				a.Raw([]byte{0x80, 0x80})
				return []Row{row(0, 1)}, off
			},
		},
		{
			name:    "LEB128 past 64 bits",
			wantErr: ErrOverflow,
			prog: func(a *Assembler, h *Header) ([]Row, uint64) {
				a.Raw([]byte{byte(OpSetColumn)})
				off := a.Offset()
				a.Raw(dwasm.New(false).ULEB(1 << 63).Bytes()[:9])
				a.Raw([]byte{0x82, 0x00}) // bit 64 set in a padded 11-byte LEB
				a.Copy()
				return nil, off
			},
		},
		{
			name:    "truncated SLEB128 in advance_line",
			wantErr: ErrTruncated,
			prog: func(a *Assembler, h *Header) ([]Row, uint64) {
				a.Raw([]byte{byte(OpAdvanceLine)})
				return nil, a.Offset()
			},
		},
		{
			name:    "extended opcode length past the unit",
			wantErr: ErrTruncated,
			prog: func(a *Assembler, h *Header) ([]Row, uint64) {
				a.Copy()
				off := a.Offset() + 1 // the length, after the 0 byte
				a.ExtendedLen(100, []byte{byte(OpSetDiscriminator), 1})
				return []Row{row(0, 1)}, off
			},
		},
		{
			name:    "truncated fixed_advance_pc operand",
			wantErr: ErrTruncated,
			prog: func(a *Assembler, h *Header) ([]Row, uint64) {
				a.Raw([]byte{byte(OpFixedAdvancePC)})
				off := a.Offset()
				a.Raw([]byte{1})
				return nil, off
			},
		},
	}
	for _, c := range cases {
		for _, v := range rtVariants() {
			if c.only != nil && !c.only(v) {
				continue
			}
			name := c.name + "/" + v.String()
			h := v.header()
			if c.edit != nil {
				c.edit(&h)
			}
			a, err := NewAssembler(&h, &AsmOptions{BigEndian: v.big, Line: rtPrefix(t, v)})
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			want, errOff := c.prog(a, &h)
			out := a.Finish()
			got, r, err := rtDecode(out)
			if c.wantErr != nil {
				rtCheckErr(t, name, err, c.wantErr, errOff)
			} else if err != nil {
				t.Errorf("%s: %v", name, err)
				continue
			}
			if d := cmp.Diff(want, got); d != "" && !(len(want) == 0 && len(got) == 0) {
				t.Errorf("%s: rows (-want +got):\n%s", name, d)
			}
			if r != nil && c.name == "define_file adds a file" {
				fs := r.Header().Files
				if f := fs[len(fs)-1]; f.Name != "new.c" || f.MTime != 7 || f.Size != 9 {
					t.Errorf("%s: defined file %+v", name, f)
				}
			}
		}
	}
}

// TestDecodeHeaderLengthErrors covers lengths that lie, which the Reader
// must catch before reading past its container.
func TestDecodeHeaderLengthErrors(t *testing.T) {
	for _, v := range rtVariants() {
		h := v.header()
		prefix := rtPrefix(t, v)

		// header_length one byte past the unit.
		a, err := NewAssembler(&h, &AsmOptions{BigEndian: v.big, Line: prefix})
		if err != nil {
			t.Fatal(err)
		}
		a.Copy()
		out := a.Finish()
		hlOff := rtFieldOffset(&h, out.Offset, "header_length")
		hlEnd := hlOff + 4
		if h.Dwarf64 {
			hlEnd += 4
		}
		bad := out.EndOffset - hlEnd + 1
		a, _ = NewAssembler(&h, &AsmOptions{BigEndian: v.big, Line: prefix, HeaderLength: &bad})
		a.Copy()
		_, _, err = rtDecode(a.Finish())
		rtCheckErr(t, v.String()+"/header_length past unit", err, ErrTruncated, hlOff)

		// header_length exactly to the unit end is fine (an empty program).
		exact := bad - 1
		a, _ = NewAssembler(&h, &AsmOptions{BigEndian: v.big, Line: prefix, HeaderLength: &exact})
		a.Copy()
		if rows, _, err := rtDecode(a.Finish()); err != nil || len(rows) != 0 {
			t.Errorf("%s: header_length to unit end: %d rows, %v", v, len(rows), err)
		}

		// header_length short of the tables.
		short := uint64(3)
		a, _ = NewAssembler(&h, &AsmOptions{BigEndian: v.big, Line: prefix, HeaderLength: &short})
		if _, _, err := rtDecode(a.Finish()); !errors.Is(err, ErrTruncated) {
			t.Errorf("%s: header_length 3: %v", v, err)
		}

		// unit_length one byte past the section.
		a, _ = NewAssembler(&h, &AsmOptions{BigEndian: v.big, Line: prefix})
		a.Copy()
		out = a.Finish()
		il := uint64(4)
		if h.Dwarf64 {
			il = 12
		}
		long := out.EndOffset - out.Offset - il + 1
		a, _ = NewAssembler(&h, &AsmOptions{BigEndian: v.big, Line: prefix, UnitLength: &long})
		a.Copy()
		_, _, err = rtDecode(a.Finish())
		rtCheckErr(t, v.String()+"/unit_length past section", err, ErrTruncated, out.Offset)

		// A unit cut off inside its initial length.
		cut := a.Finish()
		cut.Line = cut.Line[:cut.Offset+2]
		_, _, err = rtDecode(cut)
		rtCheckErr(t, v.String()+"/cut initial length", err, ErrTruncated, out.Offset)
	}
}

// asmAddr encodes an address operand in the assembler's byte order.
func asmAddr(a *Assembler, n int, addr uint64) []byte {
	return dwasm.New(a.opts.BigEndian).Uint(n, addr).Bytes()
}

func rtMust(err error) {
	if err != nil {
		panic(err)
	}
}

// TestDecodeSeveralUnits chains units of different versions and formats in
// one section, each assembled after the previous, and reads them back by
// walking Units.
func TestDecodeSeveralUnits(t *testing.T) {
	for _, big := range []bool{false, true} {
		var sec, lineStr []byte
		var offs []uint64
		var want [][]Row
		for i, v := range rtVariants() {
			if v.big != big {
				continue
			}
			h := v.header()
			if v.version >= 5 {
				h.DirFormats = []EntryFormat{{LNCTPath, uint64(dw.FormLineStrp)}}
			}
			rows := []Row{
				{Address: uint64(0x1000 * (i + 1)), File: 1, Line: uint32(10 + i), IsStmt: true},
				{Address: uint64(0x1000*(i+1) + 0x40), File: 1, Line: uint32(10 + i), IsStmt: true, EndSequence: true},
			}
			out, err := Assemble(&h, rows, &AsmOptions{BigEndian: big, Line: sec, LineStr: lineStr})
			if err != nil {
				t.Fatal(err)
			}
			sec, lineStr = out.Line, out.LineStr
			offs = append(offs, out.Offset)
			want = append(want, rows)
		}
		opts := &Options{BigEndian: big, LineStr: lineStr, AddressSize: 8}
		var got []uint64
		for off, err := range Units(sec, opts) {
			if err != nil {
				t.Fatalf("big=%v: Units: %v", big, err)
			}
			got = append(got, off)
		}
		if !slices.Equal(got, offs) {
			t.Fatalf("big=%v: Units = %#x, want %#x", big, got, offs)
		}
		for i, off := range offs {
			rows, _, err := rtDecode(&Assembled{Line: sec, Offset: off, LineStr: lineStr, bigEndian: big, addressSize: 8})
			if err != nil || !slices.Equal(rows, want[i]) {
				t.Errorf("big=%v: unit %d at %#x: %v\n got %+v\nwant %+v", big, i, off, err, rows, want[i])
			}
		}
	}
}
