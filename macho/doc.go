// Package macho reads Mach-O images for symbolication: thin and universal
// (fat, including fat_arch_64) files in either byte order, 32- and 64-bit
// headers, the load commands a symbolizer needs (segments and sections,
// LC_UUID, LC_FUNCTION_STARTS, LC_SYMTAB/LC_DYSYMTAB, dependent dylibs,
// build versions, LC_MAIN), the nlist symbol table classified into direct
// symbols, imports (with the library each comes from) and debug stabs, the
// debug map that stabs describe, and dSYM companions matched by UUID. DWARF
// sections (__DWARF,__debug_*) are handed out as raw bytes for the shared
// decoders, and the compressed __zdebug_* sections of Go-built images are
// inflated, lazily if asked (CompressedDWARF); this package does not decode
// DWARF itself.
//
// Robustness: no input makes any function in this package panic, loop
// without bound or allocate more than a small multiple of the input's size.
// Malformed input yields a *DecodeError (section is "mach-o", "fat",
// "symtab", "function starts", ...; offsets are absolute in the image or
// universal file) wrapping one of the sentinels, so errors.Is and errors.As
// work across the module.
//
// A File aliases the bytes it was parsed from: section data, symbol names
// and raw load commands are sub-slices (or substrings of one copy of the
// string table). A File is immutable after Parse and safe for concurrent use.
package macho

import "github.com/symbolize-go/symbolize/internal/buf"

// DecodeError says where bad input was met; its Err wraps one of the
// sentinels below. It is the same type in every package of this module.
type DecodeError = buf.DecodeError

// Sentinel causes, for errors.Is.
var (
	ErrTruncated          = buf.ErrTruncated
	ErrOverflow           = buf.ErrOverflow
	ErrUnsupportedVersion = buf.ErrUnsupportedVersion
	ErrFormat             = buf.ErrFormat
	ErrLimit              = buf.ErrLimit
)

const pkg = "macho"
