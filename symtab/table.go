package symtab

import (
	"cmp"
	"slices"
	"strconv"

	"github.com/symbolize-go/symbolize/internal/sorted"
)

// Table is an address map of symbols: one symbol per distinct start
// address, sorted, answering nearest-symbol lookups in O(log n) without
// allocating. A Table is immutable once built and safe for concurrent use.
type Table struct {
	addrs []uint64 // sorted, distinct; kept apart from ents so the search touches one dense array
	ents  []entry  // ents[i] starts at addrs[i]
	files []string // the entries' distinct File names, files[0] ""
	// top holds addrs[0], addrs[blockLen], addrs[2*blockLen], ...: small
	// enough to stay in cache, it turns most of a lookup's cache misses
	// into hits and leaves one block of addrs to search.
	top []uint64
}

// blockLen is how many addresses one top-level entry stands for: 64
// addresses are 512 bytes, eight cache lines.
const blockLen = 64

// An entry is 32 bytes: the File names, few and shared by runs of
// symbols, are held once in Table.files.
type entry struct {
	name string
	size uint64
	file uint32 // index in Table.files
	kind Kind
}

// Match is the symbol that covers an address.
type Match struct {
	Name   string // linkage (mangled) name, as in the table
	Start  uint64 // the symbol's address
	Size   uint64 // its size; 0 when the producer gave none
	Offset uint64 // the looked-up address minus Start
	Kind   Kind
	File   string // for ELF local symbols, the STT_FILE name before it; see Symbol.File
	// End is where this answer stops holding: Lookup gives this symbol for
	// every address in [Start, End). It is the sooner of Start+Size and
	// the next symbol's start (the end of the address space for the last
	// size-0 symbol).
	End uint64
}

// AppendText appends "name+0x1c" (the offset in hex, always present) to dst.
func (m Match) AppendText(dst []byte) []byte {
	dst = append(dst, m.Name...)
	dst = append(dst, "+0x"...)
	return strconv.AppendUint(dst, m.Offset, 16)
}

// String returns "name+0x1c".
func (m Match) String() string { return string(m.AppendText(nil)) }

// New builds a Table from the symbols of one symbol table, in table order,
// the way llvm-symbolizer 14 builds its map (SymbolizableObjectFile::create
// in LLVM 14.0.6):
//
//   - symbols that are not Eligible are dropped;
//   - the rest are stably sorted by (address, size) (llvm::stable_sort with
//     SymbolDesc's operator<, which compares Addr, then Size), and of those
//     sharing an address the last one is kept: the largest size wins, and
//     among equal sizes the one that comes last in the table (so of gcc's
//     foo/bar/zed aliases made with __attribute__((alias)), whichever the
//     linker wrote last, not the global one or the first one). Type, binding
//     and name play no part: a sized NOTYPE label beats a size-0 FUNC.
//
// LLVM 14 answers code and DATA requests from this one map, so Lookup
// serves both.
//
// The order of syms matters only for that tie-break; pass entries in symbol
// table order. For ELF, choose the table with PreferELF. New does not keep
// syms; names are shared, not copied. Cost: O(n log n).
func New(syms []Symbol) *Table {
	// Sort compact keys rather than Symbols; the table index as the last
	// key makes the unstable sort give LLVM's stable order.
	type key struct {
		addr, size uint64
		i          int
	}
	keys := make([]key, 0, len(syms))
	for i := range syms {
		if Eligible(syms[i]) {
			keys = append(keys, key{syms[i].Addr, syms[i].Size, i})
		}
	}
	slices.SortFunc(keys, func(a, b key) int {
		switch {
		case a.addr != b.addr:
			return cmp.Compare(a.addr, b.addr)
		case a.size != b.size:
			return cmp.Compare(a.size, b.size)
		}
		return cmp.Compare(a.i, b.i)
	})
	// Of the keys sharing an address, keep the last.
	n := 0
	for i, k := range keys {
		if i+1 < len(keys) && keys[i+1].addr == k.addr {
			continue
		}
		keys[n] = k
		n++
	}
	keys = keys[:n]
	t := &Table{addrs: make([]uint64, 0, n), ents: make([]entry, 0, n), files: []string{""}}
	fileIndex := map[string]uint32{"": 0}
	for _, k := range keys {
		s := &syms[k.i]
		f, ok := fileIndex[s.File]
		if !ok {
			f = uint32(len(t.files))
			fileIndex[s.File] = f
			t.files = append(t.files, s.File)
		}
		t.addrs = append(t.addrs, s.Addr)
		t.ents = append(t.ents, entry{name: s.Name, file: f, size: s.Size, kind: s.Kind})
	}
	t.top = make([]uint64, 0, (n+blockLen-1)/blockLen)
	for i := 0; i < n; i += blockLen {
		t.top = append(t.top, t.addrs[i])
	}
	return t
}

// PreferELF picks the ELF symbol table llvm-symbolizer 14 reads: .symtab
// when it has any entry past the null one, however many of them are
// Eligible, and .dynsym only otherwise (a stripped binary). The two are never
// merged: a .symtab from which a function was removed hides that
// function's .dynsym entry. Both arguments are ReadELF results.
func PreferELF(symtab, dynsym []Symbol) []Symbol {
	if len(symtab) > 0 {
		return symtab
	}
	return dynsym
}

// Len returns the number of symbols in the table.
func (t *Table) Len() int { return len(t.addrs) }

// At returns the i'th symbol in address order (Offset 0), for 0 <= i < Len.
func (t *Table) At(i int) Match {
	e := &t.ents[i]
	return Match{Name: e.name, Start: t.addrs[i], Size: e.size, Kind: e.kind, File: t.files[e.file]}
}

// Lookup returns the symbol covering pc: the one with the greatest start
// address not above pc, provided pc lies inside it. A sized symbol covers
// [start, start+size); a symbol of size 0 covers everything up to the next
// symbol, and the last one covers the rest of the address space (as in
// llvm-symbolizer 14, where the hidden _fini or __TMC_END__ of a gcc binary
// answers for any address past the end). A pc in the gap after a sized
// symbol has no symbol, even when an earlier size-0 symbol at the same
// address was dropped in favour of the sized one.
//
// Cost: O(log n), no allocation.
func (t *Table) Lookup(pc uint64) (Match, bool) {
	i := t.last(pc)
	if i < 0 {
		return Match{}, false
	}
	return t.match(i, pc)
}

// last returns the index of the last entry starting at or below pc, or
// -1: the block, then the first start address above pc within it.
func (t *Table) last(pc uint64) int {
	b := upper(t.top, pc)
	if b == 0 {
		return -1
	}
	base := (b - 1) * blockLen
	return base + upper(t.addrs[base:min(base+blockLen, len(t.addrs))], pc) - 1
}

// LookupFrom is Lookup for a caller that looks up ascending addresses:
// *hint carries where the previous lookup landed to the next, and a
// lookup at or above it gallops forward from there, in a few probes of
// nearby entries, instead of searching the whole table (on cmd/go's
// symbols, 4,096 sorted addresses cost 15 ns each against Lookup's 51).
// Any hint is valid: 0 to start, a stale one, another table's; one above
// pc's entry costs a full search. The answer is Lookup's.
func (t *Table) LookupFrom(pc uint64, hint *int) (Match, bool) {
	i, n := *hint, len(t.addrs)
	if i < 0 || i >= n || t.addrs[i] > pc {
		if i = t.last(pc); i < 0 {
			return Match{}, false
		}
		*hint = i
		return t.match(i, pc)
	}
	i = sorted.LastFrom(t.addrs, pc, i)
	*hint = i
	return t.match(i, pc)
}

// match is Lookup's answer for pc from entry i, the last one starting at
// or below pc.
func (t *Table) match(i int, pc uint64) (Match, bool) {
	e := &t.ents[i]
	start := t.addrs[i]
	// pc-start cannot wrap (start <= pc); LLVM's start+size <= pc can, on
	// a corrupt size, which is the only place this answer may differ.
	if e.size != 0 && pc-start >= e.size {
		return Match{}, false
	}
	end := ^uint64(0)
	if i+1 < len(t.addrs) {
		end = t.addrs[i+1]
	}
	if e.size != 0 && start+e.size > start && start+e.size < end {
		end = start + e.size
	}
	return Match{Name: e.name, Start: start, Size: e.size, Offset: pc - start, Kind: e.kind, File: t.files[e.file], End: end}, true
}

// upper returns the number of leading elements of the sorted a that are
// at most x: the index of the first one above it.
func upper(a []uint64, x uint64) int {
	lo, hi := 0, len(a)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if a[mid] <= x {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}
