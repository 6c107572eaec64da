package symtab

import (
	"strings"
	"testing"
)

// demangleCases: the LLVM column is llvm-cxxfilt-14's output and the GNU
// column c++filt's (binutils 2.38), both pasted verbatim, except where a
// comment says otherwise. They keep the behaviour pinned on machines
// without the tools; oracle_test.go compares against the tools themselves.
var demangleCases = []struct{ name, llvm, gnu string }{
	{"_Z3foov.cold", "foo() (.cold)", "foo() [clone .cold]"},
	{"_ZL6cloneeii.constprop.0", "clonee(int, int) (.constprop.0)", "clonee(int, int) [clone .constprop.0]"},
	{"_Z3foov.isra.0.cold", "foo() (.isra.0.cold)", "foo() [clone .isra.0] [clone .cold]"},
	{"_Z3foov.part.0", "foo() (.part.0)", "foo() [clone .part.0]"},
	{"_ZZ4mainENKUliE_clEi", "main::'lambda'(int)::operator()(int) const", "main::{lambda(int)#1}::operator()(int) const"},
	{"_Z5applyIZ7lambdasiEUliE0_EiT_i.constprop.0", "int apply<lambdas(int)::'lambda0'(int)>(lambdas(int)::'lambda0'(int), int) (.constprop.0)", "int apply<lambdas(int)::{lambda(int)#2}>(lambdas(int)::{lambda(int)#2}, int) [clone .constprop.0]"},
	{"_ZNK2ns3BoxIdLi3EE3sumEv", "ns::Box<double, 3>::sum() const", "ns::Box<double, 3>::sum() const"},
	{"_ZNSt6vectorIiSaIiEE9push_backERKi", "std::vector<int, std::allocator<int> >::push_back(int const&)", "std::vector<int, std::allocator<int> >::push_back(int const&)"},
	{"_ZStlsISt11char_traitsIcEERSt13basic_ostreamIcT_ES5_PKc", "std::basic_ostream<char, std::char_traits<char> >& std::operator<<<std::char_traits<char> >(std::basic_ostream<char, std::char_traits<char> >&, char const*)", "std::basic_ostream<char, std::char_traits<char> >& std::operator<< <std::char_traits<char> >(std::basic_ostream<char, std::char_traits<char> >&, char const*)"},
	{"_ZN2nsltERKNS_1AES2_", "ns::operator<(ns::A const&, ns::A const&)", "ns::operator<(ns::A const&, ns::A const&)"},
	{"___Z3foov_block_invoke", "invocation function for block in foo()", "___Z3foov_block_invoke"},
	{"_ZN3std2rt10lang_start17h0123456789abcdefE", "std::rt::lang_start::h0123456789abcdef", "std::rt::lang_start::h0123456789abcdef"},
	{"_ZN9hashbrown3raw21RawTable$LT$T$C$A$GT$14reserve_rehash17h4e4a38f25ec0cfbaE.llvm.15278468333606839129", "hashbrown::raw::RawTable$LT$T$C$A$GT$::reserve_rehash::h4e4a38f25ec0cfba (.llvm.15278468333606839129)", "hashbrown::raw::RawTable<T,A>::reserve_rehash::h4e4a38f25ec0cfba"},
	// GNU prints the crate disambiguator, mycrate[3c1c0]::foo; the
	// library cannot (an exception in oracle_test.go).
	{"_RNvCs1234_7mycrate3foo", "mycrate::foo", "mycrate::foo"},
	{"_RNvCs1234_7mycrate3foo.llvm.123", "mycrate::foo (.llvm.123)", "mycrate::foo"},
	// LLVM 14 does not know transaction clones; GNU and the library do.
	{"_ZGTtnam", "_ZGTtnam", "transaction clone for operator new[](unsigned long)"},
	{"_D3foo3barFZv", "_D3foo3barFZv", "_D3foo3barFZv"},
	{"main.cold", "main.cold", "main.cold"},
	{"_GLOBAL__sub_I_a.c", "_GLOBAL__sub_I_a.c", "_GLOBAL__sub_I_a.c"},
	{"_Zfoo", "_Zfoo", "_Zfoo"},
	{"", "", ""},
	// The template-close spacing must not touch operator>>.
	{"_ZN2nsrsERNS_1AEi", "ns::operator>>(ns::A&, int)", "ns::operator>>(ns::A&, int)"},
	{"_ZN1XIS_IiEErsEi", "X<X<int> >::operator>>(int)", "X<X<int> >::operator>>(int)"},
}

func TestDemangle(t *testing.T) {
	for _, c := range demangleCases {
		if got := Demangle(c.name, StyleLLVM); got != c.llvm {
			t.Errorf("Demangle(%q, StyleLLVM)\n got %q\nwant %q", c.name, got, c.llvm)
		}
		if got := Demangle(c.name, StyleGNU); got != c.gnu {
			t.Errorf("Demangle(%q, StyleGNU)\n got %q\nwant %q", c.name, got, c.gnu)
		}
	}
}

// TestAppendDemangle requires Demangle's answers after what dst held.
func TestAppendDemangle(t *testing.T) {
	for _, c := range demangleCases {
		for _, style := range []Style{StyleLLVM, StyleGNU} {
			got := string(AppendDemangle([]byte("x:"), c.name, style))
			if want := "x:" + Demangle(c.name, style); got != want {
				t.Errorf("AppendDemangle(%q, %d) = %q, want %q", c.name, style, got, want)
			}
		}
	}
}

// TestAppendDemangleAllocs: the printer writes into dst, so the one
// allocation saved is the result.
func TestAppendDemangleAllocs(t *testing.T) {
	if raceOn {
		t.Skip("sync.Pool drops the demangler at random under the race detector")
	}
	buf := make([]byte, 0, 1024)
	for _, name := range []string{"_Z3foov", "_ZNSt6vectorIiSaIiEE9push_backERKi"} {
		d := testing.AllocsPerRun(100, func() { _ = Demangle(name, StyleLLVM) })
		a := testing.AllocsPerRun(100, func() { buf = AppendDemangle(buf[:0], name, StyleLLVM) })
		if a != d-1 {
			t.Errorf("%s: AppendDemangle %v allocations, Demangle %v", name, a, d)
		}
	}
}

// TestDemangleBounded feeds a name whose substitutions expand
// exponentially; the output must stay within the 1 MiB cap.
func TestDemangleBounded(t *testing.T) {
	name := "_Z1fIJ" + strings.Repeat("PFvS_E", 40) + "EEvv"
	for _, style := range []Style{StyleLLVM, StyleGNU} {
		if got := Demangle(name, style); len(got) > 1<<20+64 {
			t.Errorf("style %d: %d bytes", style, len(got))
		}
	}
}
