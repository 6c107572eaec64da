package symbolize_test

// Tests of Mach-O images answered from their debug map's object files (no
// dSYM). llvm-symbolizer-14 does not read debug maps, so the reference is
// llvm-symbolizer-14 on the fixture's dSYM, which dsymutil-14 built from
// the same image and objects: dsymutil makes the same address translation.

import (
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/symbolize-go/symbolize"
)

// debugMapFixtures are the images with stabs whose objects are committed
// beside them (and whose dSYM dsymutil built from those objects).
var debugMapFixtures = []machoFixture{
	{"testdata/macho/prog.arm64", ""},
	{"testdata/macho/prog.x86_64", ""},
	{"testdata/macho/prog.fat", "arm64"},
	{"testdata/macho/prog.fat", "x86_64"},
	{"testdata/macho/main.arm64", ""},
	{"testdata/macho/main.x86_64", ""},
	{"testdata/macho/main.fat", "arm64"},
	{"testdata/macho/main.fat", "x86_64"},
	{"testdata/macho/libfix.arm64.dylib", ""},
	{"testdata/macho/libfix.x86_64.dylib", ""},
}

// stageDebugMap copies fx's image without its dSYM into a new directory
// with the objects its debug map names, their mtimes set to what the
// linker recorded (git does not keep mtimes), and returns the image's new
// path and the objects' paths. mtime, when not nil, picks another mtime.
func stageDebugMap(t testing.TB, fx machoFixture, mtime func(recorded uint64) time.Time) (string, []string) {
	t.Helper()
	dir := t.TempDir()
	bin := filepath.Join(dir, filepath.Base(fx.path))
	copyFile(t, fx.path, bin)
	dm, err := openImage(t, fx).DebugMap()
	if err != nil {
		t.Fatal(err)
	}
	if len(dm.Objects) == 0 {
		t.Fatalf("%s: no debug map", fx.name())
	}
	var objs []string
	for _, o := range dm.Objects {
		dst := filepath.Join(dir, o.Path)
		copyFile(t, filepath.Join(filepath.Dir(fx.path), o.Path), dst)
		when := time.Unix(int64(o.Timestamp), 0)
		if mtime != nil {
			when = mtime(o.Timestamp)
		}
		if err := os.Chtimes(dst, when, when); err != nil {
			t.Fatal(err)
		}
		objs = append(objs, dst)
	}
	return bin, objs
}

func TestDebugMapReferenceLLVMSymbolizer(t *testing.T) {
	llvm, err := exec.LookPath("llvm-symbolizer-14")
	if err != nil {
		t.Skip("llvm-symbolizer-14 not installed")
	}
	ex := newRefExcuses(refExceptions)
	for _, fx := range debugMapFixtures {
		t.Run(fx.name(), func(t *testing.T) {
			bin, _ := stageDebugMap(t, fx, nil)
			eachInlineMode(t, sampleMachOAddrs(t, fx), func(t *testing.T, addrs []uint64, inlines bool, mode string) {
				// The original fixture, whose dSYM llvm-symbolizer
				// finds beside it.
				ref := runLLVMMachO(t, llvm, fx, addrs, inlines)
				b, err := symbolize.Open(bin, &symbolize.Options{Inlines: inlines, Arch: fx.arch})
				if err != nil {
					t.Fatal(err)
				}
				defer b.Close()
				if _, dsym, _ := b.MachO(); dsym != "" {
					t.Fatalf("a dSYM was found: %s", dsym)
				}
				got := framesOf(t, b, addrs)
				dwarf := 0
				for i, a := range addrs {
					fr, err := b.AppendFrames(nil, a)
					if err != nil {
						t.Fatalf("%#x: %v", a, err)
					}
					if fr[0].Source == symbolize.SourceDWARF {
						dwarf++
					}
					// Batch reuses answers over ranges; single
					// lookups must agree with it.
					if len(fr) != len(got[i]) || fr[0].Line != got[i][0].Line || fr[0].Function != got[i][0].FunctionName {
						t.Errorf("%#x: AppendFrames %+v, Batch %+v", a, fr[0], got[i][0])
					}
				}
				if dwarf == 0 {
					t.Errorf("none of %d addresses answered by DWARF", len(addrs))
				}
				compareRef(t, ex, fx.name()+" debug-map", mode, addrs, ref, got)
				if w := b.Warnings(); len(w) != 0 {
					t.Errorf("warnings: %v", w)
				}
				t.Logf("%d addresses, %d from the objects' DWARF", len(addrs), dwarf)
			})
		})
	}
	ex.check(t)
}

// TestDebugMapUnusableObjects checks that stale, missing and corrupt
// objects are not read: the symbol table answers, and a warning says why.
func TestDebugMapUnusableObjects(t *testing.T) {
	fx := machoFixture{"testdata/macho/prog.arm64", ""}
	const pc uint64 = 0x100000560 // in leaf0, from prog.arm64.o
	cases := []struct {
		name  string
		spoil func(t *testing.T, objs []string)
		is    error
	}{
		{"stale", func(t *testing.T, objs []string) {
			when := time.Unix(1700000000, 0)
			if err := os.Chtimes(objs[0], when, when); err != nil {
				t.Fatal(err)
			}
		}, symbolize.ErrStaleObject},
		{"missing", func(t *testing.T, objs []string) {
			if err := os.Remove(objs[0]); err != nil {
				t.Fatal(err)
			}
		}, fs.ErrNotExist},
		{"directory", func(t *testing.T, objs []string) {
			if err := os.Remove(objs[0]); err != nil {
				t.Fatal(err)
			}
			if err := os.Mkdir(objs[0], 0o755); err != nil {
				t.Fatal(err)
			}
		}, symbolize.ErrNotRegular},
		{"corrupt", func(t *testing.T, objs []string) {
			st, err := os.Stat(objs[0])
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(objs[0], []byte("not an object"), 0o644); err != nil {
				t.Fatal(err)
			}
			os.Chtimes(objs[0], st.ModTime(), st.ModTime())
		}, symbolize.ErrFormat},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			bin, objs := stageDebugMap(t, fx, nil)
			c.spoil(t, objs)
			b, err := symbolize.Open(bin, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			fr, err := b.AppendFrames(nil, pc)
			if err != nil {
				t.Fatal(err)
			}
			if fr[0].Source != symbolize.SourceSymbolTable || fr[0].Function != "leaf0" {
				t.Errorf("%#x: %+v, want leaf0 from the symbol table", pc, fr[0])
			}
			w := b.Warnings()
			var de *symbolize.DebugObjectError
			if len(w) != 1 || !errors.As(w[0], &de) || de.Path != objs[0] {
				t.Fatalf("warnings %v, want one *DebugObjectError for %s", w, objs[0])
			}
			if c.is != nil && !errors.Is(w[0], c.is) {
				t.Errorf("warning %v does not wrap %v", w[0], c.is)
			}
			// The other object (shapes.arm64.o) still answers.
			dm, _ := openImage(t, fx).DebugMap()
			other := dm.Objects[1].Symbols[0].Addr
			if fr, _ := b.AppendFrames(nil, other); fr[0].Source != symbolize.SourceDWARF || fr[0].Line == 0 {
				t.Errorf("%#x in %s: %+v, want DWARF", other, dm.Objects[1].Path, fr[0])
			}
		})
	}
}

// TestDebugMapNotUsed checks when the debug map is left alone: with
// NoDebugFile, and when a dSYM is found.
func TestDebugMapNotUsed(t *testing.T) {
	fx := machoFixture{"testdata/macho/prog.arm64", ""}
	bin, _ := stageDebugMap(t, fx, nil)
	const pc uint64 = 0x100000560
	b, err := symbolize.Open(bin, &symbolize.Options{NoDebugFile: true})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if fr, _ := b.AppendFrames(nil, pc); fr[0].Source != symbolize.SourceSymbolTable {
		t.Errorf("NoDebugFile: %+v, want the symbol table alone", fr[0])
	}
	b2, err := symbolize.Open(bin, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b2.Close()
	if fr, _ := b2.AppendFrames(nil, pc); fr[0].Source != symbolize.SourceDWARF || fr[0].Line == 0 {
		t.Errorf("debug map: %+v, want DWARF", fr[0])
	}
	// With the dSYM given, its DWARF answers and the objects are not read
	// (a stale object would warn).
	when := time.Unix(1, 0)
	dm, _ := openImage(t, fx).DebugMap()
	for _, o := range dm.Objects {
		os.Chtimes(filepath.Join(filepath.Dir(bin), o.Path), when, when)
	}
	b3, err := symbolize.Open(bin, &symbolize.Options{DSYM: "testdata/macho/prog.arm64.dSYM"})
	if err != nil {
		t.Fatal(err)
	}
	defer b3.Close()
	if fr, _ := b3.AppendFrames(nil, pc); fr[0].Source != symbolize.SourceDWARF || len(b3.Warnings()) != 0 {
		t.Errorf("dSYM: %+v, warnings %v", fr[0], b3.Warnings())
	}
}

// TestDebugMapConcurrent looks addresses up from many goroutines on a
// fresh Binary, so that the map and the objects load under contention
// (run with -race).
func TestDebugMapConcurrent(t *testing.T) {
	fx := machoFixture{"testdata/macho/prog.arm64", ""}
	bin, _ := stageDebugMap(t, fx, nil)
	addrs := sampleMachOAddrs(t, fx)
	ref, err := symbolize.Open(bin, &symbolize.Options{Inlines: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ref.Close()
	want := framesOf(t, ref, addrs)
	b, err := symbolize.Open(bin, &symbolize.Options{Inlines: true})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			var dst []symbolize.Frame
			for i := range addrs {
				i = (i + g*len(addrs)/4) % len(addrs)
				var err error
				dst, err = b.AppendFrames(dst[:0], addrs[i])
				if err != nil {
					t.Errorf("%#x: %v", addrs[i], err)
					return
				}
				if len(dst) != len(want[i]) || dst[0].Line != want[i][0].Line || dst[0].Function != want[i][0].FunctionName {
					t.Errorf("%#x: %+v, want %+v", addrs[i], dst[0], want[i][0])
					return
				}
			}
		})
	}
	wg.Wait()
}

func TestDebugMapAllocs(t *testing.T) {
	if poolsDropItems() {
		t.Skip("sync.Pool drops items (race detector)")
	}
	bin, _ := stageDebugMap(t, machoFixture{"testdata/macho/prog.arm64", ""}, nil)
	b, err := symbolize.Open(bin, &symbolize.Options{Inlines: true})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if n := lookupAllocs(b); n != 0 {
		t.Errorf("%v allocations per lookup round, want 0", n)
	}
}

func BenchmarkDebugMapAppendFrames(b *testing.B) {
	fx := machoFixture{"testdata/macho/prog.arm64", ""}
	bin, _ := stageDebugMap(b, fx, nil)
	dm, err := openImage(b, fx).DebugMap()
	if err != nil {
		b.Fatal(err)
	}
	var pcs []uint64
	for _, o := range dm.Objects {
		for _, s := range o.Symbols {
			for off := uint64(0); off < s.Size; off += 4 {
				pcs = append(pcs, s.Addr+off)
			}
		}
	}
	s, err := symbolize.Open(bin, &symbolize.Options{Inlines: true})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	dst := make([]symbolize.Frame, 0, 16)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		dst, _ = s.AppendFrames(dst[:0], pcs[i%len(pcs)])
	}
}
