package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// wantTree is the call tree of workload.cpp, as the seed's LD_PRELOAD
// tracer lists the same program's calls, plus positions: each function's
// first line (gcc puts an implicit destructor on its class's line, 18) and
// the line of the call in its caller. D::~D() appears twice, as the
// deleting destructor (D0, the virtual call of delete) and the complete
// one it calls (D1); both demangle to the same name.
const wantTree = `ftrace_workload at workload.cpp:27 from trace.c:38
  f1(int) at workload.cpp:24 from workload.cpp:28
  f2(int) at workload.cpp:25 from workload.cpp:29
  D::D() at workload.cpp:20 from workload.cpp:30
    B::B() at workload.cpp:13 from workload.cpp:20
  D::f() at workload.cpp:21 from workload.cpp:31
  D::~D() at workload.cpp:18 from workload.cpp:32
    D::~D() at workload.cpp:18 from workload.cpp:18
      B::~B() at workload.cpp:14 from workload.cpp:18
`

// need skips t with the reason, or fails it when CI=true.
func need(t *testing.T, format string, args ...any) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf(format+" (CI=true: a missing tool fails the test)", args...)
	}
	t.Skipf(format, args...)
}

// buildFtrace builds this command with cgo and -finstrument-functions (and
// -race when the test runs under it) and returns the executable. The test
// binary itself cannot be traced: go test links it with -s, which strips
// the C++ code's DWARF under cgo's external linking.
func buildFtrace(t *testing.T) string {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skipf("ftrace reads /proc/self/maps: linux only, not %s", runtime.GOOS)
	}
	goTool, err := exec.LookPath("go") // go test puts its own go first on PATH
	if err != nil {
		t.Skip(err)
	}
	if out, err := exec.Command(goTool, "env", "CGO_ENABLED").Output(); err != nil || strings.TrimSpace(string(out)) != "1" {
		need(t, "cgo is disabled (CGO_ENABLED=%s): ftrace's workload is C++", strings.TrimSpace(string(out)))
	}
	for _, cc := range []string{"gcc", "g++"} {
		if _, err := exec.LookPath(cc); err != nil {
			need(t, "%s not found (apt-get install g++)", cc)
		}
	}
	exe := filepath.Join(t.TempDir(), "ftrace")
	args := []string{"build", "-o", exe}
	if raceEnabled {
		args = append(args, "-race")
	}
	cmd := exec.Command(goTool, append(args, ".")...)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=1", "CC=gcc", "CXX=g++", "CGO_CXXFLAGS=-finstrument-functions")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return exe
}

// TestTree runs the traced workload and checks the whole tree: names
// demangled from the process's own symbols, positions from its DWARF.
func TestTree(t *testing.T) {
	exe := buildFtrace(t)
	out, err := exec.Command(exe).CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", exe, err, out)
	}
	if diff := cmp.Diff(wantTree, string(out)); diff != "" {
		t.Errorf("call tree (-want +got):\n%s", diff)
	}

	// -full: the same tree with the paths DWARF holds, this directory's.
	out, err = exec.Command(exe, "-full").CombinedOutput()
	if err != nil {
		t.Fatalf("%s -full: %v\n%s", exe, err, out)
	}
	dir, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	want := strings.NewReplacer(" workload.cpp:", " "+filepath.Join(dir, "workload.cpp")+":",
		" trace.c:", " "+filepath.Join(dir, "trace.c")+":").Replace(wantTree)
	if diff := cmp.Diff(want, string(out)); diff != "" {
		t.Errorf("call tree with -full (-want +got):\n%s", diff)
	}
}

// fakeNamer names addresses from fixed tables.
type fakeNamer map[uint64]place

func (f fakeNamer) function(fn uint64) place  { return f[fn] }
func (f fakeNamer) callSite(ret uint64) place { return f[ret-1] }

// TestPrintTree covers what a real trace of workload.cpp does not: exits
// without their entry, addresses nothing names, a full buffer.
func TestPrintTree(t *testing.T) {
	n := fakeNamer{
		0x100: {function: "outer()", file: "/src/a.cpp", line: 3},
		0x200: {function: "inner(int)", file: "/src/b.cpp", line: 7},
		0x300: {module: "/usr/lib/libx.so", offset: 0x1234},
		0x1ff: {file: "/src/a.cpp", line: 4},
	}
	evs := []event{
		{fn: 0x100, site: 0x50},
		{fn: 0x200, site: 0x200},
		{fn: 0x300, site: 0x200},
		{exit: true, fn: 0x300},
		{exit: true, fn: 0x999}, // not the innermost open call
		{exit: true, fn: 0x200},
		{fn: 0x400, site: 0x200}, // nothing names it
		{exit: true, fn: 0x400},
		{exit: true, fn: 0x100},
		{exit: true, fn: 0x100}, // nothing is open
	}
	var b strings.Builder
	if err := printTree(&b, evs, n, false, 3); err != nil {
		t.Fatal(err)
	}
	want := `outer() at a.cpp:3 from ??:0
  inner(int) at b.cpp:7 from a.cpp:4
    libx.so+0x1234 at ??:0 from a.cpp:4
    (exit without entry: 0x999)
  0x400 at ??:0 from a.cpp:4
(exit without entry: outer())
(3 events dropped: the trace buffer was full)
`
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
