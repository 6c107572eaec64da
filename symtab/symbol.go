package symtab

import "strconv"

// Symbol is one symbol-table entry in a form common to object formats. ELF
// entries come from ReadELF; the root package fills the same fields from
// Mach-O nlist entries. Name aliases whatever string the decoder made it
// from.
type Symbol struct {
	Name    string
	Addr    uint64 // st_value; bit 0 cleared for EM_ARM and EM_MIPS STT_FUNC symbols (Thumb, microMIPS) not in SHN_ABS
	Size    uint64 // st_size; 0 when the producer did not say
	Section uint32 // raw section index (ELF st_shndx, including SHN_ABS etc.)
	Index   uint32 // position in its symbol table (ELF: 1 is the first after the null entry)
	Kind    Kind
	Bind    Bind
	// Defined reports that the symbol lives in a section of this file: not
	// undefined, absolute or common (ELF SHN_UNDEF, SHN_ABS, SHN_COMMON and
	// the other reserved indexes).
	Defined bool
	// Marker reports a format-specific symbol that never names code or
	// data, by name and machine: on ARM the mapping symbols ($a, $t, $d and
	// any name with those prefixes) and every unnamed symbol; on AArch64
	// names starting $x or $d; on RISC-V unnamed labels. LLVM calls these
	// SF_FormatSpecific.
	Marker bool
	// File is, for an ELF local symbol, the name of the last STT_FILE
	// symbol before it in its table (the source file it came from), as
	// llvm-symbolizer reports when no line table covers an address; "" for
	// others.
	File string
}

// Kind is what a symbol names, from ELF's STT_* types.
type Kind uint8

// Symbol kinds [ELF gABI 4.1 "Symbol Type"].
const (
	KindNone    Kind = iota // STT_NOTYPE: no type; assembly labels are often this
	KindObject              // STT_OBJECT: data
	KindFunc                // STT_FUNC: code
	KindSection             // STT_SECTION: a section's own symbol
	KindFile                // STT_FILE: a source file name
	KindCommon              // STT_COMMON: an unallocated common block
	KindTLS                 // STT_TLS: thread-local; Addr is an offset in the TLS block
	KindIFunc               // STT_GNU_IFUNC: an indirect function (its resolver's address)
	KindOther               // any other type (OS- or processor-specific)
)

var kindNames = [...]string{"none", "object", "func", "section", "file", "common", "tls", "ifunc", "other"}

// String returns a short lower-case name such as "func".
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// Bind is a symbol's linkage visibility, from ELF's STB_* bindings.
type Bind uint8

// Symbol bindings [ELF gABI 4.1 "Symbol Binding"].
const (
	BindLocal  Bind = iota // STB_LOCAL
	BindGlobal             // STB_GLOBAL
	BindWeak               // STB_WEAK
	BindUnique             // STB_GNU_UNIQUE
	BindOther              // any other binding
)

var bindNames = [...]string{"local", "global", "weak", "unique", "other"}

// String returns a short lower-case name such as "weak".
func (b Bind) String() string {
	if int(b) < len(bindNames) {
		return bindNames[b]
	}
	return "Bind(" + strconv.Itoa(int(b)) + ")"
}

// Eligible reports whether llvm-symbolizer 14 would put s in its address
// map (SymbolizableObjectFile::addSymbol): defined in a section of the
// file, not a marker, and of kind none, func, object or ifunc. Section,
// file, TLS and common symbols never answer a lookup; neither do undefined
// and absolute ones (an absolute symbol's value is not an address in the
// file, e.g. a linker-script constant). The section's flags do not matter:
// LLVM 14 keeps a symbol of a non-SHF_ALLOC section too (later versions
// drop it), so a FUNC in such a section, at address 0, names low PCs.
func Eligible(s Symbol) bool { return eligible(s.Kind, s.Defined, s.Marker) }

func eligible(k Kind, defined, marker bool) bool {
	if !defined || marker {
		return false
	}
	switch k {
	case KindNone, KindFunc, KindObject, KindIFunc:
		return true
	}
	return false
}
