package linetable

import (
	"debug/dwarf"
	"debug/elf"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// checkNextRows decodes the unit at off again with NextRows, for several
// buffer sizes, and checks that it yields rows exactly as Next did (want,
// then wantErr, which is io.EOF or the decode error).
func checkNextRows(t *testing.T, data []byte, off uint64, opts *Options, want []Row, wantErr error) {
	t.Helper()
	for _, size := range []int{1, 3, 128} {
		r, err := NewReader(data, off, opts)
		if err != nil {
			t.Fatalf("NewReader: %v", err)
		}
		dst := make([]Row, size)
		var got []Row
		for {
			n, err := r.NextRows(dst)
			if err != nil {
				if n != 0 {
					t.Fatalf("NextRows(%d rows): %d rows with error %v", size, n, err)
				}
				if err != wantErr && (err == io.EOF || wantErr == io.EOF || err.Error() != wantErr.Error()) {
					t.Fatalf("NextRows(%d rows): error %v, Next %v", size, err, wantErr)
				}
				break
			}
			if n == 0 || n > size {
				t.Fatalf("NextRows(%d rows) = %d, nil", size, n)
			}
			got = append(got, dst[:n]...)
			if len(got) > len(want) {
				t.Fatalf("NextRows(%d rows): more rows than Next's %d", size, len(want))
			}
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("NextRows(%d rows) differs from Next (-Next +NextRows):\n%s", size, diff)
		}
		// The end is sticky.
		if n, err := r.NextRows(dst); n != 0 || err == nil {
			t.Fatalf("NextRows(%d rows) after the end = %d, %v", size, n, err)
		}
		if n, err := r.NextRows(nil); n != 0 || err != nil {
			t.Fatalf("NextRows(nil) = %d, %v", n, err)
		}
	}
}

// TestNextRowsFixtures checks NextRows against Next on every unit of every
// fixture (the edge cases and fuzz seeds go through decodeUnit).
func TestNextRowsFixtures(t *testing.T) {
	for _, fx := range elfFixtures(t) {
		for _, off := range unitOffsets(t, fx.line, &fx.opts) {
			checkUnitRows(t, fx.name, fx.line, off, &fx.opts)
		}
	}
}

// checkUnitRows decodes the unit at off of data (named name in failures)
// with Next, checks NextRows against it, and returns Next's rows.
func checkUnitRows(t *testing.T, name string, data []byte, off uint64, opts *Options) []Row {
	t.Helper()
	r, err := NewReader(data, off, opts)
	if err != nil {
		t.Fatalf("%s+%#x: %v", name, off, err)
	}
	var rows []Row
	var row Row
	for {
		if err = r.Next(&row); err != nil {
			break
		}
		rows = append(rows, row)
	}
	checkNextRows(t, data, off, opts, rows, err)
	return rows
}

// TestNextRowsAllocs checks that NextRows allocates nothing per call.
func TestNextRowsAllocs(t *testing.T) {
	fxs := elfFixtures(t)
	fx := fxs[0]
	r, err := NewReader(fx.line, 0, &fx.opts)
	if err != nil {
		t.Fatal(err)
	}
	var dst [64]Row
	allocs := testing.AllocsPerRun(20, func() {
		r.Reset()
		for {
			if _, err := r.NextRows(dst[:]); err != nil {
				if !errors.Is(err, io.EOF) {
					t.Fatal(err)
				}
				return
			}
		}
	})
	if allocs != 0 {
		t.Fatalf("%v allocations per pass", allocs)
	}
}

// TestSpecialTables checks the division-free special-opcode tables against
// the division of [DWARF5 6.2.5.1] for every opcode_base and line_range.
func TestSpecialTables(t *testing.T) {
	r := Reader{minInst: 3}
	for opBase := range 256 {
		for lineRange := 1; lineRange < 256; lineRange++ {
			lineBase := int8(opBase - 128)
			r.specialTables(uint8(opBase), lineBase, uint8(lineRange))
			for op := max(opBase, 1); op < 256; op++ {
				adj := op - opBase
				adv, line := r.spAdv[op], int32(r.sp[op]>>32)
				if adv != uint8(adj/lineRange) || line != int32(lineBase)+int32(adj%lineRange) ||
					uint32(r.sp[op]) != 3*uint32(adv) {
					t.Fatalf("opcode_base %d, line_range %d, opcode %d: advance %d (%d bytes), line %d; want %d, %d",
						opBase, lineRange, op, adv, uint32(r.sp[op]), line, adj/lineRange, int(lineBase)+adj%lineRange)
				}
			}
		}
	}
}

// TestNextRowsOperands checks fill's inline operand decoding (one- and
// two-byte LEB128) against buf.Reader's, through Next, at the boundaries
// of each encoded size, with opcodes ending exactly at the unit's end.
func TestNextRowsOperands(t *testing.T) {
	lines := []int64{0, 1, -1, 63, -64, 64, -65, 8191, -8192, 8192, -8193, 1 << 20, -(1 << 20), 1<<31 - 1, -(1 << 31)}
	pcs := []uint64{0, 1, 127, 128, 16383, 16384, 1 << 40}
	files := []uint64{1, 2, 127, 128, 1 << 20}
	h := twoFileHeader(5)
	for _, cut := range []bool{false, true} {
		out := build(t, h, nil, func(a *Assembler) {
			a.SetAddress(0x1000)
			for _, d := range lines {
				a.AdvanceLine(d)
				a.Copy()
				a.AdvanceLine(d)
				a.NegateStmt()
				a.SpecialOpcode(h.OpcodeBase + 3)
			}
			for _, d := range pcs {
				a.AdvancePC(d)
				a.Copy()
			}
			for _, f := range files {
				a.SetFile(f)
				a.ConstAddPC()
				a.Copy()
			}
			if cut {
				// A program that ends in the middle of an operand.
				a.Raw([]byte{byte(OpAdvanceLine), 0x80})
			} else {
				a.EndSequence()
			}
		})
		rows, r, err := rtDecode(out)
		if r == nil {
			t.Fatal(err)
		}
		if want := 2*len(lines) + len(pcs) + len(files) + 1; len(rows) != want-int(b2u(cut)) {
			t.Fatalf("cut %v: %d rows, want %d (%v)", cut, len(rows), want-int(b2u(cut)), err)
		}
		line := int64(1)
		for i, d := range lines {
			line += d
			if got := rows[2*i].Line; got != uint32(line) {
				t.Errorf("advance_line %d: line %d, want %d", d, int32(got), line)
			}
			line += d + 3 + int64(h.LineBase)
		}
		if err == nil {
			err = io.EOF
		}
		checkNextRows(t, out.Line, out.Offset, out.Options(), rows, err)
	}
}

// TestNextRowsBig checks NextRows against Next, and both against
// debug/dwarf's LineReader, on every unit of the large ELF files that
// LINETABLE_TEST_BIN names (colon-separated; "bench" is the benchmarks'
// cmd/go, once a benchmark run has built it). The fixtures are small;
// these are where NextRows' fast paths run for millions of rows. It takes
// about 15 s on cmd/go's 616 631 rows and 130 s on libradosgw's 5.1 M.
//
//	LINETABLE_TEST_BIN=bench go test ./linetable -run NextRowsBig -v
func TestNextRowsBig(t *testing.T) {
	var paths []string
	for _, p := range filepath.SplitList(os.Getenv("LINETABLE_TEST_BIN")) {
		if p == "bench" {
			p = filepath.Join(os.TempDir(), "symbolize-linetable-bench", "go")
		}
		if p != "" {
			paths = append(paths, p)
		}
	}
	if len(paths) == 0 {
		t.Skip("LINETABLE_TEST_BIN names no binary")
	}
	for _, p := range paths {
		t.Run(filepath.Base(p), func(t *testing.T) {
			fx, err := loadFixture(p)
			if err != nil {
				t.Fatal(err)
			}
			want := map[uint64][]Row{}
			rows := 0
			for _, off := range unitOffsets(t, fx.line, &fx.opts) {
				got := checkUnitRows(t, fx.name, fx.line, off, &fx.opts)
				want[off] = got
				rows += len(got)
			}
			n := compareGoDwarf(t, p, want)
			t.Logf("%d units, %d rows; %d rows compared with debug/dwarf", len(want), rows, n)
		})
	}
}

// compareGoDwarf checks the rows of every unit that debug/dwarf reaches
// from a compilation unit against want (by unit offset), as TestGoDwarf
// does but without file names, and returns the number of rows compared.
func compareGoDwarf(t *testing.T, path string, want map[uint64][]Row) int {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	d, err := f.DWARF()
	if err != nil {
		t.Fatalf("debug/dwarf: %v", err)
	}
	dr := d.Reader()
	rows := 0
	for {
		e, err := dr.Next()
		if err != nil {
			t.Fatalf("debug/dwarf: %v", err)
		}
		if e == nil {
			break
		}
		dr.SkipChildren()
		off, ok := e.Val(dwarf.AttrStmtList).(int64)
		if !ok {
			continue
		}
		lr, err := d.LineReader(e)
		if err != nil || lr == nil {
			t.Fatalf("debug/dwarf LineReader at %#x: %v", off, err)
		}
		w := want[uint64(off)]
		var we dwarf.LineEntry
		for i := 0; ; i++ {
			err := lr.Next(&we)
			if err == io.EOF {
				if i != len(w) {
					t.Fatalf("unit %#x: debug/dwarf has %d rows, we %d", off, i, len(w))
				}
				break
			}
			if err != nil {
				t.Fatalf("unit %#x row %d: debug/dwarf: %v", off, i, err)
			}
			if i >= len(w) {
				t.Fatalf("unit %#x: debug/dwarf has more than our %d rows", off, len(w))
			}
			got := w[i]
			got.File = 0
			exp := Row{Address: we.Address, OpIndex: uint32(we.OpIndex), Line: uint32(we.Line),
				Column: uint32(we.Column), IsStmt: we.IsStmt, BasicBlock: we.BasicBlock,
				EndSequence: we.EndSequence, PrologueEnd: we.PrologueEnd,
				EpilogueBegin: we.EpilogueBegin, ISA: uint32(we.ISA), Discriminator: uint32(we.Discriminator)}
			if got != exp {
				t.Fatalf("unit %#x row %d:\n got %+v\nwant %+v", off, i, got, exp)
			}
			rows++
		}
	}
	return rows
}
