package elfx

import (
	"debug/elf"
	"errors"
	"slices"
	"strconv"
	"strings"

	"github.com/symbolize-go/symbolize/internal/buf"
)

// Relocatable objects.
//
// In an ET_REL file (a .o, a kernel module) the debug sections are not
// final: every address and every offset into another debug section is a
// field that the linker would fill from a relocation, and the bytes in the
// file hold only zeros or the addend. Data and Prefix of such a section
// return it with the relocations of every SHT_RELA or SHT_REL section whose
// sh_info names it applied, as llvm-dwarfdump and llvm-symbolizer read it.
//
// What is applied follows LLVM 14 (llvm/lib/Object/RelocationResolver.cpp,
// applied by DWARFObjInMemory): the data relocations compilers and
// assemblers emit in DWARF, per machine, and nothing else. The symbol value
// S is the symbol's st_value plus, in an ET_REL file, the sh_addr of its
// section (0 in a .o; a section symbol is thus its section's start); an
// STT_FUNC symbol of EM_ARM loses its Thumb bit. A is r_addend (SHT_RELA),
// P is r_offset. Where LLVM reads the implicit addend (L, the field's
// current bytes), so do we: REL on i386 and ARM, and RISC-V's ADD, SUB,
// SET6 and SUB6, which LLVM resolves from the field as the previous
// relocation at the same offset left it.
//
// LLVM resolves a relocation when a DWARF reader reads a field at its
// offset, with the reader's width; this package writes each relocation's
// own width once. The two agree on what compilers emit (the widths match).
// They differ where LLVM's readers take a field unrelocated (DW_OP_addr in
// expressions, .debug_aranges entries in LLVM 14, CFA advances of
// .debug_frame), and where three or more relocations share an offset
// (LLVM keeps the first and the last; this package applies all in order).
//
// Cost: one pass over the relocation entries, and one over the section's
// headers to find them, per relocated section; a copy of the section.
//
// A relocation that cannot be applied (a type LLVM 14 does not resolve, an
// offset outside the section, a symbol index outside the symbol table, a
// symbol in a section that does not exist) is skipped, leaving the field
// as it was, as LLVM skips it with a warning; the first such problem is
// kept for RelocationErr, and the other relocations still apply.

// ErrUnsupportedRelocation is the cause, inside a *DecodeError, of a
// relocation whose type this package (like LLVM 14) does not resolve for
// the file's machine, or of a machine it resolves none for.
var ErrUnsupportedRelocation = errors.New("unsupported relocation")

// RelocationErr returns the first problem met while applying relocations
// to the section's data, or nil: a *DecodeError naming the relocation
// section and the offset of the entry (or of its header) within it,
// wrapping ErrUnsupportedRelocation, ErrFormat or ErrTruncated. Relocations
// are applied by the first Data or Prefix call that returns the section's
// data (only debug sections of ET_REL files have them); before that, and
// for every other section, RelocationErr returns nil.
func (s *Section) RelocationErr() error {
	if !s.done.Load() {
		return nil
	}
	return s.relocErr
}

// Relocated reports whether Data returns the section with relocations
// applied: it is a debug section (.debug_* or .zdebug_*) of an ET_REL
// file. Once a relocation changes its bytes, its data is a copy: the file
// (or the caller's bytes) is never written.
func (s *Section) Relocated() bool {
	return s.f.Type == elf.ET_REL && s.HasData() && isDebugName(s.Name)
}

// RelocationSection returns the index of the section that a relocation
// at offset off of the section's data is relative to: the section of its
// symbol, as LLVM 14 records it with the value it reads there (the
// SectionIndex of a SectionedAddress). ok is false when no relocation that
// applies is at off, or when its symbol is in no section (the null symbol,
// undefined, absolute or common ones). Where several relocations share an
// offset (RISC-V's pairs), the first one counts, as in LLVM.
//
// A DW_LNE_set_address names the section of the line-table sequence it
// starts this way, which is how llvm-symbolizer tells apart the sequences
// of an object's sections, all of which start at address 0.
//
// Cost: the first call reads the section's relocations again and keeps a
// sorted list of where they apply (16 bytes each); then a binary search.
func (s *Section) RelocationSection(off uint64) (index int, ok bool) {
	s.relocOnce.Do(func() {
		if !s.Relocated() {
			return
		}
		a := applier{f: s.f, target: s, collect: true, data: make([]byte, 0)}
		if d, err := s.Data(); err == nil {
			a.data = d
		}
		for _, rs := range s.f.Sections {
			if (rs.Type == elf.SHT_RELA || rs.Type == elf.SHT_REL) && rs.Info == uint32(s.Index) && rs != s {
				a.section(rs)
			}
		}
		slices.SortStableFunc(a.at, func(x, y relocAt) int { return compareU64(x.off, y.off) })
		s.relocAt = slices.Clip(a.at)
	})
	at := s.relocAt
	i, found := slices.BinarySearchFunc(at, off, func(r relocAt, off uint64) int { return compareU64(r.off, off) })
	if !found || at[i].sec == 0 {
		return 0, false
	}
	return int(at[i].sec), true
}

func compareU64(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// isDebugName reports whether sections of this name hold DWARF, which
// LLVM relocates in an object file (and so do we).
func isDebugName(name string) bool {
	return strings.HasPrefix(name, ".debug_") || strings.HasPrefix(name, ".zdebug_")
}

// relocate returns b, the whole data of s, with the relocations that
// target s applied, and records the first problem in s.relocErr. b is
// modified in place when owned (decompressed or read into the heap);
// otherwise the first relocation applied copies it, so the mapping is
// never written. Called with s.mu held, by Prefix only; it reads other
// sections (the relocations, the symbol table), never s.
func (s *Section) relocate(b []byte, owned bool) []byte {
	if !s.Relocated() {
		return b
	}
	a := applier{f: s.f, target: s, data: b, owned: owned}
	for _, rs := range s.f.Sections {
		if (rs.Type == elf.SHT_RELA || rs.Type == elf.SHT_REL) && rs.Info == uint32(s.Index) && rs != s {
			a.section(rs)
		}
	}
	if a.first != nil {
		e := *a.first // may be another section's cached error: not ours to change
		if a.skipped > 1 {
			e.Err = &countedErr{e.Err, a.skipped}
		}
		s.relocErr = &e
	}
	return a.data
}

// countedErr adds to a relocation problem how many relocations were
// skipped in all.
type countedErr struct {
	err error
	n   int
}

func (e *countedErr) Error() string {
	return e.err.Error() + " (" + strconv.Itoa(e.n) + " relocations skipped in all)"
}

func (e *countedErr) Unwrap() error { return e.err }

// applier applies the relocation sections of one target section, or,
// with collect set, lists where they apply instead.
type applier struct {
	f      *File
	target *Section
	data   []byte
	owned  bool // data may be written

	collect bool
	at      []relocAt

	first   *DecodeError
	skipped int
}

// relocAt is a relocation that applies at off, against a symbol of
// section sec (0: none).
type relocAt struct {
	off uint64
	sec uint32
}

// fail records a skipped relocation (or a skipped relocation section,
// counting its entries).
func (a *applier) fail(n int, err *DecodeError) {
	a.skipped += n
	if a.first == nil {
		a.first = err
	}
}

// symbols is a relocation section's view of its symbol table.
type symbols struct {
	data   []byte // Elf32_Sym or Elf64_Sym records
	size   uint64 // bytes per record
	shndx  []byte // SHT_SYMTAB_SHNDX entries, for SHN_XINDEX; nil if none
	n      uint64
	sec    string // the symbol table's name, for errors
	secIdx int
}

// Symbol record sizes [gABI 4 "Symbol Table"].
const (
	sym32 = 16
	sym64 = 24
)

// Relocation entry sizes [gABI 4 "Relocation"].
const (
	rel32  = 8
	rela32 = 12
	rel64  = 16
	rela64 = 24
)

// section applies the relocations of rs.
func (a *applier) section(rs *Section) {
	f := a.f
	is64 := f.Class == elf.ELFCLASS64
	isRela := rs.Type == elf.SHT_RELA
	esize := uint64(rel32)
	switch {
	case is64 && isRela:
		esize = rela64
	case is64:
		esize = rel64
	case isRela:
		esize = rela32
	}
	if isDebugName(rs.Name) {
		// Its own data would be relocated: refuse it rather than
		// recurse (hostile input only).
		a.fail(1, buf.Errorf(pkg, rs.Name, 0, ErrFormat, "a relocation section named like a debug section"))
		return
	}
	count := int(min(rs.Size/esize, 1<<30))
	if rs.Entsize != 0 && rs.Entsize != esize {
		a.fail(count, buf.Errorf(pkg, rs.Name, 0, ErrFormat, "sh_entsize %d; %v entries of this class are %d bytes", rs.Entsize, rs.Type, esize))
		return
	}
	relocs, err := rs.Data()
	if err != nil {
		a.fail(count, asDecodeError(err, rs.Name))
		return
	}
	if rem := uint64(len(relocs)) % esize; rem != 0 {
		a.fail(1, buf.Errorf(pkg, rs.Name, uint64(len(relocs))-rem, ErrTruncated, "%d bytes left after the last whole %d-byte entry", rem, esize))
	}
	n := uint64(len(relocs)) / esize
	if n == 0 {
		return
	}
	syms, serr := a.symbols(rs)
	m := machineOf(f)
	if m == nil {
		a.fail(int(min(n, 1<<30)), buf.Errorf(pkg, rs.Name, 0, ErrUnsupportedRelocation, "no relocation types are resolved for %v", f.Machine))
		return
	}
	bo := f.ByteOrder
	for i := uint64(0); i < n; i++ {
		e := relocs[i*esize : (i+1)*esize]
		var off, info uint64
		var addend int64
		var sym uint64
		var typ uint32
		if is64 {
			off, info = bo.Uint64(e), bo.Uint64(e[8:])
			if isRela {
				addend = int64(bo.Uint64(e[16:]))
			}
			sym, typ = info>>32, uint32(info)
		} else {
			off, info = uint64(bo.Uint32(e)), uint64(bo.Uint32(e[4:]))
			if isRela {
				addend = int64(int32(bo.Uint32(e[8:])))
			}
			sym, typ = info>>8, uint32(info&0xff)
		}
		at := i * esize
		how, ok := m.how(typ)
		if !ok {
			a.fail(1, buf.Errorf(pkg, rs.Name, at, ErrUnsupportedRelocation, "type %d is not resolved for %v", typ, f.Machine))
			continue
		}
		w := uint64(how.width)
		if off > uint64(len(a.data)) || w > uint64(len(a.data))-off {
			a.fail(1, buf.Errorf(pkg, rs.Name, at, ErrFormat, "%d-byte field at offset %#x is outside %s (size %#x)", w, off, a.target.Name, len(a.data)))
			continue
		}
		var s uint64
		var sec uint32
		if sym != 0 {
			if serr != nil {
				a.fail(1, serr)
				continue
			}
			v, x, err := syms.value(f, sym, rs.Name, at)
			if err != nil {
				a.fail(1, err)
				continue
			}
			s, sec = v, x
		}
		if a.collect {
			a.at = append(a.at, relocAt{off, sec})
			continue
		}
		if how.width == 0 {
			continue // R_*_NONE
		}
		// LLVM passes the field's bytes (LocData) with REL, and with
		// RELA only on RISC-V.
		var l uint64
		if !isRela || m.riscv {
			l = readField(a.data[off:], how.width, bo)
		}
		a.write(off, how, m.value(how, s, addend, l, off))
	}
}

// write stores v, truncated to the field's width, at off.
func (a *applier) write(off uint64, how relocHow, v uint64) {
	if !a.owned {
		a.data = append([]byte(nil), a.data...)
		a.owned = true
	}
	b := a.data[off:]
	bo := a.f.ByteOrder
	switch how.width {
	case 1:
		b[0] = byte(v)
	case 2:
		bo.PutUint16(b, uint16(v))
	case 4:
		bo.PutUint32(b, uint32(v))
	case 8:
		bo.PutUint64(b, v)
	}
}

func readField(b []byte, width uint8, bo interface {
	Uint16([]byte) uint16
	Uint32([]byte) uint32
	Uint64([]byte) uint64
}) uint64 {
	switch width {
	case 1:
		return uint64(b[0])
	case 2:
		return uint64(bo.Uint16(b))
	case 4:
		return uint64(bo.Uint32(b))
	case 8:
		return bo.Uint64(b)
	}
	return 0
}

// symbols returns the symbol table that rs links to. A table that cannot
// be read fails only the relocations that name a symbol.
func (a *applier) symbols(rs *Section) (*symbols, *DecodeError) {
	f := a.f
	if rs.Link == 0 || uint64(rs.Link) >= uint64(len(f.Sections)) {
		return nil, buf.Errorf(pkg, rs.Name, 0, ErrFormat, "symbol table link %d is not a section", rs.Link)
	}
	st := f.Sections[rs.Link]
	if st.Type != elf.SHT_SYMTAB && st.Type != elf.SHT_DYNSYM {
		return nil, buf.Errorf(pkg, rs.Name, 0, ErrFormat, "linked section %d has type %v, not a symbol table", rs.Link, st.Type)
	}
	if isDebugName(st.Name) {
		return nil, buf.Errorf(pkg, rs.Name, 0, ErrFormat, "linked symbol table %d is named like a debug section", rs.Link)
	}
	size := uint64(sym32)
	if f.Class == elf.ELFCLASS64 {
		size = sym64
	}
	data, err := st.Data()
	if err != nil {
		return nil, asDecodeError(err, st.Name)
	}
	t := &symbols{data: data, size: size, n: uint64(len(data)) / size, sec: st.Name, secIdx: st.Index}
	return t, nil
}

// value returns the value LLVM gives symbol i in a relocation: st_value,
// plus the sh_addr of the symbol's section in an ET_REL file, without
// the Thumb bit of an ARM function; and that section's index, 0 for none
// (undefined, absolute, common). at is the relocation's offset in rs, for
// errors.
func (t *symbols) value(f *File, i uint64, rs string, at uint64) (uint64, uint32, *DecodeError) {
	if i >= t.n {
		return 0, 0, buf.Errorf(pkg, rs, at, ErrFormat, "symbol index %d is outside %s (%d symbols)", i, t.sec, t.n)
	}
	e := t.data[i*t.size : (i+1)*t.size]
	bo := f.ByteOrder
	var v uint64
	var info uint8
	var shndx uint32
	if f.Class == elf.ELFCLASS64 {
		info, shndx, v = e[4], uint32(bo.Uint16(e[6:])), bo.Uint64(e[8:])
	} else {
		v, info, shndx = uint64(bo.Uint32(e[4:])), e[12], uint32(bo.Uint16(e[14:]))
	}
	switch elf.SectionIndex(shndx) {
	case elf.SHN_ABS:
		return v, 0, nil
	case elf.SHN_XINDEX:
		x, err := t.extendedIndex(f, i, rs, at)
		if err != nil {
			return 0, 0, err
		}
		shndx = x
	}
	v = clearThumb(f, info, v)
	if shndx == 0 || shndx >= uint32(elf.SHN_LORESERVE) {
		// Undefined, common and the other reserved indexes name no
		// section (LLVM adds no address).
		return v, 0, nil
	}
	if uint64(shndx) >= uint64(len(f.Sections)) {
		return 0, 0, buf.Errorf(pkg, rs, at, ErrFormat, "symbol %d is in section %d, past the %d sections", i, shndx, len(f.Sections))
	}
	if f.Type == elf.ET_REL {
		v += f.Sections[shndx].Addr
	}
	return v, shndx, nil
}

// clearThumb drops bit 0 of an ARM (or MIPS) function symbol's value, as
// LLVM's ELFObjectFile::getSymbolValue does.
func clearThumb(f *File, info uint8, v uint64) uint64 {
	if (f.Machine == elf.EM_ARM || f.Machine == elf.EM_MIPS) && elf.SymType(info&0xf) == elf.STT_FUNC {
		return v &^ 1
	}
	return v
}

// extendedIndex returns the section index of symbol i from the
// SHT_SYMTAB_SHNDX section linked to the symbol table [gABI 4 "Symbol
// Table", SHN_XINDEX].
func (t *symbols) extendedIndex(f *File, i uint64, rs string, at uint64) (uint32, *DecodeError) {
	if t.shndx == nil {
		for _, s := range f.Sections {
			if s.Type == elf.SHT_SYMTAB_SHNDX && s.Link == uint32(t.secIdx) && !isDebugName(s.Name) {
				d, err := s.Data()
				if err != nil {
					return 0, asDecodeError(err, s.Name)
				}
				t.shndx = d
				if t.shndx == nil {
					t.shndx = []byte{}
				}
				break
			}
		}
		if t.shndx == nil {
			t.shndx = []byte{}
		}
	}
	if uint64(len(t.shndx))/4 <= i {
		return 0, buf.Errorf(pkg, rs, at, ErrFormat, "symbol %d has SHN_XINDEX but no SHT_SYMTAB_SHNDX entry", i)
	}
	return f.ByteOrder.Uint32(t.shndx[i*4:]), nil
}

// asDecodeError returns err as a *DecodeError, wrapping an I/O error in
// one that names section.
func asDecodeError(err error, section string) *DecodeError {
	var de *DecodeError
	if errors.As(err, &de) {
		return de
	}
	return buf.Errorf(pkg, section, 0, ErrFormat, "%v", err)
}

// relocOp is how a relocation computes its field.
type relocOp uint8

const (
	opNone  relocOp = iota // the field stays: R_*_NONE
	opAbs                  // S + A
	opPCRel                // S + A - P
	opAdd                  // L + (S + A): RISC-V R_RISCV_ADDn
	opSub                  // L - (S + A): R_RISCV_SUBn
	opSet6                 // the low 6 bits of the byte := S + A: R_RISCV_SET6
	opSub6                 // the low 6 bits := their value - (S + A): R_RISCV_SUB6
)

// relocHow is a relocation type's operation and field width in bytes.
type relocHow struct {
	op    relocOp
	width uint8
}

// machine is the relocation types of one e_machine, with the operands
// LLVM 14's resolver for it takes.
type machine struct {
	types map[uint32]relocHow
	// locData: the resolver adds the field's bytes (LocData), which is
	// the implicit addend of REL (i386, ARM); the others ignore them.
	locData bool
	// noAddend: the resolver ignores r_addend (i386).
	noAddend bool
	// riscv: the resolver takes both, S + r_addend for the absolute
	// types and the field's bytes as the other operand of ADD, SUB,
	// SET6 and SUB6.
	riscv bool
}

// how returns the operation of type typ.
func (m *machine) how(typ uint32) (relocHow, bool) {
	h, ok := m.types[typ]
	return h, ok
}

// value computes a relocation's field: s the symbol value, addend
// r_addend (0 for REL), l the field's bytes where LLVM passes them (REL,
// and RISC-V; else 0), p the field's offset.
func (m *machine) value(how relocHow, s uint64, addend int64, l, p uint64) uint64 {
	a := uint64(addend)
	if m.noAddend {
		a = 0
	}
	if m.locData {
		a += l
	}
	switch how.op {
	case opAbs:
		return s + a
	case opPCRel:
		return s + a - p
	case opAdd:
		return l + (s + a)
	case opSub:
		return l - (s + a)
	case opSet6:
		return l&0xc0 | (s+a)&0x3f
	case opSub6:
		return l&0xc0 | ((l&0x3f)-(s+a))&0x3f
	}
	return l
}

// machineOf returns the relocation types LLVM 14 resolves for f's
// machine and class, or nil when it resolves none.
func machineOf(f *File) *machine {
	is64 := f.Class == elf.ELFCLASS64
	switch {
	case f.Machine == elf.EM_X86_64 && is64:
		return &mX86_64
	case f.Machine == elf.EM_386 && !is64:
		return &m386
	case f.Machine == elf.EM_AARCH64 && is64:
		return &mAArch64
	case f.Machine == elf.EM_ARM && !is64:
		return &mARM
	case f.Machine == elf.EM_PPC64 && is64:
		return &mPPC64
	case f.Machine == elf.EM_PPC && !is64:
		return &mPPC
	case f.Machine == elf.EM_S390 && is64:
		return &mS390
	case f.Machine == elf.EM_RISCV:
		return &mRISCV
	}
	return nil
}

// The types LLVM 14 resolves, checked one by one against llvm-dwarfdump-14
// (a type it does not resolve draws "failed to compute relocation").
var (
	mX86_64 = machine{types: map[uint32]relocHow{
		uint32(elf.R_X86_64_NONE):     {opNone, 0},
		uint32(elf.R_X86_64_64):       {opAbs, 8},
		uint32(elf.R_X86_64_PC32):     {opPCRel, 4},
		uint32(elf.R_X86_64_32):       {opAbs, 4},
		uint32(elf.R_X86_64_32S):      {opAbs, 4},
		uint32(elf.R_X86_64_DTPOFF64): {opAbs, 8},
		uint32(elf.R_X86_64_DTPOFF32): {opAbs, 4},
		uint32(elf.R_X86_64_PC64):     {opPCRel, 8},
	}}
	m386 = machine{locData: true, noAddend: true, types: map[uint32]relocHow{
		uint32(elf.R_386_NONE): {opNone, 0},
		uint32(elf.R_386_32):   {opAbs, 4},
		uint32(elf.R_386_PC32): {opPCRel, 4},
	}}
	mAArch64 = machine{types: map[uint32]relocHow{
		uint32(elf.R_AARCH64_ABS64):  {opAbs, 8},
		uint32(elf.R_AARCH64_ABS32):  {opAbs, 4},
		uint32(elf.R_AARCH64_PREL64): {opPCRel, 8},
		uint32(elf.R_AARCH64_PREL32): {opPCRel, 4},
	}}
	mARM = machine{locData: true, types: map[uint32]relocHow{
		uint32(elf.R_ARM_ABS32): {opAbs, 4},
		uint32(elf.R_ARM_REL32): {opPCRel, 4},
	}}
	mPPC64 = machine{types: map[uint32]relocHow{
		uint32(elf.R_PPC64_ADDR32): {opAbs, 4},
		uint32(elf.R_PPC64_ADDR64): {opAbs, 8},
		uint32(elf.R_PPC64_REL32):  {opPCRel, 4},
		uint32(elf.R_PPC64_REL64):  {opPCRel, 8},
	}}
	mPPC = machine{types: map[uint32]relocHow{
		uint32(elf.R_PPC_ADDR32): {opAbs, 4},
		uint32(elf.R_PPC_REL32):  {opPCRel, 4},
	}}
	mS390 = machine{types: map[uint32]relocHow{
		uint32(elf.R_390_32): {opAbs, 4},
		uint32(elf.R_390_64): {opAbs, 8},
	}}
	// RISC-V: linker relaxation may move code, so clang writes every
	// difference of two code addresses (DW_AT_high_pc as a length,
	// DW_LNS_fixed_advance_pc in .debug_line, CFA advances in
	// .debug_frame) as an ADD/SUB pair, or SET6/SUB6, at one offset.
	// LLVM 14 does not resolve SET8, SET16 or SET32.
	mRISCV = machine{riscv: true, types: map[uint32]relocHow{
		uint32(elf.R_RISCV_NONE):     {opNone, 0},
		uint32(elf.R_RISCV_32):       {opAbs, 4},
		uint32(elf.R_RISCV_64):       {opAbs, 8},
		uint32(elf.R_RISCV_32_PCREL): {opPCRel, 4},
		uint32(elf.R_RISCV_ADD8):     {opAdd, 1},
		uint32(elf.R_RISCV_ADD16):    {opAdd, 2},
		uint32(elf.R_RISCV_ADD32):    {opAdd, 4},
		uint32(elf.R_RISCV_ADD64):    {opAdd, 8},
		uint32(elf.R_RISCV_SUB8):     {opSub, 1},
		uint32(elf.R_RISCV_SUB16):    {opSub, 2},
		uint32(elf.R_RISCV_SUB32):    {opSub, 4},
		uint32(elf.R_RISCV_SUB64):    {opSub, 8},
		uint32(elf.R_RISCV_SET6):     {opSet6, 1},
		uint32(elf.R_RISCV_SUB6):     {opSub6, 1},
	}}
)
