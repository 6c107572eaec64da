package linetable

import (
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
// Memory: 8 bytes of address plus a 28-byte packed row per row, and 24
// bytes per sequence, allocated to size (NewTable decodes the program twice:
// once to count). Every row costs the program at least one byte, so a Table
// is at most about 36 times the size of its program; for cmd/go's Go-linker
// tables it is about 12 times (26.6 MB for 2.25 MB).
type Table struct {
	h     Header
	addrs []uint64    // row addresses; a sequence's rows are contiguous
	rows  []packedRow // the other registers, parallel to addrs
	seqs  []Sequence  // sorted by High
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

func pack(r *Row) packedRow {
	// Without branches: is_stmt flips on nearly every row of Go binaries,
	// so a branch on it would mispredict.
	f := b2u(r.IsStmt)*flagStmt | b2u(r.BasicBlock)*flagBasicBlock |
		b2u(r.EndSequence)*flagEndSequence | b2u(r.PrologueEnd)*flagPrologueEnd |
		b2u(r.EpilogueBegin)*flagEpilogueBegin
	return packedRow{r.OpIndex, r.File, r.Line, r.Column, r.Discriminator, r.ISA, f}
}

// b2u returns 1 for true and 0 for false; the compiler makes it a move.
func b2u(b bool) uint8 {
	if b {
		return 1
	}
	return 0
}

func (t *Table) row(i int) Row {
	p := &t.rows[i]
	return Row{
		Address:       t.addrs[i],
		OpIndex:       p.opIndex,
		File:          p.file,
		Line:          p.line,
		Column:        p.column,
		Discriminator: p.discriminator,
		ISA:           p.isa,
		IsStmt:        p.flags&flagStmt != 0,
		BasicBlock:    p.flags&flagBasicBlock != 0,
		EndSequence:   p.flags&flagEndSequence != 0,
		PrologueEnd:   p.flags&flagPrologueEnd != 0,
		EpilogueBegin: p.flags&flagEpilogueBegin != 0,
	}
}

// Sequence is one run of rows of a Table covering the addresses
// [Low, High): Low is its first row's address, High its end_sequence row's.
type Sequence struct {
	Low, High   uint64
	first, last uint32 // row indexes; last is one past the end_sequence row
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
	return newTable(&r)
}

func newTable(r *Reader) (*Table, error) {
	// Count the rows first: decoding is cheaper than growing the slices by
	// appending, and the Table then holds no spare capacity.
	var chunk [128]Row
	n := 0
	for {
		k := r.fill(chunk[:])
		if k == 0 {
			break
		}
		n += k
	}
	r.Reset()
	t := &Table{addrs: make([]uint64, n), rows: make([]packedRow, n)}
	var (
		seqStart int // where the current sequence's rows start
		w        int // where the next row goes; rows of dropped sequences are overwritten
		err      error
	)
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
			t.addrs[w] = row.Address
			t.rows[w] = pack(row)
			w++
			if !row.EndSequence {
				continue
			}
			if t.addrs[seqStart] < row.Address {
				if w > math.MaxUint32 {
					err = buf.Errorf(pkgName, sectionName, r.Offset(), ErrLimit, "more than 2^32 rows")
					break decode
				}
				t.seqs = append(t.seqs, Sequence{Low: t.addrs[seqStart], High: row.Address, first: uint32(seqStart), last: uint32(w)})
			} else {
				w = seqStart // empty or inverted: no lookup reaches it
			}
			seqStart = w
		}
	}
	// Rows of a sequence the program never ended cannot be looked up.
	t.addrs = slices.Clip(t.addrs[:seqStart])
	t.rows = slices.Clip(t.rows[:seqStart])
	// LLVM sorts with an unstable sort; a stable one makes ties (which only
	// overlapping sequences produce) resolve to the first in the program.
	slices.SortStableFunc(t.seqs, func(a, b Sequence) int {
		switch {
		case a.High < b.High:
			return -1
		case a.High > b.High:
			return 1
		}
		return 0
	})
	t.h = r.h
	// The Reader may append to its Files again after a Reset; the
	// Table's must not share that array.
	t.h.Files = slices.Clone(r.h.Files)
	if err == io.EOF {
		err = nil
	}
	return t, err
}

// Header returns the unit's header, including the files that
// DW_LNE_define_file opcodes added. It must not be modified.
func (t *Table) Header() *Header { return &t.h }

// Len returns the number of rows kept, end_sequence rows included.
func (t *Table) Len() int { return len(t.addrs) }

// Lookup returns the row that covers pc: the last row at or below pc in the
// sequence whose [Low, High) holds pc, never an end_sequence row. When
// several rows share that address the last one wins, as in LLVM (compilers
// emit a row per prologue step at a function's first address).
//
// The search is LLVM 14's (LineTable::lookupAddress): the first sequence, in
// High order, whose High exceeds pc, which must then start at or below pc;
// so where sequences overlap, the one ending first answers.
//
// Cost: two binary searches, O(log sequences + log rows in the sequence);
// no allocation.
func (t *Table) Lookup(pc uint64) (Row, bool) {
	i, ok := t.lookup(pc)
	if !ok {
		return Row{}, false
	}
	return t.row(i), true
}

// LookupRange is Lookup that also returns the end of the address range the
// row covers: the address of the next row in the sequence, which is the
// sequence's High for its last row. Cost as for Lookup.
func (t *Table) LookupRange(pc uint64) (row Row, end uint64, ok bool) {
	i, ok := t.lookup(pc)
	if !ok {
		return Row{}, 0, false
	}
	return t.row(i), t.addrs[i+1], true
}

func (t *Table) lookup(pc uint64) (int, bool) {
	// upper_bound over the sequences by High, written as libstdc++ writes
	// it so that even unsorted rows (hostile input) give LLVM's answer.
	lo, n := 0, len(t.seqs)
	for n > 0 {
		half := n >> 1
		if pc < t.seqs[lo+half].High {
			n = half
		} else {
			lo += half + 1
			n -= half + 1
		}
	}
	if lo == len(t.seqs) {
		return 0, false
	}
	s := &t.seqs[lo]
	if pc < s.Low {
		return 0, false
	}
	// upper_bound over rows [first+1, last-1) (excluding the end row),
	// minus one.
	first, n := int(s.first)+1, int(s.last-s.first)-2
	for n > 0 {
		half := n >> 1
		if pc < t.addrs[first+half] {
			n = half
		} else {
			first += half + 1
			n -= half + 1
		}
	}
	return first - 1, true
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
		if s.last > uint32(len(t.addrs)) || s.first > s.last {
			return // not a Sequence of this Table
		}
		for i := int(s.first); i < int(s.last); i++ {
			if !yield(t.row(i)) {
				return
			}
		}
	}
}
