// Package symtab turns object-file symbol tables into a sorted address map
// and answers "which symbol covers this PC?" the way llvm-symbolizer 14 does.
// It is the fallback when DWARF does not cover a PC, and the source of the
// outermost frame's linkage name when it does: llvm-symbolizer takes that
// name from the symbol table whenever a symbol covers the PC, which is why
// gcc's split parts print as foo.cold and its clones as foo.part.0.
//
// The package is a leaf: it decodes raw bytes and imports no object-format
// package. The container packages find the sections; this package decodes
//
//   - ELF symbol tables (.symtab, .dynsym), Elf32_Sym and Elf64_Sym in either
//     byte order, with ReadELF or an ELFReader, into []Symbol;
//   - any []Symbol (from ReadELF, or Mach-O nlist entries converted by the
//     root package) into a Table, with New.
//
// Which symbols count and which of several aliases at one address wins
// follow llvm-symbolizer 14 (SymbolizableObjectFile, and ELFObjectFile's
// symbol values and flags, as in LLVM 14.0.6); see Eligible, Symbol.Marker,
// Symbol.Addr and New. The rules were read in that source and checked
// against llvm-symbolizer-14 on gcc, clang and lld output for x86-64, i386,
// 32-bit ARM (Thumb and ARM code), AArch64, MIPS and RISC-V; the tests keep
// the findings.
//
// Demangle renders Itanium C++, Rust legacy and Rust v0 names either as
// llvm-symbolizer 14 prints them or as GNU tools do. The LLVM style has
// demanglers of its own: itanium.go, a port of LLVM 14's Itanium grammar
// and printer that fails where LLVM 14 fails (the name then prints raw),
// and rustv0.go. The GNU style goes through
// github.com/ianlancetaylor/demangle for Itanium names and rustv0_gnu.go
// for Rust v0.
//
// Robustness: no input makes this package panic, loop without bound or
// allocate more than a small multiple of its size. Bad symbol-table bytes
// come back as a *DecodeError naming the section and absolute offset.
package symtab

import "github.com/symbolize-go/symbolize/internal/buf"

// DecodeError says which section and offset held bad input; its Err wraps
// one of the sentinels below. It is the same type in every package of this
// module, so one errors.As serves them all.
type DecodeError = buf.DecodeError

// Sentinel causes, for errors.Is.
var (
	ErrTruncated          = buf.ErrTruncated
	ErrOverflow           = buf.ErrOverflow
	ErrUnsupportedVersion = buf.ErrUnsupportedVersion
	ErrFormat             = buf.ErrFormat
	ErrLimit              = buf.ErrLimit
)
