package symbolize_test

import (
	"context"
	"fmt"
	"log"

	"github.com/symbolize-go/symbolize"
)

// Symbolize one address of an optimized C program, with its inline chain.
func ExampleOpen() {
	b, err := symbolize.Open("testdata/elf/c-gcc-O2-dwarf5", &symbolize.Options{Inlines: true})
	if err != nil {
		log.Fatal(err)
	}
	defer b.Close()
	frames, err := b.AppendFrames(nil, 0x31a0)
	if err != nil {
		log.Fatal(err)
	}
	for _, f := range frames {
		fmt.Printf("%s at %s:%d:%d inlined=%v\n", f.Function, f.File, f.Line, f.Column, f.Inlined)
	}
	// Output:
	// dvec_reserve at /symbolize/testdata/src/c/vec.h:20:14 inlined=true
	// sort_values at /symbolize/testdata/src/c/stats.c:52:2 inlined=true
	// compute_stats at /symbolize/testdata/src/c/stats.c:87:2 inlined=false
}

// Symbolize many addresses at once, in order, on all cores.
func ExampleBinary_Batch() {
	b, err := symbolize.Open("testdata/elf/c-gcc-O2-dwarf5", &symbolize.Options{Demangle: true})
	if err != nil {
		log.Fatal(err)
	}
	defer b.Close()
	pcs := []uint64{0x1240, 0x1206, 0x10}
	for i, a := range b.Batch(context.Background(), pcs) {
		f := a.Frames[0]
		fmt.Printf("%#x %s %s:%d (%v)\n", pcs[i], f.Function, f.File, f.Line, f.Source)
	}
	// Output:
	// 0x1240 main /symbolize/testdata/src/c/main.c:61 (DWARF)
	// 0x1206 compute_stats.cold /symbolize/testdata/src/c/vec.h:22 (DWARF)
	// 0x10  :0 (none)
}
