// Package cgoproc tests symbolize.Process on a live process with C, C++
// and Go code: testdata/prog is a cgo program that captures addresses of
// its own (return addresses recorded in C++ functions, runtime.Callers in
// Go, a function of a library it opens with dlopen after its Process
// exists, one of a library deleted after it was opened, a vDSO function)
// and prints what its Process answered; the tests here judge the answers
// against the source, runtime.CallersFrames and llvm-symbolizer-14.
//
// The program is built with go build at test time (go test strips the
// DWARF of cgo's externally linked test binaries: it links with -s), with
// gcc and g++, and under -race when the test runs under it; the library
// is built with gcc. The tests skip, saying why, when gcc, g++, cgo or
// llvm-symbolizer-14 is missing; under CI=true a missing tool fails the
// test instead. They run on linux/amd64 only (the vDSO's function names
// are x86-64's).
package cgoproc

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// The types prog prints (testdata/prog/main.go).
type report struct {
	Exe      string
	CXX      []answer
	Go       []goPC
	GoSweep  []goPC
	DL       answer
	Conc     []answer
	Gone     answer
	Junk     answer
	VDSO     answer
	VDSOSym  string
	VDSOAddr addrInfo
	AddrCtor addrInfo
	Batch    []answer
}

type goPC struct {
	Ours      answer
	Runtime   []frame
	NextEntry bool
}

type answer struct {
	PC, Addr, Offset uint64
	Mapping          string
	Frames           []frame
	Err              string
	ErrDeleted       bool
	ErrNotMapped     bool
	ModuleError      bool
}

type frame struct {
	Function, File string
	Line, Column   uint32
	Inlined        bool
}

type addrInfo struct {
	Mapping, Path, Symbol, Name string
	Base, Bias, SymbolAddr      uint64
	Err                         string
}

// runTimeout bounds each command the tests run.
const runTimeout = 5 * time.Minute

// need skips t with the reason, or fails it when CI=true.
func need(t *testing.T, format string, args ...any) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf(format+" (CI=true: a missing tool fails the test)", args...)
	}
	t.Skipf(format, args...)
}

// A run is one run of prog, shared by the tests.
type run struct {
	dir    string // holds prog, the libraries and the vDSO's bytes
	rep    report
	dl     string // the library opened after OpenProcess
	conc   string // a copy looked up from 8 goroutines at once
	gone   string // the one deleted before its lookup
	junk   string // a file that is no object file
	vdso   string // the vDSO's bytes
	err    error
	skip   string
	skipCI bool // skip is a missing tool: fail under CI=true
}

var (
	runOnce sync.Once
	theRun  run
)

func TestMain(m *testing.M) {
	code := m.Run()
	if theRun.dir != "" {
		os.RemoveAll(theRun.dir)
	}
	os.Exit(code)
}

// progRun builds prog and the library and runs prog, once per test binary.
func progRun(t *testing.T) *run {
	t.Helper()
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		t.Skipf("cgoproc runs on linux/amd64, not %s/%s", runtime.GOOS, runtime.GOARCH)
	}
	runOnce.Do(func() { theRun.do() })
	switch {
	case theRun.skip != "" && theRun.skipCI:
		need(t, "%s", theRun.skip)
	case theRun.skip != "":
		t.Skip(theRun.skip)
	case theRun.err != nil:
		t.Fatal(theRun.err)
	}
	return &theRun
}

func (r *run) do() {
	goTool, err := exec.LookPath("go") // go test puts its own go first on PATH
	if err != nil {
		r.skip = err.Error()
		return
	}
	if out, err := exec.Command(goTool, "env", "CGO_ENABLED").Output(); err != nil || strings.TrimSpace(string(out)) != "1" {
		r.skip, r.skipCI = fmt.Sprintf("cgo is disabled (go env CGO_ENABLED: %q, %v)", bytes.TrimSpace(out), err), true
		return
	}
	for _, cc := range []string{"gcc", "g++"} {
		if _, err := exec.LookPath(cc); err != nil {
			r.skip, r.skipCI = cc+" not found (apt-get install g++)", true
			return
		}
	}
	if r.dir, r.err = os.MkdirTemp("", "symbolize-cgoproc-"); r.err != nil {
		return
	}
	r.dl = filepath.Join(r.dir, "libdl.so")
	r.conc = filepath.Join(r.dir, "libconc.so")
	r.gone = filepath.Join(r.dir, "libgone.so")
	r.vdso = filepath.Join(r.dir, "vdso.so")
	r.junk = filepath.Join(r.dir, "junk.txt")
	if r.err = os.WriteFile(r.junk, bytes.Repeat([]byte("not an object file\n"), 300), 0o644); r.err != nil {
		return
	}
	prog := filepath.Join(r.dir, "prog")
	if r.err = command("gcc", "-g", "-O1", "-shared", "-fPIC", "-o", r.dl, "testdata/dl/dl.c"); r.err != nil {
		return
	}
	lib, err := os.ReadFile(r.dl)
	if err != nil {
		r.err = err
		return
	}
	for _, p := range []string{r.conc, r.gone} {
		if r.err = os.WriteFile(p, lib, 0o755); r.err != nil {
			return
		}
	}
	args := []string{"build", "-o", prog}
	if raceEnabled {
		args = append(args, "-race")
	}
	if r.err = command(goTool, append(args, "./testdata/prog")...); r.err != nil {
		return
	}
	cmd := exec.Command(prog, "-dl", r.dl, "-conc", r.conc, "-gone", r.gone, "-junk", r.junk, "-vdso-out", r.vdso)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := runCmd(cmd)
	if err != nil {
		r.err = fmt.Errorf("%s: %v\n%s", prog, err, stderr.Bytes())
		return
	}
	if err := json.Unmarshal(out, &r.rep); err != nil {
		r.err = fmt.Errorf("%s printed what is not its report: %v\n%s", prog, err, out)
	}
}

// command runs name with args, with cgo on and gcc as the compilers.
func command(name string, args ...string) error {
	cmd := exec.Command(name, args...)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=1", "CC=gcc", "CXX=g++")
	out, err := runCmd(cmd)
	if err != nil {
		return fmt.Errorf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return nil
}

// runCmd runs cmd within runTimeout and returns its standard output (and,
// unless cmd.Stderr is set, its standard error).
func runCmd(cmd *exec.Cmd) ([]byte, error) {
	var out bytes.Buffer
	cmd.Stdout = &out
	if cmd.Stderr == nil {
		cmd.Stderr = &out
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	timer := time.AfterFunc(runTimeout, func() { cmd.Process.Kill() })
	defer timer.Stop()
	err := cmd.Wait()
	return out.Bytes(), err
}

// markers returns the line of each "// @NAME" comment in the file.
func markers(t *testing.T, path string) map[string]uint32 {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := map[string]uint32{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := uint32(1); sc.Scan(); n++ {
		if _, name, ok := strings.Cut(sc.Text(), "// @"); ok {
			lines[strings.TrimSpace(name)] = n
		}
	}
	return lines
}

// absPath is testdata/REL as DWARF names it: the absolute path cgo
// compiled.
func absPath(t *testing.T, rel string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("testdata", rel))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// The captures of testdata/prog/code.cpp, by ID (prog.h's enum): the
// demangled names llvm-symbolizer prints, innermost first, and the
// markers of their lines.
var cxxWant = []struct {
	id     string
	frames []frame // Function and Line (as marker index into lines)
	lines  []string
}{
	{"ctor", []frame{{Function: "shapes::Shape::Shape(int)"}}, []string{"ctor"}},
	{"dtor", []frame{{Function: "shapes::Shape::~Shape()"}}, []string{"dtor"}},
	{"virtual", []frame{{Function: "shapes::Square::area(int) const"}}, []string{"virtual"}},
	{"operator", []frame{{Function: "shapes::Shape::operator+=(int)"}}, []string{"operator"}},
	{"template", []frame{{Function: "int shapes::twice<int>(int)"}}, []string{"template"}},
	{"anon", []frame{{Function: "(anonymous namespace)::hidden(int)"}}, []string{"anon"}},
	{"inline", []frame{{Function: "shapes::leaf(int)", Inlined: true}, {Function: "shapes::inline_caller(int)"}}, []string{"inline_leaf", "inline_call"}},
	{"extern_c", []frame{{Function: "cxx_run"}}, []string{"extern_c"}},
}

// TestCXX checks the C++ captures: demangled names of constructors,
// destructors, virtual and const methods, operators, templates, anonymous
// namespaces, an inlined call; lines from the markers; the mapping is the
// program's.
func TestCXX(t *testing.T) {
	r := progRun(t)
	src := absPath(t, "prog/code.cpp")
	lines := markers(t, src)
	if len(r.rep.CXX) != len(cxxWant) {
		t.Fatalf("%d C++ captures, want %d", len(r.rep.CXX), len(cxxWant))
	}
	for i, w := range cxxWant {
		a := r.rep.CXX[i]
		var want []frame
		for j, f := range w.frames {
			line, ok := lines[w.lines[j]]
			if !ok {
				t.Fatalf("code.cpp has no marker @%s", w.lines[j])
			}
			want = append(want, frame{Function: f.Function, File: src, Line: line, Inlined: f.Inlined})
		}
		got := withoutColumns(a.Frames)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("capture %s at %#x: frames (-want +got):\n%s", w.id, a.PC, diff)
		}
		if a.Mapping != r.rep.Exe || a.Err != "" {
			t.Errorf("capture %s at %#x: mapping %q, error %q; want %q and none", w.id, a.PC, a.Mapping, a.Err, r.rep.Exe)
		}
	}
}

func withoutColumns(fs []frame) []frame {
	out := make([]frame, len(fs))
	for i, f := range fs {
		f.Column = 0
		out[i] = f
	}
	return out
}

// TestAddr checks Process.Addr, dladdr's answer, at the constructor's
// capture: the program's path, its symbol (gcc's C1 and C2 constructors
// share an address) demangled, and the symbol's start before the address.
func TestAddr(t *testing.T) {
	r := progRun(t)
	a, pc := r.rep.AddrCtor, r.rep.CXX[0].PC
	if a.Err != "" || a.Path != r.rep.Exe || a.Mapping != r.rep.Exe {
		t.Errorf("Addr(%#x): path %q, mapping %q, error %q; want %q and none", pc, a.Path, a.Mapping, a.Err, r.rep.Exe)
	}
	if a.Symbol != "_ZN6shapes5ShapeC1Ei" && a.Symbol != "_ZN6shapes5ShapeC2Ei" || a.Name != "shapes::Shape::Shape(int)" {
		t.Errorf("Addr(%#x): symbol %q, name %q; want _ZN6shapes5ShapeC[12]Ei, shapes::Shape::Shape(int)", pc, a.Symbol, a.Name)
	}
	if a.SymbolAddr > pc || pc-a.SymbolAddr > 64 {
		t.Errorf("Addr(%#x): symbol at %#x, want one within 64 bytes before", pc, a.SymbolAddr)
	}
}

// TestGo compares the frames of every PC runtime.Callers gave in prog
// (looked up at pc-1, as CallersFrames looks them up) with
// runtime.CallersFrames': functions, files, lines, and the inlined calls
// (gc inlines goMid into goOuter).
func TestGo(t *testing.T) {
	r := progRun(t)
	sawInlined, sawLeaf := false, false
	abi0 := 0
	for _, g := range r.rep.Go {
		if sameAsRuntime(t, r, g) == asAssembly {
			abi0++
		}
		if len(g.Runtime) > 1 {
			sawInlined = true
		}
		if len(g.Runtime) > 0 && g.Runtime[0].Function == "main.goLeaf" {
			sawLeaf = true
		}
	}
	if abi0 != 1 {
		t.Errorf("%d frames named NAME.abi0 where the runtime says NAME, want 1 (runtime.goexit)", abi0)
	}
	if !sawInlined || !sawLeaf {
		t.Errorf("no PC in main.goLeaf (%v) or none with inlined frames (%v)", sawLeaf, sawInlined)
	}
	t.Logf("%d Go PCs", len(r.rep.Go))
}

// TestGoSweep compares every byte of goOuter (which holds goMid inlined)
// and goLeaf with runtime.CallersFrames, as TestGo does. The exception:
// alignment padding past a function's code, which its DWARF and ELF
// symbol do not cover and the runtime's tables do (at line 0, or for the
// last byte, as the next function: CallersFrames finds the function of
// the return address it is given, pc+1, before it looks up pc).
func TestGoSweep(t *testing.T) {
	r := progRun(t)
	var inlined, padding int
	for _, g := range r.rep.GoSweep {
		none := len(g.Ours.Frames) == 1 && g.Ours.Frames[0].Function == "" && g.Ours.Frames[0].Line == 0
		if none && len(g.Runtime) == 1 && (g.Runtime[0].Line == 0 || g.NextEntry) {
			padding++
			continue
		}
		sameAsRuntime(t, r, g)
		if len(g.Runtime) > 1 {
			inlined++
		}
	}
	if padding == 0 || inlined == 0 {
		t.Errorf("of %d addresses, %d with inlined frames and %d of padding: want some of each", len(r.rep.GoSweep), inlined, padding)
	}
	t.Logf("%d addresses, %d with inlined frames, %d of padding", len(r.rep.GoSweep), inlined, padding)
}

type sameHow int

const (
	asIs sameHow = iota
	asAssembly
	different
)

// sameAsRuntime reports whether g's frames are the runtime's, with one
// exception: an assembly function's ELF symbol, which names the outermost
// frame (as llvm-symbolizer names it), is the ABI0 symbol NAME.abi0 where
// the runtime prints NAME.
func sameAsRuntime(t *testing.T, r *run, g goPC) sameHow {
	t.Helper()
	if g.Ours.Err != "" || g.Ours.Mapping != r.rep.Exe {
		t.Errorf("pc %#x: mapping %q, error %q", g.Ours.PC, g.Ours.Mapping, g.Ours.Err)
	}
	how := asIs
	got := withoutColumns(g.Ours.Frames)
	if n := len(got); n > 0 && n == len(g.Runtime) && got[n-1].Function == g.Runtime[n-1].Function+".abi0" {
		how = asAssembly
		got[n-1].Function = g.Runtime[n-1].Function
	}
	want := make([]frame, len(g.Runtime))
	for i, f := range g.Runtime {
		want[i] = frame{Function: f.Function, File: f.File, Line: f.Line, Inlined: i < len(g.Runtime)-1}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("pc %#x: frames (-runtime +ours):\n%s", g.Ours.PC, diff)
		return different
	}
	return how
}

// TestDlopen checks the function of a library opened after the Process
// read the maps: the lookup missed, read them again and found it; and of
// another copy looked up by 8 goroutines at once.
func TestDlopen(t *testing.T) {
	r := progRun(t)
	src := absPath(t, "dl/dl.c")
	want := []frame{{Function: "dl_entry", File: src, Line: markers(t, src)["dl"]}}
	check := func(a answer, lib string) {
		t.Helper()
		if diff := cmp.Diff(want, withoutColumns(a.Frames)); diff != "" {
			t.Errorf("%#x: frames (-want +got):\n%s", a.PC, diff)
		}
		if a.Mapping != lib || a.Err != "" {
			t.Errorf("%#x: mapping %q, error %q; want %q and none", a.PC, a.Mapping, a.Err, lib)
		}
	}
	check(r.rep.DL, r.dl)
	// The copy 8 goroutines looked up at once, each missing the maps it
	// had: all find it, with the same answer.
	if len(r.rep.Conc) != 8 {
		t.Fatalf("%d concurrent answers, want 8", len(r.rep.Conc))
	}
	for _, a := range r.rep.Conc {
		check(a, r.conc)
		if a.Offset != r.rep.DL.Offset || a.Addr != r.rep.DL.Addr {
			t.Errorf("%#x: offset %#x, address %#x; want the other copy's, %#x and %#x", a.PC, a.Offset, a.Addr, r.rep.DL.Offset, r.rep.DL.Addr)
		}
	}
}

// TestDeleted checks the address of a library deleted after it was
// opened: the mapping (the kernel's path, " (deleted)" appended) and the
// file offset, the same as the other copy's, with a *ModuleError of
// ErrDeleted and no frame named; the batch answers every other address.
func TestDeleted(t *testing.T) {
	r := progRun(t)
	a := r.rep.Gone
	if a.Mapping != r.gone+" (deleted)" {
		t.Errorf("%#x: mapping %q, want %q", a.PC, a.Mapping, r.gone+" (deleted)")
	}
	if !a.ErrDeleted || !a.ModuleError {
		t.Errorf("%#x: error %q: is ErrDeleted %v, a *ModuleError %v; want both", a.PC, a.Err, a.ErrDeleted, a.ModuleError)
	}
	if a.Offset == 0 || a.Offset != r.rep.DL.Offset {
		t.Errorf("%#x: offset %#x, want the other copy's, %#x", a.PC, a.Offset, r.rep.DL.Offset)
	}
	if len(a.Frames) != 1 || a.Frames[0] != (frame{}) {
		t.Errorf("%#x: frames %+v, want one that names nothing", a.PC, a.Frames)
	}
}

// TestNotObject checks an address of a mapped file that is no object
// file: its mapping and offset, and a *ModuleError.
func TestNotObject(t *testing.T) {
	r := progRun(t)
	a := r.rep.Junk
	if a.Mapping != r.junk || a.Offset != 100 || !a.ModuleError || a.ErrDeleted {
		t.Errorf("%#x: mapping %q, offset %d, error %q (a *ModuleError: %v); want %q, 100, a *ModuleError", a.PC, a.Mapping, a.Offset, a.Err, a.ModuleError, r.junk)
	}
	if len(a.Frames) != 1 || a.Frames[0] != (frame{}) {
		t.Errorf("%#x: frames %+v, want one that names nothing", a.PC, a.Frames)
	}
}

// TestVDSO checks a vDSO function, read from the process's memory.
func TestVDSO(t *testing.T) {
	r := progRun(t)
	a, sym := r.rep.VDSO, r.rep.VDSOSym
	if !strings.HasPrefix(sym, "__vdso_") {
		t.Fatalf("prog looked up %q, not a __vdso_ function", sym)
	}
	if len(a.Frames) != 1 || a.Frames[0].Function != sym || a.Mapping != "[vdso]" || a.Err != "" {
		t.Errorf("%#x: mapping %q, frames %+v, error %q; want [vdso], %s, none", a.PC, a.Mapping, a.Frames, a.Err, sym)
	}
	ai := r.rep.VDSOAddr
	if ai.Symbol != sym || ai.SymbolAddr != a.PC || ai.Path != "[vdso]" || ai.Err != "" {
		t.Errorf("Addr(%#x) = %+v, want symbol %s at %#x in [vdso]", a.PC, ai, sym, a.PC)
	}
}

// TestBatch checks that Batch answers every address as Lookup did, the
// deleted library's, the data file's and an unmapped one with their
// errors alone (and no
// frame, where Lookup gives one that names nothing).
func TestBatch(t *testing.T) {
	r := progRun(t)
	var want []answer
	want = append(want, r.rep.CXX...)
	for _, g := range r.rep.Go {
		want = append(want, g.Ours)
	}
	want = append(want, r.rep.DL, r.rep.Gone, r.rep.Junk, r.rep.VDSO)
	if len(r.rep.Batch) != len(want)+1 {
		t.Fatalf("batch of %d answers, want %d", len(r.rep.Batch), len(want)+1)
	}
	for i, w := range want {
		if diff := cmp.Diff(w, r.rep.Batch[i]); diff != "" {
			t.Errorf("batch answer %d (%#x) differs from Lookup's (-lookup +batch):\n%s", i, w.PC, diff)
		}
	}
	last := r.rep.Batch[len(want)]
	if !last.ErrNotMapped || last.Mapping != "" || len(last.Frames) != 1 || last.Frames[0] != (frame{}) {
		t.Errorf("batch answer for %#x: %+v, want ErrNotMapped and one empty frame", last.PC, last)
	}
}

// llvmFrames runs llvm-symbolizer-14 on obj at the file addresses and
// returns each address's frames.
func llvmFrames(t *testing.T, tool, obj string, addrs []uint64) [][]frame {
	t.Helper()
	args := []string{"--output-style=JSON", "-C", "-i", "--obj=" + obj}
	for _, a := range addrs {
		args = append(args, "0x"+strconv.FormatUint(a, 16))
	}
	out, err := runCmd(exec.Command(tool, args...))
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", tool, strings.Join(args, " "), err, out)
	}
	var res []struct {
		Symbol []struct {
			FunctionName, FileName string
			Line, Column           uint32
		}
	}
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("%s: %v\n%s", tool, err, out)
	}
	if len(res) != len(addrs) {
		t.Fatalf("%s answered %d addresses of %d", tool, len(res), len(addrs))
	}
	frames := make([][]frame, len(res))
	for i, r := range res {
		for j, s := range r.Symbol {
			frames[i] = append(frames[i], frame{Function: s.FunctionName, File: s.FileName, Line: s.Line, Column: s.Column, Inlined: j < len(r.Symbol)-1})
		}
	}
	return frames
}

// TestMatchesLLVM compares every answer that names something with
// llvm-symbolizer-14's at the same file address of the same file (for the
// vDSO, its bytes as prog read them): names, files, lines and columns.
func TestMatchesLLVM(t *testing.T) {
	r := progRun(t)
	tool, err := exec.LookPath("llvm-symbolizer-14")
	if err != nil {
		need(t, "llvm-symbolizer-14 not found (apt-get install llvm-14)")
	}
	groups := map[string][]answer{r.rep.Exe: r.rep.CXX, r.dl: {r.rep.DL}, r.vdso: {r.rep.VDSO}}
	for _, g := range r.rep.Go {
		groups[r.rep.Exe] = append(groups[r.rep.Exe], g.Ours)
	}
	n := 0
	for obj, as := range groups {
		addrs := make([]uint64, len(as))
		for i, a := range as {
			addrs[i] = a.Addr
		}
		want := llvmFrames(t, tool, obj, addrs)
		for i, a := range as {
			if diff := cmp.Diff(want[i], a.Frames); diff != "" {
				t.Errorf("%s %#x (runtime %#x): (-llvm-symbolizer-14 +ours):\n%s", obj, a.Addr, a.PC, diff)
				continue
			}
			n++
		}
	}
	t.Logf("%d addresses agree with llvm-symbolizer-14", n)
}
