package main

import (
	"bytes"
	"debug/dwarf"
	"debug/elf"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/symbolize-go/symbolize/pclntab"
)

const goFixtures = "../../testdata/gopcln"

// TestGoPCLNAgainstLLVM runs the command on the -s -w Go fixtures of
// testdata/gopcln, which it answers from .gopclntab alone, and
// llvm-symbolizer-14 on their twins built with DWARF (same code, same
// addresses): functions, files, lines and inlined frames must be the
// same, with inlines and with --no-inlines. Go's DWARF has no columns
// (every row's is 0, as llvm-symbolizer prints) and the table none: both
// print 0. Where they differ, one of goExceptions excuses one field of
// one fixture by a predicate, and an exception that excuses nothing
// fails. The Mach-O twin is left out: llvm-symbolizer-14 does not read its
// DWARF (Go compresses it into __zdebug sections and LLVM 14 reports the
// first unit as extending past its section).
func TestGoPCLNAgainstLLVM(t *testing.T) {
	sym := llvmTool(t, "llvm-symbolizer-14")
	for _, fx := range []string{"go1.13-linux-amd64", "go1.16-linux-amd64", "go1.18-linux-amd64", "go1.26-linux-amd64", "go1.26-linux-amd64-pie", "go1.26-linux-arm64"} {
		t.Run(fx, func(t *testing.T) {
			sw, dw := filepath.Join(goFixtures, fx+"-sw"), filepath.Join(goFixtures, fx+"-dwarf")
			c := newGoCtx(t, fx, sw, dw)
			step := uint64(2)
			if strings.Contains(fx, "arm64") {
				step = 4
			}
			addrs := c.addrs(t, step)
			var in strings.Builder
			for _, a := range addrs {
				fmt.Fprintf(&in, "0x%x\n", a)
			}
			for _, flags := range [][]string{nil, {"--no-inlines"}} {
				want := runReference(t, sym, append([]string{"--obj=" + dw}, flags...), in.String(), nil)
				got := runOurs("llvm-symbolizer", append([]string{"--obj=" + sw}, flags...), in.String(), nil)
				if want.code != 0 || got.code != 0 {
					t.Fatalf("%v: exit codes %d (llvm) %d (ours): %s", flags, want.code, got.code, got.stderr)
				}
				wb, gb := splitBlocks(want.stdout), splitBlocks(got.stdout)
				if len(wb) != len(addrs) || len(gb) != len(addrs) {
					t.Fatalf("%v: %d addresses, llvm answered %d, ours %d", flags, len(addrs), len(wb), len(gb))
				}
				same, excused, bad, inlined := 0, 0, 0, 0
				for i, pc := range addrs {
					if len(gb[i]) > 1 {
						inlined++
					}
					ok, exc := c.agree(pc, wb[i], gb[i])
					switch {
					case !ok:
						if bad++; bad <= 5 {
							t.Errorf("%v %#x:\nllvm-symbolizer-14 %v\n              ours %v", flags, pc, wb[i], gb[i])
						}
					case exc:
						excused++
					default:
						same++
					}
				}
				t.Logf("%v: %d addresses (%d with inlined frames): %d the same, %d more where exceptions excuse a field, %d differ", flags, len(addrs), inlined, same, excused, bad)
			}
			c.checkUsed(t)
		})
	}
}

// goFrame is one frame as llvm-symbolizer prints it.
type goFrame struct {
	Function, File string
	Line, Column   int
}

// splitBlocks parses llvm-symbolizer's output: per address, pairs of
// lines (function, file:line:column) and a blank line.
func splitBlocks(out string) [][]goFrame {
	var blocks [][]goFrame
	var cur []goFrame
	lines := strings.Split(out, "\n")
	for i := 0; i < len(lines); i++ {
		if lines[i] == "" {
			if cur != nil {
				blocks = append(blocks, cur)
				cur = nil
			}
			continue
		}
		f := goFrame{Function: lines[i]}
		if i+1 < len(lines) {
			i++
			loc := lines[i]
			// file:line:column; the file may hold ':'.
			if j := strings.LastIndexByte(loc, ':'); j >= 0 {
				f.Column, _ = strconv.Atoi(loc[j+1:])
				loc = loc[:j]
			}
			if j := strings.LastIndexByte(loc, ':'); j >= 0 {
				f.Line, _ = strconv.Atoi(loc[j+1:])
				loc = loc[:j]
			}
			f.File = loc
		}
		cur = append(cur, f)
	}
	if cur != nil {
		blocks = append(blocks, cur)
	}
	return blocks
}

// A goException excuses one field (Function, File, Line, Position for
// file and line, Frames for their number) of one fixture where a
// predicate holds. Each was checked against go tool addr2line of the
// fixture's release on the -s -w build (the runtime's tables): the
// table's answer, which we print, is the runtime's.
type goException struct {
	fixture, field, why string
	// match is called per frame (i, x from llvm, y ours), or with i -1
	// for Frames.
	match func(c *goCtx, pc uint64, i int, x, y goFrame, a, b []goFrame) bool
}

type goCtx struct {
	fixture  string
	tab      *pclntab.Table
	code     []byte // .text
	text     uint64 // its address
	lastRows map[uint64]int
	list     []goException
	hits     []int
}

func newGoCtx(t *testing.T, fx, sw, dw string) *goCtx {
	c := &goCtx{fixture: fx}
	f, err := elf.Open(sw)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	text := f.Section(".text")
	if c.code, err = text.Data(); err != nil {
		t.Fatal(err)
	}
	c.text = text.Addr
	d, err := f.Section(".gopclntab").Data()
	if err != nil {
		t.Fatal(err)
	}
	if c.tab, err = pclntab.New(d, &pclntab.Options{TextStart: text.Addr}); err != nil {
		t.Fatal(err)
	}
	if fx == "go1.13-linux-amd64" {
		c.lastRows = lastRows(t, dw)
	}
	for _, e := range goExceptions() {
		if e.fixture == fx {
			c.list = append(c.list, e)
		}
	}
	c.hits = make([]int, len(c.list))
	return c
}

// addrs returns every step-th byte of every function of the table.
func (c *goCtx) addrs(t *testing.T, step uint64) []uint64 {
	var out []uint64
	for i := 0; i < c.tab.NumFuncs(); i++ {
		fn, err := c.tab.Func(i)
		if err != nil {
			t.Fatal(err)
		}
		for pc := fn.Entry; pc < fn.End; pc += step {
			out = append(out, pc)
		}
	}
	return out
}

// at returns up to n code bytes at addr.
func (c *goCtx) at(addr uint64, n int) []byte {
	if addr < c.text || addr-c.text >= uint64(len(c.code)) {
		return nil
	}
	b := c.code[addr-c.text:]
	return b[:min(n, len(b))]
}

// lastRows returns the address and line of each line sequence's last row
// in path's DWARF when the sequence ends at that row's own address.
func lastRows(t *testing.T, path string) map[uint64]int {
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	d, err := f.DWARF()
	if err != nil {
		t.Fatal(err)
	}
	out := map[uint64]int{}
	r := d.Reader()
	for {
		e, err := r.Next()
		if err != nil || e == nil {
			break
		}
		r.SkipChildren()
		if e.Tag != dwarf.TagCompileUnit {
			continue
		}
		lr, err := d.LineReader(e)
		if err != nil || lr == nil {
			continue
		}
		var prev, row dwarf.LineEntry
		first := true
		for lr.Next(&row) == nil {
			if row.EndSequence && !first && prev.Address == row.Address {
				out[row.Address] = prev.Line
			}
			prev, first = row, row.EndSequence
		}
	}
	return out
}

func goExceptions() []goException {
	var l []goException
	add := func(fixtures, field, why string, m func(c *goCtx, pc uint64, i int, x, y goFrame, a, b []goFrame) bool) {
		for _, fx := range strings.Fields(fixtures) {
			l = append(l, goException{fx, field, why, m})
		}
	}
	const go126 = "go1.26-linux-amd64 go1.26-linux-amd64-pie go1.26-linux-arm64"
	add("go1.18-linux-amd64 "+go126, "Function",
		"the twin's symbol table names assembly functions by their ABI0 symbol (runtime.asyncPreempt.abi0); the table has the Go name",
		func(c *goCtx, pc uint64, i int, x, y goFrame, a, b []goFrame) bool {
			return i == len(a)-1 && x.Function == y.Function+".abi0"
		})
	add(go126, "File",
		`Go's DWARF names compiler-generated code's file "<autogenerated>" under comp_dir ".": ././<autogenerated>`,
		func(c *goCtx, pc uint64, i int, x, y goFrame, a, b []goFrame) bool {
			return y.File == "<autogenerated>" && x.File == "././<autogenerated>"
		})
	add("go1.13-linux-amd64 go1.16-linux-amd64 go1.18-linux-amd64", "File",
		"Go 1.13 to 1.18 write compiler-generated code's file as ./<autogenerated>",
		func(c *goCtx, pc uint64, i int, x, y goFrame, a, b []goFrame) bool {
			return y.File == "<autogenerated>" && x.File == "./<autogenerated>"
		})
	add("go1.13-linux-amd64 "+go126, "Position",
		"Go's DWARF gives some instructions of compiler-generated functions line 0 in no file (??:0); the table says <autogenerated>:1",
		func(c *goCtx, pc uint64, i int, x, y goFrame, a, b []goFrame) bool {
			return y.File == "<autogenerated>" && y.Line == 1 && x.File == "??" && x.Line == 0
		})
	add("go1.13-linux-amd64", "Position",
		"int3 padding after a function, which Go 1.13's DWARF line table covers (a unit's last row runs on) and llvm-symbolizer names no function at; the table covers no padding",
		func(c *goCtx, pc uint64, i int, x, y goFrame, a, b []goFrame) bool {
			code := c.at(pc, 1)
			return x.Function == "??" && y.Function == "??" && y.File == "??" && len(code) == 1 && code[0] == 0xcc
		})
	add("go1.13-linux-amd64", "Position",
		"Go 1.13's linker ends a unit's line sequence at its last row's address, so that row covers nothing in DWARF (??:0, or go.go:0); the table has its line",
		func(c *goCtx, pc uint64, i int, x, y goFrame, a, b []goFrame) bool {
			if x.Line != 0 || x.File != "??" && x.File != "go.go" || i != len(a)-1 {
				return false
			}
			fn, ok, _ := c.tab.LookupFunc(pc)
			if !ok {
				return false
			}
			for e, line := range c.lastRows {
				if fn.Entry <= e && e <= pc && pc < fn.End && y.Line == line {
					return true
				}
			}
			return false
		})
	add("go1.13-linux-amd64 go1.18-linux-amd64", "Frames",
		"Go 1.13 and 1.18 write no inlined_subroutine DIEs in method wrappers: llvm-symbolizer has the wrapper alone at the inlined method's position, the table the method inlined into the <autogenerated> wrapper",
		func(c *goCtx, pc uint64, i int, x, y goFrame, a, b []goFrame) bool {
			n := len(b)
			return len(a) == 1 && n >= 2 && b[n-1].File == "<autogenerated>" &&
				a[0].Function == b[n-1].Function && a[0].File == b[0].File && a[0].Line == b[0].Line
		})
	add("go1.16-linux-amd64 go1.18-linux-amd64", "Position",
		"an alignment NOP of the assembler: the table gives it the next instruction's line, Go's DWARF the previous one's",
		func(c *goCtx, pc uint64, i int, x, y goFrame, a, b []goFrame) bool {
			return i == len(a)-1 && isX86NOP(c.at, pc)
		})
	add("go1.18-linux-amd64", "Function",
		"Go 1.18's table names array types' equality functions with the length elided (type..eq.[...]internal/cpu.option); the symbol table has [15]",
		func(c *goCtx, pc uint64, i int, x, y goFrame, a, b []goFrame) bool {
			j := strings.IndexByte(x.Function, ']')
			return strings.HasPrefix(x.Function, "type..eq.[") && j > 0 && y.Function == "type..eq.[...]"+x.Function[j+1:]
		})
	add(go126, "File",
		`the linker's FIPS markers have a line-0 row in the pseudo-file "go.go" in DWARF and no line table in the table`,
		func(c *goCtx, pc uint64, i int, x, y goFrame, a, b []goFrame) bool {
			return (y.Function == "go:textfipsstart" || y.Function == "go:textfipsend") && x.File == "go.go" && x.Line == 0 && y.File == "??"
		})
	add("go1.26-linux-arm64", "Position",
		"Go's arm64 DWARF line table for runtime.(*limiterEvent).consume starts at its second instruction (??:0 at its entry); the table has line 420",
		func(c *goCtx, pc uint64, i int, x, y goFrame, a, b []goFrame) bool {
			fn, ok, _ := c.tab.LookupFunc(pc)
			return ok && fn.Entry == pc && y.Function == "runtime.(*limiterEvent).consume" && x.File == "??" && x.Line == 0
		})
	return l
}

// isX86NOP reports whether pc lies in one of the recommended multi-byte
// x86 NOPs, starting at most 8 bytes before it.
func isX86NOP(at func(uint64, int) []byte, pc uint64) bool {
	nops := [][]byte{
		{0x90}, {0x66, 0x90}, {0x0f, 0x1f, 0x00}, {0x0f, 0x1f, 0x40, 0x00}, {0x0f, 0x1f, 0x44, 0x00, 0x00},
		{0x66, 0x0f, 0x1f, 0x44, 0x00, 0x00}, {0x0f, 0x1f, 0x80, 0, 0, 0, 0}, {0x0f, 0x1f, 0x84, 0, 0, 0, 0, 0},
		{0x66, 0x0f, 0x1f, 0x84, 0, 0, 0, 0, 0},
	}
	for back := uint64(0); back <= 8 && back <= pc; back++ {
		b := at(pc-back, 9)
		for _, n := range nops {
			if uint64(len(n)) > back && bytes.HasPrefix(b, n) {
				return true
			}
		}
	}
	return false
}

// agree compares llvm-symbolizer's frames a with ours b.
func (c *goCtx) agree(pc uint64, a, b []goFrame) (ok, excused bool) {
	if len(a) != len(b) {
		for k, e := range c.list {
			if e.field == "Frames" && e.match(c, pc, -1, goFrame{}, goFrame{}, a, b) {
				c.hits[k]++
				return true, true
			}
		}
		return false, false
	}
	for i := range a {
		x, y := a[i], b[i]
		diff := map[string]bool{}
		if x.Function != y.Function {
			diff["Function"] = true
		}
		if x.File != y.File {
			diff["File"] = true
		}
		if x.Line != y.Line {
			diff["Line"] = true
		}
		if x.Column != y.Column {
			diff["Column"] = true
		}
		if len(diff) == 0 {
			continue
		}
		for k, e := range c.list {
			covers := diff[e.field] || e.field == "Position" && (diff["File"] || diff["Line"])
			if !covers || !e.match(c, pc, i, x, y, a, b) {
				continue
			}
			c.hits[k]++
			excused = true
			if e.field == "Position" {
				delete(diff, "File")
				delete(diff, "Line")
			} else {
				delete(diff, e.field)
			}
		}
		if len(diff) != 0 {
			return false, excused
		}
	}
	return true, excused
}

func (c *goCtx) checkUsed(t *testing.T) {
	t.Helper()
	for k, e := range c.list {
		t.Logf("exception %s %s: %d frames: %s", e.fixture, e.field, c.hits[k], e.why)
		if c.hits[k] == 0 {
			t.Errorf("exception %s %s matched nothing: %s", e.fixture, e.field, e.why)
		}
	}
}
