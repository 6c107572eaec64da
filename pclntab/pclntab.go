// Package pclntab reads the Go runtime's own symbol tables, .gopclntab
// (__gopclntab in Mach-O): the function table, each function's pc-value
// tables (file, line, and the inline tree through FUNCDATA_InlTree and
// PCDATA_InlTreeIndex), function names, the file table with its
// CU-relative file indexes, and each function's start line. These are the
// tables that runtime.CallersFrames and go tool addr2line read, and they
// survive -ldflags='-s -w', go run and go test, which drop DWARF.
//
// The layouts of Go 1.2 (used through Go 1.15), 1.16, 1.18 (1.18, 1.19)
// and 1.20 (1.20 and later, through 1.26) are read, in either byte order
// and with 4- or 8-byte pointers. The Go 1.2 layout's inline trees are read
// as Go 1.12-1.15 write them.
//
// Frames expand inlined calls as runtime.CallersFrames does: innermost
// first, each outer frame at the line of its call site, which is the
// position of the instruction the inline tree names (parentPc).
//
// Like every decoder of this module, the package does not trust its input:
// a corrupt header, a function offset out of range, a pc-value stream that
// never ends, an inline tree with a cycle or a parent out of range give a
// *DecodeError (section ".gopclntab" and the offset of the bad data) or
// "not found", never a panic, a hang, or an allocation out of proportion
// to the input.
package pclntab

import (
	"encoding/binary"
	"errors"
	"sync"

	"github.com/symbolize-go/symbolize/internal/buf"
)

// DecodeError says which section and offset held bad input (the type every
// package of this module uses).
type DecodeError = buf.DecodeError

// Section is the name errors give the table: the ELF section's, whatever
// the container.
const Section = ".gopclntab"

const pkg = "pclntab"

// Version is a layout of the table, named after the Go release that
// introduced it.
type Version uint8

const (
	VersionUnknown Version = iota
	Version12              // Go 1.2 to 1.15 (magic 0xfffffffb)
	Version116             // Go 1.16, 1.17 (magic 0xfffffffa)
	Version118             // Go 1.18, 1.19 (magic 0xfffffff0)
	Version120             // Go 1.20 and later (magic 0xfffffff1)
)

// String returns "1.2", "1.16", "1.18" or "1.20".
func (v Version) String() string {
	switch v {
	case Version12:
		return "1.2"
	case Version116:
		return "1.16"
	case Version118:
		return "1.18"
	case Version120:
		return "1.20"
	}
	return "unknown"
}

// versionOf returns the layout a magic number names.
func versionOf(magic uint32) Version {
	switch magic {
	case 0xfffffffb:
		return Version12
	case 0xfffffffa:
		return Version116
	case 0xfffffff0:
		return Version118
	case 0xfffffff1:
		return Version120
	}
	return VersionUnknown
}

// The funcdata and pcdata indexes of the inline tree (runtime/symtab.go,
// internal/abi). Go 1.12-1.15 had one more funcdata before it
// (FUNCDATA_RegPointerMaps).
const (
	pcdataInlTreeIndex = 2
	funcdataInlTree    = 3
	funcdataInlTree12  = 4
)

// Options configure New. The zero value reads the table alone: function
// names, files and lines, without inline trees (whose data lies outside
// the table) and with Go 1.18+ function addresses relative to 0.
type Options struct {
	// TextStart is the address of runtime.text, which Go 1.18 and later
	// write function addresses relative to: the address of the .text
	// section (__text in Mach-O), or Moduledata.Text. Go 1.18 to 1.25
	// also store it in the header, but there it may be unrelocated (0
	// in a PIE), and Go 1.26 no longer stores it; the header's is used
	// only when TextStart is 0.
	TextStart uint64
	// GoFunc is the address of go:func.*, which Go 1.18 and later write
	// funcdata (the inline trees) relative to: Moduledata.GoFunc.
	GoFunc uint64
	// Memory reads n bytes of the image at address addr, for funcdata
	// (inline trees), which lie outside the table in read-only data. It
	// returns what it has (possibly fewer bytes, or nil). Nil, or a
	// GoFunc of 0 for Go 1.18+, leaves inlined calls out: each address
	// answers its physical function alone. The returned slice must stay
	// valid and unchanged while the Table is in use.
	Memory func(addr uint64, n int) []byte
	// MaxInlineDepth bounds the inline frames of an address; 0 means 256.
	// A chain that runs deeper (an inline tree with a cycle) is an error.
	MaxInlineDepth int
}

// Table is a decoded table header over the table's bytes, which it
// aliases and never modifies. A Table is safe for concurrent use. The
// first lookup indexes the function table's entries (about 12 bytes per
// function); the first lookup in a function decodes its file, line and
// inline-index tables whole into runs, kept in a cache that later lookups
// read without locks. The cache holds at most four times the table's
// bytes and 1 MiB more (cmd/go's functions, all decoded, take 2.4 times
// its table); past that it is emptied and functions are decoded again on
// their next use. Strings are interned under a lock.
type Table struct {
	data    []byte
	order   binary.ByteOrder
	version Version
	quantum uint32
	ptrSize int
	nfunc   int
	nfiles  uint32
	text    uint64 // runtime.text (1.18+)

	// Sub-tables, as offsets into data with their ends.
	funcnametab, cutab, filetab, pctab, funcdata uint64
	functab, functabEnd                          uint64
	fileTabEnd                                   uint64 // 1.2: end of the file offsets table

	opts     Options
	maxDepth int

	mu      sync.RWMutex
	strings map[uint64]string // data offset -> string, for names and files

	cache cache // functions decoded on first use (functable.go)
}

// New decodes the header of the table that data begins with. data may run
// past the table's end (a whole section, or read-only data from the
// table's start): the table's extent is found from its header.
func New(data []byte, opts *Options) (*Table, error) {
	t := &Table{data: data, strings: make(map[uint64]string)}
	if opts != nil {
		t.opts = *opts
	}
	t.maxDepth = t.opts.MaxInlineDepth
	if t.maxDepth <= 0 {
		t.maxDepth = 256
	}
	if len(data) < 16 {
		return nil, buf.Errorf(pkg, Section, 0, buf.ErrTruncated, "header needs 16 bytes, have %d", len(data))
	}
	le, be := binary.LittleEndian.Uint32(data), binary.BigEndian.Uint32(data)
	switch {
	case versionOf(le) != VersionUnknown:
		t.order, t.version = binary.LittleEndian, versionOf(le)
	case versionOf(be) != VersionUnknown:
		t.order, t.version = binary.BigEndian, versionOf(be)
	default:
		return nil, buf.Errorf(pkg, Section, 0, buf.ErrUnsupportedVersion, "unknown magic %#x", le)
	}
	if data[4] != 0 || data[5] != 0 {
		return nil, buf.Errorf(pkg, Section, 4, buf.ErrFormat, "header padding is not zero")
	}
	t.quantum = uint32(data[6])
	if q := t.quantum; q != 1 && q != 2 && q != 4 {
		return nil, buf.Errorf(pkg, Section, 6, buf.ErrFormat, "pc quantum %d", q)
	}
	t.ptrSize = int(data[7])
	if t.ptrSize != 4 && t.ptrSize != 8 {
		return nil, buf.Errorf(pkg, Section, 7, buf.ErrFormat, "pointer size %d", t.ptrSize)
	}
	size := uint64(len(data))
	word := func(i int) (uint64, error) {
		off := 8 + i*t.ptrSize
		if off+t.ptrSize > len(data) {
			return 0, buf.Errorf(pkg, Section, uint64(off), buf.ErrTruncated, "header")
		}
		return t.uintptr(data[off:]), nil
	}
	// offsets reads header words first.. as offsets within the data.
	offsets := func(first int, dst ...*uint64) error {
		for i, d := range dst {
			v, err := word(first + i)
			if err != nil {
				return err
			}
			if v >= size {
				return buf.Errorf(pkg, Section, uint64(8+(first+i)*t.ptrSize), buf.ErrFormat, "sub-table offset %#x past the end (%#x)", v, size)
			}
			*d = v
		}
		return nil
	}
	nfunc, err := word(0)
	if err != nil {
		return nil, err
	}
	// Each function takes at least a functab entry and a _func: an
	// untrusted count is capped by what the bytes could hold.
	if nfunc > size/8 {
		return nil, buf.Errorf(pkg, Section, 8, buf.ErrFormat, "%d functions in %d bytes", nfunc, size)
	}
	t.nfunc = int(nfunc)
	fieldSize := uint64(t.ptrSize) // of a functab field
	switch t.version {
	case Version12:
		t.functab = 8 + uint64(t.ptrSize)
		t.funcnametab, t.pctab, t.funcdata = 0, 0, 0
	case Version116:
		nfiles, err := word(1)
		if err != nil {
			return nil, err
		}
		t.nfiles = uint32(min(nfiles, size))
		if err := offsets(2, &t.funcnametab, &t.cutab, &t.filetab, &t.pctab, &t.funcdata); err != nil {
			return nil, err
		}
		t.functab = t.funcdata
	default: // 1.18, 1.20
		nfiles, err := word(1)
		if err != nil {
			return nil, err
		}
		t.nfiles = uint32(min(nfiles, size))
		text, err := word(2)
		if err != nil {
			return nil, err
		}
		t.text = t.opts.TextStart
		if t.text == 0 {
			t.text = text
		}
		if err := offsets(3, &t.funcnametab, &t.cutab, &t.filetab, &t.pctab, &t.funcdata); err != nil {
			return nil, err
		}
		t.functab = t.funcdata
		fieldSize = 4
	}
	t.functabEnd = t.functab + (2*uint64(t.nfunc)+1)*fieldSize
	if t.functabEnd > size {
		return nil, buf.Errorf(pkg, Section, t.functab, buf.ErrTruncated, "function table of %d entries", t.nfunc)
	}
	if t.version == Version12 {
		// The file table follows the function table: a uint32 offset
		// to it, then at that offset the count and the name offsets.
		off := uint64(t.u32(t.functabEnd))
		if t.functabEnd+4 > size || off+4 > size {
			return nil, buf.Errorf(pkg, Section, t.functabEnd, buf.ErrFormat, "file table offset %#x", off)
		}
		t.filetab = off
		n := uint64(t.u32(off))
		if n > (size-off)/4 {
			return nil, buf.Errorf(pkg, Section, off, buf.ErrFormat, "%d files in %d bytes", n, size-off)
		}
		t.nfiles = uint32(n)
		t.fileTabEnd = off + 4*n
	}
	return t, nil
}

// Version returns the table's layout.
func (t *Table) Version() Version { return t.version }

// PtrSize returns the pointer size the table was written for (4 or 8).
func (t *Table) PtrSize() int { return t.ptrSize }

// BigEndian reports the table's byte order.
func (t *Table) BigEndian() bool { return t.order == binary.BigEndian }

// Quantum returns the instruction size unit of pc deltas (1 on x86, 4 on
// arm64).
func (t *Table) Quantum() int { return int(t.quantum) }

// NumFuncs returns the number of functions in the function table.
func (t *Table) NumFuncs() int { return t.nfunc }

func (t *Table) uintptr(b []byte) uint64 {
	if t.ptrSize == 4 {
		return uint64(t.order.Uint32(b))
	}
	return t.order.Uint64(b)
}

// u32 returns the uint32 at off, or 0 past the end (callers bound off).
func (t *Table) u32(off uint64) uint32 {
	if off > uint64(len(t.data)) || uint64(len(t.data))-off < 4 {
		return 0
	}
	return t.order.Uint32(t.data[off:])
}

func (t *Table) word(off uint64) uint64 {
	if off > uint64(len(t.data)) || uint64(len(t.data))-off < uint64(t.ptrSize) {
		return 0
	}
	return t.uintptr(t.data[off:])
}

// entryAt returns the address of function table entry i (0 <= i <= nfunc;
// entry nfunc is the end of the last function) and its _func offset.
func (t *Table) entryAt(i int) (pc, funcOff uint64) {
	if t.version >= Version118 {
		at := t.functab + uint64(i)*8
		return t.text + uint64(t.u32(at)), uint64(t.u32(at + 4))
	}
	p := uint64(t.ptrSize)
	at := t.functab + uint64(i)*2*p
	return t.word(at), t.word(at + p)
}

var errNoFunc = errors.New("no function")

// find returns the index of the function whose [entry, next entry) holds
// pc.
func (t *Table) find(pc uint64) (int, bool) {
	if t.nfunc == 0 {
		return 0, false
	}
	first, _ := t.entryAt(0)
	end, _ := t.entryAt(t.nfunc)
	if pc < first || pc >= end {
		return 0, false
	}
	// The largest i with entry(i) <= pc. Entries are sorted in a valid
	// table; in a corrupt one the search still ends, on some entry.
	lo, hi := 0, t.nfunc
	for hi-lo > 1 {
		m := int(uint(lo+hi) >> 1)
		if e, _ := t.entryAt(m); e <= pc {
			lo = m
		} else {
			hi = m
		}
	}
	return lo, true
}

// Func is one function of the table.
type Func struct {
	Entry uint64 // the function's first address
	End   uint64 // the next function's entry (the table's end for the last)
	Name  string
	// StartLine is the line of the func keyword (Go 1.20 and later; 0
	// before).
	StartLine uint32
	Index     int // in the function table
}

// fn is a decoded _func record.
type fn struct {
	off       uint64 // of the _func in data
	entry     uint64
	nameOff   uint32
	pcfile    uint32
	pcln      uint32
	npcdata   uint32
	cuOffset  uint32
	startLine int32
	funcID    uint8
	nfuncdata uint8
	pcdata    uint64 // offset of the pcdata array in data
	fdata     uint64 // offset of the funcdata array in data
}

// funcAt decodes the _func of function table entry i.
func (t *Table) funcAt(i int) (fn, error) {
	entry, off := t.entryAt(i)
	if t.version != Version12 {
		off += t.funcdata
	}
	var f fn
	f.off, f.entry = off, entry
	p := uint64(t.ptrSize)
	var hdr uint64 // size of the fixed part
	switch t.version {
	case Version12, Version116:
		hdr = p + 8*4
		if t.version == Version116 {
			hdr += 4
		}
	case Version118:
		hdr = 4 * 10
	default:
		hdr = 4 * 11
	}
	if off < t.functabEnd && t.version != Version12 || off >= uint64(len(t.data)) || uint64(len(t.data))-off < hdr {
		return f, buf.Errorf(pkg, Section, off, buf.ErrFormat, "function %d: _func at %#x out of range", i, off)
	}
	q := off
	if t.version <= Version116 {
		if e := t.word(q); e != entry {
			return f, buf.Errorf(pkg, Section, q, buf.ErrFormat, "function %d: entry %#x, function table says %#x", i, e, entry)
		}
		q += p
	} else {
		if e := t.text + uint64(t.u32(q)); e != entry {
			return f, buf.Errorf(pkg, Section, q, buf.ErrFormat, "function %d: entry %#x, function table says %#x", i, e, entry)
		}
		q += 4
	}
	f.nameOff = t.u32(q)
	q += 4 + 4 + 4 // nameoff, args, deferreturn
	q += 4         // pcsp
	f.pcfile, f.pcln, f.npcdata = t.u32(q), t.u32(q+4), t.u32(q+8)
	q += 12
	switch t.version {
	case Version12:
		// funcID, 2 bytes of padding, nfuncdata
		f.funcID, f.nfuncdata = t.data[q], t.data[q+3]
		q += 4
	case Version116:
		f.cuOffset = t.u32(q)
		f.funcID, f.nfuncdata = t.data[q+4], t.data[q+7]
		q += 8
	case Version118:
		f.cuOffset = t.u32(q)
		f.funcID, f.nfuncdata = t.data[q+4], t.data[q+7]
		q += 8
	default:
		f.cuOffset = t.u32(q)
		f.startLine = int32(t.u32(q + 4))
		f.funcID, f.nfuncdata = t.data[q+8], t.data[q+11]
		q += 12
	}
	f.pcdata = q
	rest := uint64(len(t.data)) - q
	if uint64(f.npcdata) > rest/4 {
		return f, buf.Errorf(pkg, Section, off, buf.ErrFormat, "function %d: %d pcdata tables", i, f.npcdata)
	}
	f.fdata = q + uint64(f.npcdata)*4
	return f, nil
}

// funcdataOff returns the address of funcdata i of f, ok false when it
// has none.
func (t *Table) funcdataAddr(f *fn, i uint8) (uint64, bool) {
	if i >= f.nfuncdata {
		return 0, false
	}
	if t.version >= Version118 {
		off := t.u32(f.fdata + uint64(i)*4)
		if off == ^uint32(0) || f.fdata+uint64(i)*4+4 > uint64(len(t.data)) || t.opts.GoFunc == 0 {
			return 0, false
		}
		return t.opts.GoFunc + uint64(off), true
	}
	at := f.fdata
	if t.ptrSize == 8 && at&4 != 0 {
		// Pointers are 8-aligned within the table (whose start is).
		at += 4
	}
	at += uint64(i) * uint64(t.ptrSize)
	if at+uint64(t.ptrSize) > uint64(len(t.data)) {
		return 0, false
	}
	a := t.word(at)
	return a, a != 0
}

// str returns the NUL-terminated string at data offset off, interned.
func (t *Table) str(off uint64) (string, bool) {
	t.mu.RLock()
	s, ok := t.strings[off]
	t.mu.RUnlock()
	if ok {
		return s, true
	}
	b, ok := buf.CStringAt(t.data, off)
	if !ok {
		return "", false
	}
	t.mu.Lock()
	if s, ok = t.strings[off]; !ok {
		s = string(b)
		t.strings[off] = s
	}
	t.mu.Unlock()
	return s, true
}

// funcName returns the name at funcnametab offset nameOff.
func (t *Table) funcName(nameOff uint32) (string, error) {
	off := t.funcnametab + uint64(nameOff)
	if s, ok := t.str(off); ok {
		return s, nil
	}
	return "", buf.Errorf(pkg, Section, off, buf.ErrFormat, "function name offset %#x out of range", nameOff)
}

// fileName returns the name of file number fileno of f (CU-relative from
// Go 1.16; an index into the one file table before).
func (t *Table) fileName(f *fn, fileno int32) (string, error) {
	if fileno < 0 {
		return "", nil
	}
	if t.version == Version12 {
		if uint32(fileno) >= t.nfiles || fileno == 0 {
			return "", buf.Errorf(pkg, Section, t.filetab, buf.ErrFormat, "file index %d of %d", fileno, t.nfiles)
		}
		off := uint64(t.u32(t.filetab + 4*uint64(fileno)))
		if s, ok := t.str(off); ok {
			return s, nil
		}
		return "", buf.Errorf(pkg, Section, off, buf.ErrFormat, "file name offset %#x out of range", off)
	}
	at := t.cutab + 4*(uint64(f.cuOffset)+uint64(fileno))
	if at+4 > uint64(len(t.data)) || at < t.cutab {
		return "", buf.Errorf(pkg, Section, f.off, buf.ErrFormat, "file %d of CU %d out of range", fileno, f.cuOffset)
	}
	fo := t.u32(at)
	if fo == ^uint32(0) {
		return "", nil
	}
	off := t.filetab + uint64(fo)
	if s, ok := t.str(off); ok {
		return s, nil
	}
	return "", buf.Errorf(pkg, Section, at, buf.ErrFormat, "file name offset %#x out of range", fo)
}

// Func returns function i of the function table.
func (t *Table) Func(i int) (Func, error) {
	if i < 0 || i >= t.nfunc {
		return Func{}, buf.Errorf(pkg, Section, t.functab, buf.ErrFormat, "function index %d of %d", i, t.nfunc)
	}
	f, err := t.funcAt(i)
	if err != nil {
		return Func{}, err
	}
	name, err := t.funcName(f.nameOff)
	if err != nil {
		return Func{}, err
	}
	end, _ := t.entryAt(i + 1)
	return Func{Entry: f.entry, End: end, Name: name, StartLine: uint32(max(f.startLine, 0)), Index: i}, nil
}

// LookupFunc returns the function whose code holds pc: ok is false when
// none does, also for padding between functions, which no line covers. A
// function without a line table (the linker's markers go:buildid,
// go:textfipsstart, go:textfipsend) holds its Entry alone: the linker's
// ELF symbols give those markers one byte, and what follows up to the
// next function is alignment padding.
//
// Cost: a binary search of the function table and of the function's
// runs (its tables are decoded on its first lookup, see AppendFrames).
func (t *Table) LookupFunc(pc uint64) (Func, bool, error) {
	ft, ok, err := t.lookup(pc)
	if !ok {
		return Func{}, false, err
	}
	if !ft.lines {
		if pc != ft.fn.Entry {
			return Func{}, false, nil
		}
	} else {
		off := pc - ft.fn.Entry
		if ft.err != nil && off >= uint64(ft.errAt) {
			return Func{}, false, ft.err
		}
		if k, ok := ft.runAt(off); !ok || ft.runs[k].line == noLine {
			return Func{}, false, nil
		}
	}
	if ft.nameErr != nil {
		return Func{}, false, ft.nameErr
	}
	return ft.fn, true, nil
}
