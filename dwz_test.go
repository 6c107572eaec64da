package symbolize_test

// dwz: debug files whose shared DIEs and strings dwz moved into partial
// units and into a supplementary file (testdata/dwz, see
// testdata/README.md). Every fixture there is a twin of the fixture of the
// same name in testdata/elf, whose DWARF dwz rewrote: the same answers are
// due. llvm-symbolizer-14 reads no supplementary file (it takes
// DW_FORM_GNU_ref_alt for an offset in the file's own .debug_info and
// cannot resolve DW_FORM_GNU_strp_alt), so the reference for a dwz fixture
// read with its supplementary file is llvm-symbolizer-14 on the twin, every
// field; without the file it is llvm-symbolizer-14 on the dwz fixture.
// GNU addr2line reads supplementary files: where it reads a dwz fixture as
// it reads the twin, its function names must be ours.

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"debug/elf"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"iter"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/symbolize-go/symbolize"
	"github.com/symbolize-go/symbolize/elfx"
	"github.com/symbolize-go/symbolize/locate"
)

// dwzFixtures are the binaries under testdata/dwz; each one's debug file
// is BIN.debug beside it.
var dwzFixtures = []string{
	"single/cpp-gcc-O2",
	"multi/cpp-gcc-O2", "multi/cpp-gcc-O3",
	"multi/c-gcc-O2-dwarf4", "multi/c-gcc-O0-dwarf5",
	"dwarf5/c-gcc-O2-dwarf5", "dwarf5/libcalc-gcc-O2.so",
}

// dwzSups maps each fixture with a supplementary file to that file.
var dwzSups = map[string]string{
	"multi/cpp-gcc-O2": "multi/cpp-common.debug", "multi/cpp-gcc-O3": "multi/cpp-common.debug",
	"multi/c-gcc-O2-dwarf4": "multi/c-common.debug", "multi/c-gcc-O0-dwarf5": "multi/c-common.debug",
	"dwarf5/c-gcc-O2-dwarf5": "dwarf5/c-common.debug", "dwarf5/libcalc-gcc-O2.so": "dwarf5/c-common.debug",
}

func dwzPath(fx string) string { return filepath.Join("testdata", "dwz", fx) }
func dwzTwin(fx string) string { return filepath.Join("testdata", "elf", filepath.Base(fx)) }

// noDebugDirs searches nothing but the paths the files name.
var noDebugDirs = &elfx.DebugOptions{Locator: locate.Dirs{DebugDirs: []string{}}}

func openDWZ(t *testing.T, path string, o symbolize.Options) *symbolize.Binary {
	t.Helper()
	if o.Debug == nil {
		o.Debug = noDebugDirs
	}
	b, err := symbolize.Open(path, &o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}

// TestDWZMatchesTwin: a dwz fixture read with its supplementary file
// answers as llvm-symbolizer-14 answers on its twin, on every field,
// inlines on and off: names, declaration lines and files through
// abstract origins in partial units of either file, DWARF 4 paths under a
// DW_AT_comp_dir in the supplementary strings. No exception.
func TestDWZMatchesTwin(t *testing.T) {
	llvm, err := exec.LookPath("llvm-symbolizer-14")
	if err != nil {
		t.Skip("llvm-symbolizer-14 not installed")
	}
	ex := newRefExcuses(nil)
	for _, fx := range dwzFixtures {
		t.Run(fx, func(t *testing.T) {
			addrs := sampleAddrs(t, dwzTwin(fx))
			eachInlineMode(t, addrs, func(t *testing.T, addrs []uint64, inlines bool, mode string) {
				ref := runLLVM(t, llvm, dwzTwin(fx), addrs, inlines)
				b := openDWZ(t, dwzPath(fx), symbolize.Options{Inlines: inlines})
				compareRef(t, ex, fx, mode, addrs, ref, framesOf(t, b, addrs))
				if ws := b.Warnings(); len(ws) > 0 {
					t.Errorf("warnings: %v", ws)
				}
				checkSupRecord(t, b, fx, locate.HowAltLink)
			})
		})
	}
	ex.check(t)
}

// checkSupRecord checks that b's identity lists fx's supplementary file,
// found as how, when it has one, and no such file otherwise.
func checkSupRecord(t *testing.T, b *symbolize.Binary, fx string, how locate.How) {
	t.Helper()
	id, err := b.Identity()
	if err != nil {
		t.Fatal(err)
	}
	var sups []symbolize.IdentityFile
	for _, f := range id.Files {
		if f.Role == "supplementary file" {
			sups = append(sups, f)
		}
	}
	want, ok := dwzSups[fx]
	if !ok {
		if len(sups) != 0 {
			t.Errorf("identity lists supplementary files %+v; %s has none", sups, fx)
		}
		return
	}
	data, err := os.ReadFile(dwzPath(want))
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	if len(sups) != 1 || sups[0].SHA256 != hex.EncodeToString(sum[:]) || sups[0].How != how.String() {
		t.Errorf("identity's supplementary files %+v; want %s found as %q", sups, want, how)
	}
}

// TestDWZWithoutSup: without its supplementary file a dwz fixture answers
// as llvm-symbolizer-14 does on it (which reads no such file): locations
// from the line tables, the outermost names from the symbol table, and no
// DWARF name that lives in the missing file. One warning, a *SupError
// wrapping fs.ErrNotExist, names the missing file.
func TestDWZWithoutSup(t *testing.T) {
	llvm, err := exec.LookPath("llvm-symbolizer-14")
	if err != nil {
		t.Skip("llvm-symbolizer-14 not installed")
	}
	// LLVM 14 takes a DW_FORM_GNU_ref_alt for an offset in the debug
	// file's own .debug_info; where a DIE happens to start there, it
	// reads that DIE's name (a parameter's), declaration file and line.
	// We name nothing from the missing file: no declaration, and (on an
	// inlined frame, which the symbol table does not rename) no name.
	// misread holds, for the fixture and mode being compared, the
	// addresses where LLVM 14 gives a frame a declaration that its own
	// answer on the pre-dwz twin does not give it: where it read an
	// unrelated DIE. Only there may ours have none.
	var misread map[uint64]bool
	undeclared := func(addr uint64, ref, got *refFrame) bool {
		return misread[addr] && got.StartFileName == "" && got.StartLine == 0
	}
	unnamed := func(addr uint64, ref, got *refFrame) bool {
		return got.FunctionName == "" && undeclared(addr, ref, got)
	}
	const misreadReason = "LLVM 14 reads a DW_FORM_GNU_ref_alt abstract origin as an offset in the debug file itself, " +
		"where some unrelated DIE starts"
	var list []refException
	for _, fx := range []string{"multi/cpp-gcc-O2", "multi/cpp-gcc-O3"} {
		list = append(list,
			refException{fixture: fx, field: "StartFileName", match: undeclared, reason: misreadReason},
			refException{fixture: fx, field: "StartLine", match: undeclared, reason: misreadReason})
	}
	list = append(list, refException{fixture: "multi/cpp-gcc-O3", mode: "inlines", field: "FunctionName", match: unnamed, reason: misreadReason})
	ex := newRefExcuses(list)
	for _, fx := range dwzFixtures {
		sup, ok := dwzSups[fx]
		if !ok {
			continue
		}
		t.Run(fx, func(t *testing.T) {
			dir := t.TempDir()
			bin := filepath.Join(dir, filepath.Base(fx))
			dwzCopy(t, dwzPath(fx), bin)
			dwzCopy(t, dwzPath(fx)+".debug", bin+".debug")
			addrs := sampleAddrs(t, dwzTwin(fx))
			eachInlineMode(t, addrs, func(t *testing.T, addrs []uint64, inlines bool, mode string) {
				ref := runLLVM(t, llvm, bin, addrs, inlines)
				misread = llvmMisreads(ref, runLLVM(t, llvm, dwzTwin(fx), addrs, inlines), addrs)
				b := openDWZ(t, bin, symbolize.Options{Inlines: inlines})
				compareRef(t, ex, fx, mode, addrs, ref, framesOf(t, b, addrs))
				ws := b.Warnings()
				var se *symbolize.SupError
				missing := filepath.Join(dir, filepath.Base(sup))
				if len(ws) != 1 || !errors.As(ws[0], &se) || !errors.Is(ws[0], fs.ErrNotExist) ||
					se.Name != filepath.Base(sup) || se.File != bin+".debug" || !strings.Contains(ws[0].Error(), missing) {
					t.Errorf("warnings %v; want one *SupError naming the missing %s", ws, missing)
				}
			})
		})
	}
	ex.check(t)
}

// llvmMisreads returns the addresses where an answer of ref gives a frame
// a declaration (StartLine and StartFileName) that the same frame of twin,
// the answer on the pre-dwz twin, does not have.
func llvmMisreads(ref, twin []refAnswer, addrs []uint64) map[uint64]bool {
	out := map[uint64]bool{}
	for i, a := range addrs {
		r, w := ref[i].Symbol, twin[i].Symbol
		for j := range r {
			if r[j].StartLine != 0 && (j >= len(w) || r[j].StartLine != w[j].StartLine || r[j].StartFileName != w[j].StartFileName) {
				out[a] = true
			}
		}
	}
	return out
}

// TestDWZSupRefused: a candidate supplementary file of another build
// (ErrSupIdentity), a debug file whose link names itself, and two debug
// files whose links name each other (ErrSupChain) are refused, each with
// one *SupError naming the candidate, and the fixture answers as it does
// without the file.
func TestDWZSupRefused(t *testing.T) {
	const fx = "multi/cpp-gcc-O2"
	addrs := sampleAddrs(t, dwzTwin(fx))
	if testing.Short() && len(addrs) > 500 {
		addrs = addrs[:500]
	}
	// The answers without the file.
	dir := t.TempDir()
	dwzCopy(t, dwzPath(fx), filepath.Join(dir, "cpp-gcc-O2"))
	dwzCopy(t, dwzPath(fx)+".debug", filepath.Join(dir, "cpp-gcc-O2.debug"))
	want := framesOf(t, openDWZ(t, filepath.Join(dir, "cpp-gcc-O2"), symbolize.Options{Inlines: true}), addrs)

	o2ID := buildIDOf(t, dwzPath("multi/cpp-gcc-O2"))
	o3ID := buildIDOf(t, dwzPath("multi/cpp-gcc-O3"))
	for _, tc := range []struct {
		name string
		// setup lays the files out in dir (the binary and its debug
		// file already there) and returns the refused candidate.
		setup func(t *testing.T, dir string) string
		err   error
	}{
		{"another build", func(t *testing.T, dir string) string {
			p := filepath.Join(dir, "cpp-common.debug")
			dwzCopy(t, dwzPath("multi/c-common.debug"), p)
			return p
		}, symbolize.ErrSupIdentity},
		{"itself", func(t *testing.T, dir string) string {
			p := filepath.Join(dir, "cpp-gcc-O2.debug")
			setAltLink(t, p, "cpp-gcc-O2.debug", o2ID)
			return p
		}, symbolize.ErrSupChain},
		{"each other", func(t *testing.T, dir string) string {
			p := filepath.Join(dir, "cpp-gcc-O3.debug")
			dwzCopy(t, dwzPath("multi/cpp-gcc-O3.debug"), p)
			setAltLink(t, filepath.Join(dir, "cpp-gcc-O2.debug"), "cpp-gcc-O3.debug", o3ID)
			setAltLink(t, p, "cpp-gcc-O2.debug", o2ID)
			return p
		}, symbolize.ErrSupChain},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			bin := filepath.Join(dir, "cpp-gcc-O2")
			dwzCopy(t, dwzPath(fx), bin)
			dwzCopy(t, dwzPath(fx)+".debug", bin+".debug")
			cand := tc.setup(t, dir)
			b := openDWZ(t, bin, symbolize.Options{Inlines: true})
			got := framesOf(t, b, addrs)
			for i := range addrs {
				if !sameFrames(got[i], want[i]) {
					t.Errorf("0x%x: %+v; without the file %+v", addrs[i], got[i], want[i])
					break
				}
			}
			ws := b.Warnings()
			var se *symbolize.SupError
			if len(ws) != 1 || !errors.As(ws[0], &se) || !errors.Is(ws[0], tc.err) || se.Path != cand {
				t.Errorf("warnings %v; want one *SupError wrapping %v for %s", ws, tc.err, cand)
			}
			checkSupRecord(t, b, "single/none", 0)
		})
	}
}

func sameFrames(a, b []refFrame) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestDWZSupLocations: the supplementary file is also found under
// DIR/.dwz/ in a debug directory, in its build-ID folder, and through
// another locator asked by build ID (a debuginfod client), with the key
// naming the debug file, the link's name and its build ID.
func TestDWZSupLocations(t *testing.T) {
	const fx = "multi/cpp-gcc-O2"
	addrs := sampleAddrs(t, dwzTwin(fx))
	if len(addrs) > 500 {
		addrs = addrs[:500]
	}
	want := framesOf(t, openDWZ(t, dwzPath(fx), symbolize.Options{Inlines: true}), addrs)
	supID := buildIDOf(t, dwzPath("multi/cpp-common.debug"))
	h := hex.EncodeToString(supID)
	for _, tc := range []struct {
		name  string
		place string // below the debug directory; "" for the locator
		how   locate.How
	}{
		{".dwz folder", filepath.Join(".dwz", "cpp-common.debug"), locate.HowDWZDir},
		{"build-id folder", filepath.Join(".build-id", h[:2], h[2:]+".debug"), locate.HowBuildID},
		{"locator", "", locate.HowDebuginfod},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, debugDir := t.TempDir(), t.TempDir()
			bin := filepath.Join(dir, "cpp-gcc-O2")
			dwzCopy(t, dwzPath(fx), bin)
			dwzCopy(t, dwzPath(fx)+".debug", bin+".debug")
			var loc locate.Locator = locate.Dirs{DebugDirs: []string{debugDir}}
			net := &supServer{t: t, file: dwzPath("multi/cpp-common.debug"), id: supID, from: bin + ".debug"}
			if tc.place != "" {
				dwzCopy(t, dwzPath("multi/cpp-common.debug"), filepath.Join(debugDir, tc.place))
			} else {
				loc = locate.Chain{loc, net}
			}
			b := openDWZ(t, bin, symbolize.Options{Inlines: true, Debug: &elfx.DebugOptions{Locator: loc}})
			got := framesOf(t, b, addrs)
			for i := range addrs {
				if !sameFrames(got[i], want[i]) {
					t.Fatalf("0x%x: %+v; want %+v", addrs[i], got[i], want[i])
				}
			}
			if ws := b.Warnings(); len(ws) != 0 {
				t.Errorf("warnings: %v", ws)
			}
			if tc.place == "" && net.asked != 1 {
				t.Errorf("the locator was asked %d times, want once", net.asked)
			}
			checkSupRecord(t, b, fx, tc.how)
		})
	}
}

// supServer is a Locator serving one supplementary file by build ID, as a
// debuginfod client does, checking the key it is asked.
type supServer struct {
	t     *testing.T
	file  string
	id    []byte
	from  string
	asked int
}

func (s *supServer) Locate(_ context.Context, k locate.Key) iter.Seq2[*locate.File, error] {
	return func(yield func(*locate.File, error) bool) {
		if k.Kind != locate.KindSup {
			return
		}
		s.asked++
		if !bytes.Equal(k.BuildID, s.id) || k.Name != "cpp-common.debug" || k.From != s.from {
			s.t.Errorf("key %+v; want the build ID %x, name cpp-common.debug, from %s", k, s.id, s.from)
			return
		}
		data, err := os.ReadFile(s.file)
		if err != nil {
			yield(nil, err)
			return
		}
		yield(locate.NewBytes("/cache/"+hex.EncodeToString(k.BuildID)+"/debuginfo", locate.HowDebuginfod, data), nil)
	}
}

// TestDWZNamesAgainstGNU: GNU addr2line (binutils 2.40) reads
// supplementary files; where it answers a dwz fixture exactly as it
// answers the twin (it loses inline chains and names on many addresses of
// these files, and cannot read DWARF 5's DW_FORM_strp_sup and
// DW_FORM_ref_sup4 at all), its function names are ours: the linkage (else
// DW_AT_name) name of each frame, found through the references into the
// partial units; the innermost frame of a function with no linkage name,
// which addr2line names from the symbol table, is compared with our
// symbol name.
func TestDWZNamesAgainstGNU(t *testing.T) {
	gnu, err := exec.LookPath("addr2line")
	if err != nil {
		t.Skip("GNU addr2line not installed")
	}
	for _, fx := range dwzFixtures {
		t.Run(fx, func(t *testing.T) {
			addrs := sampleAddrs(t, dwzTwin(fx))
			if testing.Short() && len(addrs) > 500 {
				addrs = addrs[:500]
			}
			ref := gnuNames(t, gnu, dwzPath(fx), addrs)
			twin := gnuNames(t, gnu, dwzTwin(fx), addrs)
			b := openDWZ(t, dwzPath(fx), symbolize.Options{Inlines: true})
			compared, names, unread := 0, 0, 0
			for i, a := range addrs {
				if !slicesEqual(ref[i], twin[i]) {
					unread++
					continue
				}
				frames, err := b.AppendFrames(nil, a)
				if err != nil {
					t.Fatal(err)
				}
				if !frames[0].Found() || ref[i][0] == "??" || nameless(frames) {
					// addr2line names an address past the end of a
					// function after the symbol before it; LLVM
					// names nothing there, nor do we.
					continue
				}
				compared++
				if len(frames) != len(ref[i]) {
					t.Errorf("0x%x: addr2line %q, ours %d frames", a, ref[i], len(frames))
					continue
				}
				sym := frames[len(frames)-1].SymbolName
				for j, f := range frames {
					// The frames between the innermost and the
					// outermost are named from DWARF (bfd's
					// find_inliner_info); at both ends addr2line
					// may take the symbol table's name instead
					// (for a function without a linkage name, the
					// outermost of a clone such as foo.constprop.0).
					ok := ref[i][j] == f.DWARFName
					if j == 0 || j == len(frames)-1 {
						ok = ok || ref[i][j] == sym
					}
					if !ok {
						t.Errorf("0x%x frame %d: addr2line %q, ours %q (symbol %q)", a, j, ref[i][j], f.DWARFName, sym)
					} else {
						names++
					}
				}
			}
			if compared == 0 {
				t.Error("no address compared")
			}
			t.Logf("%s: %d of %d addresses compared (%d names equal); on %d addr2line answers otherwise than on the twin",
				fx, compared, len(addrs), names, unread)
		})
	}
}

// nameless reports whether some frame has no name, neither from DWARF nor
// (the outermost) from the symbol table.
func nameless(frames []symbolize.Frame) bool {
	for j, f := range frames {
		if f.DWARFName == "" && (j+1 < len(frames) || f.SymbolName == "") {
			return true
		}
	}
	return false
}

func slicesEqual(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// gnuNames runs addr2line -f -i -a on addrs and returns, per address, the
// function name of each frame, innermost first.
func gnuNames(t *testing.T, bin, path string, addrs []uint64) [][]string {
	t.Helper()
	var in bytes.Buffer
	for _, a := range addrs {
		fmt.Fprintf(&in, "0x%x\n", a)
	}
	cmd := exec.Command(bin, "-e", path, "-f", "-i", "-a")
	cmd.Stdin = &in
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("addr2line: %v", err)
	}
	var ans [][]string
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	k := 0 // line within the answer: 0 the address, then name and location in turn
	for sc.Scan() {
		l := sc.Text()
		if strings.HasPrefix(l, "0x") && len(l) == 18 {
			ans = append(ans, nil)
			k = 0
			continue
		}
		if k%2 == 0 && len(ans) > 0 {
			ans[len(ans)-1] = append(ans[len(ans)-1], l)
		}
		k++
	}
	if len(ans) != len(addrs) {
		t.Fatalf("addr2line gave %d answers for %d addresses", len(ans), len(addrs))
	}
	return ans
}

// TestDWZLookupAllocs: a lookup in a dwz fixture allocates nothing once
// its unit (and the supplementary file) is loaded.
func TestDWZLookupAllocs(t *testing.T) {
	b := openDWZ(t, dwzPath("multi/cpp-gcc-O2"), symbolize.Options{Inlines: true})
	dst := make([]symbolize.Frame, 0, 64)
	pc := uint64(0x1200) // three frames, two of them named in cpp-common.debug
	dst, err := b.AppendFrames(dst, pc)
	if err != nil || len(dst) != 3 || dst[0].Function == "" {
		t.Fatalf("AppendFrames = %+v, %v", dst, err)
	}
	if n := testing.AllocsPerRun(100, func() { dst, _ = b.AppendFrames(dst[:0], pc) }); n != 0 {
		t.Errorf("AppendFrames allocates %v per call", n)
	}
}

// buildIDOf returns the GNU build ID of the ELF file at path.
func buildIDOf(t *testing.T, path string) []byte {
	t.Helper()
	f, err := elfx.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	id, ok, err := f.BuildID()
	if !ok || err != nil {
		t.Fatalf("%s: no build ID (%v)", path, err)
	}
	return bytes.Clone(id)
}

// setAltLink rewrites, in place, the .gnu_debugaltlink of the file at path
// to name name (as long as the name there) with build ID id.
func setAltLink(t *testing.T, path, name string, id []byte) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := elf.NewFile(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	s := f.Section(".gnu_debugaltlink")
	if s == nil || s.Size != uint64(len(name)+1+len(id)) {
		t.Fatalf("%s: no .gnu_debugaltlink of %d bytes", path, len(name)+1+len(id))
	}
	copy(data[s.Offset:], append(append([]byte(name), 0), id...))
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// dwzCopy copies the file from to the path to, making its directory.
func dwzCopy(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// dwzFiles is a Locator serving a debug file and a supplementary file from
// memory, for FuzzDWZ.
type dwzFiles struct{ debug, sup []byte }

func (l dwzFiles) Locate(_ context.Context, k locate.Key) iter.Seq2[*locate.File, error] {
	return func(yield func(*locate.File, error) bool) {
		switch k.Kind {
		case locate.KindDebugFile:
			yield(locate.NewBytes("/fuzz/bin.debug", locate.HowDebugLink, l.debug), nil)
		case locate.KindSup:
			yield(locate.NewBytes("/fuzz/"+filepath.Base(k.Name), locate.HowAltLink, l.sup), nil)
		}
	}
}

// dwzFuzzSections are the sections FuzzDWZ overwrites bytes of.
var dwzFuzzSections = []string{".debug_info", ".debug_abbrev", ".debug_str", ".debug_line", ".gnu_debugaltlink", ".debug_sup"}

// FuzzDWZ feeds corrupt dwz files through symbolization: a fixture's debug
// file or its supplementary file, with bytes of one of its sections
// overwritten (the section chosen by index, the offset within it) and the
// file maybe cut short, served from memory; lookups in every function.
// Nothing may panic or hang, and every problem is a *DecodeError or a
// *SupError.
func FuzzDWZ(f *testing.F) {
	type base struct {
		bin, debug, sup []byte
		pcs             []uint64
	}
	var bases []base
	for _, fx := range []string{"multi/cpp-gcc-O2", "dwarf5/c-gcc-O2-dwarf5"} {
		b := base{bin: mustRead(f, dwzPath(fx)), debug: mustRead(f, dwzPath(fx)+".debug"), sup: mustRead(f, dwzPath(dwzSups[fx]))}
		b.pcs = funcMidPCs(f, b.bin)
		bases = append(bases, b)
	}
	for i := range bases {
		for sec := range uint8(len(dwzFuzzSections)) {
			f.Add(uint8(i), false, sec, uint32(0), []byte{0xff, 0xff, 0xff, 0xff}, uint32(0))
			f.Add(uint8(i), true, sec, uint32(12), []byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 1}, uint32(0))
		}
	}
	f.Fuzz(func(t *testing.T, which uint8, sup bool, sec uint8, at uint32, patch []byte, keep uint32) {
		if len(patch) > 64 {
			return // a long patch only slows the fuzzer's minimization down
		}
		b := bases[int(which)%len(bases)]
		file := b.debug
		if sup {
			file = b.sup
		}
		file = bytes.Clone(file)
		ef, err := elf.NewFile(bytes.NewReader(file))
		if err != nil {
			t.Fatal(err)
		}
		if s := ef.Section(dwzFuzzSections[int(sec)%len(dwzFuzzSections)]); s != nil && s.Size > 0 && s.Type != elf.SHT_NOBITS {
			copy(file[s.Offset+uint64(at)%s.Size:s.Offset+s.Size], patch)
		}
		if keep != 0 {
			file = file[:int(keep)%len(file)]
		}
		loc := dwzFiles{debug: b.debug, sup: b.sup}
		if sup {
			loc.sup = file
		} else {
			loc.debug = file
		}
		dir := t.TempDir()
		path := filepath.Join(dir, "bin")
		if err := os.WriteFile(path, b.bin, 0o644); err != nil {
			t.Fatal(err)
		}
		bin, err := symbolize.Open(path, &symbolize.Options{Inlines: true, Debug: &elfx.DebugOptions{Locator: loc}})
		if err != nil {
			return // the debug file itself refused (its build ID cut away)
		}
		defer bin.Close()
		var fr []symbolize.Frame
		for _, pc := range b.pcs {
			fr, _ = bin.AppendFrames(fr[:0], pc)
		}
		for _, w := range bin.Warnings() {
			var de *symbolize.DecodeError
			var se *symbolize.SupError
			if !errors.As(w, &de) && !errors.As(w, &se) {
				t.Errorf("warning %v is neither a *DecodeError nor a *SupError", w)
			}
		}
	})
}

// TestDWZLocalsMatchTwin: FRAME answers (Binary.Locals) on a dwz fixture
// read with its supplementary file are llvm-symbolizer-14's on the twin,
// byte for byte in its LLVM output style, at every 16th byte of every
// function (at most 1500 a file): inlined calls whose origins dwz moved
// into partial units of either file, types sized there, declaration files
// named in the partial units' own line tables.
func TestDWZLocalsMatchTwin(t *testing.T) {
	llvm, err := exec.LookPath("llvm-symbolizer-14")
	if err != nil {
		t.Skip("llvm-symbolizer-14 not installed")
	}
	max := 1500
	if testing.Short() {
		max = 300
	}
	for _, fx := range dwzFixtures {
		t.Run(fx, func(t *testing.T) {
			pcs := framePCs(frameSymbols(dwzTwin(fx)), max)
			want := llvmFrames(t, llvm, dwzTwin(fx), pcs)
			b := openDWZ(t, dwzPath(fx), symbolize.Options{})
			same := 0
			for i, pc := range pcs {
				ls, err := b.Locals(pc)
				if err != nil {
					t.Fatal(err)
				}
				if got := formatFrame(ls); got != want[i] {
					t.Errorf("FRAME 0x%x:\nours\n%s\nllvm-symbolizer-14 on the twin\n%s", pc, got, want[i])
				} else {
					same++
				}
			}
			t.Logf("%s: %d of %d FRAME answers identical", fx, same, len(pcs))
		})
	}
}
