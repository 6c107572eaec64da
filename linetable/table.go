package linetable

import (
	"cmp"
	"encoding/binary"
	"io"
	"iter"
	"math"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/symbolize-go/symbolize/internal/buf"
	"github.com/symbolize-go/symbolize/internal/sorted"
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
// Memory: about 5 bytes per row when every row fits the compact form (its
// address within 4 GiB above its sequence's first, file, column and
// discriminator below 65,536, op_index and ISA 0: what compilers and
// linkers write): every register packed, the address as its distance from
// the row before, plus 8 bytes per block of rowBlock rows (4.97 bytes a
// row over the testdata/elf fixtures, 4.58 on cmd/go's tables, 5.60 on
// libradosgw's; 16 unpacked; 4 more for the rows of a sequence out of
// address order); else 36; and 32 bytes per sequence. Arrays are allocated
// to size (the compact form is packed into reused scratch and copied out;
// the wide form's program is decoded twice, once to count). Every row costs the program at least one byte, so a Table is
// at most about 36 times the size of its program; for cmd/go's Go-linker
// tables it is about 1.5 times (rows and sequences).
type Table struct {
	h Header
	// The compact form: the rows packed (rowPacker) in blocks of
	// rowBlock rows, each row a byte of flags and varints of what
	// changed from the row before it in its block, its address included;
	// blk[k] is where block k starts in enc, boff[k] the address of its
	// first row as an offset from its sequence's Low. A sequence's rows
	// are contiguous and its first row starts a block (Sequence.blk0),
	// so that the rows of a block are one sequence's. A lookup searches
	// a sequence's blocks, then scans a block, which needs its rows in
	// address order: those of a sequence whose rows are not (hostile
	// input, or a sequence at address 0 that the linker cut off) are
	// searched as the wide form is, by their offsets, kept for those
	// sequences alone in unsorted.
	enc      []byte
	blk      []uint32
	boff     []uint32
	rows     int // rows kept, in the compact form
	unsorted []unsortedSeq
	uoffs    []uint32 // the offsets of the rows of every unsorted sequence
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
	// sequence's rows (or none) and builds the whole Table on first need,
	// and in one whose rows Options.Keep dropped some of (part.keep).
	part *partial

	// files, with Options.LazyFiles, decodes h's Dirs and Files.
	files *lazyFiles
}

// lazyFiles is a header's directory and file tables left to decode
// (Options.LazyFiles): their bytes, validated, and what decoding them
// needs.
type lazyFiles struct {
	raw  []byte
	opts Options
	once sync.Once
	done atomic.Bool // Header decoded them into the Table's header
}

// decode returns the directory and file tables of h.
func (lf *lazyFiles) decode(h *Header) (dirs []string, files []File) {
	// The tables alone, as the header holds them: names within them
	// are substrings of one copy, as parseTables makes from the section.
	// NewTable's dry run read them alike, so this cannot fail; if it
	// somehow did, the tables would stay as far as they decoded.
	hh := Header{Version: h.Version, Dwarf64: h.Dwarf64, AddressSize: h.AddressSize,
		HeaderLength: h.HeaderLength, ProgramOffset: uint64(len(lf.raw))}
	b := newBuf(lf.raw, lf.opts.BigEndian)
	parseTables(&hh, &b, &lf.opts, false)
	return hh.Dirs, hh.Files
}

// unsortedSeq is a compact sequence whose rows are out of address order:
// its Sequence.blk0 is unsortedFlag plus the index of an unsortedSeq, which
// holds its first block and where its row offsets start in Table.uoffs.
type unsortedSeq struct{ blk0, at uint32 }

// unsortedFlag marks a Sequence.blk0 that indexes Table.unsorted. A real
// block index is below it: a kept sequence has at least two rows, so there
// are at most half as many blocks as rows, and rows number at most 2^32.
const unsortedFlag = 1 << 31

// compactRow is a Row in 16 bytes, its address as an offset from its
// sequence's Low.
type compactRow struct {
	off, line             uint32
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

// packScratch is what newTableForm builds the compact form in: the
// current sequence's rows, and the packed rows, blocks and sequences, which
// the Table gets copies of, to size (one pass over the program, and no
// spare capacity kept). A pool keeps them across Tables.
type packScratch struct {
	seq  []compactRow
	pk   rowPacker
	seqs []Sequence
}

var packPool = sync.Pool{New: func() any { return new(packScratch) }}

// A rowPacker packs rows into blocks of rowBlock (see Table.enc): about 4
// to 5 bytes a row against compactRow's 16, since a row's address and line
// move by a few from the row before and its file and column often stay.
type rowPacker struct {
	enc  []byte
	blk  []uint32
	boff []uint32
	prev compactRow
}

// add packs the rows of one sequence after those packed so far, and
// returns the index of the sequence's first block. It
// reports false, packing nothing, if the packed rows would pass 4 GiB.
func (pk *rowPacker) add(rows []compactRow) (blk0 uint32, ok bool) {
	// A row packs into at most 1 + 5 + 5 + 3 + 3 + 3 bytes.
	if uint64(len(pk.enc))+20*uint64(len(rows)) > math.MaxUint32 {
		return 0, false
	}
	blk0 = uint32(len(pk.blk))
	for i := range rows {
		p := &rows[i]
		if i%rowBlock == 0 {
			pk.blk = append(pk.blk, uint32(len(pk.enc)))
			pk.boff = append(pk.boff, p.off)
			pk.prev = compactRow{off: p.off}
		}
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
		// The address first (a lookup's scan reads it alone to see
		// where to stop): the distance from the row before, modulo 2^32
		// (a row below the one before is rare: it then takes five bytes).
		pk.enc = append(pk.enc, h)
		if d := p.off - pk.prev.off; d < 0x80 {
			pk.enc = append(pk.enc, byte(d))
		} else {
			pk.enc = binary.AppendUvarint(pk.enc, uint64(d))
		}
		if d := int64(p.line) - int64(pk.prev.line); -64 <= d && d < 64 {
			pk.enc = append(pk.enc, byte(d<<1^d>>63))
		} else {
			pk.enc = binary.AppendVarint(pk.enc, d)
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
	}
	return blk0, true
}

// unpackRow decodes the packed row at enc[k:] over p, which holds the row
// before it in its block (for a block's first, compactRow{off: boff} of
// the block), and returns where
// the next row starts. enc is rowPacker's output, so it does not check.
// Most values take one byte: those skip the varint loops.
func unpackRow(enc []byte, k int, p *compactRow) int {
	h := enc[k]
	if b := enc[k+1]; b < 0x80 {
		p.off += uint32(b)
		k += 2
	} else {
		d, n := binary.Uvarint(enc[k+1:])
		p.off += uint32(d)
		k += 1 + n
	}
	if b := enc[k]; b < 0x80 {
		p.line = uint32(int64(p.line) + (int64(b>>1) ^ -int64(b&1)))
		k++
	} else {
		d, n := binary.Varint(enc[k:])
		p.line = uint32(int64(p.line) + d)
		k += n
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

// wideRow returns row i of the wide form.
func (t *Table) wideRow(i int) Row {
	p := &t.wide[i]
	r := Row{Address: t.addrs[i], OpIndex: p.opIndex, File: p.file, Line: p.line,
		Column: p.column, Discriminator: p.discriminator, ISA: p.isa}
	setFlags(&r, p.flags)
	return r
}

// compactRowAt returns the Row of p, a row of a sequence starting at low.
func compactRowAt(p *compactRow, low uint64) Row {
	r := Row{Address: low + uint64(p.off), File: uint32(p.file), Line: p.line,
		Column: uint32(p.column), Discriminator: uint32(p.discrim)}
	setFlags(&r, p.flags)
	return r
}

// setFlags sets r's flags from their packed byte f.
func setFlags(r *Row, f uint8) {
	r.IsStmt = f&flagStmt != 0
	r.BasicBlock = f&flagBasicBlock != 0
	r.EndSequence = f&flagEndSequence != 0
	r.PrologueEnd = f&flagPrologueEnd != 0
	r.EpilogueBegin = f&flagEpilogueBegin != 0
}

// Sequence is one run of rows of a Table covering the addresses
// [Low, High): Low is its first row's address, High its end_sequence row's.
type Sequence struct {
	Low, High   uint64
	first, last uint32 // row indexes; last is one past the end_sequence row
	section     uint32 // Options.SectionOf's key; 0 without
	blk0        uint32 // the compact form's block of row first
}

// NewTable decodes the whole program of the unit at offset off of data (a
// .debug_line section) and builds its Table. opts may be nil.
//
// If the header is bad, NewTable returns nil and the error. If the program
// goes bad after some sequences ended, it returns a Table of those sequences
// together with the error, so that a caller may still use what decoded.
//
// The Table keeps no reference to data: a caller may reuse or release the
// section's memory once every Table it needs from it is built (with
// Options.Keep, only where Options.Again is set or no row was dropped).
// With Options.LazyFiles it keeps opts' string sections and StrX.
func NewTable(data []byte, off uint64, opts *Options) (*Table, error) {
	o := optsOrZero(opts)
	var r Reader
	if err := r.initLazy(data, off, o, o.LazyFiles); err != nil {
		return nil, err
	}
	r.keep = o.Keep
	t, err := newTableForm(&r, true)
	if t != nil && r.lazy {
		// No define_file decoded the tables: keep their bytes.
		t.files = &lazyFiles{raw: slices.Clone(data[r.tabOff:r.h.ProgramOffset]), opts: Options{
			BigEndian: o.BigEndian, LineStr: o.LineStr, Str: o.Str, StrX: o.StrX, MaxNameBytes: o.MaxNameBytes}}
	}
	if p := t.keptPart(); p != nil {
		// keepOnly dropped rows: what builds them again.
		whole := *o
		whole.Keep, whole.Again = nil, nil
		p.off, p.opts, p.again = off, &whole, o.Again
		if o.Again == nil {
			p.data = data
		}
	}
	return t, err
}

// newTableForm builds the Table of r's program, which it consumes; r must
// not be used after. allowCompact false forces the wide form (for tests).
func newTableForm(r *Reader, allowCompact bool) (*Table, error) {
	// The compact form is built in one pass, its arrays sized from the
	// program's length and copied to size at the end; a row that does
	// not fit it starts over in the wide form. The wide form counts the
	// rows and sequences first (decoding is cheaper than growing its
	// 36 bytes a row by appending), and then holds no spare capacity
	// (but for sequences dropped below).
	var chunk [128]Row
	n, nseq := 0, 0
	compact := allowCompact
	var low uint64
	startSeq := true
	for !compact {
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
		sc  *packScratch
	)
	if compact {
		sc = packPool.Get().(*packScratch)
		defer func() {
			sc.seq = seq[:0]
			sc.pk = rowPacker{enc: pk.enc[:0], blk: pk.blk[:0], boff: pk.boff[:0]}
			packPool.Put(sc)
		}()
		seq, t.seqs = sc.seq[:0], sc.seqs[:0]
		pk = rowPacker{enc: sc.pk.enc[:0], blk: sc.pk.blk[:0], boff: sc.pk.boff[:0]}
	} else {
		t.addrs, t.wide = make([]uint64, n), make([]packedRow, n)
	}
	var (
		nEnd     int // end_sequence rows so far
		seqStart int // where the current sequence's rows start
		w        int // where the next row goes; rows of dropped sequences are overwritten
		err      error
	)
	// With Keep, a sequence that holds none of its addresses is not
	// packed: no lookup of them can pick it (keepOnly drops it anyway).
	// Only where the program is too short for its packed rows to reach
	// pk.add's 4 GiB limit (each row takes a byte of it, and packs into
	// at most 20), so that no error depends on it.
	skip := compact && r.keep != nil && r.pcSection == nil && r.h.EndOffset-r.h.ProgramOffset < math.MaxUint32/20
	low, startSeq = 0, true
decode:
	for {
		k := r.fill(chunk[:])
		if k == 0 {
			err = r.end()
			break
		}
		if !compact {
			// The program decodes the same way twice, so it yields the n
			// rows counted; the bound only keeps the writes below in range.
			k = min(k, n-w)
		}
		for j := range chunk[:k] {
			row := &chunk[j]
			if startSeq {
				low, startSeq = row.Address, false
			}
			if compact {
				if !compactOK(row, low) {
					r.Reset()
					return newTableForm(r, false)
				}
				seq = append(seq, compactRow{off: uint32(row.Address - low), line: row.Line, file: uint16(row.File),
					column: uint16(row.Column), discrim: uint16(row.Discriminator), flags: flagsOf(row)})
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
				if uint64(w) > math.MaxUint32 {
					err = buf.Errorf(pkgName, sectionName, r.Offset(), ErrLimit, "more than 2^32 rows")
					break decode
				}
				var blk0 uint32
				if skip && !holdsAny(r.keep, low, row.Address) {
					blk0 = droppedSeq
				} else if compact {
					var ok bool
					if blk0, ok = pk.add(seq); !ok || blk0 >= unsortedFlag {
						err = buf.Errorf(pkgName, sectionName, r.Offset(), ErrLimit, "rows packed past 4 GiB")
						w = seqStart
						break decode
					}
					if !sortedRows(seq) {
						t.unsorted = append(t.unsorted, unsortedSeq{blk0: blk0, at: uint32(len(t.uoffs))})
						for i := range seq {
							t.uoffs = append(t.uoffs, seq[i].off)
						}
						blk0 = unsortedFlag | uint32(len(t.unsorted)-1)
					}
				}
				sq := Sequence{Low: low, High: row.Address, first: uint32(seqStart), last: uint32(w), blk0: blk0}
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
		t.rows = seqStart
		sc.seqs = t.seqs[:0] // the scratch, grown: the Table gets a copy
		t.seqs = copyOut(t.seqs)
		t.unsorted, t.uoffs = slices.Clip(t.unsorted), slices.Clip(t.uoffs)
	} else {
		t.addrs = slices.Clip(t.addrs[:seqStart])
		t.wide = slices.Clip(t.wide[:seqStart])
	}
	// LLVM sorts with an unstable sort; a stable one makes ties (which only
	// overlapping sequences produce) resolve to the first in the program.
	slices.SortStableFunc(t.seqs, func(a, b Sequence) int { return cmp.Compare(a.High, b.High) })
	if compact {
		if r.keep != nil && r.pcSection == nil {
			t.keepOnly(&pk, r.keep)
		} else {
			t.enc, t.blk, t.boff = copyOut(pk.enc), copyOut(pk.blk), copyOut(pk.boff)
		}
	}
	if r.pcSection != nil {
		t.bySection(r.pcSection)
	}
	t.h = r.h
	// The Table takes r's files: r is not used again, so nothing else
	// appends to them (clipped all the same). The opcode lengths are
	// the one field that aliases data.
	t.h.Files = slices.Clip(r.h.Files)
	t.h.StandardOpcodeLengths = slices.Clone(r.h.StandardOpcodeLengths)
	if err == io.EOF {
		err = nil
	}
	return t, err
}

// Header returns the unit's header, including the files that
// DW_LNE_define_file opcodes added. It must not be modified. With
// Options.LazyFiles the first call decodes the directory and file tables.
func (t *Table) Header() *Header {
	if lf := t.files; lf != nil && !lf.done.Load() {
		lf.once.Do(func() {
			t.h.Dirs, t.h.Files = lf.decode(&t.h)
			lf.done.Store(true)
		})
	}
	return &t.h
}

// FilePaths yields Header().FilePath(i, compDir) for every file index i
// in order, from 0 (for versions 2-4, the placeholder). With
// Options.LazyFiles, before any call to Header, it decodes the tables
// without keeping them.
func (t *Table) FilePaths(compDir string) iter.Seq2[string, bool] {
	return func(yield func(string, bool) bool) {
		h := &t.h
		if lf := t.files; lf != nil && !lf.done.Load() {
			// Of t.h, only what Header never writes: it may be
			// decoding the tables into it meanwhile.
			hh := Header{Version: h.Version}
			hh.Dirs, hh.Files = lf.decode(h)
			h = &hh
		}
		for i := range h.Files {
			if !yield(h.FilePath(uint64(i), compDir)) {
				return
			}
		}
	}
}

// Len returns the number of rows kept, end_sequence rows included.
func (t *Table) Len() int {
	t = t.all()
	return t.rows + len(t.addrs)
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
// the second over the compact form's blocks, then unpacking up to rowBlock
// (8) rows; no allocation. On a Table from NewTableFor, the first lookup that its
// one sequence does not answer builds the whole Table first.
func (t *Table) Lookup(pc uint64) (Row, bool) {
	row, _, ok := t.answers(pc).find(pc)
	return row, ok
}

// LookupRange is Lookup that also returns the end of the address range the
// row covers: the address of the next row in the sequence, which is the
// sequence's High for its last row. Cost as for Lookup.
func (t *Table) LookupRange(pc uint64) (row Row, end uint64, ok bool) {
	return t.answers(pc).find(pc)
}

// A Hint carries where a Table's last lookup landed to the next one, for
// a caller that looks up ascending addresses (LookupRangeFrom). The zero
// Hint is a start; any Hint is valid, a stale one or another Table's
// included, and gives the same answers.
type Hint struct {
	seq, blk int // the sequence (in seqs) and block (in boff) of the last answer
}

// LookupRangeFrom is LookupRange for a caller that looks up ascending
// addresses: a lookup at or above h's last one searches forward from it
// in a few probes of nearby sequences and blocks, instead of searching
// the whole table. It updates h.
func (t *Table) LookupRangeFrom(pc uint64, h *Hint) (row Row, end uint64, ok bool) {
	t = t.answers(pc)
	if h == nil || t.pcSection != nil || t.addrs != nil {
		return t.find(pc)
	}
	i := upperSeqFrom(t.seqs, pc, h.seq)
	if i == len(t.seqs) || pc < t.seqs[i].Low {
		return Row{}, 0, false
	}
	h.seq = i
	return t.findIn(&t.seqs[i], pc, &h.blk)
}

// upperSeqFrom is lookupIn's upper bound over seqs (sorted by High),
// searched forward from i when every sequence before i ends at or below
// pc, else from the start: an exponential search, then a binary one
// between its last two probes.
func upperSeqFrom(seqs []Sequence, pc uint64, i int) int {
	n := len(seqs)
	if i < 0 || i > n || i > 0 && pc < seqs[i-1].High {
		i = 0
	}
	if i == n || pc < seqs[i].High {
		return i
	}
	lo, step := i, 1 // seqs[lo].High <= pc
	for lo+step < n && seqs[lo+step].High <= pc {
		lo += step
		step <<= 1
	}
	hi := min(lo+step, n) // n, or seqs[hi].High > pc
	for lo+1 < hi {
		mid := int(uint(lo+hi) >> 1)
		if seqs[mid].High <= pc {
			lo = mid
		} else {
			hi = mid
		}
	}
	return hi
}

// find returns the row covering pc and the address of the row after it.
func (t *Table) find(pc uint64) (Row, uint64, bool) {
	s := t.lookup(pc)
	if s == nil {
		return Row{}, 0, false
	}
	return t.findIn(s, pc, nil)
}

// findIn is find in sequence s, which answers pc. blk, when not nil,
// holds the block of the last answer, where the search of s's blocks
// starts if it can, and is set to this answer's.
func (t *Table) findIn(s *Sequence, pc uint64, blk *int) (Row, uint64, bool) {
	if t.addrs != nil {
		// upper_bound over rows [first+1, last-1) (excluding the end
		// row), minus one.
		first, last := int(s.first)+1, int(s.last)-1
		i := first + upperBound(t.addrs[first:last], pc) - 1
		return t.wideRow(i), t.addrs[i+1], true
	}
	// The compact form's rows are in address order (compactOK), so the
	// row LLVM's upper_bound finds is the last at or below pc: in the
	// last of the sequence's blocks that starts at or below pc (the
	// first does, at Low), before the first row above pc. The end row,
	// at High, is above pc, so the scan stops there at the latest.
	// Offsets from s.Low: pc-Low fits them, as pc is below High, itself
	// a compact offset from Low.
	if s.blk0 == droppedSeq {
		return t.all().find(pc) // Options.Keep dropped its rows
	}
	off := uint32(pc - s.Low)
	if s.blk0&unsortedFlag != 0 {
		// As the wide form searches, by the rows' offsets.
		u := &t.unsorted[s.blk0&^unsortedFlag]
		offs := t.uoffs[u.at:][:s.last-s.first]
		j := upperBound(offs[1:len(offs)-1], off)
		p := compactRow{off: t.boff[int(u.blk0)+j/rowBlock]}
		k := int(t.blk[int(u.blk0)+j/rowBlock])
		for range j%rowBlock + 1 {
			k = unpackRow(t.enc, k, &p)
		}
		return compactRowAt(&p, s.Low), s.Low + uint64(offs[j+1]), true
	}
	nb := (int(s.last-s.first) + rowBlock - 1) / rowBlock
	var b int
	if blk != nil {
		b = lastBlockFrom(t.boff[s.blk0:int(s.blk0)+nb], off, *blk-int(s.blk0)) + int(s.blk0)
		*blk = b
	} else {
		b = int(s.blk0) + upperBound(t.boff[s.blk0:int(s.blk0)+nb], off) - 1
	}
	if t.blk[b] == droppedBlock {
		return t.all().find(pc) // Options.Keep dropped its rows
	}
	p := compactRow{off: t.boff[b]}
	k := unpackRow(t.enc, int(t.blk[b]), &p)
	rowsLeft := int(s.last-s.first) - (b-int(s.blk0))*rowBlock // in this block and after
	for j := 1; j < min(rowBlock, rowsLeft); j++ {
		// The next row's address, read alone (unpackRow's first field).
		next := p.off
		if b := t.enc[k+1]; b < 0x80 {
			next += uint32(b)
		} else {
			d, _ := binary.Uvarint(t.enc[k+1:])
			next += uint32(d)
		}
		if next > off {
			return compactRowAt(&p, s.Low), s.Low + uint64(next), true
		}
		k = unpackRow(t.enc, k, &p)
	}
	// The block's last row: the next block starts above pc.
	return compactRowAt(&p, s.Low), s.Low + uint64(t.boff[b+1]), true
}

// lastBlockFrom returns the last of a sequence's block offsets boff (in
// ascending order, the first 0) at or below off, searched forward from i
// when boff[i] is at or below off, else from the start.
func lastBlockFrom(boff []uint32, off uint32, i int) int {
	if i < 0 || i >= len(boff) || boff[i] > off {
		return upperBound(boff, off) - 1
	}
	return sorted.LastFrom(boff, off, i)
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

// lookup returns the sequence that answers pc, or nil.
func (t *Table) lookup(pc uint64) *Sequence {
	if t.pcSection == nil {
		return lookupIn(pc, t.seqs)
	}
	// LineTable::lookupAddress: the sequences of pc's section, then
	// those of none.
	sec := t.pcSection(pc)
	if s := lookupIn(pc, t.sectionSeqs(sec)); s != nil || sec == 0 {
		return s
	}
	return lookupIn(pc, t.sectionSeqs(0))
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
func lookupIn(pc uint64, seqs []Sequence) *Sequence {
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
		return nil
	}
	s := &seqs[lo]
	if pc < s.Low {
		return nil
	}
	return s
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
		if !t.holds(s) {
			return // not a Sequence of this Table
		}
		if t.addrs != nil {
			for i := int(s.first); i < int(s.last); i++ {
				if !yield(t.wideRow(i)) {
					return
				}
			}
			return
		}
		b := int(s.blk0)
		if s.blk0&unsortedFlag != 0 {
			b = int(t.unsorted[s.blk0&^unsortedFlag].blk0)
		}
		// Unpack the rows in order, block by block.
		var p compactRow
		k := 0
		for j := range int(s.last - s.first) {
			if j%rowBlock == 0 {
				p, k = compactRow{off: t.boff[b]}, int(t.blk[b])
				b++
			}
			k = unpackRow(t.enc, k, &p)
			r := compactRowAt(&p, s.Low)
			if !yield(r) {
				return
			}
		}
	}
}

// holds reports whether s is one of t's sequences (the compact form's
// blocks hold a sequence's rows alone, so the rows of another Table's
// sequence would not be where its indexes say).
func (t *Table) holds(s Sequence) bool {
	// The sequences are sorted by High, or by section, then High
	// (bySection).
	bySec := t.pcSection != nil
	key := func(a Sequence) (uint32, uint64) {
		if bySec {
			return a.section, a.High
		}
		return 0, a.High
	}
	sec, high := key(s)
	i, _ := slices.BinarySearchFunc(t.seqs, s, func(a, _ Sequence) int {
		as, ah := key(a)
		return cmp.Or(cmp.Compare(as, sec), cmp.Compare(ah, high))
	})
	for ; i < len(t.seqs); i++ {
		if as, ah := key(t.seqs[i]); as != sec || ah != high {
			break
		}
		if t.seqs[i] == s {
			return true
		}
	}
	return false
}

// sortedRows reports whether rows are in address order.
func sortedRows(rows []compactRow) bool {
	for i := 1; i < len(rows); i++ {
		if rows[i].off < rows[i-1].off {
			return false
		}
	}
	return true
}

// copyOut returns a copy of s, a scratch slice, to size; nil if s is
// empty (an empty slice of the scratch would keep all of it alive).
func copyOut[T any](s []T) []T {
	if len(s) == 0 {
		return nil
	}
	return slices.Clone(s)
}

// keptPart returns t's partial when Options.Keep dropped rows of t, nil
// otherwise (t nil included).
func (t *Table) keptPart() *partial {
	if t == nil || t.part == nil || !t.part.keep {
		return nil
	}
	return t.part
}

// holdsAny reports whether an address of keep (ascending) lies in
// [lo, hi).
func holdsAny(keep []uint64, lo, hi uint64) bool {
	i, _ := slices.BinarySearch(keep, lo)
	return i < len(keep) && keep[i] < hi
}

// Markers of rows that Options.Keep dropped: a Sequence.blk0 of droppedSeq
// has none of its rows kept (a real blk0, unsortedFlag or not, is below
// it: there are fewer than 2^31-1 blocks or unsorted sequences), a blk
// entry of droppedBlock is a block whose rows are not in enc (a real
// offset is below it: enc is below 4 GiB).
const (
	droppedSeq   = math.MaxUint32
	droppedBlock = math.MaxUint32
)

// keepOnly sets t's enc, blk and boff from pk, keeping the rows that
// lookups of the addresses keep (in ascending order) read: the block find unpacks for
// each, all the blocks of a sequence whose rows are out of address order.
// The blocks of a sequence no address reaches are dropped with their
// blk and boff entries (its blk0 becomes droppedSeq), and so are the
// unreached blocks' bytes in a sequence some address reaches (their blk
// entries become droppedBlock). t.seqs must be sorted (find's order);
// a sequence newTableForm did not pack has blk0 droppedSeq already. When
// anything was dropped, t.part is set, for NewTable to complete.
func (t *Table) keepOnly(pk *rowPacker, keep []uint64) {
	end := func(b int) uint32 { // where block b's bytes end
		if b+1 < len(pk.blk) {
			return pk.blk[b+1]
		}
		return uint32(len(pk.enc))
	}
	blocks := func(s *Sequence) (first, n int) {
		b0 := s.blk0
		if b0&unsortedFlag != 0 {
			b0 = t.unsorted[b0&^unsortedFlag].blk0
		}
		return int(b0), (int(s.last-s.first) + rowBlock - 1) / rowBlock
	}
	// Which blocks the addresses reach, as find reaches them: the first
	// sequence by High above pc (lookupIn), which moves forward as pc
	// does, so one pass over both lists finds every pc's.
	reached := make([]bool, len(pk.blk))
	hit := make([]bool, len(t.seqs))
	i := 0
	for _, pc := range keep {
		for i < len(t.seqs) && t.seqs[i].High <= pc {
			i++
		}
		if i == len(t.seqs) {
			break
		}
		s := &t.seqs[i]
		if pc < s.Low || s.blk0 == droppedSeq {
			continue // none, or one not packed (keep out of order)
		}
		hit[i] = true
		if s.blk0&unsortedFlag != 0 {
			continue // kept whole below
		}
		b0, nb := blocks(s)
		off := uint32(pc - s.Low)
		reached[b0+upperBound(pk.boff[b0:b0+nb], off)-1] = true
	}
	var enc []byte
	var blk, boff []uint32
	nbytes, nblk := 0, 0
	for i := range t.seqs {
		if !hit[i] {
			continue
		}
		b0, nb := blocks(&t.seqs[i])
		nblk += nb
		for b := b0; b < b0+nb; b++ {
			if t.seqs[i].blk0&unsortedFlag != 0 || reached[b] {
				nbytes += int(end(b) - pk.blk[b])
			}
		}
	}
	skipped := slices.ContainsFunc(t.seqs, func(s Sequence) bool { return s.blk0 == droppedSeq })
	if !skipped && nbytes == len(pk.enc) && nblk == len(pk.blk) {
		t.enc, t.blk, t.boff = copyOut(pk.enc), copyOut(pk.blk), copyOut(pk.boff)
		return
	}
	t.part = &partial{keep: true}
	enc, blk, boff = make([]byte, 0, nbytes), make([]uint32, 0, nblk), make([]uint32, 0, nblk)
	for i := range t.seqs {
		s := &t.seqs[i]
		if !hit[i] {
			s.blk0 = droppedSeq
			continue
		}
		b0, nb := blocks(s)
		whole := s.blk0&unsortedFlag != 0
		if whole {
			t.unsorted[s.blk0&^unsortedFlag].blk0 = uint32(len(blk))
		} else {
			s.blk0 = uint32(len(blk))
		}
		for b := b0; b < b0+nb; b++ {
			boff = append(boff, pk.boff[b])
			if whole || reached[b] {
				blk = append(blk, uint32(len(enc)))
				enc = append(enc, pk.enc[pk.blk[b]:end(b)]...)
			} else {
				blk = append(blk, droppedBlock)
			}
		}
	}
	t.enc, t.blk, t.boff = enc, blk, boff
}
