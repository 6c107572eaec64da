package symbolize_test

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/symbolize-go/symbolize"
)

// gopclnPairs returns the fixtures of testdata/gopcln: each program with
// DWARF and its -s -w twin.
func gopclnPairs(t *testing.T) [][2]string {
	dw, err := filepath.Glob("testdata/gopcln/go1.*-dwarf")
	if err != nil || len(dw) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	var out [][2]string
	for _, d := range dw {
		out = append(out, [2]string{d, strings.TrimSuffix(d, "-dwarf") + "-sw"})
	}
	return out
}

// gopclnAddrs returns addresses of every function of the table of path:
// every second byte (every fourth on fixed-width arm64), and under -race
// every fifth of those.
func gopclnAddrs(t *testing.T, b *symbolize.Binary, path string) []uint64 {
	t.Helper()
	var addrs []uint64
	step := uint64(2)
	if strings.Contains(path, "arm64") {
		step = 4
	}
	tab := symbolize.GoTableForTest(b)
	if tab == nil {
		t.Fatalf("%s: no Go table", path)
	}
	for i := 0; i < tab.NumFuncs(); i++ {
		fn, err := tab.Func(i)
		if err != nil {
			t.Fatal(err)
		}
		for pc := fn.Entry; pc < fn.End; pc += step {
			addrs = append(addrs, pc)
		}
	}
	if gopclnRace {
		n := 0
		for i := 0; i < len(addrs); i += 5 {
			addrs[n] = addrs[i]
			n++
		}
		addrs = addrs[:n]
	}
	return addrs
}

// pcln prints what the table answered, without the symbol table's
// renaming of the outermost frame.
func pcln(fr []symbolize.Frame) string {
	var sb strings.Builder
	for _, f := range fr {
		fmt.Fprintf(&sb, "%s %s:%d inl=%v start=%d %v; ", f.DWARFName, f.File, f.Line, f.Inlined, f.StartLine, f.Source)
	}
	return sb.String()
}

func frameText(fr []symbolize.Frame, startLine bool) string {
	var sb strings.Builder
	for _, f := range fr {
		fmt.Fprintf(&sb, "%s %s:%d inl=%v", f.Function, f.File, f.Line, f.Inlined)
		if f.DWARFName != f.Function {
			fmt.Fprintf(&sb, " dwarfname=%s", f.DWARFName)
		}
		if startLine {
			fmt.Fprintf(&sb, " start=%d", f.StartLine)
		}
		sb.WriteString("; ")
	}
	return sb.String()
}

// TestGoPCLNAgreesWithDWARF answers every address of each fixture's -s -w
// build from .gopclntab and of its DWARF twin from DWARF, inlined frames
// on and off: functions, files, lines, start lines and inline chains must
// be equal but where one of gopclnExceptions (gopcln_exceptions_test.go)
// excuses a field; each exception must excuse something. The twin with
// GoPCLNAlways must answer as the -s -w build, frame for frame.
func TestGoPCLNAgreesWithDWARF(t *testing.T) {
	for _, pair := range gopclnPairs(t) {
		t.Run(filepath.Base(pair[1]), func(t *testing.T) { checkGoPCLNPair(t, pair) })
	}
}

// checkGoPCLNPair is TestGoPCLNAgreesWithDWARF on one pair: the DWARF
// build and its -s -w twin, named NAME-dwarf and NAME-sw.
func checkGoPCLNPair(t *testing.T, pair [2]string) {
	ex := newGopclnExceptions(t, pair)
	for _, inl := range []bool{true, false} {
		dw, err := symbolize.Open(pair[0], &symbolize.Options{Inlines: inl})
		if err != nil {
			t.Fatal(err)
		}
		defer dw.Close()
		sw, err := symbolize.Open(pair[1], &symbolize.Options{Inlines: inl})
		if err != nil {
			t.Fatal(err)
		}
		defer sw.Close()
		forced, err := symbolize.Open(pair[0], &symbolize.Options{Inlines: inl, GoPCLN: symbolize.GoPCLNAlways})
		if err != nil {
			t.Fatal(err)
		}
		defer forced.Close()
		var a, b, c []symbolize.Frame
		agree, inlined, excused, bad := 0, 0, 0, 0
		for _, pc := range gopclnAddrs(t, sw, pair[1]) {
			a, _ = dw.AppendFrames(a[:0], pc)
			b, _ = sw.AppendFrames(b[:0], pc)
			c, _ = forced.AppendFrames(c[:0], pc)
			if b[0].Source != symbolize.SourceGoPCLN && b[0].Source != symbolize.SourceNone {
				t.Fatalf("%#x: source %v", pc, b[0].Source)
			}
			if a[0].Source == symbolize.SourceNone && b[0].Source == symbolize.SourceNone {
				continue
			}
			if pcln(b) != pcln(c) && !linkerMarker(b) && !linkerMarker(c) && !twinSymbolOnly(b, c) {
				t.Errorf("%#x: -s -w and the twin with GoPCLNAlways differ:\n%s\n%s", pc, frameText(b, true), frameText(c, true))
			}
			switch ok, exc := ex.agree(pc, a, b); {
			case !ok:
				if bad++; bad <= 5 {
					t.Errorf("%#x: inlines=%v\n  DWARF %s\npclntab %s", pc, inl, frameText(a, ex.startLine), frameText(b, ex.startLine))
				}
				continue
			case exc:
				excused++
			default:
				agree++
			}
			if len(b) > 1 {
				inlined++
			}
		}
		t.Logf("inlines=%v: %d addresses agree, %d more where exceptions excuse a field (%d of all with inlined frames), %d differ", inl, agree, excused, inlined, bad)
	}
	ex.checkUsed(t)
}

// linkerMarker reports whether fr is a linker-made marker of the FIPS
// code's bounds (go:textfipsstart, go:textfipsend): empty functions whose
// file the -s -w build leaves empty and the DWARF build names go.go.
func linkerMarker(fr []symbolize.Frame) bool {
	if len(fr) != 1 {
		return false
	}
	n := fr[0].Function
	return n == "go:textfipsstart" || n == "go:textfipsend"
}

// twinSymbolOnly reports whether the twin's symbol table names an address
// c that no line table covers (b): Mach-O symbols have no size, so a
// symbol covers the padding up to the next one, and runtime.text and
// go:buildid share an address.
func twinSymbolOnly(b, c []symbolize.Frame) bool {
	return len(b) == 1 && len(c) == 1 && b[0].File == "" && b[0].Line == 0 && c[0].Source == symbolize.SourceSymbolTable
}

// TestGoPCLNBatch checks Batch's reuse of the table's answers (over the
// range each holds for) on every byte of two -s -w fixtures, against one
// AppendFrames per address.
func TestGoPCLNBatch(t *testing.T) {
	for _, name := range []string{"go1.13-linux-amd64-sw", "go1.26-linux-amd64-sw"} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join("testdata/gopcln", name)
			b, err := symbolize.Open(path, &symbolize.Options{Inlines: true})
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			tab := symbolize.GoTableForTest(b)
			first, _ := tab.Func(0)
			last, _ := tab.Func(tab.NumFuncs() - 1)
			var pcs []uint64
			for pc := first.Entry; pc <= last.End; pc++ {
				pcs = append(pcs, pc)
			}
			var want []symbolize.Frame
			for i, a := range b.Batch(context.Background(), pcs) {
				want, err = b.AppendFrames(want[:0], pcs[i])
				if a.Err != nil || err != nil || !slices.Equal(a.Frames, want) {
					t.Fatalf("%#x: Batch %v %v, AppendFrames %v %v", pcs[i], a.Frames, a.Err, want, err)
				}
			}
			t.Logf("%d addresses", len(pcs))
		})
	}
}

// TestGoPCLNAllocs checks that a warm lookup answered by the table
// allocates nothing when dst has room (names are the table's, interned).
func TestGoPCLNAllocs(t *testing.T) {
	b, err := symbolize.Open("testdata/gopcln/go1.26-linux-amd64-sw", &symbolize.Options{Inlines: true})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	tab := symbolize.GoTableForTest(b)
	var pcs []uint64
	for i := 0; i < tab.NumFuncs(); i += 5 {
		fn, _ := tab.Func(i)
		pcs = append(pcs, fn.Entry, fn.Entry+(fn.End-fn.Entry)/2)
	}
	fr := make([]symbolize.Frame, 0, 64)
	for _, pc := range pcs {
		fr, _ = b.AppendFrames(fr[:0], pc)
	}
	if a := testing.AllocsPerRun(10, func() {
		for _, pc := range pcs {
			fr, _ = b.AppendFrames(fr[:0], pc)
		}
	}); a != 0 {
		t.Errorf("%v allocations per %d warm lookups, want 0", a, len(pcs))
	}
}
