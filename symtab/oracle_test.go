package symtab

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// probes returns addresses that exercise every boundary of the table:
// each symbol's start, middle, last byte, one past its end, and the
// address just below it. At most max of them, spread over the table.
func probes(tab *Table, max int) []uint64 {
	var out []uint64
	step := 1
	if tab.Len()*5 > max {
		step = tab.Len()*5/max + 1
	}
	for i := 0; i < tab.Len(); i += step {
		m := tab.At(i)
		out = append(out, m.Start, m.Start+1)
		if m.Start > 0 {
			out = append(out, m.Start-1)
		}
		if m.Size > 0 {
			out = append(out, m.Start+m.Size/2, m.Start+m.Size-1, m.Start+m.Size)
		}
	}
	return out
}

type llvmFrame struct {
	FunctionName string
	StartAddress string
}

type llvmAnswer struct {
	Address string
	Symbol  []llvmFrame
}

// symbolize runs llvm-symbolizer-14 once over all addresses and returns
// the outermost frame for each: the frame whose name llvm-symbolizer takes
// from the symbol table when a symbol covers the address.
func symbolize(t *testing.T, tool, path string, addrs []uint64) []llvmFrame {
	t.Helper()
	var in bytes.Buffer
	for _, a := range addrs {
		fmt.Fprintf(&in, "%#x\n", a)
	}
	cmd := exec.Command(tool, "--output-style=JSON", "--no-demangle", "--obj="+path,
		"--debug-file-directory=/nonexistent") // no DWARF from /usr/lib/debug/.build-id
	cmd.Stdin = &in
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %s: %v", tool, path, err)
	}
	var frames []llvmFrame
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var a llvmAnswer
		if err := json.Unmarshal(sc.Bytes(), &a); err != nil {
			t.Fatalf("%s: bad JSON %q: %v", tool, sc.Text(), err)
		}
		var f llvmFrame
		if len(a.Symbol) > 0 {
			f = a.Symbol[len(a.Symbol)-1]
		}
		frames = append(frames, f)
	}
	if len(frames) != len(addrs) {
		t.Fatalf("%s: %d answers for %d addresses", tool, len(frames), len(addrs))
	}
	return frames
}

// TestLookupMatchesLLVMSymbolizer is the differential oracle for the
// table: at every boundary of every symbol of every fixture, our answer
// must be llvm-symbolizer-14's outermost function name and start address.
// Where we find no symbol and the file has no DWARF, llvm-symbolizer must
// find no name either; with DWARF it falls back to DW_AT_name, which is
// not this package's business.
func TestLookupMatchesLLVMSymbolizer(t *testing.T) {
	tool := lookPath(t, "llvm-symbolizer-14")
	for _, path := range fixtureFiles(t) {
		t.Run(path, func(t *testing.T) {
			ef := readELFFile(t, path)
			tab := New(PreferELF(ef.symtab, ef.dynsym))
			addrs := probes(tab, 3000)
			if len(addrs) == 0 {
				t.Skip("no symbols")
			}
			got := symbolize(t, tool, path, addrs)
			bad := 0
			for i, pc := range addrs {
				m, ok := tab.Lookup(pc)
				want := got[i]
				switch {
				case ok && (want.FunctionName != m.Name || want.StartAddress != "0x"+strconv.FormatUint(m.Start, 16)):
					t.Errorf("%#x: got %s at %#x, llvm-symbolizer %q at %s", pc, m.Name, m.Start, want.FunctionName, want.StartAddress)
					bad++
				case !ok && !ef.hasDWARF && want.FunctionName != "":
					t.Errorf("%#x: got no symbol, llvm-symbolizer %q at %s", pc, want.FunctionName, want.StartAddress)
					bad++
				}
				if bad > 20 {
					t.Fatal("too many differences")
				}
			}
			t.Logf("%d symbols, %d probes", tab.Len(), len(addrs))
		})
	}
}

// demangleException excuses one kind of difference from the reference
// tool: a name containing match ("^" anchors it at the start; "" is any
// name) whose two answers differ exactly as explained reports. Each must
// excuse a name in every run (handNames holds an example of each): one
// that excuses nothing fails the test.
type demangleException struct {
	match     string
	explained func(name, got, want string) bool
	reason    string
}

// demangleExceptions are the differences from the reference tool that we
// leave open, each with its reason.
var demangleExceptions = map[Style][]demangleException{
	// StyleLLVM has none: itanium.go reproduces LLVM 14's demangler,
	// failures and quirks included, and rustv0.go its Rust printer.
	StyleLLVM: {},
	StyleGNU: {
		// c++filt is verbose about Rust v0 names too: crate disambiguators,
		// core[c1f1a4ba060b9bfa], and constant types, <7: u32>; addr2line -C
		// prints neither, nor does Demangle (TestRustV0Live compares it
		// with c++filt -i).
		{"^_R", func(_, got, want string) bool {
			return got != want && rustDisambiguator.ReplaceAllString(want, "") == got
		}, "c++filt prints Rust v0 crate disambiguators, addr2line -C does not"},
		// c++filt demangles verbosely (DMGL_VERBOSE), spelling out the
		// std::string, std::istream, std::ostream and std::iostream
		// abbreviations; addr2line -C, the tool StyleGNU stands in for, does
		// not, and neither does Demangle.
		{"", func(_, got, want string) bool {
			return got != want && stdAbbrev.Replace(want) == got
		}, "c++filt is verbose about std::string and the std streams, addr2line -C is not"},
		{"IXsr", sameSkeleton, "library substitution numbering after sr in template args"},
		// Library bug: a Rust legacy identifier starting "__" loses an
		// underscore ("_rust_begin_short_backtrace").
		{"28__rust_begin_short_backtrace", func(_, got, want string) bool {
			return got == strings.Replace(want, "__rust_begin", "_rust_begin", 1)
		}, "library drops a leading underscore"},
	},
}

var (
	// rustDisambiguator is a crate's disambiguator as c++filt prints it.
	rustDisambiguator = regexp.MustCompile(`\[[0-9a-f]+\]`)
	// stdAbbrev undoes c++filt's verbose spelling of the standard
	// abbreviations Ss, Si, So and Sd.
	stdAbbrev = strings.NewReplacer(
		"std::basic_string<char, std::char_traits<char>, std::allocator<char> >", "std::string",
		"std::basic_istream<char, std::char_traits<char> >", "std::istream",
		"std::basic_ostream<char, std::char_traits<char> >", "std::ostream",
		"std::basic_iostream<char, std::char_traits<char> >", "std::iostream")
	// identifier is a name or a number inside a demangled name.
	identifier = regexp.MustCompile(`[A-Za-z0-9_]+`)
)

// sameSkeleton reports whether got and want differ and differ only in
// names: the same punctuation, templates and parameter lists, in order.
func sameSkeleton(_, got, want string) bool {
	return got != want && identifier.ReplaceAllString(got, "x") == identifier.ReplaceAllString(want, "x")
}

// demangleExcuse returns the index of the exception that excuses
// Demangle(name, style) = got where the tool says want, or -1.
func demangleExcuse(style Style, name, got, want string) int {
	for i, e := range demangleExceptions[style] {
		p, anchored := strings.CutPrefix(e.match, "^")
		if (anchored && strings.HasPrefix(name, p) || !anchored && strings.Contains(name, p)) && e.explained(name, got, want) {
			return i
		}
	}
	return -1
}

// filterTool runs a c++filt-like tool over names, one per line.
func filterTool(t *testing.T, tool string, names []string) []string {
	t.Helper()
	cmd := exec.Command(tool)
	cmd.Stdin = strings.NewReader(strings.Join(names, "\n") + "\n")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if len(lines) != len(names) {
		t.Fatalf("%s: %d lines for %d names", tool, len(lines), len(names))
	}
	return lines
}

// fixtureNames returns the distinct symbol names of the fixtures, without
// ones containing white space (which filter tools split).
func fixtureNames(t *testing.T) []string {
	seen := map[string]bool{}
	var names []string
	for _, path := range fixtureFiles(t) {
		ef := readELFFile(t, path)
		for _, list := range [][]Symbol{ef.symtab, ef.dynsym} {
			for _, s := range list {
				// Filter tools split their input at white space, and
				// llvm-cxxfilt also at '@': it demangles the _Znwm of
				// "_Znwm@GLIBCXX_3.4" (an undefined, versioned symbol in
				// .symtab), where llvm-symbolizer, given the whole name,
				// fails and prints it raw, as Demangle does.
				if s.Name == "" || seen[s.Name] || strings.ContainsAny(s.Name, " \t\n@") {
					continue
				}
				seen[s.Name] = true
				names = append(names, s.Name)
			}
		}
	}
	return names
}

func testDemangleOracle(t *testing.T, style Style, tool string, extra []string) {
	path := lookPath(t, tool)
	names := append(fixtureNames(t), extra...)
	want := filterTool(t, path, names)
	used := make([]int, len(demangleExceptions[style]))
	defer func() {
		for i, e := range demangleExceptions[style] {
			if used[i] == 0 {
				t.Errorf("exception %q (%s) excuses nothing: remove it", e.match, e.reason)
			} else {
				t.Logf("exception %q: %d names", e.match, used[i])
			}
		}
	}()
	bad := 0
	for i, n := range names {
		got := Demangle(n, style)
		if got == want[i] {
			continue
		}
		if e := demangleExcuse(style, n, got, want[i]); e >= 0 {
			used[e]++
			continue
		}
		t.Errorf("Demangle(%q)\n got %q\nwant %q (%s)", n, got, want[i], tool)
		if bad++; bad > 30 {
			t.Fatal("too many differences")
		}
	}
	t.Logf("%d names", len(names))
}

// handNames are mangled names that the fixtures may lack: the clone
// suffixes gcc emits, clang blocks, Rust legacy and v0, D, and non-names.
var handNames = []string{
	"_Z3foov.cold", "_Z3foov.part.0", "_ZL6cloneeii.constprop.0", "_Z3foov.isra.0",
	"_Z3foov.cold.123", "_Z3foov.llvm.1234", "_Z7checkedi.cold",
	"_Z5applyIZ7lambdasiEUliE0_EiT_i.constprop.0", "_ZZ4mainENKUliE_clEi",
	"_ZNK2ns3BoxIdLi3EE3sumEv", "_ZNSt6vectorIiSaIiEE17_M_realloc_insertIJRKiEEEvN9__gnu_cxx17__normal_iteratorIPiS1_EEDpOT_",
	"___Z3foov_block_invoke", "___Z3foov",
	"_ZN3std2rt10lang_start17h0123456789abcdefE",
	"_ZN4core3ptr85drop_in_place$LT$std..rt..lang_start$LT$$LP$$RP$$GT$..$u7b$$u7b$closure$u7d$$u7d$$GT$17h1d1fee9d2e6e7cb5E",
	"_RNvCs1234_7mycrate3foo", "_RNvCs1234_7mycrate3foo.llvm.123",
	"_D3foo3barFZv", "main.cold", "_Z", "_Zfoo", "__Z3foov", "_GLOBAL__sub_I_a.c", "_R",
	// One of each kind of difference demangleExceptions excuses.
	"_ZNSt8ios_base7failureB5cxx11C1EPKcRKSt10error_code", "_ZNSt8ios_base7failureB5cxx11D1Ev",
	"_ZN4llvm4yaml7yamlizeI12SwiftVersionEENSt9enable_ifIXsr16has_ScalarTraitsIT_EE5valueEvE4typeERNS0_2IOERS4_bRNS0_12EmptyContextE",
	"_ZNK4llvm5MachO6TargetcvNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEEEv",
	"_Z1fSs", "_Z1fRSi", "_Z1fRSo", "_Z1fRSd",
	"_ZN3std10sys_common9backtrace28__rust_begin_short_backtrace17h0123456789abcdefE",
}

// TestDemangleLLVM compares StyleLLVM with llvm-cxxfilt-14, which shares
// llvm-symbolizer 14's demangler (nonMicrosoftDemangle), on every fixture
// name and the hand-picked ones.
func TestDemangleLLVM(t *testing.T) {
	testDemangleOracle(t, StyleLLVM, "llvm-cxxfilt-14", handNames)
}

// TestDemangleGNU compares StyleGNU with GNU c++filt.
func TestDemangleGNU(t *testing.T) {
	testDemangleOracle(t, StyleGNU, "c++filt", handNames)
}
