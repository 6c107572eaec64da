package macho

import (
	"path"
	"strings"

	"github.com/symbolize-go/symbolize/internal/buf"
)

const secSymtab = "symtab"

// n_type bits and N_TYPE values [mach-o/nlist.h].
const (
	nStab = 0xe0 // N_STAB: any of these bits makes the entry a debug stab
	nPExt = 0x10 // N_PEXT
	nType = 0x0e // N_TYPE
	nExt  = 0x01 // N_EXT

	nUndf = 0x0 // N_UNDF
	nAbs  = 0x2 // N_ABS
	nIndr = 0xa // N_INDR
	nPbud = 0xc // N_PBUD
	nSect = 0xe // N_SECT
)

// Stab types (an n_type with N_STAB bits set) that the debug map uses
// [mach-o/stab.h].
const (
	StabGSYM  = 0x20 // N_GSYM: global variable; address from the symbol table
	StabFUN   = 0x24 // N_FUN: function start; an empty-named N_FUN after it holds the size
	StabSTSYM = 0x26 // N_STSYM: static data
	StabLCSYM = 0x28 // N_LCSYM: static bss
	StabBNSYM = 0x2e // N_BNSYM: begin of a function's stabs
	StabENSYM = 0x4e // N_ENSYM
	StabSO    = 0x64 // N_SO: source file; an empty name ends the object
	StabOSO   = 0x66 // N_OSO: object file path; n_value is its mtime
	StabSOL   = 0x84 // N_SOL: included source file
)

// n_desc bits [mach-o/nlist.h].
const (
	DescReferencedDynamically = 0x10 // REFERENCED_DYNAMICALLY
	DescNoDeadStrip           = 0x20 // N_NO_DEAD_STRIP
	DescWeakRef               = 0x40 // N_WEAK_REF
	DescWeakDef               = 0x80 // N_WEAK_DEF
)

// Library ordinals with special meaning [mach-o/nlist.h].
const (
	OrdinalSelf          = 0x00 // SELF_LIBRARY_ORDINAL
	OrdinalDynamicLookup = 0xfe // DYNAMIC_LOOKUP_ORDINAL: flat lookup at run time
	OrdinalExecutable    = 0xff // EXECUTABLE_ORDINAL: a plug-in importing from its host
)

// Kind classifies an nlist entry.
type Kind uint8

const (
	KindStab      Kind = iota + 1 // a debug stab (N_STAB bits set); Type is the stab type
	KindDirect                    // defined in a section (N_SECT); Value is its address
	KindAbsolute                  // N_ABS: Value is not relocated
	KindUndefined                 // N_UNDF: an import (with N_EXT), or a common symbol when Value != 0
	KindIndirect                  // N_INDR: an alias; Value indexes the string table
	KindPrebound                  // N_PBUD: prebound undefined, from old prebinding
	KindOther                     // any other N_TYPE value
)

// Symbol is one nlist or nlist_64 entry. Name is a substring of the image's
// string table (one copy is shared by all names).
type Symbol struct {
	Name  string
	Type  uint8  // n_type
	Sect  uint8  // n_sect: 1-based section number, 0 for NO_SECT
	Desc  uint16 // n_desc
	Value uint64 // n_value
	Kind  Kind
}

// External reports whether the symbol has N_EXT.
func (s *Symbol) External() bool { return s.Type&nStab == 0 && s.Type&nExt != 0 }

// PrivateExternal reports N_PEXT (visibility hidden after linking).
func (s *Symbol) PrivateExternal() bool { return s.Type&nStab == 0 && s.Type&nPExt != 0 }

// StabType returns the stab type of a KindStab entry, or 0.
func (s *Symbol) StabType() uint8 {
	if s.Kind != KindStab {
		return 0
	}
	return s.Type
}

// LibraryOrdinal returns the two-level-namespace library ordinal of an
// undefined symbol: the high byte of n_desc (GET_LIBRARY_ORDINAL). 1..N
// index File.Dylibs from one; see the Ordinal* constants for the rest.
func (s *Symbol) LibraryOrdinal() uint8 { return uint8(s.Desc >> 8) }

// classify derives Kind from n_type.
func classify(t uint8) Kind {
	if t&nStab != 0 {
		return KindStab
	}
	switch t & nType {
	case nSect:
		return KindDirect
	case nAbs:
		return KindAbsolute
	case nUndf:
		return KindUndefined
	case nIndr:
		return KindIndirect
	case nPbud:
		return KindPrebound
	}
	return KindOther
}

// NumSymbols returns the number of nlist entries.
func (f *File) NumSymbols() int {
	if f.Symtab == nil {
		return 0
	}
	return int(f.Symtab.NSyms)
}

// Symbols decodes the whole symbol table in file order (stabs included).
// Names are substrings of one copy of the string table, so the cost is one
// allocation for the slice. A string index past the string table is an
// error. No LC_SYMTAB yields (nil, nil).
func (f *File) Symbols() ([]Symbol, error) {
	if f.Symtab == nil || f.Symtab.NSyms == 0 {
		return nil, nil
	}
	syms := make([]Symbol, f.Symtab.NSyms) // bounded by Parse's range check
	for i := range syms {
		if err := f.SymbolAt(i, &syms[i]); err != nil {
			return nil, err
		}
	}
	return syms, nil
}

// SymbolAt decodes entry i into *s without allocating. Cost O(1) plus the
// length of the name.
func (f *File) SymbolAt(i int, s *Symbol) error {
	st := f.Symtab
	if st == nil || i < 0 || uint64(i) >= uint64(st.NSyms) {
		return buf.Errorf(pkg, secSymtab, 0, ErrFormat, "symbol index %d out of range", i)
	}
	esz := uint64(12)
	if f.Is64 {
		esz = 16
	}
	off := uint64(st.SymOff) + uint64(i)*esz
	r := buf.New(pkg, secSymtab, f.Data, f.BigEndian)
	r.Seek(off)
	strx := r.U32()
	s.Type, s.Sect, s.Desc = r.U8(), r.U8(), r.U16()
	if f.Is64 {
		s.Value = r.U64()
	} else {
		s.Value = uint64(r.U32())
	}
	if err := r.Err(); err != nil {
		return err
	}
	s.Kind = classify(s.Type)
	s.Name = ""
	// n_strx 0 means no name; ld64 puts " " there, which nm never prints.
	if strx != 0 {
		if uint64(strx) >= uint64(len(f.strtab)) {
			return buf.Errorf(pkg, secSymtab, off, ErrFormat, "symbol %d: n_strx %#x past string table size %#x", i, strx, len(f.strtab))
		}
		name := f.strtab[strx:]
		if j := strings.IndexByte(name, 0); j >= 0 {
			name = name[:j]
		}
		s.Name = name
	}
	return nil
}

// Library returns the dependent library an undefined symbol binds to, as
// `nm -m` shows it: (dylib, true) for ordinals 1..len(Dylibs). Images
// without MH_TWOLEVEL (flat namespace) and the special ordinals have none;
// use LibraryOrdinal to tell those apart.
func (f *File) Library(s *Symbol) (Dylib, bool) {
	if s.Kind != KindUndefined && s.Kind != KindPrebound || f.Header.Flags&FlagTwoLevel == 0 {
		return Dylib{}, false
	}
	n := int(s.LibraryOrdinal())
	if n < 1 || n > len(f.Dylibs) {
		return Dylib{}, false
	}
	return f.Dylibs[n-1], true
}

// LibraryShortName returns the short name Apple's tools print for an install
// name: "libSystem" for "/usr/lib/libSystem.B.dylib", "Foundation" for
// ".../Foundation.framework/Versions/C/Foundation", "libfix" for
// "@rpath/libfix.dylib". A "_debug" or "_profile" variant suffix is dropped.
func LibraryShortName(install string) string {
	base := path.Base(install)
	if strings.Contains(install, ".framework/") {
		return strings.TrimSuffix(strings.TrimSuffix(base, "_debug"), "_profile")
	}
	base = strings.TrimSuffix(base, ".dylib")
	base = strings.TrimSuffix(strings.TrimSuffix(base, "_debug"), "_profile")
	// A single-letter version ("libSystem.B") or any dotted suffix is dropped.
	if i := strings.IndexByte(base, '.'); i > 0 {
		base = base[:i]
	}
	return base
}
