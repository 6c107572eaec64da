package dwinfo

import (
	"io"
	"sync"

	"github.com/symbolize-go/symbolize/internal/buf"
	"github.com/symbolize-go/symbolize/internal/dw"
)

// Data is the entry point: the sections plus a cache of parsed
// abbreviation tables and, once asked for, the list of unit headers. It is
// safe for concurrent use.
type Data struct {
	s        Sections
	maxDepth int

	abbrevMu sync.Mutex
	abbrevs  map[uint64]*abbrevSlot
	decls    declPool // what the tables in abbrevs declare

	unitMu sync.Mutex
	units  map[uint64]*unitSlot

	hdrOnce sync.Once
	hdrs    []Header
	hdrErr  error

	info *buf.Lazy // .debug_info: UpTo(end) covers at least [0, end), Size is the whole section

	sup supLink // the supplementary file (sup.go)
}

type unitSlot struct {
	once sync.Once
	u    *Unit
	err  error
}

type abbrevSlot struct {
	once sync.Once
	tab  *AbbrevTable
	err  error
}

// New returns a Data over s. opts may be nil. It decodes nothing.
func New(s Sections, opts *Options) *Data {
	d := &Data{s: s, maxDepth: DefaultMaxDepth, abbrevs: make(map[uint64]*abbrevSlot), units: make(map[uint64]*unitSlot)}
	if opts != nil && opts.MaxDepth > 0 {
		d.maxDepth = opts.MaxDepth
	}
	d.info = buf.NewLazy(s.Info, s.InfoSize, s.InfoPrefix)
	return d
}

func (d *Data) reader(section string, data []byte) buf.Reader {
	return buf.New(pkg, section, data, d.s.BigEndian)
}

// Header is a unit header [DWARF5 7.5.1]. Offsets are absolute in
// .debug_info.
type Header struct {
	Offset       uint64   // of the unit header (its initial length)
	End          uint64   // first byte after the unit
	DIEOffset    uint64   // of the unit DIE
	AbbrevOffset uint64   // into .debug_abbrev
	Version      uint16   // 2..5
	Type         UnitType // DW_UT_*; UnitCompile before DWARF 5
	AddrSize     uint8
	Dwarf64      bool
	DWOID        uint64 // skeleton and split_compile units (DWARF 5 header)
	TypeSig      uint64 // type and split_type units
	TypeOffset   uint64 // type units: absolute offset of the type DIE
}

// Form returns what internal/dw needs to read attribute values of the unit.
func (h *Header) Form() dw.Unit {
	return dw.Unit{Version: h.Version, Dwarf64: h.Dwarf64, AddrSize: h.AddrSize}
}

// IsType reports whether h is a type unit (DW_UT_type or DW_UT_split_type),
// which holds no code.
func (h *Header) IsType() bool { return h.Type == UnitTypeUnit || h.Type == UnitSplitType }

// offSize is 4 for DWARF32 and 8 for DWARF64.
func (h *Header) offSize() uint64 {
	if h.Dwarf64 {
		return 8
	}
	return 4
}

// HeaderAt decodes the unit header at absolute .debug_info offset off. On a
// header that is readable but unusable (unsupported version, unknown unit
// type) it still fills End, so a caller may skip the unit.
func (d *Data) HeaderAt(off uint64) (Header, error) {
	var h Header
	info, err := d.info.UpTo(off + 12) // the longest initial length
	if err != nil {
		return h, err
	}
	r := d.reader(secInfo, info)
	r.Seek(off)
	h.Offset = off
	length, dwarf64 := r.InitialLength()
	if r.Err() != nil {
		return h, r.Err()
	}
	start := r.Offset()
	if length > uint64(r.Len()) && length <= d.info.Size-start {
		// A lazy section: make the whole unit available.
		if info, err = d.info.UpTo(start + length); err != nil {
			return h, err
		}
		r = d.reader(secInfo, info)
		r.Seek(start)
	}
	if length > uint64(r.Len()) {
		return h, buf.Errorf(pkg, secInfo, off, ErrTruncated, "unit length %#x exceeds section (%#x left)", length, r.Len())
	}
	h.End = start + length
	h.Dwarf64 = dwarf64
	r.SetLimit(h.End)
	h.Version = r.U16()
	if r.Err() != nil {
		return h, r.Err()
	}
	if h.Version < 2 || h.Version > 5 {
		return h, buf.Errorf(pkg, secInfo, start, ErrUnsupportedVersion, "unit version %d", h.Version)
	}
	if h.Version >= 5 {
		h.Type = UnitType(r.U8())
		h.AddrSize = r.U8()
		h.AbbrevOffset = r.Off(dwarf64)
		switch h.Type {
		case UnitCompile, UnitPartial:
		case UnitSkeleton, UnitSplitCompile:
			h.DWOID = r.U64()
		case UnitTypeUnit, UnitSplitType:
			h.TypeSig = r.U64()
			h.TypeOffset = r.Off(dwarf64)
		default:
			if r.Err() == nil {
				return h, buf.Errorf(pkg, secInfo, start+2, ErrFormat, "unknown unit type %#x", uint8(h.Type))
			}
		}
	} else {
		h.Type = UnitCompile
		h.AbbrevOffset = r.Off(dwarf64)
		h.AddrSize = r.U8()
	}
	if r.Err() != nil {
		return h, r.Err()
	}
	if h.AddrSize < 1 || h.AddrSize > 8 {
		return h, buf.Errorf(pkg, secInfo, off, ErrFormat, "address size %d", h.AddrSize)
	}
	h.DIEOffset = r.Offset()
	if h.IsType() {
		h.TypeOffset += off
	}
	return h, nil
}

// UnitReader walks unit headers in .debug_info order without decoding any
// DIE. It yields compile, partial, skeleton and split_compile units; type
// units are recognised and skipped.
type UnitReader struct {
	d   *Data
	off uint64
	err error
}

// Units returns a reader positioned at the first unit.
func (d *Data) Units() UnitReader { return UnitReader{d: d} }

// Next fills h with the next unit header. It returns io.EOF after the last
// unit and a *DecodeError (sticky) on a header it cannot walk past.
func (ur *UnitReader) Next(h *Header) error {
	for ur.err == nil {
		if ur.off >= ur.d.info.Size {
			ur.err = io.EOF
			break
		}
		nh, err := ur.d.HeaderAt(ur.off)
		if err != nil {
			ur.err = err
			break
		}
		ur.off = nh.End
		if nh.IsType() {
			continue
		}
		*h = nh
		return nil
	}
	return ur.err
}

// Headers returns the headers of every non-type unit, in section order. The
// slice is shared: do not modify it. The first call walks all unit headers
// (not DIEs); a header that cannot be read ends the list and is reported.
func (d *Data) Headers() ([]Header, error) {
	d.hdrOnce.Do(func() {
		ur := d.Units()
		for {
			var h Header
			err := ur.Next(&h)
			if err == io.EOF {
				break
			}
			if err != nil {
				d.hdrErr = err
				break
			}
			d.hdrs = append(d.hdrs, h)
		}
	})
	return d.hdrs, d.hdrErr
}

// UnitContaining returns the header of the (non-type) unit whose extent
// holds the .debug_info offset off; O(log units) after the first call.
func (d *Data) UnitContaining(off uint64) (Header, bool, error) {
	hs, err := d.Headers()
	lo, hi := 0, len(hs)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if hs[m].End <= off {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(hs) && hs[lo].Offset <= off {
		return hs[lo], true, nil
	}
	return Header{}, false, err
}

// UnitAt returns the loaded unit whose header is at .debug_info offset off
// (as Index.Lookup reports), decoding it on first use and caching it, with
// its error, for the life of d. After the first call for an offset it
// costs one map lookup and allocates nothing.
func (d *Data) UnitAt(off uint64) (*Unit, error) {
	d.unitMu.Lock()
	s := d.units[off]
	if s == nil {
		s = new(unitSlot)
		d.units[off] = s
	}
	d.unitMu.Unlock()
	s.once.Do(func() {
		h, err := d.HeaderAt(off)
		if err == nil {
			s.u, err = d.LoadUnit(h)
		}
		s.err = err
	})
	return s.u, s.err
}
