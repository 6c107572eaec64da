package main

import (
	"bufio"
	"bytes"
	"debug/elf"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/symbolize-go/symbolize"
)

const fixtures = "../../testdata/elf"

func TestParseRequest(t *testing.T) {
	tests := []struct {
		line, obj string
		want      request
	}{
		{"0x1be0", "m", request{"m", "", 0x1be0, cmdCode, true}},
		{"  0x1be0  junk", "m", request{"m", "", 0x1be0, cmdCode, true}},
		{"1be0", "m", request{"m", "", 0, cmdCode, false}},
		{"07340", "m", request{"m", "", 0o7340, cmdCode, true}},
		{"0b101", "m", request{"m", "", 5, cmdCode, true}},
		{"08", "m", request{"m", "", 0, cmdCode, false}},
		{"0x", "m", request{"m", "", 0, cmdCode, false}},
		{"\t0x10", "m", request{"m", "", 0, cmdCode, false}}, // tabs are not separators
		{"18446744073709551615", "m", request{"m", "", ^uint64(0), cmdCode, true}},
		{"0x10000000000000000", "m", request{"m", "", 0, cmdCode, false}},
		{"0XfFfFfFfFfFfFfFfF", "m", request{"m", "", ^uint64(0), cmdCode, true}},
		{"0x00000000000000001be0", "m", request{"m", "", 0x1be0, cmdCode, true}}, // past the fast path's 16 digits
		{"0x1be0g", "m", request{"m", "", 0, cmdCode, false}},
		{"CODE 0x10", "m", request{"m", "", 0x10, cmdCode, true}},
		{"DATA 0x10", "m", request{"m", "", 0x10, cmdData, true}},
		{"FRAME 0x10", "m", request{"m", "", 0x10, cmdFrame, true}},
		{"code 0x10", "m", request{"m", "", 0, cmdCode, false}},
		{"bin 0x10", "", request{"bin", "", 0x10, cmdCode, true}},
		{"CODE bin 0x10", "", request{"bin", "", 0x10, cmdCode, true}},
		{`DATA "a b" 0x10`, "", request{"a b", "", 0x10, cmdData, true}},
		{`'a b' 0x10`, "", request{"a b", "", 0x10, cmdCode, true}},
		{`'a b 0x10`, "", request{"", "", 0, cmdCode, false}},
		{"0x10", "", request{"0x10", "", 0, cmdCode, false}},
		{"", "", request{"", "", 0, cmdCode, false}},
		// Later LLVMs' BUILDID:HEX (odd lengths led by a 0, as LLVM's tryGetFromHex reads them).
		{"BUILDID:72dd 0x10", "", request{"BUILDID:72dd", "", 0x10, cmdCode, true}},
		{"DATA BUILDID: 'ABC' 0x10", "", request{"BUILDID:ABC", "", 0x10, cmdData, true}},
		{"BUILDID:xyz 0x10", "", request{"xyz", "", 0, cmdCode, false}},
		{"BUILDID: 0x10", "", request{"0x10", "", 0, cmdCode, false}},
		{"BUILDID:72dd 0x10", "m", request{"m", "", 0, cmdCode, false}},
	}
	for _, tt := range tests {
		got := parseRequest(tt.line, tt.obj, false)
		tt.want.text = tt.line
		if got != tt.want {
			t.Errorf("parseRequest(%q, %q) = %+v, want %+v", tt.line, tt.obj, got, tt.want)
		}
	}
	// As llvm-addr2line: hexadecimal, 0x optional.
	for _, tt := range []struct {
		line string
		addr uint64
		ok   bool
	}{
		{"1be0", 0x1be0, true}, {"0x1be0", 0x1be0, true}, {"0X1BE0", 0x1be0, true}, {"07340", 0x7340, true},
		{"0b101", 0xb101, true}, {"0x", 0, false}, {"0x0x10", 0, false}, {"x10", 0, false}, {"+10", 0, false},
		{"1_0", 0, false}, {"ffffffffffffffff", ^uint64(0), true}, {"10000000000000000", 0, false},
		{"CODE 10", 0x10, true}, {"DATA 0x10 junk", 0x10, true},
	} {
		got := parseRequest(tt.line, "m", true)
		if got.addr != tt.addr || got.ok != tt.ok {
			t.Errorf("parseRequest(%q, m, hex) = %#x, %v; want %#x, %v", tt.line, got.addr, got.ok, tt.addr, tt.ok)
		}
	}
}

func TestParseArgs(t *testing.T) {
	cfg, err := parseArgs([]string{"-apfi", "-e", "bin", "--no-demangle", "-demangle=true", "--inlining=false",
		"-f=short", "--adjust-vma", "0x10", "--output-style=GNU", "-s", "--relativenames", "", "0x1",
		"--print-source-context-lines=-0x3", "--verbose", "--no-untag-addresses", "--fallback-debug-path", "fb"}, false)
	if err != nil {
		t.Fatal(err)
	}
	// -f anywhere means linkage names, whatever -f= says.
	want := config{obj: "bin", functions: symbolize.NamesLinkage, demangle: true, inlines: false,
		printAddress: true, pretty: true, verbose: true, contextLines: -3, paths: pathRelative, adjustVMA: 0x10,
		style: styleGNU, fallbackDir: "fb", inputs: []string{"0x1"}}
	if fmt.Sprint(*cfg) != fmt.Sprint(want) {
		t.Errorf("got %+v\nwant %+v", *cfg, want)
	}
	// As llvm-addr2line: GNU style, no names, inlines, demangling or untagging.
	cfg, err = parseArgs([]string{"-e", "bin", "1"}, true)
	if err != nil {
		t.Fatal(err)
	}
	want = config{addr2line: true, obj: "bin", functions: symbolize.NamesNone, style: styleGNU, inputs: []string{"1"}}
	if fmt.Sprint(*cfg) != fmt.Sprint(want) {
		t.Errorf("addr2line: got %+v\nwant %+v", *cfg, want)
	}
	for _, bad := range []struct {
		args []string
		msg  string
	}{
		{[]string{"--bogus"}, "error: unknown argument '--bogus'\n"},
		{[]string{"-zaq"}, "error: unknown argument '-z'\nerror: unknown argument '-q'\n"},
		{[]string{"--verbos", "-a=1"}, "error: unknown argument '--verbos', did you mean '--verbose'?\nerror: unknown argument '-a=1'\n"},
		{[]string{"--output-styl=GNU"}, "error: unknown argument '--output-styl=GNU', did you mean '--output-style=GNU'?\n"},
		{[]string{"--bogus", "-ae"}, "error: -e: missing argument\nerror: unknown argument '--bogus'\n"},
		{[]string{"--adjust-vma=zz"}, "--adjust-vma=: expected a non-negative integer, but got 'zz'"},
		{[]string{"--print-source-context-lines", "2147483648"}, "--print-source-context-lines=: expected a non-negative integer, but got '2147483648'"},
		{[]string{"-demangle=maybe"}, "error: unknown argument '-d'\n"},
		{[]string{"--"}, "error: unknown argument '--'\n"},
	} {
		_, err := parseArgs(bad.args, false)
		if err == nil || err.Error() != bad.msg {
			t.Errorf("parseArgs(%q): %v, want %q", bad.args, err, bad.msg)
		}
	}
}

func TestIsAddr2Line(t *testing.T) {
	for name, want := range map[string]bool{
		"addr2line": true, "/usr/bin/llvm-addr2line-14": true, `C:\bin\addr2line.exe`: true, "eu-addr2line": true,
		"llvm-symbolizer": false, "/tmp/addr2line/sym": false, "x.addr2line": false, "addr2line.x.y": true, "": false,
	} {
		if got := isAddr2Line(name); got != want {
			t.Errorf("isAddr2Line(%q) = %v", name, got)
		}
	}
}

// sampleInput returns request lines for a fixture: starts, interiors and
// ends of some functions, data, bad lines and out-of-range addresses.
func sampleInput(t *testing.T, path string) []string {
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	syms, _ := f.Symbols()
	sort.Slice(syms, func(i, j int) bool { return syms[i].Value < syms[j].Value })
	var lines []string
	for i, s := range syms {
		if elf.ST_TYPE(s.Info) == elf.STT_FUNC && s.Size > 0 && i%3 == 0 {
			lines = append(lines, fmt.Sprintf("0x%x", s.Value), fmt.Sprintf("0x%x", s.Value+s.Size/2),
				fmt.Sprintf("0x%x", s.Value+s.Size-1))
		}
		if elf.ST_TYPE(s.Info) == elf.STT_OBJECT && s.Size > 0 {
			lines = append(lines, fmt.Sprintf("DATA 0x%x", s.Value+s.Size/2))
		}
	}
	return append(lines, "0", "zzz", "0x", "CODE 0x10", "DATA 0", "18446744073709551615", "1be0 trailing")
}

func runTool(t *testing.T, args []string, stdin string) ([]byte, string) {
	var out, errb bytes.Buffer
	if code := run(args, strings.NewReader(stdin), &out, &errb); code != 0 {
		t.Fatalf("run(%q) = %d: %s", args, code, errb.String())
	}
	return out.Bytes(), errb.String()
}

// compareLLVM runs llvm-symbolizer-14 and this tool with the same
// arguments and standard input, and reports the first line where their
// standard outputs differ (and their standard errors, with stderr set).
func compareLLVM(t *testing.T, llvm, what string, args []string, stdin string, stderr bool) {
	t.Helper()
	cmd := exec.Command(llvm, args...)
	cmd.Stdin = strings.NewReader(stdin)
	var wantErr bytes.Buffer
	cmd.Stderr = &wantErr
	want, err := cmd.Output()
	if err != nil {
		t.Fatalf("llvm-symbolizer-14 %q: %v\n%s", args, err, wantErr.Bytes())
	}
	got, gotErr := runTool(t, args, stdin)
	diffText(t, what, string(want), string(got))
	if stderr {
		diffText(t, what+" stderr", wantErr.String(), gotErr)
	}
}

// TestAgainstLLVMSymbolizer runs llvm-symbolizer-14 and this tool with the
// same flags and input, on standard input and as arguments, and compares
// the output bytes.
func TestAgainstLLVMSymbolizer(t *testing.T) {
	llvm, err := exec.LookPath("llvm-symbolizer-14")
	if err != nil {
		t.Skip("llvm-symbolizer-14 not installed")
	}
	flagSets := []string{
		"--no-inlines",
		"--no-inlines -a",
		"--no-inlines -a -p",
		"--no-inlines -p -s",
		"--no-inlines --relativenames -a",
		"--no-inlines -f=none -a -p",
		"--no-inlines --functions=short",
		"--no-inlines --no-demangle -a",
		"--no-inlines -demangle=false --adjust-vma=0x100 -a",
		"--no-inlines --output-style=GNU",
		"--no-inlines --output-style=GNU -a -p -s",
		"--no-inlines --output-style=JSON",
		"",
		"-i -a -p",
		"--output-style=GNU -a -p",
		"--output-style=JSON -C",
		"--output-style=JSON --relativenames",
	}
	for _, fx := range []string{"c-gcc-O2-dwarf5", "cpp-gcc-O2", "c-clang14-O2-line-tables-only"} {
		path := filepath.Join(fixtures, fx)
		lines := sampleInput(t, path)
		stdin := strings.Join(lines, "\n") + "\n"
		for _, fs := range flagSets {
			name := fx + "/" + strings.ReplaceAll(fs, " ", "_")
			t.Run(name, func(t *testing.T) {
				args := append([]string{"--obj=" + path}, strings.Fields(fs)...)
				compareLLVM(t, llvm, "stdin", args, stdin, false)
				// A few addresses as arguments too (JSON: one array).
				compareLLVM(t, llvm, "args", append(args, lines[:min(8, len(lines))]...), "", false)
			})
		}
	}
}

// TestModulesFromInput checks lines that name their module, a module that
// does not exist (reported once, on standard error or as a JSON Error) and
// quoting, against llvm-symbolizer-14.
func TestModulesFromInput(t *testing.T) {
	llvm, err := exec.LookPath("llvm-symbolizer-14")
	if err != nil {
		t.Skip("llvm-symbolizer-14 not installed")
	}
	a := filepath.Join(fixtures, "c-gcc-O2-dwarf5")
	b := filepath.Join(fixtures, "c-gcc-O0-dwarf5")
	stdin := strings.Join([]string{
		a + " 0x1240", "CODE " + b + " 0x1312", "'" + a + "' 0x1250", "DATA " + a + " 0x5d81",
		"nonexistent 0x10", "nonexistent 0x20", "DATA nonexistent 0x30", a, "0x10",
		"../README.md 0x10", "FRAME " + a + " 0x10",
	}, "\n") + "\n"
	for _, flags := range []string{"--no-inlines", "--no-inlines -a -p", "--no-inlines --output-style=JSON",
		"--output-style=GNU --no-inlines -a"} {
		t.Run(strings.ReplaceAll(flags, " ", "_"), func(t *testing.T) {
			compareLLVM(t, llvm, "stdout", strings.Fields(flags), stdin, true)
		})
	}
}

func diffText(t *testing.T, what, want, got string) {
	t.Helper()
	if want == got {
		return
	}
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < max(len(wl), len(gl)); i++ {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			t.Errorf("%s: first difference at line %d:\nllvm-symbolizer-14: %q\nours:               %q", what, i+1, w, g)
			return
		}
	}
}

// TestCoprocess writes one request at a time into a pipe that stays open
// and expects each answer before the next request is sent.
func TestCoprocess(t *testing.T) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan int)
	go func() {
		done <- run([]string{"--obj=" + filepath.Join(fixtures, "c-gcc-O2-dwarf5"), "--no-inlines", "-a"},
			inR, outW, io.Discard)
		outW.Close()
	}()
	answers := bufio.NewReader(outR)
	for _, addr := range []string{"0x1240", "0x1be0", "zzz", "0x1250"} {
		if _, err := io.WriteString(inW, addr+"\n"); err != nil {
			t.Fatal(err)
		}
		got := make(chan string, 1)
		go func() {
			var b strings.Builder
			for {
				l, err := answers.ReadString('\n')
				b.WriteString(l)
				// An answer ends with an empty line; an echoed bad line is one line.
				if err != nil || l == "\n" || (addr == "zzz" && l == "zzz\n") {
					got <- b.String()
					return
				}
			}
		}()
		select {
		case s := <-got:
			if !strings.HasPrefix(s, addr) && !strings.HasPrefix(s, "0x") {
				t.Errorf("answer to %s: %q", addr, s)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("no answer to %s while standard input stays open", addr)
		}
	}
	inW.Close()
	if code := <-done; code != 0 {
		t.Errorf("exit code %d", code)
	}
}

// countingWriter counts Write calls.
type countingWriter struct {
	n int
	bytes.Buffer
}

func (w *countingWriter) Write(p []byte) (int, error) { w.n++; return w.Buffer.Write(p) }

// TestBatchedWrites checks that input already queued is answered with a
// few large writes, not one per address.
func TestBatchedWrites(t *testing.T) {
	var in strings.Builder
	const n = 2000
	for i := range n {
		fmt.Fprintf(&in, "0x%x\n", 0x1240+i)
	}
	var out countingWriter
	if code := run([]string{"--obj=" + filepath.Join(fixtures, "c-gcc-O2-dwarf5"), "--no-inlines"},
		strings.NewReader(in.String()), &out, io.Discard); code != 0 {
		t.Fatalf("exit code %d", code)
	}
	if got := strings.Count(out.String(), "\n\n"); got != n {
		t.Errorf("%d answers, want %d", got, n)
	}
	if out.n > 10 {
		t.Errorf("%d writes for %d queued addresses", out.n, n)
	}
	t.Logf("%d addresses, %d bytes, %d writes", n, out.Len(), out.n)
}

func TestJSONString(t *testing.T) {
	var out bytes.Buffer
	s := newSession(&config{}, nil, &out, io.Discard)
	s.jsonString("a\"b\\c\td\x01é\xff<>&")
	s.out.Flush()
	if want := `"a\"b\\c\td\u0001é` + "\uFFFD" + `<>&"`; out.String() != want {
		t.Errorf("got %s, want %s", out.String(), want)
	}
}

// FuzzParseRequest feeds arbitrary request lines, with and without --obj:
// nothing may panic, the request keeps its text and --obj's module, and
// the fast path for bare hexadecimal lines answers as the full parse does.
func FuzzParseRequest(f *testing.F) {
	for _, l := range []string{"0x1be0", "  0x1be0  junk", "07340", "0b101", "CODE 0x10", "DATA 0x10",
		"FRAME 0x10", `DATA "a b" 0x10`, `'a b' 0x10`, `'a b 0x10`, "bin 0x10", "18446744073709551615", "",
		"0xffffffffffffffff", "0X1ffffffffffffffff", "0x00000000000000001", "0xABCdef", "0x12 "} {
		f.Add(l, "")
		f.Add(l, "m")
	}
	f.Fuzz(func(t *testing.T, line, obj string) {
		hex := len(line)%2 == 0
		r := parseRequest(line, obj, hex)
		if r.text != line || (obj != "" && r.module != obj) {
			t.Errorf("parseRequest(%q, %q) = %+v", line, obj, r)
		}
		if full := parseFull(line, obj, hex); r != full {
			t.Errorf("parseRequest(%q, %q, %v) = %+v, the full parse %+v", line, obj, hex, r, full)
		}
	})
}

// FuzzJSONString checks jsonString against encoding/json: the output is
// valid JSON and, for valid UTF-8, decodes to the input.
func FuzzJSONString(f *testing.F) {
	for _, s := range []string{"", "main", "a\"b\\c\td\x01é\xff<>&", "\x7f\u2028", "file.c\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, str string) {
		var out bytes.Buffer
		s := newSession(&config{}, nil, &out, io.Discard)
		s.jsonString(str)
		s.out.Flush()
		var back string
		if err := json.Unmarshal(out.Bytes(), &back); err != nil {
			t.Fatalf("jsonString(%q) = %s: %v", str, out.Bytes(), err)
		}
		if utf8.ValidString(str) && back != str {
			t.Errorf("jsonString(%q) = %s, decodes to %q", str, out.Bytes(), back)
		}
	})
}

// TestDebugFileSymbols checks --debug-file-symbols: by default a stripped
// binary is named from its own (absent) .symtab, as llvm-symbolizer-14
// does, so _start, which has no DWARF, is "??"; with the flag the debug
// file's .symtab names it.
func TestDebugFileSymbols(t *testing.T) {
	bin := filepath.Join(fixtures, "c-gcc-O2-stripped")
	for _, c := range []struct {
		flags []string
		want  string
	}{
		{nil, "??\n??:0:0\n\n"},
		{[]string{"--debug-file-symbols"}, "_start\n??:0:0\n\n"},
	} {
		var out, errb bytes.Buffer
		args := append([]string{"--obj=" + bin}, c.flags...)
		if code := run(append(args, "0x1328"), nil, &out, &errb); code != 0 {
			t.Fatalf("%v: exit %d: %s", c.flags, code, errb.String())
		}
		if out.String() != c.want {
			t.Errorf("%v: got %q, want %q", c.flags, out.String(), c.want)
		}
	}
}
