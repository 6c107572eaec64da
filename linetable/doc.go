// Package linetable decodes DWARF line-number programs (.debug_line,
// versions 2 to 5, 32- and 64-bit DWARF) [DWARF5 6.2].
//
// A Reader streams the rows of one unit's program without building the
// matrix: Next fills a caller-owned Row, NextRows a caller-owned slice of
// them (the fastest way to read a program), and neither allocates. Units
// are independent, so a caller may decode different units on different
// goroutines, one Reader each. A Table is the compact, immutable lookup
// structure built from one unit: its sequences are sorted by address so
// that Lookup is a binary search that never crosses an end_sequence, with
// the same answers as llvm-symbolizer. NewTableFor builds, for a caller
// that looks up one address, a Table of that address's sequence alone,
// which builds the whole Table the first time another lookup needs it;
// Options.Keep does the same for a batch of addresses, keeping the rows
// their lookups read, and Options.LazyFiles leaves the file table undecoded
// until Header or FilePaths needs it.
//
// On amd64 CPUs with AVX-512BW, NextRows and the Tables decode most rows
// with an assembly block decoder, 64 program bytes at a time
// (rowsasm_amd64.go); elsewhere, and under the purego build tag, the same
// rows come from the Go loop alone.
//
// Robustness: no input makes this package panic, loop without bound, or
// allocate out of proportion to the input. Counts read from the data are
// capped by the bytes that could encode them, every read is bounds-checked,
// and bad input comes back as a *DecodeError naming the section and the
// absolute offset, wrapping one of the Err* sentinels. Values that are only
// implausible (an address that wraps, a file index past the file table) are
// not errors while decoding: addresses wrap modulo 2^64, as in
// llvm-dwarfdump, and file indexes are checked where they are used, by
// Header.FilePath.
//
// Where the DWARF standard leaves room, this package follows LLVM 14
// (llvm-dwarfdump-14 and llvm-symbolizer-14), so that its rows and lookups
// can be diffed against them. The deliberate differences are listed on the
// types they concern.
package linetable
