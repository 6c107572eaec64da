package symbolize_test

// Split DWARF against llvm-symbolizer-14 and against the non-split twins.
//
// The fixtures under testdata/split (see testdata/README.md) record
// DW_AT_comp_dir /symbolize/testdata and DW_AT_dwo_name
// "split/VARIANT/FILE.dwo", so LLVM, which looks for a .dwo only at
// COMP_DIR/NAME, finds them when /symbolize/testdata is testdata/. The
// tests give it that view without touching the file system's root: a copy
// of the binary whose "/symbolize/testdata" strings are replaced by a
// symbolic link of the same length in /tmp (so no offset moves), pointing
// at the directory to serve, and the link's name is mapped back in LLVM's
// answers. We open the fixtures as they are: the default locator finds each
// .dwo beside the binary.

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/symbolize-go/symbolize"
)

// splitVariants are the split builds and their non-split twins in elf/
// (the same code at the same addresses).
var splitVariants = []struct{ name, twin string }{
	{"gcc-dwarf5", "c-gcc-O2-dwarf5"},
	{"gcc-dwarf4", "c-gcc-O2-dwarf4"},
	{"clang-dwarf5", "c-clang14-O2-dwarf5"},
}

const fixtureCompDir = "/symbolize/testdata"

// compDirLink returns a symbolic link in /tmp, of the length of
// fixtureCompDir, to target; removed at the end of the test.
func compDirLink(t *testing.T, target string) string {
	t.Helper()
	abs, err := filepath.Abs(target)
	if err != nil {
		t.Fatal(err)
	}
	for range 100 {
		p := fmt.Sprintf("/tmp/symbolize-%04d", rand.IntN(10000))
		if len(p) != len(fixtureCompDir) {
			t.Fatalf("link %q is not %d bytes", p, len(fixtureCompDir))
		}
		if err := os.Symlink(abs, p); err == nil {
			t.Cleanup(func() { os.Remove(p) })
			return p
		}
	}
	t.Skip("cannot make a link in /tmp")
	return ""
}

// llvmView is a copy of the binary at path for llvm-symbolizer, whose
// compilation directory is root (a directory holding split/VARIANT/*.dwo),
// and the function that maps the copy's paths back in LLVM's answers.
func llvmView(t *testing.T, path, root string) (string, func([]refAnswer)) {
	t.Helper()
	link := compDirLink(t, root)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Count(data, []byte(fixtureCompDir)) == 0 {
		t.Fatalf("%s does not name %s", path, fixtureCompDir)
	}
	view := filepath.Join(t.TempDir(), filepath.Base(path))
	if err := os.WriteFile(view, bytes.ReplaceAll(data, []byte(fixtureCompDir), []byte(link)), 0o644); err != nil {
		t.Fatal(err)
	}
	unmap := func(ans []refAnswer) {
		for i := range ans {
			for j := range ans[i].Symbol {
				f := &ans[i].Symbol[j]
				f.FileName = strings.ReplaceAll(f.FileName, link, fixtureCompDir)
				f.StartFileName = strings.ReplaceAll(f.StartFileName, link, fixtureCompDir)
			}
		}
	}
	return view, unmap
}

// splitCase is one way of finding the split units, for both sides.
type splitCase struct {
	name string
	// setup returns the binary we open with its options, and the binary
	// llvm-symbolizer reads with its extra arguments (and the mapping of
	// its answers).
	setup func(t *testing.T, v string) (ours string, o symbolize.Options, ref string, args []string, unmap func([]refAnswer))
}

var splitCases = []splitCase{
	{"dwo", func(t *testing.T, v string) (string, symbolize.Options, string, []string, func([]refAnswer)) {
		path := filepath.Join("testdata/split", v, "calc")
		view, unmap := llvmView(t, path, "testdata")
		return path, symbolize.Options{}, view, nil, unmap
	}},
	{"dwp", func(t *testing.T, v string) (string, symbolize.Options, string, []string, func([]refAnswer)) {
		path := filepath.Join("testdata/split", v, "calc")
		pkg := filepath.Join("testdata/split", v+".dwp")
		return path, symbolize.Options{DWP: pkg}, path, []string{"--dwp=" + pkg}, func([]refAnswer) {}
	}},
	{"dwp-beside", func(t *testing.T, v string) (string, symbolize.Options, string, []string, func([]refAnswer)) {
		dir := t.TempDir()
		bin := filepath.Join(dir, "calc")
		copyInto(t, filepath.Join("testdata/split", v, "calc"), bin)
		copyInto(t, filepath.Join("testdata/split", v+".dwp"), bin+".dwp")
		return bin, symbolize.Options{}, bin, nil, func([]refAnswer) {}
	}},
}

// copyInto is copyFile making to's directory first.
func copyInto(t *testing.T, from, to string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		t.Fatal(err)
	}
	copyFile(t, from, to)
}

// splitExceptions are the known differences from llvm-symbolizer-14 on the
// split builds.
var splitExceptions = []refException{}

// TestSplitAgainstLLVMSymbolizer compares every field of every frame with
// llvm-symbolizer-14 on the split builds, their units found as .dwo files,
// through --dwp, and as BINARY.dwp.
func TestSplitAgainstLLVMSymbolizer(t *testing.T) {
	llvm, err := exec.LookPath("llvm-symbolizer-14")
	if err != nil {
		t.Skip("llvm-symbolizer-14 not installed")
	}
	ex := newRefExcuses(splitExceptions)
	for _, v := range splitVariants {
		for _, c := range splitCases {
			name := v.name + "/" + c.name
			t.Run(name, func(t *testing.T) {
				ours, o, ref, args, unmap := c.setup(t, v.name)
				addrs := sampleAddrs(t, ours)
				eachInlineMode(t, addrs, func(t *testing.T, addrs []uint64, inlines bool, mode string) {
					flag := "--no-inlines"
					if inlines {
						flag = "--inlines"
					}
					want := queryLLVM(t, llvm, append([]string{"--obj=" + ref, "--output-style=JSON", "--no-demangle", flag}, args...), addrs)
					unmap(want)
					o := o
					o.Inlines = inlines
					b, err := symbolize.Open(ours, &o)
					if err != nil {
						t.Fatal(err)
					}
					defer b.Close()
					got := framesOf(t, b, addrs)
					if w := b.Warnings(); len(w) > 0 {
						t.Errorf("warnings: %v", w)
					}
					compareRef(t, ex, name, mode, addrs, want, got)
					if inlines {
						checkInlined(t, want)
					}
				})
			})
		}
	}
	ex.check(t)
}

// checkInlined fails unless the answers hold inline chains: a split build
// read without its split units answers with one frame everywhere.
func checkInlined(t *testing.T, ans []refAnswer) {
	t.Helper()
	for _, a := range ans {
		if len(a.Symbol) > 1 {
			return
		}
	}
	if !testing.Short() {
		t.Errorf("no answer has an inlined frame")
	}
}

// TestSplitMatchesTwin compares our answers on each split build (.dwo and
// .dwp) with our answers on the same program built without -gsplit-dwarf:
// every field of every frame is the same with
// Options.SplitBaseFromSkeleton. By default, as llvm-symbolizer-14 (which
// TestSplitAgainstLLVMSymbolizer checks), the inlined calls that split
// units describe by offset-pair range lists are lost in units of
// contiguous code: the test counts those addresses, and fails if there are
// none (the option would then be untested).
func TestSplitMatchesTwin(t *testing.T) {
	ex := newRefExcuses(nil)
	for _, v := range splitVariants {
		for _, c := range splitCases[:2] {
			name := v.name + "/" + c.name
			t.Run(name, func(t *testing.T) {
				ours, o, _, _, _ := c.setup(t, v.name)
				addrs := sampleAddrs(t, ours)
				eachInlineMode(t, addrs, func(t *testing.T, addrs []uint64, inlines bool, mode string) {
					twin := runOurs(t, filepath.Join("testdata/elf", v.twin), addrs, inlines)
					want := make([]refAnswer, len(twin))
					for i, fr := range twin {
						want[i] = refAnswer{Address: fmt.Sprintf("0x%x", addrs[i]), Symbol: fr}
					}
					o := o
					o.Inlines, o.SplitBaseFromSkeleton = inlines, true
					b, err := symbolize.Open(ours, &o)
					if err != nil {
						t.Fatal(err)
					}
					defer b.Close()
					compareRef(t, ex, name, mode, addrs, want, framesOf(t, b, addrs))

					o.SplitBaseFromSkeleton = false
					lb, err := symbolize.Open(ours, &o)
					if err != nil {
						t.Fatal(err)
					}
					defer lb.Close()
					differ := 0
					for i, fr := range framesOf(t, lb, addrs) {
						if !slices.Equal(fr, twin[i]) {
							differ++
						}
					}
					t.Logf("%s %s: %d addresses differ from the twin with LLVM 14's base address 0", name, mode, differ)
					if differ == 0 && !testing.Short() {
						t.Errorf("no address differs without SplitBaseFromSkeleton")
					}
				})
			})
		}
	}
	ex.check(t)
}

// TestSplitMissingAndMismatch takes one .dwo away and replaces another by
// a different build's: the skeletons of those units answer what they know
// (the line table's location, named by the symbol table), exactly as
// llvm-symbolizer-14 does, and each is a *SplitUnitError in Warnings: the
// missing one wrapping fs.ErrNotExist, the other ErrDWOIDMismatch.
func TestSplitMissingAndMismatch(t *testing.T) {
	llvm, err := exec.LookPath("llvm-symbolizer-14")
	if err != nil {
		t.Skip("llvm-symbolizer-14 not installed")
	}
	others := map[string]string{"gcc-dwarf5": "gcc-dwarf4", "gcc-dwarf4": "gcc-dwarf5", "clang-dwarf5": "gcc-dwarf5"}
	ex := newRefExcuses(nil)
	for _, v := range splitVariants {
		t.Run(v.name, func(t *testing.T) {
			root := t.TempDir()
			dir := filepath.Join(root, "split", v.name)
			src := filepath.Join("testdata/split", v.name)
			for _, f := range []string{"calc", "lexer.dwo", "main.dwo", "table.dwo"} {
				copyInto(t, filepath.Join(src, f), filepath.Join(dir, f))
			}
			// stats.dwo is missing; parser.dwo is another build's.
			copyInto(t, filepath.Join("testdata/split", others[v.name], "parser.dwo"), filepath.Join(dir, "parser.dwo"))
			bin := filepath.Join(dir, "calc")
			view, unmap := llvmView(t, bin, root)
			addrs := sampleAddrs(t, bin)
			eachInlineMode(t, addrs, func(t *testing.T, addrs []uint64, inlines bool, mode string) {
				flag := "--no-inlines"
				if inlines {
					flag = "--inlines"
				}
				want := queryLLVM(t, llvm, []string{"--obj=" + view, "--output-style=JSON", "--no-demangle", flag}, addrs)
				unmap(want)
				b, err := symbolize.Open(bin, &symbolize.Options{Inlines: inlines})
				if err != nil {
					t.Fatal(err)
				}
				defer b.Close()
				compareRef(t, ex, v.name, mode, addrs, want, framesOf(t, b, addrs))
				var missing, mismatch int
				for _, w := range b.Warnings() {
					var se *symbolize.SplitUnitError
					switch {
					case !errors.As(w, &se):
						t.Errorf("warning %v is not a *SplitUnitError", w)
					case errors.Is(w, fs.ErrNotExist) && strings.HasSuffix(se.DWOName, "/stats.dwo"):
						missing++
					case errors.Is(w, symbolize.ErrDWOIDMismatch) && strings.HasSuffix(se.DWOName, "/parser.dwo") && se.Path != "":
						mismatch++
					default:
						t.Errorf("unexpected warning %v", w)
					}
				}
				if missing != 1 || mismatch != 1 {
					t.Errorf("warnings %v: want one missing stats.dwo and one mismatched parser.dwo", b.Warnings())
				}
			})
		})
	}
}

// TestSplitLocalsAgainstLLVMSymbolizer: llvm-symbolizer-14's FRAME
// answers read the skeleton unit alone, so a split build has no locals; so
// has ours, byte for byte.
func TestSplitLocalsAgainstLLVMSymbolizer(t *testing.T) {
	llvm, err := exec.LookPath("llvm-symbolizer-14")
	if err != nil {
		t.Skip("llvm-symbolizer-14 not installed")
	}
	for _, v := range splitVariants {
		t.Run(v.name, func(t *testing.T) {
			path := filepath.Join("testdata/split", v.name, "calc")
			view, _ := llvmView(t, path, "testdata")
			pcs := framePCs(frameSymbols(path), 300)
			b, err := symbolize.Open(path, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			want := llvmFrames(t, llvm, view, pcs)
			same := 0
			for i, pc := range pcs {
				ls, err := b.Locals(pc)
				if err != nil {
					t.Fatal(err)
				}
				if got := formatFrame(ls); got == want[i] {
					same++
				} else {
					t.Errorf("%#x: FRAME %q, llvm-symbolizer-14 %q", pc, got, want[i])
				}
			}
			t.Logf("%s: %d/%d FRAME answers identical", v.name, same, len(pcs))
		})
	}
}

// TestSplitIdentity: the .dwo files and the package that answered are in
// the identity record, as lookups open them, and only those.
func TestSplitIdentity(t *testing.T) {
	for _, tc := range []struct {
		o    symbolize.Options
		role string
		file string
		how  string
	}{
		{symbolize.Options{}, "dwo", "testdata/split/gcc-dwarf5/stats.dwo", "beside the binary"},
		{symbolize.Options{DWP: "testdata/split/gcc-dwarf5.dwp"}, "dwp", "testdata/split/gcc-dwarf5.dwp", "given"},
	} {
		tc.o.Inlines = true
		b, err := symbolize.Open("testdata/split/gcc-dwarf5/calc", &tc.o)
		if err != nil {
			t.Fatal(err)
		}
		defer b.Close()
		count := func() (n int, last symbolize.IdentityFile) {
			id, err := b.Identity()
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range id.Files {
				if f.Role == tc.role {
					n, last = n+1, f
				}
			}
			return n, last
		}
		if n, _ := count(); n != 0 {
			t.Errorf("%s: %d files before any lookup", tc.role, n)
		}
		// 0x31a0 is in compute_stats (stats.c): inlined frames.
		fr, err := b.AppendFrames(nil, 0x31a0)
		if err != nil || len(fr) < 2 {
			t.Fatalf("0x31a0: %+v, %v", fr, err)
		}
		n, f := count()
		want, _ := filepath.Abs(tc.file)
		got, _ := filepath.Abs(f.Path)
		if n != 1 || got != want || f.How != tc.how || len(f.SHA256) != 64 {
			t.Errorf("%s: %d files, last %+v; want %s found %q", tc.role, n, f, want, tc.how)
		}
	}
}
