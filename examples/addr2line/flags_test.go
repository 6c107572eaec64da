package main

import (
	"bytes"
	"debug/elf"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// This file compares the llvm-addr2line personality and the options
// beyond the common ones with the real llvm-symbolizer-14 and
// llvm-addr2line-14, output byte for byte. Each comparison is one
// invocation of both tools (standard output, standard error where asked,
// and the exit code).

// outcome is what one invocation of a tool gave.
type outcome struct {
	stdout, stderr string
	code           int
}

// llvmTool returns the path of a reference tool, or skips the test.
func llvmTool(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		t.Skip(name + " not installed")
	}
	return p
}

// runReference runs a reference tool with args, stdin and extra
// environment variables ("NAME=value").
func runReference(t *testing.T, tool string, args []string, stdin string, env []string) outcome {
	t.Helper()
	cmd := exec.Command(tool, args...)
	cmd.Stdin = strings.NewReader(stdin)
	// Ours reads only env: no servers unless a test names them.
	cmd.Env = append(os.Environ(), "LLVM_SYMBOLIZER_OPTS=", "LLVM_ADDR2LINE_OPTS=", "DEBUGINFOD_URLS=")
	cmd.Env = append(cmd.Env, env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			t.Fatalf("%s %q: %v", tool, args, err)
		}
		code = ee.ExitCode()
	}
	return outcome{out.String(), errb.String(), code}
}

// runOurs runs this command as argv0 with the same inputs.
func runOurs(argv0 string, args []string, stdin string, env []string) outcome {
	getenv := func(name string) (string, bool) {
		for _, e := range env {
			if v, ok := strings.CutPrefix(e, name+"="); ok {
				return v, true
			}
		}
		return "", false
	}
	var out, errb bytes.Buffer
	code := runAs(argv0, getenv, args, strings.NewReader(stdin), &out, &errb)
	return outcome{out.String(), errb.String(), code}
}

// comparison runs one case on both tools.
type comparison struct {
	args   []string
	stdin  string
	env    []string
	stderr bool // compare standard error too
}

// compareTools runs c with the reference tool and as argv0, and reports
// any difference in standard output, the exit code and, if asked,
// standard error.
func compareTools(t *testing.T, tool, argv0 string, c comparison) {
	t.Helper()
	want := runReference(t, tool, c.args, c.stdin, c.env)
	got := runOurs(argv0, c.args, c.stdin, c.env)
	what := fmt.Sprintf("%s %q", filepath.Base(tool), c.args)
	diffText(t, what, want.stdout, got.stdout)
	if c.stderr {
		diffText(t, what+" stderr", want.stderr, got.stderr)
	}
	if want.code != got.code {
		t.Errorf("%s: exit code %d, want %d (stderr %q)", what, got.code, want.code, got.stderr)
	}
}

// denseInput returns an address every step bytes through each function
// symbol of an ELF file, as hex with 0x (or without, for addr2line).
func denseInput(t *testing.T, path string, step uint64, bare bool) string {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	syms, _ := f.Symbols()
	sort.Slice(syms, func(i, j int) bool { return syms[i].Value < syms[j].Value })
	var b strings.Builder
	for _, s := range syms {
		if elf.ST_TYPE(s.Info) != elf.STT_FUNC || s.Size == 0 {
			continue
		}
		for a := s.Value; a < s.Value+s.Size; a += step {
			if bare {
				fmt.Fprintf(&b, "%x\n", a)
			} else {
				fmt.Fprintf(&b, "0x%x\n", a)
			}
		}
	}
	return b.String()
}

// TestAddr2LineAgainstLLVM runs the command as llvm-addr2line and compares
// with llvm-addr2line-14: its defaults (GNU style, no names, no inlines,
// no demangling), GNU's flags and hexadecimal addresses with and without
// 0x, on standard input and as arguments.
func TestAddr2LineAgainstLLVM(t *testing.T) {
	tool := llvmTool(t, "llvm-addr2line-14")
	flagSets := []string{
		"",
		"-f",
		"-i",
		"-f -C",
		"-a -p",
		"-fiCap",
		"-s -f -i",
		"--relativenames -f",
		"-f --functions=short",
		"--inlines --demangle -f -a -p -s",
		"-f -i --output-style=LLVM",
		"-a --output-style=JSON -f -i",
		"-f --adjust-vma=0x100 -a",
	}
	n := 0
	for _, fx := range []string{"c-gcc-O2-dwarf5", "cpp-gcc-O2", "c-clang14-O2-line-tables-only"} {
		path := filepath.Join(fixtures, fx)
		var lines []string
		for _, l := range sampleInput(t, path) {
			lines = append(lines, l)
			if a, ok := strings.CutPrefix(l, "0x"); ok {
				lines = append(lines, a, "0X"+strings.ToUpper(a)) // bare and 0X hex
			}
		}
		lines = append(lines, "0x0x10", "g", "-1", "ffffffffffffffff", "10000000000000000")
		stdin := strings.Join(lines, "\n") + "\n"
		for _, fs := range flagSets {
			t.Run(fx+"/"+strings.ReplaceAll(fs, " ", "_"), func(t *testing.T) {
				args := append([]string{"-e", path}, strings.Fields(fs)...)
				compareTools(t, tool, "llvm-addr2line", comparison{args: args, stdin: stdin, stderr: true})
				compareTools(t, tool, "addr2line", comparison{args: append(args, lines[:min(9, len(lines))]...)})
			})
			n += 2
		}
	}
	// Lines that name their module, in hex too.
	a, b := filepath.Join(fixtures, "c-gcc-O2-dwarf5"), filepath.Join(fixtures, "c-gcc-O0-dwarf5")
	stdin := strings.Join([]string{a + " 1240", "CODE " + b + " 0x1312", "'" + a + "' 31A0", "DATA " + a + " 5d81",
		"nonexistent 10", "nonexistent 20", a, "10", "FRAME " + a + " 10"}, "\n") + "\n"
	for _, fs := range []string{"", "-f -i -a -p", "-f --output-style=JSON"} {
		compareTools(t, tool, "llvm-addr2line", comparison{args: strings.Fields(fs), stdin: stdin, stderr: true})
		n++
	}
	t.Logf("%d comparisons with llvm-addr2line-14", n)
}

// denseFlags are added to the flags of the tests that walk every few
// bytes of a fixture: for cpp-gcc-O2, --no-demangle, as LLVM 14's
// demangler gives up on a name there that ours demangles
// (_ZSt14__relocate_a_1IddENSt9enable_ifIXsrSt24__is_bitwise_relocatableIT_vE5valueEPS2_E4typeES4_S4_S4_RSaIT0_E);
// demangling is compared by TestAgainstLLVMSymbolizer.
func denseFlags(fx string) []string {
	if strings.HasPrefix(fx, "cpp-") {
		return []string{"--no-demangle"}
	}
	return nil
}

// TestVerboseAgainstLLVM compares --verbose in every output style, with
// and without inlines, on addresses every few bytes (discriminators,
// start addresses, symbol-table-only frames, unknown addresses).
func TestVerboseAgainstLLVM(t *testing.T) {
	sym := llvmTool(t, "llvm-symbolizer-14")
	a2l := llvmTool(t, "llvm-addr2line-14")
	n := 0
	for _, fx := range []string{"c-gcc-O2-dwarf5", "cpp-gcc-O2", "c-clang14-O2-dwarf5", "c-gcc-O2-stripped"} {
		path := filepath.Join(fixtures, fx)
		addrs := path
		if fx == "c-gcc-O2-stripped" {
			addrs = filepath.Join(fixtures, "c-gcc-O2-dwarf5") // the same code, with a .symtab
		}
		stdin := denseInput(t, addrs, 7, false)
		stdin += "0x0\n0x10\nDATA 0x5d81\n"
		for _, fs := range []string{"--verbose", "--verbose --no-inlines", "--verbose -p -a", "--verbose --no-inlines -p -s",
			"--verbose --output-style=GNU", "--verbose --output-style=GNU --no-inlines -a", "--verbose --output-style=JSON",
			"--verbose --relativenames --functions=short"} {
			t.Run(fx+"/"+strings.ReplaceAll(fs, " ", "_"), func(t *testing.T) {
				args := append(append([]string{"--obj=" + path}, denseFlags(fx)...), strings.Fields(fs)...)
				compareTools(t, sym, "llvm-symbolizer", comparison{args: args, stdin: stdin})
			})
			n++
		}
		t.Run(fx+"/addr2line", func(t *testing.T) {
			compareTools(t, a2l, "addr2line", comparison{args: []string{"-e", path, "--verbose", "-f", "-i", "-a"}, stdin: stdin})
		})
		n++
	}
	t.Logf("%d comparisons with llvm-symbolizer-14 and llvm-addr2line-14", n)
}

// TestSourceContextAgainstLLVM compares --print-source-context-lines. The
// fixtures' line tables name /symbolize/testdata/src/...; with
// --relativenames the names are relative (src/c/vec.h) and both tools read
// them from the current directory, here testdata/, whose src/ holds the
// very sources. Absolute names that do not exist get no context. A second
// tree in a temporary directory holds altered copies (CRLF line ends, no
// final newline, a file cut short, an empty file) to check the edges.
func TestSourceContextAgainstLLVM(t *testing.T) {
	sym := llvmTool(t, "llvm-symbolizer-14")
	a2l := llvmTool(t, "llvm-addr2line-14")
	testdata, err := filepath.Abs("../../testdata")
	if err != nil {
		t.Fatal(err)
	}
	inputs := map[string]string{}
	for _, fx := range []string{"c-gcc-O2-dwarf5", "c-clang14-O2-dwarf5", "cpp-gcc-O2"} {
		p := filepath.Join(testdata, "elf", fx)
		inputs[p] = denseInput(t, p, 11, false) + "0x0\n"
	}
	objArgs := func(flag, p string) []string {
		return append([]string{flag, p}, denseFlags(filepath.Base(p))...)
	}
	flagSets := []string{
		"--print-source-context-lines=1", "--print-source-context-lines=2", "--print-source-context-lines=3",
		"--print-source-context-lines=10", "--print-source-context-lines 11 -p -a", "--print-source-context-lines=100",
		"--print-source-context-lines=0", "--print-source-context-lines=-5", "--print-source-context-lines=0x7 --no-inlines",
		"--print-source-context-lines=4 --output-style=GNU -p", "--print-source-context-lines=3 --output-style=JSON",
		"--print-source-context-lines=3 --verbose",
	}
	n := 0
	check := func(t *testing.T, dir string, sets []string) {
		t.Chdir(dir)
		for p, stdin := range inputs {
			for _, fs := range sets {
				args := append(objArgs("--obj", p), append([]string{"--relativenames"}, strings.Fields(fs)...)...)
				compareTools(t, sym, "llvm-symbolizer", comparison{args: args, stdin: stdin})
				n++
			}
			args := append(objArgs("-e", p), "--relativenames", "-f", "-i", "--print-source-context-lines=5")
			compareTools(t, a2l, "addr2line", comparison{args: args, stdin: strings.ReplaceAll(stdin, "0x", "")})
			// Absolute names: /symbolize/... does not exist here.
			args = append(objArgs("--obj", p), "--print-source-context-lines=3")
			compareTools(t, sym, "llvm-symbolizer", comparison{args: args, stdin: stdin})
			n += 2
		}
	}
	t.Run("testdata", func(t *testing.T) { check(t, testdata, flagSets) })
	t.Run("altered", func(t *testing.T) {
		dir := t.TempDir()
		copyAltered(t, filepath.Join(testdata, "src"), filepath.Join(dir, "src"))
		check(t, dir, flagSets[:6])
	})
	t.Logf("%d comparisons with llvm-symbolizer-14 and llvm-addr2line-14", n)
}

// copyAltered copies the source tree from to to, each file changed in
// one way: CRLF line ends, no final newline, cut to its first 40 lines,
// emptied, or left alone (by its position in the listing).
func copyAltered(t *testing.T, from, to string) {
	t.Helper()
	i := 0
	err := filepath.WalkDir(from, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		switch i % 5 {
		case 0:
			data = bytes.ReplaceAll(data, []byte("\n"), []byte("\r\n"))
		case 1:
			data = bytes.TrimSuffix(data, []byte("\n"))
		case 2:
			lines := bytes.SplitAfter(data, []byte("\n"))
			data = bytes.Join(lines[:min(40, len(lines))], nil)
		case 3:
			data = nil
		}
		i++
		rel, _ := filepath.Rel(from, p)
		out := filepath.Join(to, rel)
		if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
			return err
		}
		return os.WriteFile(out, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestDebugFileSearchAgainstLLVM compares where separate debug files are
// found: a stripped binary copied into a temporary directory, its
// debuglink target placed under a --fallback-debug-path (absolute and
// relative), which --debug-file-directory does not search; build IDs
// under --debug-file-directory; a mismatched debug file refused.
func TestDebugFileSearchAgainstLLVM(t *testing.T) {
	sym := llvmTool(t, "llvm-symbolizer-14")
	dir := t.TempDir()
	copyFile := func(from, to string) {
		t.Helper()
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
	bindir := filepath.Join(dir, "bin")
	for _, f := range []string{"c-gcc-O2-stripped", "c-gcc-O2-mismatch"} {
		copyFile(filepath.Join(fixtures, f), filepath.Join(bindir, f))
		copyFile(filepath.Join(fixtures, f+".debug"), filepath.Join(dir, "fb", bindir, f+".debug"))
	}
	buildIDs, err := filepath.Abs(filepath.Join(fixtures, "debug"))
	if err != nil {
		t.Fatal(err)
	}
	stdin := denseInput(t, filepath.Join(fixtures, "c-gcc-O2-dwarf5"), 97, false) + "DATA 0x5d81\n"
	t.Chdir(dir)
	n := 0
	for _, bin := range []string{"bin/c-gcc-O2-stripped", "bin/c-gcc-O2-mismatch", bindir + "/c-gcc-O2-stripped"} {
		for _, fs := range []string{
			"",
			"--fallback-debug-path=" + filepath.Join(dir, "fb"),
			"--fallback-debug-path fb",
			"--debug-file-directory=" + filepath.Join(dir, "fb"),
			"--debug-file-directory=" + buildIDs,
			"--debug-file-directory=" + buildIDs + " --fallback-debug-path=fb",
			"--debug-file-directory=/nonexistent --fallback-debug-path=/nonexistent",
			"--fallback-debug-path=",
		} {
			t.Run(strings.ReplaceAll(bin+" "+fs, "/", "_"), func(t *testing.T) {
				args := append([]string{"--obj=" + bin, "-a"}, strings.Fields(fs)...)
				compareTools(t, sym, "llvm-symbolizer", comparison{args: args, stdin: stdin, stderr: true})
			})
			n++
		}
	}
	t.Logf("%d comparisons with llvm-symbolizer-14", n)
}

// TestLongLinesAgainstLLVM: llvm-symbolizer 14 reads standard input with
// fgets into 1024 bytes, so a line of 1023 bytes or more is answered in
// pieces, and a NUL ends what a piece says.
func TestLongLinesAgainstLLVM(t *testing.T) {
	sym := llvmTool(t, "llvm-symbolizer-14")
	a2l := llvmTool(t, "llvm-addr2line-14")
	obj := filepath.Join(fixtures, "c-gcc-O2-dwarf5")
	long := func(n int, tail string) string { return "0x31a0 " + strings.Repeat("x", n-7) + tail }
	var in strings.Builder
	for _, l := range []string{
		long(1022, ""), long(1023, ""), long(1024, ""), long(1023, "0x1240"), long(2046, "\r"), long(2047, "31a0"),
		"0x1240\x00junk", "\x00", "0x12\x0040", long(1030, "\x00x"),
	} {
		in.WriteString(l + "\n")
	}
	in.WriteString(long(1100, "")) // no final newline
	n := 0
	for _, fs := range []string{"--no-inlines", "-a --output-style=JSON"} {
		compareTools(t, sym, "llvm-symbolizer", comparison{args: append([]string{"--obj=" + obj}, strings.Fields(fs)...), stdin: in.String()})
		compareTools(t, a2l, "llvm-addr2line", comparison{args: append([]string{"-e", obj}, strings.Fields(fs)...), stdin: in.String()})
		n += 2
	}
	// Without --obj, the piece after the cut names a module of its own.
	compareTools(t, sym, "llvm-symbolizer", comparison{args: nil, stdin: obj + " " + long(1100, "") + "\n", stderr: true})
	t.Logf("%d comparisons with llvm-symbolizer-14 and llvm-addr2line-14", n+1)
}

// TestRelativeAddressAgainstLLVM: LLVM 14 adds the image's preferred
// base, which it knows for COFF only, so on ELF (PIE and not) and Mach-O
// the addresses mean what they mean without the flag.
func TestRelativeAddressAgainstLLVM(t *testing.T) {
	sym := llvmTool(t, "llvm-symbolizer-14")
	n := 0
	for _, c := range []struct{ obj, stdin string }{
		{filepath.Join(fixtures, "c-gcc-O2-nopie"), "0x401240\n0x1240\n0x0\nDATA 0x405d81\n"},
		{filepath.Join(fixtures, "c-gcc-O2-dwarf5"), "0x1240\n0x31a0\nDATA 0x5d81\n"},
		{machoFixtures + "prog.arm64", "0x100002310\n0x2310\n"},
	} {
		for _, fs := range []string{"--relative-address", "--relative-address --adjust-vma=0x400000", "--relative-address -a --output-style=JSON"} {
			compareTools(t, sym, "llvm-symbolizer", comparison{args: append([]string{"--obj=" + c.obj}, strings.Fields(fs)...), stdin: c.stdin})
			n++
		}
	}
	t.Logf("%d comparisons with llvm-symbolizer-14", n)
}

// TestCommandLineAgainstLLVM compares how the command line is read:
// aliases, grouped letters, values joined and separate, the last of
// contradicting options, errors (unknown options, near misses, missing
// values, bad numbers), @FILE response files and the environment
// variables, as llvm-symbolizer and as llvm-addr2line. --help and
// --version are compared by exit code only (the text is our own).
func TestCommandLineAgainstLLVM(t *testing.T) {
	sym := llvmTool(t, "llvm-symbolizer-14")
	a2l := llvmTool(t, "llvm-addr2line-14")
	obj := filepath.Join(fixtures, "c-gcc-O2-dwarf5")
	dir := t.TempDir()
	rsp := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return "@" + p
	}
	nested := rsp("nested.rsp", "-a\n-p")
	cycle := filepath.Join(dir, "cycle.rsp")
	rsp("cycle.rsp", "-s @"+cycle)
	quoted := rsp("quoted.rsp", "\xef\xbb\xbf'--obj="+obj+"' \"-f\"\\\n \"\" --output-style\\=GN\\U 0x31a0 @"+filepath.Join(dir, "nested.rsp"))
	// JSON's ModuleName and echoed inputs show how the file was split.
	tricky := rsp("tricky.rsp", `--output-style=JSON '--obj=p\q r'"x\"y" 0x10 a\ b "" 'tail\`)
	cases := [][]string{
		{tricky},
		{"-e" + obj, "0x1240"},
		{"-e=" + obj, "0x1240"},
		{"--exe", obj, "0x1240"},
		{"--exe=" + obj, "--obj", obj, "0x1240"},
		{"-e", "/nonexistent", "-e", obj, "0x1240"},
		{"--obj=" + obj, "-apsif", "0x31a0"},
		{"--obj=" + obj, "-ape" + obj, "0x31a0"},
		{"--obj=" + obj, "-f", "--functions=none", "0x1240"},
		{"--obj=" + obj, "--functions=none", "-f=short", "0x1240"},
		{"--obj=" + obj, "--functions", "short", "0x1240"},
		{"--obj=" + obj, "-f=bogus", "0x1240"},
		{"--obj=" + obj, "--functions=", "0x1240"},
		{"--obj=" + obj, "--no-inlines", "--inlines", "--inlining=false", "0x31a0"},
		{"--obj=" + obj, "--inlining", "-demangle=false", "-C", "0x31a0"},
		{"--obj=" + obj, "--no-demangle", "-demangle=true", "0x31a0"},
		{"--obj=" + obj, "-s", "--relativenames", "-s", "0x1240"},
		{"--obj=" + obj, "--output-style", "GNU", "--output-style=gnu", "0x1240"},
		{"--obj=" + obj, "--output-style=JSON", "--output-style=GNU", "0x1240"},
		{"--obj=" + obj, "--adjust-vma", "0o20", "0x1250"},
		{"--obj=" + obj, "--adjust-vma=010", "0x1248"},
		{"--obj=" + obj, "--print-address", "--pretty-print", "--basenames", "0x1240"},
		{"--obj=" + obj, "--dwp=/nonexistent", "--dia", "--dwp", "x", "0x1240"},
		{"--obj=" + obj, "--untag-addresses", "--no-untag-addresses", "0x1240"},
		{"--obj=" + obj, "--dsym-hint=x.dSYM", "--dsym-hint", "y", "--default-arch", "x86_64", "0x1240"},
		{"--obj=" + obj, "", "-", "0x1240"},
		{"--obj=" + obj, nested, "0x1240"},
		{quoted},
		{"--obj=" + obj, "@" + cycle, "0x1240"},
		{"--obj=" + obj, "@" + filepath.Join(dir, "missing.rsp"), "0x1240"},
		// Errors.
		{"--bogus", "0x1"},
		{"--verbos"},
		{"--Verbose"},
		{"--VERBOSE"},
		{"--inline"},
		{"--demangle=false"},
		{"--output-styl=GNU"},
		{"--fallback-debug-pat=x"},
		{"--adjust-vm"},
		{"--dsym-hin"},
		{"--inlining=truee"},
		{"--di", "--dw", "--pretty"},
		{"-e", obj, "-yq", "--zz", "-Z"},
		{"-a=1", "-pa=", "-s=x"},
		{"-a-p", "-=x", "-dwp=x"},
		{"-relative-address"},
		{"-print-source-context-lines=1"},
		{"-obj=" + obj},
		{"-inlining"},
		{"--"},
		{"--", "0x1"},
		{"--bogus", "-ae"},
		{"-e"},
		{"--exe"},
		{"--dwp"},
		{"--print-source-context-lines"},
		{"--adjust-vma=zz"},
		{"--adjust-vma="},
		{"--adjust-vma=-1"},
		{"--adjust-vma=0x10000000000000000"},
		{"--print-source-context-lines=zz"},
		{"--print-source-context-lines=2147483648"},
		{"--print-source-context-lines=-2147483649"},
		{"--adjust-vma=zz", "--print-source-context-lines=zz"},
		{"--bogus", "--help"},
		{"--version", "--bogus"},
		{"--dsym-hint=x", "--adjust-vma=zz"},
	}
	n := 0
	for _, c := range cases {
		for _, tool := range []struct{ path, argv0 string }{{sym, "llvm-symbolizer"}, {a2l, "llvm-addr2line"}} {
			compareTools(t, tool.path, tool.argv0, comparison{args: c, stdin: "0x31a0\n", stderr: true})
			n++
		}
	}
	for _, c := range [][]string{{"-h"}, {"--help"}, {"-v"}, {"--version"}, {"-pv"}, {"-vx"}, {"-verbose"},
		{"--help", "--adjust-vma=zz"}, {"--version", "--help"}} {
		want := runReference(t, sym, c, "", nil)
		got := runOurs("llvm-symbolizer", c, "", nil)
		if want.code != got.code || (want.stdout == "") != (got.stdout == "") || want.stderr != got.stderr {
			t.Errorf("%q: exit %d, stdout %d bytes, stderr %q; want %d, %d bytes, %q",
				c, got.code, len(got.stdout), got.stderr, want.code, len(want.stdout), want.stderr)
		}
		n++
	}
	// Options from the environment come first: the command line
	// overrides them, and each tool reads its own variable.
	for _, c := range []struct {
		env  []string
		args []string
	}{
		{[]string{"LLVM_SYMBOLIZER_OPTS=--no-inlines -a", "LLVM_ADDR2LINE_OPTS=-f -i"}, []string{"--obj=" + obj, "0x31a0"}},
		{[]string{"LLVM_SYMBOLIZER_OPTS=--output-style=JSON '-s' " + nested, "LLVM_ADDR2LINE_OPTS=" + nested + " -f"}, []string{"--obj=" + obj, "--output-style=GNU", "0x31a0"}},
		{[]string{"LLVM_SYMBOLIZER_OPTS=--bogus", "LLVM_ADDR2LINE_OPTS=--verbos"}, []string{"--obj=" + obj, "0x31a0"}},
		{[]string{"LLVM_SYMBOLIZER_OPTS=-e " + obj, "LLVM_ADDR2LINE_OPTS=-e " + obj}, []string{"0x31a0"}},
	} {
		for _, tool := range []struct{ path, argv0 string }{{sym, "llvm-symbolizer"}, {a2l, "llvm-addr2line"}} {
			compareTools(t, tool.path, tool.argv0, comparison{args: c.args, env: c.env, stdin: "", stderr: true})
			n++
		}
	}
	t.Logf("%d comparisons with llvm-symbolizer-14 and llvm-addr2line-14", n)
}
