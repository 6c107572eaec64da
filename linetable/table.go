package linetable

import (
	"cmp"
	"io"
	"iter"
	"math"
	"slices"

	"github.com/symbolize-go/symbolize/internal/buf"
)

// Table is the lookup structure of one line-number program: its valid
// sequences sorted by address, each a run of rows. A Table is immutable once
// built and safe for concurrent use.
//
// It keeps the rows of every sequence that ended with DW_LNE_end_sequence
// and whose first row's address is below its end address; like LLVM, it
// drops the others (empty or inverted sequences, and a last sequence the
// program never ended), since no lookup could reach them.
//
// Memory: 16 bytes per row when every row fits the compact form (its
// address within 4 GiB above its sequence's first, file, column and
// discriminator below 65,536, op_index and ISA 0: what compilers and
// linkers write), else 36; and 24 bytes per sequence. Arrays are allocated
// to size (NewTable decodes the program twice: once to count and choose
// the form). Every row costs the program at least one byte, so a Table is
// at most about 36 times the size of its program; for cmd/go's Go-linker
// tables it is about 5 times.
type Table struct {
	h Header
	// The compact form: row addresses as offsets from their sequence's
	// Low, and the other registers in 12 bytes. A sequence's rows are
	// contiguous.
	offs []uint32
	rows []compactRow
	// The wide form, used instead when some row does not fit.
	addrs []uint64
	wide  []packedRow
	seqs  []Sequence // sorted by High (by section, then High, with Options.PCSection)

	// With Options.PCSection: the section of an address, and where each
	// section's sequences are in seqs (secStart[i] is the first of the
	// i-th section key in secKeys).
	pcSection func(pc uint64) uint32
	secKeys   []uint32
	secStart  []int
}

// compactRow is a Row without its address, in 12 bytes.
type compactRow struct {
	line                  uint32
	file, column, discrim uint16
	flags                 uint8
}

// packedRow is a Row without its address, its flags in one byte.
type packedRow struct {
	opIndex, file, line, column, discriminator, isa uint32
	flags                                           uint8
}

const (
	flagStmt = 1 << iota
	flagBasicBlock
	flagEndSequence
	flagPrologueEnd
	flagEpilogueBegin
)

func flagsOf(r *Row) uint8 {
	// Without branches: is_stmt flips on nearly every row of Go binaries,
	// so a branch on it would mispredict.
	return b2u(r.IsStmt)*flagStmt | b2u(r.BasicBlock)*flagBasicBlock |
		b2u(r.EndSequence)*flagEndSequence | b2u(r.PrologueEnd)*flagPrologueEnd |
		b2u(r.EpilogueBegin)*flagEpilogueBegin
}

// compactOK reports whether r fits a compactRow, its address at low or
// less than 4 GiB above.
func compactOK(r *Row, low uint64) bool {
	return r.Address >= low && r.Address-low <= math.MaxUint32 &&
		r.OpIndex|r.ISA == 0 && (r.File|r.Column|r.Discriminator) <= math.MaxUint16
}

// b2u returns 1 for true and 0 for false; the compiler makes it a move.
func b2u(b bool) uint8 {
	if b {
		return 1
	}
	return 0
}

// addr returns the address of row i, whose sequence starts at low.
func (t *Table) addr(i int, low uint64) uint64 {
	if t.addrs != nil {
		return t.addrs[i]
	}
	return low + uint64(t.offs[i])
}

// row returns row i, whose sequence starts at low.
func (t *Table) row(i int, low uint64) Row {
	var r Row
	var f uint8
	if t.addrs != nil {
		p := &t.wide[i]
		r = Row{Address: t.addrs[i], OpIndex: p.opIndex, File: p.file, Line: p.line,
			Column: p.column, Discriminator: p.discriminator, ISA: p.isa}
		f = p.flags
	} else {
		p := &t.rows[i]
		r = Row{Address: low + uint64(t.offs[i]), File: uint32(p.file), Line: p.line,
			Column: uint32(p.column), Discriminator: uint32(p.discrim)}
		f = p.flags
	}
	r.IsStmt = f&flagStmt != 0
	r.BasicBlock = f&flagBasicBlock != 0
	r.EndSequence = f&flagEndSequence != 0
	r.PrologueEnd = f&flagPrologueEnd != 0
	r.EpilogueBegin = f&flagEpilogueBegin != 0
	return r
}

// Sequence is one run of rows of a Table covering the addresses
// [Low, High): Low is its first row's address, High its end_sequence row's.
type Sequence struct {
	Low, High   uint64
	first, last uint32 // row indexes; last is one past the end_sequence row
	section     uint32 // Options.SectionOf's key; 0 without
}

// NewTable decodes the whole program of the unit at offset off of data (a
// .debug_line section) and builds its Table. opts may be nil.
//
// If the header is bad, NewTable returns nil and the error. If the program
// goes bad after some sequences ended, it returns a Table of those sequences
// together with the error, so that a caller may still use what decoded.
func NewTable(data []byte, off uint64, opts *Options) (*Table, error) {
	var r Reader
	if err := r.init(data, off, optsOrZero(opts)); err != nil {
		return nil, err
	}
	return newTableForm(&r, true)
}

// newTableForm builds the Table of r's program, which it consumes; r must
// not be used after. allowCompact false forces the wide form (for tests).
func newTableForm(r *Reader, allowCompact bool) (*Table, error) {
	// Count the rows and sequences first, and see whether the rows all
	// fit the compact form: decoding is cheaper than growing the slices
	// by appending, and the Table then holds no spare capacity (but for
	// sequences dropped below).
	var chunk [128]Row
	n, nseq := 0, 0
	compact := allowCompact
	var low uint64
	startSeq := true
	for {
		k := r.fill(chunk[:])
		if k == 0 {
			break
		}
		for j := range chunk[:k] {
			row := &chunk[j]
			if startSeq {
				low, startSeq = row.Address, false
			}
			compact = compact && compactOK(row, low)
			startSeq = row.EndSequence
			nseq += int(b2u(startSeq))
		}
		n += k
	}
	r.Reset()
	t := &Table{seqs: make([]Sequence, 0, nseq)}
	if compact {
		t.offs, t.rows = make([]uint32, n), make([]compactRow, n)
	} else {
		t.addrs, t.wide = make([]uint64, n), make([]packedRow, n)
	}
	var (
		nEnd     int // end_sequence rows so far
		seqStart int // where the current sequence's rows start
		w        int // where the next row goes; rows of dropped sequences are overwritten
		err      error
	)
	low, startSeq = 0, true
decode:
	for {
		k := r.fill(chunk[:])
		if k == 0 {
			err = r.end()
			break
		}
		// The program decodes the same way twice, so it yields the n
		// rows counted; the bound only keeps the writes below in range.
		k = min(k, n-w)
		for j := range chunk[:k] {
			row := &chunk[j]
			if startSeq {
				low, startSeq = row.Address, false
			}
			if compact {
				t.offs[w] = uint32(row.Address - low)
				t.rows[w] = compactRow{line: row.Line, file: uint16(row.File), column: uint16(row.Column),
					discrim: uint16(row.Discriminator), flags: flagsOf(row)}
			} else {
				t.addrs[w] = row.Address
				t.wide[w] = packedRow{row.OpIndex, row.File, row.Line, row.Column, row.Discriminator, row.ISA, flagsOf(row)}
			}
			w++
			if !row.EndSequence {
				continue
			}
			startSeq = true
			nEnd++
			if low < row.Address {
				if w > math.MaxUint32 {
					err = buf.Errorf(pkgName, sectionName, r.Offset(), ErrLimit, "more than 2^32 rows")
					break decode
				}
				sq := Sequence{Low: low, High: row.Address, first: uint32(seqStart), last: uint32(w)}
				if nEnd <= len(r.seqSecs) {
					sq.section = r.seqSecs[nEnd-1]
				}
				t.seqs = append(t.seqs, sq)
			} else {
				w = seqStart // empty or inverted: no lookup reaches it
			}
			seqStart = w
		}
	}
	// Rows of a sequence the program never ended cannot be looked up.
	if compact {
		t.offs = slices.Clip(t.offs[:seqStart])
		t.rows = slices.Clip(t.rows[:seqStart])
	} else {
		t.addrs = slices.Clip(t.addrs[:seqStart])
		t.wide = slices.Clip(t.wide[:seqStart])
	}
	// LLVM sorts with an unstable sort; a stable one makes ties (which only
	// overlapping sequences produce) resolve to the first in the program.
	slices.SortStableFunc(t.seqs, func(a, b Sequence) int { return cmp.Compare(a.High, b.High) })
	if r.pcSection != nil {
		t.bySection(r.pcSection)
	}
	t.h = r.h
	// The Table takes r's files: r is not used again, so nothing else
	// appends to them (clipped all the same).
	t.h.Files = slices.Clip(r.h.Files)
	if err == io.EOF {
		err = nil
	}
	return t, err
}

// Header returns the unit's header, including the files that
// DW_LNE_define_file opcodes added. It must not be modified.
func (t *Table) Header() *Header { return &t.h }

// Len returns the number of rows kept, end_sequence rows included.
func (t *Table) Len() int { return len(t.offs) + len(t.addrs) }

// Lookup returns the row that covers pc: the last row at or below pc in the
// sequence whose [Low, High) holds pc, never an end_sequence row. When
// several rows share that address the last one wins, as in LLVM (compilers
// emit a row per prologue step at a function's first address).
//
// The search is LLVM 14's (LineTable::lookupAddress): the first sequence, in
// High order, whose High exceeds pc, which must then start at or below pc;
// so where sequences overlap, the one ending first answers. With
// Options.PCSection (a relocatable object), only the sequences of pc's
// section are searched, then those of no section.
//
// Cost: two binary searches, O(log sequences + log rows in the sequence);
// no allocation.
func (t *Table) Lookup(pc uint64) (Row, bool) {
	i, s := t.lookup(pc)
	if s == nil {
		return Row{}, false
	}
	return t.row(i, s.Low), true
}

// LookupRange is Lookup that also returns the end of the address range the
// row covers: the address of the next row in the sequence, which is the
// sequence's High for its last row. Cost as for Lookup.
func (t *Table) LookupRange(pc uint64) (row Row, end uint64, ok bool) {
	i, s := t.lookup(pc)
	if s == nil {
		return Row{}, 0, false
	}
	return t.row(i, s.Low), t.addr(i+1, s.Low), true
}

// bySection orders the sequences by section, then High, as LLVM 14 does
// (Sequence::orderByHighPC compares the section index first), and keeps
// where each section's run starts.
func (t *Table) bySection(pcSection func(uint64) uint32) {
	t.pcSection = pcSection
	slices.SortStableFunc(t.seqs, func(a, b Sequence) int { return cmp.Compare(a.section, b.section) })
	for i, s := range t.seqs {
		if i == 0 || s.section != t.seqs[i-1].section {
			t.secKeys = append(t.secKeys, s.section)
			t.secStart = append(t.secStart, i)
		}
	}
	t.secStart = append(t.secStart, len(t.seqs))
}

// lookup returns the index of the row covering pc and its sequence, or a
// nil sequence.
func (t *Table) lookup(pc uint64) (int, *Sequence) {
	if t.pcSection == nil {
		return t.lookupIn(pc, t.seqs)
	}
	// LineTable::lookupAddress: the sequences of pc's section, then
	// those of none.
	sec := t.pcSection(pc)
	if i, s := t.lookupIn(pc, t.sectionSeqs(sec)); s != nil || sec == 0 {
		return i, s
	}
	return t.lookupIn(pc, t.sectionSeqs(0))
}

// sectionSeqs returns the sequences of section key sec.
func (t *Table) sectionSeqs(sec uint32) []Sequence {
	i, ok := slices.BinarySearch(t.secKeys, sec)
	if !ok {
		return nil
	}
	return t.seqs[t.secStart[i]:t.secStart[i+1]]
}

// lookupIn is lookup among seqs, a run of t.seqs sorted by High.
func (t *Table) lookupIn(pc uint64, seqs []Sequence) (int, *Sequence) {
	// upper_bound over the sequences by High (see upperBound).
	lo, n := 0, len(seqs)
	for n > 0 {
		half := n >> 1
		if pc < seqs[lo+half].High {
			n = half
		} else {
			lo += half + 1
			n -= half + 1
		}
	}
	if lo == len(seqs) {
		return 0, nil
	}
	s := &seqs[lo]
	if pc < s.Low {
		return 0, nil
	}
	// upper_bound over rows [first+1, last-1) (excluding the end row),
	// minus one.
	first, last := int(s.first)+1, int(s.last)-1
	if t.addrs != nil {
		return first + upperBound(t.addrs[first:last], pc) - 1, s
	}
	// Offsets from s.Low. pc-Low fits them: pc is below High, the end
	// row's address, which is itself a compact offset from Low.
	return first + upperBound(t.offs[first:last], uint32(pc-s.Low)) - 1, s
}

// upperBound returns the index of the first element of a greater than v
// (len(a) if none): C++'s std::upper_bound, probing as libstdc++ does, so
// that even a sequence whose rows are out of address order (hostile
// input) gives LLVM's answer.
func upperBound[T uint32 | uint64](a []T, v T) int {
	lo, n := 0, len(a)
	for n > 0 {
		half := n >> 1
		if v < a[lo+half] {
			n = half
		} else {
			lo += half + 1
			n -= half + 1
		}
	}
	return lo
}

// Sequences yields the Table's sequences in increasing High order (which is
// address order unless sequences overlap).
func (t *Table) Sequences() iter.Seq[Sequence] {
	return func(yield func(Sequence) bool) {
		for _, s := range t.seqs {
			if !yield(s) {
				return
			}
		}
	}
}

// Rows yields the rows of s, a Sequence of this Table, in program order,
// ending with its end_sequence row.
func (t *Table) Rows(s Sequence) iter.Seq[Row] {
	return func(yield func(Row) bool) {
		if s.last > uint32(t.Len()) || s.first > s.last {
			return // not a Sequence of this Table
		}
		for i := int(s.first); i < int(s.last); i++ {
			if !yield(t.row(i, s.Low)) {
				return
			}
		}
	}
}
