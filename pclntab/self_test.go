package pclntab

import (
	"bytes"
	"debug/elf"
	"debug/macho"
	"fmt"
	"maps"
	"os"
	"reflect"
	"runtime"
	"slices"
	"sort"
	"strings"
	"testing"
)

// image is a test's view of an executable: its sections by address.
type image struct {
	table     []byte
	tableAddr uint64
	text      uint64
	noptrdata []byte // where the module record is: .go.module (Go 1.26), else .noptrdata
	noptrAddr uint64
	secs      []imageSection
}

type imageSection struct {
	addr uint64
	data []byte
}

func (im *image) memory(addr uint64, n int) []byte {
	for _, s := range im.secs {
		if addr >= s.addr && addr-s.addr < uint64(len(s.data)) {
			b := s.data[addr-s.addr:]
			return b[:min(n, len(b))]
		}
	}
	return nil
}

// openImage reads what the tests need from the ELF or Mach-O file at path.
func openImage(t testing.TB, path string) *image {
	t.Helper()
	im := &image{}
	if f, err := elf.Open(path); err == nil {
		defer f.Close()
		for _, s := range f.Sections {
			if s.Type == elf.SHT_NOBITS || s.Flags&elf.SHF_ALLOC == 0 {
				continue
			}
			d, err := s.Data()
			if err != nil {
				t.Fatal(err)
			}
			d = relocate(f, s, d)
			im.secs = append(im.secs, imageSection{s.Addr, d})
			switch s.Name {
			case ".gopclntab", ".data.rel.ro.gopclntab":
				im.table, im.tableAddr = d, s.Addr
			case ".text":
				im.text = s.Addr
			case ".go.module", ".noptrdata":
				if im.noptrdata == nil || s.Name == ".go.module" {
					im.noptrdata, im.noptrAddr = d, s.Addr
				}
			}
		}
		return im
	}
	f, err := macho.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, s := range f.Sections {
		if s.Flags&0xff == 1 { // S_ZEROFILL
			continue
		}
		d, err := s.Data()
		if err != nil {
			t.Fatal(err)
		}
		im.secs = append(im.secs, imageSection{s.Addr, d})
		switch s.Name {
		case "__gopclntab":
			im.table, im.tableAddr = d, s.Addr
		case "__text":
			im.text = s.Addr
		case "__go_module", "__noptrdata":
			if im.noptrdata == nil || s.Name == "__go_module" {
				im.noptrdata, im.noptrAddr = d, s.Addr
			}
		}
	}
	return im
}

// relocate returns the data d of section s of a 64-bit amd64 or arm64 PIE
// with the dynamic relative relocations into it applied (a PIE's module
// record holds zeros until then), in a copy; d itself otherwise.
func relocate(f *elf.File, s *elf.Section, d []byte) []byte {
	if f.Type != elf.ET_DYN || f.Class != elf.ELFCLASS64 || f.Machine != elf.EM_X86_64 && f.Machine != elf.EM_AARCH64 {
		return d
	}
	relative := uint32(elf.R_X86_64_RELATIVE)
	if f.Machine == elf.EM_AARCH64 {
		relative = uint32(elf.R_AARCH64_RELATIVE)
	}
	copied := false
	for _, rs := range f.Sections {
		if rs.Type != elf.SHT_RELA || rs.Flags&elf.SHF_ALLOC == 0 {
			continue
		}
		r, err := rs.Data()
		if err != nil {
			continue
		}
		for ; len(r) >= 24; r = r[24:] {
			var rela elf.Rela64
			rela.Off, rela.Info, rela.Addend = f.ByteOrder.Uint64(r), f.ByteOrder.Uint64(r[8:]), int64(f.ByteOrder.Uint64(r[16:]))
			if elf.R_TYPE64(rela.Info) != relative || rela.Off < s.Addr || rela.Off-s.Addr+8 > uint64(len(d)) {
				continue
			}
			if !copied {
				d, copied = bytes.Clone(d), true
			}
			f.ByteOrder.PutUint64(d[rela.Off-s.Addr:], uint64(rela.Addend))
		}
	}
	return d
}

// openTable decodes the image's table as a symbolizer of a stripped file
// would: text start and funcdata base from the module record.
func openTable(t testing.TB, im *image) *Table {
	t.Helper()
	if im.table == nil {
		t.Fatal("no .gopclntab")
	}
	hdr, err := New(im.table, nil)
	if err != nil {
		t.Fatal(err)
	}
	md, ok := FindModuledata(hdr, im.tableAddr, im.noptrdata, im.noptrAddr)
	if !ok {
		t.Fatal("no moduledata")
	}
	if md.Text != im.text {
		t.Errorf("moduledata text %#x, .text at %#x", md.Text, im.text)
	}
	tab, err := New(im.table, &Options{TextStart: md.Text, GoFunc: md.GoFunc, Memory: im.memory})
	if err != nil {
		t.Fatal(err)
	}
	return tab
}

var selfTable = func() func(t testing.TB) *Table {
	var tab *Table
	return func(t testing.TB) *Table {
		if tab == nil {
			exe, err := os.Executable()
			if err != nil {
				t.Fatal(err)
			}
			tab = openTable(t, openImage(t, exe))
		}
		return tab
	}
}()

// Inlining-heavy code for the self tests: every level inlines into the
// next, and the innermost records the stack.

type rec struct{ pcs []uintptr }

func (r *rec) grab() {
	var buf [64]uintptr
	n := runtime.Callers(1, buf[:])
	r.pcs = append(r.pcs, buf[:n]...)
}

func leafA(r *rec, x int) int { r.grab(); return x + 1 }
func leafB(r *rec, x int) int { return leafA(r, x) * 2 }
func leafC(r *rec, x int) int { return leafB(r, x) + leafA(r, x) }
func leafD(r *rec, x int) int { return leafC(r, x) - 1 }
func genericE[T ~int](r *rec, x T) T {
	return T(leafD(r, int(x)))
}

func closureF(r *rec, x int) int {
	f := func(y int) int { return leafC(r, y) }
	return f(x) + f(x+1)
}

//go:noinline
func driver(r *rec, n int) int {
	s := 0
	for i := 0; i < n; i++ {
		s += leafD(r, i) + genericE(r, i) + closureF(r, i)
		if i%3 == 0 {
			s += leafB(r, s)
		}
	}
	return s
}

// stdlibCallbacks records stacks from callbacks that inlining-heavy
// library code calls from many sites: the sorts' comparators (pdqsort's
// helpers inline into each other), iterator yields (range-over-func bodies
// inline into the iterator), strings and bytes predicates.
func stdlibCallbacks(r *rec) {
	xs := make([]int, 3000)
	for i := range xs {
		xs[i] = (i * 7919) % 1237
	}
	n := 0
	cmpInt := func(a, b int) int {
		if n++; n%5 == 0 {
			r.grab()
		}
		return a - b
	}
	slices.SortFunc(slices.Clone(xs), cmpInt)
	slices.SortStableFunc(slices.Clone(xs), cmpInt)
	ys := slices.Clone(xs)
	sort.Slice(ys, func(i, j int) bool { return cmpInt(ys[i], ys[j]) < 0 })
	sort.SliceStable(ys, func(i, j int) bool { return cmpInt(ys[j], ys[i]) < 0 })
	_, _ = slices.BinarySearchFunc(xs, 5, cmpInt)
	_ = slices.IndexFunc(xs, func(x int) bool { return cmpInt(x, -1) < 0 })
	m := map[int]int{}
	for k, v := range xs {
		m[v] = k
	}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		cmpInt(k, m[k])
	}
	for i, v := range slices.Backward(xs[:100]) {
		cmpInt(i, v)
	}
	s := strings.Repeat("the quick brown fox ", 50)
	strings.FieldsFunc(s, func(c rune) bool { return cmpInt(int(c), ' ') == 0 })
	strings.Map(func(c rune) rune { cmpInt(int(c), 0); return c + 1 }, s)
	bytes.TrimFunc([]byte(s), func(c rune) bool { return cmpInt(int(c), 't') == 0 })
	for w := range strings.SplitSeq(s, " ") {
		cmpInt(len(w), 0)
	}
	for w := range strings.FieldsSeq(s) {
		cmpInt(len(w), 1)
	}
}

// TestSelfCallersFrames looks up, in the test binary's own table, every
// PC runtime.Callers recorded in inlined code, and compares with
// runtime.CallersFrames for the same PC, frame by frame.
func TestSelfCallersFrames(t *testing.T) {
	tab := selfTable(t)
	var r rec
	driver(&r, 40)
	stdlibCallbacks(&r)
	pcs := slices.Compact(slices.Sorted(slices.Values(r.pcs)))
	// Every function's instructions too: FuncForPC for each function
	// entry + k, and the PCs of every function in this package.
	if len(pcs) < 10 {
		t.Fatalf("only %d PCs", len(pcs))
	}
	var frames []Frame
	inlined := 0
	for _, pc := range pcs {
		// A return address: CallersFrames looks up pc-1.
		want := runtimeFrames(pc)
		var err error
		frames, err = tab.AppendFrames(frames[:0], uint64(pc-1))
		if err != nil {
			t.Fatalf("%#x: %v", pc, err)
		}
		got := describe(frames)
		if !slices.Equal(got, want) {
			t.Errorf("%#x:\n got %q\nwant %q", pc, got, want)
		}
		if len(frames) > 1 {
			inlined++
		}
	}
	t.Logf("%d PCs from runtime.Callers agree with runtime.CallersFrames, %d with inlined frames (%s layout)", len(pcs), inlined, tab.Version())
	if inlined == 0 {
		t.Error("no inlined frames: was the test built with -gcflags=-l?")
	}
}

// TestSelfAllFunctions compares, for every function of the test binary
// and every few bytes of it, our frames with runtime.CallersFrames of
// pc+1 (which looks up pc) and runtime.FuncForPC.
func TestSelfAllFunctions(t *testing.T) {
	tab := selfTable(t)
	var frames []Frame
	checked, inl := 0, 0
	step := uint64(3)
	if testing.Short() {
		step = 29
	}
	for i := 0; i < tab.NumFuncs(); i++ {
		fn, err := tab.Func(i)
		if err != nil {
			t.Fatal(err)
		}
		if fn.Name == sentinelName {
			continue
		}
		for pc := fn.Entry; pc < fn.End; pc += step {
			frames, err = tab.AppendFrames(frames[:0], pc)
			if err != nil {
				t.Fatalf("%s+%#x: %v", fn.Name, pc-fn.Entry, err)
			}
			ff := runtime.FuncForPC(uintptr(pc))
			if len(frames) == 0 {
				// Padding after the function's code: the runtime
				// has no line for it either.
				if _, line := ff.FileLine(uintptr(pc)); line != 0 {
					t.Errorf("%s+%#x: no frames, FuncForPC line %d", fn.Name, pc-fn.Entry, line)
				}
				continue
			}
			// CallersFrames looks up pc+1 itself when that is a
			// function's entry.
			if pc+1 < fn.End {
				want := runtimeFrames(uintptr(pc) + 1)
				if got := describe(frames); !slices.Equal(got, want) {
					t.Errorf("%#x:\n got %q\nwant %q", pc, got, want)
					if checked > 10000 {
						t.FailNow()
					}
				}
			}
			// FuncForPC names the innermost function.
			file, line := ff.FileLine(uintptr(pc))
			if ff.Name() != printName(tab, frames[0].Function) || file != frames[0].File || line != int(frames[0].Line) {
				t.Errorf("%#x: FuncForPC %s %s:%d, ours %s %s:%d", pc, ff.Name(), file, line, frames[0].Function, frames[0].File, frames[0].Line)
			}
			checked++
			if len(frames) > 1 {
				inl++
			}
		}
	}
	t.Logf("%d addresses of %d functions agree with runtime.CallersFrames and FuncForPC, %d with inlined frames", checked, tab.NumFuncs(), inl)
	if checked < 1000 || inl < 100 {
		t.Errorf("checked %d addresses, %d inlined", checked, inl)
	}
}

// runtimeFrames returns what runtime.CallersFrames says of the return
// address pc, one string per frame.
//
// CallersFrames expands the inlined calls of a PC only when another PC
// follows it (it expects the virtual PCs runtime.Callers inserts for
// outer frames, and adds them when missing), so the list ends with the PC
// of sentinel, whose frame ends the answer.
func runtimeFrames(pc uintptr) []string {
	fr := runtime.CallersFrames([]uintptr{pc, sentinelPC})
	var out []string
	for {
		f, more := fr.Next()
		if f.Function == sentinelName || f.Function == "" && f.Line == 0 {
			break
		}
		out = append(out, fmt.Sprintf("%s %s:%d entry=%#x", f.Function, f.File, f.Line, f.Entry))
		if !more {
			break
		}
	}
	return out
}

// sentinel is a function that is never inlined, whose PC ends the lists
// runtimeFrames passes to runtime.CallersFrames.
//
//go:noinline
func sentinel() {}

const sentinelName = "github.com/symbolize-go/symbolize/pclntab.sentinel"

var sentinelPC = reflect.ValueOf(sentinel).Pointer() + 1

// The abi.FuncID values of Go 1.26 that runtime.CallersFrames elides
// wrapper frames by (runtime/traceback.go elideWrapperCalling).
const (
	funcIDgopanic   = 10
	funcIDpanicwrap = 15
	funcIDsigpanic  = 20
	funcIDWrapper   = 23
)

// describe prints frames as runtimeFrames does: the names as the runtime
// prints them, without the frames of wrappers (autogenerated code) whose
// callee is not a panic function, which runtime.CallersFrames elides.
func describe(frames []Frame) []string {
	var out []string
	for i, f := range frames {
		if i > 0 && f.FuncID == funcIDWrapper {
			if c := frames[i-1].FuncID; c != funcIDgopanic && c != funcIDsigpanic && c != funcIDpanicwrap {
				continue
			}
		}
		out = append(out, fmt.Sprintf("%s %s:%d entry=%#x", printName(selfTable(nil), f.Function), f.File, f.Line, f.Entry))
	}
	return out
}

// printName is PrintName but for the name at offset 0 of the function
// names, which the runtime prints as "" (moduledata.funcName takes offset
// 0 for no name): the first function's, internal/cpu.Initialize in Go
// 1.26 binaries.
func printName(tab *Table, name string) string {
	if first, _ := tab.funcName(0); name == first {
		return ""
	}
	return PrintName(name)
}
