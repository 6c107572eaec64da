// Package dwinfo reads .debug_info and the address-range sections
// (.debug_aranges, .debug_ranges, .debug_rnglists), shared by the root
// package's address index and by package inline.
//
// Everything decodes lazily and zero-copy from the section bytes given in
// Sections: returned byte slices alias those sections.
//
// # API summary
//
//	d := dwinfo.New(secs, nil)          // *Data: sections + abbrev cache; safe for concurrent use
//	ur := d.Units()                     // walk unit headers only (no DIEs decoded)
//	for { var h dwinfo.Header; if err := ur.Next(&h); err != nil { break } }
//	h, ok, err := d.UnitContaining(off) // header of the unit holding a .debug_info offset
//	u, err := d.LoadUnit(h)             // header + root DIE (bases, name, low_pc, ...) + abbrevs
//	u, err := d.UnitAt(off)             // the same, cached per unit offset (allocation-free when cached)
//	u, err := d.LoadSplitUnit(h, bases) // a split unit of a .dwo/.dwp, with its skeleton's bases (SplitBases)
//	er := u.Entries()                   // DIE reader, or u.EntriesAt(off)
//	var e dwinfo.Entry
//	for er.Next(&e) == nil {            // io.EOF at the unit's end; null entries are not returned
//		e.Offset, e.Tag, e.Children, e.Depth
//		v, ok, err := u.Attr(&e, dwinfo.AttrName) // or it := u.Attrs(&e); it.Next(&f)
//		s, err := u.String(v)           // string/strp/line_strp/strx*
//		pc, err := u.Addr(v)            // addr/addrx*;  u.HighPC(low, v) for DW_AT_high_pc
//		ref, ok := u.Ref(v)             // absolute .debug_info offset
//		rr := u.Ranges(v)               // DW_AT_ranges: .debug_ranges or .debug_rnglists
//		er.SkipChildren(&e)             // skip e's subtree (DW_AT_sibling when present)
//	}
//	er.NextWhere(&e, depth, dwinfo.Tags(t1, t2)) // the next DIE with a tag of the set or depth <= depth
//	ix := dwinfo.NewIndex(d)            // PC -> unit offset, like llvm-symbolizer 14
//	off, ok := ix.Lookup(pc)            // O(log n), allocation-free; then d.UnitAt(off)
//	ar := d.Aranges()                   // raw .debug_aranges tuples
//	rr := d.RangeList(off, v5, asz, base, addrBase) // a range list by hand
//
// The index is two-tier and lazy: NewIndex reads only .debug_aranges; the
// walk over unit headers and unit DIEs happens on the first PC the aranges
// miss. See Index for the one (tiny) deviation from LLVM this implies.
//
// # Robustness
//
// No input makes this package panic, loop forever or allocate out of
// proportion to its size: every count is capped by the bytes that remain,
// every DIE consumes at least one byte, DW_AT_sibling is followed only
// forward within its unit, DIE nesting is bounded by Options.MaxDepth, and
// range lists are read strictly forward. Corrupt input yields a
// *DecodeError naming the section and the absolute offset, wrapping one of
// the sentinels below.
//
// # Concurrency
//
// Data, Unit and Index are safe for concurrent use once built (their lazy
// parts are guarded by sync.Once). Readers (UnitReader, EntryReader,
// AttrReader, RangeReader, ArangeReader) are small values owned by one
// goroutine.
package dwinfo

import "github.com/symbolize-go/symbolize/internal/buf"

const pkg = "dwinfo"

// Section names used in errors.
const (
	secInfo       = ".debug_info"
	secAbbrev     = ".debug_abbrev"
	secStr        = ".debug_str"
	secLineStr    = ".debug_line_str"
	secStrOffsets = ".debug_str_offsets"
	secAddr       = ".debug_addr"
	secRanges     = ".debug_ranges"
	secRnglists   = ".debug_rnglists"
	secAranges    = ".debug_aranges"
)

// DecodeError says which section and offset held bad input; it is the same
// type in every package of this module.
type DecodeError = buf.DecodeError

// Sentinel causes, for errors.Is.
var (
	ErrTruncated          = buf.ErrTruncated
	ErrOverflow           = buf.ErrOverflow
	ErrUnsupportedVersion = buf.ErrUnsupportedVersion
	ErrFormat             = buf.ErrFormat
	ErrLimit              = buf.ErrLimit
)

// Sections holds the raw bytes of the DWARF sections this package reads.
// Any may be nil. The bytes are never modified or copied.
type Sections struct {
	Info       []byte // .debug_info
	Abbrev     []byte // .debug_abbrev
	Str        []byte // .debug_str
	LineStr    []byte // .debug_line_str
	StrOffsets []byte // .debug_str_offsets
	Addr       []byte // .debug_addr
	Ranges     []byte // .debug_ranges (DWARF 2-4)
	Rnglists   []byte // .debug_rnglists (DWARF 5)
	Aranges    []byte // .debug_aranges
	BigEndian  bool

	// InfoPrefix, when set, makes .debug_info lazy: Info then holds the
	// bytes available so far (possibly none), InfoSize is the whole
	// section's size, and InfoPrefix(n) returns at least the first n bytes
	// (all of them when n >= InfoSize). A unit is read only once the bytes
	// through its end are there, so a compressed .debug_info is inflated
	// only as far as the units a caller touches (walking every unit header,
	// as the units tier of Index and UnitContaining do, inflates it all).
	InfoPrefix func(n uint64) ([]byte, error)
	InfoSize   uint64
}

// DefaultMaxDepth is the DIE nesting limit used when Options.MaxDepth is 0.
// Real programs nest a few dozen levels; the limit only stops hostile input.
const DefaultMaxDepth = 1024

// Options tunes decoding. The zero value is ready to use.
type Options struct {
	// MaxDepth bounds DIE nesting (the unit DIE is depth 0). A deeper
	// entry makes the entry reader fail with ErrLimit. 0 means
	// DefaultMaxDepth.
	MaxDepth int
}
