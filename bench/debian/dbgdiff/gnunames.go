package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"regexp"
	"strings"
)

// gnunames compares the function names GNU addr2line (-f -i -a, no -C)
// gives for the code addresses of a sample with ours, for the libraries
// whose DWARF names live in a dwz supplementary file, which
// llvm-symbolizer-14 does not read. Ours come from two JSON outputs of the
// same addresses, --functions=short (DWARF names, every frame) and
// --functions=linkage (the outermost renamed by the symbol table); it
// prints one Markdown row of counts.
//
// addr2line takes the name of the innermost and of the outermost frame
// from a symbol table when the DIE gives no linkage name (and, for the
// innermost, the enclosing function's), reading the debug file's .symtab,
// whose local symbols carry gcc's suffixes (foo.lto_priv.0, foo.part.0):
// those frames count apart, as "suffix". "??" is a frame addr2line names
// nothing (it loses much of a dwz file's DWARF: it fails on references
// into partial units).
func gnunames(args []string) error {
	fs := flag.NewFlagSet("gnunames", flag.ContinueOnError)
	lib := fs.String("lib", "", "library name for the row")
	addrs := fs.String("addrs", "", `sampled addresses, "0xADDR KIND" a line`)
	gnu := fs.String("gnu", "", "addr2line -f -i -a output for them")
	short := fs.String("short", "", "our --functions=short JSON answers")
	linkage := fs.String("linkage", "", "our --functions=linkage JSON answers")
	llvm := fs.String("llvm", "", "llvm-symbolizer-14's --functions=short JSON answers")
	if err := fs.Parse(args); err != nil {
		return err
	}
	kinds, err := readKinds(*addrs)
	if err != nil {
		return err
	}
	g, err := readGNU(*gnu)
	if err != nil {
		return err
	}
	var answers [3][]answer
	for i, name := range []string{*short, *linkage, *llvm} {
		lines, err := readLines(name)
		if err != nil {
			return err
		}
		for _, l := range lines {
			var a answer
			if err := json.Unmarshal(l, &a); err != nil {
				return fmt.Errorf("%s: %v", name, err)
			}
			answers[i] = append(answers[i], a)
		}
	}
	if len(g) != len(kinds) || len(answers[0]) != len(kinds) || len(answers[1]) != len(kinds) || len(answers[2]) != len(kinds) {
		return fmt.Errorf("%d addresses, %d addr2line answers, %d/%d/%d JSON answers", len(kinds), len(g), len(answers[0]), len(answers[1]), len(answers[2]))
	}
	var code, frames, oursNamed, llvmNamed, gnuNamed, counted, shape int
	var equal, suffix, gnuNone, oursNone, differ int
	for i, k := range kinds {
		if k != "start" && k != "interior" && k != "last" {
			continue
		}
		code++
		s, l, v := answers[0][i].Symbol, answers[1][i].Symbol, answers[2][i].Symbol
		frames += len(s)
		for _, f := range s {
			if f.FunctionName != "" {
				oursNamed++
			}
		}
		for _, f := range v {
			if f.FunctionName != "" {
				llvmNamed++
			}
		}
		for _, n := range g[i] {
			if n != "??" {
				gnuNamed++
			}
		}
		if len(g[i]) != len(s) || len(l) == 0 {
			shape++
			continue
		}
		counted++
		sym := l[len(l)-1].FunctionName
		for j, gn := range g[i] {
			ours := s[j].FunctionName
			end := j == 0 || j == len(s)-1
			switch {
			case gn == "??" && ours == "":
			case gn == "??":
				gnuNone++
			case gn == ours || end && gn == sym:
				equal++
			case ours == "":
				oursNone++
			case strings.SplitN(gn, ".", 2)[0] == ours || end && strings.SplitN(gn, ".", 2)[0] == sym:
				suffix++
			default:
				differ++
			}
		}
	}
	fmt.Printf("| %s | %d | %d | %d | %d | %d | %d | %d | %d | %d | %d | %d |\n", *lib, code, frames, oursNamed, llvmNamed, gnuNamed,
		counted, equal, suffix, gnuNone, oursNone, differ)
	if shape > 0 {
		fmt.Printf("<!-- %s: %d code addresses with another number of frames from addr2line, not compared -->\n", *lib, shape)
	}
	return nil
}

var gnuAddr = regexp.MustCompile(`^0x[0-9a-f]+$`)

// readGNU splits addr2line -f -i -a output into each address's function
// names, innermost first.
func readGNU(name string) ([][]string, error) {
	lines, err := readLines(name)
	if err != nil {
		return nil, err
	}
	var out [][]string
	k := 0
	for _, b := range lines {
		l := string(b)
		if gnuAddr.MatchString(l) {
			out = append(out, nil)
			k = 0
			continue
		}
		if len(out) == 0 {
			return nil, fmt.Errorf("%s: %q before the first address", name, l)
		}
		if k%2 == 0 {
			out[len(out)-1] = append(out[len(out)-1], l)
		}
		k++
	}
	return out, nil
}
