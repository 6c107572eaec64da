//go:build cgo

package main

// The C++ workload is compiled at -O0 so that every call in the source is
// a call in the code (at -O2 gcc inlines f1 and f2, though it still reports
// their entries), and with -g for the DWARF the tree's file:line come from.
// cgo puts these flags after its defaults (-g -O2), so they win.

/*
#cgo CXXFLAGS: -O0 -g
#cgo CFLAGS: -O2 -g
#include "trace.h"
*/
import "C"

import "unsafe"

// runTrace runs the instrumented workload and returns what the hooks
// recorded, and how many events did not fit in the buffer.
func runTrace() (evs []event, dropped uint64, err error) {
	n := uint64(C.ftrace_run())
	raw := unsafe.Slice(C.ftrace_events(), n)
	evs = make([]event, len(raw))
	for i, r := range raw {
		evs[i] = event{exit: r.kind == C.FTRACE_EXIT, fn: uint64(r.fn), site: uint64(r.site)}
	}
	return evs, uint64(C.ftrace_dropped()), nil
}
