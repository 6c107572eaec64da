package linetable

import (
	"errors"
	"io"
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
			r, err := NewReader(fx.line, off, &fx.opts)
			if err != nil {
				t.Fatalf("%s+%#x: %v", fx.name, off, err)
			}
			var rows []Row
			var row Row
			for {
				if err = r.Next(&row); err != nil {
					break
				}
				rows = append(rows, row)
			}
			checkNextRows(t, fx.line, off, &fx.opts, rows, err)
		}
	}
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
