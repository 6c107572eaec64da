//go:build !cgo

package main

import "errors"

// runTrace needs cgo: the workload is C++.
func runTrace() ([]event, uint64, error) {
	return nil, 0, errors.New("ftrace: built without cgo (CGO_ENABLED=0): the traced workload is C++")
}
