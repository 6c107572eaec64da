//go:build !go1.21
// +build !go1.21

package main

import "example.com/gopcln/chain"

func generic(xs []int) int { return chain.Sum(xs[:1]) }
