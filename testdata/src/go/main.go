// Command symfixture exercises a few packages so that its DWARF has several
// compilation units, inlined functions across packages, closures, generics
// and methods. It avoids fmt to keep the binary small.
package main

import (
	"cmp"
	"os"
	"slices"
	"strconv"
	"strings"

	"example.com/symfixture/geom"
	"example.com/symfixture/textutil"
)

const text = `The quick brown fox jumps over the lazy dog; the dog sleeps,
the fox runs on, and the quick reader counts every word twice.`

type shape interface {
	Area() float64
	Perimeter() float64
}

func ftoa(f float64) string { return strconv.FormatFloat(f, 'f', 3, 64) }

func describe(s shape) string {
	var b strings.Builder
	b.WriteString("area=")
	b.WriteString(ftoa(s.Area()))
	b.WriteString(" perimeter=")
	b.WriteString(ftoa(s.Perimeter()))
	return b.String()
}

func topWords(freq map[string]int, n int) []string {
	keys := make([]string, 0, len(freq))
	for k := range freq {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int {
		if c := cmp.Compare(freq[b], freq[a]); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	if len(keys) > n {
		keys = keys[:n]
	}
	return keys
}

func println(parts ...string) {
	os.Stdout.WriteString(strings.Join(parts, " ") + "\n")
}

func main() {
	square := geom.Polygon{{X: 0, Y: 0}, {X: 2, Y: 0}, {X: 2, Y: 2}, {X: 0, Y: 2}}
	println(describe(square))
	println("diag=" + ftoa(geom.Dist(square[0], square[2])))

	words := textutil.Words(text)
	if len(os.Args) > 1 {
		words = textutil.Words(os.Args[1])
	}
	freq := textutil.Freq(words)
	for _, w := range topWords(freq, 3) {
		println(w+"="+strconv.Itoa(freq[w]), textutil.Reverse(w))
	}
}
