package pprofsym

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/google/pprof/profile"
	"github.com/symbolize-go/symbolize/frame"
	"github.com/symbolize-go/symbolize/slide"
)

// fakeSymbolizer answers from a table keyed by file and address. A file in
// fail answers every address with that error (as a missing file or another
// build ID would), an address in bad with a *slide.MappingError; an address
// it does not know gets one SourceNone frame. It counts its lookups.
type fakeSymbolizer struct {
	frames map[string]map[uint64][]frame.Frame
	fail   map[string]error
	bad    map[uint64]bool
	mu     sync.Mutex
	calls  map[string]map[uint64]int
	mods   map[string]slide.Module // the module each file was asked with
}

func (s *fakeSymbolizer) AppendFrames(dst []frame.Frame, m *slide.Module, pc uint64) ([]frame.Frame, error) {
	s.mu.Lock()
	if s.calls == nil {
		s.calls, s.mods = make(map[string]map[uint64]int), make(map[string]slide.Module)
	}
	if s.calls[m.Path] == nil {
		s.calls[m.Path] = make(map[uint64]int)
	}
	s.calls[m.Path][pc]++
	s.mods[m.Path] = *m
	s.mu.Unlock()
	if err := s.fail[m.Path]; err != nil {
		return dst, err
	}
	if s.bad[pc] {
		return dst, &slide.MappingError{Start: m.Start, End: m.End, Offset: m.Offset, Addr: pc, Err: slide.ErrNoSegment}
	}
	if f, ok := s.frames[m.Path][pc]; ok {
		return append(dst, f...), nil
	}
	return append(dst, frame.Frame{}), nil
}

// fn is a frame as the root package's Modules returns it with Demangle set.
func fn(function, dwarfName, symbol, file string, line, col, start uint32, inlined bool) frame.Frame {
	return frame.Frame{Function: function, DWARFName: dwarfName, SymbolName: symbol, File: file, Line: line, Column: col,
		StartLine: start, Inlined: inlined, Source: frame.SourceDWARF}
}

// testProfile has a main binary (mapping 1) and a library (mapping 2),
// with locations at addresses in both; locations 3 and 6 share an address.
func testProfile() *profile.Profile {
	m1 := &profile.Mapping{ID: 1, Start: 0x400000, Limit: 0x401000, File: "/bin/prog", BuildID: "aa"}
	m2 := &profile.Mapping{ID: 2, Start: 0x7f0000, Limit: 0x7f1000, Offset: 0x1000, File: "/lib/libx.so"}
	locs := []*profile.Location{
		{ID: 1, Mapping: m1, Address: 0x400100},
		{ID: 2, Mapping: m2, Address: 0x7f0010},
		{ID: 3, Mapping: m1, Address: 0x400200},
		{ID: 4, Mapping: m1, Address: 0x400300},
		{ID: 5, Mapping: m1, Address: 0x400050},
		{ID: 6, Mapping: m1, Address: 0x400200},
	}
	p := &profile.Profile{
		SampleType: []*profile.ValueType{{Type: "samples", Unit: "count"}},
		Mapping:    []*profile.Mapping{m1, m2},
		Location:   locs,
		Sample: []*profile.Sample{
			{Location: []*profile.Location{locs[0], locs[1], locs[2]}, Value: []int64{1}},
			{Location: []*profile.Location{locs[3], locs[4], locs[5]}, Value: []int64{2}},
		},
	}
	return p
}

func testSymbolizer() *fakeSymbolizer {
	return &fakeSymbolizer{frames: map[string]map[uint64][]frame.Frame{
		"/bin/prog": {
			// sum inlined into geo::Square::area, at two addresses.
			0x400100: {
				fn("sum(int, int)", "_Z3sumii", "", "/src/a.cc", 3, 5, 2, true),
				fn("geo::Square::area() const", "_ZNK3geo6Square4areaEv", "_ZNK3geo6Square4areaEv", "/src/a.cc", 10, 7, 9, false),
			},
			0x400200: {
				fn("sum(int, int)", "_Z3sumii", "", "/src/a.cc", 4, 1, 2, true),
				fn("geo::Square::area() const", "_ZNK3geo6Square4areaEv", "_ZNK3geo6Square4areaEv", "/src/a.cc", 11, 2, 9, false),
			},
			// The symbol names the outermost frame (gcc's split part).
			0x400300: {fn("main.cold", "main", "main.cold", "/src/a.cc", 20, 0, 15, false)},
			// Symbol table only.
			0x400050: {{Function: "_start", SymbolName: "_start", Source: frame.SourceSymbolTable}},
		},
		"/lib/libx.so": {
			0x7f0010: {fn("std::vector<int, std::allocator<int> >::push_back(int const&)", "_ZNSt6vectorIiSaIiEE9push_backERKi", "", "/usr/include/vector", 100, 3, 90, false)},
		},
	}}
}

// lineText is a location's lines as "SystemName|Name|file:line:col|start".
func lineText(l *profile.Location) []string {
	var s []string
	for _, ln := range l.Line {
		f := ln.Function
		s = append(s, fmt.Sprintf("%d %s|%s|%s:%d:%d|%d", f.ID, f.SystemName, f.Name, f.Filename, ln.Line, ln.Column, f.StartLine))
	}
	return s
}

func TestSymbolize(t *testing.T) {
	p := testProfile()
	s := testSymbolizer()
	rep, err := Symbolize(context.Background(), p, s, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := rep.Err(); err != nil {
		t.Fatal(err)
	}
	// Functions are numbered in pprof's order: mappings, then each
	// mapping's locations in profile order, innermost frame first.
	want := map[uint64][]string{
		1: {"1 _Z3sumii|sum|/src/a.cc:3:5|2", "2 _ZNK3geo6Square4areaEv|geo::Square::area|/src/a.cc:10:7|9"},
		3: {"1 _Z3sumii|sum|/src/a.cc:4:1|2", "2 _ZNK3geo6Square4areaEv|geo::Square::area|/src/a.cc:11:2|9"},
		4: {"3 main.cold|main.cold|/src/a.cc:20:0|15"},
		5: {"4 _start|_start|:0:0|0"},
		6: {"1 _Z3sumii|sum|/src/a.cc:4:1|2", "2 _ZNK3geo6Square4areaEv|geo::Square::area|/src/a.cc:11:2|9"},
		2: {"5 _ZNSt6vectorIiSaIiEE9push_backERKi|std::vector::push_back|/usr/include/vector:100:3|90"},
	}
	for _, l := range p.Location {
		if d := cmp.Diff(want[l.ID], lineText(l)); d != "" {
			t.Errorf("location %d (-want +got):\n%s", l.ID, d)
		}
	}
	if len(p.Function) != 5 {
		t.Errorf("%d functions, want 5", len(p.Function))
	}
	for i, f := range p.Function {
		if f.ID != uint64(i+1) {
			t.Errorf("function %d has ID %d", i, f.ID)
		}
	}
	for _, m := range p.Mapping {
		if !m.HasFunctions || !m.HasFilenames || !m.HasLineNumbers || !m.HasInlineFrames {
			t.Errorf("mapping %d: flags %v %v %v %v, want all set", m.ID, m.HasFunctions, m.HasFilenames, m.HasLineNumbers, m.HasInlineFrames)
		}
	}
	wantRep := &Report{Mappings: 2, Addresses: 5, Locations: 6, Functions: 5}
	if d := cmp.Diff(wantRep, rep); d != "" {
		t.Errorf("report (-want +got):\n%s", d)
	}
	// Each distinct address once, with the mapping's description.
	for file, pcs := range s.calls {
		for pc, n := range pcs {
			if n != 1 {
				t.Errorf("%s %#x looked up %d times", file, pc, n)
			}
		}
	}
	wantMod := slide.Module{Name: "libx.so", Path: "/lib/libx.so", Start: 0x7f0000, End: 0x7f1000, Offset: 0x1000}
	if d := cmp.Diff(wantMod, s.mods["/lib/libx.so"]); d != "" {
		t.Errorf("module (-want +got):\n%s", d)
	}
	if got := s.mods["/bin/prog"].UUID; got != "aa" {
		t.Errorf("module UUID %q, want the build ID aa", got)
	}
	// The result is a valid profile that survives encoding.
	var buf bytes.Buffer
	if err := p.Write(&buf); err != nil {
		t.Fatal(err)
	}
	q, err := profile.Parse(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(lineText(p.Location[0]), lineText(q.Location[0])); d != "" {
		t.Errorf("after encoding (-before +after):\n%s", d)
	}
}

// TestFlags: the mapping flags say what the answers held, as pprof sets
// them.
func TestFlags(t *testing.T) {
	for _, tc := range []struct {
		name   string
		frames []frame.Frame
		want   [4]bool // functions, filenames, line numbers, inline frames
	}{
		{"nothing", []frame.Frame{{}}, [4]bool{false, false, false, true}},
		{"symbol", []frame.Frame{{Function: "f", SymbolName: "f", Source: frame.SourceSymbolTable}}, [4]bool{true, false, false, true}},
		{"file", []frame.Frame{{File: "a.c", Source: frame.SourceDWARF}}, [4]bool{false, true, false, true}},
		{"line", []frame.Frame{{Line: 3, Source: frame.SourceDWARF}}, [4]bool{false, false, true, true}},
		{"no frames", []frame.Frame{}, [4]bool{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := &profile.Mapping{ID: 1, Start: 0x1000, Limit: 0x2000, File: "/f"}
			l := &profile.Location{ID: 1, Mapping: m, Address: 0x1100}
			p := &profile.Profile{Mapping: []*profile.Mapping{m}, Location: []*profile.Location{l}}
			s := &fakeSymbolizer{frames: map[string]map[uint64][]frame.Frame{"/f": {0x1100: tc.frames}}}
			if _, err := Symbolize(context.Background(), p, s, nil); err != nil {
				t.Fatal(err)
			}
			got := [4]bool{m.HasFunctions, m.HasFilenames, m.HasLineNumbers, m.HasInlineFrames}
			if got != tc.want {
				t.Errorf("flags %v, want %v", got, tc.want)
			}
			if len(l.Line) != len(tc.frames) {
				t.Errorf("%d lines, want %d", len(l.Line), len(tc.frames))
			}
		})
	}
}

// TestKeep: what is already symbolized stays as it was.
func TestKeep(t *testing.T) {
	p := testProfile()
	done := &profile.Function{ID: 7, Name: "done", SystemName: "done"}
	p.Function = []*profile.Function{done}
	p.Mapping[1].HasFunctions = true                               // the library: pprof leaves it alone
	p.Location[0].Line = []profile.Line{{Function: done, Line: 1}} // one location of the main binary
	s := testSymbolizer()
	rep, err := Symbolize(context.Background(), p, s, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := rep.Err(); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"7 done|done|:1:0|0"}, lineText(p.Location[0])); d != "" {
		t.Errorf("kept location (-want +got):\n%s", d)
	}
	if len(p.Location[1].Line) != 0 || p.Mapping[1].HasLineNumbers || len(s.calls["/lib/libx.so"]) != 0 {
		t.Errorf("the symbolized mapping was looked up again")
	}
	if s.calls["/bin/prog"][0x400100] != 0 {
		t.Errorf("the symbolized location was looked up again")
	}
	// New functions are numbered after the existing ones.
	if got := lineText(p.Location[2]); len(got) != 2 || got[0] != "8 _Z3sumii|sum|/src/a.cc:4:1|2" {
		t.Errorf("location 3: %q", got)
	}
	if rep.Locations != 4 || rep.Functions != 4 || p.Function[0] != done || len(p.Function) != 5 {
		t.Errorf("report %+v, %d functions", rep, len(p.Function))
	}
}

// TestErrors: each location or mapping that cannot be symbolized is a
// typed error of its own, and the rest is symbolized.
func TestErrors(t *testing.T) {
	p := testProfile()
	vdso := &profile.Mapping{ID: 3, Start: 0x7ff000, Limit: 0x7ff100, File: "[vdso]"}
	anon := &profile.Mapping{ID: 4, Start: 0x800000, Limit: 0x800100}
	gone := &profile.Mapping{ID: 5, Start: 0x900000, Limit: 0x900100, File: "/gone", BuildID: "bb"}
	unlisted := &profile.Mapping{ID: 6, Start: 0xa00000, Limit: 0xa00100, File: "/bin/prog"}
	p.Mapping = append(p.Mapping, vdso, anon, gone)
	m1 := p.Mapping[0]
	add := func(m *profile.Mapping, addr uint64) *profile.Location {
		l := &profile.Location{ID: uint64(len(p.Location) + 1), Mapping: m, Address: addr}
		p.Location = append(p.Location, l)
		return l
	}
	lVDSO := add(vdso, 0x7ff010)
	lAnon := add(anon, 0x800010)
	lGone := add(gone, 0x900010)
	add(gone, 0x900020)
	lNil := add(nil, 0x10)
	lUnlisted := add(unlisted, 0xa00010)
	lOutside := add(m1, 0x401000) // at the mapping's limit
	lBad := add(m1, 0x400400)
	errGone := errors.New("no such file")
	s := testSymbolizer()
	s.fail = map[string]error{"/gone": errGone}
	s.bad = map[uint64]bool{0x400400: true}
	rep, err := Symbolize(context.Background(), p, s, &Options{Workers: 3})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range rep.MappingErrors {
		got = append(got, fmt.Sprintf("mapping %d: %v", e.Mapping.ID, e.Err))
	}
	for _, e := range rep.LocationErrors {
		got = append(got, fmt.Sprintf("location %d: %v", e.Location.ID, e.Err))
	}
	want := []string{
		"mapping 3: " + ErrNotAFile.Error(),
		"mapping 4: " + ErrNoFile.Error(),
		"mapping 5: no such file",
		fmt.Sprintf("location %d: %v", lNil.ID, ErrNoMapping),
		fmt.Sprintf("location %d: %v", lUnlisted.ID, ErrNoMapping),
		fmt.Sprintf("location %d: slide: address 0x401000 of mapping [0x400000, 0x401000) at offset 0x0: address outside its mapping", lOutside.ID),
		fmt.Sprintf("location %d: slide: address 0x400400 of mapping [0x400000, 0x401000) at offset 0x0: no program header matches the mapping", lBad.ID),
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("errors (-want +got):\n%s", d)
	}
	for _, c := range []struct {
		err    error
		target error
	}{
		{rep.MappingErrors[0], ErrNotAFile}, {rep.MappingErrors[1], ErrNoFile}, {rep.MappingErrors[2], errGone},
		{rep.LocationErrors[0], ErrNoMapping}, {rep.LocationErrors[2], slide.ErrOutsideMapping}, {rep.LocationErrors[3], slide.ErrNoSegment},
		{rep.Err(), errGone},
	} {
		if !errors.Is(c.err, c.target) {
			t.Errorf("%v is not %v", c.err, c.target)
		}
	}
	var me *MappingError
	if !errors.As(rep.Err(), &me) || me.Mapping != vdso {
		t.Errorf("Err() holds no *MappingError of the vDSO")
	}
	if n := len(s.calls["/gone"]); n != 1 {
		t.Errorf("the failing file was asked %d times, want once", n)
	}
	for _, l := range []*profile.Location{lVDSO, lAnon, lGone, lNil, lUnlisted, lOutside, lBad} {
		if len(l.Line) != 0 {
			t.Errorf("location %d has lines: %q", l.ID, lineText(l))
		}
	}
	for _, l := range p.Location[:6] {
		if len(l.Line) == 0 {
			t.Errorf("location %d was not symbolized", l.ID)
		}
	}
	if gone.HasFunctions || gone.HasInlineFrames || vdso.HasInlineFrames {
		t.Errorf("a failed mapping has flags set")
	}
	if rep.Locations != 6 {
		t.Errorf("%d locations symbolized, want 6", rep.Locations)
	}
}

// TestCancel: a cancelled context leaves the profile as it was.
func TestCancel(t *testing.T) {
	p := testProfile()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Symbolize(ctx, p, testSymbolizer(), nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want context.Canceled", err)
	}
	for _, l := range p.Location {
		if len(l.Line) != 0 {
			t.Errorf("location %d has lines", l.ID)
		}
	}
	if len(p.Function) != 0 || p.Mapping[0].HasInlineFrames {
		t.Errorf("the profile changed")
	}
	if _, err := Symbolize(context.Background(), nil, testSymbolizer(), nil); err == nil {
		t.Errorf("a nil profile is no error")
	}
}

// TestMany: many addresses over several workers (run with -race) give what
// one worker gives.
func TestMany(t *testing.T) {
	build := func() (*profile.Profile, *fakeSymbolizer) {
		s := &fakeSymbolizer{frames: map[string]map[uint64][]frame.Frame{"/a": {}, "/b": {}}}
		var p profile.Profile
		for i, file := range []string{"/a", "/b"} {
			m := &profile.Mapping{ID: uint64(i + 1), Start: uint64(i+1) << 20, Limit: uint64(i+2) << 20, File: file}
			p.Mapping = append(p.Mapping, m)
			for j := range 3000 {
				addr := m.Start + uint64(j*7919%(1<<20))
				p.Location = append(p.Location, &profile.Location{ID: uint64(len(p.Location) + 1), Mapping: m, Address: addr})
				if j%3 == 0 {
					continue // nothing covers it
				}
				s.frames[file][addr] = []frame.Frame{
					fn("inner", "inner", "", "/src/x.c", uint32(j%50), 1, 1, true),
					fn(fmt.Sprintf("f%d", j%97), fmt.Sprintf("f%d", j%97), fmt.Sprintf("f%d", j%97), "/src/x.c", uint32(j), 2, uint32(j%97), false),
				}
			}
		}
		return &p, s
	}
	p1, s1 := build()
	if _, err := Symbolize(context.Background(), p1, s1, &Options{Workers: 1}); err != nil {
		t.Fatal(err)
	}
	p4, s4 := build()
	rep, err := Symbolize(context.Background(), p4, s4, &Options{Workers: 4})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Addresses != 6000 || rep.Locations != 6000 {
		t.Errorf("report %+v", rep)
	}
	for i := range p1.Location {
		if d := cmp.Diff(lineText(p1.Location[i]), lineText(p4.Location[i])); d != "" {
			t.Fatalf("location %d (-1 worker +4):\n%s", i+1, d)
		}
	}
	if d := cmp.Diff(p1.Function, p4.Function, cmpopts.IgnoreUnexported(profile.Function{})); d != "" {
		t.Errorf("functions (-1 worker +4):\n%s", d)
	}
}

func TestDisplayName(t *testing.T) {
	for _, tc := range []struct{ sys, want string }{
		{"main", "main"},
		{"", ""},
		{"_IO_file_underflow", "_IO_file_underflow"},
		{"_ZN3geo6Square4areaEv", "geo::Square::area"},
		{"_ZNSt6vectorIiSaIiEE9push_backERKi", "std::vector::push_back"},
		{"_ZZ4mainENK3$_0clEv", "main::$_0::operator()"},
		{"__ZN3geo6Square4areaEv", "geo::Square::area"}, // Mach-O's extra underscore
		{"_ZN12_GLOBAL__N_16sum_byEPKii", "(anonymous namespace)::sum_by"},
		// Already demangled C++: groups dropped.
		{"std::vector<int>::push_back(int const&)", "std::vector::push_back"},
		{"a::b(c(d))e", "a::be"},
		{"a::b)c(d)", "a::b)c(d)"},             // a close before any open: kept from there
		{"x(y)::z)w(v)", "x::z)w(v)"},          // groups before it are dropped
		{"a::b(c", "a::b(c"},                   // never closed
		{"Foo.<init>(int)", "Foo.<init>(int)"}, // Java
		{"pkg.(*T[...]).M", "pkg.(*T[...]).M"}, // Go
		{"pkg.F[...](x)", "pkg.F[...]"},
	} {
		if got := displayName(tc.sys); got != tc.want {
			t.Errorf("displayName(%q) = %q, want %q", tc.sys, got, tc.want)
		}
	}
}

// TestImports: the package does not import the root package (imports
// point down).
func TestImports(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	out, err := exec.Command(goTool, "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, d := range strings.Fields(string(out)) {
		if d == "github.com/symbolize-go/symbolize" {
			t.Errorf("pprofsym depends on the root package")
		}
	}
}
