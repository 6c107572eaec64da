// Package inline answers, for a PC, the chain of inlined calls that
// produced the instruction there: the innermost inlined subroutine first,
// then each function it was inlined into, out to the concrete subprogram.
// It reads .debug_info through internal/dwinfo and takes source locations
// from package linetable; it imports no object-format package.
//
// The semantics are llvm-symbolizer-14's (DWARFContext::
// getInliningInfoForAddress), which the tests check frame by frame:
//
//   - The DIE that answers a PC is found in an address map built from every
//     DW_TAG_subprogram and DW_TAG_inlined_subroutine of the unit, in DIE
//     pre-order, deeper DIEs overwriting the ranges of shallower ones
//     (DWARFUnit::updateAddressDieMap). Ranges come from DW_AT_low_pc with
//     DW_AT_high_pc, else DW_AT_ranges; every range of a non-contiguous
//     inlined copy counts.
//   - From that DIE, the chain climbs the DIE tree collecting inlined
//     subroutines (lexical blocks and other scopes are passed through) and
//     stops at the first subprogram.
//   - The innermost frame's file, line, column and discriminator come from
//     the line-table row of the PC; each outer frame's from the
//     DW_AT_call_file, DW_AT_call_line, DW_AT_call_column and
//     DW_AT_GNU_discriminator of the frame inside it, the file resolved in
//     the unit's line table (1-based before DWARF 5, 0-based in DWARF 5).
//   - Names follow DW_AT_abstract_origin and DW_AT_specification
//     references, across units too, preferring DW_AT_linkage_name or
//     DW_AT_MIPS_linkage_name (whichever the DIE lists first) over
//     DW_AT_name. StartLine is DW_AT_decl_line found the same way, and
//     StartFile DW_AT_decl_file, named in the line table of the unit that
//     holds it; like llvm-symbolizer-14, a DW_AT_decl_file of form
//     DW_FORM_implicit_const (gcc 11 and later) names no file.
//     StartAddress is the DIE's own DW_AT_low_pc; a DIE described by
//     DW_AT_ranges has none.
//   - Where llvm-symbolizer 14 reads no further: references into a dwz
//     supplementary file (DW_FORM_GNU_ref_alt, DW_FORM_ref_sup4/8) are
//     followed into its partial units when the Data has one
//     (dwinfo.Data.SetSup), as GNU addr2line follows them (see sup.go);
//     LLVM 14 takes them for offsets in the file's own .debug_info.
//
// What the caller adds: llvm-symbolizer (with linkage names, the default)
// replaces the outermost frame's Name and StartAddress with those of the
// ELF symbol covering the PC. With --no-inlines it reports the innermost
// frame alone (AppendChain's first), and the same override then makes its
// name look like the outermost function's while StartFile and StartLine
// stay the innermost's. Both are the root package's business.
//
// AppendLocals answers llvm-symbolizer's FRAME requests: the variables
// and parameters of the subroutine that answers a PC (Index.Subroutine),
// with their declaration lines, frame offsets, sizes and tag offsets, by
// LLVM 14's rules (see locals.go).
//
// # Usage
//
//	u, _ := d.LoadUnit(h)                    // the unit covering pc (dwinfo.Index)
//	lt, _ := linetable.NewTable(line, u.Root.StmtList, lopts)
//	ix, err := inline.Build(d, u, lt, nil)   // once per unit; err is a warning
//	frames = ix.AppendChain(frames[:0], pc)  // innermost first
//
// # Cost
//
// Build reads a unit's DIE tree once, decoding the attributes of only the
// subroutine DIEs that can have addresses, and keeps only what
// symbolication needs: one compact node per subroutine DIE that covers code (or encloses
// one that does), with its names and start/call data resolved to interned
// strings, and a sorted array of address spans. AppendChain then costs one
// binary search plus one step per frame, and allocates nothing when dst has
// room. In units from gcc's C and C++ front ends, which put every function
// with code at the top level of the unit or inside its enclosing function,
// the walk jumps over the other top-level trees (namespaces, classes: half
// the bytes of a large C++ unit) by their DW_AT_sibling; a reference into
// one is resolved by decoding the DIE at its offset, as for references into
// other units.
//
// With Options.Lazy (what the root package uses), Build reads only what
// it takes to find a unit's functions and their address ranges: one pass
// over the DIEs, decoding the attributes of subprograms alone (and
// jumping over gcc's declaration trees as above); a function's inline
// tree and address map are read, under a lock, on the first lookup that
// lands in one of its ranges, and nothing is kept of functions never
// looked up. A node's names and start data are looked up, under the same
// lock, when a lookup first answers with it: most nodes of a tree read
// never are. The answers are those of the whole-unit Build; lazy.go says
// how that is kept and the one kind of input where it may not be. The pass
// hands the DIEs it is done with to Options.Passed every 2 MiB, so that a
// caller reading a mapped file need not hold a large unit's pages at once.
//
// # Robustness
//
// No input makes this package panic, loop forever or allocate out of
// proportion to its size. Abbreviation codes that do not exist, forms the
// spec does not define and DIE trees deeper than dwinfo's MaxDepth stop the
// DIE walk with a *DecodeError naming .debug_info and the offset (Build
// still returns the index of what it read, as LLVM keeps the DIEs it
// extracted). Reference chains are walked with a set of visited DIEs and a
// bound (Options.MaxRefs), so abstract_origin and specification cycles end;
// a reference past its section or into the middle of a DIE of the unit
// that the walk read names nothing, and the frame simply has no name (a
// reference into the middle of a DIE of another unit, or of a tree the
// walk jumped over, is decoded from there: LLVM would name nothing). The parent chain is acyclic by
// construction.
//
// # Concurrency
//
// An Index is safe for concurrent use: a whole-unit Index is immutable
// once built, and a lazy one reads each function's tree once, under a
// lock, and publishes it atomically; a node's names are written once,
// under that lock, and read only after an atomic flag says they are.
package inline
