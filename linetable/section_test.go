package linetable

import "testing"

// TestTableSections: with Options.SectionOf and PCSection, as for a
// relocatable object whose sections all start at 0, a lookup answers from
// the sequences of the address's section, then from those of no section,
// as LLVM 14's LineTable::lookupAddress does with a SectionedAddress.
func TestTableSections(t *testing.T) {
	secOf := map[uint64]uint32{} // set_address operand offset -> section
	asm := build(t, DefaultHeader(4), nil, func(a *Assembler) {
		seq := func(sec uint32, low, size uint64, line int64) {
			if sec != 0 {
				secOf[a.Offset()+3] = sec // 0, length, opcode, then the operand
			}
			a.SetAddress(low)
			a.AdvanceLine(line - 1)
			a.Copy()
			a.AdvancePC(size)
			a.EndSequence()
		}
		seq(1, 0x0, 0x20, 10)   // section 1: [0, 0x20) of its 0x40 bytes
		seq(2, 0x0, 0x10, 100)  // section 2: [0, 0x10), behind section 1
		seq(3, 0x0, 0x80, 200)  // section 3: [0, 0x80)
		seq(0, 0x28, 0x10, 400) // no section: [0x28, 0x38)
		seq(0, 0x100, 0x10, 300)
		// A sequence moved to section 2 by a later set_address: it
		// belongs to section 2 (the section of its end_sequence's address).
		secOf[a.Offset()+3] = 3
		a.SetAddress(0x300)
		a.AdvanceLine(499)
		a.Copy()
		secOf[a.Offset()+3] = 2
		a.SetAddress(0x300)
		a.AdvancePC(0x10)
		a.EndSequence()
	})
	opts := asm.Options()
	opts.SectionOf = func(off uint64) uint32 { return secOf[off] }
	// The first section holding pc: 1 is [0, 0x40), 2 is [0, 0x10) (never
	// first), 3 is [0, 0x80), 4 is [0x300, 0x310), after 2 in the table.
	opts.PCSection = func(pc uint64) uint32 {
		switch {
		case pc < 0x40:
			return 1
		case pc < 0x80:
			return 3
		case pc >= 0x300 && pc < 0x310:
			return 2
		}
		return 0
	}
	tab, err := NewTable(asm.Line, 0, opts)
	if err != nil {
		t.Fatal(err)
	}
	plain, err := NewTable(asm.Line, 0, asm.Options())
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		pc          uint64
		line, plain uint32 // 0: no row
	}{
		{0x5, 10, 100},    // section 1's, where section 2's ends first
		{0x1f, 10, 10},    // section 1's
		{0x20, 0, 0},      // section 1 has no row, nor does a sectionless sequence (nor, plain, the first to end)
		{0x30, 400, 400},  // section 1 has no row: a sectionless sequence answers
		{0x45, 200, 200},  // section 3's
		{0x7f, 200, 200},  // section 3's
		{0x80, 0, 0},      // no section: only sectionless sequences answer
		{0x105, 300, 300}, // no section
		{0x305, 500, 500}, // the moved sequence is section 2's
	} {
		row, ok := tab.Lookup(c.pc)
		if got := map[bool]uint32{true: row.Line}[ok]; got != c.line {
			t.Errorf("%#x: line %d (found %v), want %d", c.pc, row.Line, ok, c.line)
		}
		row, ok = plain.Lookup(c.pc)
		if got := map[bool]uint32{true: row.Line}[ok]; got != c.plain {
			t.Errorf("%#x without sections: line %d (found %v), want %d", c.pc, row.Line, ok, c.plain)
		}
	}
	// Sequences and Rows still see every sequence.
	n := 0
	for s := range tab.Sequences() {
		for range tab.Rows(s) {
			n++
		}
	}
	if n != 12 {
		t.Errorf("%d rows in all, want 12", n)
	}
}
