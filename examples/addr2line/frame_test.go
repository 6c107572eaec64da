package main

import (
	"debug/elf"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// frameInput returns FRAME requests at every 16th byte of every function
// of an ELF fixture (at most max, evenly thinned), with unparsable lines
// and, with mixed, CODE and DATA requests among them, as a sanitizer's
// symbolizer session sends them. (Low addresses, where llvm-symbolizer names
// dead functions, is the root test's business: see its frameExceptions.)
func frameInput(t *testing.T, path string, max int, mixed bool) []string {
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	syms, _ := f.Symbols()
	var pcs []uint64
	for _, s := range syms {
		if elf.ST_TYPE(s.Info) == elf.STT_FUNC && s.Size > 0 {
			for pc := s.Value; pc < s.Value+s.Size; pc += 16 {
				pcs = append(pcs, pc)
			}
		}
	}
	if len(pcs) > max {
		thin := make([]uint64, max)
		for i := range thin {
			thin[i] = pcs[i*len(pcs)/max]
		}
		pcs = thin
	}
	var lines []string
	for i, pc := range pcs {
		lines = append(lines, fmt.Sprintf("FRAME 0x%x", pc))
		if mixed && i%7 == 0 {
			lines = append(lines, fmt.Sprintf("0x%x", pc), fmt.Sprintf("DATA 0x%x", pc))
		}
	}
	return append(lines, "FRAME 0x7fffffffffff", "FRAME zzz", "FRAME", "FRAME 18446744073709551615")
}

// TestFrameAgainstLLVMSymbolizer compares FRAME answers byte for byte with
// llvm-symbolizer-14 in every output style, with addresses printed or not,
// on standard input and as arguments (JSON: one array), on the FRAME
// fixtures and two of testdata/elf. --basenames and --relativenames are
// among the flags: LLVM 14 prints FRAME file names whole regardless.
func TestFrameAgainstLLVMSymbolizer(t *testing.T) {
	llvm, err := exec.LookPath("llvm-symbolizer-14")
	if err != nil {
		t.Skip("llvm-symbolizer-14 not installed")
	}
	flagSets := []string{
		"",
		"-a",
		"-a -p",
		"--basenames",
		"--relativenames -a",
		"--output-style=GNU",
		"--output-style=GNU -a -p",
		"--output-style=JSON",
		"--output-style=JSON -a --no-inlines",
	}
	max := 400
	if testing.Short() {
		max = 60
	}
	paths, _ := filepath.Glob(filepath.Join(fixtures, "..", "frame", "*"))
	paths = append(paths, filepath.Join(fixtures, "c-gcc-O2-dwarf4"), filepath.Join(fixtures, "cpp-clang14-O2"))
	if len(paths) < 3 {
		t.Skip("no FRAME fixtures")
	}
	for _, path := range paths {
		// CODE and DATA in C++ fixtures would test demangling too.
		lines := frameInput(t, path, max, !strings.Contains(filepath.Base(path), "cpp"))
		stdin := strings.Join(lines, "\n") + "\n"
		for _, fs := range flagSets {
			t.Run(filepath.Base(path)+"/"+strings.ReplaceAll(fs, " ", "_"), func(t *testing.T) {
				args := append([]string{"--obj=" + path}, strings.Fields(fs)...)
				compareLLVM(t, llvm, "stdin", args, stdin, true)
				compareLLVM(t, llvm, "args", append(args, lines[:min(12, len(lines))]...), "", true)
			})
		}
	}
}
