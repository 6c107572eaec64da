package main

import (
	"fmt"
	"io"
	"path/filepath"
	"strconv"
)

// event is one record of the trace: the entry or exit of an instrumented
// function.
type event struct {
	exit bool
	fn   uint64 // the function's address (exact: its first instruction)
	site uint64 // the return address in the caller
}

// place is what the tree prints for an address.
type place struct {
	function string // demangled; "" when unknown
	file     string // "" when unknown
	line     uint32
	module   string // the mapping's path, for addresses nothing names
	offset   uint64 // the file address in module
}

// namer names the two kinds of address a trace holds.
type namer interface {
	// function names fn, a function's first instruction.
	function(fn uint64) place
	// callSite names the call that returns to ret.
	callSite(ret uint64) place
}

// printTree writes the call tree of evs, one line per call, indented two
// spaces per level:
//
//	NAME at FILE:LINE from FILE:LINE
//
// the function's name and where it starts, then the call site in its
// caller. An exit that is not the innermost open call's is reported and
// closes nothing; dropped events (a full buffer) are counted at the end.
func printTree(w io.Writer, evs []event, n namer, fullPaths bool, dropped uint64) error {
	var stack []uint64
	var b []byte
	for _, ev := range evs {
		b = b[:0]
		if ev.exit {
			if len(stack) > 0 && stack[len(stack)-1] == ev.fn {
				stack = stack[:len(stack)-1]
				continue
			}
			b = indent(b, len(stack))
			b = append(b, "(exit without entry: "...)
			b = appendName(b, n.function(ev.fn), ev.fn)
			b = append(b, ")\n"...)
		} else {
			b = indent(b, len(stack))
			fn := n.function(ev.fn)
			b = appendName(b, fn, ev.fn)
			b = append(b, " at "...)
			b = appendPos(b, fn, fullPaths)
			b = append(b, " from "...)
			b = appendPos(b, n.callSite(ev.site), fullPaths)
			b = append(b, '\n')
			stack = append(stack, ev.fn)
		}
		if _, err := w.Write(b); err != nil {
			return err
		}
	}
	if dropped > 0 {
		if _, err := fmt.Fprintf(w, "(%d events dropped: the trace buffer was full)\n", dropped); err != nil {
			return err
		}
	}
	return nil
}

func indent(b []byte, depth int) []byte {
	for range depth {
		b = append(b, "  "...)
	}
	return b
}

// appendName appends the function's name, else its module and offset,
// else the bare address.
func appendName(b []byte, p place, addr uint64) []byte {
	switch {
	case p.function != "":
		return append(b, p.function...)
	case p.module != "":
		b = append(b, filepath.Base(p.module)...)
		b = append(b, "+0x"...)
		return strconv.AppendUint(b, p.offset, 16)
	}
	b = append(b, "0x"...)
	return strconv.AppendUint(b, addr, 16)
}

// appendPos appends FILE:LINE, as llvm-symbolizer spells an unknown one
// (??:0); FILE is the base name unless fullPaths.
func appendPos(b []byte, p place, fullPaths bool) []byte {
	switch {
	case p.file == "":
		b = append(b, "??"...)
	case fullPaths:
		b = append(b, p.file...)
	default:
		b = append(b, filepath.Base(p.file)...)
	}
	b = append(b, ':')
	return strconv.AppendUint(b, uint64(p.line), 10)
}
