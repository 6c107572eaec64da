// Command linedump prints the rows of every line table in a file's
// .debug_line, in the row format of llvm-dwarfdump --debug-line, so that the
// two can be diffed:
//
//	linedump prog | grep '^0x' > ours
//	llvm-dwarfdump-14 --debug-line prog | grep '^0x' > theirs
//	diff ours theirs
//
// A file is an ELF file, a Mach-O image or object (__DWARF,__debug_line),
// a universal (fat) Mach-O file, whose slices are dumped in file order
// unless -arch picks one (thin files of other architectures are skipped),
// or a .dSYM bundle, whose DWARF files are dumped.
// Before each slice of a universal file dumped whole it prints a line
// "FILE(ARCH):".
//
// Each unit starts with a "debug_line[0x%08x]" line and the column headings,
// as in llvm-dwarfdump; the prologue itself is not printed.
//
// With -stats it prints only the number of units, sequences and rows and the
// bytes of .debug_line decoded.
//
// Usage:
//
//	linedump [-stats] [-arch=ARCH] file...
package main

import (
	"bufio"
	"debug/elf"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"

	"github.com/symbolize-go/symbolize/elfx"
	"github.com/symbolize-go/symbolize/linetable"
	"github.com/symbolize-go/symbolize/macho"
)

func main() {
	stats := flag.Bool("stats", false, "print only counts of units, sequences, rows and bytes")
	arch := flag.String("arch", "", "dump only this `ARCH`'s slice of universal Mach-O files (arm64, x86_64, ...)")
	flag.Usage = func() {
		fmt.Fprintf(os.Stderr, "usage: linedump [-stats] [-arch=ARCH] file...\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() == 0 {
		flag.Usage()
		os.Exit(2)
	}
	w := bufio.NewWriter(os.Stdout)
	failed := false
	for _, path := range flag.Args() {
		if err := dumpFile(w, path, *arch, *stats, flag.NArg() > 1); err != nil {
			w.Flush()
			fmt.Fprintf(os.Stderr, "linedump: %s: %v\n", path, err)
			failed = true
		}
	}
	if err := w.Flush(); err != nil {
		fmt.Fprintf(os.Stderr, "linedump: %v\n", err)
		failed = true
	}
	if failed {
		os.Exit(1)
	}
}

// counts is what -stats prints.
type counts struct {
	units, sequences, rows, bytes uint64
}

// dumpFile dumps path: an ELF file, a thin or universal Mach-O file (the
// slice for arch, or every slice when arch is ""), or a .dSYM bundle.
func dumpFile(w *bufio.Writer, path, arch string, stats, named bool) error {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		// A .dSYM bundle: its DWARF files, as llvm-dwarfdump reads it.
		files, _ := filepath.Glob(filepath.Join(path, "Contents", "Resources", "DWARF", "*"))
		if len(files) == 0 {
			return errors.New("not a .dSYM bundle: no Contents/Resources/DWARF files")
		}
		var first error
		for _, f := range files {
			first = cmpErr(first, dumpFile(w, f, arch, stats, named || len(files) > 1))
		}
		return first
	}
	r, err := os.Open(path)
	if err != nil {
		return err
	}
	var magic [4]byte
	_, err = io.ReadFull(r, magic[:])
	r.Close()
	if err == nil && string(magic[:]) == elf.ELFMAG {
		return dump(w, path, stats, named)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if !macho.IsFat(data) {
		f, err := macho.Parse(data)
		if err != nil {
			return err
		}
		if arch != "" && f.Arch() != arch {
			// -arch filters, as in llvm-dwarfdump: a thin file of
			// another architecture prints nothing.
			return nil
		}
		return dumpMachO(w, path, f, stats, named)
	}
	ft, err := macho.ParseFat(data)
	if err != nil {
		return err
	}
	if arch != "" {
		f, err := macho.Select(data, arch)
		if err != nil {
			return err
		}
		return dumpMachO(w, path, f, stats, named)
	}
	var first error
	for _, a := range ft.Arches {
		f, err := ft.Parse(a)
		if err == nil {
			name := fmt.Sprintf("%s(%s)", path, a.Arch())
			if !stats {
				fmt.Fprintf(w, "%s:\n", name)
			}
			err = dumpMachO(w, name, f, stats, true)
		}
		first = cmpErr(first, err)
	}
	return first
}

// dumpMachO dumps the line tables of one Mach-O image, labelled name in
// -stats output.
func dumpMachO(w *bufio.Writer, name string, f *macho.File, stats, named bool) error {
	opts := &linetable.Options{BigEndian: f.BigEndian, AddressSize: 4}
	if f.Is64 {
		opts.AddressSize = 8
	}
	line, ok, err := f.DWARF(".debug_line")
	if err != nil {
		return err
	}
	if !ok {
		return errors.New("no __DWARF,__debug_line section")
	}
	if opts.LineStr, _, err = f.DWARF(".debug_line_str"); err != nil {
		return err
	}
	if opts.Str, _, err = f.DWARF(".debug_str"); err != nil {
		return err
	}
	return dumpLines(w, name, line, opts, stats, named)
}

// dump dumps the .debug_line of the ELF file at path.
func dump(w *bufio.Writer, path string, stats, named bool) error {
	f, err := elfx.Open(path, nil)
	if err != nil {
		return err
	}
	defer f.Close()
	opts := &linetable.Options{BigEndian: f.Data == elf.ELFDATA2MSB}
	// DWARF 2-4 line tables do not record the address size; the ELF class
	// does.
	opts.AddressSize = 8
	if f.Class == elf.ELFCLASS32 {
		opts.AddressSize = 4
	}
	line, err := sectionData(f, ".debug_line")
	if err != nil {
		return err
	}
	if line == nil {
		return errors.New("no .debug_line section")
	}
	if opts.LineStr, err = sectionData(f, ".debug_line_str"); err != nil {
		return err
	}
	if opts.Str, err = sectionData(f, ".debug_str"); err != nil {
		return err
	}
	return dumpLines(w, path, line, opts, stats, named)
}

// dumpLines prints every unit of the .debug_line section line, or with
// stats its counts, labelled name when named.
func dumpLines(w *bufio.Writer, name string, line []byte, opts *linetable.Options, stats, named bool) error {
	var c counts
	var firstErr error
	var b []byte
	for off, err := range linetable.Units(line, opts) {
		if err != nil {
			return err
		}
		r, err := linetable.NewReader(line, off, opts)
		if err != nil {
			// Report it and go on with the next unit, as llvm-dwarfdump does.
			firstErr = cmpErr(firstErr, err)
			continue
		}
		c.units++
		// Not r.Header().EndOffset: that would decode the file table,
		// which NewReader only validated and rows do not need. Units
		// has read this initial length already, so it cannot fail.
		end, _ := linetable.NextUnit(line, off, opts)
		c.bytes += end - off
		if !stats {
			fmt.Fprintf(w, "debug_line[0x%08x]\n", off)
			w.WriteString("Address            Line   Column File   ISA Discriminator Flags\n")
			w.WriteString("------------------ ------ ------ ------ --- ------------- -------------\n")
		}
		var row linetable.Row
		for {
			err := r.Next(&row)
			if err == io.EOF {
				break
			}
			if err != nil {
				firstErr = cmpErr(firstErr, err)
				break
			}
			c.rows++
			if row.EndSequence {
				c.sequences++
			}
			if !stats {
				b = appendRow(b[:0], &row)
				w.Write(b)
			}
		}
		if !stats {
			w.WriteByte('\n')
		}
	}
	if stats {
		if named {
			fmt.Fprintf(w, "%s: ", name)
		}
		fmt.Fprintf(w, "units %d sequences %d rows %d bytes %d\n", c.units, c.sequences, c.rows, c.bytes)
	}
	return firstErr
}

func cmpErr(first, err error) error {
	if first == nil {
		return err
	}
	return first
}

// sectionData returns the (decompressed) data of the named section, or nil
// if there is none.
func sectionData(f *elfx.File, name string) ([]byte, error) {
	s := f.Section(name)
	if s == nil || !s.HasData() {
		return nil, nil
	}
	return s.Data()
}

// appendRow formats row as llvm-dwarfdump-14 does (Row::dump):
// "0x%016x %6u %6u %6u %3u %13u " and then each set flag with a leading
// space, so a row without flags ends in a space.
func appendRow(b []byte, r *linetable.Row) []byte {
	b = append(b, "0x"...)
	b = appendField(b, r.Address, 16, 16, '0')
	b = appendField(b, uint64(r.Line), 10, 7, ' ')
	b = appendField(b, uint64(r.Column), 10, 7, ' ')
	b = appendField(b, uint64(r.File), 10, 7, ' ')
	b = appendField(b, uint64(r.ISA), 10, 4, ' ')
	b = appendField(b, uint64(r.Discriminator), 10, 14, ' ')
	b = append(b, ' ')
	if r.IsStmt {
		b = append(b, " is_stmt"...)
	}
	if r.BasicBlock {
		b = append(b, " basic_block"...)
	}
	if r.PrologueEnd {
		b = append(b, " prologue_end"...)
	}
	if r.EpilogueBegin {
		b = append(b, " epilogue_begin"...)
	}
	if r.EndSequence {
		b = append(b, " end_sequence"...)
	}
	return append(b, '\n')
}

// appendField appends v in base right-aligned in a field of width, padded
// with pad. (With pad ' ', the width includes the column's separator.)
func appendField(b []byte, v uint64, base, width int, pad byte) []byte {
	var tmp [24]byte
	digits := strconv.AppendUint(tmp[:0], v, base)
	for n := len(digits); n < width; n++ {
		b = append(b, pad)
	}
	return append(b, digits...)
}
