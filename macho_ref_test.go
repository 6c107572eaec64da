package symbolize_test

// Differential test of the Mach-O path against llvm-symbolizer-14 --obj
// (which finds the dSYM beside the binary itself): every Mach-O fixture and
// slice, inlines on and off, field by field, thousands of addresses, each
// sent through a random ASLR slide and back with package slide. The
// differences kept on purpose are in machoRefExceptions.

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/symbolize-go/symbolize"
	"github.com/symbolize-go/symbolize/macho"
	"github.com/symbolize-go/symbolize/slide"
)

// machoFixture is one image to symbolize: a file and, for universal files,
// the slice.
type machoFixture struct {
	path string
	arch string // "" for thin files
}

func (f machoFixture) name() string {
	if f.arch == "" {
		return filepath.Base(f.path)
	}
	return filepath.Base(f.path) + ":" + f.arch
}

var machoFixtures = []machoFixture{
	{"testdata/macho/main.arm64", ""},
	{"testdata/macho/main.x86_64", ""},
	{"testdata/macho/main.arm64.stripped", ""},
	{"testdata/macho/main.fat", "arm64"},
	{"testdata/macho/main.fat", "x86_64"},
	{"testdata/macho/libfix.arm64.dylib", ""},
	{"testdata/macho/libfix.x86_64.dylib", ""},
	{"testdata/macho/prog.arm64", ""},
	{"testdata/macho/prog.x86_64", ""},
	{"testdata/macho/prog.arm64.stripped", ""},
	{"testdata/macho/prog.x86_64.stripped-dsym", ""},
	{"testdata/macho/prog.fat", "arm64"},
	{"testdata/macho/prog.fat", "x86_64"},
	{"testdata/macho/main.arm64.o", ""},
}

// isSynthesized reports whether name is one we make up from a function
// start ("0x100000548").
func isSynthesized(name string) bool { return strings.HasPrefix(name, "0x") }

// machoRefExceptions are the known, deliberate differences from
// llvm-symbolizer-14 on Mach-O. They are appended to refExceptions (the
// fixture names differ from the ELF ones, so neither list excuses the
// other's cases).
var machoRefExceptions = slices.Concat(
	eachFixture([]string{"main.arm64.stripped", "prog.arm64.stripped", "prog.x86_64.stripped-dsym"}, refException{
		field: "FunctionName",
		match: func(_ uint64, ref, got *refFrame) bool {
			return ref.FunctionName == "_mh_execute_header" && isSynthesized(got.FunctionName)
		},
		reason: "stripped image, without a dSYM or where the dSYM's DWARF covers nothing: LLVM 14 names " +
			"every function after __mh_execute_header, " +
			"whose computed size spans all of __text; we answer from LC_FUNCTION_STARTS with the " +
			"function's own start, named after its address",
	}),
	eachFixture([]string{"main.arm64.stripped", "prog.arm64.stripped", "prog.x86_64.stripped-dsym"}, refException{
		field: "StartAddress",
		match: func(_ uint64, ref, got *refFrame) bool {
			return ref.FunctionName == "_mh_execute_header" && ref.StartAddress == "0x100000000" &&
				isSynthesized(got.FunctionName) && got.StartAddress == got.FunctionName
		},
		reason: "follows from the FunctionName exception: LLVM's start is __mh_execute_header's, ours the " +
			"function start's",
	}),
	[]refException{{
		fixture: "prog.x86_64.stripped-dsym", field: "FunctionName",
		match: func(_ uint64, ref, got *refFrame) bool {
			return ref.FunctionName == "_mh_execute_header" && got.FunctionName != "" && !isSynthesized(got.FunctionName)
		},
		reason: "stripped image with its dSYM: LLVM 14 renames the outermost DWARF frame after " +
			"__mh_execute_header; LC_FUNCTION_STARTS shows that symbol is not the function, so we keep DWARF's name",
	}, {
		fixture: "prog.x86_64.stripped-dsym", field: "StartAddress",
		match: func(_ uint64, ref, got *refFrame) bool {
			return ref.FunctionName == "_mh_execute_header" && ref.StartAddress == "0x100000000" &&
				got.FunctionName != "" && !isSynthesized(got.FunctionName)
		},
		reason: "follows from the FunctionName exception: LLVM's start is __mh_execute_header's, ours DWARF's",
	}},
)

// eachFixture copies e for each of fixtures: one exception per fixture,
// each of which must excuse something.
func eachFixture(fixtures []string, e refException) []refException {
	var out []refException
	for _, f := range fixtures {
		e.fixture = f
		out = append(out, e)
	}
	return out
}

func init() { refExceptions = append(refExceptions, machoRefExceptions...) }

func TestMachOReferenceLLVMSymbolizer(t *testing.T) {
	llvm, err := exec.LookPath("llvm-symbolizer-14")
	if err != nil {
		t.Skip("llvm-symbolizer-14 not installed")
	}
	ex := newRefExcuses(refExceptions)
	for _, fx := range machoFixtures {
		t.Run(fx.name(), func(t *testing.T) {
			eachInlineMode(t, sampleMachOAddrs(t, fx), func(t *testing.T, addrs []uint64, inlines bool, mode string) {
				ref := runLLVMMachO(t, llvm, fx, addrs, inlines)
				got := runOursSlid(t, fx, addrs, inlines)
				compareRef(t, ex, fx.name(), mode, addrs, ref, got)
			})
		})
	}
	ex.check(t)
}

// eachInlineMode runs fn on addrs, cut to their first 500 under -short, as
// the subtests "no-inlines" and "inlines".
func eachInlineMode(t *testing.T, addrs []uint64, fn func(t *testing.T, addrs []uint64, inlines bool, mode string)) {
	if testing.Short() && len(addrs) > 500 {
		addrs = addrs[:500]
	}
	for _, inlines := range []bool{false, true} {
		mode := "no-inlines"
		if inlines {
			mode = "inlines"
		}
		t.Run(mode, func(t *testing.T) { fn(t, addrs, inlines, mode) })
	}
}

// openImage parses the fixture's image (the slice for fx.arch).
func openImage(t testing.TB, fx machoFixture) *macho.File {
	data, err := os.ReadFile(fx.path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := macho.Select(data, fx.arch)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// sampleMachOAddrs picks addresses from the image's function starts (or
// its symbols, for object files): each start, the byte after, random
// interior points, the last byte, the byte past the end; every data
// symbol; section edges; and addresses outside the image. Small fixtures
// get every byte of their code.
func sampleMachOAddrs(t *testing.T, fx machoFixture) []uint64 {
	f := openImage(t, fx)
	starts, err := f.FunctionStartAddrs(nil)
	if err != nil {
		t.Fatal(err)
	}
	syms, err := f.Symbols()
	if err != nil {
		t.Fatal(err)
	}
	var code [][2]uint64
	for _, seg := range f.Segments {
		for _, s := range seg.Sections {
			if s.Flags&(macho.AttrPureInstructions|macho.AttrSomeInstructions) != 0 && s.Size > 0 {
				code = append(code, [2]uint64{s.Addr, s.Addr + s.Size})
			}
		}
	}
	for _, s := range syms {
		if s.Kind == macho.KindDirect {
			starts = append(starts, s.Value)
		}
	}
	slices.Sort(starts)
	starts = slices.Compact(starts)
	rng := rand.New(rand.NewPCG(7, uint64(len(starts))))
	seen := map[uint64]bool{}
	var out []uint64
	add := func(a uint64) {
		if !seen[a] {
			seen[a] = true
			out = append(out, a)
		}
	}
	var total uint64
	for _, r := range code {
		total += r[1] - r[0]
	}
	for _, r := range code {
		add(r[0] - 1)
		add(r[1])
		if total <= 4096 {
			for a := r[0]; a < r[1]; a++ {
				add(a)
			}
		}
	}
	per := max(1, min(256, 4000/max(1, len(starts))))
	for i, s := range starts {
		end := s + 1
		if i+1 < len(starts) {
			end = starts[i+1]
		}
		for _, r := range code {
			if r[0] <= s && s < r[1] && end > r[1] {
				end = r[1]
			}
		}
		add(s)
		add(s + 1)
		for range per {
			add(s + rng.Uint64N(end-s))
		}
		add(end - 1)
		add(end)
	}
	for _, a := range []uint64{0, 1, 0x1000, 0x100000000, 1 << 40, ^uint64(0)} {
		add(a)
	}
	rng.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

func runLLVMMachO(t *testing.T, llvm string, fx machoFixture, addrs []uint64, inlines bool) []refAnswer {
	args := []string{"--obj=" + fx.path, "--output-style=JSON", "--no-demangle", "--no-inlines"}
	if inlines {
		args[3] = "--inlines"
	}
	if fx.arch != "" {
		args = append(args, "--default-arch="+fx.arch)
	}
	return queryLLVM(t, llvm, args, addrs)
}

// runOursSlid symbolizes addrs as a process would report them: the image
// loaded at a random page-aligned slide, each runtime PC mapped back to a
// file address through slide.Module, as a crash-report symbolicator does.
func runOursSlid(t *testing.T, fx machoFixture, addrs []uint64, inlines bool) [][]refFrame {
	b, err := symbolize.Open(fx.path, &symbolize.Options{Inlines: inlines, Arch: fx.arch})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer b.Close()
	img, _, ok := b.MachO()
	if !ok {
		t.Fatal("MachO() = false for a Mach-O binary")
	}
	link, _ := img.TextAddr()
	rng := rand.New(rand.NewPCG(uint64(len(addrs)), 99))
	s := rng.Uint64N(1<<20) << 14 // 16 KiB pages, up to 16 GiB
	mod := slide.Module{Start: link + s, Link: link}
	pcs := make([]uint64, len(addrs))
	for i, a := range addrs {
		runtime := a + s
		pcs[i] = mod.FileAddr(runtime)
		if pcs[i] != a {
			t.Fatalf("slide %#x: runtime %#x maps back to %#x, want %#x", s, runtime, pcs[i], a)
		}
	}
	return framesOf(t, b, pcs)
}

// TestMachOSources checks which source answers, on each kind of image.
func TestMachOSources(t *testing.T) {
	cases := []struct {
		path string
		pc   uint64
		want symbolize.Source
		fn   string
	}{
		{"testdata/macho/main.arm64", 0x1000005d0, symbolize.SourceDWARF, "helper"},
		{"testdata/macho/main.arm64", 0x100008008, symbolize.SourceSymbolTable, "counter"},
		{"testdata/macho/main.arm64", 0x100000630, symbolize.SourceNone, ""}, // __stubs
		{"testdata/macho/main.arm64.stripped", 0x1000005d0, symbolize.SourceFunctionStarts, "0x1000005c8"},
		{"testdata/macho/main.arm64.stripped", 0x100000000, symbolize.SourceSymbolTable, "_mh_execute_header"},
	}
	for _, c := range cases {
		b, err := symbolize.Open(c.path, nil)
		if err != nil {
			t.Fatal(err)
		}
		fr, err := b.AppendFrames(nil, c.pc)
		b.Close()
		if err != nil || len(fr) != 1 {
			t.Fatalf("%s %#x: %v, %d frames", c.path, c.pc, err, len(fr))
		}
		if fr[0].Source != c.want || fr[0].Function != c.fn {
			t.Errorf("%s %#x: %v %q, want %v %q", c.path, c.pc, fr[0].Source, fr[0].Function, c.want, c.fn)
		}
		if c.want == symbolize.SourceFunctionStarts && (fr[0].SymbolOffset != c.pc-0x1000005c8 || fr[0].SymbolName != c.fn) {
			t.Errorf("%s %#x: symbol %q+%d", c.path, c.pc, fr[0].SymbolName, fr[0].SymbolOffset)
		}
	}
}

// TestMachODSYMMismatch pairs a binary with another build's dSYM: Open must
// fail with *macho.UUIDMismatchError naming both UUIDs, beside the binary
// or given explicitly, and succeed without the dSYM when asked.
func TestMachODSYMMismatch(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "prog")
	copyFile(t, "testdata/macho/prog.arm64", bin)
	dw := macho.DSYMPath(bin)
	if err := os.MkdirAll(filepath.Dir(dw), 0o755); err != nil {
		t.Fatal(err)
	}
	copyFile(t, "testdata/macho/main.arm64.dSYM/Contents/Resources/DWARF/main.arm64", dw)
	for _, o := range []*symbolize.Options{nil, {DSYM: "testdata/macho/main.arm64.dSYM"}} {
		_, err := symbolize.Open(bin, o)
		var mm *macho.UUIDMismatchError
		if !errors.As(err, &mm) {
			t.Fatalf("Open(%+v) = %v, want *macho.UUIDMismatchError", o, err)
		}
		img := openImage(t, machoFixture{path: bin})
		if mm.Binary != img.UUID || mm.Binary == mm.DSYM {
			t.Errorf("mismatch error names %v and %v", mm.Binary, mm.DSYM)
		}
		if s := err.Error(); !strings.Contains(s, mm.Binary.String()) || !strings.Contains(s, mm.DSYM.String()) {
			t.Errorf("error %q does not name both UUIDs", s)
		}
	}
	b, err := symbolize.Open(bin, &symbolize.Options{NoDebugFile: true})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	fr, _ := b.AppendFrames(nil, 0x100000560)
	if fr[0].Source != symbolize.SourceSymbolTable || fr[0].Function != "leaf0" {
		t.Errorf("without the dSYM: %+v", fr[0])
	}
	// An explicit, matching dSYM in another place is used.
	b2, err := symbolize.Open(bin, &symbolize.Options{DSYM: "testdata/macho/prog.arm64.dSYM"})
	if err != nil {
		t.Fatal(err)
	}
	defer b2.Close()
	fr, _ = b2.AppendFrames(nil, 0x100000560)
	if fr[0].Source != symbolize.SourceDWARF || fr[0].Line == 0 {
		t.Errorf("explicit dSYM: %+v", fr[0])
	}
}

// TestMachOArch checks slice selection in universal files.
func TestMachOArch(t *testing.T) {
	_, err := symbolize.Open("testdata/macho/prog.fat", nil)
	var nf *macho.ArchNotFoundError
	if !errors.As(err, &nf) || len(nf.Have) != 2 {
		t.Fatalf("universal file without Arch: %v", err)
	}
	_, err = symbolize.Open("testdata/macho/prog.fat", &symbolize.Options{Arch: "ppc"})
	if !errors.As(err, &nf) {
		t.Fatalf("absent slice: %v", err)
	}
	for _, arch := range []string{"arm64", "x86_64"} {
		b, err := symbolize.Open("testdata/macho/prog.fat", &symbolize.Options{Arch: arch})
		if err != nil {
			t.Fatal(err)
		}
		img, dsym, _ := b.MachO()
		if img.Arch() != arch || !strings.HasSuffix(dsym, "prog.fat.dSYM/Contents/Resources/DWARF/prog.fat") {
			t.Errorf("%s: image %s, dSYM %q", arch, img.Arch(), dsym)
		}
		b.Close()
	}
}

// poolsDropItems reports whether sync.Pool drops items at random, as it
// does under the race detector: the lookups keep their scratch in pools, so
// allocation counts then mean nothing.
func poolsDropItems() bool {
	p := sync.Pool{New: func() any { return new([64]byte) }}
	return testing.AllocsPerRun(50, func() {
		for range 32 {
			p.Put(p.Get())
		}
	}) > 0
}

func TestMachOAllocs(t *testing.T) {
	if poolsDropItems() {
		t.Skip("sync.Pool drops items (race detector)")
	}
	for _, p := range []string{"testdata/macho/prog.arm64", "testdata/macho/prog.arm64.stripped"} {
		b, err := symbolize.Open(p, &symbolize.Options{Inlines: true})
		if err != nil {
			t.Fatal(err)
		}
		n := lookupAllocs(b)
		b.Close()
		if n != 0 {
			t.Errorf("%s: %v allocations per lookup round, want 0", p, n)
		}
	}
}

// lookupAllocs returns the allocations of one round of lookups on b over
// prog's functions (leaf0, inlined code, data), measured after a round
// that warms b's caches.
func lookupAllocs(b *symbolize.Binary) float64 {
	dst := make([]symbolize.Frame, 0, 16)
	pcs := []uint64{0x100000560, 0x100002120, 0x1000021a0, 0x100008000}
	for _, pc := range pcs {
		b.AppendFrames(dst[:0], pc) // warm the caches
	}
	return testing.AllocsPerRun(100, func() {
		for _, pc := range pcs {
			dst, _ = b.AppendFrames(dst[:0], pc)
		}
	})
}

func BenchmarkMachOAppendFrames(b *testing.B) {
	for _, p := range []string{"testdata/macho/prog.arm64", "testdata/macho/prog.arm64.stripped"} {
		b.Run(filepath.Base(p), func(b *testing.B) {
			bin, err := symbolize.Open(p, &symbolize.Options{Inlines: true})
			if err != nil {
				b.Fatal(err)
			}
			defer bin.Close()
			img, _ := macho.Select(mustRead(b, p), "")
			starts, _ := img.FunctionStartAddrs(nil)
			last := starts[len(starts)-1]
			pcs := make([]uint64, 1024)
			rng := rand.New(rand.NewPCG(1, 2))
			for i := range pcs {
				pcs[i] = starts[0] + rng.Uint64N(last-starts[0])
			}
			dst := make([]symbolize.Frame, 0, 16)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				dst, _ = bin.AppendFrames(dst[:0], pcs[i%len(pcs)])
			}
		})
	}
}

func mustRead(t testing.TB, p string) []byte {
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func copyFile(t testing.TB, from, to string) {
	if err := os.WriteFile(to, mustRead(t, from), 0o644); err != nil {
		t.Fatal(err)
	}
}

// FuzzNewMachOBytes feeds corrupt Mach-O images and dSYMs (fixtures with
// bytes overwritten, then cut short) through opening and symbolizing:
// nothing may panic or hang, whatever the bytes. As in FuzzNewBytes the
// file is chosen by index, not passed whole (the fuzzer's minimization is
// quadratic in input length); a dSYM is paired with its intact binary.
func FuzzNewMachOBytes(f *testing.F) {
	type base struct {
		data []byte
		bin  []byte // for a dSYM, its binary; nil otherwise
		pcs  []uint64
	}
	var bases []base
	for _, name := range []string{"main.arm64", "prog.x86_64", "prog.arm64.stripped", "main.fat", "main.arm64.o"} {
		data, err := os.ReadFile("testdata/macho/" + name)
		if err != nil {
			continue
		}
		bases = append(bases, base{data: data})
	}
	for _, name := range []string{"main.arm64", "prog.x86_64"} {
		data, err := os.ReadFile("testdata/macho/" + name + ".dSYM/Contents/Resources/DWARF/" + name)
		if err != nil {
			continue
		}
		bases = append(bases, base{data: data, bin: mustRead(f, "testdata/macho/"+name)})
	}
	if len(bases) == 0 {
		f.Skip("no fixtures")
	}
	for i := range bases {
		b := &bases[i]
		b.pcs = []uint64{0, 0x100000548, 0x1000005d0, 0x100000d30, 0x100002120, 0x100008008}
		img := b.data
		if b.bin != nil {
			img = b.bin
		}
		if m, err := macho.Select(img, arch(img)); err == nil {
			starts, _ := m.FunctionStartAddrs(nil)
			b.pcs = append(b.pcs, starts[:min(len(starts), 8)]...)
		}
		n := uint32(len(b.data))
		f.Add(uint8(i), uint32(0), []byte{}, uint32(0))
		f.Add(uint8(i), n/3, []byte{0xff, 0xff, 0xff, 0xff, 0, 0, 0, 1}, uint32(0))
		f.Add(uint8(i), n/2, []byte{0x80, 0x80, 0x80}, uint32(0))
		f.Add(uint8(i), uint32(0), []byte{}, n-n/8)
	}
	f.Fuzz(func(t *testing.T, which uint8, at uint32, patch []byte, keep uint32) {
		// A longer patch is ignored, not cut: the fuzzer would minimize
		// its bytes (at a cost quadratic in their number) with every
		// input that finds new coverage, and run nothing new meanwhile.
		if len(patch) > 64 {
			return
		}
		b := bases[int(which)%len(bases)]
		img := slices.Clone(b.data)
		copy(img[int(at)%len(img):], patch)
		if keep != 0 {
			img = img[:int(keep)%len(img)]
		}
		var bin *symbolize.Binary
		var err error
		if b.bin != nil {
			bin, err = symbolize.NewMachOBytes(b.bin, img, &symbolize.Options{Inlines: true})
		} else {
			bin, err = symbolize.NewMachOBytes(img, nil, &symbolize.Options{Inlines: true, Arch: arch(img)})
		}
		if err != nil {
			return
		}
		defer bin.Close()
		var buf []symbolize.Frame
		pcs := b.pcs
		if len(patch) >= 8 {
			pcs = append(pcs[:len(pcs):len(pcs)], uint64(patch[0])<<32|uint64(patch[1])<<8|uint64(patch[2]))
		}
		for _, pc := range pcs {
			buf, _ = bin.AppendFrames(buf[:0], pc)
		}
		bin.LookupSymbol(0x100008008)
	})
}

// arch picks the arm64 slice of universal inputs.
func arch(data []byte) string {
	if macho.IsFat(data) {
		return "arm64"
	}
	return ""
}

// ExampleOpen_machO symbolizes a runtime address of a Mach-O executable
// that was loaded with an ASLR slide, using the dSYM beside it.
func ExampleOpen_machO() {
	b, err := symbolize.Open("testdata/macho/prog.fat", &symbolize.Options{Arch: "arm64", Inlines: true, Demangle: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer b.Close()
	img, _, _ := b.MachO()
	link, _ := img.TextAddr()
	// A crash report says the image was loaded at 0x104a38000.
	mod := slide.Module{Start: 0x104a38000, Link: link}
	frames, err := b.AppendFrames(nil, mod.FileAddr(0x104a38570))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, f := range frames {
		fmt.Printf("%s %s:%d (%v, inlined %v)\n", f.Function, filepath.Base(f.File), f.Line, f.Source, f.Inlined)
	}
	// Output:
	// mix prog.c:10 (DWARF, inlined true)
	// mix3 prog.c:11 (DWARF, inlined true)
	// leaf0 prog.c:20 (DWARF, inlined false)
}
