package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
)

// agree compares two LLVM-style outputs (one block of lines per address,
// blocks ended by an empty line) address by address and prints how many
// blocks are identical and how many agree on the function names alone.
// The first few differences go to standard error for a human to judge.
func agree(args []string) error {
	if len(args) != 2 {
		return errors.New("agree: want OURS REF")
	}
	a, err := blocks(args[0])
	if err != nil {
		return err
	}
	b, err := blocks(args[1])
	if err != nil {
		return err
	}
	if len(a) != len(b) {
		return fmt.Errorf("agree: %d answers in %s, %d in %s", len(a), args[0], len(b), args[1])
	}
	same, sameFn, shown := 0, 0, 0
	for i := range a {
		if a[i] == b[i] {
			same++
			sameFn++
			continue
		}
		if slices.Equal(funcLines(a[i]), funcLines(b[i])) {
			sameFn++
		}
		if shown < 3 {
			shown++
			fmt.Fprintf(os.Stderr, "answer %d differs:\n--- ours\n%s--- ref\n%s", i, a[i], b[i])
		}
	}
	n := len(a)
	fmt.Printf("%d/%d identical (%.3f%%), %d/%d same function names (%.3f%%)\n",
		same, n, pct(same, n), sameFn, n, pct(sameFn, n))
	return nil
}

func pct(a, n int) float64 {
	if n == 0 {
		return 0
	}
	return 100 * float64(a) / float64(n)
}

// blocks splits an LLVM-style output into one string per address.
func blocks(name string) ([]string, error) {
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	var out []string
	for len(data) > 0 {
		i := bytes.Index(data, []byte("\n\n"))
		if i < 0 {
			out = append(out, string(data))
			break
		}
		out = append(out, string(data[:i+1]))
		data = data[i+2:]
	}
	return out, nil
}

// funcLines returns the function-name lines of one block: the even lines,
// since each frame is a name line followed by a location line.
func funcLines(block string) []string {
	lines := strings.Split(strings.TrimSuffix(block, "\n"), "\n")
	var fns []string
	for i := 0; i < len(lines); i += 2 {
		fns = append(fns, lines[i])
	}
	return fns
}

// unknown counts the unknown answers in any tool's output: lines that are
// exactly "??" (no function name) and lines starting "??:" or ending ":?"
// (no file, or GNU's "file:?" for no line).
// It works for GNU's output too, which has no per-address separator.
func unknown(args []string) error {
	if len(args) != 1 {
		return errors.New("unknown: want FILE")
	}
	f, err := os.Open(args[0])
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	var lines, fn, file int
	for sc.Scan() {
		l := sc.Text()
		if l == "" {
			continue
		}
		lines++
		switch {
		case l == "??":
			fn++
		case strings.HasPrefix(l, "??:") || strings.HasSuffix(l, ":?"):
			file++
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	fmt.Printf("%d lines, %d unknown functions, %d unknown files\n", lines, fn, file)
	return nil
}

// run is one timed run from run.sh.
type run struct {
	wall float64 // seconds
	rss  float64 // max RSS, KiB
	cpu  float64 // user + system seconds; -1 if not recorded
}

// report reads run.sh's raw timings (case, tool, repetition, wall seconds,
// max RSS KiB, and optionally user+system CPU seconds; tab-separated) and prints one Markdown table per case with
// medians and the ratios ours/reference. Medians, because the machine is
// shared: one unlucky run must not move the figure.
func report(args []string) error {
	if len(args) != 1 {
		return errors.New("report: want RAW.tsv")
	}
	f, err := os.Open(args[0])
	if err != nil {
		return err
	}
	defer f.Close()
	type key struct{ cas, tool string }
	var cases, tools []string
	runs := map[key][]run{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Split(sc.Text(), "\t")
		if len(fs) != 5 && len(fs) != 6 {
			continue
		}
		wall, err1 := strconv.ParseFloat(fs[3], 64)
		rss, err2 := strconv.ParseFloat(fs[4], 64)
		cpu, err3 := -1.0, error(nil)
		if len(fs) == 6 {
			cpu, err3 = strconv.ParseFloat(fs[5], 64)
		}
		if err1 != nil || err2 != nil || err3 != nil {
			return fmt.Errorf("report: bad line %q", sc.Text())
		}
		if !slices.Contains(cases, fs[0]) {
			cases = append(cases, fs[0])
		}
		k := key{fs[0], fs[1]}
		if _, ok := runs[k]; !ok && !slices.Contains(tools, fs[1]) {
			tools = append(tools, fs[1])
		}
		runs[k] = append(runs[k], run{wall, rss, cpu})
	}
	if err := sc.Err(); err != nil {
		return err
	}
	for _, c := range cases {
		ours, ok := runs[key{c, "ours"}]
		fmt.Printf("\n#### %s\n\n", c)
		fmt.Println("| tool | runs | wall s (median) | wall min..max | max RSS MB (median) | CPU s (median) | ours/tool wall | ours/tool RSS | ours/tool CPU |")
		fmt.Println("|---|---|---|---|---|---|---|---|---|")
		ow, or, oc := median(ours, false), median(ours, true), medianCPU(ours)
		for _, t := range tools {
			rs, found := runs[key{c, t}]
			if !found {
				continue
			}
			w, m := median(rs, false), median(rs, true)
			lo, hi := rs[0].wall, rs[0].wall
			for _, r := range rs {
				lo, hi = min(lo, r.wall), max(hi, r.wall)
			}
			c, cs := medianCPU(rs), "-"
			if c >= 0 {
				cs = fmt.Sprintf("%.2f", c)
			}
			rw, rm, rc := "-", "-", "-"
			if ok && t != "ours" {
				rw, rm = ratio(ow, w), ratio(or, m)
				if c > 0 && oc >= 0 {
					rc = ratio(oc, c)
				}
			}
			fmt.Printf("| %s | %d | %.3f | %.2f..%.2f | %.1f | %s | %s | %s | %s |\n",
				t, len(rs), w, lo, hi, m/1024, cs, rw, rm, rc)
		}
	}
	return nil
}

func ratio(a, b float64) string {
	if b == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.3f", a/b)
}

// median of the wall times, or of the max RSS when rss is set.
// medianCPU is the median CPU time of rs, or -1 if a run lacks one.
func medianCPU(rs []run) float64 {
	v := make([]float64, len(rs))
	for i, r := range rs {
		if r.cpu < 0 {
			return -1
		}
		v[i] = r.cpu
	}
	if len(v) == 0 {
		return -1
	}
	slices.Sort(v)
	if len(v)%2 == 1 {
		return v[len(v)/2]
	}
	return (v[len(v)/2-1] + v[len(v)/2]) / 2
}

func median(rs []run, rss bool) float64 {
	if len(rs) == 0 {
		return 0
	}
	v := make([]float64, len(rs))
	for i, r := range rs {
		v[i] = r.wall
		if rss {
			v[i] = r.rss
		}
	}
	slices.Sort(v)
	if len(v)%2 == 1 {
		return v[len(v)/2]
	}
	return (v[len(v)/2-1] + v[len(v)/2]) / 2
}
