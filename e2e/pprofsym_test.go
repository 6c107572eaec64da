package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/pprof/profile"
)

var (
	pprofsymOnce sync.Once
	pprofsymBin  string
	pprofsymErr  error
)

// requirePprofsym builds examples/pprofsym, once per test binary.
func requirePprofsym(t *testing.T) string {
	t.Helper()
	requirePlatform(t)
	pprofsymOnce.Do(func() {
		goTool, err := exec.LookPath("go") // go test puts its own go first on PATH
		if err != nil {
			pprofsymErr = err
			return
		}
		pprofsymBin = filepath.Join(workDir, "pprofsym")
		cmd := exec.Command(goTool, "build", "-o", pprofsymBin, "github.com/symbolize-go/symbolize/examples/pprofsym")
		if out, err := cmd.CombinedOutput(); err != nil {
			pprofsymErr = fmt.Errorf("building examples/pprofsym: %v\n%s", err, out)
		}
	})
	if pprofsymErr != nil {
		t.Fatal(pprofsymErr)
	}
	return pprofsymBin
}

// TestPprofsym symbolizes the unsymbolized profiles of TestPprof (a C
// program, a C++ program and one that runs in libc, with libc's debug
// file) with examples/pprofsym, and compares `pprof -symbolize=none
// -traces` on its output with the standalone pprof's own local
// symbolization of the raw profile driving llvm-symbolizer-14
// (-symbolize=local -tools=DIR -traces), in each of TestPprof's views.
//
// With $SYMBOLIZE_PPROFSYM_SEEDS set to a directory, the raw profiles are
// also copied there as raw-NAME.pb.gz (the seeds of pprofsym's fuzz
// target, pprofsym/testdata, were made so).
func TestPprofsym(t *testing.T) {
	pprof := requirePprof(t)
	requireLibcDebug(t)
	syms := requireSymbolizers(t)
	tool := requirePprofsym(t)
	for _, p := range profPrograms {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			raw := rawProfile(t, p)
			if dir := os.Getenv("SYMBOLIZE_PPROFSYM_SEEDS"); dir != "" {
				data, err := os.ReadFile(raw)
				if err == nil {
					err = os.WriteFile(filepath.Join(dir, "raw-"+strings.ReplaceAll(p.name, "+", "p")+".pb.gz"), data, 0o644)
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			ours := filepath.Join(filepath.Dir(raw), "ours.pb.gz")
			if _, stderr := run(t, nil, tool, "-o", ours, raw); stderr != "" {
				t.Errorf("pprofsym printed to standard error:\n%s", stderr)
			}
			checkSymbolized(t, ours)
			if p.name == "c" {
				t.Run("bad", func(t *testing.T) { testPprofsymBad(t, pprof, syms.llvm, tool, raw) })
			}
			for _, v := range pprofViews {
				t.Run(v.name, func(t *testing.T) {
					llvm := runPprof(t, pprof, syms.llvm, raw, v.flags)
					got := runPprofNone(t, pprof, ours, v.flags)
					if v.name == "functions" {
						checkFrames(t, "llvm", llvm, p.want)
						checkFrames(t, "pprofsym", got, p.want)
					}
					if d := diffLines(llvm, got); d != "" {
						t.Errorf("pprof -traces %s differs (-llvm-symbolizer-14 through pprof +pprofsym):\n%s", strings.Join(v.flags, " "), d)
					}
				})
			}
		})
	}
}

// checkSymbolized checks that every location of the profile in file has
// lines and every mapping with locations the flags pprof sets, which -traces does not
// print.
func checkSymbolized(t *testing.T, file string) {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p, err := profile.Parse(f)
	if err != nil {
		t.Fatal(err)
	}
	used := make(map[*profile.Mapping]bool)
	for _, l := range p.Location {
		used[l.Mapping] = true
		if len(l.Line) == 0 {
			t.Errorf("location %d at %#x (%s) has no lines", l.ID, l.Address, l.Mapping.File)
		}
	}
	for _, m := range p.Mapping {
		if used[m] && (!m.HasFunctions || !m.HasInlineFrames) {
			t.Errorf("mapping %s: HasFunctions %v, HasInlineFrames %v", m.File, m.HasFunctions, m.HasInlineFrames)
		}
	}
}

// runPprofNone runs pprof -symbolize=none -traces on file and returns its
// standard output, checking that it prints nothing to standard error.
func runPprofNone(t *testing.T, pprof, file string, flags []string) string {
	t.Helper()
	home := t.TempDir()
	env := environ("HOME="+home, "PPROF_TMPDIR="+home, "PPROF_BINARY_PATH="+home)
	args := append([]string{"-symbolize=none", "-traces"}, flags...)
	stdout, stderr := run(t, env, pprof, append(args, file)...)
	if stderr != "" {
		t.Errorf("pprof %s printed to standard error:\n%s", strings.Join(args, " "), stderr)
	}
	return stdout
}

// testPprofsymBad adds to the raw profile what cannot be symbolized (a
// mapping of a file that does not exist, a [vdso] mapping, a location in
// no mapping), each in a sample of its own, and checks that pprofsym
// reports each and that pprof's reports are still the same: the rest is
// symbolized, and those locations print as their addresses in both.
func testPprofsymBad(t *testing.T, pprof, llvmDir, tool, raw string) {
	f, err := os.Open(raw)
	if err != nil {
		t.Fatal(err)
	}
	p, err := profile.Parse(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Dir(raw)
	gone := &profile.Mapping{ID: uint64(len(p.Mapping) + 1), Start: 0x10000000, Limit: 0x10001000, File: filepath.Join(dir, "gone.so")}
	vdso := &profile.Mapping{ID: uint64(len(p.Mapping) + 2), Start: 0x20000000, Limit: 0x20001000, File: "[vdso]"}
	p.Mapping = append(p.Mapping, gone, vdso)
	for i, m := range []*profile.Mapping{gone, vdso, nil} {
		l := &profile.Location{ID: uint64(len(p.Location) + 1), Mapping: m, Address: 0x10000010 + uint64(i)<<28}
		p.Location = append(p.Location, l)
		p.Sample = append(p.Sample, &profile.Sample{Location: []*profile.Location{l, p.Sample[0].Location[0]}, Value: []int64{1}})
	}
	bad := filepath.Join(dir, "bad.pb.gz")
	writeProfile(t, p, bad)
	ours := filepath.Join(dir, "bad-ours.pb.gz")
	_, stderr := run(t, nil, tool, "-o", ours, bad)
	for _, want := range []string{"gone.so", "[vdso]", fmt.Sprintf("location %d at 0x30000010: location is in no mapping", len(p.Location))} {
		if !strings.Contains(stderr, want) {
			t.Errorf("pprofsym's errors do not name %q:\n%s", want, stderr)
		}
	}
	if n := strings.Count(stderr, "\n"); n != 3 {
		t.Errorf("pprofsym printed %d errors, want 3:\n%s", n, stderr)
	}
	home := t.TempDir()
	env := environ("HOME="+home, "PPROF_TMPDIR="+home, "PPROF_BINARY_PATH="+home)
	for _, v := range pprofViews {
		llvm, llvmErr := run(t, env, pprof, append([]string{"-symbolize=local", "-tools=" + llvmDir, "-traces"}, append(v.flags, bad)...)...)
		if !strings.Contains(llvmErr, "gone.so") {
			t.Errorf("pprof does not report gone.so:\n%s", llvmErr)
		}
		got := runPprofNone(t, pprof, ours, v.flags)
		if v.name == "addresses" && !strings.Contains(got, "0000000010000010 [gone.so]") {
			t.Errorf("-traces -addresses does not show the unsymbolized address 0x10000010 of gone.so:\n%s", got)
		}
		if d := diffLines(llvm, got); d != "" {
			t.Errorf("%s: pprof -traces %s differs (-llvm-symbolizer-14 through pprof +pprofsym):\n%s", v.name, strings.Join(v.flags, " "), d)
		}
	}
}
