package inline

import (
	"bytes"
	"fmt"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/symbolize-go/symbolize/internal/dwinfo/dwinfotest"
	"github.com/symbolize-go/symbolize/internal/reftwin"
)

// localsException excuses one field of FRAME answers on one fixture where
// we differ from llvm-symbolizer-14 on purpose. match sees the two
// answers' lines for one local (function, name, decl, "offset size tag")
// and must be narrow; an exception that excuses nothing in a full run
// fails the test.
type localsException struct {
	fixture string
	field   int // index of the line within a local: 0 function, 1 name, 2 decl, 3 numbers
	why     string
	match   func(ours, theirs []string) bool
}

var localsExceptions = []localsException{}

// formatLocals prints locals as llvm-symbolizer 14 prints a FRAME answer
// in its LLVM output style, without the blank line that ends it.
func formatLocals(ls []Local) string {
	if len(ls) == 0 {
		return "??\n"
	}
	var b strings.Builder
	or := func(s string) string {
		if s == "" {
			return "??"
		}
		return s
	}
	for _, l := range ls {
		fmt.Fprintf(&b, "%s\n%s\n%s:%d\n", or(l.FunctionName), or(l.Name), or(l.DeclFile), l.DeclLine)
		num := func(ok bool, s string) string {
			if !ok {
				return "??"
			}
			return s
		}
		fmt.Fprintf(&b, "%s %s %s\n",
			num(l.HasFrameOffset, strconv.FormatInt(l.FrameOffset, 10)),
			num(l.HasSize, strconv.FormatUint(l.Size, 10)),
			num(l.HasTagOffset, strconv.FormatUint(l.TagOffset, 10)))
	}
	return b.String()
}

// framePCs returns every 16th byte of every function symbol, thinned
// evenly to at most max.
func framePCs(syms []funcSym, max int) []uint64 {
	var out []uint64
	seen := map[uint64]bool{}
	for _, s := range syms {
		for pc := s.addr; pc < s.addr+s.size; pc += 16 {
			if !seen[pc] {
				seen[pc] = true
				out = append(out, pc)
			}
		}
	}
	if len(out) > max {
		thin := make([]uint64, 0, max)
		for i := range max {
			thin = append(thin, out[i*len(out)/max])
		}
		out = thin
	}
	return out
}

// runFrames asks llvm-symbolizer-14 FRAME requests for pcs and returns
// each answer without its closing blank line.
func runFrames(t *testing.T, tool, path string, pcs []uint64) []string {
	t.Helper()
	var in bytes.Buffer
	for _, pc := range pcs {
		fmt.Fprintf(&in, "FRAME 0x%x\n", pc)
	}
	cmd := exec.Command(tool, "--obj="+path)
	cmd.Stdin = &in
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	ans := strings.Split(string(out), "\n\n")
	if len(ans) != len(pcs)+1 || ans[len(pcs)] != "" {
		t.Fatalf("%s answered %d answers for %d requests", tool, len(ans)-1, len(pcs))
	}
	for i := range pcs {
		ans[i] += "\n"
	}
	return ans[:len(pcs)]
}

// localsOf answers a FRAME request at pc the way the root package does.
func (o *object) localsOf(t testing.TB, loc, loclists []byte, pc uint64) ([]Local, error) {
	ui := o.unit(t, pc)
	if ui == nil || ui.ix == nil {
		return nil, nil
	}
	die, ok := ui.ix.Subroutine(pc)
	if !ok {
		return nil, nil
	}
	var asz uint8
	if h, err := o.d.HeaderAt(0); err == nil {
		asz = h.AddrSize
	}
	return AppendLocals(nil, o.d, ui.u, die, &LocalsOptions{
		LineTable: o.table(ui.u), Loc: loc, Loclists: loclists, AddrSize: asz,
	})
}

// TestLocalsLLVM compares FRAME answers, byte for byte in llvm-symbolizer's
// LLVM output style, with llvm-symbolizer-14 at every 16th byte of every
// function of every fixture, testdata/frame's included (at most 6000
// addresses a fixture, 600 with -short). Every difference fails but those localsExceptions excuses.
func TestLocalsLLVM(t *testing.T) {
	tool, err := exec.LookPath("llvm-symbolizer-14")
	if err != nil {
		t.Skip("llvm-symbolizer-14 not installed")
	}
	max := 6000
	if testing.Short() {
		max = 600
	}
	used := make([]int, len(localsExceptions))
	// testdata/frame holds the fixtures built for FRAME requests alone.
	paths := append(fixtures(t), dwinfotest.Fixtures("../testdata/frame", "")...)
	for _, path := range paths {
		name := filepath.Base(path)
		t.Run(name, func(t *testing.T) {
			o, ok := openObject(t, path)
			if !ok {
				t.Skip("no .debug_info")
			}
			e, _, err := dwinfotest.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer e.File.Close()
			loc, loclists := e.Section(".debug_loc"), e.Section(".debug_loclists")
			refPath, err := reftwin.Of(path)
			if err != nil {
				t.Fatal(err)
			}
			pcs := framePCs(funcSyms(o.f), max)
			if len(pcs) == 0 {
				t.Skip("no function symbols")
			}
			want := runFrames(t, tool, refPath, pcs)
			same, locals, bad := 0, 0, 0
			for i, pc := range pcs {
				ls, err := o.localsOf(t, loc, loclists, pc)
				if err != nil {
					t.Logf("%#x: %v", pc, err)
				}
				locals += len(ls)
				got := formatLocals(ls)
				if got == want[i] {
					same++
					continue
				}
				if excused(name, got, want[i], used) {
					continue
				}
				if bad++; bad <= 5 {
					t.Errorf("FRAME %#x:\n--- ours\n%s--- llvm-symbolizer-14\n%s", pc, got, want[i])
				}
			}
			t.Logf("%d of %d FRAME answers identical (%d locals)", same, len(pcs), locals)
		})
	}
	if !testing.Short() && !t.Failed() {
		for i, ex := range localsExceptions {
			if used[i] == 0 {
				t.Errorf("exception %s/%d (%s) excused nothing", ex.fixture, ex.field, ex.why)
			}
		}
	}
}

// excused reports whether the answers differ only where an exception of
// fixture allows: same number of locals, and every differing line is the
// excepted field of a local the exception matches.
func excused(fixture, got, want string, used []int) bool {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	if len(g) != len(w) || len(g)%4 != 1 {
		return false
	}
	hit := -1
	for k := 0; k+4 <= len(g); k += 4 {
		for f := range 4 {
			if g[k+f] == w[k+f] {
				continue
			}
			ok := false
			for i, ex := range localsExceptions {
				if ex.fixture == fixture && ex.field == f && ex.match(g[k:k+4], w[k:k+4]) {
					ok, hit = true, i
					break
				}
			}
			if !ok {
				return false
			}
		}
	}
	if hit >= 0 {
		used[hit]++
	}
	return hit >= 0
}
