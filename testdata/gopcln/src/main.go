// Command gopcln is the pclntab fixture: code that the Go compiler inlines
// heavily (chains of small functions within and across packages, methods,
// closures), for the tests that compare frames read from .gopclntab with
// the DWARF of the same build. It imports nothing but runtime-level
// packages, to keep the binaries small. The fixtures are never run.
package main

import "example.com/gopcln/chain"

type counter struct{ n int }

func (c *counter) bump(k int) { c.n += chain.Square(k) }

func (c *counter) run(xs []int) {
	for _, x := range xs {
		c.bump(x)
		if c.n > 1000 {
			c.n = chain.Smooth(c.n & 1023)
		}
	}
}

func mix(a, b int) int { return chain.Shade(a) + chain.Cube(b) }

func work(xs []int) int {
	v := chain.Vec{X: xs[0], Y: xs[1], Z: xs[2]}
	w := v.Scale(3).Add(v)
	t := chain.Norm1(w) + mix(v.X, w.Y)
	t += chain.Fold(xs, 0, func(acc, x int) int { return acc + mix(x, acc) })
	var c counter
	c.run(xs)
	return t + c.n + chain.Sum(xs)
}

//go:noinline
func deep(n int) int {
	if n == 0 {
		return work([]int{1, 2, 3, 4})
	}
	return deep(n-1) + chain.Poly(n)
}

func main() {
	xs := make([]int, 0, 8)
	for i := 0; i < seed; i++ {
		xs = append(xs, i*seed)
	}
	for len(xs) < 4 {
		xs = append(xs, len(xs)+1)
	}
	r := work(xs) + deep(len(xs)) + chain.Walk(len(xs)) + generic(xs)
	if r == 42 {
		println("forty-two")
	}
	seed = r
}

// seed is a variable so that the compiler cannot fold main's work away.
var seed = 3
