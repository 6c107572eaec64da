package linetable

import (
	"bufio"
	"bytes"
	"debug/dwarf"
	"debug/elf"
	"fmt"
	"io"
	"os/exec"
	"path"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/symbolize-go/symbolize/internal/reftwin"
)

// TestDwarfdump checks every row of every unit of every fixture against
// llvm-dwarfdump-14 --debug-line, line for line in its own format.
//
// Exception: relocatable objects, whose addresses llvm-dwarfdump relocates
// and we do not. A fixture with zstd-compressed sections, which LLVM 14
// cannot decompress, is compared with llvm-dwarfdump's rows for its twin
// (see package reftwin).
func TestDwarfdump(t *testing.T) {
	tool, err := exec.LookPath("llvm-dwarfdump-14")
	if err != nil {
		t.Skip("llvm-dwarfdump-14 not installed")
	}
	unitRE := regexp.MustCompile(`^debug_line\[0x([0-9a-f]+)\]$`)
	rowRE := regexp.MustCompile(`^0x[0-9a-f]{16} `)
	for _, fx := range elfFixtures(t) {
		if fx.rel {
			continue
		}
		t.Run(fx.name, func(t *testing.T) {
			refPath, err := reftwin.Of(fx.path)
			if err != nil {
				t.Fatal(err)
			}
			if fx.zstd && refPath == fx.path {
				t.Fatal("zstd-compressed sections, which LLVM 14 cannot read, and no twin")
			}
			out, err := exec.Command(tool, "--debug-line", refPath).Output()
			if err != nil {
				t.Fatalf("%s: %v", tool, err)
			}
			want := map[uint64][]string{}
			var cur uint64
			var order []uint64
			for _, l := range strings.Split(string(out), "\n") {
				if m := unitRE.FindStringSubmatch(l); m != nil {
					cur, _ = strconv.ParseUint(m[1], 16, 64)
					order = append(order, cur)
					want[cur] = nil
				} else if rowRE.MatchString(l) {
					want[cur] = append(want[cur], l)
				}
			}
			offs := unitOffsets(t, fx.line, &fx.opts)
			if fmt.Sprint(offs) != fmt.Sprint(order) {
				t.Fatalf("units %#x, llvm-dwarfdump %#x", offs, order)
			}
			total := 0
			for _, off := range offs {
				r, err := NewReader(fx.line, off, &fx.opts)
				if err != nil {
					t.Fatalf("unit %#x: %v", off, err)
				}
				var got []string
				for row, err := range r.All() {
					if err != nil {
						t.Fatalf("unit %#x: %v", off, err)
					}
					got = append(got, dumpRow(&row))
				}
				w := want[off]
				if len(got) != len(w) {
					t.Errorf("unit %#x: %d rows, llvm-dwarfdump %d", off, len(got), len(w))
				}
				for i := range min(len(got), len(w)) {
					if got[i] != w[i] {
						t.Fatalf("unit %#x row %d:\n got %q\nwant %q", off, i, got[i], w[i])
					}
				}
				total += len(got)
			}
			t.Logf("%d units, %d rows", len(offs), total)
		})
	}
}

// TestGoDwarf checks every row against Go's debug/dwarf LineReader on every
// fixture it can read. Files are compared by base name, since debug/dwarf
// joins directories its own way.
func TestGoDwarf(t *testing.T) {
	for _, fx := range elfFixtures(t) {
		if fx.rel {
			continue
		}
		t.Run(fx.name, func(t *testing.T) {
			f, err := elf.Open(fx.path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			d, err := f.DWARF()
			if err != nil {
				t.Skipf("debug/dwarf: %v", err)
			}
			dr := d.Reader()
			units, rows := 0, 0
			for {
				e, err := dr.Next()
				if err != nil {
					t.Skipf("debug/dwarf: %v", err)
				}
				if e == nil {
					break
				}
				if e.Tag != dwarf.TagCompileUnit && e.Tag != dwarf.TagPartialUnit {
					dr.SkipChildren()
					continue
				}
				dr.SkipChildren()
				off, ok := e.Val(dwarf.AttrStmtList).(int64)
				if !ok {
					continue
				}
				lr, err := d.LineReader(e)
				if err != nil || lr == nil {
					t.Logf("debug/dwarf LineReader at %#x: %v", off, err)
					continue
				}
				r, err := NewReader(fx.line, uint64(off), &fx.opts)
				if err != nil {
					t.Fatalf("unit %#x: %v", off, err)
				}
				h := r.Header()
				var we dwarf.LineEntry
				var row Row
				for i := 0; ; i++ {
					werr := lr.Next(&we)
					err := r.Next(&row)
					if werr == io.EOF || err == io.EOF {
						if werr != err {
							t.Fatalf("unit %#x row %d: debug/dwarf says %v, we say %v", off, i, werr, err)
						}
						break
					}
					if werr != nil || err != nil {
						t.Fatalf("unit %#x row %d: debug/dwarf %v, ours %v", off, i, werr, err)
					}
					rows++
					wantFile := ""
					if we.File != nil {
						wantFile = path.Base(we.File.Name)
					}
					gotFile := ""
					if int(row.File) < len(h.Files) {
						gotFile = path.Base(h.Files[row.File].Name)
					}
					got := row
					got.File = 0 // compared by name below
					want := Row{Address: we.Address, OpIndex: uint32(we.OpIndex), Line: uint32(we.Line),
						Column: uint32(we.Column), IsStmt: we.IsStmt, BasicBlock: we.BasicBlock,
						EndSequence: we.EndSequence, PrologueEnd: we.PrologueEnd,
						EpilogueBegin: we.EpilogueBegin, ISA: uint32(we.ISA), Discriminator: uint32(we.Discriminator)}
					if got != want || (!row.EndSequence && gotFile != wantFile) {
						t.Fatalf("unit %#x row %d:\n got %+v file %q\nwant %+v file %q", off, i, got, gotFile, want, wantFile)
					}
				}
				units++
			}
			t.Logf("%d units, %d rows", units, rows)
		})
	}
}

// TestSymbolizer checks Lookup and FilePath against llvm-symbolizer-14
// --no-inlines, which answers file:line from the line table of the unit
// covering an address (LineTable::getFileLineInfoForAddress). Addresses are
// each sequence's rows, plus one byte past each row, capped per fixture.
func TestSymbolizer(t *testing.T) {
	tool, err := exec.LookPath("llvm-symbolizer-14")
	if err != nil {
		t.Skip("llvm-symbolizer-14 not installed")
	}
	for _, fx := range elfFixtures(t) {
		if fx.rel { // as in TestDwarfdump
			continue
		}
		t.Run(fx.name, func(t *testing.T) {
			refPath, err := reftwin.Of(fx.path) // as in TestDwarfdump
			if err != nil {
				t.Fatal(err)
			}
			if fx.zstd && refPath == fx.path {
				t.Fatal("zstd-compressed sections, which LLVM 14 cannot read, and no twin")
			}
			f, err := elf.Open(fx.path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if f.Section(".debug_info") == nil && f.Section(".zdebug_info") == nil {
				t.Skip("no .debug_info")
			}
			d, err := f.DWARF()
			if err != nil {
				t.Skipf("debug/dwarf: %v", err)
			}
			type probe struct {
				pc   uint64
				want string
			}
			var probes []probe
			dr := d.Reader()
			for {
				e, err := dr.Next()
				if err != nil {
					t.Skipf("debug/dwarf: %v", err)
				}
				if e == nil {
					break
				}
				dr.SkipChildren()
				off, ok := e.Val(dwarf.AttrStmtList).(int64)
				if !ok || e.Tag != dwarf.TagCompileUnit {
					continue
				}
				compDir, _ := e.Val(dwarf.AttrCompDir).(string)
				tab, err := NewTable(fx.line, uint64(off), &fx.opts)
				if err != nil {
					t.Fatalf("unit %#x: %v", off, err)
				}
				// Only probe addresses inside this unit's ranges, so that
				// llvm-symbolizer picks the same unit.
				ranges, _ := d.Ranges(e)
				inCU := func(pc uint64) bool {
					for _, r := range ranges {
						if r[0] <= pc && pc < r[1] {
							return true
						}
					}
					return false
				}
				for s := range tab.Sequences() {
					for row := range tab.Rows(s) {
						for _, pc := range []uint64{row.Address, row.Address + 1} {
							if len(probes) >= 3000 || !inCU(pc) {
								continue
							}
							r, ok := tab.Lookup(pc)
							if !ok {
								continue
							}
							name, ok := tab.Header().FilePath(uint64(r.File), compDir)
							if !ok {
								name = "??"
							}
							probes = append(probes, probe{pc, fmt.Sprintf("%s:%d:%d", name, r.Line, r.Column)})
						}
					}
				}
			}
			if len(probes) == 0 {
				t.Skip("no probes")
			}
			var in bytes.Buffer
			for _, p := range probes {
				fmt.Fprintf(&in, "0x%x\n", p.pc)
			}
			cmd := exec.Command(tool, "--obj="+refPath, "--no-inlines", "--functions=none")
			cmd.Stdin = &in
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("%s: %v", tool, err)
			}
			sc := bufio.NewScanner(bytes.NewReader(out))
			var got []string
			for sc.Scan() {
				if l := sc.Text(); l != "" {
					got = append(got, l)
				}
			}
			if len(got) != len(probes) {
				t.Fatalf("%d answers for %d probes", len(got), len(probes))
			}
			bad := 0
			for i, p := range probes {
				if got[i] != p.want {
					if bad++; bad <= 10 {
						t.Errorf("%#x: llvm-symbolizer %q, ours %q", p.pc, got[i], p.want)
					}
				}
			}
			t.Logf("%d probes, %d differ", len(probes), bad)
		})
	}
}
