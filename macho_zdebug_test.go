package symbolize_test

import (
	"os"
	"os/exec"
	"reflect"
	"testing"

	"github.com/symbolize-go/symbolize"
	"github.com/symbolize-go/symbolize/macho"
)

// TestMachOCompressedDWARF: a Go program built for macOS keeps its DWARF in
// __zdebug_* sections (Go's linker compresses by default); its answers, at
// every sampled address of every function, equal those of the same program
// linked with -ldflags=-compressdwarf=false, for arm64 and amd64.
// llvm-symbolizer-14 reads no __zdebug_* section, so it is not the
// reference here: the uncompressed twin is.
func TestMachOCompressedDWARF(t *testing.T) {
	for _, arch := range []string{"arm64", "amd64"} {
		t.Run(arch, func(t *testing.T) {
			path := "testdata/gomacho/goprog." + arch
			addrs := machoFuncAddrs(t, path, 100)
			o := &symbolize.Options{Inlines: true}
			z, err := symbolize.Open(path, o)
			if err != nil {
				t.Fatal(err)
			}
			defer z.Close()
			plain, err := symbolize.Open(path+".nocompress", o)
			if err != nil {
				t.Fatal(err)
			}
			defer plain.Close()
			dwarf, inlined := 0, 0
			for _, a := range addrs {
				got, err := z.AppendFrames(nil, a)
				if err != nil {
					t.Fatalf("%#x: %v", a, err)
				}
				want, err := plain.AppendFrames(nil, a)
				if err != nil {
					t.Fatalf("%#x: %v", a, err)
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("%#x: compressed %+v, uncompressed %+v", a, got, want)
				}
				if got[0].Source == symbolize.SourceDWARF && got[0].Line != 0 {
					dwarf++
				}
				if len(got) > 1 {
					inlined++
				}
			}
			if w := z.Warnings(); len(w) > 0 {
				t.Errorf("warnings: %v", w)
			}
			// The checks above mean something only if DWARF answered.
			if dwarf < len(addrs)*9/10 || inlined == 0 {
				t.Errorf("%d of %d addresses have a DWARF line, %d an inline chain", dwarf, len(addrs), inlined)
			}
			t.Logf("%d addresses agree (%d with lines, %d inlined)", len(addrs), dwarf, inlined)
			// And with llvm-symbolizer-14 on the uncompressed twin, which
			// it can read.
			if llvm, err := exec.LookPath("llvm-symbolizer-14"); err == nil {
				ref := queryLLVM(t, llvm, []string{"--obj=" + path + ".nocompress", "--output-style=JSON", "--no-demangle", "--inlines"}, addrs)
				ours := framesOf(t, z, addrs)
				bad := 0
				for i, a := range addrs {
					if !reflect.DeepEqual(ref[i].Symbol, ours[i]) {
						if bad++; bad <= 5 {
							t.Errorf("%#x: llvm-symbolizer-14 on the twin %+v, ours %+v", a, ref[i].Symbol, ours[i])
						}
					}
				}
				t.Logf("llvm-symbolizer-14 on the uncompressed twin: %d of %d differ", bad, len(addrs))
			}
		})
	}
}

// machoFuncAddrs samples the functions of a Mach-O image: each direct
// symbol in __text, its start, a few bytes in and its middle; it fails
// with fewer than least functions.
func machoFuncAddrs(t *testing.T, path string, least int) []uint64 {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := macho.Select(data, "")
	if err != nil {
		t.Fatal(err)
	}
	syms, err := f.Symbols()
	if err != nil {
		t.Fatal(err)
	}
	text := f.Section("__TEXT", "__text")
	if text == nil {
		t.Fatal("no __text")
	}
	var starts []uint64
	for _, s := range syms {
		if s.Kind == macho.KindDirect && s.Value >= text.Addr && s.Value < text.Addr+text.Size {
			starts = append(starts, s.Value)
		}
	}
	if len(starts) < least {
		t.Fatalf("only %d functions", len(starts))
	}
	var out []uint64
	for i, s := range starts {
		out = append(out, s, s+4)
		if i+1 < len(starts) && starts[i+1] > s+8 {
			out = append(out, s+(starts[i+1]-s)/2&^3)
		}
	}
	return out
}
