// Command ftrace traces the calls of instrumented C++ code in its own
// process and prints them as a call tree, done the Go way: gcc's
// -finstrument-functions makes every function of workload.cpp call the
// hooks of trace.c on entry and exit, which only append (entry or exit,
// function address, call site) to a buffer; after the run, the Go side
// reads the buffer, symbolizes the addresses of its own process with
// symbolize.OpenProcess (demangled names, DWARF file:line) and prints one
// line per call, indented by depth:
//
//	ftrace_workload at workload.cpp:27 from trace.c:38
//	  f1(int) at workload.cpp:24 from workload.cpp:28
//	  f2(int) at workload.cpp:25 from workload.cpp:29
//	  D::D() at workload.cpp:20 from workload.cpp:30
//	    B::B() at workload.cpp:13 from workload.cpp:20
//	  ...
//
// Each line is the function, where it starts, and the call in its caller
// (the call site a hook receives is the return address, so the line
// printed is that of the address before it, as llvm-symbolizer's users
// look up return addresses).
//
// cgo accepts -finstrument-functions only from the environment (it is not
// on the list of flags a #cgo directive may set), so build or run it with
//
//	CGO_CXXFLAGS=-finstrument-functions go run ./examples/ftrace
//
// Built without the flag, the workload reports nothing and ftrace says so.
// The flag -full prints whole paths instead of base names.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/symbolize-go/symbolize"
)

func main() {
	full := flag.Bool("full", false, "print whole source paths, not base names")
	flag.Parse()
	if err := run(os.Stdout, *full); err != nil {
		fmt.Fprintln(os.Stderr, "ftrace:", err)
		os.Exit(1)
	}
}

// errNotInstrumented: the workload ran without calling a hook.
var errNotInstrumented = errors.New("the workload recorded no call: build with CGO_CXXFLAGS=-finstrument-functions")

// run traces the workload and writes its call tree to w.
func run(w io.Writer, fullPaths bool) error {
	evs, dropped, err := runTrace()
	if err != nil {
		return err
	}
	if len(evs) == 0 && dropped == 0 {
		return errNotInstrumented
	}
	p, err := symbolize.OpenProcess(os.Getpid(), &symbolize.ModulesOptions{
		Options: symbolize.Options{Inlines: true, Demangle: true},
	})
	if err != nil {
		return err
	}
	defer p.Close()
	return printTree(w, evs, symbolizeTrace(context.Background(), p, evs), fullPaths, dropped)
}

// places is a namer over answers symbolized in advance.
type places struct {
	fns, sites map[uint64]place
}

func (p *places) function(fn uint64) place  { return p.fns[fn] }
func (p *places) callSite(ret uint64) place { return p.sites[ret] }

// symbolizeTrace symbolizes every distinct address of evs in one batch:
// each function's own address, and the call before each return address.
func symbolizeTrace(ctx context.Context, p *symbolize.Process, evs []event) *places {
	out := &places{fns: map[uint64]place{}, sites: map[uint64]place{}}
	var (
		pcs  []uint64
		site []bool // pcs[i] is a call's (a return address minus 1)
	)
	for _, ev := range evs {
		if ev.exit {
			continue
		}
		if _, ok := out.fns[ev.fn]; !ok {
			out.fns[ev.fn] = place{}
			pcs, site = append(pcs, ev.fn), append(site, false)
		}
		if _, ok := out.sites[ev.site]; !ok && ev.site != 0 {
			out.sites[ev.site] = place{}
			pcs, site = append(pcs, ev.site-1), append(site, true)
		}
	}
	for i, a := range p.Batch(ctx, pcs) {
		var pl place
		if a.Mapping != nil {
			pl.module, pl.offset = a.Mapping.Path, a.Offset
		}
		if len(a.Frames) > 0 {
			// The innermost frame has the position; the outermost is
			// the function the address is in (at a function's first
			// instruction they are the same).
			in, outer := a.Frames[0], a.Frames[len(a.Frames)-1]
			pl.function, pl.file, pl.line = outer.Function, in.File, in.Line
		}
		if site[i] {
			out.sites[pcs[i]+1] = pl
		} else {
			out.fns[pcs[i]] = pl
		}
	}
	return out
}
