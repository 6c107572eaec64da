// Command dbgdiff is the helper behind bench/debian/run.sh: it samples
// addresses from a Debian library and its debug file, compares two
// symbolizers' JSON answers field by field, and turns the per-variant
// counts into the results table. It is bench plumbing, not part of the
// library, and reads object files with the standard library's debug/elf on
// purpose: the addresses must not depend on the code under test.
//
//	dbgdiff sample -n 5000 -seed 1 LIB [DEBUG]   "0xADDR KIND" lines
//	dbgdiff compare -lib L -variant V -addrs A -ref REF.json -ours OURS.json
//	        [-summary S.tsv] [-examples E.md] [-show 3]
//	dbgdiff describe NAME LIB DWARFFILE          a row of the libraries table
//	dbgdiff report S.tsv                         the Markdown tables
//	dbgdiff gnunames -lib L -addrs A -gnu G.txt -short S.json -linkage K.json -llvm V.json
//	        a row comparing GNU addr2line's names with ours (dwz-gnu.sh)
package main

import (
	"fmt"
	"os"
)

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	var err error
	switch os.Args[1] {
	case "sample":
		err = sample(os.Args[2:])
	case "compare":
		err = compare(os.Args[2:])
	case "describe":
		err = describe(os.Args[2:])
	case "report":
		err = report(os.Args[2:])
	case "gnunames":
		err = gnunames(os.Args[2:])
	default:
		usage()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "dbgdiff:", err)
		os.Exit(1)
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: dbgdiff sample|compare|describe|report|gnunames ARGS")
	os.Exit(2)
}
