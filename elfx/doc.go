// Package elfx locates, decompresses and hands out the sections of an ELF
// file for the decoders of this module: DWARF sections (SHF_COMPRESSED with
// zlib or zstd, and the legacy GNU .zdebug_* form), the raw symbol tables,
// program headers, the GNU build ID, .gnu_debuglink, and a dwz-processed
// file's link to its supplementary file (.gnu_debugaltlink or .debug_sup:
// SupLink, SupID). It also finds the
// separate debug file of a stripped binary through a replaceable
// locate.Locator, and accepts it only when its identity (build ID, or else
// the debuglink CRC) matches the binary's.
//
// Finding a debug file goes through a locate.Locator: locate.Dirs searches
// the build-id tree, the binary's directory and the global debug
// directories as GDB does; package debuginfod downloads by build ID;
// locate.Chain tries several in order. [OpenDebug] accepts a candidate only
// if its identity matches and otherwise returns an *[IdentityError] naming
// both identities.
//
// Opening is cheap: it reads the ELF header, the section and program
// header tables, the section-name string table and the few bytes of each
// compressed section's header (for its size), and nothing else.
// Sections decompress lazily on first use, and only as far as asked
// ([Section.Prefix]); the result is cached.
//
// A file opened by [Open] is mapped, not read: section data of an
// uncompressed section aliases the mapping, and what a reader touched of it
// stays in the process's resident set until [File.Evict] takes it out, or
// [File.EvictBytes] the pages of some of those bytes (they fault back in
// from the page cache when read again). Inflated
// sections live in anonymous memory outside the Go heap until Close;
// [Section.Release] gives back the pages of a range nothing will read again,
// and [Section.Again] inflates the section anew for a reader that needs
// them after all.
//
// # Relocatable objects
//
// In an ET_REL file (a .o, a kernel module) the debug sections still need
// their relocations: Data and Prefix of a .debug_* or .zdebug_* section
// return it with every SHT_RELA or SHT_REL section that targets it applied
// (after decompression), as LLVM 14 resolves them for each machine (x86-64,
// i386, AArch64, ARM, PowerPC, RISC-V with its ADD/SUB pairs, SystemZ); see
// [Section.Relocated]. A relocation that cannot be applied is skipped, as
// LLVM skips it, and reported by [Section.RelocationErr].
// [Section.RelocationSection] tells which section a relocated field is
// relative to: in an object every section starts at address 0.
//
// # Robustness
//
// No input makes this package panic, hang or allocate out of proportion
// to its size. Every offset and count from the file is checked against the
// file's size before use; a compressed section whose declared size is out
// of proportion to its compressed size (see [Options.MaxRatio]) is refused,
// and a decompressed stream must produce exactly the declared size.
// Malformed input yields a *[DecodeError] naming the package, the section
// and the offset, wrapping one of the sentinels [ErrTruncated],
// [ErrFormat], [ErrLimit], ...
package elfx
