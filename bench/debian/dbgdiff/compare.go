package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
)

// answer is one line of llvm-symbolizer's --output-style=JSON output for a
// code address.
type answer struct {
	Address    string
	ModuleName string
	Symbol     []frame
	Error      *struct{ Message string }
}

// frame is one entry of an answer's Symbol array, innermost first.
type frame struct {
	FunctionName  string
	FileName      string
	Line          int64
	Column        int64
	Discriminator int64
	StartFileName string
	StartLine     int64
	StartAddress  string
}

// fields are the columns of the results table, in order. An address counts
// once under each field in which any of its frames differ:
//
//   - frames: the two chains have different lengths; then only the
//     outermost frames' names are compared besides.
//   - outer name / inlined name: FunctionName of the outermost frame (the
//     only one without inlines), or of an inlined frame.
//   - other: the lines differ but every decoded field agrees (key order,
//     an unknown key, the address or module echo).
var fields = []string{
	"frames", "outer name", "inlined name", "file", "line", "column", "discr",
	"start line", "start file", "start addr", "error", "other",
}

// compare reads the sampled addresses and the two tools' JSON outputs (one
// object a line, in the same order), counts identical answers and the
// fields in which the others differ, appends one summary line to the
// summary file and, per combination of differing fields, the count and
// the first few examples to the examples file.
func compare(args []string) error {
	fs := flag.NewFlagSet("compare", flag.ContinueOnError)
	lib := fs.String("lib", "", "library name for the table")
	variant := fs.String("variant", "", "variant name for the table")
	addrs := fs.String("addrs", "", `sampled addresses, "0xADDR KIND" a line`)
	ref := fs.String("ref", "", "llvm-symbolizer's JSON output")
	ours := fs.String("ours", "", "our JSON output")
	summary := fs.String("summary", "", "TSV file to append the counts to")
	examples := fs.String("examples", "", "Markdown file to append examples to")
	show := fs.Int("show", 3, "examples per combination of differing fields")
	nodemRef := fs.String("nodem-ref", "", "llvm-symbolizer's answers in the same variant with --no-demangle")
	nodemOurs := fs.String("nodem-ours", "", "ours in the same variant with --no-demangle")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *addrs == "" || *ref == "" || *ours == "" {
		return errors.New("compare: -addrs, -ref and -ours are needed")
	}
	kindOf, err := readKinds(*addrs)
	if err != nil {
		return err
	}
	refLines, err := readLines(*ref)
	if err != nil {
		return err
	}
	ourLines, err := readLines(*ours)
	if err != nil {
		return err
	}
	if len(refLines) != len(kindOf) || len(ourLines) != len(kindOf) {
		return fmt.Errorf("compare: %d addresses, %d reference answers, %d of ours", len(kindOf), len(refLines), len(ourLines))
	}
	// With the --no-demangle answers of the same variant, an address whose
	// mangled answers agree differs by demangling alone.
	var nodemR, nodemO [][]byte
	if *nodemRef != "" && *nodemOurs != "" {
		if nodemR, err = readLines(*nodemRef); err != nil {
			return err
		}
		if nodemO, err = readLines(*nodemOurs); err != nil {
			return err
		}
		if len(nodemR) != len(kindOf) || len(nodemO) != len(kindOf) {
			return fmt.Errorf("compare: %d addresses, %d and %d --no-demangle answers", len(kindOf), len(nodemR), len(nodemO))
		}
	}
	demangleOnly := 0

	count := map[string]int{}
	kindN := map[string]int{}
	kindDiff := map[string]int{}
	// Examples go by signature (the set of fields that differ), so that
	// one address is shown once, under the one combination it has.
	sigN := map[string]int{}
	sigEx := map[string]*bytes.Buffer{}
	var sigs []string
	identical := 0
	for i := range kindOf {
		kindN[kindOf[i]]++
		if bytes.Equal(refLines[i], ourLines[i]) {
			identical++
			continue
		}
		kindDiff[kindOf[i]]++
		var r, o answer
		if err := json.Unmarshal(refLines[i], &r); err != nil {
			return fmt.Errorf("%s line %d: %w", *ref, i+1, err)
		}
		if err := json.Unmarshal(ourLines[i], &o); err != nil {
			return fmt.Errorf("%s line %d: %w", *ours, i+1, err)
		}
		diff := differ(&o, &r)
		for _, f := range diff {
			count[f]++
		}
		sig := strings.Join(diff, ", ")
		if nodemR != nil && bytes.Equal(nodemR[i], nodemO[i]) {
			demangleOnly++
			sig += " [demangling only: " + demangling(&o, &r) + "]"
		}
		if sigN[sig] == 0 {
			sigs = append(sigs, sig)
			sigEx[sig] = new(bytes.Buffer)
		}
		sigN[sig]++
		if sigN[sig] <= *show {
			fmt.Fprintf(sigEx[sig], "  - `%s` (%s)\n    - ours: %s\n    - llvm: %s\n",
				r.Address, kindOf[i], render(&o), render(&r))
		}
	}
	slices.SortStableFunc(sigs, func(a, b string) int { return sigN[b] - sigN[a] })
	var ex bytes.Buffer
	for _, sig := range sigs {
		fmt.Fprintf(&ex, "- differ in %s: %d\n", sig, sigN[sig])
		ex.Write(sigEx[sig].Bytes())
	}

	if *summary != "" {
		var b strings.Builder
		fmt.Fprintf(&b, "%s\t%s\t%d\t%d", *lib, *variant, len(kindOf), identical)
		for _, f := range fields {
			fmt.Fprintf(&b, "\t%d", count[f])
		}
		if nodemR != nil {
			fmt.Fprintf(&b, "\t%d\t", demangleOnly)
		} else {
			b.WriteString("\t-\t")
		}
		for j, k := range kinds {
			if j > 0 {
				b.WriteByte(' ')
			}
			fmt.Fprintf(&b, "%s=%d/%d", k.name, kindDiff[k.name], kindN[k.name])
		}
		b.WriteByte('\n')
		if err := appendFile(*summary, b.String()); err != nil {
			return err
		}
	}
	if *examples != "" && ex.Len() > 0 {
		head := fmt.Sprintf("\n#### %s, %s: %d of %d differ\n\n", *lib, *variant, len(kindOf)-identical, len(kindOf))
		if err := appendFile(*examples, head+ex.String()); err != nil {
			return err
		}
	}
	fmt.Printf("%s %s: %d/%d identical\n", *lib, *variant, identical, len(kindOf))
	return nil
}

// differ returns the fields (names from fields) in which o and r differ.
func differ(o, r *answer) []string {
	var d []string
	add := func(f string) {
		for _, g := range d {
			if g == f {
				return
			}
		}
		d = append(d, f)
	}
	if (o.Error == nil) != (r.Error == nil) || (o.Error != nil && o.Error.Message != r.Error.Message) {
		add("error")
	}
	no, nr := len(o.Symbol), len(r.Symbol)
	if no != nr {
		add("frames")
		if no > 0 && nr > 0 && o.Symbol[no-1].FunctionName != r.Symbol[nr-1].FunctionName {
			add("outer name")
		}
	} else {
		for j := range no {
			a, b := &o.Symbol[j], &r.Symbol[j]
			if a.FunctionName != b.FunctionName {
				if j == no-1 {
					add("outer name")
				} else {
					add("inlined name")
				}
			}
			if a.FileName != b.FileName {
				add("file")
			}
			if a.Line != b.Line {
				add("line")
			}
			if a.Column != b.Column {
				add("column")
			}
			if a.Discriminator != b.Discriminator {
				add("discr")
			}
			if a.StartLine != b.StartLine {
				add("start line")
			}
			if a.StartFileName != b.StartFileName {
				add("start file")
			}
			if a.StartAddress != b.StartAddress {
				add("start addr")
			}
		}
	}
	if len(d) == 0 {
		add("other")
	}
	// In the order of fields, so that the summary reads the same way.
	var sorted []string
	for _, f := range fields {
		for _, g := range d {
			if f == g {
				sorted = append(sorted, f)
			}
		}
	}
	return sorted
}

// demangling says how the names of two answers whose mangled names agree
// differ, frame by frame: "llvm kept it mangled" (LLVM 14's demangler gave
// up, so llvm-symbolizer printed the linkage name), "we kept it mangled",
// or "spelled differently" (both demangled).
func demangling(o, r *answer) string {
	var kinds []string
	for j := range min(len(o.Symbol), len(r.Symbol)) {
		a, b := o.Symbol[j].FunctionName, r.Symbol[j].FunctionName
		if a == b {
			continue
		}
		k := "spelled differently"
		switch {
		case strings.HasPrefix(b, "_Z") && !strings.HasPrefix(a, "_Z"):
			k = "llvm kept it mangled"
		case strings.HasPrefix(a, "_Z") && !strings.HasPrefix(b, "_Z"):
			k = "we kept it mangled"
		}
		if !slices.Contains(kinds, k) {
			kinds = append(kinds, k)
		}
	}
	return strings.Join(kinds, ", ")
}

// render prints an answer's frames on one line, innermost first.
func render(a *answer) string {
	if a.Error != nil {
		return "error: " + a.Error.Message
	}
	var parts []string
	for _, f := range a.Symbol {
		parts = append(parts, fmt.Sprintf("`%s` %s:%d:%d d%d start %s:%d %s",
			f.FunctionName, f.FileName, f.Line, f.Column, f.Discriminator, f.StartFileName, f.StartLine, f.StartAddress))
	}
	if len(parts) == 0 {
		return "(no frames)"
	}
	return strings.Join(parts, " <- ")
}

// readKinds returns the kind column of a sample file.
func readKinds(name string) ([]string, error) {
	lines, err := readLines(name)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(lines))
	for i, l := range lines {
		_, k, ok := bytes.Cut(l, []byte(" "))
		if !ok {
			return nil, fmt.Errorf("%s line %d: no kind", name, i+1)
		}
		out[i] = string(k)
	}
	return out, nil
}

// readLines returns a file's lines without their newlines.
func readLines(name string) ([][]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var lines [][]byte
	r := bufio.NewReaderSize(f, 1<<20)
	for {
		l, err := r.ReadBytes('\n')
		if len(l) > 0 {
			lines = append(lines, bytes.TrimSuffix(l, []byte("\n")))
		}
		if err == io.EOF {
			return lines, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

func appendFile(name, s string) error {
	f, err := os.OpenFile(name, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.WriteString(s); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
