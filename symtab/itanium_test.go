package symtab

import (
	"bufio"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The golden corpus: testdata/itanium/names.txt holds distinct Itanium
// names from real C++ binaries (Debian's libstdc++, libitpp and radosgw,
// the fixtures) and mutations of them, chosen by gen.sh to cover the
// demangler's syntax; llvm-cxxfilt-14.txt holds llvm-cxxfilt-14's answer
// to each, line by line (the name itself where LLVM 14 gives up).
const (
	goldenNames = "testdata/itanium/names.txt"
	goldenLLVM  = "testdata/itanium/llvm-cxxfilt-14.txt"
)

// itaniumExceptions are golden names where Demangle may differ from
// llvm-cxxfilt-14, each with the reason. An exception that Demangle
// no longer needs fails the test. There are none: the demangler
// reproduces LLVM 14 on every name.
var itaniumExceptions = map[string]string{}

func readLines(t testing.TB, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}

// TestItaniumGolden compares Demangle with llvm-cxxfilt-14's recorded
// answers, every line exactly.
func TestItaniumGolden(t *testing.T) {
	names, want := readLines(t, goldenNames), readLines(t, goldenLLVM)
	if len(names) != len(want) || len(names) < 1000 {
		t.Fatalf("%d names, %d answers", len(names), len(want))
	}
	used := map[string]bool{}
	bad, raw := 0, 0
	for i, name := range names {
		got := Demangle(name, StyleLLVM)
		if want[i] == name {
			raw++
		}
		if reason, ok := itaniumExceptions[name]; ok {
			used[name] = true
			if got == want[i] {
				t.Errorf("exception for %q (%s): Demangle now agrees; remove it", name, reason)
			}
			continue
		}
		if got != want[i] {
			t.Errorf("Demangle(%q)\n got %q\nwant %q", name, got, want[i])
			if bad++; bad > 20 {
				t.Fatal("too many differences")
			}
		}
	}
	for name := range itaniumExceptions {
		if !used[name] {
			t.Errorf("exception for %q names no golden name", name)
		}
	}
	t.Logf("%d names, %d of them left raw by LLVM 14", len(names), raw)
}

// TestItaniumGoldenCurrent checks the recorded answers against
// llvm-cxxfilt-14 itself, when it is installed.
func TestItaniumGoldenCurrent(t *testing.T) {
	tool := lookPath(t, "llvm-cxxfilt-14")
	names, want := readLines(t, goldenNames), readLines(t, goldenLLVM)
	got := filterTool(t, tool, names)
	for i := range names {
		if got[i] != want[i] {
			t.Errorf("%s: %s prints %q, the file says %q (regenerate with gen.sh)", names[i], tool, got[i], want[i])
		}
	}
}

// TestItaniumLLVMCases pins names that show the LLVM 14 behaviours the
// demangler reproduces, with llvm-cxxfilt-14's answers pasted verbatim.
func TestItaniumLLVMCases(t *testing.T) {
	cases := []struct{ name, want string }{
		// An argument pack spelled I...E (GCC's older mangling): LLVM 14
		// takes only J...E and gives up.
		{"_Z1fIiIiiEEvv", "_Z1fIiIiiEEvv"},
		{"_Z1fIJiiEEvv", "void f<int, int>()"},
		// An unresolved name starting with std:: fails.
		{"_Z1fIiEN9enable_ifIXsrSt9is_scalarIT_E5valueEvE4typeEv", "_Z1fIiEN9enable_ifIXsrSt9is_scalarIT_E5valueEvE4typeEv"},
		// The qualifiers of an unresolved name are no substitution
		// candidates: S1_ is int (ianlancetaylor/demangle made it "a").
		{"_Z1rIiEN1eIXsr1aIT_EE1vES1_E1tEv", "e<a<int>::v, int>::t r<int>()"},
		// Every operand of an expression is parenthesized.
		{"_Z1fIiEDTmicl1gIT_EEcl1hEEv", "decltype((g<int>()) - (h())) f<int>()"},
		{"_Z1fIiEvPAntsr1aIT_EE1v_i", "void f<int>(int (*) [!(a<int>::v)])"},
		{"_Z1fIiEvPAadL_Z1gvE_i", "void f<int>(int (*) [&(g())])"},
		// A binary '>' gets a second pair of parentheses.
		{"_Z1fIiEvPAgtLi1ELi0E_i", "void f<int>(int (*) [((1) > (0))])"},
		// A destructor of an unnamed type or closure has no name.
		{"_ZN15cls_user_bucketUt_D4Ev", "cls_user_bucket::'unnamed'::~()"},
		{"_ZZ1fvENUlvE_D2Ev", "f()::'lambda'()::~()"},
		// Nor has a constructor of a class with an ABI tag.
		{"_ZNSt8ios_base7failureB5cxx11C1EPKcRKSt10error_code", "std::ios_base::failure[abi:cxx11]::(char const*, std::error_code const&)"},
		// A generic lambda's parameter prints as auto, wherever it is
		// substituted.
		{"_ZZ1fvENKUlRKT_E_clIiEEDaS1_", "auto f()::'lambda'(auto const&)::operator()<int>(auto const&) const"},
		{"_ZZ1fvENKUlDpRT_E_clIJiiEEEDaS1_", "auto f()::'lambda'(auto&...)::operator()<int, int>(auto&...) const"},
		// An empty pack leaves no ", ".
		{"_Z1fIJEJiEEvDpT_DpT0_", "void f<int>(int)"},
		// "> >" and operator<<<.
		{"_ZNSt6vectorIS_IiSaIiEESaIS1_EE5clearEv", "std::vector<std::vector<int, std::allocator<int> >, std::allocator<std::vector<int, std::allocator<int> > > >::clear()"},
		{"_ZlsI1AERSoS1_RKT_", "std::ostream& operator<<<A>(std::ostream&, A const&)"},
		// Clone suffixes, one for all of them; blocks.
		{"_Z3foov.isra.0.cold", "foo() (.isra.0.cold)"},
		{"___Z3foov_block_invoke_2", "invocation function for block in foo()"},
		// Literals.
		{"_Z1fILb1EEvv", "void f<true>()"},
		{"_Z1fILc97EEvv", "void f<(char)97>()"},
		{"_Z1fILm5EEvv", "void f<5ul>()"},
		{"_Z1fILin5EEvv", "void f<-5>()"},
		{"_Z1fILf3fc00000EEvv", "void f<0x1.8p+0f>()"},
		{"_Z1fILd4000000000000000EEvv", "void f<0x1p+1>()"},
		{"_Z1fILe3fffc000000000000000EEvv", "void f<0xcp-3L>()"},
		{"_Z1fIL1E3EEvv", "void f<(E)3>()"},
		// printf's %a and %La, as glibc prints them.
		{"_Z1fILfffc00000EEvv", "void f<-nanf>()"},
		{"_Z1fILf7f800000EEvv", "void f<inff>()"},
		{"_Z1fILf00000001EEvv", "void f<0x1p-149f>()"},
		{"_Z1fILd0000000000000001EEvv", "void f<0x0.0000000000001p-1022>()"},
		{"_Z1fILd8000000000000000EEvv", "void f<-0x0p+0>()"},
		{"_Z1fILe00000000000000000000EEvv", "void f<0x0p+0L>()"},
		{"_Z1fILe00000000000000000001EEvv", "void f<0x0.000000000000001p-16385L>()"},
		{"_Z1fILe3fff8000000000000001EEvv", "void f<0x8.000000000000001p-3L>()"},
		{"_Z1fILeffff8000000000000000EEvv", "void f<-infL>()"},
		{"_Z1fILe3fff4000000000000000EEvv", "void f<nanL>()"}, // no integer bit
		{"_Z1fILe7fff0000000000000000EEvv", "void f<nanL>()"},
		{"_Z1fILe00008000000000000000EEvv", "void f<0x8p-16385L>()"},
		// Upper-case digits decode as LLVM decodes them (wrongly).
		{"_Z1fILf3FC00000EEvv", "void f<0x1.8p-64f>()"},
		// A conversion operator's type refers forward to the template
		// arguments after it, here to itself (bad input LLVM 14 prints
		// without looping).
		{"_ZN1AcvT_IS0_EEv", "A::operator <>()"},
		{"_ZN1AcvPT_IS1_EEv", "A::operator **<**>()"},
		{"_ZN1AcvRT_IS2_EEv", "A::operator A::operator &<A::operator A::operator &>()"},
		// Not Itanium for LLVM 14.
		{"_ZGTtnam", "_ZGTtnam"},
		{"__Z3foov", "__Z3foov"},
	}
	for _, c := range cases {
		if got := Demangle(c.name, StyleLLVM); got != c.want {
			t.Errorf("Demangle(%q)\n got %q\nwant %q", c.name, got, c.want)
		}
	}
}

// seqID is the <seq-id> of substitution i (S_ is 0, S0_ is 1).
func seqID(i int) string {
	if i == 0 {
		return "S_"
	}
	return "S" + strings.ToUpper(strconv.FormatInt(int64(i-1), 36)) + "_"
}

// TestItaniumBounds feeds names past each bound: they print raw, quickly.
func TestItaniumBounds(t *testing.T) {
	// Each parameter a pointer to a function taking the previous one
	// twice: the output doubles with each.
	doubling := "_Z1f1a"
	for j := 0; j < 40; j++ {
		prev := 0
		if j > 0 {
			prev = 2 * j
		}
		doubling += "PFv" + seqID(prev) + seqID(prev) + "E"
	}
	// Each parameter a pointer to the previous one: deep, and the output
	// quadratic.
	deep := "_Z1f1a"
	for j := 0; j < 3000; j++ {
		deep += "P" + seqID(j)
	}
	for _, name := range []string{
		"_Z1f" + strings.Repeat("P", maxParseDepth+10) + "i",
		"_Z1fIJ" + strings.Repeat("J", maxParseDepth+10) + "EEvv",
		doubling,
		deep,
	} {
		start := time.Now()
		got := Demangle(name, StyleLLVM)
		if got != name {
			t.Errorf("Demangle(%.40q...) = %.80q...; want it raw", name, got)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("Demangle(%.40q...) took %v", name, d)
		}
	}
	// Within the bounds: the first steps of each.
	if got, want := Demangle("_Z1f1aPFvS_S_EPFvS1_S1_E", StyleLLVM), "f(a, void (*)(a, a), void (*)(void (*)(a, a), void (*)(a, a)))"; got != want {
		t.Errorf("doubling: got %q, want %q", got, want)
	}
	if got, want := Demangle("_Z1f"+strings.Repeat("P", 500)+"i", StyleLLVM), "f(int"+strings.Repeat("*", 500)+")"; got != want {
		t.Errorf("500 pointers: got %.60q", got)
	}
}

// TestItaniumConcurrent demangles from several goroutines at once: the
// pooled parsers must not share state (run it with -race).
func TestItaniumConcurrent(t *testing.T) {
	names, want := readLines(t, goldenNames), readLines(t, goldenLLVM)
	if len(names) > 2000 {
		names, want = names[:2000], want[:2000]
	}
	done := make(chan error)
	for g := 0; g < 4; g++ {
		go func(g int) {
			for i := range names {
				j := (i*7 + g*131) % len(names)
				if got := Demangle(names[j], StyleLLVM); got != want[j] {
					done <- fmt.Errorf("%s: got %q", names[j], got)
					return
				}
			}
			done <- nil
		}(g)
	}
	for g := 0; g < 4; g++ {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
}

// BenchmarkDemangleItanium demangles the golden names.
func BenchmarkDemangleItanium(b *testing.B) {
	names := readLines(b, goldenNames)
	b.ReportAllocs()
	for b.Loop() {
		for _, n := range names {
			Demangle(n, StyleLLVM)
		}
	}
}

// FuzzDemangleItanium feeds Itanium-looking names to the demangler:
// nothing may panic, the output stays within the cap, and a failure
// prints the name raw. With SYMTAB_FUZZ_LLVM=1 and llvm-cxxfilt-14
// installed it also compares every input (its bytes outside the mangling
// alphabet mapped into it) with the tool, kept running as a coprocess, so
// that fuzzing searches for differences from LLVM 14; names past one of
// our bounds are not compared. Seeds are the golden names.
func FuzzDemangleItanium(f *testing.F) {
	for _, n := range readLines(f, goldenNames) {
		f.Add(n)
	}
	var oracle *cxxfilt
	if os.Getenv("SYMTAB_FUZZ_LLVM") == "1" {
		if path, err := exec.LookPath("llvm-cxxfilt-14"); err == nil {
			oracle = &cxxfilt{path: path}
			f.Cleanup(oracle.close)
		}
	}
	f.Fuzz(func(t *testing.T, name string) {
		if !strings.HasPrefix(name, "_Z") && !strings.HasPrefix(name, "___Z") {
			name = "_Z" + name
		}
		out := Demangle(name, StyleLLVM)
		if len(out) > maxItaniumOutput {
			t.Fatalf("%d bytes from a %d-byte name", len(out), len(name))
		}
		_, status := demangleItaniumStatus(name)
		if status != itaniumOK && out != name {
			t.Fatalf("failed but printed %q", out)
		}
		if oracle == nil {
			return
		}
		// llvm-cxxfilt splits words at bytes outside the mangling
		// alphabet: map those into it.
		b := []byte(name)
		for i, c := range b {
			if !strings.ContainsRune(mangleAlphabet, rune(c)) {
				b[i] = mangleAlphabet[int(c)%len(mangleAlphabet)]
			}
		}
		name = string(b)
		out, status = demangleItaniumStatus(name)
		if status != itaniumOK {
			out = name
		}
		if want, ok := oracle.demangle(name); ok && status != itaniumBounded && want != out {
			t.Fatalf("Demangle(%q)\n got %q\nwant %q (llvm-cxxfilt-14)", name, out, want)
		}
	})
}

// mangleAlphabet is the bytes of Itanium names.
const mangleAlphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.$"

// cxxfilt is llvm-cxxfilt-14 as a coprocess: it answers each line as it
// reads it.
type cxxfilt struct {
	path string
	cmd  *exec.Cmd
	in   *bufio.Writer
	out  *bufio.Reader
}

// demangle asks the tool; ok is false if it could not answer (it is
// restarted for the next name).
func (c *cxxfilt) demangle(name string) (string, bool) {
	if c.cmd == nil {
		c.cmd = exec.Command(c.path)
		w, err1 := c.cmd.StdinPipe()
		r, err2 := c.cmd.StdoutPipe()
		if err1 != nil || err2 != nil || c.cmd.Start() != nil {
			c.cmd = nil
			return "", false
		}
		c.in, c.out = bufio.NewWriter(w), bufio.NewReaderSize(r, 1<<16)
	}
	c.in.WriteString(name)
	c.in.WriteByte('\n')
	line, err := "", c.in.Flush()
	if err == nil {
		line, err = c.out.ReadString('\n')
	}
	if err != nil {
		c.close()
		return "", false
	}
	return strings.TrimSuffix(line, "\n"), true
}

func (c *cxxfilt) close() {
	if c.cmd != nil {
		c.cmd.Process.Kill()
		c.cmd.Wait()
		c.cmd = nil
	}
}

// Selecting the golden names (gen.sh): go test -run TestItaniumSelect
// -itanium.candidates=FILE -itanium.out=FILE.
var (
	selectCandidates = flag.String("itanium.candidates", "", "TestItaniumSelect: file of candidate names, one a line")
	selectOut        = flag.String("itanium.out", "", "TestItaniumSelect: where to write the chosen names")
	selectBase       = flag.String("itanium.base", "", "TestItaniumSelect: file of names chosen already, kept and counted first")
	selectMutate     = flag.Int("itanium.mutate", 0, "TestItaniumSelect: choose among this many mutations of the candidates instead")
	selectFill       = flag.Bool("itanium.fill", true, "TestItaniumSelect: fill the budget with names drawn at random")
	selectBudget     = flag.Int("itanium.budget", 900<<10, "TestItaniumSelect: bytes of names and answers to choose")
)

// TestItaniumSelect chooses golden names from candidates: shortest first,
// each name that brings a syntax feature (a node kind, a parent-child or
// grandparent-parent-child chain of kinds, or for a failure the bytes
// where parsing stopped) seen fewer than five times so far; then, to fill
// the budget of bytes, names drawn at random (a fixed seed), as they come
// in real binaries.
func TestItaniumSelect(t *testing.T) {
	if *selectCandidates == "" || *selectOut == "" {
		t.Skip("needs -itanium.candidates and -itanium.out")
	}
	cands := readLines(t, *selectCandidates)
	if *selectMutate > 0 {
		cands = mutateNames(cands, *selectMutate)
	}
	sort.SliceStable(cands, func(i, j int) bool { return len(cands[i]) < len(cands[j]) })
	seen := map[string]int{}
	var chosen []string
	size := 0
	if *selectBase != "" {
		for _, name := range readLines(t, *selectBase) {
			for _, f := range itaniumFeatures(name) {
				seen[f]++
			}
			chosen = append(chosen, name)
		}
	}
	base := len(chosen)
	taken := make([]bool, len(cands))
	for i, name := range cands {
		feats := itaniumFeatures(name)
		gain := false
		for _, f := range feats {
			if seen[f] < 5 {
				gain = true
			}
		}
		cost := 4*len(name) + 2 // the name, and an answer three times as long
		if !gain || size+cost > *selectBudget {
			continue
		}
		for _, f := range feats {
			seen[f]++
		}
		size += cost
		chosen = append(chosen, name)
		taken[i] = true
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, i := range rng.Perm(len(cands)) {
		if !*selectFill {
			break
		}
		cost := 4*len(cands[i]) + 2
		if taken[i] || size+cost > *selectBudget {
			continue
		}
		size += cost
		chosen = append(chosen, cands[i])
	}
	sort.Strings(chosen)
	if err := os.WriteFile(*selectOut, []byte(strings.Join(chosen, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d of %d names (and %d kept), %d features", len(chosen)-base, len(cands), base, len(seen))
}

// itaniumFeatures lists what the parse of name exercises.
func itaniumFeatures(name string) []string {
	p := &iparser{outer: &tplList{}}
	p.reset(name)
	root := p.parse()
	if root == nil {
		at := p.s[max(p.pos-1, 0):min(p.pos+2, len(p.s))]
		return []string{"fail:" + at}
	}
	var feats []string
	visited := map[*inode]bool{}
	var walk func(n, parent *inode, depth int)
	walk = func(n, parent *inode, depth int) {
		if n == nil || visited[n] || depth > 200 {
			return
		}
		visited[n] = true
		feats = append(feats, fmt.Sprint(n.kind))
		for i, c := range append([]*inode{n.a, n.b, n.c}, append(n.list, n.list2...)...) {
			if c == nil {
				continue
			}
			feats = append(feats, fmt.Sprint(n.kind, ">", min(i, 3), ">", c.kind))
			if parent != nil {
				feats = append(feats, fmt.Sprint(parent.kind, ">", n.kind, ">", c.kind))
			}
			walk(c, n, depth+1)
		}
	}
	walk(root, nil, 0)
	return feats
}

// mutateNames returns n distinct mutations of names (a fixed seed): one to
// three edits each, a byte replaced, deleted or inserted (mostly bytes
// that steer the grammar), a piece of another name spliced in, or the
// name cut short. Only those still starting _Z or ___Z are kept.
func mutateNames(names []string, n int) []string {
	const (
		alpha = mangleAlphabet
		hot   = "STIJEXLNZDdpfKRPOv_0123456789"
	)
	var short []string
	for _, s := range names {
		if 4 <= len(s) && len(s) < 400 {
			short = append(short, s)
		}
	}
	rng := rand.New(rand.NewPCG(3, 4))
	seen := map[string]bool{}
	var out []string
	for tries := 0; len(out) < n && len(short) > 0 && tries < 20*n; tries++ {
		s := []byte(short[rng.IntN(len(short))])
		for edits := 1 + rng.IntN(3); edits > 0 && len(s) >= 4; edits-- {
			i := 2 + rng.IntN(len(s)-2)
			switch op := rng.Float64(); {
			case op < 0.3:
				s[i] = hot[rng.IntN(len(hot))]
			case op < 0.45:
				s[i] = alpha[rng.IntN(len(alpha))]
			case op < 0.6:
				s = append(s[:i], s[i+1:]...)
			case op < 0.75:
				s = append(s[:i], append([]byte{hot[rng.IntN(len(hot))]}, s[i:]...)...)
			case op < 0.85:
				o := short[rng.IntN(len(short))]
				j := 2 + rng.IntN(len(o)-2)
				k := j + rng.IntN(min(len(o), j+20)-j+1)
				s = append(s[:i], append([]byte(o[j:k]), s[i:]...)...)
			default:
				s = s[:i]
			}
		}
		m := string(s)
		if (strings.HasPrefix(m, "_Z") || strings.HasPrefix(m, "___Z")) && !seen[m] {
			seen[m] = true
			out = append(out, m)
		}
	}
	return out
}
