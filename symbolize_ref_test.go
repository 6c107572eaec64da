package symbolize_test

// Differential test against llvm-symbolizer-14: every ELF fixture, thousands
// of addresses each, inlining off, field by field. Differences we keep on
// purpose are listed in refExceptions with the reason; anything else fails.

import (
	"bytes"
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

// refException excuses a difference in one field of one fixture. Pending
// ones are differences we mean to remove (reported to the owners of the
// code that causes them); the others we keep on purpose.
type refException struct {
	fixture string // "" for every fixture
	field   string // "FunctionName", "FileName", ... or "*"
	match   func(addr uint64, ref, got *refFrame) bool
	pending bool
	reason  string
}

// refExceptions are the known differences from llvm-symbolizer-14.
var refExceptions = []refException{
	{
		fixture: "c-gcc-O2-zstd", field: "*",
		match:  func(_ uint64, ref, got *refFrame) bool { return ref.Line == 0 && ref.StartLine == 0 },
		reason: "LLVM 14 cannot decompress zstd (ch_type 2) debug sections and answers from the symbol table alone; we read them",
	},
	{
		field: "*",
		match: func(addr uint64, ref, got *refFrame) bool {
			return addr < 0x400 && got.FileName == "" && got.Line == 0
		},
		reason: "GNU ld leaves the DWARF of sections dropped by --gc-sections (and lld of some discarded code) at " +
			"address 0; LLVM 14 resolves PCs 0 and 1 to those dead functions. We answer DWARF only inside code " +
			"sections (c-gcc-O2-gc-sections, cpp-clang14-O2)",
	},
}

// refOpenFails lists fixtures symbolize.Open refuses though llvm-symbolizer
// opens them: a separate debug file whose build ID does not match is a typed
// *elfx.IdentityError, never silently used or silently dropped; callers
// (like examples/addr2line) may then reopen with Options.NoDebugFile.
var refOpenFails = map[string]bool{"c-gcc-O2-mismatch": true}

// refOptional are fields compared only when both sides have a value: we
// log their agreement but a missing value on our side is not (yet) a
// failure.
var refOptional = map[string]string{}

func TestReferenceLLVMSymbolizer(t *testing.T) {
	llvm, err := exec.LookPath("llvm-symbolizer-14")
	if err != nil {
		t.Skip("llvm-symbolizer-14 not installed")
	}
	eachELFFixture(t, func(t *testing.T, name, path string, addrs []uint64) {
		eachInlineMode(t, addrs, func(t *testing.T, addrs []uint64, inlines bool, mode string) {
			ref := runLLVM(t, llvm, path, addrs, inlines)
			got := runOurs(t, path, addrs, inlines)
			compareRef(t, name+" "+mode, addrs, ref, got)
		})
	})
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
	b.Batch(pcs, func(i int, frames []symbolize.Frame, err error) bool {
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
		return true
	})
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

func compareRef(t *testing.T, fixture string, addrs []uint64, ref []refAnswer, got [][]refFrame) {
	agree := 0
	excused, pending, missing, failed := map[string]int{}, map[string]int{}, map[string]int{}, map[string]int{}
	shown := 0
	for i, a := range addrs {
		r := ref[i]
		if r.Error != nil {
			t.Errorf("0x%x: llvm-symbolizer-14 error %q", a, r.Error.Message)
			continue
		}
		if len(r.Symbol) != len(got[i]) || len(r.Symbol) == 0 {
			if len(r.Symbol) > 0 && len(got[i]) > 0 && refExcuse(strings.Fields(fixture)[0], "frames", a, &r.Symbol[0], &got[i][0]) != nil {
				excused["frames"]++
				continue
			}
			failed["frames"]++
			if shown < 15 {
				shown++
				t.Errorf("0x%x: %d reference frames, %d ours", a, len(r.Symbol), len(got[i]))
			}
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
				if _, opt := refOptional[fd.name]; opt && (gv == "" || gv == "0" || rv == "" || rv == "0") {
					missing[fd.name]++
					continue
				}
				if e := refExcuse(strings.Fields(fixture)[0], fd.name, a, rf, gf); e != nil {
					if e.pending {
						pending[fd.name]++
					} else {
						excused[fd.name]++
					}
					continue
				}
				failed[fd.name]++
				if shown < 15 {
					shown++
					t.Errorf("0x%x frame %d: %s: llvm-symbolizer-14 %q, ours %q", a, j, fd.name, rv, gv)
				}
			}
		}
		if ok {
			agree++
		}
	}
	t.Logf("%s: %d/%d addresses agree on every field (%.1f%%); differences kept on purpose [%s]; "+
		"pending fixes [%s]; optional fields missing on one side [%s]; failures [%s]",
		fixture, agree, len(addrs), 100*float64(agree)/float64(len(addrs)), sortedCounts(excused),
		sortedCounts(pending), sortedCounts(missing), sortedCounts(failed))
}

func refExcuse(fixture, field string, addr uint64, ref, got *refFrame) *refException {
	for i := range refExceptions {
		e := &refExceptions[i]
		if (e.fixture == "" || e.fixture == fixture) && (e.field == "*" || e.field == field) &&
			(e.match == nil || e.match(addr, ref, got)) {
			return e
		}
	}
	return nil
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
				compareRef(t, name+"-noline "+mode, addrs, ref, got)
			})
		})
	}
}
