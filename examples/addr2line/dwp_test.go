package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestDWPAgainstLLVM: --dwp=FILE names the package of a split-DWARF
// binary. The binary of each testdata/split variant is copied alone to a
// temporary directory, so that neither tool finds its .dwo files and only
// the package can answer with inline frames; the output is
// llvm-symbolizer-14's byte for byte, standard error included, for a few
// flag sets and both package index versions.
func TestDWPAgainstLLVM(t *testing.T) {
	llvm, err := exec.LookPath("llvm-symbolizer-14")
	if err != nil {
		t.Skip("llvm-symbolizer-14 not installed")
	}
	split := filepath.Join(fixtures, "..", "split")
	for _, v := range []string{"gcc-dwarf5", "gcc-dwarf4", "clang-dwarf5"} {
		data, err := os.ReadFile(filepath.Join(split, v, "calc"))
		if err != nil {
			t.Skip(err)
		}
		path := filepath.Join(t.TempDir(), "calc")
		if err := os.WriteFile(path, data, 0o755); err != nil {
			t.Fatal(err)
		}
		lines := sampleInput(t, path)
		stdin := strings.Join(lines, "\n") + "\n"
		for _, fs := range []string{"-i -f", "--no-inlines -a -p", "--output-style=JSON", "--output-style=GNU -i -a -p"} {
			t.Run(v+"/"+strings.ReplaceAll(fs, " ", "_"), func(t *testing.T) {
				args := append([]string{"--obj=" + path, "--dwp=" + filepath.Join(split, v+".dwp")}, strings.Fields(fs)...)
				compareLLVM(t, llvm, "stdin", args, stdin, true)
				if fs == "--output-style=JSON" {
					// The package answered: some address has an
					// inlined frame (a second JSON frame).
					out, _ := runTool(t, args, stdin)
					if !strings.Contains(string(out), `},{"Column"`) {
						t.Errorf("no answer has an inlined frame")
					}
				}
			})
		}
	}
}
