// Package chain holds small functions the compiler inlines into each other
// and into their callers in package main: chains several calls deep,
// methods, and a function whose inlined body holds a loop.
package chain

// Vec is a small vector whose methods inline.
type Vec struct{ X, Y, Z int }

func (v Vec) Dot(w Vec) int { return v.X*w.X + v.Y*w.Y + v.Z*w.Z }

func (v Vec) Len2() int { return v.Dot(v) }

func (v Vec) Scale(k int) Vec { return Vec{v.X * k, v.Y * k, v.Z * k} }

func (v Vec) Add(w Vec) Vec { return Vec{v.X + w.X, v.Y + w.Y, v.Z + w.Z} }

// Norm1 inlines Len2, which inlines Dot.
func Norm1(v Vec) int { return clamp(v.Len2(), 1<<20) }

func clamp(x, hi int) int {
	if x > hi {
		return hi
	}
	return x
}

// Square -> Cube -> Poly -> Smooth -> Shade: a chain of five inlinable
// functions.
func Square(x int) int { return x * x }

func Cube(x int) int { return Square(x) * x }

func Poly(x int) int { return Cube(x) + 3*Square(x) + 1 }

func Smooth(x int) int { return Poly(x)>>2 + x }

func Shade(x int) int { return Smooth(x+1) ^ 0x55 }

// Sum has a loop: the loop's instructions belong to the inlined copy.
func Sum(xs []int) int {
	s := 0
	for _, x := range xs {
		s += Shade(x)
	}
	return s
}

// Fold applies f over xs; the closure passed by callers may inline.
func Fold(xs []int, acc int, f func(int, int) int) int {
	for _, x := range xs {
		acc = f(acc, x)
	}
	return acc
}

//go:noinline
func Walk(n int) int {
	if n <= 1 {
		return Norm1(Vec{n, n + 1, n + 2})
	}
	return Walk(n-1) + Shade(n)
}
