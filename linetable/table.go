package linetable

import (
	"cmp"
	"encoding/binary"
	"io"
	"iter"
	"math"
	"slices"
	"sync"

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
// Memory: about 8 bytes per row when every row fits the compact form (its
// address within 4 GiB above its sequence's first, file, column and
// discriminator below 65,536, op_index and ISA 0: what compilers and
// linkers write): a 4-byte address offset and the rest packed (7.57 bytes
// a row over the testdata/elf fixtures; 16 unpacked); else 36; and 24
// bytes per sequence. Arrays are allocated
// to size (NewTable decodes the program twice: once to count and choose
// the form). Every row costs the program at least one byte, so a Table is
// at most about 36 times the size of its program; for cmd/go's Go-linker
// tables it is about 5 times.
type Table struct {
	h Header
	// The compact form: row addresses as offsets from their sequence's
	// Low, and the other registers packed (rowPacker): blocks of
	// rowBlock rows, each row a byte of flags and varints of what
	// changed from the row before it in its block; blk[k] is where block
	// k starts in enc. A sequence's rows are contiguous.
	offs []uint32
	enc  []byte
	blk  []uint32
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

	// part is set in a Table from NewTableFor, which holds one
	// sequence's rows (or none) and builds the whole Table on first need.
	part *partial
}

// compactRow is a Row without its address, in 12 bytes.
type compactRow struct {
	line                  uint32
	file, column, discrim uint16
	flags                 uint8
}

// rowBlock is how many rows of the compact form are packed against each
// other: row i is unpacked from the start of its block, so a lookup
// unpacks up to rowBlock rows.
const rowBlock = 8

// Bits of a packed row's first byte besides its flags (which take the
// low five).
const (
	packFile    = 1 << 5 // the file differs from the row before: a uvarint follows
	packDiscrim = 1 << 6 // the discriminator is not 0: a uvarint follows
	packColumn  = 1 << 7 // the column differs from the row before: a uvarint follows
)

// seqPool holds the scratch of newTableForm's current sequence.
var seqPool = sync.Pool{New: func() any { return new([]compactRow) }}

// A rowPacker packs rows into blocks of rowBlock (see Table.enc): about 3
// to 4 bytes a row against compactRow's 12, since a row's line moves by a few
// from the row before and its file and column often stay.
type rowPacker struct {
	enc  []byte
	blk  []uint32
	prev compactRow
	n    int // rows packed
}

// add packs rows after those packed so far. It reports false, packing
// nothing, if the packed rows would pass 4 GiB.
func (pk *rowPacker) add(rows []compactRow) bool {
	// A row packs into at most 1 + 5 + 3 + 3 + 3 bytes.
	if uint64(len(pk.enc))+15*uint64(len(rows)) > math.MaxUint32 {
		return false
	}
	for i := range rows {
		if pk.n%rowBlock == 0 {
			pk.blk = append(pk.blk, uint32(len(pk.enc)))
			pk.prev = compactRow{}
		}
		p := &rows[i]
		h := p.flags
		if p.file != pk.prev.file {
			h |= packFile
		}
		if p.discrim != 0 {
			h |= packDiscrim
		}
		if p.column != pk.prev.column {
			h |= packColumn
		}
		if d := int64(p.line) - int64(pk.prev.line); -64 <= d && d < 64 {
			pk.enc = append(pk.enc, h, byte(d<<1^d>>63))
		} else {
			pk.enc = binary.AppendVarint(append(pk.enc, h), d)
		}
		if h&packFile != 0 {
			pk.enc = appendU16(pk.enc, p.file)
		}
		if h&packColumn != 0 {
			pk.enc = appendU16(pk.enc, p.column)
		}
		if h&packDiscrim != 0 {
			pk.enc = appendU16(pk.enc, p.discrim)
		}
		pk.prev = *p
		pk.n++
	}
	return true
}

// finish returns the packed rows, copied to size when their slice has
// much room to spare.
func (pk *rowPacker) finish() ([]byte, []uint32) {
	enc := pk.enc
	if cap(enc)-len(enc) > len(enc)/8 {
		enc = append([]byte(nil), enc...)
	}
	return enc, slices.Clip(pk.blk)
}

// unpackRow decodes the packed row at enc[k:] over p, which holds the row
// before it in its block (zero for a block's first), and returns where
// the next row starts. enc is rowPacker's output, so it does not check.
// Most values take one byte: those skip the varint loops.
func unpackRow(enc []byte, k int, p *compactRow) int {
	h := enc[k]
	if b := enc[k+1]; b < 0x80 {
		p.line = uint32(int64(p.line) + (int64(b>>1) ^ -int64(b&1)))
		k += 2
	} else {
		d, n := binary.Varint(enc[k+1:])
		p.line = uint32(int64(p.line) + d)
		k += 1 + n
	}
	p.flags = h & (packFile - 1)
	if h&packFile != 0 {
		p.file, k = unpackU16(enc, k)
	}
	if h&packColumn != 0 {
		p.column, k = unpackU16(enc, k)
	}
	p.discrim = 0
	if h&packDiscrim != 0 {
		p.discrim, k = unpackU16(enc, k)
	}
	return k
}

// unpackU16 decodes the uvarint at enc[k:], a packed file, column or
// discriminator.
func unpackU16(enc []byte, k int) (uint16, int) {
	if b := enc[k]; b < 0x80 {
		return uint16(b), k + 1
	}
	v, n := binary.Uvarint(enc[k:])
	return uint16(v), k + n
}

// appendU16 appends v as a uvarint.
func appendU16(enc []byte, v uint16) []byte {
	if v < 0x80 {
		return append(enc, byte(v))
	}
	return binary.AppendUvarint(enc, uint64(v))
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
		var p compactRow
		k := int(t.blk[i/rowBlock])
		for range i%rowBlock + 1 {
			k = unpackRow(t.enc, k, &p)
		}
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
	// The compact form's registers go through seq, the current
	// sequence's, into pk once the sequence ends and is kept.
	var (
		pk  rowPacker
		seq []compactRow
	)
	if compact {
		t.offs = make([]uint32, n)
		pk.enc = make([]byte, 0, 3*n)
		pk.blk = make([]uint32, 0, (n+rowBlock-1)/rowBlock)
		sp := seqPool.Get().(*[]compactRow)
		defer func() { *sp = seq[:0]; seqPool.Put(sp) }()
		seq = (*sp)[:0]
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
				seq = append(seq, compactRow{line: row.Line, file: uint16(row.File), column: uint16(row.Column),
					discrim: uint16(row.Discriminator), flags: flagsOf(row)})
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
				if compact && !pk.add(seq) {
					err = buf.Errorf(pkgName, sectionName, r.Offset(), ErrLimit, "rows packed past 4 GiB")
					w = seqStart
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
			seq = seq[:0]
		}
	}
	// Rows of a sequence the program never ended cannot be looked up.
	if compact {
		t.offs = slices.Clip(t.offs[:seqStart])
		t.enc, t.blk = pk.finish()
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
func (t *Table) Len() int {
	t = t.all()
	return len(t.offs) + len(t.addrs)
}

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
// Cost: two binary searches, O(log sequences + log rows in the sequence),
// then unpacking up to rowBlock (8) rows of the compact form;
// no allocation. On a Table from NewTableFor, the first lookup that its
// one sequence does not answer builds the whole Table first.
func (t *Table) Lookup(pc uint64) (Row, bool) {
	t = t.answers(pc)
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
	t = t.answers(pc)
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
	t = t.all()
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
	t = t.all()
	return func(yield func(Row) bool) {
		if s.last > uint32(t.Len()) || s.first > s.last {
			return // not a Sequence of this Table
		}
		if t.addrs != nil {
			for i := int(s.first); i < int(s.last); i++ {
				if !yield(t.row(i, s.Low)) {
					return
				}
			}
			return
		}
		// Unpack the rows in order from the start of the first's block.
		var p compactRow
		i := int(s.first) &^ (rowBlock - 1)
		k := int(t.blk[i/rowBlock])
		for ; i < int(s.last); i++ {
			if i%rowBlock == 0 {
				p, k = compactRow{}, int(t.blk[i/rowBlock])
			}
			k = unpackRow(t.enc, k, &p)
			if i < int(s.first) {
				continue
			}
			r := Row{Address: s.Low + uint64(t.offs[i]), File: uint32(p.file), Line: p.line,
				Column: uint32(p.column), Discriminator: uint32(p.discrim)}
			r.IsStmt = p.flags&flagStmt != 0
			r.BasicBlock = p.flags&flagBasicBlock != 0
			r.EndSequence = p.flags&flagEndSequence != 0
			r.PrologueEnd = p.flags&flagPrologueEnd != 0
			r.EpilogueBegin = p.flags&flagEpilogueBegin != 0
			if !yield(r) {
				return
			}
		}
	}
}
