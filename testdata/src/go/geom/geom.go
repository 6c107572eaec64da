// Package geom holds small, inlinable geometry helpers so that the Go
// fixture has inlined frames from another package.
package geom

import "math"

// Point is a 2-D point.
type Point struct{ X, Y float64 }

// Add is small enough for the Go inliner.
func Add(a, b Point) Point { return Point{a.X + b.X, a.Y + b.Y} }

// Sub is small enough for the Go inliner.
func Sub(a, b Point) Point { return Point{a.X - b.X, a.Y - b.Y} }

// Dot is inlined into Len, which is itself inlined into Dist: a chain of
// three inlined frames inside the caller of Dist.
func Dot(a, b Point) float64 { return a.X*b.X + a.Y*b.Y }

// Len returns the Euclidean length of p.
func Len(p Point) float64 { return math.Sqrt(Dot(p, p)) }

// Dist returns the distance between a and b.
func Dist(a, b Point) float64 { return Len(Sub(a, b)) }

// Polygon is a closed polyline.
type Polygon []Point

// Perimeter walks the polygon; it has a loop, so it is not inlined itself
// but contains inlined calls to Dist.
func (p Polygon) Perimeter() float64 {
	if len(p) < 2 {
		return 0
	}
	total := 0.0
	for i := range p {
		total += Dist(p[i], p[(i+1)%len(p)])
	}
	return total
}

// Area uses the shoelace formula.
func (p Polygon) Area() float64 {
	s := 0.0
	for i := range p {
		j := (i + 1) % len(p)
		s += p[i].X*p[j].Y - p[j].X*p[i].Y
	}
	return math.Abs(s) / 2
}
