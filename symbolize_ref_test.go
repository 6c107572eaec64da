package symbolize_test

// Differential test against llvm-symbolizer-14: every ELF fixture, thousands
// of addresses each, inlines on and off, field by field. Differences we
// keep on purpose are listed in refExceptions, each for one fixture and one
// field, with the reason; anything else fails, and so does an exception
// that excuses nothing.

import (
	"bytes"
	"context"
	"debug/elf"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/symbolize-go/symbolize"
	"github.com/symbolize-go/symbolize/internal/reftwin"
)

// refFrame is one frame of llvm-symbolizer's JSON output.
type refFrame struct {
	FunctionName  string
	FileName      string
	Line          uint32
	Column        uint32
	Discriminator uint32
	StartFileName string
	StartLine     uint32
	StartAddress  string
}

type refAnswer struct {
	Address string
	Symbol  []refFrame
	Error   *struct{ Message string }
}

// refException excuses a difference in one field of one fixture where its
// predicate holds, for a reason we keep on purpose. Each must excuse
// something: one that matches no difference in a full run of its fixture
// fails the test (refExcuses.check), so that a fixed difference takes its
// exception with it.
type refException struct {
	fixture string // the fixture's subtest name: "c-gcc-O2-gc-sections", "main.fat:arm64"
	mode    string // "inlines" or "no-inlines"; "" for both
	// field is one of refFields, "frames" (the number of frames differs;
	// match sees the innermost of each) or "answer" (we found nothing
	// where LLVM found a frame; match sees its innermost and a nil got).
	field  string
	match  func(addr uint64, ref, got *refFrame) bool
	reason string
}

// refExceptions are the known differences from llvm-symbolizer-14. (The
// zstd fixture has none: the reference answers on its twin, see package
// reftwin.)
var refExceptions = []refException{
	{
		fixture: "c-gcc-O2-gc-sections", field: "answer",
		match:  deadCodeAtZero("free_node"),
		reason: "GNU ld leaves the DWARF of free_node, dropped by --gc-sections, at address 0; " + deadReason,
	},
	{
		fixture: "cpp-clang14-O2", field: "answer",
		match: deadCodeAtZero("_ZNSt15__new_allocatorISt10unique_ptrIN3geo5ShapeESt14default_deleteIS2_EEE10deallocateEPS5_m"),
		reason: "lld leaves the DWARF of a discarded COMDAT copy of std::__new_allocator<...>::deallocate " +
			"(inlined into the vector destructor) at address 0; " + deadReason,
	},
}

const deadReason = "LLVM 14 resolves PCs 0 and 1 to that dead code; we answer DWARF only inside code " +
	"sections, and nothing at 0 and 1"

// deadCodeAtZero matches LLVM's answer at address 0 or 1 from the DWARF of
// fn, placed at 0, where we found nothing.
func deadCodeAtZero(fn string) func(addr uint64, ref, got *refFrame) bool {
	return func(addr uint64, ref, got *refFrame) bool {
		return addr <= 1 && got == nil && ref.FunctionName == fn && ref.StartAddress == "0x0" && ref.Line != 0
	}
}

// refExcuses applies a list of exceptions in one test and counts what
// each excuses.
type refExcuses struct {
	list []refException
	used []int
	ran  map[string]bool // "fixture mode" compared on the full sample
}

func newRefExcuses(list []refException) *refExcuses {
	return &refExcuses{list: list, used: make([]int, len(list)), ran: map[string]bool{}}
}

// excuse returns the exception that excuses a difference in field at
// addr, or nil. got is nil when we gave no frame.
func (x *refExcuses) excuse(fixture, mode, field string, addr uint64, ref, got *refFrame) *refException {
	for i := range x.list {
		e := &x.list[i]
		if e.fixture == fixture && (e.mode == "" || e.mode == mode) && e.field == field && e.match(addr, ref, got) {
			x.used[i]++
			return e
		}
	}
	return nil
}

// check fails every exception that unused lists, and logs what the
// others excused.
func (x *refExcuses) check(t *testing.T) {
	for _, e := range x.unused() {
		t.Errorf("exception %s %s (%s) excuses nothing: remove it", e.fixture, e.field, e.reason)
	}
	for i, e := range x.list {
		if x.used[i] > 0 {
			t.Logf("exception %s %s: %d differences", e.fixture, e.field, x.used[i])
		}
	}
}

// unused returns the exceptions whose fixture was compared on its full
// sample, in each of the exception's modes, but which excused nothing.
func (x *refExcuses) unused() []*refException {
	var out []*refException
	for i := range x.list {
		e := &x.list[i]
		modes := []string{e.mode}
		if e.mode == "" {
			modes = []string{"inlines", "no-inlines"}
		}
		full := true
		for _, m := range modes {
			full = full && x.ran[e.fixture+" "+m]
		}
		if full && x.used[i] == 0 {
			out = append(out, e)
		}
	}
	return out
}

// TestRefExcuses checks the bookkeeping: an exception that excused nothing
// in a full run of its fixture is reported, one whose fixture did not run
// (or ran in another mode only) is not.
func TestRefExcuses(t *testing.T) {
	always := func(uint64, *refFrame, *refFrame) bool { return true }
	x := newRefExcuses([]refException{
		{fixture: "a", field: "Line", match: always, reason: "used"},
		{fixture: "a", field: "Column", match: always, reason: "unused"},
		{fixture: "b", field: "Line", match: always, reason: "not run"},
		{fixture: "a", mode: "inlines", field: "FileName", match: always, reason: "unused in its mode"},
		{fixture: "c", mode: "inlines", field: "FileName", match: always, reason: "its mode not run"},
	})
	x.ran["a inlines"], x.ran["a no-inlines"], x.ran["c no-inlines"] = true, true, true
	if x.excuse("a", "inlines", "Line", 0, &refFrame{}, nil) == nil || x.excuse("a", "inlines", "StartLine", 0, &refFrame{}, nil) != nil {
		t.Fatal("excuse matched the wrong exceptions")
	}
	var got []string
	for _, e := range x.unused() {
		got = append(got, e.reason)
	}
	if want := []string{"unused", "unused in its mode"}; !slices.Equal(got, want) {
		t.Errorf("unused = %q, want %q", got, want)
	}
}

// refOpenFails lists fixtures symbolize.Open refuses though llvm-symbolizer
// opens them: a separate debug file whose build ID does not match is a typed
// *elfx.IdentityError, never silently used or silently dropped; callers
// (like examples/addr2line) may then reopen with Options.NoDebugFile.
var refOpenFails = map[string]bool{"c-gcc-O2-mismatch": true}

func TestReferenceLLVMSymbolizer(t *testing.T) {
	llvm, err := exec.LookPath("llvm-symbolizer-14")
	if err != nil {
		t.Skip("llvm-symbolizer-14 not installed")
	}
	ex := newRefExcuses(refExceptions)
	eachELFFixture(t, func(t *testing.T, name, path string, addrs []uint64) {
		// A fixture LLVM 14 cannot read is compared with its answers on
		// the fixture's twin, which holds the same sections uncompressed.
		refPath, err := reftwin.Of(path)
		if err != nil {
			t.Fatal(err)
		}
		eachInlineMode(t, addrs, func(t *testing.T, addrs []uint64, inlines bool, mode string) {
			ref := runLLVM(t, llvm, refPath, addrs, inlines)
			got := runOurs(t, path, addrs, inlines)
			compareRef(t, ex, name, mode, addrs, ref, got)
		})
	})
	ex.check(t)
}

// eachELFFixture runs fn as a subtest per ELF fixture, on the addresses
// sampleAddrs picks, cut to their first 500 under -short.
func eachELFFixture(t *testing.T, fn func(t *testing.T, name, path string, addrs []uint64)) {
	fixtures, _ := filepath.Glob("testdata/elf/*")
	for _, path := range fixtures {
		if !isELF(path) {
			continue
		}
		name := filepath.Base(path)
		t.Run(name, func(t *testing.T) {
			addrs := sampleAddrs(t, path)
			if len(addrs) == 0 {
				t.Skip("no function symbols to sample")
			}
			if testing.Short() && len(addrs) > 500 {
				addrs = addrs[:500]
			}
			fn(t, name, path, addrs)
		})
	}
}

func isELF(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	var m [4]byte
	_, err = f.Read(m[:])
	return err == nil && string(m[:]) == elf.ELFMAG
}

// sampleAddrs picks addresses from the function symbols (of the file, or
// of its separate debug file when stripped): each start, the byte after,
// random interior points, the last byte, the byte past the end, the middle
// of each gap between functions, and some outside every function.
func sampleAddrs(t *testing.T, path string) []uint64 {
	type fn struct{ start, size uint64 }
	var fns []fn
	for _, p := range []string{path, path + ".debug", strings.TrimSuffix(path, ".debug")} {
		f, err := elf.Open(p)
		if err != nil {
			continue
		}
		syms, _ := f.Symbols()
		if len(syms) == 0 {
			syms, _ = f.DynamicSymbols()
		}
		f.Close()
		for _, s := range syms {
			if elf.ST_TYPE(s.Info) == elf.STT_FUNC && s.Size > 0 && s.Value != 0 {
				fns = append(fns, fn{s.Value, s.Size})
			}
		}
		if len(fns) > 0 {
			break
		}
	}
	sort.Slice(fns, func(i, j int) bool { return fns[i].start < fns[j].start })
	rng := rand.New(rand.NewPCG(1, uint64(len(fns))))
	seen := map[uint64]bool{}
	var out []uint64
	add := func(a uint64) {
		if !seen[a] {
			seen[a] = true
			out = append(out, a)
		}
	}
	// Enough interior points per function for a few thousand addresses.
	per := 1
	if len(fns) > 0 {
		per = max(1, min(64, 4000/len(fns)))
	}
	for i, f := range fns {
		add(f.start)
		add(f.start + 1)
		for range per {
			add(f.start + rng.Uint64N(f.size))
		}
		add(f.start + f.size - 1)
		add(f.start + f.size)
		if i+1 < len(fns) && fns[i+1].start > f.start+f.size+1 {
			add(f.start + f.size + (fns[i+1].start-f.start-f.size)/2)
		}
	}
	if len(fns) > 0 {
		last := fns[len(fns)-1]
		add(0)
		add(1)
		add(fns[0].start - 1)
		add(last.start + last.size + 0x1000)
		add(1 << 40)
		add(^uint64(0))
	}
	// Shuffle deterministically: lookups must not depend on order, and the
	// short mode keeps a spread sample.
	rng.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

func runLLVM(t *testing.T, llvm, path string, addrs []uint64, inlines bool) []refAnswer {
	flag := "--no-inlines"
	if inlines {
		flag = "--inlines"
	}
	// Names are compared mangled: demangling is checked on its own against
	// llvm-cxxfilt-14 in package symtab, with its own exceptions.
	return queryLLVM(t, llvm, []string{"--obj=" + path, "--output-style=JSON", "--no-demangle", flag}, addrs)
}

// queryLLVM runs llvm-symbolizer with args (which must ask for JSON) once,
// all of addrs on its standard input, and returns its answers in order.
func queryLLVM(t *testing.T, llvm string, args []string, addrs []uint64) []refAnswer {
	var in bytes.Buffer
	for _, a := range addrs {
		fmt.Fprintf(&in, "0x%x\n", a)
	}
	cmd := exec.Command(llvm, args...)
	cmd.Stdin = &in
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("llvm-symbolizer-14: %v\n%s", err, stderr.Bytes())
	}
	lines := bytes.Split(bytes.TrimSpace(out), []byte("\n"))
	if len(lines) != len(addrs) {
		t.Fatalf("llvm-symbolizer-14 gave %d answers for %d addresses", len(lines), len(addrs))
	}
	ans := make([]refAnswer, len(lines))
	for i, l := range lines {
		if err := json.Unmarshal(l, &ans[i]); err != nil {
			t.Fatalf("llvm-symbolizer-14 answer %d: %v: %s", i, err, l)
		}
	}
	return ans
}

func runOurs(t *testing.T, path string, addrs []uint64, inlines bool) [][]refFrame {
	b := openRef(t, path, symbolize.Options{Inlines: inlines})
	defer b.Close()
	return framesOf(t, b, addrs)
}

// openRef opens a fixture with o, or, for one that refOpenFails lists,
// without its debug file.
func openRef(t *testing.T, path string, o symbolize.Options) *symbolize.Binary {
	b, err := symbolize.Open(path, &o)
	if err != nil && refOpenFails[filepath.Base(path)] {
		t.Logf("Open: %v (known; retrying without the debug file)", err)
		o.NoDebugFile = true
		b, err = symbolize.Open(path, &o)
	}
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	return b
}

// framesOf symbolizes pcs with b.Batch into the reference's JSON fields.
func framesOf(t *testing.T, b *symbolize.Binary, pcs []uint64) [][]refFrame {
	out := make([][]refFrame, len(pcs))
	for i, a := range b.Batch(context.Background(), pcs) {
		frames, err := a.Frames, a.Err
		if err != nil {
			t.Errorf("0x%x: %v", pcs[i], err)
		}
		for _, f := range frames {
			r := refFrame{
				FunctionName: f.Function, FileName: f.File, Line: f.Line, Column: f.Column,
				Discriminator: f.Discriminator, StartFileName: f.StartFile, StartLine: f.StartLine,
			}
			if f.HasStartAddress {
				r.StartAddress = fmt.Sprintf("0x%x", f.StartAddress)
			}
			out[i] = append(out[i], r)
		}
	}
	return out
}

// refFields lists the compared fields with their accessors.
var refFields = []struct {
	name string
	get  func(*refFrame) string
}{
	{"FunctionName", func(f *refFrame) string { return f.FunctionName }},
	{"FileName", func(f *refFrame) string { return f.FileName }},
	{"Line", func(f *refFrame) string { return strconv.Itoa(int(f.Line)) }},
	{"Column", func(f *refFrame) string { return strconv.Itoa(int(f.Column)) }},
	{"Discriminator", func(f *refFrame) string { return strconv.Itoa(int(f.Discriminator)) }},
	{"StartFileName", func(f *refFrame) string { return f.StartFileName }},
	{"StartLine", func(f *refFrame) string { return strconv.Itoa(int(f.StartLine)) }},
	{"StartAddress", func(f *refFrame) string { return f.StartAddress }},
}

// compareRef compares our frames with llvm-symbolizer-14's, field by
// field, and fails every difference ex does not excuse.
func compareRef(t *testing.T, ex *refExcuses, fixture, mode string, addrs []uint64, ref []refAnswer, got [][]refFrame) {
	if !testing.Short() {
		ex.ran[fixture+" "+mode] = true
	}
	agree := 0
	excused, failed := map[string]int{}, map[string]int{}
	shown := 0
	fail := func(field, format string, args ...any) {
		failed[field]++
		if shown < 15 {
			shown++
			t.Errorf(format, args...)
		}
	}
	for i, a := range addrs {
		r := ref[i]
		if r.Error != nil {
			t.Errorf("0x%x: llvm-symbolizer-14 error %q", a, r.Error.Message)
			continue
		}
		if len(r.Symbol) > 0 && r.Symbol[0] != (refFrame{}) && (len(got[i]) == 0 || len(got[i]) == 1 && got[i][0] == (refFrame{})) {
			if ex.excuse(fixture, mode, "answer", a, &r.Symbol[0], nil) != nil {
				excused["answer"]++
				continue
			}
			fail("answer", "0x%x: llvm-symbolizer-14 %+v, ours nothing", a, r.Symbol)
			continue
		}
		if len(r.Symbol) != len(got[i]) || len(r.Symbol) == 0 {
			var rf, gf *refFrame
			if len(r.Symbol) > 0 {
				rf = &r.Symbol[0]
			}
			if len(got[i]) > 0 {
				gf = &got[i][0]
			}
			if rf != nil && ex.excuse(fixture, mode, "frames", a, rf, gf) != nil {
				excused["frames"]++
				continue
			}
			fail("frames", "0x%x: %d reference frames, %d ours", a, len(r.Symbol), len(got[i]))
			continue
		}
		ok := true
		for j := range r.Symbol {
			rf, gf := &r.Symbol[j], &got[i][j]
			for _, fd := range refFields {
				rv, gv := fd.get(rf), fd.get(gf)
				if rv == gv {
					continue
				}
				ok = false
				if ex.excuse(fixture, mode, fd.name, a, rf, gf) != nil {
					excused[fd.name]++
					continue
				}
				fail(fd.name, "0x%x frame %d: %s: llvm-symbolizer-14 %q, ours %q", a, j, fd.name, rv, gv)
			}
		}
		if ok {
			agree++
		}
	}
	t.Logf("%s %s: %d/%d addresses agree on every field (%.1f%%); differences excused [%s]; failures [%s]",
		fixture, mode, agree, len(addrs), 100*float64(agree)/float64(len(addrs)), sortedCounts(excused),
		sortedCounts(failed))
}

func sortedCounts(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "%s=%d ", k, m[k])
	}
	return strings.TrimSpace(b.String())
}

// TestReferenceNoLineTable compares with llvm-symbolizer-14 on fixtures
// whose .debug_line is renamed away (as if stripped of it alone): the DIEs
// still give the inline chain, its call lines and declaration lines.
func TestReferenceNoLineTable(t *testing.T) {
	llvm, err := exec.LookPath("llvm-symbolizer-14")
	if err != nil {
		t.Skip("llvm-symbolizer-14 not installed")
	}
	ex := newRefExcuses(refExceptions)
	for _, name := range []string{"c-gcc-O2-dwarf5", "cpp-gcc-O2", "c-clang14-O2-dwarf5"} {
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile("testdata/elf/" + name)
			if err != nil {
				t.Skip(err)
			}
			// The section header string table names it once.
			from, to := []byte("\x00.debug_line\x00"), []byte("\x00.xdebug_lin\x00")
			if bytes.Count(data, from) != 1 {
				t.Fatalf("%q appears %d times", from, bytes.Count(data, from))
			}
			path := filepath.Join(t.TempDir(), name+"-noline")
			if err := os.WriteFile(path, bytes.Replace(data, from, to, 1), 0o644); err != nil {
				t.Fatal(err)
			}
			eachInlineMode(t, sampleAddrs(t, path), func(t *testing.T, addrs []uint64, inlines bool, mode string) {
				ref := runLLVM(t, llvm, path, addrs, inlines)
				got := runOurs(t, path, addrs, inlines)
				compareRef(t, ex, name+"-noline", mode, addrs, ref, got)
			})
		})
	}
	ex.check(t)
}
