package e2e

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// sanProgram is one sanitized program of testdata and the reports it makes.
type sanProgram struct {
	name    string // subtest name
	src     string // under testdata
	cc      string // clang-14 or clang++-14
	runtime string // compiler-rt library the sanitizer needs
	flags   []string
	asan    bool // ASan (ASAN_SYMBOLIZER_PATH) or UBSan (UBSAN_OPTIONS=external_symbolizer_path=)
	cases   []sanCase
}

// sanCase is one report: the program run with mode as its argument.
type sanCase struct {
	mode string
	// want are texts every report of the case holds (paths masked as
	// $TESTDATA and $TMP, nothing else), so that a report nobody
	// symbolized, or one the sanitizer did not make, cannot pass by being
	// equal.
	want []string
	// inlined are texts only inlined frames print: present with
	// symbolize_inline_frames=1, absent with 0.
	inlined []string
}

var (
	asanFlags  = []string{"-g", "-O1", "-fno-omit-frame-pointer", "-fsanitize=address"}
	ubsanFlags = []string{"-g", "-O1", "-fno-omit-frame-pointer", "-fsanitize=undefined", "-fno-sanitize-recover"}
)

// sanPrograms are the sanitizer cases: C and C++ (demangled templates,
// lambdas, members, library code), user frames inlined into each other, and
// frames inside libc.so.6, which name and place through libc6-dbg's debug
// file found by build ID.
var sanPrograms = []sanProgram{
	{
		name: "asan-c", src: "asan.c", cc: "clang-14", runtime: "asan", flags: asanFlags, asan: true,
		cases: []sanCase{
			{
				mode:    "heap-use-after-free",
				want:    []string{"ERROR: AddressSanitizer: heap-use-after-free", "in use_after_free $TESTDATA/asan.c:", "in make_list $TESTDATA/asan.c:", "in main $TESTDATA/asan.c:", "in __libc_start_main csu/../csu/libc-start.c:"},
				inlined: []string{"in first_value $TESTDATA/asan.c:", "in free_list $TESTDATA/asan.c:"},
			},
			{
				mode:    "stack-buffer-overflow",
				want:    []string{"ERROR: AddressSanitizer: stack-buffer-overflow", "in stack_overflow $TESTDATA/asan.c:", "'buf' (line "},
				inlined: []string{"in sum_to $TESTDATA/asan.c:"},
			},
			{
				mode: "global-buffer-overflow",
				want: []string{"ERROR: AddressSanitizer: global-buffer-overflow", "in global_overflow $TESTDATA/asan.c:", "global variable 'global_table' defined in '$TESTDATA/asan.c:"},
			},
			{
				mode:    "strlen-wild",
				want:    []string{"ERROR: AddressSanitizer: SEGV", "in __strlen_", "string/../sysdeps/x86_64/multiarch/strlen-", "in libc_crash $TESTDATA/asan.c:"},
				inlined: []string{"in measure $TESTDATA/asan.c:"},
			},
			{
				mode:    "qsort-wild",
				want:    []string{"ERROR: AddressSanitizer: SEGV", "in compare_bad $TESTDATA/asan.c", "in msort_with_tmp stdlib/./stdlib/msort.c:", "in sort_wild $TESTDATA/asan.c:"},
				inlined: []string{"in msort_with_tmp stdlib/./stdlib/msort.c:52:3"},
			},
		},
	},
	{
		name: "asan-c++", src: "asan.cc", cc: "clang++-14", runtime: "asan", flags: asanFlags, asan: true,
		cases: []sanCase{
			{
				mode:    "heap-use-after-free",
				want:    []string{"ERROR: AddressSanitizer: heap-use-after-free", "in int (anonymous namespace)::apply_twice<(anonymous namespace)::use_after_delete()::$_", "in operator delete(void*)", "in shapes::Rect<double>::~Rect() $TESTDATA/asan.cc:"},
				inlined: []string{"::operator()(int) const $TESTDATA/asan.cc:", "in std::vector<std::unique_ptr<shapes::Shape, std::default_delete<shapes::Shape> >, std::allocator<std::unique_ptr<shapes::Shape, std::default_delete<shapes::Shape> > > >::clear()"},
			},
			{
				mode:    "stack-buffer-overflow",
				want:    []string{"ERROR: AddressSanitizer: stack-buffer-overflow", "in (anonymous namespace)::window_overflow(int) $TESTDATA/asan.cc:", "'w' (line "},
				inlined: []string{"in shapes::Window<long, 4ul>::sum(unsigned long) const $TESTDATA/asan.cc:"},
			},
			{
				mode:    "strlen-wild",
				want:    []string{"ERROR: AddressSanitizer: SEGV", "in __strlen_", "in (anonymous namespace)::sort_entries(int) ", "in void std::__introsort_loop<__gnu_cxx::__normal_iterator<(anonymous namespace)::Entry*"},
				inlined: []string{"in (anonymous namespace)::sort_entries(int)::$_0::operator()((anonymous namespace)::Entry const&, (anonymous namespace)::Entry const&) const $TESTDATA/asan.cc:", "in void std::sort<__gnu_cxx::__normal_iterator<(anonymous namespace)::Entry*"},
			},
		},
	},
	{
		name: "ubsan-c", src: "ubsan.c", cc: "clang-14", runtime: "ubsan_standalone", flags: ubsanFlags,
		cases: []sanCase{
			{
				mode:    "signed-overflow",
				want:    []string{"runtime error: signed integer overflow", "in grow $TESTDATA/ubsan.c:", "in main $TESTDATA/ubsan.c:"},
				inlined: []string{"in scale $TESTDATA/ubsan.c:"},
			},
			{
				mode:    "shift",
				want:    []string{"runtime error: shift exponent 42 is too large", "in shifted $TESTDATA/ubsan.c:"},
				inlined: []string{"in shift_by $TESTDATA/ubsan.c:"},
			},
			{
				mode:    "qsort-overflow",
				want:    []string{"runtime error: signed integer overflow", "in compare_ints $TESTDATA/ubsan.c:", "in msort_with_tmp stdlib/./stdlib/msort.c:", "in sort_overflow $TESTDATA/ubsan.c:"},
				inlined: []string{"in scale $TESTDATA/ubsan.c:", "in msort_with_tmp stdlib/./stdlib/msort.c:52:3"},
			},
		},
	},
	{
		name: "ubsan-c++", src: "ubsan.cc", cc: "clang++-14", runtime: "ubsan_standalone", flags: ubsanFlags,
		cases: []sanCase{
			{
				mode:    "signed-overflow",
				want:    []string{"runtime error: signed integer overflow", "in int (anonymous namespace)::fold<int, (anonymous namespace)::overflow_in_lambda(int)::$_0>(std::vector<int, std::allocator<int> > const&, (anonymous namespace)::overflow_in_lambda(int)::$_0) $TESTDATA/ubsan.cc:"},
				inlined: []string{"in void calc::Accumulator<int>::add<int>(int) $TESTDATA/ubsan.cc:"},
			},
			{
				mode:    "null-member-call",
				want:    []string{"runtime error: member call on null pointer of type 'calc::Derived'", "in int (anonymous namespace)::first_value<calc::Derived>(std::vector<calc::Derived*, std::allocator<calc::Derived*> > const&) $TESTDATA/ubsan.cc:"},
				inlined: []string{"::'lambda'(calc::Derived const*)::operator()(calc::Derived const*) const $TESTDATA/ubsan.cc:"},
			},
			{
				mode:    "divide-by-zero",
				want:    []string{"runtime error: division by zero", "in void std::__insertion_sort<__gnu_cxx::__normal_iterator<int*, std::vector<int, std::allocator<int> > >"},
				inlined: []string{"in (anonymous namespace)::sort_with_division(int)::$_1::operator()(int, int) const $TESTDATA/ubsan.cc:"},
			},
		},
	},
}

// sanKnownDiffs are the sanitizer cases' known differences.
var sanKnownDiffs = []knownDiff{}

// shadowRowRE matches a row of ASan's shadow memory dump. The rows show
// the shadow bytes around the bad address, whose position in the dump
// depends on where the stack or heap landed in this run; they are memory,
// not symbolization, so the comparison leaves them out.
var shadowRowRE = regexp.MustCompile(`(?m)^(=>|  )0x[0-9a-f]+:[ \[].*\n`)

// TestSanitizers runs each sanitizer case with symbolize_inline_frames 0
// and 1, once with each symbolizer, and compares the whole reports with
// addresses, PIDs and temporary paths masked.
func TestSanitizers(t *testing.T) {
	requireLibcDebug(t)
	syms := requireSymbolizers(t)
	kd := newKnownDiffs(sanKnownDiffs)
	t.Cleanup(func() { kd.checkUsed(t) }) // after the parallel subtests
	for _, p := range sanPrograms {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			cc := requireCompiler(t, p.cc)
			requireRuntime(t, cc, p.runtime)
			dir := t.TempDir()
			bin := filepath.Join(dir, p.name)
			compile(t, cc, p.src, bin, p.flags...)
			m := newMasker(t, dir, "$TMP", testdataDir(t), "$TESTDATA", workDir, "$WORK")
			for _, c := range p.cases {
				for _, inline := range []string{"0", "1"} {
					t.Run(c.mode+"/inline="+inline, func(t *testing.T) {
						llvm := runSanitized(t, p, bin, c.mode, inline, syms.llvm)
						ours := runSanitized(t, p, bin, c.mode, inline, syms.ours)
						for _, out := range []struct{ who, text string }{{"llvm", llvm}, {"ours", ours}} {
							checkReport(t, out.who, m.paths.Replace(out.text), c, inline == "1")
						}
						t.Logf("%d frames", strings.Count(llvm, "\n    #"))
						ours = kd.apply(t, ours)
						if d := diffLines(m.mask(shadowRowRE.ReplaceAllString(llvm, "")), m.mask(shadowRowRE.ReplaceAllString(ours, ""))); d != "" {
							t.Errorf("the report differs (-llvm-symbolizer-14 +ours, masked):\n%s", d)
						}
					})
				}
			}
		})
	}
}

// runSanitized runs bin mode with the symbolizer in dir and returns what
// the sanitizer printed (its report goes to standard error).
func runSanitized(t *testing.T, p sanProgram, bin, mode, inline, dir string) string {
	t.Helper()
	sym := filepath.Join(dir, "llvm-symbolizer")
	var env []string
	if p.asan {
		env = environ("ASAN_SYMBOLIZER_PATH="+sym, "ASAN_OPTIONS=detect_leaks=0:symbolize_inline_frames="+inline)
	} else {
		env = environ("UBSAN_OPTIONS=print_stacktrace=1:symbolize_inline_frames=" + inline + ":external_symbolizer_path=" + sym)
	}
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, mode)
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("%s %s with %s: timed out\n%s", bin, mode, sym, out)
	}
	if err == nil {
		t.Fatalf("%s %s with %s exited 0, without a report:\n%s", bin, mode, sym, out)
	}
	return string(out)
}

// checkReport checks that report (paths masked) holds c's texts.
func checkReport(t *testing.T, who, report string, c sanCase, inline bool) {
	t.Helper()
	var bad []string
	for _, w := range c.want {
		if !strings.Contains(report, w) {
			bad = append(bad, fmt.Sprintf("lacks %q", w))
		}
	}
	for _, w := range c.inlined {
		if has := strings.Contains(report, w); has != inline {
			bad = append(bad, fmt.Sprintf("with symbolize_inline_frames=%v, holds %q: %v", inline, w, has))
		}
	}
	if bad != nil {
		t.Errorf("%s: the report %s:\n%s", who, strings.Join(bad, "; "), report)
	}
}
