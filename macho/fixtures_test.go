package macho

import (
	"bufio"
	"bytes"
	stdmacho "debug/macho"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const fixtureDir = "../testdata/macho"

// thin fixtures built by testdata/macho/build.sh.
var thinFixtures = []string{
	"main.arm64", "main.x86_64", "main.arm64.stripped",
	"libfix.arm64.dylib", "libfix.x86_64.dylib",
	"main.arm64.o", "main.x86_64.o", "lib.arm64.o", "lib.x86_64.o", "lib.i386.o",
	"main.arm64.dSYM/Contents/Resources/DWARF/main.arm64",
	"main.x86_64.dSYM/Contents/Resources/DWARF/main.x86_64",
}

func readFixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(fixtureDir, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func mustParse(t testing.TB, name string) *File {
	t.Helper()
	f, err := Parse(readFixture(t, name))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return f
}

func tool(t *testing.T, name string, args ...string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		t.Skipf("%s not installed", name)
	}
	cmd := exec.Command(p, args...)
	cmd.Dir = fixtureDir
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %v: %v", name, args, err)
	}
	return string(out)
}

// TestAgainstDebugMacho cross-checks headers, segments, sections, dylibs
// and symbols with the standard library's reader.
func TestAgainstDebugMacho(t *testing.T) {
	for _, name := range thinFixtures {
		t.Run(name, func(t *testing.T) {
			data := readFixture(t, name)
			f, err := Parse(data)
			if err != nil {
				t.Fatal(err)
			}
			sf, err := stdmacho.NewFile(bytes.NewReader(data))
			if err != nil {
				t.Fatal(err)
			}
			if uint32(f.Header.CPU) != uint32(sf.Cpu) || uint32(f.Header.Type) != uint32(sf.Type) ||
				f.Header.NCmds != sf.Ncmd || f.Header.Flags != sf.Flags {
				t.Errorf("header %+v, debug/macho %+v", f.Header, sf.FileHeader)
			}
			if len(f.Loads) != len(sf.Loads) {
				t.Fatalf("%d loads, debug/macho %d", len(f.Loads), len(sf.Loads))
			}
			for i, l := range sf.Loads {
				if !bytes.Equal(f.Loads[i].Raw, l.Raw()) {
					t.Errorf("load %d raw differs", i)
				}
			}
			var nsect int
			for _, s := range f.Segments {
				ss := sf.Segment(s.Name)
				if ss == nil || ss.Addr != s.Addr || ss.Memsz != s.MemSize || ss.Offset != s.Offset || ss.Filesz != s.FileSize {
					t.Errorf("segment %+v, debug/macho %+v", s, ss)
				}
				for _, sec := range s.Sections {
					std := sf.Sections[nsect]
					nsect++
					if std.Name != sec.Name || std.Seg != sec.Segment || std.Addr != sec.Addr || std.Size != sec.Size || std.Offset != sec.Offset || std.Flags != sec.Flags {
						t.Errorf("section %+v, debug/macho %+v", sec, std.SectionHeader)
					}
					got, err := f.SectionData(&sec)
					if err != nil {
						t.Fatal(err)
					}
					if !sec.ZeroFill() {
						want, _ := std.Data()
						if !bytes.Equal(got, want) {
							t.Errorf("section %s,%s data differs", sec.Segment, sec.Name)
						}
					}
				}
			}
			if nsect != len(sf.Sections) {
				t.Errorf("%d sections, debug/macho %d", nsect, len(sf.Sections))
			}
			syms, err := f.Symbols()
			if err != nil {
				t.Fatal(err)
			}
			if sf.Symtab == nil {
				if len(syms) != 0 {
					t.Errorf("%d symbols, debug/macho none", len(syms))
				}
			} else {
				if len(syms) != len(sf.Symtab.Syms) {
					t.Fatalf("%d symbols, debug/macho %d", len(syms), len(sf.Symtab.Syms))
				}
				for i, s := range sf.Symtab.Syms {
					g := syms[i]
					if g.Name != s.Name || g.Type != s.Type || g.Sect != s.Sect || g.Desc != s.Desc || g.Value != s.Value {
						t.Errorf("symbol %d: %+v, debug/macho %+v", i, g, s)
					}
				}
			}
			libs, _ := sf.ImportedLibraries()
			var names []string
			for _, d := range f.Dylibs {
				names = append(names, d.Name)
			}
			if !slices.Equal(names, libs) {
				t.Errorf("dylibs %q, debug/macho %q", names, libs)
			}
		})
	}
}

// TestPrivateHeaders compares every load command's name and size, the UUID,
// LC_MAIN and LC_BUILD_VERSION with llvm-objdump --macho --private-headers.
func TestPrivateHeaders(t *testing.T) {
	reCmd := regexp.MustCompile(`^\s+cmd (\S+)$`)
	reSize := regexp.MustCompile(`^\s+cmdsize (\d+)$`)
	reUUID := regexp.MustCompile(`^\s+uuid (\S+)$`)
	reEntry := regexp.MustCompile(`^\s+entryoff (\d+)$`)
	reMinOS := regexp.MustCompile(`^\s+minos (\S+)$`)
	for _, name := range thinFixtures {
		t.Run(name, func(t *testing.T) {
			out := tool(t, "llvm-objdump-14", "--macho", "--private-headers", name)
			f := mustParse(t, name)
			var cmds []string
			var sizes []int
			var uuid, entry, minos string
			for line := range strings.Lines(out) {
				line = strings.TrimRight(line, "\n")
				if m := reCmd.FindStringSubmatch(line); m != nil {
					cmds = append(cmds, m[1])
				} else if m := reSize.FindStringSubmatch(line); m != nil {
					n, _ := strconv.Atoi(m[1])
					sizes = append(sizes, n)
				} else if m := reUUID.FindStringSubmatch(line); m != nil {
					uuid = m[1]
				} else if m := reEntry.FindStringSubmatch(line); m != nil {
					entry = m[1]
				} else if m := reMinOS.FindStringSubmatch(line); m != nil {
					minos = m[1]
				}
			}
			var gotCmds []string
			var gotSizes []int
			for _, l := range f.Loads {
				gotCmds = append(gotCmds, l.Cmd.String())
				gotSizes = append(gotSizes, len(l.Raw))
			}
			if !slices.Equal(gotCmds, cmds) || !slices.Equal(gotSizes, sizes) {
				t.Errorf("loads %v %v\nobjdump %v %v", gotCmds, gotSizes, cmds, sizes)
			}
			if uuid != "" && (!f.HasUUID || f.UUID.String() != uuid) {
				t.Errorf("uuid %v, objdump %s", f.UUID, uuid)
			}
			if uuid == "" && f.HasUUID {
				t.Errorf("uuid %v, objdump none", f.UUID)
			}
			if entry != "" && (f.Main == nil || strconv.FormatUint(f.Main.EntryOff, 10) != entry) {
				t.Errorf("LC_MAIN %+v, objdump entryoff %s", f.Main, entry)
			}
			if minos != "" {
				if len(f.Builds) == 0 || versionString(f.Builds[0].MinOS) != minos {
					t.Errorf("builds %+v, objdump minos %s", f.Builds, minos)
				}
			}
		})
	}
}

// versionString formats a packed xxxx.yy.zz version as objdump does,
// dropping a zero patch level.
func versionString(v uint32) string {
	s := fmt.Sprintf("%d.%d", v>>16, v>>8&0xff)
	if v&0xff != 0 {
		s += fmt.Sprintf(".%d", v&0xff)
	}
	return s
}

// nmLine formats a non-stab symbol as `nm -m` does.
func nmLine(f *File, s *Symbol) string {
	var b strings.Builder
	width := 8
	if f.Is64 {
		width = 16
	}
	switch s.Kind {
	case KindUndefined:
		fmt.Fprintf(&b, "%*s (undefined) ", width, "")
		if s.Desc&DescWeakRef != 0 {
			b.WriteString("weak ")
		}
	case KindDirect:
		fmt.Fprintf(&b, "%0*x ", width, s.Value)
		sec := f.SectionByIndex(s.Sect)
		fmt.Fprintf(&b, "(%s,%s) ", sec.Segment, sec.Name)
		if s.Desc&DescReferencedDynamically != 0 {
			b.WriteString("[referenced dynamically] ")
		}
	case KindAbsolute:
		fmt.Fprintf(&b, "%0*x (absolute) ", width, s.Value)
	}
	switch {
	case s.PrivateExternal() && !s.External():
		b.WriteString("non-external (was a private external) ")
	case s.External():
		b.WriteString("external ")
	default:
		b.WriteString("non-external ")
	}
	b.WriteString(s.Name)
	if d, ok := f.Library(s); ok {
		fmt.Fprintf(&b, " (from %s)", LibraryShortName(d.Name))
	} else if s.Kind == KindUndefined && f.Header.Flags&FlagTwoLevel != 0 {
		switch s.LibraryOrdinal() {
		case OrdinalDynamicLookup:
			b.WriteString(" (dynamically looked up)")
		case OrdinalExecutable:
			b.WriteString(" (from executable)")
		}
	}
	return b.String()
}

// TestNMm compares symbol classification and import libraries with
// llvm-nm -m (which sorts by name; so do we).
func TestNMm(t *testing.T) {
	for _, name := range thinFixtures {
		t.Run(name, func(t *testing.T) {
			out := tool(t, "llvm-nm-14", "-m", name)
			f := mustParse(t, name)
			syms, err := f.Symbols()
			if err != nil {
				t.Fatal(err)
			}
			type ent struct{ name, line string }
			var got []ent
			for i := range syms {
				if syms[i].Kind == KindStab {
					continue
				}
				got = append(got, ent{syms[i].Name, nmLine(f, &syms[i])})
			}
			slices.SortStableFunc(got, func(a, b ent) int { return strings.Compare(a.name, b.name) })
			var lines []string
			for _, e := range got {
				lines = append(lines, e.line)
			}
			want := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
			if out == "" {
				want = nil
			}
			if !slices.Equal(lines, want) {
				t.Errorf("got:\n%s\nllvm-nm -m:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
			}
		})
	}
}

// TestDebugMap compares the stabs debug map, with object addresses
// resolved from the committed .o files, with dsymutil --dump-debug-map.
func TestDebugMap(t *testing.T) {
	for _, name := range []string{"main.arm64", "main.x86_64", "libfix.arm64.dylib", "main.arm64.stripped"} {
		t.Run(name, func(t *testing.T) {
			out := tool(t, "dsymutil-14", "--dump-debug-map", name)
			f := mustParse(t, name)
			m, err := f.DebugMap()
			if err != nil {
				t.Fatal(err)
			}
			for i := range m.Objects {
				o := &m.Objects[i]
				obj := mustParse(t, o.Path)
				if missing, err := o.ResolveObjAddrs(obj); err != nil || len(missing) > 0 {
					t.Fatalf("%s: missing %v, %v", o.Path, missing, err)
				}
			}
			var b strings.Builder
			if err := m.WriteYAML(&b, name); err != nil {
				t.Fatal(err)
			}
			if got, want := canonDebugMap(b.String()), canonDebugMap(out); got != want {
				t.Errorf("got:\n%s\ndsymutil:\n%s", got, want)
			}
		})
	}
}

// canonDebugMap removes what differs harmlessly in dsymutil's YAML:
// quoting, and symbol order (dsymutil prints a hash map's order).
func canonDebugMap(s string) string {
	var out, syms []string
	flush := func() {
		slices.Sort(syms)
		out = append(out, syms...)
		syms = nil
	}
	sc := bufio.NewScanner(strings.NewReader(s))
	for sc.Scan() {
		line := strings.ReplaceAll(sc.Text(), "'", "")
		if strings.HasPrefix(strings.TrimSpace(line), "- { sym:") {
			syms = append(syms, line)
			continue
		}
		flush()
		out = append(out, line)
	}
	flush()
	return strings.Join(out, "\n")
}

// TestFunctionStarts compares LC_FUNCTION_STARTS with llvm-objdump
// --function-starts, and checks that stripping keeps them.
func TestFunctionStarts(t *testing.T) {
	for _, name := range []string{"main.arm64", "main.x86_64", "main.arm64.stripped", "libfix.arm64.dylib", "libfix.x86_64.dylib"} {
		t.Run(name, func(t *testing.T) {
			out := tool(t, "llvm-objdump-14", "--macho", "--function-starts", name)
			f := mustParse(t, name)
			got, err := f.FunctionStartAddrs(nil)
			if err != nil {
				t.Fatal(err)
			}
			var want []uint64
			for _, l := range strings.Split(out, "\n")[1:] {
				if l = strings.TrimSpace(l); l != "" {
					v, err := strconv.ParseUint(l, 16, 64)
					if err != nil {
						t.Fatal(err)
					}
					want = append(want, v)
				}
			}
			if !slices.Equal(got, want) || len(got) == 0 {
				t.Errorf("starts %x, objdump %x", got, want)
			}
		})
	}
}

// TestUniversal checks slice selection in the fat fixture against
// llvm-dwarfdump --uuid and the thin builds it was made from.
func TestUniversal(t *testing.T) {
	data := readFixture(t, "main.fat")
	ft, err := ParseFat(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(ft.Arches) != 2 {
		t.Fatalf("arches %+v", ft.Arches)
	}
	for _, arch := range []string{"arm64", "x86_64"} {
		f, err := Select(data, arch)
		if err != nil {
			t.Fatal(err)
		}
		thin := mustParse(t, "main."+arch)
		if f.Arch() != arch || f.UUID != thin.UUID || !bytes.Equal(f.Data, thin.Data) || f.Offset == 0 {
			t.Errorf("%s: slice arch %s uuid %v offset %#x, thin uuid %v", arch, f.Arch(), f.UUID, f.Offset, thin.UUID)
		}
	}
	var nf *ArchNotFoundError
	if _, err := Select(data, "i386"); !errors.As(err, &nf) || len(nf.Have) != 2 {
		t.Errorf("i386 in fat: %v", err)
	}
	if _, err := Select(data, ""); !errors.As(err, &nf) {
		t.Errorf("no arch in fat: %v", err)
	}
	if _, err := Select(readFixture(t, "main.arm64"), "x86_64"); !errors.As(err, &nf) {
		t.Errorf("x86_64 from thin arm64: %v", err)
	}
	if _, err := Parse(data); !errors.Is(err, ErrFat) {
		t.Errorf("Parse(fat) = %v, want ErrFat", err)
	}

	out := tool(t, "llvm-dwarfdump-14", "--uuid", "main.fat")
	for _, a := range ft.Arches {
		f, err := ft.Parse(a)
		if err != nil {
			t.Fatal(err)
		}
		want := fmt.Sprintf("UUID: %v (%s) main.fat", f.UUID, a.Arch())
		if !strings.Contains(out, want) {
			t.Errorf("llvm-dwarfdump --uuid lacks %q:\n%s", want, out)
		}
	}
}

func TestDSYM(t *testing.T) {
	for _, name := range []string{"main.arm64", "main.x86_64"} {
		bin := mustParse(t, name)
		d, p, err := OpenDSYM(bin, filepath.Join(fixtureDir, name), "")
		if err != nil || d == nil {
			t.Fatalf("%s: %v", name, err)
		}
		if d.Header.Type != TypeDSYM || d.UUID != bin.UUID || !strings.HasSuffix(p, "DWARF/"+name) {
			t.Errorf("%s: dSYM %s type %v uuid %v", name, p, d.Header.Type, d.UUID)
		}
		line, ok, err := d.DWARF(".debug_line")
		if err != nil || !ok || len(line) == 0 {
			t.Errorf("%s: .debug_line: %d bytes, %v, %v", name, len(line), ok, err)
		}
		sf, _ := stdmacho.Open(p)
		want, _ := sf.Section("__debug_line").Data()
		sf.Close()
		if !bytes.Equal(line, want) {
			t.Errorf("%s: .debug_line differs from debug/macho", name)
		}
		if _, ok, err := d.DWARF(".debug_str_offsets"); ok || err != nil {
			t.Errorf("absent section: %v %v", ok, err)
		}
	}
	// The universal dSYM, given explicitly as a bundle, for each slice.
	fat := readFixture(t, "main.fat")
	for _, arch := range []string{"arm64", "x86_64"} {
		bin, err := Select(fat, arch)
		if err != nil {
			t.Fatal(err)
		}
		d, _, err := OpenDSYM(bin, filepath.Join(fixtureDir, "main.fat"), filepath.Join(fixtureDir, "main.fat.dSYM"))
		if err != nil || d.Arch() != arch || d.UUID != bin.UUID {
			t.Errorf("fat %s: %v", arch, err)
		}
	}
	// No dSYM next to the stripped binary: not an error.
	stripped := mustParse(t, "main.arm64.stripped")
	if d, _, err := OpenDSYM(stripped, filepath.Join(fixtureDir, "main.arm64.stripped"), ""); d != nil || err != nil {
		t.Errorf("absent dSYM: %v %v", d, err)
	}
	// Another build's dSYM: a typed mismatch naming both UUIDs.
	bin := mustParse(t, "main.arm64")
	_, _, err := OpenDSYM(bin, filepath.Join(fixtureDir, "main.arm64"), filepath.Join(fixtureDir, "libfix.arm64.dylib.dSYM"))
	var mm *UUIDMismatchError
	if !errors.As(err, &mm) || mm.Binary != bin.UUID || mm.DSYM == bin.UUID ||
		!strings.Contains(err.Error(), bin.UUID.String()) || !strings.Contains(err.Error(), mm.DSYM.String()) {
		t.Errorf("mismatch: %v", err)
	}
	// A dSYM without the binary's architecture.
	var nf *ArchNotFoundError
	if _, _, err := OpenDSYM(bin, "x", filepath.Join(fixtureDir, "main.x86_64.dSYM")); !errors.As(err, &nf) {
		t.Errorf("wrong-arch dSYM: %v", err)
	}
	// A UUID-less image cannot be paired.
	obj := mustParse(t, "main.arm64.o")
	if _, err := MatchDSYM(obj, readFixture(t, "main.arm64.dSYM/Contents/Resources/DWARF/main.arm64"), "d"); !errors.Is(err, ErrNoUUID) {
		t.Errorf("UUID-less binary: %v", err)
	}
	// An explicit path that does not exist is an error.
	if _, _, err := OpenDSYM(bin, "x", filepath.Join(fixtureDir, "nope.dSYM")); err == nil {
		t.Error("missing explicit dSYM: no error")
	}
}

func TestLibraryShortName(t *testing.T) {
	for in, want := range map[string]string{
		"/usr/lib/libSystem.B.dylib": "libSystem",
		"@rpath/libfix.dylib":        "libfix",
		"/usr/lib/libc++.1.dylib":    "libc++",
		"/System/Library/Frameworks/Foundation.framework/Versions/C/Foundation": "Foundation",
		"/usr/lib/libobjc.A_debug.dylib":                                        "libobjc",
	} {
		if got := LibraryShortName(in); got != want {
			t.Errorf("LibraryShortName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestBundleDWARF(t *testing.T) {
	dw := func(bundle, name string) string {
		return filepath.Join(fixtureDir, bundle, "Contents", "Resources", "DWARF", name)
	}
	for _, c := range []struct{ p, bin, want string }{
		{filepath.Join(fixtureDir, "main.arm64.dSYM"), "", dw("main.arm64.dSYM", "main.arm64")},
		{filepath.Join(fixtureDir, "main.arm64.dSYM") + "/", "", dw("main.arm64.dSYM", "main.arm64")},
		{filepath.Join(fixtureDir, "prog.fat.dSYM"), "elsewhere/prog.fat", dw("prog.fat.dSYM", "prog.fat")},
		// Not a bundle: as is.
		{filepath.Join(fixtureDir, "main.arm64"), "", filepath.Join(fixtureDir, "main.arm64")},
		// A missing bundle: the file named after it, for the caller's
		// open to report.
		{filepath.Join(fixtureDir, "nope.dSYM"), "", dw("nope.dSYM", "nope")},
	} {
		if got := BundleDWARF(c.p, c.bin); got != c.want {
			t.Errorf("BundleDWARF(%q, %q) = %q, want %q", c.p, c.bin, got, c.want)
		}
	}
}
