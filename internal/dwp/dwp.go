// Package dwp reads the unit indexes of DWARF packages: the
// .debug_cu_index and .debug_tu_index sections that llvm-dwp and GNU dwp
// write into a .dwp file [DWARF5 7.3.5], in the DWARF 5 format (version 5)
// and in the GNU extension that came before it (version 2, which llvm-dwp
// still writes for DWARF 4 input; see gcc's wiki page DebugFissionDWP). An
// index maps a unit's signature (a split compile unit's dwo_id, a type
// unit's type signature) to its contributions: where its bytes lie in each
// .dwo section of the package.
//
// # Format
//
// A header (version, the number of columns, units and hash slots), a hash
// table of slot_count 8-byte signatures and a parallel table of slot_count
// 4-byte row numbers (1-based; 0 marks an empty slot), then a row of
// column section ids, unit_count rows of 4-byte offsets and unit_count rows
// of 4-byte sizes. A signature S is looked for at slot S & (slot_count-1),
// then by steps of ((S >> 32) & (slot_count-1)) | 1, until its slot or an
// empty one.
//
// # Robustness
//
// No input makes this package panic, loop or allocate out of proportion to
// its size. Parse checks the header and that every table fits in the
// section before reading it (so the allocations are bounded by the section
// size), and walks the probe sequence of every used slot within a budget
// proportional to the number of slots; Find then probes at most as far as
// the longest sequence Parse met. Problems come back as a *DecodeError
// naming the section and offset: a header or table that does not fit makes
// the index unusable; a slot that is inconsistent (a row number past
// unit_count, a row that two slots name, a signature that its probe
// sequence does not reach or that an earlier slot on that sequence
// repeats) costs that slot alone, and Find reports the slot's error when
// asked for its signature.
//
// LLVM 14 (DWARFUnitIndex) checks less: it reads past unit_count, and its
// lookup does not end on a full table without the signature.
//
// # Concurrency
//
// An Index is immutable once parsed and safe for concurrent use.
package dwp

import (
	"iter"

	"github.com/symbolize-go/symbolize/internal/buf"
)

const pkg = "dwp"

// DecodeError says which section and offset held bad input; it is the same
// type in every package of this module.
type DecodeError = buf.DecodeError

// Sentinel causes, for errors.Is.
var (
	ErrTruncated          = buf.ErrTruncated
	ErrUnsupportedVersion = buf.ErrUnsupportedVersion
	ErrFormat             = buf.ErrFormat
	ErrLimit              = buf.ErrLimit
)

// Kind is the kind of section a column of the index describes, the same
// for both versions (whose DW_SECT_* numbers differ).
type Kind uint8

// Section kinds. Unknown is a column whose id this reader does not know
// (LLVM ignores those too).
const (
	Unknown    Kind = iota
	Info            // .debug_info.dwo: DW_SECT_INFO (1 in both versions)
	Types           // .debug_types.dwo: DW_SECT_TYPES (2, version 2 only)
	Abbrev          // .debug_abbrev.dwo: DW_SECT_ABBREV (3)
	Line            // .debug_line.dwo: DW_SECT_LINE (4)
	Loc             // .debug_loc.dwo: DW_SECT_LOC (5, version 2)
	Loclists        // .debug_loclists.dwo: DW_SECT_LOCLISTS (5, version 5)
	StrOffsets      // .debug_str_offsets.dwo: DW_SECT_STR_OFFSETS (6)
	Macinfo         // .debug_macinfo.dwo: DW_SECT_MACINFO (7, version 2)
	Macro           // .debug_macro.dwo: DW_SECT_MACRO (8 in version 2, 7 in version 5)
	Rnglists        // .debug_rnglists.dwo: DW_SECT_RNGLISTS (8, version 5)
)

var kindNames = [...]string{Unknown: "unknown", Info: "INFO", Types: "TYPES", Abbrev: "ABBREV", Line: "LINE",
	Loc: "LOC", Loclists: "LOCLISTS", StrOffsets: "STR_OFFSETS", Macinfo: "MACINFO", Macro: "MACRO", Rnglists: "RNGLISTS"}

// String returns the kind's DW_SECT_ name without the prefix, as
// llvm-dwarfdump prints column headers ("INFO", "STR_OFFSETS").
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "unknown"
}

// kindOf maps a column's section id to its kind [DWARF5 table 7.1; gcc's
// DebugFissionDWP for version 2].
func kindOf(version uint16, id uint32) Kind {
	if version == 2 {
		switch id {
		case 1:
			return Info
		case 2:
			return Types
		case 3:
			return Abbrev
		case 4:
			return Line
		case 5:
			return Loc
		case 6:
			return StrOffsets
		case 7:
			return Macinfo
		case 8:
			return Macro
		}
		return Unknown
	}
	switch id {
	case 1:
		return Info
	case 3:
		return Abbrev
	case 4:
		return Line
	case 5:
		return Loclists
	case 6:
		return StrOffsets
	case 7:
		return Macro
	case 8:
		return Rnglists
	}
	return Unknown
}

// Contribution is where a unit's bytes lie in one section of the package.
type Contribution struct {
	Offset, Size uint64
}

// Index is a parsed unit index. Build it with Parse.
type Index struct {
	// Version is 2 (the GNU extension) or 5.
	Version uint16

	section string
	big     bool
	data    []byte
	cols    []Kind
	units   uint32
	slots   uint32
	unitCol int // the column of the units' own section (Info, or Types in a version 2 TU index)

	sigOff, rowOff, offOff, sizeOff uint64 // table offsets in data
	slotErr                         map[uint32]error
	maxProbe                        uint32 // the longest probe sequence of a good slot
}

// headerSize is the size of an index header in both versions.
const headerSize = 16

// Parse reads the unit index in data, the bytes of the section named
// section: ".debug_cu_index" or ".debug_tu_index" (which also decides, in
// a version 2 index, whether the units are in the DW_SECT_INFO or the
// DW_SECT_TYPES column). bigEndian gives the byte order of the file.
//
// On a header or table that does not fit in data, an unknown version, a
// slot count that is not a power of two (or less than the unit count), or
// columns without exactly one for the units' section, Parse returns nil and
// the error. Inconsistent slots are left out of lookups (see the package
// doc): Parse then returns the index with the first slot's error.
//
// Cost: O(slot_count) plus the probe walk, which is bounded by
// 16*slot_count+1024 steps in all (real indexes, at most three quarters
// full, need about two a slot); allocation is small and fixed but for a map
// of the bad slots.
func Parse(section string, data []byte, bigEndian bool) (*Index, error) {
	r := buf.New(pkg, section, data, bigEndian)
	ix := &Index{section: section, big: bigEndian, data: data}
	if len(data) < headerSize {
		return nil, buf.Errorf(pkg, section, 0, ErrTruncated, "index header needs %d bytes, section has %d", headerSize, len(data))
	}
	// gcc's version 2 is a 4-byte field; DWARF 5 made it 2 bytes of
	// version and 2 of padding (LLVM reads it the same way).
	if v := r.U32(); v == 2 {
		ix.Version = 2
	} else {
		r.Seek(0)
		ix.Version = r.U16()
		r.U16()
		if ix.Version != 5 {
			return nil, buf.Errorf(pkg, section, 0, ErrUnsupportedVersion, "unit index version %d", ix.Version)
		}
	}
	ncols, units, slots := r.U32(), r.U32(), r.U32()
	if slots != 0 && slots&(slots-1) != 0 {
		return nil, buf.Errorf(pkg, section, 12, ErrFormat, "slot count %d is not a power of two", slots)
	}
	if units > slots {
		return nil, buf.Errorf(pkg, section, 8, ErrFormat, "%d units do not fit in %d slots", units, slots)
	}
	if units > 0 && ncols == 0 {
		return nil, buf.Errorf(pkg, section, 4, ErrFormat, "index of %d units has no columns", units)
	}
	// Sizes in 64 bits: the counts are 32-bit, so none of this overflows.
	need := uint64(slots)*12 + uint64(ncols)*4 + 2*uint64(units)*uint64(ncols)*4
	if need > uint64(len(data))-headerSize {
		return nil, buf.Errorf(pkg, section, headerSize, ErrTruncated, "tables of %d slots, %d units and %d columns need %#x bytes, %#x left",
			slots, units, ncols, need, uint64(len(data))-headerSize)
	}
	ix.units, ix.slots = units, slots
	ix.sigOff = headerSize
	ix.rowOff = ix.sigOff + 8*uint64(slots)
	colOff := ix.rowOff + 4*uint64(slots)
	ix.offOff = colOff + 4*uint64(ncols)
	ix.sizeOff = ix.offOff + 4*uint64(units)*uint64(ncols)

	// Columns: exactly one for the units' own section; other kinds at
	// most once (a repeated one would make a contribution ambiguous).
	want := Info
	if ix.Version == 2 && section == ".debug_tu_index" {
		want = Types
	}
	ix.cols = make([]Kind, ncols)
	ix.unitCol = -1
	r.Seek(colOff)
	var seen [Rnglists + 1]bool
	for i := range ix.cols {
		off := r.Offset()
		id := r.U32()
		k := kindOf(ix.Version, id)
		if k != Unknown {
			if seen[k] {
				return nil, buf.Errorf(pkg, section, off, ErrFormat, "section id %d (%v) in two columns", id, k)
			}
			seen[k] = true
		}
		if k == want {
			ix.unitCol = i
		}
		ix.cols[i] = k
	}
	if ix.unitCol < 0 && units > 0 {
		return nil, buf.Errorf(pkg, section, colOff, ErrFormat, "no %v column", want)
	}
	return ix, ix.checkSlots()
}

// sig and row read slot i's signature and row number.
func (ix *Index) sig(i uint32) uint64 {
	r := buf.New(pkg, ix.section, ix.data, ix.big)
	r.Seek(ix.sigOff + 8*uint64(i))
	return r.U64()
}

func (ix *Index) row(i uint32) uint32 {
	r := buf.New(pkg, ix.section, ix.data, ix.big)
	r.Seek(ix.rowOff + 4*uint64(i))
	return r.U32()
}

// probeBudget bounds the steps checkSlots takes over all slots.
func probeBudget(slots uint32) uint64 { return 16*uint64(slots) + 1024 }

// checkSlots validates every used slot: its row number, that no other slot
// names the same row, and that its signature's probe sequence reaches it
// without meeting the same signature first. Bad slots go to slotErr.
func (ix *Index) checkSlots() error {
	if ix.slots == 0 {
		return nil
	}
	var first error
	bad := func(slot uint32, err error) {
		if ix.slotErr == nil {
			ix.slotErr = make(map[uint32]error)
		}
		ix.slotErr[slot] = err
		if first == nil {
			first = err
		}
	}
	rowSeen := make([]bool, ix.units)
	budget := probeBudget(ix.slots)
	mask := ix.slots - 1
	for i := range ix.slots {
		row := ix.row(i)
		if row == 0 {
			continue
		}
		at := ix.rowOff + 4*uint64(i)
		if row > ix.units {
			bad(i, buf.Errorf(pkg, ix.section, at, ErrFormat, "slot %d names row %d of %d", i, row, ix.units))
			continue
		}
		if rowSeen[row-1] {
			bad(i, buf.Errorf(pkg, ix.section, at, ErrFormat, "slot %d names row %d, which an earlier slot names", i, row))
			continue
		}
		rowSeen[row-1] = true
		s := ix.sig(i)
		h, step := uint32(s)&mask, uint32(s>>32)&mask|1
		var n uint32
		for {
			n++
			if h == i {
				break
			}
			if budget == 0 {
				return buf.Errorf(pkg, ix.section, ix.sigOff, ErrLimit, "probe sequences longer than %d steps in all", probeBudget(ix.slots))
			}
			budget--
			if ix.row(h) == 0 {
				bad(i, buf.Errorf(pkg, ix.section, ix.sigOff+8*uint64(i), ErrFormat,
					"signature %#x in slot %d, which its probe sequence does not reach (empty slot %d first)", s, i, h))
				break
			}
			if ix.sig(h) == s {
				bad(i, buf.Errorf(pkg, ix.section, ix.sigOff+8*uint64(i), ErrFormat,
					"signature %#x in slots %d and %d", s, h, i))
				break
			}
			if n > ix.slots {
				// Unreachable: a sequence with an odd step visits
				// every slot of a power-of-two table once.
				break
			}
			h = (h + step) & mask
		}
		ix.maxProbe = max(ix.maxProbe, n)
	}
	return first
}

// Len returns the number of units (rows) the index declares.
func (ix *Index) Len() int { return int(ix.units) }

// Columns returns the kinds of the index's columns, in order; Unknown for
// ids this reader does not know.
func (ix *Index) Columns() []Kind { return append([]Kind(nil), ix.cols...) }

// Row is one unit of the index: its signature and its contributions.
type Row struct {
	Signature uint64
	ix        *Index
	n         uint32 // 0-based row
}

// Contribution returns the row's contribution to the section of kind k,
// and false when the index has no column for k. The offsets and sizes are
// as the index states them: the caller checks them against the sections.
func (r Row) Contribution(k Kind) (Contribution, bool) {
	if r.ix == nil || k == Unknown {
		return Contribution{}, false
	}
	for i, c := range r.ix.cols {
		if c != k {
			continue
		}
		rd := buf.New(pkg, r.ix.section, r.ix.data, r.ix.big)
		cell := uint64(r.n)*uint64(len(r.ix.cols)) + uint64(i)
		rd.Seek(r.ix.offOff + 4*cell)
		off := rd.U32()
		rd.Seek(r.ix.sizeOff + 4*cell)
		size := rd.U32()
		return Contribution{Offset: uint64(off), Size: uint64(size)}, true
	}
	return Contribution{}, false
}

// Unit returns the row's contribution to its units' own section
// (.debug_info.dwo, or .debug_types.dwo for a version 2 TU index).
func (r Row) Unit() Contribution {
	c, _ := r.Contribution(r.ix.cols[r.ix.unitCol])
	return c
}

// Find returns the row of signature sig, found as a consumer looks for it
// (the probe sequence of the package doc); ok is false when no slot holds
// it. A slot that holds it but that Parse found inconsistent gives its
// error instead.
//
// Cost: at most as many probes as the longest sequence Parse met; no
// allocation.
func (ix *Index) Find(sig uint64) (Row, bool, error) {
	if ix.slots == 0 || ix.unitCol < 0 {
		return Row{}, false, nil
	}
	mask := ix.slots - 1
	h, step := uint32(sig)&mask, uint32(sig>>32)&mask|1
	for range ix.maxProbe {
		row := ix.row(h)
		if row == 0 {
			break
		}
		if ix.sig(h) == sig {
			if err := ix.slotErr[h]; err != nil {
				return Row{}, false, err
			}
			return Row{Signature: sig, ix: ix, n: row - 1}, true, nil
		}
		h = (h + step) & mask
	}
	// A signature stored where its sequence does not lead (Parse said
	// so): report it rather than answer "absent".
	for slot, err := range ix.slotErr {
		if ix.sig(slot) == sig {
			return Row{}, false, err
		}
	}
	return Row{}, false, nil
}

// All returns the good rows in slot order.
func (ix *Index) All() iter.Seq[Row] {
	return func(yield func(Row) bool) {
		for i := range ix.slots {
			row := ix.row(i)
			if row == 0 || ix.slotErr[i] != nil {
				continue
			}
			if !yield(Row{Signature: ix.sig(i), ix: ix, n: row - 1}) {
				return
			}
		}
	}
}
