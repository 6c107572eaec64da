package main

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestMatchesDwarfdump diffs linedump's rows and unit headings against
// llvm-dwarfdump-14 --debug-line on the ELF fixtures (zstd-compressed ones
// excepted: LLVM 14 cannot read them).
func TestMatchesDwarfdump(t *testing.T) {
	tool, err := exec.LookPath("llvm-dwarfdump-14")
	if err != nil {
		t.Skip("llvm-dwarfdump-14 not installed")
	}
	paths, _ := filepath.Glob("../../testdata/elf/*")
	keep := func(out []byte) string {
		var b strings.Builder
		for _, l := range strings.Split(string(out), "\n") {
			if strings.HasPrefix(l, "0x") || strings.HasPrefix(l, "debug_line[") {
				b.WriteString(l)
				b.WriteByte('\n')
			}
		}
		return b.String()
	}
	n := 0
	for _, p := range paths {
		if fi, err := os.Stat(p); err != nil || !fi.Mode().IsRegular() || strings.Contains(p, "zstd") {
			continue
		}
		var buf bytes.Buffer
		w := bufio.NewWriter(&buf)
		if err := dump(w, p, false, false); err != nil {
			continue // no .debug_line
		}
		w.Flush()
		want, err := exec.Command(tool, "--debug-line", p).Output()
		if err != nil {
			t.Fatalf("%s %s: %v", tool, p, err)
		}
		if got, want := keep(buf.Bytes()), keep(want); got != want {
			t.Errorf("%s: linedump and llvm-dwarfdump differ", p)
		}
		n++
	}
	if n == 0 {
		t.Skip("no fixtures")
	}
}
