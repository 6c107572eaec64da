package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/symbolize-go/symbolize/macho"
)

const machoFixtures = "../../testdata/macho/"

// machoInput returns requests over an image: every third byte of its code,
// its data symbols as CODE and DATA requests, and a few outside it.
func machoInput(t *testing.T, path, arch string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := macho.Select(data, arch)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, seg := range f.Segments {
		for _, s := range seg.Sections {
			if s.Flags&macho.AttrPureInstructions != 0 {
				for a := s.Addr; a < s.Addr+s.Size+4; a += 3 {
					fmt.Fprintf(&b, "0x%x\n", a)
				}
			}
		}
	}
	syms, _ := f.Symbols()
	for _, s := range syms {
		if s.Kind == macho.KindDirect {
			fmt.Fprintf(&b, "0x%x\nDATA 0x%x\n", s.Value, s.Value+1)
		}
	}
	b.WriteString("0\n0x100000000\n0xffffffffffffffff\n")
	return b.String()
}

// TestMachOAgainstLLVMSymbolizer compares output with llvm-symbolizer-14's on
// Mach-O images: thin, dylib, universal (FILE:ARCH and --default-arch), with
// the dSYM found beside the binary.
func TestMachOAgainstLLVMSymbolizer(t *testing.T) {
	llvm, err := exec.LookPath("llvm-symbolizer-14")
	if err != nil {
		t.Skip("llvm-symbolizer-14 not installed")
	}
	objs := []struct {
		args       []string
		path, arch string
	}{
		{[]string{"--obj=" + machoFixtures + "prog.arm64"}, "prog.arm64", ""},
		{[]string{"--obj=" + machoFixtures + "prog.fat:x86_64"}, "prog.fat", "x86_64"},
		{[]string{"--obj=" + machoFixtures + "prog.fat", "--default-arch=arm64"}, "prog.fat", "arm64"},
		{[]string{"--obj=" + machoFixtures + "main.x86_64"}, "main.x86_64", ""},
		{[]string{"--obj=" + machoFixtures + "libfix.arm64.dylib"}, "libfix.arm64.dylib", ""},
	}
	flagSets := []string{"", "-a -p", "--no-inlines -a", "--output-style=JSON", "--output-style=GNU -f -i",
		"--no-demangle --functions=short -p", "--relativenames -s"}
	for _, o := range objs {
		stdin := machoInput(t, machoFixtures+o.path, o.arch)
		for _, fl := range flagSets {
			t.Run(strings.Join(o.args, "_")+"/"+strings.ReplaceAll(fl, " ", "_"), func(t *testing.T) {
				args := append(append([]string{}, o.args...), strings.Fields(fl)...)
				compareLLVM(t, llvm, "stdin", args, stdin, false)
			})
		}
	}
}

// TestMachODSYMHint: a binary whose dSYM is elsewhere is symbolized with
// --dsym-hint, and one whose dSYM beside it belongs to another build falls
// back to its symbol table, both as llvm-symbolizer-14 does.
func TestMachODSYMHint(t *testing.T) {
	llvm, err := exec.LookPath("llvm-symbolizer-14")
	if err != nil {
		t.Skip("llvm-symbolizer-14 not installed")
	}
	dir := t.TempDir()
	copy := func(from, to string) {
		data, err := os.ReadFile(from)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(to, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	bin := filepath.Join(dir, "app")
	copy(machoFixtures+"prog.arm64", bin)
	hint := filepath.Join(dir, "elsewhere", "app.dSYM")
	copy(machoFixtures+"prog.arm64.dSYM/Contents/Resources/DWARF/prog.arm64",
		filepath.Join(hint, "Contents", "Resources", "DWARF", "app"))
	other := filepath.Join(dir, "other")
	copy(machoFixtures+"prog.arm64", other)
	copy(machoFixtures+"main.arm64.dSYM/Contents/Resources/DWARF/main.arm64", macho.DSYMPath(other))
	stdin := machoInput(t, bin, "")
	for _, args := range [][]string{
		{"--obj=" + bin, "--dsym-hint=" + hint},
		{"--obj=" + bin, "--dsym-hint=" + filepath.Join(dir, "nothing.dSYM"), "--dsym-hint=" + hint, "-a"},
		{"--obj=" + bin}, // no dSYM: symbols only
		{"--obj=" + other, "--output-style=JSON"},
	} {
		compareLLVM(t, llvm, strings.Join(args, " "), args, stdin, false)
	}
	// A hint without the .dSYM extension is refused with LLVM's warning.
	_, stderr := runTool(t, []string{"--obj=" + bin, "--dsym-hint=" + bin, "0x100000560"}, "")
	if !strings.Contains(stderr, "invalid dSYM hint") {
		t.Errorf("stderr %q", stderr)
	}
}

func TestSplitArch(t *testing.T) {
	for _, c := range []struct{ in, def, path, arch string }{
		{"a.out", "", "a.out", ""},
		{"a.out:x86_64", "arm64", "a.out", "x86_64"},
		{"a.out", "arm64", "a.out", "arm64"},
		{"c:/dir/a.out", "", "c:/dir/a.out", ""},
		{"a:b:arm64e", "", "a:b", "arm64e"},
	} {
		p, a := splitArch(c.in, c.def)
		if p != c.path || a != c.arch {
			t.Errorf("splitArch(%q, %q) = %q, %q", c.in, c.def, p, a)
		}
	}
}
