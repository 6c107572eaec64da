package symbolize

import (
	"cmp"
	"context"
	"debug/elf"
	"encoding/hex"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/symbolize-go/symbolize/slide"
)

// loadMaps returns the mappings ld.so makes of the ELF file at path when
// it places file address 0 at base (base 0 for an ET_EXEC file): one per
// PT_LOAD, page-aligned, at the segment's page-aligned file offset.
func loadMaps(t testing.TB, path string, base uint64) []slide.Module {
	f, err := elf.Open(path)
	if err != nil {
		t.Skip(err)
	}
	defer f.Close()
	var maps []slide.Module
	for _, p := range f.Progs {
		if p.Type != elf.PT_LOAD {
			continue
		}
		lo := (p.Vaddr) &^ 0xfff
		hi := (p.Vaddr + p.Memsz + 0xfff) &^ 0xfff
		perms := []byte("---p")
		if p.Flags&elf.PF_R != 0 {
			perms[0] = 'r'
		}
		if p.Flags&elf.PF_W != 0 {
			perms[1] = 'w'
		}
		if p.Flags&elf.PF_X != 0 {
			perms[2] = 'x'
		}
		maps = append(maps, slide.Module{Start: base + lo, End: base + hi, Offset: p.Off &^ 0xfff, Path: path, Perms: string(perms)})
	}
	return maps
}

// textAddrs returns every 7th address of the file's .text section.
func textAddrs(t testing.TB, path string) []uint64 {
	f, err := elf.Open(path)
	if err != nil {
		t.Skip(err)
	}
	defer f.Close()
	s := f.Section(".text")
	var out []uint64
	for a := s.Addr; a < s.Addr+s.Size; a += 7 {
		out = append(out, a)
	}
	return out
}

// TestProcessFixtures: a process made of fixture files mapped as ld.so
// maps them (a PIE, a shared library, an ET_EXEC) answers each runtime
// address with the frames its file gives at the file address, in Lookup,
// AppendFrames and Batch alike, and says which mapping held it.
func TestProcessFixtures(t *testing.T) {
	type file struct {
		name string
		base uint64
	}
	files := []file{
		{"c-gcc-O2-dwarf5", 0x555555554000},
		{"libcalc-gcc-O2.so", 0x7f1234560000},
		{"c-gcc-O2-nopie", 0},
		{"cpp-gcc-O2", 0x7f2000000000},
	}
	var maps []slide.Module
	for _, f := range files {
		maps = append(maps, loadMaps(t, filepath.Join("testdata", "elf", f.name), f.base)...)
	}
	opts := &ModulesOptions{Options: Options{Inlines: true, Demangle: true}}
	p, err := NewProcess(maps, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if w := p.Warnings(); len(w) != 0 {
		t.Fatalf("warnings: %v", w)
	}
	var pcs []uint64
	var want [][]Frame
	var wantPath []string
	for _, f := range files {
		path := filepath.Join("testdata", "elf", f.name)
		b, err := Open(path, &opts.Options)
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range textAddrs(t, path) {
			fr, err := b.AppendFrames(nil, a)
			if err != nil {
				t.Fatal(err)
			}
			pcs, want, wantPath = append(pcs, f.base+a), append(want, fr), append(wantPath, path)
		}
		b.Close()
	}
	var buf []Frame
	for i, pc := range pcs {
		a := p.Lookup(buf[:0], pc)
		if a.Err != nil || !slices.Equal(a.Frames, want[i]) || a.Mapping == nil || a.Mapping.Path != wantPath[i] {
			t.Fatalf("Lookup %#x: %+v, want %v in %s", pc, a, want[i], wantPath[i])
		}
		buf = a.Frames
	}
	seen := make([]bool, len(pcs))
	for i, a := range p.Batch(context.Background(), pcs) {
		if seen[i] {
			t.Fatalf("answer %d twice", i)
		}
		seen[i] = true
		if a.Err != nil || !slices.Equal(a.Frames, want[i]) || a.Mapping == nil || a.Mapping.Path != wantPath[i] {
			t.Fatalf("Batch %#x: %+v, want %v", pcs[i], a, want[i])
		}
	}
	if i := slices.Index(seen, false); i >= 0 {
		t.Fatalf("no answer for %d", i)
	}
	t.Logf("%d addresses in %d mappings of %d files", len(pcs), len(maps), len(files))
}

// TestProcessErrors: each failure costs its own addresses, with a typed
// error, the mapping and the file offset; the rest of a batch answers.
func TestProcessErrors(t *testing.T) {
	lib := filepath.Join("testdata", "elf", "libcalc-gcc-O2.so")
	good := loadMaps(t, lib, 0x7f0000000000)
	wrongID := loadMaps(t, lib, 0x7f1000000000)
	for i := range wrongID {
		wrongID[i].UUID = "0123456789abcdef"
	}
	rightID := loadMaps(t, lib, 0x7f2000000000)
	f, _ := elf.Open(lib)
	id := buildIDOf(t, f)
	f.Close()
	for i := range rightID {
		rightID[i].UUID = strings.ToUpper(id)
	}
	deleted := loadMaps(t, lib, 0x7f3000000000)
	for i := range deleted {
		deleted[i].Path = "/nonexistent/libgone.so (deleted)"
	}
	missing := loadMaps(t, lib, 0x7f4000000000)
	for i := range missing {
		missing[i].Path = "/nonexistent/libmissing.so"
	}
	anon := []slide.Module{{Start: 0x7f5000000000, End: 0x7f5000001000, Perms: "rw-p"}}
	overlap := []slide.Module{{Start: 0x7f0000000800, End: 0x7f0000002000, Path: lib}, {Start: 0x7f6000000000, End: 0x7f6000000000, Path: lib}}
	var maps []slide.Module
	for _, m := range [][]slide.Module{good, wrongID, rightID, deleted, missing, anon, overlap} {
		maps = append(maps, m...)
	}
	p, err := NewProcess(maps, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	var oe *MappingOverlapError
	if w := p.Warnings(); len(w) != 2 || !errors.As(w[0], &oe) || oe.Mapping.Start != 0x7f0000000800 || !errors.Is(w[1], ErrFormat) {
		t.Fatalf("warnings %v", w)
	}
	const text = 0x1100 // inside libcalc's .text
	cases := []struct {
		pc   uint64
		want error
	}{
		{0x7f0000000000 + text, nil},
		{0x7f1000000000 + text, ErrBuildIDMismatch},
		{0x7f2000000000 + text, nil},
		{0x7f3000000000 + text, ErrDeleted},
		{0x7f4000000000 + text, os.ErrNotExist},
		{0x7f5000000010, ErrNoFile},
		{0x10, ErrNotMapped},
	}
	pcs := make([]uint64, len(cases))
	for i, c := range cases {
		pcs[i] = c.pc
		a := p.Lookup(nil, c.pc)
		if !errors.Is(a.Err, c.want) || c.want == nil && a.Frames[0].Source == SourceNone {
			t.Errorf("Lookup %#x: %+v, want %v", c.pc, a, c.want)
		}
		if c.want != nil && (len(a.Frames) != 1 || a.Frames[0].Found()) {
			t.Errorf("Lookup %#x: frames %v", c.pc, a.Frames)
		}
		var me *ModuleError
		if errors.Is(c.want, ErrBuildIDMismatch) && (!errors.As(a.Err, &me) || me.FileBuildID != id) {
			t.Errorf("%#x: %v", c.pc, a.Err)
		}
		if c.pc != 0x10 && (a.Mapping == nil || a.Offset != c.pc-a.Mapping.Start+a.Mapping.Offset || c.pc&0xffff == text && a.Offset != text) {
			t.Errorf("Lookup %#x: mapping %+v offset %#x", c.pc, a.Mapping, a.Offset)
		}
	}
	n := 0
	for i, a := range p.Batch(context.Background(), pcs) {
		n++
		if !errors.Is(a.Err, cases[i].want) || len(a.Frames) == 0 || cases[i].want != nil && (len(a.Frames) != 1 || a.Frames[0].Found()) {
			t.Errorf("Batch %#x: %+v, want %v", pcs[i], a, cases[i].want)
		}
	}
	if n != len(pcs) {
		t.Errorf("%d answers", n)
	}
	info, err := p.Addr(0x7f0000000000 + text)
	if err != nil || info.Path != lib || info.Bias != 0x7f0000000000 || info.Base != 0x7f0000000000 || info.Symbol == "" || info.SymbolAddr > 0x7f0000000000+text {
		t.Errorf("Addr: %+v %v", info, err)
	}
}

func buildIDOf(t testing.TB, f *elf.File) string {
	s := f.Section(".note.gnu.build-id")
	if s == nil {
		t.Skip("no build ID")
	}
	d, _ := s.Data()
	return hex.EncodeToString(d[16:])
}

// TestModulesLRU: with room for two files, a batch over four keeps at most
// two open once it is done, and every answer is the file's own.
func TestModulesLRU(t *testing.T) {
	names := []string{"c-gcc-O2-dwarf5", "libcalc-gcc-O2.so", "cpp-gcc-O2", "json-gcc-O2"}
	mods := NewModules(&ModulesOptions{MaxOpen: 2, Options: Options{Inlines: true}})
	defer mods.Close()
	var reqs []Request
	var want [][]Frame
	for k, name := range names {
		path := filepath.Join("testdata", "elf", name)
		maps := loadMaps(t, path, uint64(k+1)<<40)
		b, err := Open(path, &Options{Inlines: true})
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range textAddrs(t, path)[:200] {
			pc := uint64(k+1)<<40 + a
			for i := range maps {
				if maps[i].Start <= pc && pc < maps[i].End {
					reqs = append(reqs, Request{Mapping: &maps[i], PC: pc})
				}
			}
			fr, _ := b.AppendFrames(nil, a)
			want = append(want, fr)
		}
		b.Close()
	}
	// Interleave the files, as profiles do.
	perm := make([]int, len(reqs))
	for i := range perm {
		perm[i] = (i * 7919) % len(reqs)
	}
	shuffled := make([]Request, len(reqs))
	wantS := make([][]Frame, len(reqs))
	for i, j := range perm {
		shuffled[i], wantS[i] = reqs[j], want[j]
	}
	for round := range 3 {
		var wg sync.WaitGroup
		for range 2 {
			wg.Go(func() {
				for i, a := range mods.Batch(context.Background(), shuffled) {
					if a.Err != nil || !slices.Equal(a.Frames, wantS[i]) {
						t.Errorf("round %d: %d: %+v, want %v", round, i, a, wantS[i])
						return
					}
				}
			})
		}
		wg.Wait()
		for i := range shuffled[:50] {
			got, err := mods.AppendFrames(nil, shuffled[i].Mapping, shuffled[i].PC)
			if err != nil || !slices.Equal(got, wantS[i]) {
				t.Fatalf("AppendFrames %d: %v %v", i, got, err)
			}
		}
		mods.mu.Lock()
		open := mods.lru.Len()
		mods.mu.Unlock()
		if open > 2 {
			t.Fatalf("round %d: %d modules open", round, open)
		}
	}
}

// TestProcessSelf: the test binary symbolizing its own PCs. Its Go frames
// equal runtime.CallersFrames' (with DWARF, as test.sh builds tests), and
// [vdso], read from memory, names its functions.
func TestProcessSelf(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("no /proc")
	}
	p, err := OpenProcess(os.Getpid(), &ModulesOptions{Options: Options{Inlines: true}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	var pcs []uintptr
	for depth := range 6 {
		pcs = append(pcs, selfPCs(depth)...)
	}
	var got []Frame
	dwarf, whole, noInfo := 0, 0, 0
	for _, pc := range pcs {
		// runtime.Callers gives return addresses, which CallersFrames
		// looks up at pc-1, the call instruction, as callers of ours do.
		a := p.Lookup(got[:0], uint64(pc)-1)
		got = a.Frames
		if a.Err != nil {
			t.Fatalf("%#x: %v", pc, a.Err)
		}
		if a.Mapping == nil || filepath.Base(a.Mapping.Path) != filepath.Base(os.Args[0]) {
			t.Errorf("%#x: mapping %+v, want the test binary", pc, a.Mapping)
		}
		var want []runtime.Frame
		rfs := runtime.CallersFrames([]uintptr{pc})
		for {
			f, more := rfs.Next()
			want = append(want, f)
			if !more {
				break
			}
		}
		if got[0].Source == SourceNone {
			// go test without -ldflags=-w=0 links neither DWARF nor a
			// symbol table: only the Go runtime's own tables could answer.
			noInfo++
			continue
		}
		if got[0].Source == SourceGoPCLN {
			// The Go runtime's tables answer (no DWARF): the innermost
			// frame is runtime.CallersFrames' (which expands no
			// inlined calls of a lone PC).
			if got[0].Function != want[0].Function || got[0].File != want[0].File || int(got[0].Line) != want[0].Line {
				t.Errorf("%#x: %s %s:%d, runtime %s %s:%d", pc, got[0].Function, got[0].File, got[0].Line, want[0].Function, want[0].File, want[0].Line)
			}
			continue
		}
		if got[0].Source != SourceDWARF {
			// Another source names the function.
			if got[len(got)-1].Function != want[len(want)-1].Function {
				t.Errorf("%#x: %q, want %q", pc, got[len(got)-1].Function, want[len(want)-1].Function)
			}
			continue
		}
		dwarf++
		// runtime.Callers lists each inlined call of a physical frame as
		// an entry of its own, at the call site's inline mark, and
		// CallersFrames then gives that frame alone: its frames are the
		// innermost of ours, which expand the whole chain at the address.
		if len(got) < len(want) {
			t.Errorf("%#x: %d frames, runtime %d: %v / %v", pc, len(got), len(want), got, want)
			continue
		}
		if len(got) == len(want) {
			whole++
		}
		for i := range want {
			if got[i].Function != want[i].Function || got[i].File != want[i].File || int(got[i].Line) != want[i].Line {
				t.Errorf("%#x frame %d: %s %s:%d, runtime %s %s:%d", pc, i, got[i].Function, got[i].File, got[i].Line, want[i].Function, want[i].File, want[i].Line)
			}
		}
	}
	t.Logf("%d PCs, %d answered from DWARF, %d with all of runtime's frames, %d with no information", len(pcs), dwarf, whole, noInfo)
	if noInfo > 0 && noInfo != len(pcs) {
		t.Errorf("%d of %d PCs have no answer", noInfo, len(pcs))
	}
	// [vdso]: every function symbol of the image read from memory names
	// its own runtime address.
	maps, _ := os.ReadFile("/proc/self/maps")
	mods, _ := slide.ParseProcMaps(maps)
	for _, m := range mods {
		if m.Path != "[vdso]" {
			continue
		}
		data, err := p.readMem(m.Start, m.End-m.Start)
		if err != nil {
			t.Fatal(err)
		}
		ef, err := elf.NewFile(strings.NewReader(string(data)))
		if err != nil {
			t.Fatal(err)
		}
		syms, _ := ef.DynamicSymbols()
		names := make(map[uint64][]string)
		for _, s := range syms {
			names[s.Value] = append(names[s.Value], s.Name)
		}
		var first uint64
		for _, pr := range ef.Progs {
			if pr.Type == elf.PT_LOAD {
				first = pr.Vaddr &^ 0xfff
				break
			}
		}
		n := 0
		for _, s := range syms {
			if elf.ST_TYPE(s.Info) != elf.STT_FUNC || s.Value == 0 {
				continue
			}
			pc := m.Start + s.Value - first
			info, err := p.Addr(pc)
			if err != nil || !slices.Contains(names[s.Value], info.Symbol) || info.SymbolAddr != pc || info.Path != "[vdso]" {
				t.Errorf("vdso %s at %#x: %+v %v", s.Name, pc, info, err)
			}
			n++
		}
		if n == 0 {
			t.Error("no vdso functions")
		}
		t.Logf("[vdso]: %d functions", n)
	}
}

// selfPCs returns the return addresses of a call chain depth deep through
// small functions the compiler inlines, and one it does not.
func selfPCs(depth int) []uintptr {
	if depth > 0 {
		return selfOuter(depth - 1)
	}
	pcs := make([]uintptr, 64)
	return pcs[:runtime.Callers(1, pcs)]
}

func selfOuter(depth int) []uintptr { return selfMiddle(depth) }

func selfMiddle(depth int) []uintptr { return selfInner(depth) }

func selfInner(depth int) []uintptr {
	if depth%2 == 0 {
		return selfNoInline(depth)
	}
	return selfPCs(depth)
}

//go:noinline
func selfNoInline(depth int) []uintptr { return selfPCs(depth) }

// TestProcessLookupAllocs: a lookup in a module already open, with room in
// dst, allocates nothing (Process.Lookup, Modules.AppendFrames).
func TestProcessLookupAllocs(t *testing.T) {
	path := filepath.Join("testdata", "elf", "cpp-gcc-O2")
	maps := loadMaps(t, path, 0x7f0000000000)
	p, err := NewProcess(maps, &ModulesOptions{Options: Options{Inlines: true}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	dst := make([]Frame, 0, 64)
	pc := uint64(0x7f0000000000 + 0x1b3e)
	if a := p.Lookup(dst, pc); a.Err != nil || !a.Frames[0].Found() {
		t.Fatalf("%+v", a)
	}
	if n := testing.AllocsPerRun(100, func() { dst = p.Lookup(dst[:0], pc).Frames }); n != 0 {
		t.Errorf("Process.Lookup allocates %v per call", n)
	}
	mp := p.mapping(pc)
	if n := testing.AllocsPerRun(100, func() { dst, _ = p.mods.AppendFrames(dst[:0], mp, pc) }); n != 0 {
		t.Errorf("Modules.AppendFrames allocates %v per call", n)
	}
}

// FuzzMemBuildID: the ELF headers read from a process's memory are
// untrusted; reading their build ID never panics, and reads only inside
// the mapping.
func FuzzMemBuildID(f *testing.F) {
	for _, name := range []string{"c-gcc-O2-dwarf5", "c-gcc-m32-O2-dwarf5", "libcalc-gcc-O2.so"} {
		data, err := os.ReadFile(filepath.Join("testdata", "elf", name))
		if err == nil {
			f.Add(data[:min(len(data), 4096)])
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		id, ok := memBuildID(strings.NewReader(string(data)), 0, uint64(len(data)))
		if ok && (id == "" || len(id) > 2*len(data)) {
			t.Fatalf("%q", id)
		}
	})
}

// TestMemBuildID: the build ID read through the program headers of a
// file's first page, as it is mapped, is the one its section holds.
func TestMemBuildID(t *testing.T) {
	for _, name := range []string{"c-gcc-O2-dwarf5", "c-gcc-m32-O2-dwarf5", "libcalc-gcc-O2.so"} {
		path := filepath.Join("testdata", "elf", name)
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		f, err := elf.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		want := buildIDOf(t, f)
		f.Close()
		got, ok := memBuildID(strings.NewReader(string(data[:4096])), 0, 4096)
		if !ok || got != want {
			t.Errorf("%s: %q %v, want %q", name, got, ok, want)
		}
	}
}

// TestProcessOther: another live process, read through /proc/PID/maps and
// /proc/PID/mem: its executable's build ID is read from its memory and
// matches the file, its entry point names _start; once the file is
// replaced on disk, its addresses carry ErrDeleted.
func TestProcessOther(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("no /proc")
	}
	src, err := exec.LookPath("sleep")
	if err != nil {
		t.Skip(err)
	}
	exe := filepath.Join(t.TempDir(), "mysleep")
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(exe, data, 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := elf.Open(exe)
	if err != nil {
		t.Fatal(err)
	}
	entry, id := f.Entry, buildIDOf(t, f)
	f.Close()
	cmd := exec.Command(exe, "30")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer cmd.Process.Kill()
	// Wait for the loader to map the executable.
	var p *Process
	for range 100 {
		if p != nil {
			p.Close()
		}
		p, err = OpenProcess(cmd.Process.Pid, &ModulesOptions{Options: Options{NoDebugFile: true}})
		if err != nil {
			t.Fatal(err)
		}
		if m := p.findPath(exe); m != nil && m.UUID != "" {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	defer p.Close()
	m := p.findPath(exe)
	if m == nil || m.UUID != id {
		t.Fatalf("mapping %+v, want build ID %s", m, id)
	}
	// The entry point's runtime address: the executable is a PIE whose
	// first mapping (file offset 0) holds file address 0.
	pc := m.Start + entry
	info, err := p.Addr(pc)
	if err != nil || info.Symbol == "" && info.Path != exe {
		t.Fatalf("Addr %#x: %+v %v", pc, info, err)
	}
	a := p.Lookup(nil, pc)
	if a.Err != nil || a.Mapping.Path != exe || a.Addr != entry {
		t.Fatalf("Lookup %#x: %+v", pc, a)
	}
	// Replace the file as a package upgrade does, renaming a new one over
	// it: the process keeps the old inode, now deleted.
	if err := os.WriteFile(exe+".new", data, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(exe+".new", exe); err != nil {
		t.Fatal(err)
	}
	q, err := OpenProcess(cmd.Process.Pid, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	a = q.Lookup(nil, pc)
	if !errors.Is(a.Err, ErrDeleted) || a.Mapping == nil || !strings.HasSuffix(a.Mapping.Path, " (deleted)") ||
		a.Offset != pc-a.Mapping.Start+a.Mapping.Offset || len(a.Frames) != 1 || a.Frames[0].Found() {
		t.Fatalf("after replacing the file: %+v", a)
	}
}

// findPath returns the process's mapping of path at file offset 0.
func (p *Process) findPath(path string) *slide.Module {
	mods := p.maps.Load().idx.Modules()
	for i := range mods {
		if mods[i].Path == path && mods[i].Offset == 0 {
			return &mods[i]
		}
	}
	return nil
}

// TestModulesBatchShared: a big file's chunks are shared by the workers
// once it is open, under a cache of one module, and every answer equals
// the file's own; breaking out mid-batch lets every module go.
func TestModulesBatchShared(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	}
	names := []string{"json-gcc-O2", "go-trimpath", "c-gcc-O2-dwarf5"}
	var reqs []Request
	var want [][]Frame
	for k, name := range names {
		path := filepath.Join("testdata", "elf", name)
		base := uint64(k+1) << 40
		maps := loadMaps(t, path, base)
		b, err := Open(path, &Options{Inlines: true})
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range textAddrs(t, path) {
			for i := range maps {
				if maps[i].Start <= base+a && base+a < maps[i].End {
					fr, _ := b.AppendFrames(nil, a)
					reqs, want = append(reqs, Request{Mapping: &maps[i], PC: base + a}), append(want, fr)
					break
				}
			}
		}
		b.Close()
	}
	if n := len(reqs); n < 4*batchChunk {
		t.Fatalf("only %d requests", n)
	}
	var mu sync.Mutex
	joined := map[string]int{}
	testHookJoin = func(path string) {
		mu.Lock()
		joined[filepath.Base(path)]++
		mu.Unlock()
	}
	defer func() { testHookJoin = nil }()
	mods := NewModules(&ModulesOptions{MaxOpen: 1, Options: Options{Inlines: true}})
	defer mods.Close()
	seen := make([]bool, len(reqs))
	for i, a := range mods.Batch(context.Background(), reqs) {
		if seen[i] {
			t.Fatalf("answer %d twice", i)
		}
		seen[i] = true
		if a.Err != nil || !slices.Equal(a.Frames, want[i]) {
			t.Fatalf("%d: %+v, want %v", i, a, want[i])
		}
	}
	if i := slices.Index(seen, false); i >= 0 {
		t.Fatalf("no answer for %d", i)
	}
	// The biggest file starts first, so the other worker, done with
	// the rest, joins it.
	if joined["go-trimpath"] == 0 {
		t.Errorf("no worker joined go-trimpath's chunks: %v", joined)
	}
	// Breaking out while chunks are shared: no hold is left behind.
	n := 0
	for range mods.Batch(context.Background(), reqs) {
		if n++; n == 3*batchChunk {
			break
		}
	}
	mods.mu.Lock()
	defer mods.mu.Unlock()
	for e := mods.lru.Front(); e != nil; e = e.Next() {
		if om := e.Value.(*openModule); om.refs != 0 {
			t.Errorf("%s held %d times after the batch", om.key.path, om.refs)
		}
	}
}

// TestSortRebased: the packed sort and the pair sort agree, ties in
// batch order.
func TestSortRebased(t *testing.T) {
	for _, top := range []uint64{1 << 8, 1 << 40, 1 << 63} {
		rb := make([]rebased, 5000)
		for k := range rb {
			rb[k] = rebased{addr: uint64(k*7919%1000) * (top / 1000), i: int32(k)}
		}
		want := slices.Clone(rb)
		slices.SortStableFunc(want, func(a, b rebased) int { return cmp.Compare(a.addr, b.addr) })
		sortRebased(rb)
		if !slices.Equal(rb, want) {
			t.Fatalf("top %#x: not in address and batch order", top)
		}
	}
}

// TestModulesBatchPrepares: a Modules batch readies each file's Binary as
// Binary.Batch would for as many addresses: above minChunk it is cut into
// chunks for two workers, from readAheadMin (for a small file, as this one
// is, and above minChunk once bulkMinInfo calls it large) it is bulk (its
// compressed sections inflated whole, its mapped pages evicted), and a batch sparse for the size of the file's .debug_info reads small
// units lazily; a sparse bulk batch's line tables keep only its rows, and
// no batch, run through or broken out of, leaves its addresses kept. The
// answers are those of lookups one by one.
func TestModulesBatchPrepares(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		t.Skip("needs two workers")
	}
	path := filepath.Join("testdata", "elf", "go-trimpath")
	const base = 1 << 40
	maps := loadMaps(t, path, base)
	ref, err := Open(path, &Options{Inlines: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ref.Close()
	var reqs []Request
	var want [][]Frame
	addrs := textAddrs(t, path)
	for k, tries := 0, 0; len(reqs) < readAheadMin; k, tries = (k+7)%len(addrs), tries+1 {
		if tries > 8*readAheadMin {
			t.Fatalf("%d requests of %d text addresses", len(reqs), len(addrs))
		}
		a := addrs[k]
		for i := range maps {
			if maps[i].Start <= base+a && base+a < maps[i].End {
				fr, _ := ref.AppendFrames(nil, a)
				reqs, want = append(reqs, Request{Mapping: &maps[i], PC: base + a}), append(want, fr)
				break
			}
		}
	}
	// The most requests a sparse batch holds, above minChunk: bulk
	// once bulkMinInfo calls the file large.
	sparseBulk := int(denseMin*ref.dwarf.info.Size>>20) - 1
	if sparseBulk <= minChunk || sparseBulk > len(reqs) {
		t.Fatalf("%d bytes of .debug_info: no sparse bulk batch of at most %d requests", ref.dwarf.info.Size, len(reqs))
	}
	defer func(v uint64) { bulkMinInfo = v }(bulkMinInfo)
	for _, c := range []struct {
		n     int
		small bool // the file's .debug_info below bulkMinInfo
	}{{minChunk, true}, {3 * minChunk, true}, {readAheadMin, true}, {minChunk, false}, {3 * minChunk, false}, {sparseBulk, false}} {
		n := c.n
		bulkMinInfo = 8 << 20
		if !c.small {
			bulkMinInfo = 1
		}
		var mu sync.Mutex
		joined := 0
		testHookJoin = func(string) {
			mu.Lock()
			joined++
			mu.Unlock()
		}
		mods := NewModules(&ModulesOptions{Options: Options{Inlines: true}})
		kept := keptTables.Load()
		for i, a := range mods.Batch(context.Background(), reqs[:n]) {
			if a.Err != nil || !slices.Equal(a.Frames, want[i]) {
				t.Fatalf("%d requests, %d: %+v, want %v", n, i, a, want[i])
			}
		}
		testHookJoin = nil
		if len(mods.byKey) != 1 {
			t.Fatalf("%d requests: %d modules open", n, len(mods.byKey))
		}
		for _, om := range mods.byKey {
			b := om.bin
			b.bg.Wait()
			if b.bigDWARF() == c.small {
				t.Fatalf("%s: .debug_info of %d bytes, bulkMinInfo %d", path, b.dwarf.info.Size, bulkMinInfo)
			}
			if bulk := b.bulk.Load(); bulk != (n >= readAheadMin || n > minChunk && !c.small) {
				t.Errorf("%d requests: bulk %v", n, bulk)
			}
			sparse := uint64(n)<<20 < denseMin*b.dwarf.info.Size
			if b.dwarf.sparse.Load() != sparse {
				t.Errorf("%d requests over %d bytes of .debug_info: sparse %v", n, b.dwarf.info.Size, !sparse)
			}
			if b.dwarf.keep.Load() != nil {
				t.Errorf("%d requests: the batch's addresses still kept after it", n)
			}
			// A sparse bulk batch over the zlib .debug_line keeps only
			// its rows (noteBatch) while it runs.
			if k := keptTables.Load() - kept; (k > 0) != (sparse && b.dwarf.bulk) {
				t.Errorf("%d requests (sparse %v, bulk %v): %d line tables kept only the batch's rows", n, sparse, b.dwarf.bulk, k)
			}
		}
		// Broken out of at once: the addresses are not kept either.
		for range mods.Batch(context.Background(), reqs[:n]) {
			break
		}
		for _, om := range mods.byKey {
			if om.bin.dwarf.keep.Load() != nil {
				t.Errorf("%d requests, broken out of: the batch's addresses still kept after it", n)
			}
		}
		// Two chunks, so two workers, above minChunk; whether the
		// second joins before the first has taken both depends on the
		// scheduler, and none can join one chunk.
		if chunks := chunkCount(n); (chunks >= 2) != (n > minChunk) {
			t.Errorf("%d requests in %d chunks", n, chunks)
		}
		if joined > 0 && n <= minChunk {
			t.Errorf("%d requests: %d workers joined the file's one chunk", n, joined)
		}
		mods.Close()
	}
}
