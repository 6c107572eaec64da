package main

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// report prints the summary lines that compare appended as one Markdown
// table: per library and variant the addresses, the identical answers and
// the differing ones by field (a column only for fields that differ
// somewhere), how many differ by demangling alone (their --no-demangle
// answers agree; "-" for the --no-demangle variants themselves), then the
// differing answers by kind of address.
func report(args []string) error {
	if len(args) != 1 {
		return errors.New("report: want SUMMARY.tsv")
	}
	lines, err := readLines(args[0])
	if err != nil {
		return err
	}
	type row struct {
		lib, variant string
		n, same      int
		count        []int
		demangle     string
		kinds        string
	}
	var rows []row
	used := make([]bool, len(fields))
	for i, l := range lines {
		c := strings.Split(string(l), "\t")
		if len(c) != 4+len(fields)+2 {
			return fmt.Errorf("%s line %d: %d columns, want %d", args[0], i+1, len(c), 4+len(fields)+2)
		}
		r := row{lib: c[0], variant: c[1], demangle: c[len(c)-2], kinds: c[len(c)-1]}
		nums := make([]int, 2+len(fields))
		for j := range nums {
			if nums[j], err = strconv.Atoi(c[2+j]); err != nil {
				return fmt.Errorf("%s line %d: %w", args[0], i+1, err)
			}
		}
		r.n, r.same, r.count = nums[0], nums[1], nums[2:]
		for j, v := range r.count {
			used[j] = used[j] || v > 0
		}
		rows = append(rows, r)
	}
	var head, rule strings.Builder
	head.WriteString("| library | variant | addresses | identical | differ |")
	rule.WriteString("|---|---|---:|---:|---:|")
	for j, f := range fields {
		if used[j] {
			head.WriteString(" " + f + " |")
			rule.WriteString("---:|")
		}
	}
	head.WriteString(" demangling only | differ by kind (differ/sampled) |")
	rule.WriteString("---:|---|")
	fmt.Println(head.String())
	fmt.Println(rule.String())
	for _, r := range rows {
		pct := 0.0
		if r.n > 0 {
			pct = 100 * float64(r.same) / float64(r.n)
		}
		fmt.Printf("| %s | %s | %d | %d (%.1f%%) | %d |", r.lib, r.variant, r.n, r.same, pct, r.n-r.same)
		for j, v := range r.count {
			if used[j] {
				fmt.Printf(" %d |", v)
			}
		}
		fmt.Printf(" %s | %s |\n", r.demangle, r.kinds)
	}
	return nil
}
