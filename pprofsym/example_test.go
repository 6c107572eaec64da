package pprofsym_test

import (
	"context"
	"fmt"

	"github.com/google/pprof/profile"
	"github.com/symbolize-go/symbolize/frame"
	"github.com/symbolize-go/symbolize/pprofsym"
	"github.com/symbolize-go/symbolize/slide"
)

// table answers from a fixed table; a program would pass the root
// package's *symbolize.Modules instead.
type table map[uint64][]frame.Frame

func (t table) AppendFrames(dst []frame.Frame, m *slide.Module, pc uint64) ([]frame.Frame, error) {
	return append(dst, t[pc-m.Start]...), nil
}

func ExampleSymbolize() {
	m := &profile.Mapping{ID: 1, Start: 0x555500000000, Limit: 0x555500001000, File: "/usr/bin/prog"}
	p := &profile.Profile{
		Mapping:  []*profile.Mapping{m},
		Location: []*profile.Location{{ID: 1, Mapping: m, Address: 0x555500000140}},
	}
	s := table{0x140: {
		{Function: "add(int, int)", DWARFName: "_Z3addii", File: "/src/prog.cc", Line: 4, Column: 12, StartLine: 3, Inlined: true, Source: frame.SourceDWARF},
		{Function: "main", DWARFName: "main", SymbolName: "main", File: "/src/prog.cc", Line: 9, Column: 3, StartLine: 8, Source: frame.SourceDWARF},
	}}
	rep, err := pprofsym.Symbolize(context.Background(), p, s, nil)
	if err != nil {
		panic(err)
	}
	fmt.Println(rep.Locations, "location,", rep.Functions, "functions; errors:", rep.Err())
	for _, l := range p.Location[0].Line {
		fmt.Printf("%s (%s) %s:%d:%d\n", l.Function.Name, l.Function.SystemName, l.Function.Filename, l.Line, l.Column)
	}
	fmt.Println(m.HasFunctions, m.HasInlineFrames)
	// Output:
	// 1 location, 2 functions; errors: <nil>
	// add (_Z3addii) /src/prog.cc:4:12
	// main (main) /src/prog.cc:9:3
	// true true
}
