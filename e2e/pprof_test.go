package e2e

import (
	"bufio"
	"bytes"
	"context"
	"debug/buildinfo"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
)

// pprofModule is the standalone pprof's module. The version the test runs
// is the one go.mod requires (for the profile package), so there is one pin.
const pprofModule = "github.com/google/pprof"

// pprofVersion returns go.mod's version of pprofModule.
func pprofVersion(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Version}}", pprofModule).Output()
	v := strings.TrimSpace(string(out))
	if err != nil || v == "" {
		t.Fatalf("go list -m %s: %q, %v", pprofModule, out, err)
	}
	return v
}

// requirePprof finds the standalone pprof at go.mod's version: the file
// $SYMBOLIZE_PPROF, else pprof on PATH, else $GOPATH/bin/pprof.
func requirePprof(t *testing.T) string {
	t.Helper()
	version := pprofVersion(t)
	install := fmt.Sprintf("GOBIN=DIR go install %s@%s, then set SYMBOLIZE_PPROF=DIR/pprof", pprofModule, version)
	var candidates []string
	if p := os.Getenv("SYMBOLIZE_PPROF"); p != "" {
		candidates = append(candidates, p)
	} else {
		if p, err := exec.LookPath("pprof"); err == nil {
			candidates = append(candidates, p)
		}
		if out, err := exec.Command("go", "env", "GOPATH").Output(); err == nil {
			for _, d := range filepath.SplitList(strings.TrimSpace(string(out))) {
				candidates = append(candidates, filepath.Join(d, "bin", "pprof"))
			}
		}
	}
	var found []string
	for _, p := range candidates {
		bi, err := buildinfo.ReadFile(p)
		if err != nil {
			continue
		}
		if bi.Main.Path == pprofModule && bi.Main.Version == version {
			return p
		}
		found = append(found, fmt.Sprintf("%s is %s@%s", p, bi.Main.Path, bi.Main.Version))
	}
	if found != nil {
		need(t, "pprof %s not found (%s); install it: %s", version, strings.Join(found, ", "), install)
	}
	need(t, "pprof %s not found; install it: %s", version, install)
	return ""
}

// profProgram is a program of testdata that records its own stacks (see
// testdata/trace.h) for an unsymbolized profile.
type profProgram struct {
	name   string
	src    string
	cc     string
	flags  []string
	dirArg bool // whether it takes a directory to walk as its second argument
	// want are names the symbolized profile's -traces output holds, so
	// that a profile nobody symbolized cannot pass by being equal.
	want []string
}

var profPrograms = []profProgram{
	{
		name: "c", src: "prof.c", cc: "clang-14", flags: []string{"-g", "-O2", "-fno-omit-frame-pointer"},
		want: []string{"cell", "row_sum", "total", "fib", "visit_odd", "visit_even", "op_mul", "apply_all", "main", "__libc_start_main"},
	},
	{
		name: "c++", src: "prof.cc", cc: "clang++-14", flags: []string{"-g", "-O2", "-fno-omit-frame-pointer", "-pthread"},
		want: []string{"geo::Square::area", "geo::Circle::area", "(anonymous namespace)::sum_by", "main::$_0::operator()",
			"(anonymous namespace)::Guard::~Guard", "(anonymous namespace)::throw_through", "std::sort", "std::_Function_handler::_M_invoke",
			"std::thread::_State_impl::_M_run", "start_thread", "std::basic_streambuf::xsputn", "std::__ostream_insert",
			"std::num_put::_M_insert_int"},
	},
	{
		name: "libc", src: "proflibc.c", cc: "clang-14", flags: []string{"-g", "-O2", "-fno-omit-frame-pointer", "-pthread"}, dirArg: true,
		want: []string{"msort_with_tmp", "qsort_r", "strndup", "regcomp", "re_compile_internal", "tsearch", "trecurse",
			"ftw_dir", "ftw_startup", "getline", "_IO_file_underflow", "pthread_create", "allocate_stack", "start_thread",
			"__pthread_once_slow", "__run_exit_handlers", "dl_iterate_phdr", "raise", "__pthread_kill_implementation",
			"printf_positional", "main"},
	},
}

// pprofViews are the -traces reports compared: by function (pprof's
// default), by line with columns, and by address (every frame's address,
// function and file:line:column).
var pprofViews = []struct {
	name  string
	flags []string
}{
	{"functions", nil},
	{"lines", []string{"-lines", "-showcolumns"}},
	{"addresses", []string{"-addresses"}},
}

// TestPprof symbolizes unsymbolized profiles (mappings and addresses only)
// of a C program, a C++ program and one that runs in libc, with the
// standalone pprof's local symbolization driving each symbolizer
// (-symbolize=local -tools=DIR), and compares the -traces reports.
func TestPprof(t *testing.T) {
	pprof := requirePprof(t)
	requireLibcDebug(t)
	syms := requireSymbolizers(t)
	for _, p := range profPrograms {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			file := rawProfile(t, p)
			for _, v := range pprofViews {
				t.Run(v.name, func(t *testing.T) {
					llvm := runPprof(t, pprof, syms.llvm, file, v.flags)
					ours := runPprof(t, pprof, syms.ours, file, v.flags)
					if v.name == "functions" {
						checkFrames(t, "llvm", llvm, p.want)
						checkFrames(t, "ours", ours, p.want)
					}
					if d := diffLines(llvm, ours); d != "" {
						t.Errorf("pprof -traces %s differs (-llvm-symbolizer-14 +ours):\n%s", strings.Join(v.flags, " "), d)
					}
				})
			}
		})
	}
}

// rawProfile builds and runs the program p and returns the file of its
// unsymbolized profile, in a directory of t's that also holds the program.
func rawProfile(t *testing.T, p profProgram) string {
	t.Helper()
	cc := requireCompiler(t, p.cc)
	dir := t.TempDir()
	bin := filepath.Join(dir, "prof-"+p.name)
	compile(t, cc, p.src, bin, p.flags...)
	trace := filepath.Join(dir, "trace.txt")
	args := []string{trace}
	if p.dirArg {
		args = append(args, walkTree(t, dir))
	}
	run(t, nil, bin, args...)
	prof, err := traceProfile(trace)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d samples, %d locations in %d mappings", len(prof.Sample), len(prof.Location), len(prof.Mapping))
	file := filepath.Join(dir, "prof.pb.gz")
	writeProfile(t, prof, file)
	return file
}

// checkFrames checks that the -traces report names each frame of want.
func checkFrames(t *testing.T, who, report string, want []string) {
	t.Helper()
	names := make(map[string]bool)
	for _, line := range strings.Split(report, "\n") {
		// A frame line is "%10s   NAME", with " (inline)" after an inlined frame's name.
		if len(line) > 13 && line[10:13] == "   " {
			names[strings.TrimSuffix(line[13:], " (inline)")] = true
		}
	}
	var missing []string
	for _, w := range want {
		if !names[w] {
			missing = append(missing, w)
		}
	}
	if missing != nil {
		t.Errorf("%s: -traces names no frame %q:\n%s", who, missing, report)
	}
}

// walkTree makes a small directory tree under dir for the libc program's
// nftw and returns its root.
func walkTree(t *testing.T, dir string) string {
	t.Helper()
	root := filepath.Join(dir, "tree")
	for _, d := range []string{"a/b", "c"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"a/x", "a/b/y", "c/z", "w"} {
		if err := os.WriteFile(filepath.Join(root, f), []byte(f), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// run runs bin with args and env (nil: the test's) and returns what it
// wrote to standard output and error; it fails t when the command fails.
func run(t *testing.T, env []string, bin string, args ...string) (stdout, stderr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\n%s%s", bin, strings.Join(args, " "), err, out.Bytes(), errb.Bytes())
	}
	return out.String(), errb.String()
}

// runPprof runs pprof -traces on file with the llvm-symbolizer in symDir
// and returns its standard output and error, which it must not print to.
func runPprof(t *testing.T, pprof, symDir, file string, flags []string) string {
	t.Helper()
	home := t.TempDir()
	env := environ("HOME="+home, "PPROF_TMPDIR="+home, "PPROF_BINARY_PATH="+home)
	args := append([]string{"-symbolize=local", "-tools=" + symDir, "-traces"}, flags...)
	stdout, stderr := run(t, env, pprof, append(args, file)...)
	if stderr != "" {
		t.Errorf("pprof %s with %s printed to standard error:\n%s", strings.Join(args, " "), symDir, stderr)
	}
	return stdout
}

// traceProfile turns a trace written by testdata/trace.h into a profile of
// one sample per recorded stack, with the executable file mappings of
// /proc/self/maps (start, limit, offset, file and build ID) and locations
// holding only addresses: no functions, no lines, as a profiler that leaves
// symbolization to pprof writes it. The stacks hold return addresses; each
// location is the address before it, inside the call, as unwinders report.
func traceProfile(path string) (*profile.Profile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var stacks [][]uint64
	p := &profile.Profile{
		SampleType: []*profile.ValueType{{Type: "samples", Unit: "count"}},
	}
	sc := bufio.NewScanner(f)
	inMaps := false
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "maps":
			inMaps = true
		case !inMaps && strings.HasPrefix(line, "stack "):
			var pcs []uint64
			for _, s := range strings.Fields(line)[1:] {
				pc, err := strconv.ParseUint(strings.TrimPrefix(s, "0x"), 16, 64)
				if err != nil {
					return nil, fmt.Errorf("%s: bad address %q", path, s)
				}
				pcs = append(pcs, pc)
			}
			stacks = append(stacks, pcs)
		case inMaps:
			m, err := parseMapping(line)
			if err != nil {
				return nil, fmt.Errorf("%s: %v", path, err)
			}
			if m == nil {
				continue
			}
			if m.BuildID, err = buildID(m.File); err != nil {
				return nil, err
			}
			m.ID = uint64(len(p.Mapping) + 1)
			p.Mapping = append(p.Mapping, m)
		default:
			return nil, fmt.Errorf("%s: unexpected line %q", path, line)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(stacks) == 0 || len(p.Mapping) == 0 {
		return nil, fmt.Errorf("%s: %d stacks and %d mappings", path, len(stacks), len(p.Mapping))
	}
	locs := make(map[uint64]*profile.Location)
	for _, pcs := range stacks {
		s := &profile.Sample{Value: []int64{1}}
		for _, pc := range pcs {
			addr := pc - 1
			l := locs[addr]
			if l == nil {
				for _, m := range p.Mapping {
					if m.Start <= addr && addr < m.Limit {
						l = &profile.Location{ID: uint64(len(p.Location) + 1), Mapping: m, Address: addr}
						break
					}
				}
				if l == nil { // the vDSO, which has no file
					continue
				}
				locs[addr] = l
				p.Location = append(p.Location, l)
			}
			s.Location = append(s.Location, l)
		}
		p.Sample = append(p.Sample, s)
	}
	return p, p.CheckValid()
}

// parseMapping parses a line of /proc/PID/maps, returning nil for lines
// other than executable mappings of files.
func parseMapping(line string) (*profile.Mapping, error) {
	f := strings.Fields(line)
	if len(f) < 5 {
		return nil, fmt.Errorf("bad maps line %q", line)
	}
	if len(f) < 6 || !strings.HasPrefix(f[5], "/") || len(f[1]) < 3 || f[1][2] != 'x' {
		return nil, nil
	}
	lo, hi, ok := strings.Cut(f[0], "-")
	start, err1 := strconv.ParseUint(lo, 16, 64)
	limit, err2 := strconv.ParseUint(hi, 16, 64)
	offset, err3 := strconv.ParseUint(f[2], 16, 64)
	if !ok || err1 != nil || err2 != nil || err3 != nil {
		return nil, fmt.Errorf("bad maps line %q", line)
	}
	return &profile.Mapping{Start: start, Limit: limit, Offset: offset, File: strings.Join(f[5:], " ")}, nil
}

func writeProfile(t *testing.T, p *profile.Profile, path string) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Write(f); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}
