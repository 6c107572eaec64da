package pclntab

import (
	"bytes"
	"encoding/binary"
)

// Find returns the offset in data of the first plausible table header:
// one of the four magic numbers (in either byte order, at an offset
// aligned to 4), zero padding, a pc quantum of 1, 2 or 4, a pointer size
// of 4 or 8, and a header that New accepts. It is for stripped files whose
// section headers no longer name the table: search the read-only data.
//
// Cost: a scan of data for the magic's first bytes, and New at each
// candidate.
func Find(data []byte) (int, bool) {
	// Every magic is 0xfffffff? in one byte order: scan for its three
	// 0xff bytes and check the fourth either side.
	ff := []byte{0xff, 0xff, 0xff}
	for from := 0; from+16 <= len(data); {
		i := bytes.Index(data[from:], ff)
		if i < 0 {
			return 0, false
		}
		at := from + i
		for _, c := range []int{at - 1, at} { // little-endian: byte 0 is the low one
			if c < 0 || c%4 != 0 || c+16 > len(data) {
				continue
			}
			d := data[c:]
			le, be := binary.LittleEndian.Uint32(d), binary.BigEndian.Uint32(d)
			if versionOf(le) == VersionUnknown && versionOf(be) == VersionUnknown {
				continue
			}
			if t, err := New(d, nil); err == nil && t.nfunc > 0 {
				return c, true
			}
		}
		from = at + 1
	}
	return 0, false
}

// Moduledata is what the runtime's module record (runtime.firstmoduledata)
// gives the table: where the code the Go 1.18+ function offsets count
// from starts, and where the funcdata lie.
type Moduledata struct {
	Text, Etext uint64 // runtime.text, runtime.etext
	MinPC       uint64 // the first function's entry
	GoFunc      uint64 // go:func.* (Go 1.18 and later; 0 before)
}

// FindModuledata finds the runtime's module record in data, a section
// (.noptrdata, __noptrdata) loaded at address addr: a pointer-aligned
// record whose first word is the table's address (tableAddr; for the
// Go 1.2 layout, the first slice's) and whose next slices point into the
// table at the offsets its header gives. t is the table at tableAddr. It
// is how stripped binaries, without runtime.text or go:func.* symbols,
// tell where their function offsets and funcdata count from.
//
// Cost: a scan of data, word by word.
func FindModuledata(t *Table, tableAddr uint64, data []byte, addr uint64) (Moduledata, bool) {
	p := t.ptrSize
	word := func(b []byte, i int) uint64 {
		if (i+1)*p > len(b) {
			return 0
		}
		return t.uintptr(b[i*p:])
	}
	// The words, for each layout, of the fields read (see
	// runtime/symtab.go moduledata of each release).
	var text, minpc, gofunc int
	var check [][2]uint64 // word index -> expected value
	switch t.version {
	case Version12:
		// pclntable, ftab, filetab (slices), findfunctab, minpc,
		// maxpc, text, etext.
		minpc, text, gofunc = 10, 12, -1
		check = [][2]uint64{{3, tableAddr + t.functab}}
	case Version116:
		// pcHeader, funcnametab, cutab, filetab, pctab, pclntable,
		// ftab, findfunctab, minpc, maxpc, text, etext.
		minpc, text, gofunc = 20, 22, -1
		check = [][2]uint64{{1, tableAddr + t.funcnametab}, {4, tableAddr + t.cutab}, {7, tableAddr + t.filetab}, {10, tableAddr + t.pctab}}
	case Version118:
		// As 1.16, then noptrdata .. enoptrbss, end, gcdata, gcbss,
		// types, etypes, rodata, gofunc.
		minpc, text, gofunc = 20, 22, 38
		check = [][2]uint64{{1, tableAddr + t.funcnametab}, {4, tableAddr + t.cutab}, {7, tableAddr + t.filetab}, {10, tableAddr + t.pctab}}
	default:
		// 1.20 added covctrs, ecovctrs before end.
		minpc, text, gofunc = 20, 22, 40
		check = [][2]uint64{{1, tableAddr + t.funcnametab}, {4, tableAddr + t.cutab}, {7, tableAddr + t.filetab}, {10, tableAddr + t.pctab}}
	}
	need := max(text+2, gofunc+1) * p
	for off := 0; off+need <= len(data); off += p {
		if (addr+uint64(off))%uint64(p) != 0 {
			continue
		}
		b := data[off:]
		if word(b, 0) != tableAddr {
			continue
		}
		ok := true
		for _, c := range check {
			if word(b, int(c[0])) != c[1] {
				ok = false
				break
			}
		}
		if !ok {
			continue
		}
		m := Moduledata{Text: word(b, text), Etext: word(b, text+1), MinPC: word(b, minpc)}
		if gofunc >= 0 {
			m.GoFunc = word(b, gofunc)
		}
		if m.Text > m.Etext || m.MinPC < m.Text {
			continue
		}
		return m, true
	}
	return Moduledata{}, false
}
