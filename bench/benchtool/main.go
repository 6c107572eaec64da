// Command benchtool is the helper behind bench/run.sh: it samples addresses
// from a symbol table, compares two symbolizers' outputs, and turns the raw
// timings into the results table. It is bench plumbing, not part of the
// library, and reads object files with the standard library's debug/elf on
// purpose: the addresses must not depend on the code under test.
//
//	benchtool sample -n 200000 -seed 1 FILE...   addresses, one a line
//	benchtool agree OURS REF                      per-address agreement
//	benchtool unknown FILE                        count "??" answers
//	benchtool report RAW.tsv                      medians and ratios
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
	case "agree":
		err = agree(os.Args[2:])
	case "unknown":
		err = unknown(os.Args[2:])
	case "report":
		err = report(os.Args[2:])
	default:
		usage()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchtool:", err)
		os.Exit(1)
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: benchtool sample|agree|unknown|report ARGS")
	os.Exit(2)
}
