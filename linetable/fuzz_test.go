package linetable

import (
	"errors"
	"io"
	"reflect"
	"slices"
	"testing"
)

// FuzzDecode decodes arbitrary bytes as a .debug_line section: every unit's
// header, every row, the Table and its lookups, and every file path. The
// input doubles as .debug_line_str and .debug_str so that string offsets
// resolve to something. It checks that nothing panics or loops, that errors
// are *DecodeErrors, and that the Table agrees with the stream.
//
// Seeds: the units under testdata/fuzz/FuzzDecode, assembled edge cases,
// and the first units of the ELF fixtures' .debug_line sections.
func FuzzDecode(f *testing.F) {
	for _, s := range assembledSeeds(f) {
		f.Add(s, false)
	}
	// Of each fixture, the first unit alone where it fits in 1 KiB: the
	// fuzzer minimizes every input that finds new coverage, at a cost
	// quadratic in its length, and runs nothing new meanwhile (whole
	// sections of 4-64 KiB held it to about a thousand executions a
	// second).
	seen := map[string]bool{}
	for _, fx := range findFixtures(f) {
		next, err := NextUnit(fx.line, 0, &fx.opts)
		if d := fx.line[:min(next, uint64(len(fx.line)))]; err == nil && len(d) <= 1<<10 && !seen[string(d)] {
			seen[string(d)] = true
			f.Add(d, fx.opts.BigEndian)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte, big bool) {
		opts := &Options{BigEndian: big, LineStr: data, Str: data,
			StrX: func(i uint64) (string, error) {
				if i&1 != 0 {
					return "", errors.New("odd index")
				}
				return "strx", nil
			}}
		units := 0
		for off, err := range Units(data, opts) {
			if err != nil {
				checkErr(t, err)
				break
			}
			if units++; units > 64 {
				break
			}
			decodeUnit(t, data, off, opts)
		}
	})
}

func checkErr(t *testing.T, err error) {
	t.Helper()
	var de *DecodeError
	if !errors.As(err, &de) {
		t.Fatalf("error %v (%T) is not a *DecodeError", err, err)
	}
	if de.Package != "linetable" || de.Section != ".debug_line" {
		t.Fatalf("error %#v", de)
	}
}

func decodeUnit(t *testing.T, data []byte, off uint64, opts *Options) {
	r, err := NewReader(data, off, opts)
	if err != nil {
		checkErr(t, err)
		if _, err2 := NewTable(data, off, opts); err2 == nil {
			t.Fatalf("NewReader failed (%v) but NewTable did not", err)
		}
		return
	}
	h := r.Header()
	if h.ProgramOffset > h.EndOffset || h.EndOffset > uint64(len(data)) || h.LineRange == 0 {
		t.Fatalf("bad header %+v", h)
	}
	// Every row costs at least one opcode byte.
	budget := h.EndOffset - h.ProgramOffset
	var row Row
	var rows []Row
	for {
		err = r.Next(&row)
		if err != nil {
			break
		}
		rows = append(rows, row)
		if uint64(len(rows)) > budget {
			t.Fatalf("%d rows from %d program bytes", len(rows), budget)
		}
	}
	if err != io.EOF {
		checkErr(t, err)
	}
	checkNextRows(t, data, off, opts, rows, err)
	for i := range h.Files {
		h.FilePath(uint64(i), "/comp")
	}
	tab, terr := NewTable(data, off, opts)
	if tab == nil {
		t.Fatalf("NewTable: nil table after a good header (%v)", terr)
	}
	if (terr == nil) != (err == io.EOF) {
		t.Fatalf("NewTable error %v, Reader %v", terr, err)
	}
	// The Reader builds its header's tables lazily, NewTable at once: the
	// two must agree (NewTable's files may go on with define_file's).
	if r2, err := NewReader(data, off, opts); err != nil {
		t.Fatalf("second NewReader: %v", err)
	} else {
		// The files define_file added are compared apart, so that the
		// rest is compared as decoded (an empty table is nil on both).
		lazy, eager := *r2.Header(), *tab.Header()
		if len(eager.Files) < len(lazy.Files) || !slices.Equal(eager.Files[:len(lazy.Files)], lazy.Files) {
			t.Fatalf("NewTable's files %+v do not start with the Reader's header's %+v", eager.Files, lazy.Files)
		}
		lazy.Files, eager.Files = nil, nil
		if !reflect.DeepEqual(lazy, eager) {
			t.Fatalf("lazy header %+v, NewTable's %+v", lazy, eager)
		}
		// Reset drops define_file's files and restores the header as
		// decoded, nil tables included.
		fresh := *r2.Header()
		for r2.Next(&row) == nil {
		}
		r2.Reset()
		if h := *r2.Header(); !reflect.DeepEqual(h, fresh) {
			t.Fatalf("header after Reset %+v, before %+v", h, fresh)
		}
	}
	// NewTableFor answers as NewTable, for a few row addresses.
	var pcs []uint64
	for i := 0; i < len(rows) && len(pcs) < 8; i += 1 + len(rows)/8 {
		pcs = append(pcs, rows[i].Address, rows[i].Address+1)
	}
	checkTableFor(t, data, off, opts, pcs)
	// Keep answers as NewTable too, the kept addresses first, and builds
	// the whole Table from Again's bytes for the others.
	checkKeep(t, data, off, opts, pcs[:len(pcs)/2], pcs)
	// LazyFiles decodes the same tables, when asked.
	checkLazyFiles(t, data, off, opts)
	if tab.Len() > len(rows) {
		t.Fatalf("table has %d rows, stream %d", tab.Len(), len(rows))
	}
	kept := 0
	for s := range tab.Sequences() {
		if s.Low >= s.High {
			t.Fatalf("sequence %#x-%#x kept", s.Low, s.High)
		}
		var first, last Row
		n := 0
		for r := range tab.Rows(s) {
			if n == 0 {
				first = r
			}
			last, n = r, n+1
		}
		if n < 2 || first.Address != s.Low || !last.EndSequence || last.Address != s.High {
			t.Fatalf("sequence %#x-%#x: %d rows from %+v to %+v", s.Low, s.High, n, first, last)
		}
		kept += n
	}
	if kept != tab.Len() {
		t.Fatalf("sequences hold %d rows, Len %d", kept, tab.Len())
	}
	// The compact form (when the rows fit it) answers as the wide form,
	// which searches as LLVM does.
	var wide *Table
	if r2, err := NewReader(data, off, opts); err == nil {
		wide, _ = newTableForm(r2, false)
	}
	if wide == nil || wide.Len() != tab.Len() {
		t.Fatalf("wide form %v, compact %d rows", wide, tab.Len())
	}
	for i, r := range rows {
		if i > 256 {
			break
		}
		for _, pc := range []uint64{r.Address - 1, r.Address, r.Address + 1} {
			if r1, e1, ok1 := tab.LookupRange(pc); true {
				r2, e2, ok2 := wide.LookupRange(pc)
				if r1 != r2 || e1 != e2 || ok1 != ok2 {
					t.Fatalf("LookupRange(%#x): %+v %#x %v, wide form %+v %#x %v", pc, r1, e1, ok1, r2, e2, ok2)
				}
			}
			got, ok := tab.Lookup(pc)
			if ok && got.EndSequence {
				t.Fatalf("Lookup(%#x) returned an end_sequence row", pc)
			}
			if got2, _, ok2 := tab.LookupRange(pc); got2 != got || ok2 != ok {
				t.Fatalf("Lookup(%#x) = %+v %v, LookupRange %+v %v", pc, got, ok, got2, ok2)
			}
		}
	}
	// LookupRangeFrom, walking the rows' addresses up with one Hint,
	// answers as LookupRange.
	var probes []uint64
	for i, r := range rows {
		if i > 256 {
			break
		}
		probes = append(probes, r.Address-1, r.Address, r.Address+1)
	}
	slices.Sort(probes)
	var hint Hint
	for _, pc := range probes {
		r1, e1, ok1 := tab.LookupRange(pc)
		if r2, e2, ok2 := tab.LookupRangeFrom(pc, &hint); r1 != r2 || e1 != e2 || ok1 != ok2 {
			t.Fatalf("LookupRangeFrom(%#x): %+v %#x %v, LookupRange %+v %#x %v", pc, r2, e2, ok2, r1, e1, ok1)
		}
	}
}

// assembledSeeds are small units for every version and format, with and
// without DWARF 5 string forms.
func assembledSeeds(tb testing.TB) [][]byte {
	var seeds [][]byte
	for _, v := range []uint16{2, 3, 4, 5} {
		for _, d64 := range []bool{false, true} {
			h := twoFileHeader(v)
			h.Dwarf64 = d64
			if v >= 4 {
				h.MaxOpsPerInst = 1
			}
			asm, err := Assemble(&h, sampleRows(1), nil)
			if err != nil {
				tb.Fatal(err)
			}
			seeds = append(seeds, asm.Line)
		}
	}
	return seeds
}
