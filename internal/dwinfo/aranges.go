package dwinfo

import (
	"io"

	"github.com/symbolize-go/symbolize/internal/buf"
)

// Arange is one address range tuple of .debug_aranges [DWARF5 6.1.2]: the
// code in [Start, Start+Length) belongs to the unit at .debug_info offset
// Unit.
type Arange struct {
	Start  uint64
	Length uint64
	Unit   uint64
}

// ArangeReader iterates every tuple of every set in .debug_aranges, in
// section order. It needs no other section.
type ArangeReader struct {
	r        buf.Reader
	setEnd   uint64 // end of the current set; 0 before the first
	unit     uint64
	addrSize int
	setOff   uint64
	inSet    bool
	err      error
	onSetEnd func(unit uint64) // called when a set ends well (the index commits its tuples then)
}

// Aranges returns a reader over .debug_aranges.
func (d *Data) Aranges() ArangeReader {
	return ArangeReader{r: d.reader(secAranges, d.s.Aranges)}
}

// Next fills a with the next tuple. Each set's final (0, 0) terminator is
// not returned; a (0, 0) tuple before a set's end is, and reading goes on,
// as in LLVM 14 (which warns about a "premature terminator"). It returns
// io.EOF at the end of the section and a sticky *DecodeError on a bad set
// header or a set that is not ended by a (0, 0) tuple.
func (ar *ArangeReader) Next(a *Arange) error {
	for ar.err == nil {
		if ar.inSet {
			tupleOff := ar.r.Offset()
			if tupleOff >= ar.setEnd {
				ar.err = buf.Errorf(pkg, secAranges, ar.setOff, ErrFormat, "address range set is not terminated by a (0, 0) tuple")
				break
			}
			start := ar.r.Uint(ar.addrSize)
			length := ar.r.Uint(ar.addrSize)
			if err := ar.r.Err(); err != nil {
				ar.err = err
				break
			}
			if start == 0 && length == 0 && ar.r.Offset() == ar.setEnd {
				ar.inSet = false
				if ar.onSetEnd != nil {
					ar.onSetEnd(ar.unit)
				}
				continue
			}
			a.Start, a.Length, a.Unit = start, length, ar.unit
			return nil
		}
		ar.r.SetLimit(uint64(len(ar.r.Data())))
		if ar.r.Len() == 0 {
			ar.err = io.EOF
			break
		}
		ar.err = ar.header()
	}
	return ar.err
}

// header reads a set header [DWARF5 7.21] and positions the reader at the
// first tuple, which is aligned to twice the address size from the set's
// start.
func (ar *ArangeReader) header() error {
	r := &ar.r
	setOff := r.Offset()
	length, dwarf64 := r.InitialLength()
	if r.Err() != nil {
		return r.Err()
	}
	if length > uint64(r.Len()) {
		return buf.Errorf(pkg, secAranges, setOff, ErrTruncated, "set length %#x exceeds section (%#x left)", length, r.Len())
	}
	end := r.Offset() + length
	r.SetLimit(end)
	version := r.U16()
	unit := r.Off(dwarf64)
	addrSize := r.U8()
	segSize := r.U8()
	if r.Err() != nil {
		return r.Err()
	}
	if version != 2 && version != 3 {
		return buf.Errorf(pkg, secAranges, setOff, ErrUnsupportedVersion, "address range table version %d", version)
	}
	if addrSize < 1 || addrSize > 8 {
		return buf.Errorf(pkg, secAranges, setOff, ErrFormat, "address size %d", addrSize)
	}
	if segSize != 0 {
		return buf.Errorf(pkg, secAranges, setOff, ErrUnsupportedVersion, "segment selector size %d", segSize)
	}
	tuple := 2 * uint64(addrSize)
	first := r.Offset() - setOff
	if rem := first % tuple; rem != 0 {
		first += tuple - rem
	}
	// A header whose padding passes the set's end leaves an empty set.
	if setOff+first > end {
		first = end - setOff
	}
	r.Seek(setOff + first)
	ar.setOff, ar.setEnd, ar.unit, ar.addrSize, ar.inSet = setOff, end, unit, int(addrSize), true
	return r.Err()
}
