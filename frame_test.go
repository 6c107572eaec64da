package symbolize_test

import (
	"bytes"
	"debug/elf"
	"debug/macho"
	"errors"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/symbolize-go/symbolize"
	"github.com/symbolize-go/symbolize/elfx"
	"github.com/symbolize-go/symbolize/internal/reftwin"
)

// The locals of a function of an hwasan build: frame offsets, sizes and
// the stack objects' tags, as llvm-symbolizer's FRAME request lists them.
func ExampleBinary_Locals() {
	b, err := symbolize.Open("testdata/frame/frame-clang14-O1-hwasan", nil)
	if err != nil {
		log.Fatal(err)
	}
	defer b.Close()
	locals, err := b.Locals(0x2000) // records
	if err != nil {
		log.Fatal(err)
	}
	for _, l := range locals[:4] {
		fmt.Printf("%s %s line %d: offset %d (%v) size %d tag %d (%v)\n", l.FunctionName, l.Name, l.DeclLine,
			l.FrameOffset, l.HasFrameOffset, l.Size, l.TagOffset, l.HasTagOffset)
	}
	// Output:
	// records p line 91: offset 0 (false) size 16 tag 0 (false)
	// records b line 91: offset -52 (true) size 4 tag 0 (false)
	// records c line 91: offset -56 (true) size 4 tag 0 (false)
	// records q line 93: offset -176 (true) size 16 tag 1 (true)
}

// formatFrame prints locals as llvm-symbolizer 14 answers a FRAME request
// in its LLVM output style, the closing blank line left out.
func formatFrame(ls []symbolize.Local) string {
	if len(ls) == 0 {
		return "??\n"
	}
	or := func(s string) string {
		if s == "" {
			return "??"
		}
		return s
	}
	opt := func(ok bool, s string) string {
		if !ok {
			return "??"
		}
		return s
	}
	var b strings.Builder
	for _, l := range ls {
		fmt.Fprintf(&b, "%s\n%s\n%s:%d\n%s %s %s\n", or(l.FunctionName), or(l.Name), or(l.DeclFile), l.DeclLine,
			opt(l.HasFrameOffset, strconv.FormatInt(l.FrameOffset, 10)),
			opt(l.HasSize, strconv.FormatUint(l.Size, 10)),
			opt(l.HasTagOffset, strconv.FormatUint(l.TagOffset, 10)))
	}
	return b.String()
}

// frameSymbols returns [start, end) of the function symbols of an ELF or
// thin Mach-O file (an ELF stripped of its .symtab lends its NAME.debug's).
func frameSymbols(path string) [][2]uint64 {
	var out [][2]uint64
	if f, err := elf.Open(path); err == nil {
		defer f.Close()
		syms, _ := f.Symbols()
		if len(syms) == 0 {
			if d, err := elf.Open(path + ".debug"); err == nil {
				defer d.Close()
				syms, _ = d.Symbols()
			}
		}
		for _, s := range syms {
			if elf.ST_TYPE(s.Info) == elf.STT_FUNC && s.Size > 0 && s.Section != elf.SHN_UNDEF {
				out = append(out, [2]uint64{s.Value, s.Value + s.Size})
			}
		}
		return out
	}
	f, err := macho.Open(path)
	if err != nil || f.Symtab == nil {
		return nil
	}
	defer f.Close()
	// Mach-O symbols have no sizes: each runs to the next in __text.
	var starts []uint64
	for _, s := range f.Symtab.Syms {
		if s.Type&0x0e == 0x0e && s.Sect == 1 { // N_SECT in the first section (__TEXT,__text)
			starts = append(starts, s.Value)
		}
	}
	text := f.Section("__text")
	if text == nil {
		return nil
	}
	starts = append(starts, text.Addr+text.Size)
	for i := 0; i+1 < len(starts); i++ {
		if starts[i] < starts[i+1] {
			out = append(out, [2]uint64{starts[i], starts[i+1]})
		}
	}
	return out
}

// framePCs returns every 16th byte of every function, thinned evenly to
// at most max.
func framePCs(fns [][2]uint64, max int) []uint64 {
	seen := map[uint64]bool{}
	var out []uint64
	for _, fn := range fns {
		for pc := fn[0]; pc < fn[1]; pc += 16 {
			if !seen[pc] {
				seen[pc] = true
				out = append(out, pc)
			}
		}
	}
	if len(out) > max {
		thin := make([]uint64, max)
		for i := range thin {
			thin[i] = out[i*len(out)/max]
		}
		out = thin
	}
	return out
}

// llvmFrames asks llvm-symbolizer-14 FRAME requests for pcs and returns
// each answer without its closing blank line.
func llvmFrames(t *testing.T, llvm, path string, pcs []uint64) []string {
	t.Helper()
	var in bytes.Buffer
	for _, pc := range pcs {
		fmt.Fprintf(&in, "FRAME 0x%x\n", pc)
	}
	cmd := exec.Command(llvm, "--obj="+path)
	cmd.Stdin = &in
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("llvm-symbolizer-14: %v", err)
	}
	ans := strings.Split(string(out), "\n\n")
	if len(ans) != len(pcs)+1 || ans[len(pcs)] != "" {
		t.Fatalf("llvm-symbolizer-14 gave %d answers for %d requests", len(ans)-1, len(pcs))
	}
	for i := range pcs {
		ans[i] += "\n"
	}
	return ans[:len(pcs)]
}

// frameException excuses one field of the FRAME answers of one fixture
// where we differ from llvm-symbolizer-14 on purpose; match must be narrow.
// An exception that excuses nothing in a full run fails the test.
type frameException struct {
	fixture string
	field   string // "answer": the whole answer
	why     string
	match   func(pc uint64, ours, theirs string) bool
}

// lowDead matches an address below any code that we answer with no locals.
func lowDead(pc uint64, ours, _ string) bool { return pc < 0x1000 && ours == "??\n" }

var frameExceptions = []frameException{
	{"c-gcc-O2-gc-sections", "answer", "GNU ld leaves the DWARF of the discarded table_dump at address 0; " +
		"llvm-symbolizer 14 lists locals of dead code for low addresses, we answer only code addresses (as for CODE)", lowDead},
	{"cpp-clang14-O2", "answer", "an inlined copy inside a discarded COMDAT function has DW_AT_low_pc 0 (lld); " +
		"llvm-symbolizer 14 lists its locals for addresses 0-12, we answer only code addresses (as for CODE)", lowDead},
}

// TestLocalsMatchLLVMSymbolizer compares Binary.Locals, byte for byte in
// llvm-symbolizer's LLVM output style, with llvm-symbolizer-14's FRAME
// answers at every 16th byte of every function (at most 1500 addresses a
// file, 300 with -short) of every ELF fixture (testdata/elf and
// testdata/frame: separate debug files found by debuglink and build ID,
// compressed and .zdebug sections included) and every thin Mach-O fixture
// with its dSYM, plus addresses 0, 1 and 16, below any code. Differences
// fail but those frameExceptions excuses.
func TestLocalsMatchLLVMSymbolizer(t *testing.T) {
	llvm, err := exec.LookPath("llvm-symbolizer-14")
	if err != nil {
		t.Skip("llvm-symbolizer-14 not installed")
	}
	max := 1500
	if testing.Short() {
		max = 300
	}
	var paths []string
	for _, dir := range []string{"testdata/elf", "testdata/frame"} {
		ents, _ := os.ReadDir(dir)
		for _, e := range ents {
			if e.Type().IsRegular() && !strings.HasSuffix(e.Name(), ".debug") {
				paths = append(paths, filepath.Join(dir, e.Name()))
			}
		}
	}
	for _, fx := range machoFixtures {
		if fx.arch == "" && !strings.HasSuffix(fx.path, ".o") {
			paths = append(paths, fx.path)
		}
	}
	if len(paths) == 0 {
		t.Skip("no fixtures")
	}
	total, same := 0, 0
	used := make([]int, len(frameExceptions))
	for _, path := range paths {
		t.Run(filepath.Base(path), func(t *testing.T) {
			ref, err := reftwin.Of(path)
			if err != nil {
				t.Fatal(err)
			}
			pcs := framePCs(frameSymbols(path), max)
			if len(pcs) == 0 {
				t.Skip("no function symbols")
			}
			pcs = append(pcs, 0, 1, 16)
			b, err := symbolize.Open(path, nil)
			if ie := (*elfx.IdentityError)(nil); errors.As(err, &ie) {
				// A debug file that is not the binary's: reopened
				// without it, as examples/addr2line does (LLVM checks
				// the debuglink CRC and does not use it either).
				b, err = symbolize.Open(path, &symbolize.Options{NoDebugFile: true})
			}
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			want := llvmFrames(t, llvm, ref, pcs)
			n, locals, bad := 0, 0, 0
			for i, pc := range pcs {
				ls, err := b.Locals(pc)
				if err != nil {
					t.Fatalf("%#x: %v", pc, err)
				}
				locals += len(ls)
				got := formatFrame(ls)
				if got == want[i] {
					n++
					continue
				}
				excused := false
				for k, ex := range frameExceptions {
					if ex.fixture == filepath.Base(path) && ex.match(pc, got, want[i]) {
						used[k]++
						excused = true
						break
					}
				}
				if !excused {
					if bad++; bad <= 5 {
						t.Errorf("FRAME %#x:\n--- ours\n%s--- llvm-symbolizer-14\n%s", pc, got, want[i])
					}
				}
			}
			total += len(pcs)
			same += n
			t.Logf("%d of %d FRAME answers identical (%d locals)", n, len(pcs), locals)
		})
	}
	t.Logf("all fixtures: %d of %d FRAME answers identical", same, total)
	for k, ex := range frameExceptions {
		t.Logf("exception %s/%s excused %d answers", ex.fixture, ex.field, used[k])
		if used[k] == 0 && !testing.Short() && !t.Failed() {
			t.Errorf("exception %s/%s (%s) excused nothing", ex.fixture, ex.field, ex.why)
		}
	}
}

// TestLocalsEdges: no locals outside code or functions, ErrClosed after
// Close, and AppendLocals keeps what dst held.
func TestLocalsEdges(t *testing.T) {
	b, err := symbolize.Open("testdata/frame/frame-gcc-O0-dwarf4", nil)
	if err != nil {
		t.Skip(err)
	}
	for _, pc := range []uint64{0, 1, ^uint64(0)} {
		if ls, err := b.Locals(pc); len(ls) != 0 || err != nil {
			t.Errorf("Locals(%#x) = %v, %v; want none", pc, ls, err)
		}
	}
	fns := frameSymbols("testdata/frame/frame-gcc-O0-dwarf4")
	var pc uint64
	for _, fn := range fns {
		if ls, _ := b.Locals(fn[0]); len(ls) > 0 {
			pc = fn[0]
			break
		}
	}
	if pc == 0 {
		t.Fatal("no function with locals")
	}
	one, _ := b.Locals(pc)
	both, err := b.AppendLocals(one, pc)
	if err != nil || len(both) != 2*len(one) || both[len(one)] != one[0] {
		t.Errorf("AppendLocals: %d locals after %d, err %v", len(both), len(one), err)
	}
	b.Close()
	if _, err := b.Locals(pc); !errors.Is(err, symbolize.ErrClosed) {
		t.Errorf("Locals after Close: %v, want ErrClosed", err)
	}
}

// TestLocalsConcurrent: Locals from several goroutines at once (the first
// lookups of each unit racing) give the sequential answers. Run with -race.
func TestLocalsConcurrent(t *testing.T) {
	const path = "testdata/frame/frame-gcc-O2-dwarf5"
	pcs := framePCs(frameSymbols(path), 200)
	if len(pcs) == 0 {
		t.Skip("no fixture")
	}
	seq, err := symbolize.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer seq.Close()
	want := make([]string, len(pcs))
	for i, pc := range pcs {
		ls, _ := seq.Locals(pc)
		want[i] = formatFrame(ls)
	}
	b, err := symbolize.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for k := range pcs {
				i := (k*7 + g*13) % len(pcs)
				ls, err := b.Locals(pcs[i])
				if got := formatFrame(ls); err != nil || got != want[i] {
					t.Errorf("goroutine %d, %#x: %v\n%s\nwant\n%s", g, pcs[i], err, got, want[i])
					return
				}
			}
		})
	}
	wg.Wait()
}
