package linetable

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/symbolize-go/symbolize/internal/dw"
)

// rowsOf decodes every row of the unit at off, failing the test on error.
func rowsOf(t *testing.T, data []byte, off uint64, opts *Options) []Row {
	t.Helper()
	r, err := NewReader(data, off, opts)
	if err != nil {
		t.Fatalf("NewReader: %v", err)
	}
	var rows []Row
	for row, err := range r.All() {
		if err != nil {
			t.Fatalf("Next: %v", err)
		}
		rows = append(rows, row)
	}
	return rows
}

// sampleRows is a two-sequence program exercising every register.
func sampleRows(maxOps uint8) []Row {
	op := uint32(0)
	if maxOps > 1 {
		op = 1
	}
	return []Row{
		{Address: 0x1000, File: 1, Line: 1, IsStmt: true},
		{Address: 0x1000, File: 1, Line: 3, Column: 5, IsStmt: true, PrologueEnd: true},
		{Address: 0x1004, OpIndex: op, File: 1, Line: 2, Column: 5, Discriminator: 3, BasicBlock: true},
		{Address: 0x1010, File: 2, Line: 200, Column: 1, ISA: 2, EpilogueBegin: true},
		{Address: 0x1400, File: 2, Line: 199, Column: 1, ISA: 2},
		{Address: 0x1410, File: 2, Line: 199, Column: 1, ISA: 2, EndSequence: true},
		{Address: 0x800, File: 1, Line: 40, IsStmt: true},
		{Address: 0x900, File: 1, Line: 1, IsStmt: true, EndSequence: true},
	}
}

func twoFileHeader(version uint16) Header {
	h := DefaultHeader(version)
	if version >= 5 {
		h.Dirs = append(h.Dirs, "inc")
		h.Files = append(h.Files, File{Name: "a.c", Dir: 0}, File{Name: "b.h", Dir: 1})
	} else {
		h.Dirs = append(h.Dirs, "inc")
		h.Files = append(h.Files, File{Name: "b.h", Dir: 2})
	}
	return h
}

// TestRoundTrip assembles the same rows under every version, both DWARF
// formats and both byte orders, and decodes them back.
func TestRoundTrip(t *testing.T) {
	for _, version := range []uint16{2, 3, 4, 5} {
		for _, dwarf64 := range []bool{false, true} {
			for _, big := range []bool{false, true} {
				for _, maxOps := range []uint8{1, 4} {
					if maxOps > 1 && version < 4 {
						continue
					}
					name := fmt.Sprintf("v%d/dwarf64=%v/big=%v/maxops=%d", version, dwarf64, big, maxOps)
					t.Run(name, func(t *testing.T) {
						h := twoFileHeader(version)
						h.Dwarf64 = dwarf64
						h.MaxOpsPerInst = maxOps
						if version < 4 {
							h.MaxOpsPerInst = 0
						}
						want := sampleRows(maxOps)
						// A unit before ours checks absolute offsets.
						prev, err := Assemble(ptr(DefaultHeader(4)), nil, &AsmOptions{BigEndian: big})
						if err != nil {
							t.Fatal(err)
						}
						asm, err := Assemble(&h, want, &AsmOptions{BigEndian: big, Line: prev.Line})
						if err != nil {
							t.Fatal(err)
						}
						opts := asm.Options()
						got := rowsOf(t, asm.Line, asm.Offset, opts)
						if diff := cmp.Diff(want, got); diff != "" {
							t.Fatalf("rows (-want +got):\n%s", diff)
						}
						r, _ := NewReader(asm.Line, asm.Offset, opts)
						hd := r.Header()
						if hd.Offset != asm.Offset || hd.ProgramOffset != asm.ProgramOffset || hd.EndOffset != asm.EndOffset ||
							hd.Dwarf64 != dwarf64 || hd.Version != version {
							t.Errorf("header %+v, assembled %+v", hd, asm)
						}
						if diff := cmp.Diff(h.Dirs, hd.Dirs); diff != "" {
							t.Errorf("dirs (-want +got):\n%s", diff)
						}
						if diff := cmp.Diff(h.Files, hd.Files); diff != "" {
							t.Errorf("files (-want +got):\n%s", diff)
						}
						var offs []uint64
						for off, err := range Units(asm.Line, opts) {
							if err != nil {
								t.Fatal(err)
							}
							offs = append(offs, off)
						}
						if fmt.Sprint(offs) != fmt.Sprint([]uint64{0, asm.Offset}) {
							t.Errorf("Units = %v", offs)
						}
						if next, err := NextUnit(asm.Line, asm.Offset, opts); err != nil || next != uint64(len(asm.Line)) {
							t.Errorf("NextUnit = %d, %v", next, err)
						}
					})
				}
			}
		}
	}
}

func ptr[T any](v T) *T { return &v }

func u32(v int) uint32 { return uint32(v) }

// fileValue returns an AsmOptions.EntryValue that writes p for every file
// entry field and lets the assembler write directories.
func fileValue(p []byte) func(bool, int, EntryFormat) []byte {
	return func(dir bool, _ int, _ EntryFormat) []byte {
		if dir {
			return nil
		}
		return p
	}
}

// build assembles a unit whose program is written by prog.
func build(t *testing.T, h Header, aopts *AsmOptions, prog func(a *Assembler)) *Assembled {
	t.Helper()
	a, err := NewAssembler(&h, aopts)
	if err != nil {
		t.Fatal(err)
	}
	prog(a)
	return a.Finish()
}

func TestVLIW(t *testing.T) {
	h := DefaultHeader(4)
	h.MaxOpsPerInst = 3
	h.MinInstLength = 4
	asm := build(t, h, nil, func(a *Assembler) {
		a.SetAddress(0x100)
		a.AdvancePC(2) // op_index 2
		a.Copy()
		a.AdvancePC(2) // 4 ops: address +4, op_index 1
		a.Copy()
		a.FixedAdvancePC(3) // op_index reset
		a.Copy()
		a.AdvancePC(1<<63 + 1) // no overflow of op_index + advance
		a.Copy()
	})
	got := rowsOf(t, asm.Line, 0, asm.Options())
	want := []uint64{0x100, 2, 0x104, 1, 0x107, 0}
	for i := 0; i < 3; i++ {
		if got[i].Address != want[2*i] || uint64(got[i].OpIndex) != want[2*i+1] {
			t.Errorf("row %d: %#x op %d, want %#x op %d", i, got[i].Address, got[i].OpIndex, want[2*i], want[2*i+1])
		}
	}
	// (0 + 2^63+1) ops from op_index 0 at 3 per instruction.
	adv := uint64(1<<63+1) / 3
	op := uint64(1<<63+1) % 3
	if got[3].Address != 0x107+4*adv || uint64(got[3].OpIndex) != op {
		t.Errorf("big advance: %#x op %d", got[3].Address, got[3].OpIndex)
	}
}

// TestMaxOpsZero: maximum_operations_per_instruction 0 acts as 1, as in
// LLVM 14.
func TestMaxOpsZero(t *testing.T) {
	h := DefaultHeader(4)
	h.MaxOpsPerInst = 0
	asm := build(t, h, nil, func(a *Assembler) {
		a.AdvancePC(5)
		a.Copy()
	})
	if got := rowsOf(t, asm.Line, 0, asm.Options()); got[0].Address != 5 || got[0].OpIndex != 0 {
		t.Errorf("row %+v", got[0])
	}
}

func TestOpcodeBase(t *testing.T) {
	t.Run("below13", func(t *testing.T) {
		// DWARF 2 producers used opcode_base 10: 10, 11 and 12 are special.
		h := DefaultHeader(2)
		h.OpcodeBase = 10
		h.StandardOpcodeLengths = nil
		asm := build(t, h, nil, func(a *Assembler) {
			a.SpecialOpcode(10) // adjusted 0: address +0, line -5
			a.SpecialOpcode(12) // adjusted 2: line -3
			a.ConstAddPC()      // (255-10)/14 = 17
			a.Copy()
		})
		got := rowsOf(t, asm.Line, 0, asm.Options())
		if len(got) != 3 || got[0].Line != u32(1-5) || got[1].Line != u32(1-5-3) || got[2].Address != 17 {
			t.Errorf("rows %+v", got)
		}
	})
	t.Run("vendor", func(t *testing.T) {
		h := DefaultHeader(3)
		h.OpcodeBase = 15
		h.StandardOpcodeLengths = append(StandardOpcodeLengths(13), 2, 0)
		asm := build(t, h, nil, func(a *Assembler) {
			a.Standard(13, 1<<40, 7) // two ULEB operands, skipped
			a.Standard(14)
			a.SpecialOpcode(15 + 5 + 14*2) // line +0, address +2
		})
		got := rowsOf(t, asm.Line, 0, asm.Options())
		if len(got) != 1 || got[0].Address != 2 || got[0].Line != 1 {
			t.Errorf("rows %+v", got)
		}
	})
	t.Run("misdeclared", func(t *testing.T) {
		// A known opcode keeps its meaning whatever length is declared,
		// as in LLVM 14.
		h := DefaultHeader(4)
		h.StandardOpcodeLengths = StandardOpcodeLengths(13)
		h.StandardOpcodeLengths[OpCopy-1] = 3
		asm := build(t, h, nil, func(a *Assembler) { a.Copy(); a.Copy() })
		if got := rowsOf(t, asm.Line, 0, asm.Options()); len(got) != 2 {
			t.Errorf("rows %+v", got)
		}
	})
	for _, base := range []uint8{0, 1} {
		t.Run(fmt.Sprint("base", base), func(t *testing.T) {
			h := DefaultHeader(4)
			h.OpcodeBase = base
			h.StandardOpcodeLengths = nil
			asm := build(t, h, nil, func(a *Assembler) {
				a.SpecialOpcode(1) // special, even though it is DW_LNS_copy's number
				a.EndSequence()    // still extended
			})
			got := rowsOf(t, asm.Line, 0, asm.Options())
			if len(got) != 2 || !got[1].EndSequence {
				t.Fatalf("rows %+v", got)
			}
			adj := 1 - int(base)
			if got[0].Address != uint64(adj/14) || got[0].Line != uint32(1-5+adj%14) {
				t.Errorf("row %+v", got[0])
			}
		})
	}
}

func TestExtended(t *testing.T) {
	h := DefaultHeader(4)
	asm := build(t, h, nil, func(a *Assembler) {
		a.SetAddress(0x4000)
		a.ExtendedLen(0, nil)                                    // zero length: no-op
		a.Extended(0x80, []byte{1, 2, 3})                        // unknown: skipped
		a.Extended(OpSetAddress, []byte{1, 2, 3})                // 3-byte address: ignored, as in LLVM
		a.Extended(OpSetDiscriminator, []byte{0x85, 0x01, 0xff}) // length wins over the operand
		a.DefineFile("def.c", 1, 2, 3)
		a.SetFile(2)
		a.Copy()
		a.Extended(OpSetAddress, []byte{0x10, 0x20, 0x00, 0x00}) // 4-byte operand under address_size 8
		a.Copy()
	})
	r, err := NewReader(asm.Line, 0, asm.Options())
	if err != nil {
		t.Fatal(err)
	}
	var row Row
	if err := r.Next(&row); err != nil {
		t.Fatal(err)
	}
	if row.Address != 0x4000 || row.Discriminator != 0x85 || row.File != 2 {
		t.Errorf("row %+v", row)
	}
	if n := len(r.Header().Files); n != 3 || r.Header().Files[2] != (File{Name: "def.c", Dir: 1, MTime: 2, Size: 3}) {
		t.Errorf("files %+v", r.Header().Files)
	}
	if err := r.Next(&row); err != nil || row.Address != 0x2010 || row.Discriminator != 0 {
		t.Errorf("row %+v, %v", row, err)
	}
	if err := r.Next(&row); err != io.EOF {
		t.Errorf("Next = %v, want EOF", err)
	}
	if err := r.Next(&row); err != io.EOF {
		t.Errorf("Next after EOF = %v", err)
	}
	r.Reset()
	if n := len(r.Header().Files); n != 2 {
		t.Errorf("after Reset, %d files", n)
	}
	if err := r.Next(&row); err != nil || row.Address != 0x4000 {
		t.Errorf("after Reset: %+v, %v", row, err)
	}
}

// TestRegisterResets checks what each row and end_sequence clears
// [DWARF5 6.2.5.1-3].
func TestRegisterResets(t *testing.T) {
	h := DefaultHeader(4)
	h.DefaultIsStmt = false
	asm := build(t, h, nil, func(a *Assembler) {
		a.SetAddress(0x10)
		a.SetFile(3)
		a.SetColumn(9)
		a.SetISA(4)
		a.NegateStmt()
		a.SetBasicBlock()
		a.SetPrologueEnd()
		a.SetEpilogueBegin()
		a.SetDiscriminator(6)
		a.AdvanceLine(10)
		a.Copy()
		a.Copy()
		a.EndSequence()
		a.Copy()
	})
	got := rowsOf(t, asm.Line, 0, asm.Options())
	want := []Row{
		{Address: 0x10, File: 3, Line: 11, Column: 9, ISA: 4, IsStmt: true, BasicBlock: true, PrologueEnd: true, EpilogueBegin: true, Discriminator: 6},
		{Address: 0x10, File: 3, Line: 11, Column: 9, ISA: 4, IsStmt: true},
		{Address: 0x10, File: 3, Line: 11, Column: 9, ISA: 4, IsStmt: true, EndSequence: true},
		{File: 1, Line: 1},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
}

func TestWrap(t *testing.T) {
	// Addresses and lines wrap rather than fail, as in llvm-dwarfdump.
	h := DefaultHeader(4)
	asm := build(t, h, nil, func(a *Assembler) {
		a.SetAddress(1<<64 - 1)
		a.AdvancePC(2)
		a.AdvanceLine(-3)
		a.Copy()
	})
	got := rowsOf(t, asm.Line, 0, asm.Options())
	if got[0].Address != 1 || got[0].Line != 1<<32-2 {
		t.Errorf("row %+v", got[0])
	}
}

func TestV5Forms(t *testing.T) {
	h := DefaultHeader(5)
	h.DirFormats = []EntryFormat{{LNCTPath, uint64(dw.FormLineStrp)}}
	h.Dirs = []string{"/comp", "/usr/include", "rel"}
	h.FileFormats = []EntryFormat{
		{LNCTPath, uint64(dw.FormStrx1)},
		{LNCTDirectoryIndex, uint64(dw.FormData2)},
		{0x2001, uint64(dw.FormString)}, // DW_LNCT_LLVM_source: skipped by form
		{LNCTTimestamp, uint64(dw.FormData4)},
		{LNCTSize, uint64(dw.FormUdata)},
		{LNCTMD5, uint64(dw.FormData16)},
	}
	md5 := [16]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}
	h.Files = []File{
		{Name: "main.c", Dir: 0, MTime: 7, Size: 100, MD5: md5, HasMD5: true},
		{Name: "stdio.h", Dir: 1, MD5: md5, HasMD5: true},
		{Name: "x.h", Dir: 2, MD5: md5, HasMD5: true},
	}
	asm := build(t, h, &AsmOptions{EntryValue: func(dir bool, i int, f EntryFormat) []byte {
		if f.Content == 0x2001 {
			return []byte("int main(){}\x00")
		}
		return nil
	}}, func(a *Assembler) {})
	r, err := NewReader(asm.Line, 0, asm.Options())
	if err != nil {
		t.Fatal(err)
	}
	hd := r.Header()
	if diff := cmp.Diff(h.Dirs, hd.Dirs); diff != "" {
		t.Errorf("dirs (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(h.Files, hd.Files); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}

	// Paths through .debug_str as well.
	h.DirFormats = []EntryFormat{{LNCTPath, uint64(dw.FormStrp)}}
	asm = build(t, h, nil, func(a *Assembler) {})
	r, err = NewReader(asm.Line, 0, asm.Options())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(h.Dirs, r.Header().Dirs); diff != "" {
		t.Errorf("strp dirs (-want +got):\n%s", diff)
	}
	// No StrX resolver: names are empty, not an error.
	opts := *asm.Options()
	opts.StrX = nil
	r, err = NewReader(asm.Line, 0, &opts)
	if err != nil || r.Header().Files[0].Name != "" {
		t.Errorf("without StrX: %v, %+v", err, r.Header().Files)
	}
	// A failing resolver is an error that wraps its cause.
	cause := errors.New("no str_offsets_base")
	opts.StrX = func(uint64) (string, error) { return "", cause }
	if _, err := NewReader(asm.Line, 0, &opts); !errors.Is(err, cause) {
		t.Errorf("failing StrX: %v", err)
	}
}

// TestBadInput checks the typed errors that malformed units produce, and
// where they point.
func TestBadInput(t *testing.T) {
	type tc struct {
		name   string
		data   []byte
		opts   *Options
		header bool   // the error comes from NewReader, else from Next
		want   error  // sentinel
		off    uint64 // expected DecodeError.Offset
		msg    string // substring of the message
	}
	var cases []tc
	add := func(name string, h Header, aopts *AsmOptions, prog func(a *Assembler), header bool, want error, off func(*Assembled) uint64, msg string) {
		if aopts == nil {
			aopts = &AsmOptions{}
		}
		a, err := NewAssembler(&h, aopts)
		if err != nil {
			t.Fatal(err)
		}
		if prog != nil {
			prog(a)
		}
		asm := a.Finish()
		o := uint64(0) // 0: offset not checked
		if off != nil {
			o = off(asm)
		}
		cases = append(cases, tc{name, asm.Line, asm.Options(), header, want, o, msg})
	}
	h4 := DefaultHeader(4)
	add("unit_length past section", h4, &AsmOptions{UnitLength: ptr(uint64(1000))}, nil, true, ErrTruncated,
		func(*Assembled) uint64 { return 0 }, "unit_length 0x3e8 reaches past the section end")
	add("header_length past unit", h4, &AsmOptions{HeaderLength: ptr(uint64(1000))}, nil, true, ErrTruncated,
		func(*Assembled) uint64 { return 6 }, "header_length")
	short := uint64(3)
	add("header_length short of the tables", h4, &AsmOptions{HeaderLength: &short}, nil, true, ErrTruncated, nil, "")
	hr := h4
	hr.LineRange = 0
	add("line_range 0", hr, nil, nil, true, ErrFormat, func(*Assembled) uint64 { return 4 + 2 + 4 + 4 }, "linetable: .debug_line+0xe: line_range is 0")
	for _, v := range []uint16{0, 1, 6, 0xffff} {
		hv := h4
		hv.Version = v
		add(fmt.Sprint("version ", v), hv, nil, nil, true, ErrUnsupportedVersion, func(*Assembled) uint64 { return 4 }, "unsupported version")
	}
	h64 := h4
	h64.Dwarf64 = true
	add("dwarf64 unit_length past section", h64, &AsmOptions{UnitLength: ptr(uint64(1 << 62))}, nil, true, ErrTruncated,
		func(*Assembled) uint64 { return 0 }, "")
	add("truncated LEB", h4, nil, func(a *Assembler) { a.Raw([]byte{byte(OpAdvancePC), 0x80, 0x80}) }, false, ErrTruncated,
		func(a *Assembled) uint64 { return a.ProgramOffset + 1 }, "unterminated LEB128")
	add("overlong LEB", h4, nil, func(a *Assembler) {
		a.Raw([]byte{byte(OpAdvancePC), 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f})
	}, false, ErrOverflow, func(a *Assembled) uint64 { return a.ProgramOffset + 1 }, "")
	add("extended length past unit", h4, nil, func(a *Assembler) { a.ExtendedLen(50, []byte{byte(OpSetAddress)}) }, false, ErrTruncated,
		func(a *Assembled) uint64 { return a.ProgramOffset + 1 }, "extended opcode length")
	add("define_file unterminated", h4, nil, func(a *Assembler) {
		a.Raw([]byte{0, 4, byte(OpDefineFile), 'a', 'b', 'c'})
	}, false, ErrTruncated, nil, "")
	add("fixed_advance_pc truncated", h4, nil, func(a *Assembler) { a.Raw([]byte{byte(OpFixedAdvancePC), 1}) }, false, ErrTruncated, nil, "")
	h5 := DefaultHeader(5)
	h5.FileFormats = []EntryFormat{{LNCTPath, 0x99}}
	add("unknown form", h5, &AsmOptions{EntryValue: fileValue([]byte{0x41})}, nil, true, ErrFormat, nil, "unknown form")
	h5 = DefaultHeader(5)
	h5.FileFormats = []EntryFormat{{LNCTPath, uint64(dw.FormLineStrp)}}
	add("line_strp out of range", h5, &AsmOptions{EntryValue: fileValue([]byte{0xff, 0, 0, 0})}, nil, true, ErrFormat, nil, "outside .debug_line_str")
	h5 = DefaultHeader(5)
	h5.FileFormats = []EntryFormat{{LNCTPath, uint64(dw.FormData1)}}
	add("path as data1", h5, &AsmOptions{EntryValue: fileValue([]byte{1})}, nil, true, ErrFormat, nil, "DW_LNCT_path")
	h5 = DefaultHeader(5)
	h5.FileFormats = []EntryFormat{{LNCTMD5, uint64(dw.FormUdata)}}
	add("md5 as udata", h5, &AsmOptions{EntryValue: fileValue([]byte{1})}, nil, true, ErrFormat, nil, "DW_LNCT_MD5")
	h5 = DefaultHeader(5)
	h5.FileFormats = nil
	h5.Files = make([]File, 1<<17) // zero-width entries, too many
	add("zero-width count", h5, nil, nil, true, ErrLimit, nil, "zero width")

	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, err := NewReader(c.data, 0, c.opts)
			if !c.header {
				if err != nil {
					t.Fatalf("NewReader: %v", err)
				}
				var row Row
				for err == nil {
					err = r.Next(&row)
				}
				if err2 := r.Next(&row); err2 != err {
					t.Errorf("error not sticky: %v then %v", err, err2)
				}
				if _, err2 := NewTable(c.data, 0, c.opts); err2 == nil || err2.Error() != err.Error() {
					t.Errorf("NewTable: %v, Reader: %v", err2, err)
				}
			}
			var de *DecodeError
			if !errors.As(err, &de) {
				t.Fatalf("err = %v (%T), want *DecodeError", err, err)
			}
			if !errors.Is(err, c.want) {
				t.Errorf("err = %v, want %v", err, c.want)
			}
			if de.Package != "linetable" || de.Section != ".debug_line" {
				t.Errorf("err = %#v", de)
			}
			if c.off != 0 && de.Offset != c.off {
				t.Errorf("offset %#x, want %#x (%v)", de.Offset, c.off, err)
			}
			if !strings.Contains(err.Error(), c.msg) {
				t.Errorf("err = %q, want it to contain %q", err, c.msg)
			}
		})
	}
}

func TestUnitsError(t *testing.T) {
	good, _ := Assemble(ptr(DefaultHeader(4)), nil, nil)
	data := append(append([]byte{}, good.Line...), 0xf0, 0xff, 0xff, 0xff) // reserved initial length
	var offs []uint64
	var last error
	for off, err := range Units(data, nil) {
		offs = append(offs, off)
		last = err
	}
	if len(offs) != 2 || offs[1] != uint64(len(good.Line)) || !errors.Is(last, ErrFormat) {
		t.Errorf("Units = %v, %v", offs, last)
	}
	if _, err := NextUnit(data, uint64(len(data))+1, nil); !errors.Is(err, ErrTruncated) {
		t.Errorf("NextUnit past end: %v", err)
	}
}

// TestNextAllocs: once the header is decoded, rows cost no allocations.
func TestNextAllocs(t *testing.T) {
	h := twoFileHeader(4)
	asm, err := Assemble(&h, sampleRows(1), nil)
	if err != nil {
		t.Fatal(err)
	}
	r, err := NewReader(asm.Line, 0, asm.Options())
	if err != nil {
		t.Fatal(err)
	}
	var row Row
	n := testing.AllocsPerRun(100, func() {
		r.Reset()
		for r.Next(&row) == nil {
		}
	})
	if n != 0 {
		t.Errorf("%v allocations per program", n)
	}
}

func TestFilePath(t *testing.T) {
	v4 := Header{Version: 4,
		Dirs: []string{"", "/usr/include", "sub", "C:\\win"},
		Files: []File{{}, {Name: "a.c"}, {Name: "stdio.h", Dir: 1}, {Name: "x.h", Dir: 2},
			{Name: "/abs/y.h", Dir: 2}, {Name: "z.h", Dir: 9}, {Name: "w.h", Dir: 3}, {Name: "", Dir: 2},
			{Name: "../up.h", Dir: 2}, {Name: `D:\n.h`}}}
	v5 := Header{Version: 5,
		Dirs: []string{"/comp", "/usr/include", "sub", "/trail/"},
		Files: []File{{Name: "a.c"}, {Name: "stdio.h", Dir: 1}, {Name: "x.h", Dir: 2},
			{Name: "y.h", Dir: 9}, {Name: "/t.h", Dir: 3}, {Name: "u.h", Dir: 3}}}
	v5rel := Header{Version: 5, Dirs: []string{"."}, Files: []File{{Name: "<autogenerated>"}}}
	cases := []struct {
		h       *Header
		idx     uint64
		compDir string
		want    string
		ok      bool
	}{
		{&v4, 0, "/c", "", false},
		{&v4, 1, "/c", "/c/a.c", true},
		{&v4, 1, "", "a.c", true},
		{&v4, 2, "/c", "/usr/include/stdio.h", true},
		{&v4, 3, "/c", "/c/sub/x.h", true},
		{&v4, 3, "/c/", "/c/sub/x.h", true},
		{&v4, 4, "/c", "/abs/y.h", true},
		{&v4, 5, "/c", "/c/z.h", true}, // directory out of range: none
		{&v4, 6, "/c", "C:\\win/w.h", true},
		{&v4, 7, "/c", "/c/sub/", true}, // LLVM's append leaves the separator
		{&v4, 8, "/c", "/c/sub/../up.h", true},
		{&v4, 9, "/c", `D:\n.h`, true},
		{&v4, 10, "/c", "", false},
		{&v5, 0, "/c", "/comp/a.c", true}, // directory 0 is the comp dir: no prefix
		{&v5, 1, "/c", "/usr/include/stdio.h", true},
		{&v5, 2, "/c", "/c/sub/x.h", true},
		{&v5, 3, "/c", "/c/y.h", true},
		{&v5, 4, "/c", "/t.h", true},
		{&v5, 5, "/c", "/trail/u.h", true},
		{&v5, 6, "/c", "", false},
		// LLVM 14 prepends the comp dir even to DWARF 5 directory 0 when
		// that is relative: Go's "." gives "././<autogenerated>".
		{&v5rel, 0, ".", "././<autogenerated>", true},
	}
	for _, c := range cases {
		got, ok := c.h.FilePath(c.idx, c.compDir)
		if got != c.want || ok != c.ok {
			t.Errorf("v%d FilePath(%d, %q) = %q, %v; want %q, %v", c.h.Version, c.idx, c.compDir, got, ok, c.want, c.ok)
		}
	}
	for _, c := range []struct {
		p   string
		abs bool
	}{{"/a", true}, {"a", false}, {"", false}, {`C:\a`, true}, {"c:/a", true}, {"C:a", false}, {`\a`, false},
		{`\\host\share`, true}, {`\\host`, false}, {`\\\x`, false}, {"//host/x", true}, {"1:/a", false}} {
		if got := isAbsPath(c.p); got != c.abs {
			t.Errorf("isAbsPath(%q) = %v", c.p, got)
		}
	}
}

// TestNameBudget: names from the string sections are capped, so that a
// small header cannot copy out many long overlapping strings.
func TestNameBudget(t *testing.T) {
	h := DefaultHeader(5)
	h.FileFormats = []EntryFormat{{LNCTPath, uint64(dw.FormLineStrp)}}
	h.Files = []File{{Name: "aaaaaaaaaa.c"}, {Name: "bbbbbbbbbb.c"}}
	asm := build(t, h, nil, func(a *Assembler) {})
	opts := *asm.Options()
	opts.MaxNameBytes = 20
	if _, err := NewReader(asm.Line, 0, &opts); !errors.Is(err, ErrLimit) {
		t.Errorf("budget 20: %v", err)
	}
	opts.MaxNameBytes = 30
	if _, err := NewReader(asm.Line, 0, &opts); err != nil {
		t.Errorf("budget 30: %v", err)
	}
	// The default budget: unterminated strings are ErrFormat.
	opts.MaxNameBytes = 0
	opts.LineStr = []byte("aaaaaaaaaa.c")
	if _, err := NewReader(asm.Line, 0, &opts); !errors.Is(err, ErrFormat) {
		t.Errorf("unterminated: %v", err)
	}
}
