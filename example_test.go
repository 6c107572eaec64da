package symbolize_test

import (
	"context"
	"fmt"
	"log"
	"strings"

	"github.com/symbolize-go/symbolize"
	"github.com/symbolize-go/symbolize/slide"
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

// Symbolize runtime addresses of a process from its mappings, here as
// /proc/PID/maps would list a PIE loaded at 0x555555554000. OpenProcess
// reads a live process's maps itself.
func ExampleNewProcess() {
	maps, _ := slide.ParseProcMaps([]byte(`555555554000-555555555000 r--p 00000000 08:01 42 testdata/elf/c-gcc-O2-dwarf5
555555555000-555555558000 r-xp 00001000 08:01 42 testdata/elf/c-gcc-O2-dwarf5
7ffff7fc1000-7ffff7fc5000 r--p 00000000 00:00 0 [vvar]
`))
	p, err := symbolize.NewProcess(maps, &symbolize.ModulesOptions{Options: symbolize.Options{Inlines: true}})
	if err != nil {
		log.Fatal(err)
	}
	defer p.Close()
	for _, pc := range []uint64{0x555555555240, 0x7ffff7fc1010, 0x10} {
		a := p.Lookup(nil, pc)
		if a.Err != nil {
			fmt.Printf("%#x: %v\n", pc, a.Err)
			continue
		}
		fmt.Printf("%#x: %s+%#x: %s", pc, a.Mapping.Name, a.Offset, a.Frames[0].String())
	}
	// Output:
	// 0x555555555240: c-gcc-O2-dwarf5+0x1240: main
	// /symbolize/testdata/src/c/main.c:61:1
	// 0x7ffff7fc1010: symbolize: [vvar]: mapping has no file
	// 0x10: symbolize: 0x10: no mapping holds the address
}

// Symbolize a profiler's (mapping, address) pairs of many files at once.
func ExampleModules_Batch() {
	lib := &slide.Module{Start: 0x7f0000001000, End: 0x7f0000003000, Offset: 0x1000, Path: "testdata/elf/libcalc-gcc-O2.so"}
	exe := &slide.Module{Start: 0x555555555000, End: 0x555555558000, Offset: 0x1000, Path: "testdata/elf/c-gcc-O2-dwarf5"}
	mods := symbolize.NewModules(&symbolize.ModulesOptions{MaxOpen: 8})
	defer mods.Close()
	reqs := []symbolize.Request{{Mapping: exe, PC: 0x555555555240}, {Mapping: lib, PC: 0x7f0000001250}, {Mapping: exe, PC: 0x555555555240}}
	answers := make([]string, len(reqs))
	for i, a := range mods.Batch(context.Background(), reqs) {
		answers[i] = fmt.Sprintf("%s %#x %s", a.Mapping.Path, a.Addr, a.Frames[0].Function)
	}
	fmt.Println(strings.Join(answers, "\n"))
	// Output:
	// testdata/elf/c-gcc-O2-dwarf5 0x1240 main
	// testdata/elf/libcalc-gcc-O2.so 0x1250 calc_fatal
	// testdata/elf/c-gcc-O2-dwarf5 0x1240 main
}
