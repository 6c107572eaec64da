package linetable

import (
	"bytes"
	"errors"
	"fmt"
	"testing"

	"github.com/symbolize-go/symbolize/internal/buf"
	"github.com/symbolize-go/symbolize/internal/dw"
	"github.com/symbolize-go/symbolize/internal/dwasm"
)

// These tests check the assembler's bytes without the decoder, so a bug in
// one cannot hide a bug in the other; roundtrip_test.go checks them against
// each other.

// prog builds expected program bytes.
func asmProg(big bool) *dwasm.Builder { return dwasm.New(big) }

func asmSetAddr(b *dwasm.Builder, n int, addr uint64) *dwasm.Builder {
	return b.U8(0).ULEB(uint64(1+n)).U8(uint8(OpSetAddress)).Uint(n, addr)
}

func asmEndSeq(b *dwasm.Builder) *dwasm.Builder { return b.U8(0).U8(1).U8(uint8(OpEndSequence)) }

func TestAssembleHeaderLayout(t *testing.T) {
	for _, v := range []uint16{2, 3, 4, 5} {
		for _, d64 := range []bool{false, true} {
			for _, big := range []bool{false, true} {
				name := fmt.Sprintf("v%d/dwarf64=%v/big=%v", v, d64, big)
				h := DefaultHeader(v)
				h.Dwarf64 = d64
				h.AddressSize = 4
				h.LineBase = -3
				h.LineRange = 12
				h.MaxOpsPerInst = 1
				out, err := Assemble(&h, nil, &AsmOptions{BigEndian: big, Line: []byte{0xaa, 0xbb, 0xcc}})
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if out.Offset != 3 || out.EndOffset != uint64(len(out.Line)) || !bytes.Equal(out.Line[:3], []byte{0xaa, 0xbb, 0xcc}) {
					t.Errorf("%s: offsets %d..%d of %d", name, out.Offset, out.EndOffset, len(out.Line))
				}
				r := buf.New("linetable", ".debug_line", out.Line, big)
				r.Seek(out.Offset)
				ul, is64 := r.InitialLength()
				if is64 != d64 || r.Offset()+ul != out.EndOffset {
					t.Errorf("%s: unit_length %d (dwarf64 %v) ends at %d, want %d", name, ul, is64, r.Offset()+ul, out.EndOffset)
				}
				if g := r.U16(); g != v {
					t.Errorf("%s: version %d", name, g)
				}
				if v >= 5 {
					if as, ss := r.U8(), r.U8(); as != 4 || ss != 0 {
						t.Errorf("%s: address_size %d seg_sel_size %d", name, as, ss)
					}
				}
				hl := r.Off(d64)
				if r.Offset()+hl != out.ProgramOffset || out.ProgramOffset != out.EndOffset {
					t.Errorf("%s: header_length %d ends at %d, program at %d, unit end %d", name, hl, r.Offset()+hl, out.ProgramOffset, out.EndOffset)
				}
				want := []byte{1}
				if v >= 4 {
					want = append(want, 1)
				}
				want = append(want, 1, 0xfd, 12, 13)
				want = append(want, standardLengths[:]...)
				if g := r.Bytes(uint64(len(want))); !bytes.Equal(g, want) {
					t.Errorf("%s: parameters % x, want % x", name, g, want)
				}
				if r.Err() != nil {
					t.Errorf("%s: %v", name, r.Err())
				}
			}
		}
	}
}

func TestAssembleV4Tables(t *testing.T) {
	h := DefaultHeader(4)
	h.Dirs = []string{"", "/usr/include", "src"}
	h.Files = []File{{}, {Name: "a.c", Dir: 2, MTime: 300, Size: 5}, {Name: "stdio.h", Dir: 1}}
	out, err := Assemble(&h, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := dwasm.New(false).CString("/usr/include").CString("src").U8(0).
		CString("a.c").ULEB(2).ULEB(300).ULEB(5).CString("stdio.h").ULEB(1).ULEB(0).ULEB(0).U8(0).Bytes()
	if g := out.Line[out.ProgramOffset-uint64(len(want)) : out.ProgramOffset]; !bytes.Equal(g, want) {
		t.Errorf("tables\n got % x\nwant % x", g, want)
	}

	h.Files = append(h.Files, File{Name: ""})
	if _, err := Assemble(&h, nil, nil); err == nil {
		t.Error("empty v4 file name accepted")
	}
}

func TestAssembleV5Tables(t *testing.T) {
	const vendor = 0x2001 // DW_LNCT_LLVM_source
	for _, d64 := range []bool{false, true} {
		h := DefaultHeader(5)
		h.Dwarf64 = d64
		h.DirFormats = []EntryFormat{{LNCTPath, uint64(dw.FormLineStrp)}}
		h.FileFormats = []EntryFormat{
			{LNCTPath, uint64(dw.FormStrx1)},
			{LNCTDirectoryIndex, uint64(dw.FormData2)},
			{LNCTMD5, uint64(dw.FormData16)},
			{vendor, uint64(dw.FormLineStrp)},
			{LNCTSize, uint64(dw.FormUdata)},
			{0x2002, uint64(dw.FormBlock)},
		}
		h.Dirs = []string{"/build", "inc"}
		md5 := [16]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}
		h.Files = []File{{Name: "a.c", Dir: 0, MD5: md5, HasMD5: true, Size: 200}, {Name: "b.h", Dir: 1}}
		out, err := Assemble(&h, nil, &AsmOptions{
			LineStr: []byte("x\x00"),
			EntryValue: func(dir bool, i int, f EntryFormat) []byte {
				if !dir && f.Content == 0x2002 && i == 1 {
					return []byte{3, 7, 7, 7}
				}
				return nil
			},
		})
		if err != nil {
			t.Fatal(err)
		}
		if want := "x\x00/build\x00inc\x00"; string(out.LineStr) != want {
			t.Errorf("LineStr = %q, want %q", out.LineStr, want)
		}
		if len(out.StrX) != 2 || out.StrX[0] != "a.c" || out.StrX[1] != "b.h" {
			t.Errorf("StrX = %q", out.StrX)
		}
		w := dwasm.New(false)
		w.U8(1).ULEB(LNCTPath).ULEB(uint64(dw.FormLineStrp)).ULEB(2).Off(d64, 2).Off(d64, 9)
		w.U8(6)
		for _, f := range h.FileFormats {
			w.ULEB(f.Content).ULEB(f.Form)
		}
		w.ULEB(2)
		w.U8(0).U16(0).Raw(md5[:]).Off(d64, 0).ULEB(200).U8(0)
		w.U8(1).U16(1).Zeros(16).Off(d64, 0).ULEB(0).Raw([]byte{3, 7, 7, 7})
		want := w.Bytes()
		if g := out.Line[out.ProgramOffset-uint64(len(want)) : out.ProgramOffset]; !bytes.Equal(g, want) {
			t.Errorf("dwarf64=%v tables\n got % x\nwant % x", d64, g, want)
		}
		if o := out.Options(); o.AddressSize != 0 || string(o.LineStr) != string(out.LineStr) {
			t.Errorf("Options() = %+v", o)
		} else if s, err := o.StrX(1); s != "b.h" || err != nil {
			t.Errorf("StrX(1) = %q, %v", s, err)
		} else if _, err := o.StrX(2); err == nil {
			t.Error("StrX(2) succeeded")
		}
	}

	h := DefaultHeader(5)
	h.FileFormats = []EntryFormat{{LNCTMD5, uint64(dw.FormUdata)}}
	if _, err := Assemble(&h, nil, nil); err == nil {
		t.Error("MD5 as udata accepted")
	}
	h.FileFormats = []EntryFormat{{0x2001, 0x7777}}
	if _, err := Assemble(&h, nil, nil); err == nil {
		t.Error("unknown form without EntryValue accepted")
	}
	h.FileFormats = []EntryFormat{{LNCTDirectoryIndex, uint64(dw.FormData1)}}
	h.Files = []File{{Dir: 300}}
	if _, err := Assemble(&h, nil, nil); err == nil {
		t.Error("directory index 300 as data1 accepted")
	}
}

func TestAssembleStandardLengths(t *testing.T) {
	h := DefaultHeader(4)
	h.OpcodeBase = 10
	h.StandardOpcodeLengths = nil
	out, err := Assemble(&h, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	// opcode_base 10 keeps only the first 9 lengths.
	want := append([]byte{10}, standardLengths[:9]...)
	if !bytes.Contains(out.Line, want) {
		t.Errorf("no % x in % x", want, out.Line)
	}
	h.StandardOpcodeLengths = []uint8{0, 1}
	if _, err := Assemble(&h, nil, nil); err == nil {
		t.Error("2 lengths for opcode_base 10 accepted")
	}
	if l := StandardOpcodeLengths(1); l != nil {
		t.Errorf("StandardOpcodeLengths(1) = %v", l)
	}
	if l := StandardOpcodeLengths(20); len(l) != 19 || l[11] != 1 || l[12] != 0 {
		t.Errorf("StandardOpcodeLengths(20) = %v", l)
	}
}

// TestAssembleEncoding pins the encoder's choices on small cases whose
// shortest encoding is easy to state.
func TestAssembleEncoding(t *testing.T) {
	type tc struct {
		name string
		edit func(h *Header)
		rows []Row
		want func(b *dwasm.Builder)
	}
	// With the default header: special = (dl+5) + 14*adv + 13, and
	// const_add_pc advances (255-13)/14 = 17.
	cases := []tc{
		{
			name: "special opcodes",
			rows: []Row{
				{Address: 0x1000, Line: 1, File: 1, IsStmt: true},
				{Address: 0x1004, Line: 3, File: 1, IsStmt: true},
				{Address: 0x1010, Line: 3, File: 1, IsStmt: true, EndSequence: true},
			},
			want: func(b *dwasm.Builder) {
				b.U8(uint8(OpAdvancePC)).ULEB(0x1000).U8(5 + 13) // 4 bytes beat set_address's 12
				b.U8(7 + 14*4 + 13)
				b.U8(uint8(OpAdvancePC)).ULEB(12)
				asmEndSeq(b)
			},
		},
		{
			name: "const_add_pc",
			rows: []Row{
				{Address: 0x10, Line: 1, File: 1, IsStmt: true},
				{Address: 0x10 + 17 + 3, Line: 2, File: 1, IsStmt: true},
				{Address: 0x40, Line: 2, File: 1, IsStmt: true, EndSequence: true},
			},
			want: func(b *dwasm.Builder) {
				b.U8(5 + 14*16 + 13)
				b.U8(uint8(OpConstAddPC)).U8(6 + 14*3 + 13)
				b.U8(uint8(OpAdvancePC)).ULEB(0x40 - 0x24)
				asmEndSeq(b)
			},
		},
		{
			name: "advance_line",
			rows: []Row{
				{Address: 0x10, Line: 1000, File: 1, IsStmt: true},
				{Address: 0x12, Line: 10, File: 1, IsStmt: true},
				{Address: 0x12, Line: 10, File: 1, IsStmt: true, EndSequence: true},
			},
			want: func(b *dwasm.Builder) {
				b.U8(uint8(OpAdvanceLine)).SLEB(999).U8(5 + 14*16 + 13)
				b.U8(uint8(OpAdvanceLine)).SLEB(-990).U8(5 + 14*2 + 13)
				asmEndSeq(b)
			},
		},
		{
			name: "registers",
			rows: []Row{
				{Address: 0x10, Line: 1, File: 2, Column: 7, ISA: 3, Discriminator: 4, BasicBlock: true, PrologueEnd: true, EpilogueBegin: true},
				{Address: 0x10, Line: 1, File: 2, Column: 7, ISA: 3},
				{Address: 0x10, Line: 1, File: 2, Column: 7, ISA: 3, EndSequence: true},
			},
			want: func(b *dwasm.Builder) {
				b.U8(uint8(OpSetFile)).ULEB(2).U8(uint8(OpSetColumn)).ULEB(7).U8(uint8(OpNegateStmt))
				b.U8(uint8(OpSetISA)).ULEB(3)
				b.U8(0).U8(2).U8(uint8(OpSetDiscriminator)).ULEB(4)
				b.U8(uint8(OpSetBasicBlock)).U8(uint8(OpSetPrologueEnd)).U8(uint8(OpSetEpilogueBegin))
				b.U8(5 + 14*16 + 13)
				b.U8(5 + 13)
				asmEndSeq(b)
			},
		},
		{
			name: "min_inst_length 4: misaligned address by fixed_advance_pc",
			edit: func(h *Header) { h.MinInstLength = 4 },
			rows: []Row{
				{Address: 0x0, Line: 1, File: 1, IsStmt: true},
				{Address: 0x8, Line: 1, File: 1, IsStmt: true},
				{Address: 0xa, Line: 1, File: 1, IsStmt: true, EndSequence: true},
			},
			want: func(b *dwasm.Builder) {
				b.U8(5 + 13).U8(5 + 14*2 + 13)
				b.U8(uint8(OpFixedAdvancePC)).U16(2)
				asmEndSeq(b)
			},
		},
		{
			name: "VLIW: op_index by special opcodes",
			edit: func(h *Header) { h.MaxOpsPerInst = 3; h.MinInstLength = 8 },
			rows: []Row{
				{Address: 0x0, OpIndex: 1, Line: 1, File: 1, IsStmt: true},
				// From (0,1) to (16,0): advance 2*3 + 0 - 1 = 5 operations.
				{Address: 0x10, OpIndex: 0, Line: 1, File: 1, IsStmt: true},
				{Address: 0x10, OpIndex: 2, Line: 1, File: 1, IsStmt: true, EndSequence: true},
			},
			want: func(b *dwasm.Builder) {
				b.U8(5 + 14*1 + 13).U8(5 + 14*5 + 13)
				b.U8(uint8(OpAdvancePC)).ULEB(2)
				asmEndSeq(b)
			},
		},
		{
			name: "opcode_base 4: no set_file but special opcodes start lower",
			edit: func(h *Header) { h.OpcodeBase = 4; h.StandardOpcodeLengths = nil },
			rows: []Row{
				{Address: 0x0, Line: 1, File: 1, IsStmt: true},
				{Address: 0x1, Line: 2, File: 1, IsStmt: true},
				{Address: 0x1, Line: 2, File: 1, IsStmt: true, EndSequence: true},
			},
			want: func(b *dwasm.Builder) {
				b.U8(5 + 4).U8(6 + 14 + 4)
				asmEndSeq(b)
			},
		},
		{
			name: "two sequences, registers reset between",
			rows: []Row{
				{Address: 0x2000, Line: 5, File: 3, IsStmt: true},
				{Address: 0x2000, Line: 5, File: 3, IsStmt: true, EndSequence: true},
				{Address: 0x1000, Line: 5, File: 3, IsStmt: true},
				{Address: 0x1000, Line: 5, File: 3, IsStmt: true, EndSequence: true},
			},
			want: func(b *dwasm.Builder) {
				for _, addr := range []uint64{0x2000, 0x1000} {
					b.U8(uint8(OpSetFile)).ULEB(3)
					b.U8(uint8(OpAdvancePC)).ULEB(addr).U8(4 + 5 + 13)
					asmEndSeq(b)
				}
			},
		},
		{
			name: "end_sequence carries its own line",
			rows: []Row{
				{Address: 0x0, Line: 1, File: 1, IsStmt: true},
				{Address: 0x0, Line: 9, File: 1, IsStmt: true, EndSequence: true},
			},
			want: func(b *dwasm.Builder) {
				b.U8(5 + 13)
				b.U8(uint8(OpAdvanceLine)).SLEB(8)
				asmEndSeq(b)
			},
		},
	}
	for _, c := range cases {
		for _, big := range []bool{false, true} {
			h := DefaultHeader(4)
			if c.edit != nil {
				c.edit(&h)
			}
			out, err := Assemble(&h, c.rows, &AsmOptions{BigEndian: big})
			if err != nil {
				t.Errorf("%s: %v", c.name, err)
				continue
			}
			w := asmProg(big)
			c.want(w)
			if g := out.Line[out.ProgramOffset:]; !bytes.Equal(g, w.Bytes()) {
				t.Errorf("%s (big=%v):\n got % x\nwant % x", c.name, big, g, w.Bytes())
			}
		}
	}
}

func TestAssembleNotEncodable(t *testing.T) {
	seq := func(rows ...Row) []Row { return rows }
	cases := []struct {
		name string
		edit func(h *Header)
		rows []Row
	}{
		{"no end_sequence", nil, seq(Row{Address: 1, Line: 1, File: 1})},
		{"address goes back", nil, seq(Row{Address: 8, Line: 1, File: 1}, Row{Address: 4, Line: 1, File: 1, EndSequence: true})},
		{"op_index without VLIW", nil, seq(Row{Address: 8, OpIndex: 1, Line: 1, File: 1, EndSequence: true})},
		{"op_index goes back", func(h *Header) { h.MaxOpsPerInst = 4 },
			seq(Row{Address: 8, OpIndex: 2, Line: 1, File: 1}, Row{Address: 8, OpIndex: 1, Line: 1, File: 1, EndSequence: true})},
		{"address too wide", func(h *Header) { h.AddressSize = 4 }, seq(Row{Address: 1 << 32, Line: 1, File: 1, EndSequence: true})},
		{"no set_file", func(h *Header) { h.OpcodeBase = 4; h.StandardOpcodeLengths = nil },
			seq(Row{Address: 8, Line: 1, File: 2, EndSequence: true})},
		{"no way to append a row", func(h *Header) { h.OpcodeBase = 1; h.StandardOpcodeLengths = nil; h.LineRange = 0 },
			seq(Row{Address: 8, Line: 1, File: 1}, Row{Address: 8, Line: 1, File: 1, EndSequence: true})},
		{"max_ops 0", func(h *Header) { h.MaxOpsPerInst = 0 }, seq(Row{Address: 8, Line: 1, File: 1, EndSequence: true})},
	}
	for _, c := range cases {
		h := DefaultHeader(4)
		if c.edit != nil {
			c.edit(&h)
		}
		a, err := NewAssembler(&h, nil)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		before := a.Offset()
		err = a.WriteRows(c.rows)
		if !errors.Is(err, ErrNotEncodable) {
			t.Errorf("%s: err = %v, want ErrNotEncodable", c.name, err)
		}
		if a.Offset() != before {
			t.Errorf("%s: %d bytes written on error", c.name, a.Offset()-before)
		}
	}
}

func TestAssembleManual(t *testing.T) {
	for _, big := range []bool{false, true} {
		h := DefaultHeader(3)
		h.AddressSize = 4
		h.OpcodeBase = 16
		h.StandardOpcodeLengths = append(StandardOpcodeLengths(13), 2, 0, 1)
		a, err := NewAssembler(&h, &AsmOptions{BigEndian: big})
		if err != nil {
			t.Fatal(err)
		}
		a.SetAddress(0x400000)
		a.Copy()
		a.AdvancePC(300)
		a.AdvanceLine(-2)
		a.SetFile(2)
		a.SetColumn(129)
		a.NegateStmt()
		a.SetBasicBlock()
		a.ConstAddPC()
		a.FixedAdvancePC(0x1234)
		a.SetPrologueEnd()
		a.SetEpilogueBegin()
		a.SetISA(5)
		a.Standard(13, 1, 200)
		a.Standard(14)
		a.Standard(15, 1<<40)
		if err := a.Special(2, 1); err != nil {
			t.Fatal(err)
		}
		if err := a.Special(200, 0); err == nil {
			t.Error("Special(200, 0) fit in a byte")
		}
		if err := a.Special(0, 9); err == nil {
			t.Error("Special(0, 9) fit with line_range 14")
		}
		a.SpecialOpcode(0xff)
		a.SetDiscriminator(300)
		a.DefineFile("d.c", 1, 2, 3)
		a.Extended(0x80, []byte{1, 2, 3})
		a.ExtendedLen(0, nil)
		a.EndSequence()
		a.Raw([]byte{0xde, 0xad})
		out := a.Finish()

		w := asmProg(big)
		asmSetAddr(w, 4, 0x400000).U8(1)
		w.U8(2).ULEB(300).U8(3).SLEB(-2).U8(4).ULEB(2).U8(5).ULEB(129).U8(6).U8(7).U8(8)
		w.U8(9).U16(0x1234).U8(10).U8(11).U8(12).ULEB(5)
		w.U8(13).ULEB(1).ULEB(200).U8(14).U8(15).ULEB(1 << 40)
		w.U8(6 + 14*2 + 16).U8(0xff)
		w.U8(0).U8(3).U8(4).ULEB(300)
		w.U8(0).U8(1 + 4 + 3).U8(3).CString("d.c").U8(1).U8(2).U8(3)
		w.U8(0).U8(4).U8(0x80).Raw([]byte{1, 2, 3})
		w.U8(0).U8(0)
		asmEndSeq(w).Raw([]byte{0xde, 0xad})
		if g := out.Line[out.ProgramOffset:]; !bytes.Equal(g, w.Bytes()) {
			t.Errorf("big=%v:\n got % x\nwant % x", big, g, w.Bytes())
		}
		if o := out.Options(); o.AddressSize != 4 || o.BigEndian != big {
			t.Errorf("Options() = %+v", o)
		}
	}
}

func TestAssembleLengthOverrides(t *testing.T) {
	for _, d64 := range []bool{false, true} {
		h := DefaultHeader(4)
		h.Dwarf64 = d64
		out, err := Assemble(&h, nil, &AsmOptions{UnitLength: new(uint64(0x1000)), HeaderLength: new(uint64(7))})
		if err != nil {
			t.Fatal(err)
		}
		r := buf.New("linetable", ".debug_line", out.Line, false)
		if l, _ := r.InitialLength(); l != 0x1000 {
			t.Errorf("unit_length %#x", l)
		}
		r.U16()
		if l := r.Off(d64); l != 7 {
			t.Errorf("header_length %d", l)
		}
	}
}

// ExampleAssemble builds a two-row line program and shows the opcodes the
// assembler chose.
func ExampleAssemble() {
	h := DefaultHeader(4)
	h.AddressSize = 4
	rows := []Row{
		{Address: 0x401000, File: 1, Line: 10, IsStmt: true},
		{Address: 0x401004, File: 1, Line: 11, IsStmt: true, PrologueEnd: true},
		{Address: 0x401009, File: 1, Line: 11, IsStmt: true, EndSequence: true},
	}
	out, err := Assemble(&h, rows, &AsmOptions{SetAddressFirst: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("% x\n", out.Line[out.ProgramOffset:])
	// DW_LNE_set_address 0x401000; DW_LNS_advance_line 9; special 0x12 (row);
	// DW_LNS_set_prologue_end; special 0x4b (address += 4, line += 1, row);
	// DW_LNS_advance_pc 5; DW_LNE_end_sequence.

	// Output:
	// 00 05 02 00 10 40 00 03 09 12 0a 4b 02 05 00 01 01
}
