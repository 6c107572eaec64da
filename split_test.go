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
	"context"
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"iter"
	"maps"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/symbolize-go/symbolize"
	"github.com/symbolize-go/symbolize/elfx"
	"github.com/symbolize-go/symbolize/locate"
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

// TestSplitBadPackage corrupts the index of gcc-dwarf5.dwp: each bad slot
// or row costs its own unit, whose skeleton then answers exactly as it
// does when that unit's .dwo is missing, and is a *SplitUnitError in
// Warnings; the other units answer in full. An index that is unusable as a
// whole refuses the package (a *SplitUnitError without a unit), and the
// .dwo files answer instead.
func TestSplitBadPackage(t *testing.T) {
	const v = "gcc-dwarf5"
	bin := filepath.Join("testdata/split", v, "calc")
	pkg, err := os.ReadFile(filepath.Join("testdata/split", v+".dwp"))
	if err != nil {
		t.Fatal(err)
	}
	ef, err := elf.NewFile(bytes.NewReader(pkg))
	if err != nil {
		t.Fatal(err)
	}
	sec := ef.Section(".debug_cu_index")
	idx := pkg[sec.Offset : sec.Offset+sec.Size]
	slots := int(binary.LittleEndian.Uint32(idx[12:]))
	units := int(binary.LittleEndian.Uint32(idx[8:]))
	cols := int(binary.LittleEndian.Uint32(idx[4:]))
	sigAt := func(idx []byte, i int) []byte { return idx[16+8*i:] }
	rowAt := func(idx []byte, i int) []byte { return idx[16+8*slots+4*i:] }

	// The unit to break: the one in stats.dwo (dwo_id at offset 12 of a
	// DWARF 5 split unit header), and its slot.
	statsDWO, err := elf.Open(filepath.Join("testdata/split", v, "stats.dwo"))
	if err != nil {
		t.Fatal(err)
	}
	info, _ := statsDWO.Section(".debug_info.dwo").Data()
	statsDWO.Close()
	id := binary.LittleEndian.Uint64(info[12:])
	slot := -1
	for i := range slots {
		if binary.LittleEndian.Uint32(rowAt(idx, i)) != 0 && binary.LittleEndian.Uint64(sigAt(idx, i)) == id {
			slot = i
		}
	}
	if slot < 0 {
		t.Fatalf("dwo_id %#x not in the index", id)
	}
	row := int(binary.LittleEndian.Uint32(rowAt(idx, slot)))

	addrs := sampleAddrs(t, bin)
	if testing.Short() {
		addrs = addrs[:500]
	}
	answers := func(path string, o symbolize.Options) ([][]refFrame, []error) {
		o.Inlines = true
		b, err := symbolize.Open(path, &o)
		if err != nil {
			t.Fatal(err)
		}
		defer b.Close()
		return framesOf(t, b, addrs), b.Warnings()
	}
	full, _ := answers(bin, symbolize.Options{DWP: filepath.Join("testdata/split", v+".dwp")})
	// The same with stats.dwo missing.
	dir := t.TempDir()
	for _, f := range []string{"calc", "lexer.dwo", "main.dwo", "parser.dwo", "table.dwo"} {
		copyInto(t, filepath.Join("testdata/split", v, f), filepath.Join(dir, f))
	}
	noStats, _ := answers(filepath.Join(dir, "calc"), symbolize.Options{})
	differ := 0
	for i := range addrs {
		if !slices.Equal(full[i], noStats[i]) {
			differ++
		}
	}
	if differ == 0 {
		t.Fatal("stats.dwo answers no sampled address")
	}

	for _, tc := range []struct {
		name  string
		patch func(idx []byte)
		want  [][]refFrame // nil: the unit of stats.dwo fails
		err   error
	}{
		{"row past unit_count", func(idx []byte) { binary.LittleEndian.PutUint32(rowAt(idx, slot), uint32(units+7)) }, nil, symbolize.ErrFormat},
		{"row named twice", func(idx []byte) {
			// stats' slot names the row of the unit in the next used
			// slot, which comes first in slot order.
			for i := slot - 1; i >= 0; i-- {
				if r := binary.LittleEndian.Uint32(rowAt(idx, i)); r != 0 {
					binary.LittleEndian.PutUint32(rowAt(idx, slot), r)
					return
				}
			}
			t.Fatal("stats' slot is the first used")
		}, nil, symbolize.ErrFormat},
		{"dwo_id matches nothing", func(idx []byte) { binary.LittleEndian.PutUint64(sigAt(idx, slot), id^0x8000_0000_0000_0000) }, nil, nil},
		{"INFO contribution past the section", func(idx []byte) {
			off := 16 + 12*slots + 4*cols + 4*cols*(row-1) // row's INFO offset (column 0)
			binary.LittleEndian.PutUint32(idx[off:], 0xfff0_0000)
		}, nil, symbolize.ErrTruncated},
		{"version 9: the package is refused", func(idx []byte) { binary.LittleEndian.PutUint16(idx, 9) }, full, symbolize.ErrUnsupportedVersion},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bad := bytes.Clone(pkg)
			tc.patch(bad[sec.Offset : sec.Offset+sec.Size])
			// The binary stays in testdata (so its .dwo files are beside
			// it), the package is given.
			path := filepath.Join(t.TempDir(), "bad.dwp")
			if err := os.WriteFile(path, bad, 0o644); err != nil {
				t.Fatal(err)
			}
			got, warns := answers(bin, symbolize.Options{DWP: path})
			want := tc.want
			if want == nil {
				want = noStats
			}
			n := 0
			for i := range addrs {
				if !slices.Equal(got[i], want[i]) {
					t.Errorf("%#x: %+v\nwant %+v", addrs[i], got[i], want[i])
				} else {
					n++
				}
			}
			t.Logf("%d/%d addresses as expected; warnings %v", n, len(addrs), warns)
			if len(warns) != 1 {
				t.Fatalf("warnings %v, want one", warns)
			}
			var se *symbolize.SplitUnitError
			if !errors.As(warns[0], &se) {
				t.Fatalf("%v is not a *SplitUnitError", warns[0])
			}
			switch {
			case tc.want != nil && se.DWOName != "":
				t.Errorf("%v names a unit; want the package refused", se)
			case tc.want == nil && (se.DWOID != id || !strings.HasSuffix(se.DWOName, "/stats.dwo")):
				t.Errorf("%v is not about stats.dwo", se)
			case tc.err == nil && !errors.Is(se, symbolize.ErrDWOIDMismatch):
				t.Errorf("%v: want ErrDWOIDMismatch", se)
			case tc.err != nil && !errors.Is(se, tc.err):
				t.Errorf("%v: want %v", se, tc.err)
			}
			var de *symbolize.DecodeError
			if tc.err != nil && (!errors.As(se, &de) || de.Section == "") {
				t.Errorf("%v holds no *DecodeError naming a section", se)
			}
		})
	}
}

// splitFiles is a Locator serving a package and .dwo files from memory
// (by base name), for FuzzSplit.
type splitFiles struct {
	dwp  []byte
	dwos map[string][]byte
}

func (l splitFiles) Locate(_ context.Context, k locate.Key) iter.Seq2[*locate.File, error] {
	return func(yield func(*locate.File, error) bool) {
		switch {
		case k.Kind == locate.KindDWP && l.dwp != nil:
			yield(locate.NewBytes("fuzz.dwp", locate.HowGiven, l.dwp), nil)
		case k.Kind == locate.KindDWO && l.dwos[filepath.Base(k.Name)] != nil:
			yield(locate.NewBytes(k.Name, locate.HowCompDir, l.dwos[filepath.Base(k.Name)]), nil)
		}
	}
}

// FuzzSplit feeds corrupt split units through symbolization: a variant's
// package, or its stats.dwo, with bytes of one of its sections overwritten
// (the section chosen by index, the offset within it) and the file maybe
// cut short, served from memory to the binary of that variant; lookups
// over every unit. Nothing may panic or hang, and every problem is a
// *SplitUnitError.
func FuzzSplit(f *testing.F) {
	type base struct {
		bin  []byte
		dwp  []byte
		dwos map[string][]byte
		pcs  []uint64
	}
	var bases []base
	for _, v := range splitVariants {
		dir := filepath.Join("testdata/split", v.name)
		b := base{bin: mustReadSplit(f, filepath.Join(dir, "calc")), dwp: mustReadSplit(f, dir+".dwp"), dwos: map[string][]byte{}}
		for _, n := range []string{"lexer", "main", "parser", "stats", "table"} {
			b.dwos[n+".dwo"] = mustReadSplit(f, filepath.Join(dir, n+".dwo"))
		}
		b.pcs = funcMidPCs(f, b.bin)
		bases = append(bases, b)
	}
	for i := range bases {
		for sec := range uint8(len(dwoFuzzSections)) {
			f.Add(uint8(i), false, sec, uint32(0), []byte{0xff, 0xff, 0xff, 0xff}, uint32(0))
			f.Add(uint8(i), true, sec, uint32(12), []byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 1}, uint32(0))
		}
	}
	f.Fuzz(func(t *testing.T, which uint8, pkg bool, sec uint8, at uint32, patch []byte, keep uint32) {
		b := bases[int(which)%len(bases)]
		file := b.dwos["stats.dwo"]
		if pkg {
			file = b.dwp
		}
		file = slices.Clone(file)
		ef, err := elf.NewFile(bytes.NewReader(file))
		if err != nil {
			t.Fatal(err)
		}
		if s := ef.Section(dwoFuzzSections[int(sec)%len(dwoFuzzSections)]); s != nil && s.Size > 0 {
			copy(file[s.Offset+uint64(at)%s.Size:s.Offset+s.Size], patch)
		}
		if keep != 0 {
			file = file[:int(keep)%len(file)]
		}
		loc := splitFiles{dwos: map[string][]byte{}}
		if pkg {
			loc.dwp = file
		} else {
			maps.Copy(loc.dwos, b.dwos)
			loc.dwos["stats.dwo"] = file
		}
		o := &symbolize.Options{Inlines: true, DWP: "fuzz.dwp", Debug: &elfx.DebugOptions{Locator: loc}}
		bin, err := symbolize.NewBytes(b.bin, o)
		if err != nil {
			t.Fatal(err)
		}
		defer bin.Close()
		var fr []symbolize.Frame
		for _, pc := range b.pcs {
			fr, _ = bin.AppendFrames(fr[:0], pc)
		}
		for _, w := range bin.Warnings() {
			var se *symbolize.SplitUnitError
			if !errors.As(w, &se) {
				t.Errorf("warning %v is not a *SplitUnitError", w)
			}
		}
	})
}

// dwoFuzzSections are the sections FuzzSplit patches.
var dwoFuzzSections = []string{".debug_cu_index", ".debug_info.dwo", ".debug_abbrev.dwo", ".debug_str_offsets.dwo",
	".debug_rnglists.dwo", ".debug_str.dwo", ".shstrtab"}

func mustReadSplit(tb testing.TB, path string) []byte {
	data, err := os.ReadFile(path)
	if err != nil {
		tb.Skip(err)
	}
	return data
}

// BenchmarkSplitCold is the cold one-address answer (Open, one
// AppendFrames with inlines, Close) inside compute_stats, on each split
// build (its .dwo files beside it, or its package given) and on its
// non-split twin; cpu-µs/op is the process's CPU time (getrusage) per
// answer, which waiting for a CPU does not inflate. BENCHMARKS.md records
// the ratios.
func BenchmarkSplitCold(b *testing.B) {
	for _, v := range splitVariants {
		split := filepath.Join("testdata/split", v.name, "calc")
		ef, err := elf.Open(split)
		if err != nil {
			b.Skip(err)
		}
		syms, _ := ef.Symbols()
		ef.Close()
		var pc uint64
		for _, s := range syms {
			if s.Name == "compute_stats" {
				pc = s.Value + s.Size/2
			}
		}
		for _, c := range []struct {
			name, path string
			o          symbolize.Options
		}{
			{"twin", filepath.Join("testdata/elf", v.twin), symbolize.Options{}},
			{"dwo", split, symbolize.Options{}},
			{"dwp", split, symbolize.Options{DWP: filepath.Join("testdata/split", v.name+".dwp")}},
		} {
			b.Run(v.name+"/"+c.name, func(b *testing.B) {
				o := c.o
				o.Inlines = true
				b.ReportAllocs()
				cpu := splitCPUTime()
				for b.Loop() {
					bin, err := symbolize.Open(c.path, &o)
					if err != nil {
						b.Fatal(err)
					}
					fr, err := bin.AppendFrames(nil, pc)
					if err != nil || len(fr) == 0 || fr[0].Line == 0 {
						b.Fatalf("%#x: %+v, %v", pc, fr, err)
					}
					bin.Close()
				}
				b.ReportMetric(float64(splitCPUTime()-cpu)/1e3/float64(b.N), "cpu-µs/op")
			})
		}
	}
}

// TestSplitDebugFilePackage: a binary stripped of its DWARF keeps its
// skeletons in its separate debug file (found by .gnu_debuglink), and the
// package is looked for beside that file, as DEBUGFILE.dwp, as
// llvm-symbolizer-14 looks for it; every field of every sampled address
// agrees with it, inlines on and off.
func TestSplitDebugFilePackage(t *testing.T) {
	llvm, err := exec.LookPath("llvm-symbolizer-14")
	if err != nil {
		t.Skip("llvm-symbolizer-14 not installed")
	}
	dir := t.TempDir()
	src := "testdata/split/gcc-dwarf5-stripped"
	copyInto(t, filepath.Join(src, "calc"), filepath.Join(dir, "calc"))
	copyInto(t, filepath.Join(src, "calc.debug"), filepath.Join(dir, "calc.debug"))
	copyInto(t, "testdata/split/gcc-dwarf5.dwp", filepath.Join(dir, "calc.debug.dwp"))
	bin := filepath.Join(dir, "calc")
	ex := newRefExcuses(nil)
	eachInlineMode(t, sampleAddrs(t, bin), func(t *testing.T, addrs []uint64, inlines bool, mode string) {
		flag := "--no-inlines"
		if inlines {
			flag = "--inlines"
		}
		want := queryLLVM(t, llvm, []string{"--obj=" + bin, "--output-style=JSON", "--no-demangle", flag}, addrs)
		b, err := symbolize.Open(bin, &symbolize.Options{Inlines: inlines})
		if err != nil {
			t.Fatal(err)
		}
		defer b.Close()
		compareRef(t, ex, "gcc-dwarf5-stripped", mode, addrs, want, framesOf(t, b, addrs))
		if inlines {
			checkInlined(t, want)
		}
		if w := b.Warnings(); len(w) > 0 {
			t.Errorf("warnings: %v", w)
		}
	})
}

// funcMidPCs returns the middle address of every sized function symbol of
// the ELF image bin: the addresses the fuzz targets look up after
// damaging a file.
func funcMidPCs(tb testing.TB, bin []byte) []uint64 {
	ef, err := elf.NewFile(bytes.NewReader(bin))
	if err != nil {
		tb.Fatal(err)
	}
	syms, _ := ef.Symbols()
	var pcs []uint64
	for _, s := range syms {
		if elf.ST_TYPE(s.Info) == elf.STT_FUNC && s.Size > 0 {
			pcs = append(pcs, s.Value+s.Size/2)
		}
	}
	return pcs
}
