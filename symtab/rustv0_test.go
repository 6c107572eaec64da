package symtab

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// rustV0Cases are hand-made Rust v0 names for the corners real names do
// not reach, each with llvm-cxxfilt-14's output pasted verbatim, "" where
// it prints the name raw. TestRustV0Live checks them against the tool.
var rustV0Cases = []struct{ name, llvm string }{
	// Paths, suffixes, the instantiating crate (parsed, not printed), backrefs.
	{"_RNvC1a1b", "a::b"},
	{"_RNvCs1234_7mycrate3foo.llvm.123", "mycrate::foo (.llvm.123)"},
	{"_RNvC1a1b.x.y", "a::b (.x.y)"},
	{"_RNvC1a1b.", "a::b (.)"},
	{"_R.x", ""},
	{"_R", ""},
	{"_RNvC1a1bC1c", "a::b"},
	{"_RNvC1a1bNvC1c1d", "a::b"},
	{"_RNvC1a1bC1cC1d", ""},
	{"_RNvC1a1bB_", "a::b"},
	{"_RNvB_1a", ""},
	{"_RNvB4_1a", ""},
	// Identifiers: length, the '_' separator, a leading zero.
	{"_RNvNvC1a0_1b", "a::b"},
	{"_RNvC1a2_3x", "a::3x"},
	{"_RNvC1a0_", "a"},
	{"_RNvC1a01b", ""},
	{"_R0NvC1a1b", ""},
	{"_RNvC1a1bx", ""},
	{"_RNvC2ab3", ""},
	{"_RNvC1a2bc", "a::bc"},
	// Namespaces: closures, shims, other upper-case ones; disambiguators.
	{"_RNvNCC1a0_1b", "a::{closure#0}::b"},
	{"_RNvNCC1a1c1b", "a::{closure:c#0}::b"},
	{"_RNvNCNvC1a1bs_0", ""},
	{"_RNvNCNvC1a1bs0_0", ""},
	{"_RNvNCNvC1a1bsZZZZZZZZZZZZ_0", ""},
	{"_RNvNSC1a6vtable1b", "a::{shim:vtable#0}::b"},
	{"_RNvNSC1a5reify1b", "a::{shim:reify#0}::b"},
	{"_RNvNQC1a1c1b", "a::{Q:c#0}::b"},
	{"_RNvN0C1a1b", ""},
	{"_RNvNvC1a0", ""},
	{"_RNCNCNCNvCs86zEVutDZHT_8features6nested00s_0B7_", "features::nested::{closure#0}::{closure#0}::{closure#1}"},
	// Binders and lifetimes: De Bruijn indices, the binder-length check, 'z1.
	{"_RINvC1a1bFG_RL0_hEuE", "a::b::<for<'a> fn(&'a u8)>"},
	{"_RINvC1a1bFG0_RL1_hEuE", "a::b::<for<'a, 'b> fn(&'a u8)>"},
	{"_RINvC1a1bFG1_RL1_hEuE", "a::b::<for<'a, 'b, 'c> fn(&'b u8)>"},
	{"_RINvC1a1bFGZ_RL0_hEuE", ""},
	{"_RINvC1a1bFGg_RL_hEuE", "a::b::<for<'a, 'b, 'c, 'd, 'e, 'f, 'g, 'h, 'i, 'j, 'k, 'l, 'm, 'n, 'o, 'p, 'q, 'r> fn(&u8)>"},
	{"_RINvC1a1bFGh_RL_hEuE", ""},
	{"_RINvC1a1bFGp_RL_hRL0_hRLp_hEuE", "a::b::<for<'a, 'b, 'c, 'd, 'e, 'f, 'g, 'h, 'i, 'j, 'k, 'l, 'm, 'n, 'o, 'p, 'q, 'r, 's, 't, 'u, 'v, 'w, 'x, 'y, 'z, 'z1> fn(&u8, &'z1 u8, &'b u8)>"},
	{"_RINvC1a1bFG_RL1_hEuE", ""},
	{"_RINvC1a1bFG_FG_RL0_hRL1_hEuEuE", "a::b::<for<'a> fn(for<'b> fn(&'b u8, &'a u8))>"},
	// Constants: char escapes and range, bool, signed, over 16 hex digits, placeholder; other types fail.
	{"_RINvC1a1bKc1f600_E", "a::b::<'\\u{1f600}'>"},
	{"_RINvC1a1bKcd800_E", "a::b::<'\\u{d800}'>"},
	{"_RINvC1a1bKc110000_E", "a::b::<'\\u{110000}'>"},
	{"_RINvC1a1bKc1000000_E", ""},
	{"_RINvC1a1bKc22_Kc27_Kc5c_Kc9_Kca_Kcd_Kc7f_Kc20_Kc7e_Kc0_E", "a::b::<'\"', '\\'', '\\\\', '\\t', '\\n', '\\r', '\\u{7f}', ' ', '~', '\\u{0}'>"},
	{"_RINvC1a1bKRe2_abE", ""},
	{"_RINvC1a1bKe2_abE", ""},
	{"_RINvC1a1bKb2_E", ""},
	{"_RINvC1a1bKb0_Kb1_E", "a::b::<false, true>"},
	{"_RINvC1a1bKh00_E", ""},
	{"_RINvC1a1bKhn0_E", "a::b::<-0>"},
	{"_RINvC1a1bKln7fffffff_E", "a::b::<-2147483647>"},
	{"_RINvC1a1bKxn8000000000000000_E", "a::b::<-9223372036854775808>"},
	{"_RINvC1a1bKy10000000000000000_E", "a::b::<0x10000000000000000>"},
	{"_RINvC1a1bKyffffffffffffffff_E", "a::b::<18446744073709551615>"},
	{"_RINvC1a1bKjfffffffffffffffff_E", "a::b::<0xfffffffffffffffff>"},
	{"_RINvC1a1bKj0f_E", ""},
	{"_RINvC1a1bKj1_Kj_E", ""},
	{"_RINvC1a1bKjF_E", ""},
	{"_RINvC1a1bKpE", "a::b::<_>"},
	{"_RINvC1a1bKdE", ""},
	{"_RINvC1a1bKuE", ""},
	{"_RINvC1a1bKj1_KB9_E", ""},
	{"_RINvC1a1bKj1_KB0_E", ""},
	// Trait objects: bindings inside the trait's brackets, the binder's scope.
	{"_RINvC1a1bDNvC1c1dEL_E", "a::b::<dyn c::d>"},
	{"_RINvC1a1bDNvC1c1dEL0_E", ""},
	{"_RINvC1a1bDNvC1c1dE", ""},
	{"_RINvC1a1bDG_NvC1c1dEL0_E", ""},
	{"_RINvC1a1bDG_NvC1c1dEL_E", "a::b::<dyn for<'a> c::d>"},
	{"_RINvC1a1bDG_NvC1c1dEL1_E", ""},
	{"_RINvC1a1bDINvC1c1dhEp4Itemhp1UuEL_E", "a::b::<dyn c::d<u8, Item = u8, U = ()>>"},
	{"_RINvC1a1bDNvC1c1dp4ItemhEL_E", "a::b::<dyn c::d<Item = u8>>"},
	{"_RINvC1a1bDNvC1c1dpu4abcdhEL_E", "a::b::<dyn c::d<abcd = u8>>"},
	{"_RINvC1a1bDNvC1c1dNvC1e1fEL_E", "a::b::<dyn c::d + e::f>"},
	{"_RINvC1a1bFG_DNvC1c1dEL0_EuE", "a::b::<for<'a> fn(dyn c::d + 'a)>"},
	// Function pointers: unsafe, ABIs ('_' prints '-', Punycode fails), variadic, never.
	{"_RINvC1a1bFUKCEuE", "a::b::<unsafe extern \"C\" fn()>"},
	{"_RINvC1a1bFK6systemEuE", "a::b::<extern \"system\" fn()>"},
	{"_RINvC1a1bFK8C_unwindEuE", "a::b::<extern \"C-unwind\" fn()>"},
	{"_RINvC1a1bFKu4abc_EuE", ""},
	{"_RINvC1a1bFvvEuE", "a::b::<fn(..., ...)>"},
	{"_RINvC1a1bFhEzE", "a::b::<fn(u8) -> !>"},
	{"_RINvC1a1bFEFEuE", "a::b::<fn() -> fn()>"},
	// Tuples, arrays, slices, references, pointers, generic lifetimes.
	{"_RINvC1a1bTEThETuhEE", "a::b::<(), (u8,), ((), u8)>"},
	{"_RINvC1a1bAhj3_E", "a::b::<[u8; 3]>"},
	{"_RINvC1a1bSRQOPhE", "a::b::<[&&mut *mut *const u8]>"},
	{"_RINvC1a1bRL_hQL_hE", "a::b::<&u8, &mut u8>"},
	{"_RINvC1a1bLZ_E", ""},
	{"_RINvC1a1bL_E", "a::b::<'_>"},
	{"_RINvC1a1bL0_E", ""},
	{"_RINvC1a1bINvC1c1dhEE", "a::b::<c::d<u8>>"},
	{"_RINvC1a1bBa_E", ""},
	{"_RINvC1a1bB6_E", "a::b::<bool>"},
	// Impls: inherent, trait, trait definition; impl paths are not printed (not even checked Punycode).
	{"_RMC1aNvC1b1c", "<b::c>"},
	{"_RNvMC1aNvC1b1c1d", "<b::c>::d"},
	{"_RNvMNvC1au2ABNvC1b1c1d", "<b::c>::d"},
	{"_RNvXC1aNvC1b1cNvC1d1e1f", "<b::c as d::e>::f"},
	{"_RNvYNvC1b1cNvC1d1e1f", "<b::c as d::e>::f"},
	{"_RNvXs0_C1aNvC1b1cNvC1d1e1f", "<b::c as d::e>::f"},
	{"_RNvMs_C1aINvC1b1cKj1_E1f", "<b::c<1>>::f"},
	{"_RNvYINvC1b1chEINvC1d1ehE1f", "<b::c<u8> as d::e<u8>>::f"},
	{"_RINvYINvC1b1chEINvC1d1ehE1fpE", "<b::c<u8> as d::e<u8>>::f::<_>"},
	// Punycode identifiers, valid and not.
	{"_RNvC1au2AB", ""},
	{"_RNvC1au3x_y", ""},
	{"_RNvC1au1_", ""},
	{"_RNvC1au0", "a"},
	{"_RNvCu6a_8ab0_1b", ""},
	{"_RNvC1au7zbj_ak1b", ""},
	{"_RNvC1au6_80aa2", ""},
	{"_RNvC1au7999999a", ""},
	{"_RNvC1au13ncd_dma1a7bzb", "a::ünïcödé"},
	{"_RNvNtCs86zEVutDZHT_8featuresu13ncd_dma1a7bzbu8_80aa2a9c", "features::ünïcödé::каша"},
	{"_RNvC1au3bcd", "a::༢"},
	{"_RNvC1a8_1234567", ""},
	{"_RINvC1a1bKcA_E", ""},
	{"_RNvNtC1a1bC1c.llvm.5", ""},
}

func TestRustV0Cases(t *testing.T) {
	for _, c := range rustV0Cases {
		want := c.llvm
		if want == "" {
			want = c.name
		}
		if got := Demangle(c.name, StyleLLVM); got != want {
			t.Errorf("Demangle(%q)\n got %q\nwant %q", c.name, got, want)
		}
	}
}

// nestedSlices returns a name with n slice types nested in a generic
// argument, and how LLVM 14 prints it. The path, the argument and the
// slices are n+2 nested productions and the u8 inside one more.
func nestedSlices(n int) (name, llvm string) {
	return "_RINvC1a1b" + strings.Repeat("S", n) + "hE",
		"a::b::<" + strings.Repeat("[", n) + "u8" + strings.Repeat("]", n) + ">"
}

// TestRustV0Depth pins LLVM 14's recursion limit: 500 nested paths, types
// and constants, so 498 slices print and 499 do not (llvm-cxxfilt-14
// agrees; TestRustV0Live checks it).
func TestRustV0Depth(t *testing.T) {
	for _, n := range []int{1, 498, 499, 100000} {
		name, want := nestedSlices(n)
		if n > 498 {
			want = name
		}
		if got := Demangle(name, StyleLLVM); got != want {
			t.Errorf("%d slices: got %.60q..., want %.60q...", n, got, want)
		}
	}
}

// rustV0Corpus reads testdata/rust/v0.txt, the golden corpus gen.sh makes
// from real binaries: mangled names and llvm-cxxfilt-14's output.
func rustV0Corpus(t testing.TB) (names, want []string) {
	t.Helper()
	data, err := os.ReadFile("testdata/rust/v0.txt")
	if err != nil {
		t.Fatal(err)
	}
	for i, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		if strings.HasPrefix(line, "#") {
			continue
		}
		name, out, ok := strings.Cut(line, "\t")
		if !ok {
			t.Fatalf("v0.txt:%d: no tab", i+1)
		}
		names = append(names, name)
		want = append(want, out)
	}
	return names, want
}

// rustV0Exceptions are the corpus names where Demangle differs from
// llvm-cxxfilt-14 on purpose, each with its reason. There are none: an
// entry must name one differing name, and one that matches none fails.
var rustV0Exceptions = map[string]string{}

// TestRustV0Golden compares every name of the corpus with the output
// llvm-cxxfilt-14 gave when it was made.
func TestRustV0Golden(t *testing.T) {
	names, want := rustV0Corpus(t)
	if len(names) < 1000 {
		t.Fatalf("only %d names in v0.txt", len(names))
	}
	used := map[string]bool{}
	bad := 0
	for i, n := range names {
		got := Demangle(n, StyleLLVM)
		if got == want[i] {
			continue
		}
		if _, ok := rustV0Exceptions[n]; ok {
			used[n] = true
			continue
		}
		t.Errorf("Demangle(%q)\n got %q\nwant %q", n, got, want[i])
		if bad++; bad > 20 {
			t.Fatal("too many differences")
		}
	}
	for n, why := range rustV0Exceptions {
		if !used[n] {
			t.Errorf("exception %q (%s) matches no difference", n, why)
		}
	}
	t.Logf("%d names", len(names))
}

// TestRustV0Live runs llvm-cxxfilt-14 over the hand-made cases, the depth
// limit, the corpus and the names in the file $SYMTAB_RUST_NAMES (one a
// line; for checking whole binaries, e.g. the _R symbols of a toolchain's
// librustc_driver), and compares Demangle with it on each. It also proves
// the corpus is still what the tool prints.
func TestRustV0Live(t *testing.T) {
	tool := lookPath(t, "llvm-cxxfilt-14")
	var names []string
	for _, c := range rustV0Cases {
		names = append(names, c.name)
	}
	for _, n := range []int{498, 499} {
		name, _ := nestedSlices(n)
		names = append(names, name)
	}
	corpus, _ := rustV0Corpus(t)
	names = append(names, corpus...)
	if file := os.Getenv("SYMTAB_RUST_NAMES"); file != "" {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range strings.Fields(string(data)) {
			if strings.HasPrefix(n, "_R") {
				names = append(names, n)
			}
		}
	}
	want := filterTool(t, tool, names)
	bad := 0
	for i, n := range names {
		if got := Demangle(n, StyleLLVM); got != want[i] {
			if _, ok := rustV0Exceptions[n]; ok {
				continue
			}
			t.Errorf("Demangle(%q)\n got %q\nwant %q (%s)", n, got, want[i], tool)
			if bad++; bad > 20 {
				t.Fatal("too many differences")
			}
		}
	}
	t.Logf("%d names, %d identical", len(names), len(names)-bad)
}

// TestRustV0Bounded feeds names LLVM would expand without bound, or take
// quadratic time over: each generic argument a tuple of two backreferences
// to the previous one, so the printed name doubles with every argument;
// and a Punycode identifier of 7 000 code points in descending order, each
// decoded one inserted before all the others. Each must come back raw,
// quickly.
func TestRustV0Bounded(t *testing.T) {
	in := "INvC1a1bh" // after "_R"; the u8 is at 8
	prev := 8
	for range 64 {
		at := len(in)
		ref := "B" + base62(prev)
		in += "T" + ref + ref + "E"
		prev = at
	}
	in += "E"
	var desc []rune
	for r := rune(0x5000); r > 0x5000-7000; r-- {
		desc = append(desc, r)
	}
	for _, name := range []string{"_R" + in, "_RNvC1a" + rustIdent(string(desc))} {
		start := time.Now()
		if got := Demangle(name, StyleLLVM); got != name {
			t.Errorf("%.40q...: got %d bytes, want the name raw", name, len(got))
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("%.40q...: %v", name, d)
		}
	}
}

// TestRustV0Punycode round-trips identifiers through rustIdent, a Punycode
// encoder [RFC 3492] with rustc's spelling, and checks it against rustc's
// own mangling of two identifiers of features.rs.
func TestRustV0Punycode(t *testing.T) {
	for s, want := range map[string]string{"ünïcödé": "u13ncd_dma1a7bzb", "каша": "u8_80aa2a9c"} {
		if got := rustIdent(s); got != want {
			t.Errorf("rustIdent(%q) = %q, rustc mangles %q", s, got, want)
		}
	}
	var asc []rune
	for r := rune(0x4e00); r < 0x4e00+5000; r += 7 {
		asc = append(asc, r)
	}
	for _, s := range []string{"é", "_é", "a_b_é", "9é", "Größe", "名前", "😀x😀", "\u07ff\u0800\uffff\U00010000\U0010ffff", string(asc)} {
		name := "_RNvC1a" + rustIdent(s)
		if got, want := Demangle(name, StyleLLVM), "a::"+s; got != want {
			t.Errorf("Demangle(%q) = %q, want %q", name, got, want)
		}
	}
}

// rustIdent mangles s as rustc does: ASCII as is, anything else as
// Punycode with '_' for the delimiter, after "u" and the length.
func rustIdent(s string) string {
	const base, tMin, tMax = 36, 1, 26
	var basic []byte
	cps := []rune(s)
	for _, r := range cps {
		if r < 0x80 {
			basic = append(basic, byte(r))
		}
	}
	if len(basic) == len(cps) {
		return fmt.Sprintf("%d%s", len(s), s)
	}
	out := append([]byte(nil), basic...)
	if len(basic) > 0 {
		out = append(out, '_')
	}
	digit := func(d int) byte {
		if d < 26 {
			return byte('a' + d)
		}
		return byte('0' + d - 26)
	}
	n, delta, bias := 0x80, 0, 72
	for h, b := len(basic), len(basic); h < len(cps); {
		m := int(utf8.MaxRune) + 1
		for _, r := range cps {
			if int(r) >= n && int(r) < m {
				m = int(r)
			}
		}
		delta += (m - n) * (h + 1)
		n = m
		for _, r := range cps {
			if int(r) < n {
				delta++
			}
			if int(r) != n {
				continue
			}
			q := delta
			for k := base; ; k += base {
				t := min(max(k-bias, tMin), tMax)
				if q < t {
					break
				}
				out = append(out, digit(t+(q-t)%(base-t)))
				q = (q - t) / (base - t)
			}
			out = append(out, digit(q))
			// adapt [RFC 3492 6.1]
			d := delta / 2
			if h == b {
				d = delta / 700
			}
			d += d / (h + 1)
			k := 0
			for ; d > (base-tMin)*tMax/2; k += base {
				d /= base - tMin
			}
			bias = k + (base-tMin+1)*d/(d+38)
			delta = 0
			h++
		}
		delta++
		n++
	}
	sep := ""
	if out[0] == '_' || '0' <= out[0] && out[0] <= '9' {
		sep = "_"
	}
	return fmt.Sprintf("u%d%s%s", len(out), sep, out)
}

// base62 encodes n as a <base-62-number>.
func base62(n int) string {
	if n == 0 {
		return "_"
	}
	const digits = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	var b []byte
	for n--; ; n /= 62 {
		b = append([]byte{digits[n%62]}, b...)
		if n < 62 {
			break
		}
	}
	return string(b) + "_"
}

// TestRustV0Allocs: a name costs its output buffer and the string made
// from it.
func TestRustV0Allocs(t *testing.T) {
	names, _ := rustV0Corpus(t)
	name := names[len(names)/2]
	if n := testing.AllocsPerRun(100, func() { Demangle(name, StyleLLVM) }); n > 2 {
		t.Errorf("%q: %v allocations", name, n)
	}
}

func BenchmarkRustV0(b *testing.B) {
	names, _ := rustV0Corpus(b)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		Demangle(names[i%len(names)], StyleLLVM)
	}
}

// FuzzRustV0 feeds arbitrary names after "_R": nothing may panic, the
// output stays within the cap plus the suffix, valid UTF-8 in gives valid
// UTF-8 out, and a name that does not demangle comes back unchanged. With
// $SYMTAB_FUZZ_CXXFILT set it also compares each name (of the characters
// llvm-cxxfilt-14 does not split at) with llvm-cxxfilt-14, run as a
// co-process, except where our bounds gave up. Seeds are the hand-made
// cases and every 8th corpus name.
func FuzzRustV0(f *testing.F) {
	for _, c := range rustV0Cases {
		f.Add(c.name)
	}
	names, _ := rustV0Corpus(f)
	for i := 0; i < len(names); i += 8 {
		f.Add(names[i])
	}
	var oracle *cxxfilt
	if os.Getenv("SYMTAB_FUZZ_CXXFILT") != "" {
		oracle = startCxxfilt(f)
	}
	f.Fuzz(func(t *testing.T, name string) {
		if !strings.HasPrefix(name, "_R") {
			name = "_R" + name
		}
		out, ok, limited := demangleRustV0Limited(name)
		suffix := len(name) - len(strings.SplitN(name, ".", 2)[0])
		if len(out) > v0MaxOutput+suffix+3 {
			t.Fatalf("%d bytes from a %d-byte name", len(out), len(name))
		}
		if utf8.ValidString(name) && !utf8.ValidString(out) {
			t.Fatalf("%q: invalid UTF-8 %q", name, out)
		}
		got := Demangle(name, StyleLLVM)
		if !ok && got != name || ok && got != out {
			t.Fatalf("Demangle(%q) = %q, demangleRustV0 = %q, %v", name, got, out, ok)
		}
		// Past our bounds LLVM may print gigabytes: not asked.
		if oracle != nil && !limited && oracle.accepts(name) {
			if want := oracle.demangle(t, name); got != want {
				t.Fatalf("Demangle(%q)\n got %q\nwant %q (llvm-cxxfilt-14)", name, got, want)
			}
		}
	})
}

// cxxfilt is llvm-cxxfilt-14 as a co-process: it answers each line as it
// reads it.
type cxxfilt struct {
	in  io.Writer
	out *bufio.Reader
}

func startCxxfilt(f *testing.F) *cxxfilt {
	path := lookPath(f, "llvm-cxxfilt-14")
	cmd := exec.Command(path)
	in, err := cmd.StdinPipe()
	if err != nil {
		f.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		f.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { in.Close(); cmd.Wait() })
	return &cxxfilt{in, bufio.NewReader(out)}
}

// accepts reports whether llvm-cxxfilt-14 sees name as one word: it
// splits at anything but letters, digits, '_', '.' and '$'.
func (c *cxxfilt) accepts(name string) bool {
	for i := 0; i < len(name); i++ {
		if !isIdentByte(name[i]) && name[i] != '.' && name[i] != '$' {
			return false
		}
	}
	return true
}

func (c *cxxfilt) demangle(t *testing.T, name string) string {
	if _, err := io.WriteString(c.in, name+"\n"); err != nil {
		t.Fatal(err)
	}
	line, err := c.out.ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSuffix(line, "\n")
}
