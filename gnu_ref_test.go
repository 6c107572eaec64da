package symbolize_test

// Differential test against GNU addr2line (binutils 2.40) and elfutils
// eu-addr2line, inline chains on: every ELF fixture, the addresses
// sampleAddrs picks, frame count, function name, file and line (and
// eu-addr2line's column). The references disagree with llvm-symbolizer-14
// (which we follow) in known ways; every difference is put into a named
// category with the reason, and a difference no category explains fails.
// A category names the fields and, per tool, the fixtures it explains; one
// that explains nothing on a fixture or field it names fails too.
// docs/references.md summarizes the figures this test logs.

import (
	"bufio"
	"bytes"
	"context"
	"debug/dwarf"
	"debug/elf"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/symbolize-go/symbolize"
	"github.com/symbolize-go/symbolize/internal/reftwin"
)

// gnuFrame is one frame as addr2line prints it with -f -i -a: a function
// line, then "file:line[:column][ (discriminator N)]".
type gnuFrame struct {
	Function      string // "??" when unknown
	File          string // "??" when unknown
	Line          uint32 // 0 when unknown ("?" or "0")
	Column        uint32 // eu-addr2line only
	Discriminator uint32
}

func TestReferenceGNUAddr2line(t *testing.T) {
	// eu-addr2line -i walks the DIEs of the unit for every address
	// (about 10 ms an address on json-gcc-O2), so it gets a prefix of
	// the shuffled sample.
	// elfutils 0.188 cannot decompress zstd (ch_type 2) sections (0.189
	// can): eu-addr2line reads the twin of such a fixture (see package
	// reftwin). binutils 2.40 reads them.
	tools := []struct {
		name, bin string
		max       int
		twin      bool
	}{
		{"addr2line", "addr2line", 1 << 30, false},
		{"eu-addr2line", "eu-addr2line", 300, true},
	}
	found := 0
	for _, tool := range tools {
		if _, err := exec.LookPath(tool.bin); err != nil {
			t.Logf("%s not installed; skipped", tool.bin)
			continue
		}
		found++
	}
	if found == 0 {
		t.Skip("neither GNU addr2line nor eu-addr2line is installed")
	}
	cats := newGNUExcuses(gnuCategories)
	eachELFFixture(t, func(t *testing.T, name, path string, addrs []uint64) {
		ours := runOursFull(t, path, addrs, symbolize.NamesLinkage)
		short := runOursFull(t, path, addrs, symbolize.NamesShort)
		obj := loadGNUObject(path)
		for _, tool := range tools {
			bin, err := exec.LookPath(tool.bin)
			if err != nil {
				continue
			}
			t.Run(tool.name, func(t *testing.T) {
				if !gnuReads(bin, path) {
					t.Skipf("%s does not read this file's machine by its rules (see gnuReads)", tool.bin)
				}
				refPath := path
				if tool.twin {
					var err error
					if refPath, err = reftwin.Of(path); err != nil {
						t.Fatal(err)
					}
				}
				n := min(len(addrs), tool.max)
				ref := runGNU(t, bin, refPath, addrs[:n])
				compareGNU(t, cats, tool.name, name, obj, addrs[:n], ref, ours[:n], short[:n])
			})
		}
	})
	cats.check(t)
}

// runOursFull symbolizes addrs with inline chains, keeping every field
// (the comparison needs DWARFName and SymbolName besides Function).
func runOursFull(t *testing.T, path string, addrs []uint64, names symbolize.FunctionNames) [][]symbolize.Frame {
	// GNU and elfutils also refuse the debug file of the fixtures
	// refOpenFails lists (its CRC does not match the debug link). Both
	// name a stripped binary's frames from its debug file's .symtab, which
	// is what DebugFileSymbols asks for.
	b := openRef(t, path, symbolize.Options{Inlines: true, FunctionNames: names, DebugFileSymbols: true})
	defer b.Close()
	out := make([][]symbolize.Frame, len(addrs))
	for i, a := range b.Batch(context.Background(), addrs) {
		frames, err := a.Frames, a.Err
		if err != nil {
			t.Errorf("0x%x: %v", addrs[i], err)
		}
		out[i] = append([]symbolize.Frame(nil), frames...)
	}
	return out
}

// runGNU runs one addr2line process for all addresses. With -a each answer
// starts with the address echoed back, which is how the output is split:
// the number of name/location pairs per address varies with inlining.
func runGNU(t *testing.T, bin, path string, addrs []uint64) [][]gnuFrame {
	var in bytes.Buffer
	for _, a := range addrs {
		fmt.Fprintf(&in, "0x%x\n", a)
	}
	cmd := exec.Command(bin, "-e", path, "-f", "-i", "-a")
	cmd.Stdin = &in
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		// eu-addr2line exits 1 when some address had no answer; the
		// output is still complete.
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || len(out) == 0 {
			t.Fatalf("%s: %v\n%s", bin, err, stderr.Bytes())
		}
	}
	var lines []string
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	ans := make([][]gnuFrame, len(addrs))
	k := 0
	// GNU addr2line truncates addresses to the ELF class's width and
	// echoes them zero-padded to it.
	mask := ^uint64(0)
	if is32(path) {
		mask = 1<<32 - 1
	}
	// eu-addr2line echoes them untruncated.
	isAddr := func(l string, a uint64) bool {
		v, err := strconv.ParseUint(strings.TrimPrefix(l, "0x"), 16, 64)
		return strings.HasPrefix(l, "0x") && err == nil && (v == a&mask || v == a)
	}
	for i, a := range addrs {
		if k >= len(lines) || !isAddr(lines[k], a) {
			t.Fatalf("%s: answer %d: want address line for 0x%x, got %q", bin, i, a, at(lines, k))
		}
		k++
		for k+1 < len(lines) && (i+1 == len(addrs) || !isAddr(lines[k], addrs[i+1])) {
			ans[i] = append(ans[i], parseGNUFrame(lines[k], lines[k+1]))
			k += 2
		}
	}
	if k != len(lines) {
		t.Fatalf("%s: %d unparsed lines after the last answer: %q", bin, len(lines)-k, at(lines, k))
	}
	return ans
}

func at(lines []string, k int) string {
	if k < len(lines) {
		return lines[k]
	}
	return "<EOF>"
}

// parseGNUFrame splits "file:line[:column][ (discriminator N)]". The file
// may itself hold colons, so the numbers are taken from the right.
func parseGNUFrame(fn, loc string) gnuFrame {
	// eu-addr2line names an inlined frame "callee inlined at file:line:col
	// in caller"; the caller's own frame follows.
	if i := strings.Index(fn, " inlined at "); i >= 0 {
		fn = fn[:i]
	}
	f := gnuFrame{Function: fn}
	if i := strings.Index(loc, " (discriminator "); i >= 0 {
		d, _ := strconv.ParseUint(strings.TrimSuffix(loc[i+len(" (discriminator "):], ")"), 10, 32)
		f.Discriminator = uint32(d)
		loc = loc[:i]
	}
	nums := []uint32{}
	for range 2 {
		i := strings.LastIndexByte(loc, ':')
		if i < 0 {
			break
		}
		s := loc[i+1:]
		if s != "?" {
			n, err := strconv.ParseUint(s, 10, 32)
			if err != nil {
				break
			}
			nums = append(nums, uint32(n))
		} else {
			nums = append(nums, 0)
		}
		loc = loc[:i]
	}
	switch len(nums) {
	case 1:
		f.Line = nums[0]
	case 2:
		f.Line, f.Column = nums[1], nums[0]
	}
	f.File = loc
	return f
}

// gnuCategory is a named, explained kind of disagreement: a predicate
// tried on a difference in one of its fields, on one of the fixtures it
// lists for the tool. Every fixture it lists must have such a difference
// and so must every field it names (in a full run; see gnuExcuses.check),
// so that a category outlives neither the difference nor a fixture.
type gnuCategory struct {
	name   string
	reason string
	// fields it excuses: "frames" (the number of frames), "Function",
	// "File", "Line", "Column" (eu-addr2line only) or "Discriminator"
	// (addr2line only).
	fields []string
	// fixtures maps "addr2line" and "eu-addr2line" to the fixtures
	// whose differences with that tool the category explains.
	fixtures map[string][]string
	// match reports whether the difference in c.field of frame c.j is
	// this category's.
	match func(c *gnuCase) bool
}

// gnuExcuses counts, in one test, what each category excuses on each
// tool and fixture.
type gnuExcuses struct {
	list []gnuCategory
	used []map[string]int // per category: "tool fixture" and "field" counts
	ran  map[string]bool  // "tool fixture" compared on the full sample
}

func newGNUExcuses(list []gnuCategory) *gnuExcuses {
	x := &gnuExcuses{list: list, ran: map[string]bool{}}
	for range list {
		x.used = append(x.used, map[string]int{})
	}
	return x
}

// excuse returns the first category that explains c, or nil.
func (x *gnuExcuses) excuse(tool string, c *gnuCase) *gnuCategory {
	for i := range x.list {
		cat := &x.list[i]
		if slices.Contains(cat.fields, c.field) && slices.Contains(cat.fixtures[tool], c.fixture) && cat.match(c) {
			x.used[i][tool+" "+c.fixture]++
			x.used[i][c.field]++
			return cat
		}
	}
	return nil
}

// check fails the test with each of problems.
func (x *gnuExcuses) check(t *testing.T) {
	for _, p := range x.problems() {
		t.Error(p)
	}
}

// problems lists each fixture a category names, compared on its full
// sample, on which the category excused nothing, and each field it names
// that it never excused once all its fixtures ran.
func (x *gnuExcuses) problems() []string {
	var out []string
	for i, cat := range x.list {
		all := true
		for _, tool := range slices.Sorted(maps.Keys(cat.fixtures)) {
			for _, fx := range cat.fixtures[tool] {
				k := tool + " " + fx
				switch {
				case !x.ran[k]:
					all = false
				case x.used[i][k] == 0:
					out = append(out, fmt.Sprintf("category %s excuses nothing on %s with %s: remove the fixture from it", cat.name, fx, tool))
				}
			}
		}
		for _, f := range cat.fields {
			if all && x.used[i][f] == 0 {
				out = append(out, fmt.Sprintf("category %s excuses no difference in %s: remove the field from it", cat.name, f))
			}
		}
	}
	return out
}

// unlisted names the fixtures on which a category would excuse a
// difference of c's kind but does not list: a hint in a failure message.
func (x *gnuExcuses) unlisted(tool string, c *gnuCase) []string {
	var out []string
	for i := range x.list {
		cat := &x.list[i]
		if slices.Contains(cat.fields, c.field) && !slices.Contains(cat.fixtures[tool], c.fixture) && cat.match(c) {
			out = append(out, cat.name)
		}
	}
	return out
}

// gnuCase is one disagreement being classified.
type gnuCase struct {
	fixture string
	addr    uint64
	field   string // "frames", "Function", "File", "Line", "Column", "Discriminator"
	j       int    // frame index, innermost first
	ref     []gnuFrame
	ours    []symbolize.Frame
	short   []symbolize.Frame // ours with FunctionNames: NamesShort
	obj     *gnuObject
}

// rf and of are the reference's and our frame j.
func (c *gnuCase) rf() *gnuFrame        { return &c.ref[c.j] }
func (c *gnuCase) of() *symbolize.Frame { return &c.ours[c.j] }
func (c *gnuCase) outermost() bool      { return c.j == len(c.ours)-1 }

// gnuObject is what classification needs to know of a fixture's ELF
// file: its allocated sections and function symbols (of the file or, when
// stripped, of its debug file).
type gnuObject struct {
	sections []*elf.Section
	symbols  []elf.Symbol    // all symbols
	funcs    []elf.Symbol    // STT_FUNC symbols
	units    map[string]bool // each unit's DW_AT_name, joined to DW_AT_comp_dir
	aranges  bool            // the file has .debug_aranges
	cxx      bool            // some symbol is an Itanium C++ name
}

func loadGNUObject(path string) *gnuObject {
	o := &gnuObject{units: map[string]bool{}}
	if f, err := elf.Open(path); err == nil {
		o.sections = f.Sections
		for _, s := range f.Sections {
			if s.Name == ".debug_aranges" || s.Name == ".zdebug_aranges" {
				o.aranges = true
			}
		}
		f.Close()
	}
	for _, p := range []string{path, path + ".debug"} {
		f, err := elf.Open(p)
		if err != nil {
			continue
		}
		o.symbols, _ = f.Symbols()
		for _, s := range o.symbols {
			if elf.ST_TYPE(s.Info) == elf.STT_FUNC {
				o.funcs = append(o.funcs, s)
				o.cxx = o.cxx || strings.HasPrefix(s.Name, "_Z")
			}
		}
		// Unit names through the standard library's reader, an
		// independent check of which path GNU printed.
		if d, err := f.DWARF(); err == nil {
			r := d.Reader()
			for {
				e, err := r.Next()
				if err != nil || e == nil {
					break
				}
				if e.Tag == dwarf.TagCompileUnit {
					name, _ := e.Val(dwarf.AttrName).(string)
					dir, _ := e.Val(dwarf.AttrCompDir).(string)
					if name != "" && !filepath.IsAbs(name) {
						name = filepath.Join(dir, name)
					}
					o.units[name] = true
				}
				r.SkipChildren()
			}
		}
		f.Close()
		if len(o.symbols) > 0 {
			break
		}
	}
	return o
}

// preceding returns the function symbol with the greatest start at or
// below addr in addr's section.
func (o *gnuObject) preceding(addr uint64) (elf.Symbol, bool) {
	sec := o.section(addr)
	var best elf.Symbol
	found := false
	for _, s := range o.funcs {
		if s.Value <= addr && (!found || s.Value > best.Value) && o.section(s.Value) == sec {
			best, found = s, true
		}
	}
	return best, found && sec >= 0
}

// section returns the ELF index of the allocated section holding addr,
// or -1.
func (o *gnuObject) section(addr uint64) int {
	for i, s := range o.sections {
		if s.Flags&elf.SHF_ALLOC != 0 && addr >= s.Addr && addr-s.Addr < s.Size {
			return i
		}
	}
	return -1
}

// ourOnlySymbol reports whether our answer is a symbol-table name alone.
func (c *gnuCase) ourOnlySymbol() bool {
	return len(c.ours) == 1 && c.ours[0].Source == symbolize.SourceSymbolTable
}

// Fixture groups the categories name.
var (
	// gnuGCCO2 are the C fixtures built by gcc -O2 from the same sources
	// (not c-gcc-O2-zdebug, whose DWARF binutils cannot read, nor
	// c-gcc-O2-mismatch, opened without its debug file).
	gnuGCCO2 = []string{"c-gcc-O2-dwarf4", "c-gcc-O2-dwarf5", "c-gcc-O2-dwarf64", "c-gcc-O2-gc-sections",
		"c-gcc-O2-gz-zlib", "c-gcc-O2-lto", "c-gcc-O2-mismatch.debug", "c-gcc-O2-nopie", "c-gcc-O2-stripped",
		"c-gcc-O2-stripped-debug", "c-gcc-O2-stripped-debug.debug", "c-gcc-O2-stripped.debug", "c-gcc-O2-zstd",
		"c-gcc-m32-O2-dwarf5"}
	gnuGCCCxx = []string{"cpp-gcc-O2", "cpp-gcc-O3", "json-gcc-O2"}
	gnuClang  = []string{"c-clang14-O2-dwarf5", "c-clang14-O2-line-tables-only", "cpp-clang14-O2"}
)

// gnuCategories are the known kinds of disagreement, first match wins.
// Each was checked with llvm-dwarfdump-14 --debug-line/--debug-info (or
// the tool's own error message) at the example address given in
// docs/references.md.
var gnuCategories = []gnuCategory{
	{
		name: "clone-suffix", fields: []string{"Function"},
		fixtures: map[string][]string{
			"addr2line":    slices.Concat(gnuGCCO2, gnuGCCCxx, []string{"libcalc-gcc-O2.so"}),
			"eu-addr2line": slices.Concat(gnuGCCO2, gnuGCCCxx, []string{"c-gcc-O2-zdebug", "libcalc-gcc-O2.so"}),
		},
		reason: "the outermost frame of a gcc clone or split part (foo.cold, foo.part.0, foo.constprop.0, " +
			"foo.isra.0): GNU tools name it from the DWARF subprogram, LLVM and we from the covering ELF symbol",
		match: func(c *gnuCase) bool {
			f := c.of()
			return c.field == "Function" && c.outermost() && c.dwarfName(c.rf().Function) &&
				f.Function == f.SymbolName && strings.HasPrefix(f.SymbolName, f.DWARFName+".")
		},
	},
	{
		name: "eu-short-names", fields: []string{"Function"},
		fixtures: map[string][]string{
			"eu-addr2line": slices.Concat(gnuGCCCxx, []string{"c-gcc-m32-O2-dwarf5"}),
		},
		reason: "eu-addr2line -i names every frame by DW_AT_name (what we give with FunctionNames: " +
			"NamesShort), not by linkage name or symbol",
		match: func(c *gnuCase) bool {
			return c.field == "Function" && len(c.short) == len(c.ours) && c.rf().Function == c.short[c.j].Function
		},
	},
	{
		name: "symbol-alias", fields: []string{"Function"},
		fixtures: map[string][]string{
			"addr2line":    slices.Concat(gnuGCCCxx, []string{"c-gcc-O2-lto", "c-gcc-m32-O2-dwarf5"}),
			"eu-addr2line": gnuGCCCxx,
		},
		reason: "several ELF symbols share the code (gcc's C1/C2 and D1/D2 constructor and destructor " +
			"aliases, LTO's merged new_node/table_init.part.0): LLVM and we name the outermost frame after " +
			"the symbol table's pick, GNU tools after the DIE",
		match: func(c *gnuCase) bool {
			f := c.of()
			return c.field == "Function" && c.outermost() && c.dwarfName(c.rf().Function) &&
				f.Function == f.SymbolName && f.SymbolName != f.DWARFName
		},
	},
	{
		name: "symbol-other-section", fields: []string{"frames"},
		fixtures: map[string][]string{
			"addr2line": slices.Concat(gnuGCCO2, gnuGCCCxx, gnuClang, []string{"c-gcc-O0-dwarf2",
				"c-gcc-O0-dwarf5", "c-gcc-O2-zdebug", "go-trimpath", "libcalc-gcc-O2.so"}),
			"eu-addr2line": slices.Concat(gnuGCCCxx, []string{"c-gcc-O2-dwarf4", "c-gcc-O2-dwarf5",
				"c-gcc-O2-dwarf64", "c-gcc-O2-gc-sections", "c-gcc-O2-gz-zlib", "c-gcc-O2-lto",
				"c-gcc-O2-mismatch.debug", "c-gcc-O2-stripped", "c-gcc-O2-stripped-debug",
				"c-gcc-O2-stripped-debug.debug", "c-gcc-O2-stripped.debug", "c-gcc-O2-zdebug", "c-gcc-O2-zstd"}),
		},
		reason: "outside DWARF we (like LLVM) name the nearest preceding symbol; GNU tools only a symbol of " +
			"the section holding the address, and nothing in no section (between .plt.got and .text, past _end)",
		match: func(c *gnuCase) bool {
			if c.field != "frames" || gnuFrames(c.ref) != 0 || !c.ourOnlySymbol() {
				return false
			}
			f := &c.ours[0]
			sec := c.obj.section(c.addr)
			if sec < 0 {
				return true
			}
			start := c.addr - f.SymbolOffset
			for _, s := range c.obj.symbols {
				if s.Name == f.SymbolName && s.Value == start {
					return int(s.Section) != sec
				}
			}
			return false
		},
	},
	{
		name: "gnu-no-dwarf", fields: []string{"frames", "Function", "File", "Line", "Discriminator"},
		fixtures: map[string][]string{
			"addr2line": []string{"c-gcc-O2-zdebug", "go-trimpath"},
		},
		reason: "binutils 2.40 reads no DWARF here (\"DWARF error: can't find .debug_rnglists section\": " +
			"objcopy's zlib-gnu mode renames it .zdebug_rnglists; the Go linker's DWARF 5 likewise) and " +
			"answers from the symbol table: a name, the STT_FILE base name, line ?",
		match: func(c *gnuCase) bool {
			r := c.ref
			return len(r) == 1 && r[0].Line == 0 && !strings.Contains(r[0].File, "/")
		},
	},
	{
		name: "symbol-past-end", fields: []string{"frames", "Function", "File"},
		fixtures: map[string][]string{
			"addr2line": slices.Concat(gnuGCCO2, gnuGCCCxx, gnuClang, []string{"c-gcc-O0-dwarf2",
				"c-gcc-O0-dwarf5", "libcalc-gcc-O2.so"}),
		},
		reason: "in the padding after a function GNU addr2line names the preceding function symbol of the " +
			"section regardless of its size (with the STT_FILE base name when no line row covers the " +
			"address); LLVM and we answer no function past a symbol's end",
		match: func(c *gnuCase) bool {
			switch c.field {
			case "frames", "Function", "File":
			default:
				return false
			}
			n := len(c.ref)
			if n == 0 || ourFrames(c.ours) > 1 || (c.field != "frames" && c.of().Function != "") {
				return false
			}
			s, ok := c.obj.preceding(c.addr)
			return ok && c.ref[n-1].Function == s.Name && c.addr >= s.Value+s.Size
		},
	},
	{
		name: "line0-no-inlines", fields: []string{"frames"},
		fixtures: map[string][]string{
			"addr2line": gnuClang,
		},
		reason: "where the line row says line 0 (clang's compiler-generated code), GNU addr2line drops the " +
			"inline chain and prints only the outermost function; LLVM and we keep the chain",
		match: func(c *gnuCase) bool {
			o := c.ours
			return c.field == "frames" && len(o) > 1 && o[0].Line == 0 && len(c.ref) == 1 &&
				c.ref[0].Line == 0 && (c.ref[0].Function == o[len(o)-1].Function || c.ref[0].Function == o[len(o)-1].DWARFName)
		},
	},
	{
		name: "dwarf5-file-1", fields: []string{"File"},
		fixtures: map[string][]string{
			"addr2line": slices.Concat(gnuGCCCxx, []string{"c-gcc-O0-dwarf5", "c-gcc-O2-lto"}),
		},
		reason: "binutils 2.40 prints the unit's DW_AT_name for rows naming file 1 of a DWARF 5 line table " +
			"when entry 1 is not the primary source (gas at -O0 lists vec.h there, g++ shapes.hpp, LTO " +
			"main.c under the unit <artificial>); llvm-dwarfdump-14 and GNU readelf -wL decode the header",
		match: func(c *gnuCase) bool {
			return c.field == "File" && c.j == 0 && c.rf().Line == c.of().Line && c.obj.units[c.rf().File]
		},
	},
	{
		name: "cxx-no-linkage-name", fields: []string{"Function"},
		fixtures: map[string][]string{
			"addr2line": slices.Concat(gnuGCCCxx, []string{"cpp-clang14-O2"}),
		},
		reason: "a C++ DIE with DW_AT_name but no DW_AT_linkage_name (lambdas, templates taking them, " +
			"anonymous namespaces) is named by GNU addr2line after the ELF symbol covering the address",
		match: func(c *gnuCase) bool {
			if c.field != "Function" || !c.obj.cxx || strings.HasPrefix(c.of().DWARFName, "_Z") {
				return false
			}
			// The covering symbol or another at its address (GNU may
			// pick the D2 of a D1/D2 pair).
			out := &c.ours[len(c.ours)-1]
			if out.SymbolName == "" {
				return false
			}
			start := c.addr - out.SymbolOffset
			for _, s := range c.obj.funcs {
				if s.Value == start && s.Name == c.rf().Function {
					return true
				}
			}
			return false
		},
	},
	{
		name: "discriminator-every-frame", fields: []string{"Discriminator"},
		fixtures: map[string][]string{
			"addr2line": slices.Concat(gnuGCCCxx, []string{"c-gcc-O2-gc-sections", "libcalc-gcc-O2.so"}),
		},
		reason: "GNU addr2line repeats the innermost row's discriminator on every caller frame; LLVM and " +
			"we give it to the innermost frame only (a caller's discriminator is not recorded in DWARF)",
		match: func(c *gnuCase) bool {
			return c.field == "Discriminator" && c.j > 0 && c.of().Discriminator == 0 &&
				c.rf().Discriminator == c.ours[0].Discriminator
		},
	},
	{
		name: "gnu-rnglistx-inlines", fields: []string{"frames"},
		fixtures: map[string][]string{
			"addr2line": gnuClang,
		},
		reason: "binutils 2.40 misses clang's inlined subroutines whose DW_AT_ranges use DW_FORM_rnglistx " +
			"and prints the outermost function with the innermost line; LLVM and we give the whole chain",
		match: func(c *gnuCase) bool {
			o, r := c.ours, c.ref
			return strings.Contains(c.fixture, "clang14") && c.field == "frames" && len(r) >= 1 &&
				len(r) < len(o) && r[len(r)-1].Function == o[len(o)-1].Function
		},
	},
	{
		name: "stt-file", fields: []string{"File"},
		fixtures: map[string][]string{
			"addr2line":    []string{"c-gcc-O2-stripped-debug"},
			"eu-addr2line": []string{"c-gcc-m32-O2-dwarf5", "cpp-clang14-O2"},
		},
		reason: "for an answer from the symbol table alone the file can only be the STT_FILE symbol before " +
			"it in .symtab: GNU addr2line always prints it, eu-addr2line never; we print it where " +
			"llvm-symbolizer-14 does (see refExceptions)",
		match: func(c *gnuCase) bool {
			f := c.of()
			return c.field == "File" && f.Source == symbolize.SourceSymbolTable && f.Line == 0 &&
				c.rf().Line == 0 && !strings.Contains(f.File+c.rf().File, "/")
		},
	},
	{
		name: "eu-no-aranges", fields: []string{"frames", "File", "Line", "Column"},
		fixtures: map[string][]string{
			"eu-addr2line": slices.Concat(gnuClang, []string{"go-trimpath"}),
		},
		reason: "for many addresses of files without .debug_aranges (clang/lld and Go output) " +
			"eu-addr2line 0.188 finds no unit and prints ??:0 (the symbol name still shows); " +
			"eu-readelf decodes the same line tables",
		match: func(c *gnuCase) bool {
			return !c.obj.aranges && c.refNoLines()
		},
	},
	{
		name: "eu-past-sequence-end", fields: []string{"frames", "File", "Line", "Column"},
		fixtures: map[string][]string{
			"eu-addr2line": slices.Concat(gnuGCCCxx, []string{"c-gcc-O2-gc-sections", "libcalc-gcc-O2.so"}),
		},
		reason: "for an address no line sequence covers (_start, padding) eu-addr2line reports the last row " +
			"before it, even across an end_sequence; LLVM and we report no line",
		match: func(c *gnuCase) bool {
			return (c.field == "frames" || c.field == "File" || c.field == "Line" || c.field == "Column") &&
				c.ours[0].Line == 0 && !strings.Contains(c.ours[0].File, "/") && len(c.ref) == 1 && c.ref[0].Line != 0
		},
	},
	{
		name: "eu-lto-no-inlines", fields: []string{"frames"},
		fixtures: map[string][]string{
			"eu-addr2line": []string{"c-gcc-O2-lto"},
		},
		reason: "in gcc's LTO output the inlined subroutines of an out-of-line function refer to abstract " +
			"instances in another unit (DW_FORM_ref_addr); eu-addr2line -i prints none of those frames",
		match: func(c *gnuCase) bool {
			o := c.ours
			return c.field == "frames" && len(c.ref) >= 1 && len(c.ref) < len(o) &&
				(c.ref[len(c.ref)-1].Function == o[len(o)-1].Function || c.obj.alias(c.ref[len(c.ref)-1].Function, c.addr, &o[len(o)-1]))
		},
	},
	{
		name: "eu-other-chain", fields: []string{"frames", "Function", "Line", "Column"},
		fixtures: map[string][]string{
			"eu-addr2line": slices.Concat(gnuGCCCxx, []string{"c-gcc-O2-dwarf64", "c-gcc-O2-nopie",
				"c-gcc-m32-O2-dwarf5", "libcalc-gcc-O2.so"}),
		},
		reason: "eu-addr2line -i agrees on the innermost line but prints another call chain: in gcc .cold " +
			"parts the callers of another function's inlined copy (parse_power/parse_unary where only " +
			"parse_term's DIE tree covers the address), elsewhere more or fewer frames than the DIE tree " +
			"nests; llvm-symbolizer-14 agrees with us",
		match: func(c *gnuCase) bool {
			if len(c.ref) == 0 || c.ref[0].Line != c.ours[0].Line || c.ref[0].File != c.ours[0].File {
				return false
			}
			return c.field == "frames" || c.j > 0
		},
	},
}

// alias reports whether name is a function symbol at the address of
// frame f's covering symbol.
func (o *gnuObject) alias(name string, addr uint64, f *symbolize.Frame) bool {
	if f.SymbolName == "" {
		return false
	}
	for _, s := range o.funcs {
		if s.Value == addr-f.SymbolOffset && s.Name == name {
			return true
		}
	}
	return false
}

// dwarfName reports whether name is what DWARF calls frame j: its
// linkage name or its DW_AT_name.
func (c *gnuCase) dwarfName(name string) bool {
	if name == c.of().DWARFName {
		return true
	}
	return len(c.short) == len(c.ours) && name == c.short[c.j].Function
}

// refNoLines reports whether the reference gave no file anywhere.
func (c *gnuCase) refNoLines() bool {
	for _, f := range c.ref {
		if f.File != "??" {
			return false
		}
	}
	return true
}

// ourFrames is the number of frames we found; one empty frame is none.
func ourFrames(o []symbolize.Frame) int {
	if len(o) == 1 && !o[0].Found() {
		return 0
	}
	return len(o)
}

func compareGNU(t *testing.T, cats *gnuExcuses, tool, fixture string, obj *gnuObject, addrs []uint64, ref [][]gnuFrame, ours, short [][]symbolize.Frame) {
	if !testing.Short() {
		cats.ran[tool+" "+fixture] = true
	}
	agree := 0
	counts, failed := map[string]int{}, map[string]int{}
	example := map[string]uint64{} // first address of each category
	shown := 0
	classify := func(c *gnuCase) bool {
		if cat := cats.excuse(tool, c); cat != nil {
			if counts[cat.name] == 0 {
				example[cat.name] = c.addr
			}
			counts[cat.name]++
			return true
		}
		failed[c.field]++
		// GNUREF_ALL=1 lists every unexplained difference, not just 40.
		if shown < 40 || os.Getenv("GNUREF_ALL") != "" {
			shown++
			hint := ""
			if u := cats.unlisted(tool, c); len(u) > 0 {
				hint = fmt.Sprintf(" (category %s would match, but does not list %s for %s)", strings.Join(u, ", "), fixture, tool)
			}
			t.Errorf("0x%x frame %d: %s: %s says %s; ours %s%s", c.addr, c.j, c.field, tool, fmtGNU(c.ref), fmtOurs(c.ours), hint)
		}
		return false
	}
	for i, a := range addrs {
		r, o := ref[i], ours[i]
		c := &gnuCase{fixture: fixture, addr: a, ref: r, ours: o, short: short[i], obj: obj}
		same := true
		if gnuFrames(r) != ourFrames(o) {
			c.field = "frames"
			classify(c)
			continue
		}
		for j := range o {
			c.j = j
			rf, of := &r[j], &o[j]
			if ourFrames(o) == 0 {
				break
			}
			for _, fd := range []struct {
				name   string
				rv, ov string
			}{
				{"Function", gnuStr(rf.Function), of.Function},
				{"File", gnuStr(rf.File), of.File},
				{"Line", strconv.Itoa(int(rf.Line)), strconv.Itoa(int(of.Line))},
				{"Column", strconv.Itoa(int(rf.Column)), strconv.Itoa(int(of.Column))},
				{"Discriminator", strconv.Itoa(int(rf.Discriminator)), strconv.Itoa(int(of.Discriminator))},
			} {
				// GNU addr2line prints no column, eu-addr2line no
				// discriminator (our discriminators are checked
				// against llvm-symbolizer-14 and GNU addr2line).
				if fd.name == "Column" && tool != "eu-addr2line" || fd.name == "Discriminator" && tool == "eu-addr2line" {
					continue
				}
				if fd.rv == fd.ov {
					continue
				}
				same = false
				c.field = fd.name
				classify(c)
			}
		}
		if same {
			agree++
		}
	}
	t.Logf("%s vs %s: %d/%d addresses agree on every field (%.1f%%); categories [%s]; unexplained [%s]",
		tool, fixture, agree, len(addrs), 100*float64(agree)/float64(len(addrs)),
		sortedCounts(counts), sortedCounts(failed))
	var ex []string
	for _, k := range slices.Sorted(maps.Keys(example)) {
		ex = append(ex, fmt.Sprintf("%s@0x%x", k, example[k]))
	}
	if len(ex) > 0 {
		t.Logf("%s vs %s: example addresses %s", tool, fixture, strings.Join(ex, " "))
	}
}

// gnuFrames is the number of frames in an answer; "??" alone is none.
func gnuFrames(r []gnuFrame) int {
	if len(r) == 1 && r[0].Function == "??" && r[0].File == "??" {
		return 0
	}
	return len(r)
}

func gnuStr(s string) string {
	if s == "??" {
		return ""
	}
	return s
}

func fmtGNU(r []gnuFrame) string {
	var b strings.Builder
	for _, f := range r {
		fmt.Fprintf(&b, "[%s %s:%d:%d d%d]", f.Function, f.File, f.Line, f.Column, f.Discriminator)
	}
	return b.String()
}

func fmtOurs(o []symbolize.Frame) string {
	var b strings.Builder
	for _, f := range o {
		fmt.Fprintf(&b, "[%s (dwarf %s, sym %s) %s:%d:%d d%d]", f.Function, f.DWARFName, f.SymbolName, f.File, f.Line, f.Column, f.Discriminator)
	}
	return b.String()
}

func is32(path string) bool {
	f, err := elf.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	return f.Class == elf.ELFCLASS32
}

// TestGNUExcuses checks the categories' bookkeeping: a category that
// explains nothing on a fixture it lists (compared in full) fails, and so
// does a field it names but never excuses; one whose fixture did not run
// does not; a difference in a field or fixture it does not name is not
// its.
func TestGNUExcuses(t *testing.T) {
	always := func(*gnuCase) bool { return true }
	x := newGNUExcuses([]gnuCategory{
		{name: "used", fields: []string{"Line", "File"}, fixtures: map[string][]string{"addr2line": {"a", "b"}}, match: always},
		{name: "not-run", fields: []string{"Line"}, fixtures: map[string][]string{"eu-addr2line": {"a"}}, match: always},
	})
	x.ran["addr2line a"], x.ran["addr2line b"] = true, true
	if x.excuse("addr2line", &gnuCase{fixture: "a", field: "Column"}) != nil ||
		x.excuse("addr2line", &gnuCase{fixture: "c", field: "Line"}) != nil {
		t.Fatal("a category excused a field or fixture it does not name")
	}
	if cat := x.excuse("addr2line", &gnuCase{fixture: "a", field: "Line"}); cat == nil || cat.name != "used" {
		t.Fatalf("excuse = %v", cat)
	}
	got := x.problems()
	want := []string{
		"category used excuses nothing on b with addr2line: remove the fixture from it",
		"category used excuses no difference in File: remove the field from it",
	}
	if !slices.Equal(got, want) {
		t.Errorf("problems:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// gnuReads reports whether the GNU tool at bin reads the ELF file at path
// by its machine's rules. Debian's binutils 2.40 is built for x86 and
// generic ELF only: it reads a 32-bit ARM file as plain elf32-little,
// without its Thumb bits or mapping symbols. elfutils 0.188 has an ARM
// backend but names Thumb code after whichever symbol of an odd st_value
// it meets (sputn for pubseekoff's first bytes in libthumb-clang14-O2.so),
// and reads no line for clang's aranges-less units. The 32-bit ARM
// fixtures are therefore compared with llvm-symbolizer-14 alone
// (TestReferenceLLVMSymbolizer, no exception).
func gnuReads(bin, path string) bool {
	f, err := elf.Open(path)
	if err != nil {
		return true
	}
	defer f.Close()
	if f.Machine != elf.EM_ARM {
		return true
	}
	if filepath.Base(bin) != "addr2line" {
		return false
	}
	out, _ := exec.Command(bin, "--help").CombinedOutput()
	return bytes.Contains(out, []byte("elf32-littlearm"))
}
