package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/symbolize-go/symbolize/macho"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from the current output")

const fixtures = "../../testdata/macho/"

// goldenCases are invocations whose whole output is kept in
// testdata/NAME.golden. Real atos does not exist here; the goldens were
// checked against llvm-symbolizer-14 by TestAgainstLLVMSymbolizer's
// conversion of its answers to atos's format.
var goldenCases = []struct {
	name  string
	args  []string
	stdin string
}{
	{"prog-arm64-inlines", []string{"-o", fixtures + "prog.arm64", "-i",
		"0x100000560", "0x100000570", "0x1000005a0", "0x100002120", "0x1000021a0", "0x100002540", "0x100008000", "0x5", "junk"}, ""},
	{"prog-arm64-load", []string{"-o", fixtures + "prog.arm64", "-l", "104a38000",
		"0x104a38560", "0x104a3a1a0", "0x104a3a540"}, ""},
	{"prog-x86_64-fat-slide-fullpath", []string{"-o", fixtures + "prog.fat", "-arch", "x86_64", "-s", "0x8000000",
		"-fullPath", "-i"}, "0x108000510 0x1080016d0\n0x108001c00\n"},
	{"prog-arm64-dsym-offset", []string{"-o", fixtures + "prog.arm64.dSYM", "-offset", "0x560", "0x2540"}, ""},
	{"prog-arm64-stripped", []string{"-o", fixtures + "prog.arm64.stripped", "0x100000560", "0x100002544", "0x100000000"}, ""},
	{"prog-delim", []string{"-o", fixtures + "prog.arm64", "-i", "-d", " | ", "0x100000570", "0x100000590"}, ""},
}

func TestGolden(t *testing.T) {
	for _, c := range goldenCases {
		t.Run(c.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			if rc := run(c.args, strings.NewReader(c.stdin), &out, &errb); rc != 0 {
				t.Fatalf("exit %d: %s", rc, errb.String())
			}
			// Full paths name the directory the fixtures were built in
			// (recorded in their DWARF, whatever the checkout's path):
			// keep goldens portable.
			got := fixtureDir.ReplaceAllString(out.String(), "$$FIXTURES/")
			golden := filepath.Join("testdata", c.name+".golden")
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if got != string(want) {
				t.Errorf("output differs from %s (go test -update rewrites it):\n got:\n%s\nwant:\n%s", golden, got, want)
			}
		})
	}
}

// fixtureDir matches an absolute path to the Mach-O fixtures' directory, as
// their DWARF recorded it when they were built.
var fixtureDir = regexp.MustCompile(`/\S*?/testdata/macho/`)

type llvmFrame struct {
	FunctionName string
	FileName     string
	Line         uint32
	StartAddress string
}

// TestAgainstLLVMSymbolizer compares atos output with llvm-symbolizer-14's
// answers written in atos's format, on a few thousand addresses per image,
// given as runtime addresses of the image loaded at a random address (-l)
// or slid by a random amount (-s).
func TestAgainstLLVMSymbolizer(t *testing.T) {
	llvm, err := exec.LookPath("llvm-symbolizer-14")
	if err != nil {
		t.Skip("llvm-symbolizer-14 not installed")
	}
	images := []struct{ path, arch string }{
		{"prog.arm64", ""}, {"prog.x86_64", ""}, {"prog.fat", "x86_64"}, {"main.arm64", ""}, {"libfix.x86_64.dylib", ""},
	}
	for _, im := range images {
		for _, inl := range []bool{false, true} {
			for _, mode := range []string{"-l", "-s"} {
				name := fmt.Sprintf("%s:%s/inlines=%v/%s", im.path, im.arch, inl, mode)
				t.Run(name, func(t *testing.T) {
					path := fixtures + im.path
					addrs, text := codeAddrs(t, path, im.arch)
					rng := rand.New(rand.NewPCG(uint64(len(addrs)), uint64(len(mode))))
					slide := rng.Uint64N(1<<24) << 12
					val := slide
					if mode == "-l" {
						val = text + slide
					}
					args := []string{"-o", path, mode, strconv.FormatUint(val, 16)}
					if im.arch != "" {
						args = append(args, "-arch", im.arch)
					}
					if inl {
						args = append(args, "-i")
					}
					var in strings.Builder
					for _, a := range addrs {
						fmt.Fprintf(&in, "0x%x\n", a+slide)
					}
					var out, errb bytes.Buffer
					if rc := run(args, strings.NewReader(in.String()), &out, &errb); rc != 0 {
						t.Fatalf("exit %d: %s", rc, errb.String())
					}
					want := llvmAsAtos(t, llvm, path, im.arch, addrs, slide, inl)
					got := strings.SplitAfter(out.String(), "\n")
					if len(got) > 0 && got[len(got)-1] == "" {
						got = got[:len(got)-1]
					}
					if len(got) != len(want) {
						t.Fatalf("%d lines, want %d", len(got), len(want))
					}
					bad := 0
					for i := range want {
						if got[i] != want[i] {
							if bad++; bad <= 10 {
								t.Errorf("line %d:\n got %q\nwant %q", i, got[i], want[i])
							}
						}
					}
					t.Logf("%d addresses, %d output lines, %d differ", len(addrs), len(want), bad)
				})
			}
		}
	}
}

// codeAddrs returns every fourth byte of the image's code sections and its
// __TEXT vmaddr.
func codeAddrs(t *testing.T, path, arch string) ([]uint64, uint64) {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := macho.Select(data, arch)
	if err != nil {
		t.Fatal(err)
	}
	var out []uint64
	for _, seg := range f.Segments {
		for _, s := range seg.Sections {
			if s.Flags&macho.AttrPureInstructions != 0 {
				for a := s.Addr; a < s.Addr+s.Size+8; a += 3 {
					out = append(out, a)
				}
			}
		}
	}
	text, _ := f.TextAddr()
	return out, text
}

// llvmAsAtos asks llvm-symbolizer-14 about addrs and writes each answer as
// atos prints it: every frame innermost first with -i, else the outermost;
// "name (in image) (file:line)", or "+ offset" from the symbol when no line
// is known, or the runtime address when nothing is.
func llvmAsAtos(t *testing.T, llvm, path, arch string, addrs []uint64, slide uint64, inlines bool) []string {
	var in bytes.Buffer
	for _, a := range addrs {
		fmt.Fprintf(&in, "0x%x\n", a)
	}
	args := []string{"--obj=" + path, "--output-style=JSON", "--inlines"}
	if arch != "" {
		args = append(args, "--default-arch="+arch)
	}
	cmd := exec.Command(llvm, args...)
	cmd.Stdin = &in
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	image := filepath.Base(path)
	var lines []string
	for i, l := range bytes.Split(bytes.TrimSpace(out), []byte("\n")) {
		var ans struct{ Symbol []llvmFrame }
		if err := json.Unmarshal(l, &ans); err != nil {
			t.Fatal(err)
		}
		fr := ans.Symbol
		if len(fr) == 0 || fr[0].FunctionName == "" {
			lines = append(lines, fmt.Sprintf("0x%x\n", addrs[i]+slide))
			continue
		}
		if !inlines {
			fr = fr[len(fr)-1:]
		}
		var b strings.Builder
		for j, f := range fr {
			if j > 0 {
				b.WriteString("\n")
			}
			fmt.Fprintf(&b, "%s (in %s)", f.FunctionName, image)
			switch {
			case f.Line != 0 && f.FileName != "":
				fmt.Fprintf(&b, " (%s:%d)", filepath.Base(f.FileName), f.Line)
			case f.StartAddress != "":
				start, _ := strconv.ParseUint(strings.TrimPrefix(f.StartAddress, "0x"), 16, 64)
				fmt.Fprintf(&b, " + %d", addrs[i]-start)
			}
		}
		b.WriteString("\n")
		lines = append(lines, strings.SplitAfter(b.String(), "\n")...)
		lines = lines[:len(lines)-1] // SplitAfter's trailing ""
	}
	return lines
}

func TestArgs(t *testing.T) {
	for _, bad := range [][]string{
		{}, {"-o"}, {"-o", "x", "-l", "zz"}, {"-o", "x", "-l", "1", "-s", "2"}, {"-o", "x", "-bogus"},
		{"-o", fixtures + "prog.fat"}, // universal file without -arch
		{"-o", "/nonexistent"},
	} {
		var out, errb bytes.Buffer
		if rc := run(bad, strings.NewReader(""), &out, &errb); rc == 0 || errb.Len() == 0 {
			t.Errorf("%q: exit %d, stderr %q", bad, rc, errb.String())
		}
	}
}
