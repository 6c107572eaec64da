//go:build go1.21
// +build go1.21

package main

import "example.com/gopcln/chain"

// Number is what the generic helpers take: their instances are named with
// a shape, e.g. main.sumOf[go.shape.int].
type Number interface{ ~int | ~int64 }

func sumOf[T Number](xs []T) T {
	var s T
	for _, x := range xs {
		s += square(x)
	}
	return s
}

func square[T Number](x T) T { return x * x }

func generic(xs []int) int {
	ys := make([]int64, len(xs))
	for i, x := range xs {
		ys[i] = int64(chain.Shade(x))
	}
	return sumOf(xs) + int(sumOf(ys))
}
