// Package symbolize turns program counters into what a developer reads:
// function names, file:line:column and the chain of inlined calls, from ELF
// binaries and their separate debug files, and from Mach-O images (thin or
// universal) and their dSYM bundles, in pure Go.
//
//	b, err := symbolize.Open("/usr/bin/prog", &symbolize.Options{Inlines: true, Demangle: true})
//	if err != nil { ... }
//	defer b.Close()
//	frames, err := b.AppendFrames(nil, 0x401234)
//	for _, f := range frames {
//		fmt.Printf("%s %s:%d:%d\n", f.Function, f.File, f.Line, f.Column)
//	}
//
// Answers match llvm-symbolizer's (the reference the tests diff against),
// including its choice of names: the outermost frame is named by the symbol
// table of the binary itself (.symtab, else .dynsym, never the separate
// debug file's unless Options.DebugFileSymbols) when a symbol covers the
// address, so gcc's split parts read foo.cold, and a stripped library's
// frames are named as its .dynsym spells them.
// Frame carries both the DWARF name and the symbol name for callers who want
// either.
//
// # Packages
//
//   - linetable: the streaming .debug_line decoder, lookup table and assembler.
//   - elfx: ELF sections (decompressed lazily; relocated in ET_REL objects),
//     build IDs, .gnu_debuglink, separate debug files with identity checks.
//   - symtab: symbol tables as sorted address maps; demangling (Itanium and
//     Rust v0 printers of our own).
//   - inline: inline call chains from .debug_info; FRAME locals.
//   - macho: Mach-O thin and universal files, dSYM bundles, Go's __zdebug_*.
//   - locate: finding every external file by identity (Locator, Dirs, Chain).
//   - debuginfod: a Locator that downloads by build ID (opt-in; this package
//     does not import it, so it links no HTTP client).
//   - slide: runtime to file addresses (ASLR slide, load bias, maps).
//
// # Layout of this package
//
// Three seams keep each source of information one small piece:
//
//   - A DWARF module (module.go) is one file's DWARF: its sections, the
//     address index over its units, and each unit's line table and inline
//     index, built on first use. Modules compose: a skeleton unit refers to
//     the module of its .dwo or .dwp slice (split.go), a dwz-processed file
//     to its supplementary module, and each object of a Mach-O debug map is
//     a module of its own (debugmap.go).
//   - Each binary format lists its answerers, tried in order for an address
//     (the binary's DWARF, then for Mach-O the debug map), and its namers,
//     one final pass that names the outermost frame (the symbol table, then
//     for Mach-O LC_FUNCTION_STARTS): see lookup.go. A new source of answers
//     is one more answerer.
//   - Every external file (debug file, dSYM, .dwo, .dwp, supplementary file,
//     debug-map object) is asked for by identity through one
//     locate.Locator (Options.Debug.Locator, else locate.Dirs), and checked
//     against that identity before use. Binary.Identity records each file
//     that answered, how it was found and its SHA-256.
//
// This package composes them: Open finds the debug information (a separate
// ELF debug file by build ID or .gnu_debuglink, a dSYM by UUID; a file of the
// right name but another identity is a typed error, never used), and a
// Binary answers lookups, building each unit's index the first time an
// address lands in it. Compressed .debug_info and .debug_line sections are
// inflated only as far as the units looked up need. Split DWARF
// (-gsplit-dwarf) is read as llvm-symbolizer-14 reads it: a skeleton unit's
// DIEs come from its .dwo, or its slice of a DWARF package (Options.DWP,
// else BINARY.dwp), found through the locator the first time an address
// lands in the unit and accepted only with the skeleton's dwo_id. A debug
// file that dwz processed is read with its supplementary file (named by
// .gnu_debugaltlink or .debug_sup, found through the locator the first
// time a string or DIE of it is needed, accepted only with the link's
// build ID or checksum), which llvm-symbolizer-14 does not read: names,
// declaration lines and files then come from its partial units as GNU
// addr2line reads them; without it, a *SupError in Warnings names the
// missing file and the answers are llvm-symbolizer-14's.
//
// Each Frame says which source answered (Source): DWARF, the symbol table,
// for stripped Mach-O images LC_FUNCTION_STARTS alone, or for Go binaries
// without DWARF (-ldflags='-s -w', go run, go test) the Go runtime's own
// tables, .gopclntab (package pclntab), with inlined calls expanded as
// runtime.CallersFrames expands them; Options.GoPCLN forces either source.
//
// # Processes and profiles
//
// Runtime addresses need no arithmetic of the caller's. A Process
// (OpenProcess for a live process's /proc/PID/maps, NewProcess for
// mappings the caller lists) finds the mapping of each address, opens its
// file on first use, rebases the address as pprof does
// (slide.MappingBase) and answers with the file's frames, the mapping and
// the file offset; Process.Addr answers as dladdr does, from symbols alone.
// Modules does the same for a profiler's (mapping, address) pairs of many
// processes, with a bounded cache of open files. Their Batch methods group
// addresses by file and symbolize each file's in address order, equal
// ones once, on all cores. Package pprofsym symbolizes pprof profiles with
// a Modules.
//
// # Robustness and concurrency
//
// No input makes this package or its subpackages panic, hang or allocate out
// of proportion to the input; corrupt data comes back as a *DecodeError
// naming the section and the offset. Damage costs only what it touches, as
// in llvm-symbolizer: an undecodable attribute that attribute, a unit that
// unit's DWARF, a section that section; the symbol table, the line tables
// and the other units still answer, and Binary.Warnings says what was lost.
// A Binary is safe for concurrent use.
package symbolize
