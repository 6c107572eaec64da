package symbolize_test

// Relocatable objects (testdata/obj/, ET_REL: .o files built by
// testdata/build.sh for eight targets) against llvm-symbolizer-14: every
// field of every frame, inlines on and off, at each function's start, the
// byte after, interior points, its last byte and the byte past it, for the
// functions of every section (all of which start at address 0, so that
// functions of .text, .text.unlikely and .init.text overlap).

import (
	"bytes"
	"debug/elf"
	"errors"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/symbolize-go/symbolize"
	"github.com/symbolize-go/symbolize/elfx"
)

// objExceptions are the known differences from llvm-symbolizer-14 on the
// object fixtures, in refExceptions' form: none. (The big-endian PowerPC
// object's function symbols, which point at .opd descriptors, are read as
// LLVM reads them: see opdAddresses.)
var objExceptions []refException

func TestObjectsAgainstLLVMSymbolizer(t *testing.T) {
	llvm, err := exec.LookPath("llvm-symbolizer-14")
	if err != nil {
		t.Skip("llvm-symbolizer-14 not installed")
	}
	paths, _ := filepath.Glob("testdata/obj/*.o")
	if len(paths) == 0 {
		t.Fatal("no fixtures in testdata/obj")
	}
	ex := newRefExcuses(objExceptions)
	for _, path := range paths {
		name := filepath.Base(path)
		t.Run(name, func(t *testing.T) {
			addrs := objectAddrs(t, path)
			eachInlineMode(t, addrs, func(t *testing.T, addrs []uint64, inlines bool, mode string) {
				ref := runLLVM(t, llvm, path, addrs, inlines)
				got := runOurs(t, path, addrs, inlines)
				compareRef(t, ex, name, mode, addrs, ref, got)
			})
		})
	}
	ex.check(t)
}

// objectAddrs picks addresses from an object's function symbols, whatever
// their section: sampleAddrs skips functions at 0, which in an object is
// where the first function of every section starts.
func objectAddrs(t *testing.T, path string) []uint64 {
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if f.Type != elf.ET_REL {
		t.Fatalf("%s is %v, not ET_REL", path, f.Type)
	}
	syms, err := f.Symbols()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[uint64]bool{}
	var out []uint64
	add := func(a uint64) {
		if !seen[a] {
			seen[a] = true
			out = append(out, a)
		}
	}
	rng := rand.New(rand.NewPCG(2, uint64(len(syms))))
	var end uint64
	for _, s := range syms {
		if elf.ST_TYPE(s.Info) != elf.STT_FUNC || s.Size == 0 {
			continue
		}
		start := s.Value &^ 1 // a Thumb function's value is odd
		add(start)
		add(start + 1)
		for range 64 {
			add(start + rng.Uint64N(s.Size))
		}
		add(start + s.Size - 1)
		add(start + s.Size)
		end = max(end, start+s.Size)
	}
	if len(out) == 0 {
		t.Fatal("no function symbols")
	}
	// Every byte of the first bytes, where the sections overlap most, and
	// past everything.
	for a := range uint64(64) {
		add(a)
	}
	add(end + 0x100)
	add(1 << 40)
	slices.Sort(out)
	rng.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

// TestObjectBadRelocations: relocations that cannot be applied cost their
// fields only; each relocation section's first problem is a warning (a
// *DecodeError naming it), and the object still answers from DWARF.
func TestObjectBadRelocations(t *testing.T) {
	path := filepath.Join("testdata", "obj", "reloc-x86_64-clang14-dwarf4.o")
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := elf.NewFile(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	bad := slices.Clone(raw)
	bo := f.ByteOrder
	for _, s := range f.Sections {
		switch s.Name {
		case ".rela.debug_line":
			// An unknown type on the last entry (a DW_LNE_set_address).
			last := s.Offset + s.Size - 24
			info := bo.Uint64(raw[last+8:])
			bo.PutUint64(bad[last+8:], info&^0xffffffff|uint64(elf.R_X86_64_GOTPCREL))
		case ".rela.debug_info":
			// A symbol index past the table on the first entry, an offset
			// past the section on the second.
			bo.PutUint64(bad[s.Offset+8:], 1<<40|bo.Uint64(raw[s.Offset+8:])&0xffffffff)
			bo.PutUint64(bad[s.Offset+24:], 1<<30)
		}
	}
	f.Close()
	bp := filepath.Join(t.TempDir(), "bad.o")
	if err := os.WriteFile(bp, bad, 0o644); err != nil {
		t.Fatal(err)
	}
	good := openRef(t, path, symbolize.Options{Inlines: true})
	defer good.Close()
	b := openRef(t, bp, symbolize.Options{Inlines: true})
	defer b.Close()
	addrs := objectAddrs(t, path)
	want, got := framesOf(t, good, addrs), framesOf(t, b, addrs)
	same := 0
	for i := range addrs {
		if slices.Equal(want[i], got[i]) {
			same++
		}
	}
	// The lost fields are one DW_LNE_set_address (the last sequence's
	// start moves to 0) and two attributes of the unit: most answers stay.
	if same < len(addrs)*3/4 {
		t.Errorf("only %d of %d answers unchanged", same, len(addrs))
	}
	warned := map[string]error{}
	for _, w := range b.Warnings() {
		var de *symbolize.DecodeError
		if errors.As(w, &de) && strings.HasPrefix(de.Section, ".rela.") {
			warned[de.Section] = w
		}
	}
	if w := warned[".rela.debug_line"]; !errors.Is(w, elfx.ErrUnsupportedRelocation) {
		t.Errorf(".rela.debug_line: warning %v, want ErrUnsupportedRelocation", w)
	}
	if w := warned[".rela.debug_info"]; !errors.Is(w, elfx.ErrFormat) || !strings.Contains(w.Error(), "2 relocations skipped") {
		t.Errorf(".rela.debug_info: warning %v, want ErrFormat with 2 skipped", w)
	}
	if len(good.Warnings()) != 0 {
		t.Errorf("the fixture itself warns: %v", good.Warnings())
	}
	t.Logf("%d of %d answers unchanged; warnings: %v", same, len(addrs), b.Warnings())
}
