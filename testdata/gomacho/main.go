// Command goprog is the Mach-O Go fixture: Go's linker stores its DWARF
// compressed (__zdebug_*) unless -ldflags=-compressdwarf=false.
package main

type shape interface{ area() float64 }

type rect struct{ w, h float64 }

func (r rect) area() float64 { return r.w * r.h }

type circle struct{ r float64 }

func (c circle) area() float64 { return 3 * c.r * c.r }

func square(i int) int { return i * i }

func sumSquares(n int) int {
	s := 0
	for i := 0; i < n; i++ {
		s += square(i) // inlined
	}
	return s
}

//go:noinline
func total(shapes []shape) float64 {
	t := 0.0
	for _, s := range shapes {
		t += s.area()
	}
	return t
}

// count is a variable so that the compiler cannot fold the calls away.
var count = 10

func main() {
	n := sumSquares(count)
	t := total([]shape{rect{2, 3}, circle{float64(n)}})
	println(n, t)
}
