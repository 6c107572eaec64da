// Command linedump prints the rows of every line table in an ELF file's
// .debug_line, in the row format of llvm-dwarfdump --debug-line, so that the
// two can be diffed:
//
//	linedump prog | grep '^0x' > ours
//	llvm-dwarfdump-14 --debug-line prog | grep '^0x' > theirs
//	diff ours theirs
//
// Each unit starts with a "debug_line[0x%08x]" line and the column headings,
// as in llvm-dwarfdump; the prologue itself is not printed.
//
// With -stats it prints only the number of units, sequences and rows and the
// bytes of .debug_line decoded.
//
// Usage:
//
//	linedump [-stats] file...
package main

import (
	"bufio"
	"debug/elf"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/symbolize-go/symbolize/elfx"
	"github.com/symbolize-go/symbolize/linetable"
)

func main() {
	stats := flag.Bool("stats", false, "print only counts of units, sequences, rows and bytes")
	flag.Usage = func() {
		fmt.Fprintf(os.Stderr, "usage: linedump [-stats] file...\n")
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
		if err := dump(w, path, *stats, flag.NArg() > 1); err != nil {
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
		c.bytes += r.Header().EndOffset - off
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
			fmt.Fprintf(w, "%s: ", path)
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
