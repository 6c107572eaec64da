package symtab

import (
	"bytes"
	"encoding/binary"
	"io"
	"strings"

	"github.com/symbolize-go/symbolize/internal/buf"
)

// ELF e_machine values whose symbol tables need special handling.
const (
	MachineMIPS    = 8   // EM_MIPS: bit 0 of a function address marks microMIPS
	MachineARM     = 40  // EM_ARM: bit 0 marks Thumb; $a/$t/$d mapping symbols
	MachineAArch64 = 183 // EM_AARCH64: $x/$d mapping symbols
	MachineRISCV   = 243 // EM_RISCV: nameless local labels
)

// ELF special section indexes [ELF gABI 4.1 "Special Section Indexes"].
const (
	shnUndef     = 0
	shnLoReserve = 0xff00
	shnAbs       = 0xfff1 // an absolute value, not in any section
	shnXIndex    = 0xffff // the real index is in SHT_SYMTAB_SHNDX
)

// ELFOptions describe the symbol table being decoded. The zero value reads
// little-endian Elf32_Sym entries of a generic machine from ".symtab".
type ELFOptions struct {
	Class64   bool   // Elf64_Sym entries (ELFCLASS64); else Elf32_Sym
	BigEndian bool   // ELFDATA2MSB
	Machine   uint16 // e_machine; 0 applies no machine-specific rule
	// NumSections is e_shnum. When non-zero, a symbol whose section index
	// is not below it counts as not Defined (LLVM cannot find its section
	// either). Zero skips the check.
	NumSections uint32
	// Section names the table in errors; "" means ".symtab".
	Section string
	// Untag sign-extends every address from bit 55, dropping the tag in
	// its top byte, after the machine's rules: llvm-symbolizer's
	// --untag-addresses does so to the symbols as well as to the
	// addresses looked up.
	Untag bool
}

// ELFReader decodes the entries of an ELF symbol table one at a time. It
// skips entry 0, the reserved null symbol. Names are substrings of one copy
// of the string table made when the reader is created, so decoding
// allocates once per table, not per symbol, and the caller's bytes may
// change afterwards. An ELFReader is not safe for concurrent use.
type ELFReader struct {
	r    buf.Reader
	strs string
	// raw, in a scan (LookupELF), is the caller's string table: names
	// are checked, as Next checks them, but not made; strs is then "".
	raw     []byte
	scan    bool
	nameOff uint32 // the st_name of the entry last decoded
	opts    ELFOptions
	entsize uint64
	index   uint32
}

// NewELFReader returns a reader over the symbol-table section bytes symtab
// whose st_name fields index strtab (the section named by the table's
// sh_link: .strtab for .symtab, .dynstr for .dynsym).
func NewELFReader(symtab, strtab []byte, opts ELFOptions) *ELFReader {
	r := newELFReader(symtab, opts)
	r.strs = string(strtab)
	return r
}

// newELFReader is NewELFReader without a string table.
func newELFReader(symtab []byte, opts ELFOptions) *ELFReader {
	if opts.Section == "" {
		opts.Section = ".symtab"
	}
	r := &ELFReader{
		r:       buf.New("symtab", opts.Section, symtab, opts.BigEndian),
		opts:    opts,
		entsize: 16, // sizeof(Elf32_Sym)
	}
	if opts.Class64 {
		r.entsize = 24 // sizeof(Elf64_Sym)
	}
	// Entry 0 is the null symbol [ELF gABI 4.1]; LLVM's iterator starts
	// past it too, and only when a whole entry is there.
	if uint64(len(symtab)) >= r.entsize {
		r.r.Seek(r.entsize)
		r.index = 1
	}
	return r
}

// Len returns how many entries are left, counting a trailing partial entry.
func (r *ELFReader) Len() int {
	return int((uint64(r.r.Len()) + r.entsize - 1) / r.entsize)
}

// Next decodes the next entry into *s. It returns io.EOF after the last
// entry, and a *DecodeError for a truncated entry or a name outside the
// string table; after an error every call returns the same error.
func (r *ELFReader) Next(s *Symbol) error {
	if err := r.r.Err(); err != nil {
		return err
	}
	if r.r.Len() == 0 {
		return io.EOF
	}
	off := r.r.Offset()
	if uint64(r.r.Len()) < r.entsize {
		r.r.Fail(off, ErrTruncated, "partial symbol entry: %d of %d bytes", r.r.Len(), r.entsize)
		return r.r.Err()
	}
	var name uint32
	var info uint8
	var shndx uint16
	var value, size uint64
	if r.opts.Class64 { // Elf64_Sym
		name = r.r.U32()
		info = r.r.U8()
		r.r.U8() // st_other (visibility) does not affect lookups
		shndx = r.r.U16()
		value = r.r.U64()
		size = r.r.U64()
	} else { // Elf32_Sym
		name = r.r.U32()
		value = uint64(r.r.U32())
		size = uint64(r.r.U32())
		info = r.r.U8()
		r.r.U8() // st_other
		shndx = r.r.U16()
	}
	var n string
	var ok bool
	if r.scan {
		ok = r.rawName(name)
	} else {
		n, ok = r.name(name)
	}
	if !ok {
		if size := r.strLen(); uint64(name) < uint64(size) {
			r.r.Fail(off, ErrFormat, "st_name %#x: name not NUL-terminated", name)
		} else {
			r.r.Fail(off, ErrFormat, "st_name %#x outside string table of %d bytes", name, size)
		}
		return r.r.Err()
	}
	r.nameOff = name
	*s = Symbol{
		Name:    n,
		Addr:    value,
		Size:    size,
		Section: uint32(shndx),
		Index:   r.index,
		Kind:    elfKind(info & 0xf),
		Bind:    elfBind(info >> 4),
	}
	r.index++
	s.Defined = shndx != shnUndef && (shndx < shnLoReserve || shndx == shnXIndex)
	if r.opts.NumSections != 0 && shndx < shnLoReserve && uint32(shndx) >= r.opts.NumSections {
		s.Defined = false
	}
	switch r.opts.Machine {
	case MachineARM, MachineMIPS:
		// The low bit of a function address selects Thumb (ARM) or
		// microMIPS code; the code itself starts at the even address.
		// LLVM 14 clears it for STT_FUNC only, and not for an absolute
		// symbol, whose value is not an address (ELFObjectFile.h,
		// getSymbolValueImpl): an IFUNC, OBJECT or NOTYPE symbol at an
		// odd value keeps it, and covers addresses from the odd one.
		if s.Kind == KindFunc && shndx != shnAbs {
			s.Addr &^= 1
		}
	}
	if r.opts.Untag {
		s.Addr = uint64(int64(s.Addr<<8) >> 8)
	}
	if r.scan {
		s.Marker = isMarkerAt(r.opts.Machine, r.raw, name)
	} else {
		s.Marker = isMarker(r.opts.Machine, n)
	}
	return nil
}

func (r *ELFReader) strLen() int {
	if r.scan {
		return len(r.raw)
	}
	return len(r.strs)
}

// rawName reports whether name would: whether off starts a NUL-terminated
// string of the string table (or is 0 of an empty one).
func (r *ELFReader) rawName(off uint32) bool {
	t := r.raw
	switch {
	case off == 0 && len(t) == 0:
		return true
	case uint64(off) >= uint64(len(t)):
		return false
	case t[len(t)-1] == 0: // every string of the table ends by the last byte
		return true
	}
	return bytes.IndexByte(t[off:], 0) >= 0
}

// rawString returns the name at off, checked by rawName, as a new string.
func rawString(t []byte, off uint32) string {
	if uint64(off) >= uint64(len(t)) {
		return ""
	}
	rest := t[off:]
	if i := bytes.IndexByte(rest, 0); i >= 0 {
		rest = rest[:i]
	}
	return string(rest)
}

// name returns the NUL-terminated string at off in the string table. An
// empty table (or offset 0 of one) names nothing.
func (r *ELFReader) name(off uint32) (string, bool) {
	if off == 0 && len(r.strs) == 0 {
		return "", true
	}
	if uint64(off) >= uint64(len(r.strs)) {
		return "", false
	}
	rest := r.strs[off:]
	if i := strings.IndexByte(rest, 0); i >= 0 {
		return rest[:i], true
	}
	return "", false // unterminated: LLVM rejects such string tables too
}

// isMarker reports the names LLVM 14 marks SF_FormatSpecific by machine
// (ELFObjectFile.h, getSymbolFlags), which SymbolizableObjectFile::addSymbol
// never puts in its map, whatever their type:
//
//   - ARM: a name starting "$a", "$t" or "$d" (mapping symbols, but also
//     "$data"), and the empty name, of any type and section. Android NDK
//     libraries carry unnamed NOTYPE symbols at the Thumb-odd value of a
//     function; they must not hide it.
//   - AArch64: "$x" and "$d" prefixes only; an unnamed symbol counts there,
//     as on every other machine but RISC-V.
//   - RISC-V: the empty name (label differences); named .LBB labels count.
//
// Each was checked with llvm-symbolizer-14 on lld output (see
// TestMarkerRules).
func isMarker(machine uint16, name string) bool {
	switch machine {
	case MachineARM:
		return name == "" || strings.HasPrefix(name, "$a") || strings.HasPrefix(name, "$t") || strings.HasPrefix(name, "$d")
	case MachineAArch64:
		return strings.HasPrefix(name, "$x") || strings.HasPrefix(name, "$d")
	case MachineRISCV:
		return name == ""
	}
	return false
}

// isMarkerAt is isMarker of the name at off of the string table t, which
// rawName accepted.
func isMarkerAt(machine uint16, t []byte, off uint32) bool {
	switch machine {
	case MachineARM, MachineAArch64, MachineRISCV:
	default:
		return false
	}
	var name []byte
	if uint64(off) < uint64(len(t)) {
		name = t[off:] // only its first bytes are looked at, up to its NUL
	}
	empty := len(name) == 0 || name[0] == 0
	switch machine {
	case MachineARM:
		return empty || bytes.HasPrefix(name, []byte("$a")) || bytes.HasPrefix(name, []byte("$t")) || bytes.HasPrefix(name, []byte("$d"))
	case MachineAArch64:
		return bytes.HasPrefix(name, []byte("$x")) || bytes.HasPrefix(name, []byte("$d"))
	case MachineRISCV:
		return empty
	}
	return false
}

func elfKind(t uint8) Kind {
	switch t {
	case 0:
		return KindNone
	case 1:
		return KindObject
	case 2:
		return KindFunc
	case 3:
		return KindSection
	case 4:
		return KindFile
	case 5:
		return KindCommon
	case 6:
		return KindTLS
	case 10:
		return KindIFunc
	}
	return KindOther
}

func elfBind(b uint8) Bind {
	switch b {
	case 0:
		return BindLocal
	case 1:
		return BindGlobal
	case 2:
		return BindWeak
	case 10:
		return BindUnique
	}
	return BindOther
}

// ReadELF decodes every entry of an ELF symbol table but the null one (see
// NewELFReader). On bad input it returns the symbols before the bad entry
// together with a *DecodeError. The result holds at most len(symtab)/16
// symbols.
func ReadELF(symtab, strtab []byte, opts ELFOptions) ([]Symbol, error) {
	r := NewELFReader(symtab, strtab, opts)
	syms := make([]Symbol, 0, r.Len())
	file := ""
	for {
		var s Symbol
		err := r.Next(&s)
		if err == io.EOF {
			return syms, nil
		}
		if err != nil {
			return syms, err
		}
		switch {
		case s.Kind == KindFile:
			file = s.Name
		case s.Bind == BindLocal:
			s.File = file
		}
		syms = append(syms, s)
	}
}

// LookupELF returns what Lookup(pc) returns on New(ReadELF(symtab, strtab,
// opts)), together with ReadELF's error and n, the number of symbols
// ReadELF returns, without building either: one pass over the entries
// that keeps none of them and makes only the names it returns. For one
// lookup it costs a small part of building the Table; for more, build
// the Table.
func LookupELF(symtab, strtab []byte, opts ELFOptions, pc uint64) (m Match, ok bool, n int, err error) {
	var st nearest
	if !st.fast(symtab, strtab, opts, pc) {
		st = nearest{next: ^uint64(0)}
		r := newELFReader(symtab, opts)
		r.raw, r.scan = strtab, true
		for {
			var s Symbol
			if err = r.Next(&s); err != nil {
				if err == io.EOF {
					err = nil
				}
				break
			}
			st.add(&s, r.nameOff, pc)
		}
	}
	best := &st.best
	if !st.found || best.Size != 0 && pc-best.Addr >= best.Size {
		return Match{}, false, st.n, err
	}
	end := st.next
	if best.Size != 0 && best.Addr+best.Size > best.Addr && best.Addr+best.Size < end {
		end = best.Addr + best.Size
	}
	m = Match{Name: rawString(strtab, st.bestName), Start: best.Addr, Size: best.Size, Offset: pc - best.Addr, Kind: best.Kind, End: end}
	if st.hasFile {
		m.File = rawString(strtab, st.bestFile)
	}
	return m, true, st.n, err
}

// nearest is LookupELF's pass: the symbol New and Lookup would pick for
// pc among the entries so far.
type nearest struct {
	best     Symbol
	bestName uint32
	bestFile uint32 // the st_name of its STT_FILE, when hasFile
	hasFile  bool
	file     uint32 // the st_name of the last STT_FILE so far
	seenFile bool
	found    bool
	next     uint64 // the least eligible address above pc, if any; ^0 if none
	n        int    // entries so far
}

// add takes the next entry, whose st_name is name.
func (st *nearest) add(s *Symbol, name uint32, pc uint64) {
	st.n++
	if s.Kind == KindFile {
		st.file, st.seenFile = name, true
		return
	}
	if eligible(s.Kind, s.Defined, s.Marker) {
		st.take(s, name, pc)
	}
}

// take is add for an Eligible entry.
func (st *nearest) take(s *Symbol, name uint32, pc uint64) {
	b := &st.best
	switch {
	case s.Addr > pc:
		st.next = min(st.next, s.Addr)
	// New's order: of the symbols at one address the largest, and of
	// those the last in the table.
	case !st.found || s.Addr > b.Addr || s.Addr == b.Addr && s.Size >= b.Size:
		st.best, st.bestName, st.found = *s, name, true
		st.bestFile, st.hasFile = st.file, st.seenFile && s.Bind == BindLocal
	}
}

// fast is the pass for the common table, little-endian Elf64_Sym entries
// of a machine without markers or address bits, whose string table ends
// in a NUL, decoded as Next decodes them; it returns false, having taken
// part of the entries, at anything else (an entry Next would reject, a
// partial one), for the generic pass to take all of them.
func (st *nearest) fast(symtab, strtab []byte, opts ELFOptions, pc uint64) bool {
	switch opts.Machine {
	case MachineARM, MachineMIPS, MachineAArch64, MachineRISCV:
		return false
	}
	if !opts.Class64 || opts.BigEndian || len(symtab)%24 != 0 || len(strtab) == 0 || strtab[len(strtab)-1] != 0 {
		return false
	}
	st.next = ^uint64(0)
	for e := 24; e+24 <= len(symtab); e += 24 { // entry 0 is the null symbol
		ent := symtab[e : e+24]
		name := binary.LittleEndian.Uint32(ent)
		if uint64(name) >= uint64(len(strtab)) {
			return false
		}
		st.n++
		info, shndx := ent[4], binary.LittleEndian.Uint16(ent[6:])
		kind := elfKind(info & 0xf)
		if kind == KindFile {
			st.file, st.seenFile = name, true
			continue
		}
		defined := shndx != shnUndef && (shndx < shnLoReserve || shndx == shnXIndex) &&
			!(opts.NumSections != 0 && shndx < shnLoReserve && uint32(shndx) >= opts.NumSections)
		if !eligible(kind, defined, false) {
			continue
		}
		s := Symbol{
			Addr:    binary.LittleEndian.Uint64(ent[8:]),
			Size:    binary.LittleEndian.Uint64(ent[16:]),
			Kind:    kind,
			Bind:    elfBind(info >> 4),
			Defined: true,
		}
		if opts.Untag {
			s.Addr = uint64(int64(s.Addr<<8) >> 8)
		}
		st.take(&s, name, pc)
	}
	return true
}
