package linetable

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"testing"
)

func TestTableLookup(t *testing.T) {
	asm := build(t, DefaultHeader(4), nil, func(a *Assembler) {
		// Sequence B, written first: [0x2000, 0x2004).
		a.SetAddress(0x2000)
		a.AdvanceLine(99)
		a.Copy()
		a.AdvancePC(4)
		a.EndSequence()
		// Sequence A: [0x1000, 0x1010), two rows at 0x1000.
		a.SetAddress(0x1000)
		a.Copy() // line 1
		a.AdvanceLine(1)
		a.Copy() // line 2, same address: wins
		a.AdvancePC(8)
		a.AdvanceLine(1)
		a.Copy() // line 3
		a.AdvancePC(8)
		a.EndSequence()
		// Empty sequence (low == high): dropped.
		a.SetAddress(0x5000)
		a.EndSequence()
		// Inverted sequence: dropped.
		a.SetAddress(0x6000)
		a.Copy()
		a.SetAddress(0x5ff0)
		a.EndSequence()
		// Overlapping pair X [0x100, 0x200) and Y [0x150, 0x180).
		a.SetAddress(0x100)
		a.AdvanceLine(9) // line 10
		a.Copy()
		a.AdvancePC(0x100)
		a.EndSequence()
		a.SetAddress(0x150)
		a.AdvanceLine(19) // line 20
		a.Copy()
		a.AdvancePC(0x30)
		a.EndSequence()
		// Never ended: dropped.
		a.SetAddress(0x7000)
		a.Copy()
		a.AdvancePC(0x10)
		a.Copy()
	})
	tab, err := NewTable(asm.Line, 0, asm.Options())
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		pc   uint64
		line uint32 // 0: not found
		end  uint64
	}{
		{0x0fff, 0, 0}, {0x1000, 2, 0x1008}, {0x1007, 2, 0x1008}, {0x1008, 3, 0x1010}, {0x100f, 3, 0x1010},
		{0x1010, 0, 0}, {0x2000, 100, 0x2004}, {0x2003, 100, 0x2004}, {0x2004, 0, 0},
		{0x5000, 0, 0}, {0x5ff0, 0, 0}, {0x6000, 0, 0}, {0x7000, 0, 0}, {0x7010, 0, 0},
		// Overlap, LLVM's way: the sequence ending first answers, and a pc
		// below its start is not found even though X covers it.
		{0x160, 20, 0x180}, {0x190, 10, 0x200}, {0x120, 0, 0}, {0x100, 0, 0},
		{0, 0, 0}, {1<<64 - 1, 0, 0},
	}
	for _, c := range cases {
		row, ok := tab.Lookup(c.pc)
		if ok != (c.line != 0) || row.Line != c.line {
			t.Errorf("Lookup(%#x) = line %d, %v; want %d", c.pc, row.Line, ok, c.line)
		}
		if row.EndSequence {
			t.Errorf("Lookup(%#x) returned an end_sequence row", c.pc)
		}
		_, end, ok := tab.LookupRange(c.pc)
		if ok && end != c.end {
			t.Errorf("LookupRange(%#x) end %#x, want %#x", c.pc, end, c.end)
		}
	}
	var seqs [][2]uint64
	rows := 0
	for s := range tab.Sequences() {
		seqs = append(seqs, [2]uint64{s.Low, s.High})
		for r := range tab.Rows(s) {
			rows++
			if r.Address < s.Low || r.Address > s.High {
				t.Errorf("row %+v outside %#x-%#x", r, s.Low, s.High)
			}
		}
	}
	want := [][2]uint64{{0x150, 0x180}, {0x100, 0x200}, {0x1000, 0x1010}, {0x2000, 0x2004}}
	if len(seqs) != len(want) {
		t.Fatalf("sequences %#x, want %#x", seqs, want)
	}
	for i := range want {
		if seqs[i] != want[i] {
			t.Errorf("sequences %#x, want %#x", seqs, want)
		}
	}
	if rows != tab.Len() || rows != 2+2+4+2 {
		t.Errorf("%d rows iterated, Len %d", rows, tab.Len())
	}
	if n := testing.AllocsPerRun(100, func() { tab.Lookup(0x1008) }); n != 0 {
		t.Errorf("Lookup: %v allocations", n)
	}
}

// TestTablePartial: a program that goes bad keeps the sequences that ended
// before the error.
func TestTablePartial(t *testing.T) {
	asm := build(t, DefaultHeader(4), nil, func(a *Assembler) {
		a.SetAddress(0x10)
		a.Copy()
		a.AdvancePC(4)
		a.EndSequence()
		a.Raw([]byte{byte(OpAdvancePC), 0x80}) // truncated LEB
	})
	tab, err := NewTable(asm.Line, 0, asm.Options())
	if !errors.Is(err, ErrTruncated) || tab == nil {
		t.Fatalf("NewTable = %v, %v", tab, err)
	}
	if _, ok := tab.Lookup(0x12); !ok {
		t.Error("the complete sequence was lost")
	}
	if tab, err := NewTable(asm.Line[:10], 0, asm.Options()); tab != nil || err == nil {
		t.Errorf("bad header: %v, %v", tab, err)
	}
}

// TestTableFixtures compares Lookup with a linear scan over the Reader's
// rows, at row addresses (every end_sequence and a sample of the others) and
// one byte before and after.
func TestTableFixtures(t *testing.T) {
	for _, fx := range elfFixtures(t) {
		for _, off := range unitOffsets(t, fx.line, &fx.opts) {
			tab, err := NewTable(fx.line, off, &fx.opts)
			if err != nil {
				t.Fatalf("%s unit %#x: %v", fx.name, off, err)
			}
			r, _ := NewReader(fx.line, off, &fx.opts)
			// Sequences as the Reader sees them.
			type seq struct{ rows []Row }
			var all []seq
			var cur []Row
			for row, err := range r.All() {
				if err != nil {
					t.Fatal(err)
				}
				cur = append(cur, row)
				if row.EndSequence {
					if cur[0].Address < row.Address {
						all = append(all, seq{cur})
					}
					cur = nil
				}
			}
			lookup := func(pc uint64) (Row, bool) {
				// Among sequences holding pc, LLVM takes the one whose
				// end is lowest (first in program order on ties).
				var best *seq
				for i := range all {
					s := &all[i]
					hi := s.rows[len(s.rows)-1].Address
					if pc >= hi {
						continue
					}
					if best == nil || hi < best.rows[len(best.rows)-1].Address {
						best = s
					}
				}
				if best == nil || pc < best.rows[0].Address {
					return Row{}, false
				}
				var found Row
				for _, r := range best.rows[:len(best.rows)-1] {
					if r.Address <= pc {
						found = r
					}
				}
				return found, true
			}
			n := 0
			for _, s := range all {
				n += len(s.rows)
			}
			stride := max(n/500, 1) // the reference is slow; sample
			i := 0
			for _, s := range all {
				for _, r := range s.rows {
					if i++; i%stride != 0 && !r.EndSequence {
						continue
					}
					for _, pc := range []uint64{r.Address - 1, r.Address, r.Address + 1} {
						got, gok := tab.Lookup(pc)
						want, wok := lookup(pc)
						if got != want || gok != wok {
							t.Fatalf("%s unit %#x: Lookup(%#x) = %+v, %v; want %+v, %v", fx.name, off, pc, got, gok, want, wok)
						}
					}
				}
			}
		}
	}
}

// TestTableConcurrent: a Table is safe for concurrent use (run with -race).
func TestTableConcurrent(t *testing.T) {
	h := twoFileHeader(4)
	asm, err := Assemble(&h, sampleRows(1), nil)
	if err != nil {
		t.Fatal(err)
	}
	tab, err := NewTable(asm.Line, 0, asm.Options())
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan bool)
	for range 4 {
		go func() {
			for pc := uint64(0x7f0); pc < 0x1420; pc++ {
				tab.Lookup(pc)
				tab.Header().FilePath(2, "/c")
			}
			for s := range tab.Sequences() {
				for range tab.Rows(s) {
				}
			}
			done <- true
		}()
	}
	for range 4 {
		<-done
	}
}

// TestTableForms checks that the compact and the wide form of every
// fixture unit's Table answer alike, at every row address and the bytes
// around it, and that the fixtures use the compact form.
func TestTableForms(t *testing.T) {
	for _, fx := range elfFixtures(t) {
		for _, off := range unitOffsets(t, fx.line, &fx.opts) {
			var r1, r2 Reader
			if err := r1.init(fx.line, off, optsOrZero(&fx.opts)); err != nil {
				t.Fatal(err)
			}
			if err := r2.init(fx.line, off, optsOrZero(&fx.opts)); err != nil {
				t.Fatal(err)
			}
			compact, err1 := newTableForm(&r1, true)
			wide, err2 := newTableForm(&r2, false)
			if err1 != nil || err2 != nil {
				t.Fatalf("%s unit %#x: %v, %v", fx.name, off, err1, err2)
			}
			if compact.enc == nil && compact.Len() > 0 || wide.addrs == nil && wide.Len() > 0 {
				t.Fatalf("%s unit %#x: compact form %v, wide form %v", fx.name, off, compact.enc != nil, wide.addrs != nil)
			}
			if compact.Len() != wide.Len() || len(compact.seqs) != len(wide.seqs) {
				t.Fatalf("%s unit %#x: %d/%d rows, %d/%d sequences", fx.name, off, compact.Len(), wide.Len(), len(compact.seqs), len(wide.seqs))
			}
			for i, s := range wide.seqs {
				// The packed rows, unpacked in order, are the wide form's.
				if got, want := slices.Collect(compact.Rows(compact.seqs[i])), slices.Collect(wide.Rows(s)); !slices.Equal(got, want) {
					t.Fatalf("%s unit %#x: sequence %d: compact rows %+v, wide %+v", fx.name, off, i, got, want)
				}
				for row := range wide.Rows(s) {
					for _, pc := range []uint64{row.Address - 1, row.Address, row.Address + 1} {
						r1, e1, ok1 := compact.LookupRange(pc)
						r2, e2, ok2 := wide.LookupRange(pc)
						if r1 != r2 || e1 != e2 || ok1 != ok2 {
							t.Fatalf("%s unit %#x: LookupRange(%#x): compact %+v %#x %v, wide %+v %#x %v", fx.name, off, pc, r1, e1, ok1, r2, e2, ok2)
						}
					}
				}
			}
		}
	}
}

// TestTableWideRows: rows that do not fit the compact form (an ISA, a
// large file number, an address below the sequence's first) make the
// wide form, with the same answers as a linear scan.
func TestTableWideRows(t *testing.T) {
	for _, tc := range []struct {
		name string
		prog func(a *Assembler)
	}{
		{"isa", func(a *Assembler) { a.SetISA(3) }},
		{"file", func(a *Assembler) { a.SetFile(70000) }},
		{"column", func(a *Assembler) { a.SetColumn(1 << 20) }},
		{"below", func(a *Assembler) { a.SetAddress(0x800) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			asm := build(t, DefaultHeader(4), nil, func(a *Assembler) {
				a.SetAddress(0x1000)
				a.Copy()
				a.AdvancePC(0x10)
				tc.prog(a)
				a.Copy()
				a.AdvancePC(0x10)
				a.AdvanceLine(5)
				a.Copy()
				a.AdvancePC(0x10)
				a.EndSequence()
			})
			tab, err := NewTable(asm.Line, 0, asm.Options())
			if err != nil {
				t.Fatal(err)
			}
			if tab.addrs == nil {
				t.Fatal("compact form")
			}
			r, _ := NewReader(asm.Line, 0, asm.Options())
			var rows []Row
			for row, err := range r.All() {
				if err != nil {
					t.Fatal(err)
				}
				rows = append(rows, row)
			}
			for pc := uint64(0x7f0); pc < 0x1040; pc++ {
				got, ok := tab.Lookup(pc)
				// The binary search over the rows between the first and
				// the end row, as in LLVM.
				want, wok := Row{}, pc >= rows[0].Address && pc < rows[len(rows)-1].Address
				if wok {
					i := sort.Search(len(rows)-2, func(i int) bool { return pc < rows[i+1].Address })
					want = rows[i]
				}
				if got != want || ok != wok {
					t.Fatalf("Lookup(%#x) = %+v %v, want %+v %v", pc, got, ok, want, wok)
				}
			}
		})
	}
}

// TestTableBlocks compares the compact form with the wide form on
// sequences of every length around the block size, with runs of rows at
// one address placed across block boundaries, at every address they span.
func TestTableBlocks(t *testing.T) {
	for n := 1; n <= 3*rowBlock+2; n++ {
		for dup := 0; dup <= rowBlock+1; dup++ {
			asm := build(t, DefaultHeader(4), nil, func(a *Assembler) {
				// A sequence before, so that this one's blocks do not
				// start the table's.
				a.SetAddress(0x10)
				a.Copy()
				a.AdvancePC(3)
				a.EndSequence()
				a.SetAddress(0x1000)
				for i := range n {
					a.AdvanceLine(1)
					a.Copy()
					// dup rows share an address from row n/2 on; the
					// others step by 1, 2 or 200 (a two-byte delta).
					if i < n/2 || i >= n/2+dup {
						a.AdvancePC(uint64([]int{1, 2, 200}[i%3]))
					}
				}
				a.AdvancePC(4)
				a.EndSequence()
			})
			compareForms(t, fmt.Sprintf("n=%d dup=%d", n, dup), asm, 0x1000+200*uint64(n)+8, false)
		}
	}
}

// TestTableUnsorted: a sequence whose rows go back below the row before
// (above its first: it stays compact) is searched as the wide form
// searches it, wherever the step back falls among the blocks.
func TestTableUnsorted(t *testing.T) {
	for n := 3; n <= 3*rowBlock+2; n++ {
		for back := 2; back < n; back++ {
			asm := unsortedProgram(t, n, back)
			compareForms(t, fmt.Sprintf("n=%d back=%d", n, back), asm, 0x1000+8*uint64(n)+8, true)
		}
	}
}

// unsortedProgram is a sequence of one row at 0x10, then one of n rows
// from 0x1000, 4 bytes apart but for row back, which goes 6 bytes back
// (below the row before, above the first).
func unsortedProgram(t *testing.T, n, back int) *Assembled {
	return build(t, DefaultHeader(4), nil, func(a *Assembler) {
		a.SetAddress(0x10)
		a.Copy()
		a.AdvancePC(3)
		a.EndSequence()
		for i := range n {
			if i == back {
				a.SetAddress(0x1000 + 4*uint64(i) - 6)
			} else if i == 0 {
				a.SetAddress(0x1000)
			} else {
				a.AdvancePC(4)
			}
			a.AdvanceLine(1)
			a.Copy()
		}
		a.AdvancePC(4 * uint64(n))
		a.EndSequence()
	})
}

// compareForms builds asm's Table in the compact and the wide form and
// compares their rows and LookupRange at every address below end. unsorted
// is whether asm's last sequence's rows are out of address order.
func compareForms(t *testing.T, name string, asm *Assembled, end uint64, unsorted bool) {
	t.Helper()
	opts := asm.Options()
	var r1, r2 Reader
	if err := r1.init(asm.Line, 0, optsOrZero(opts)); err != nil {
		t.Fatal(err)
	}
	if err := r2.init(asm.Line, 0, optsOrZero(opts)); err != nil {
		t.Fatal(err)
	}
	compact, err1 := newTableForm(&r1, true)
	wide, err2 := newTableForm(&r2, false)
	if err1 != nil || err2 != nil || compact.enc == nil || wide.addrs == nil {
		t.Fatalf("%s: %v, %v; compact form %v", name, err1, err2, compact.enc != nil)
	}
	if got := len(compact.unsorted) == 1; got != unsorted || len(compact.unsorted) > 1 {
		t.Fatalf("%s: %d unsorted sequences", name, len(compact.unsorted))
	}
	for i, s := range wide.seqs {
		if got, want := slices.Collect(compact.Rows(compact.seqs[i])), slices.Collect(wide.Rows(s)); !slices.Equal(got, want) {
			t.Fatalf("%s: compact rows %+v, wide %+v", name, got, want)
		}
	}
	for pc := uint64(0); pc < end; pc++ {
		r1, e1, ok1 := compact.LookupRange(pc)
		r2, e2, ok2 := wide.LookupRange(pc)
		if r1 != r2 || e1 != e2 || ok1 != ok2 {
			t.Fatalf("%s: LookupRange(%#x): compact %+v %#x %v, wide %+v %#x %v", name, pc, r1, e1, ok1, r2, e2, ok2)
		}
	}
}

// TestTableForeignSequence: Rows yields nothing for a Sequence of another
// Table, even one whose indexes fall inside this Table's rows (its blocks
// would not hold the rows those indexes name).
func TestTableForeignSequence(t *testing.T) {
	// seqs sequences of rows rows each (and their end rows).
	prog := func(seqs, rows int) *Assembled {
		return build(t, DefaultHeader(4), nil, func(a *Assembler) {
			for k := range seqs {
				a.SetAddress(0x1000 * uint64(k+1))
				for range rows {
					a.AdvanceLine(1)
					a.Copy()
					a.AdvancePC(4)
				}
				a.EndSequence()
			}
		})
	}
	// big's one sequence has rows 0 to 9 in blocks 0 and 1: small has
	// that many rows and blocks too, but its block 0 holds two rows.
	big, err := NewTable(prog(1, 8).Line, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	small, err := NewTable(prog(5, 1).Line, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	if small.Len() < big.Len() || len(small.blk) < len(big.blk) {
		t.Fatalf("small: %d rows, %d blocks; big: %d, %d", small.Len(), len(small.blk), big.Len(), len(big.blk))
	}
	for s := range big.Sequences() {
		if n := len(slices.Collect(small.Rows(s))); n != 0 {
			t.Errorf("small.Rows of big's sequence %#x-%#x: %d rows", s.Low, s.High, n)
		}
		if n := len(slices.Collect(big.Rows(s))); n < 2 {
			t.Errorf("big.Rows of its own sequence %#x-%#x: %d rows", s.Low, s.High, n)
		}
	}
	if n := len(slices.Collect(big.Rows(Sequence{}))); n != 0 {
		t.Errorf("Rows(Sequence{}): %d rows", n)
	}
}
