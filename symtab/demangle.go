package symtab

import (
	"strings"

	"github.com/ianlancetaylor/demangle"
)

// Style selects whose demangled spelling Demangle reproduces.
type Style uint8

// Demangling styles.
const (
	// StyleLLVM prints names as llvm-symbolizer 14 and llvm-cxxfilt-14 do:
	// only _Z (Itanium C++), ___Z (clang block invocations) and _R (Rust
	// v0) names are demangled; clone suffixes print as "foo() (.cold)";
	// lambdas as "'lambda'(int)"; Rust legacy names (_ZN...17h<hash>E) go
	// through the Itanium grammar, so they keep their hash and their $LT$
	// escapes; Rust v0 names lose their crate disambiguators and keep a
	// ".llvm.N" suffix as " (.llvm.N)".
	StyleLLVM Style = iota
	// StyleGNU prints names as GNU c++filt and addr2line -C do: clone
	// suffixes as "foo() [clone .cold]", lambdas as "{lambda(int)#1}",
	// and Rust legacy escapes decoded, hash kept.
	StyleGNU
)

// maxDemangled caps a demangled name at 1 MiB: Itanium substitutions let a
// short mangled name expand exponentially, and this bounds the work.
const maxDemangled = 20 // as a power of two, for demangle.MaxLength

var gnuOpts = []demangle.Option{demangle.MaxLength(maxDemangled)}

// Demangle returns the human-readable form of a linkage name in the given
// style, or name itself when it is not a mangled name or does not parse.
// It allocates; call it once per printed frame, not per lookup.
//
// There is no short (parameter-less) form: llvm-symbolizer 14's
// --functions=short prints DWARF's DW_AT_name and ignores the symbol table
// altogether (a binary without DWARF prints "??"), so it is not a
// demangling of linkage names.
func Demangle(name string, style Style) string {
	if style == StyleGNU {
		switch {
		case strings.HasPrefix(name, "___Z"):
			return name // clang blocks: libiberty does not know them
		case strings.HasPrefix(name, "_R"):
			// Our own printer (rustv0_gnu.go), as for StyleLLVM.
			if out, ok := demangleRustV0GNU(name); ok {
				return out
			}
			return name
		}
		out := demangle.Filter(name, gnuOpts...)
		// GNU keeps a Rust legacy name's hash, "foo::h0123456789abcdef";
		// the library drops it.
		if h := rustLegacyHash(name); h != "" && out != name && !strings.HasSuffix(out, "::"+h) {
			out += "::" + h
		}
		return out
	}
	// LLVM 14's nonMicrosoftDemangle tries Itanium for "_Z" and "___Z" and
	// its Rust demangler for "_R"; everything else prints as it is (its D
	// demangler decodes nothing in 14, see TestDemangleLLVM).
	switch {
	case strings.HasPrefix(name, "_R"):
		// Our own printer (rustv0.go): the library orders nested closures
		// and prints empty generic arguments differently from LLVM 14.
		if out, ok := demangleRustV0(name); ok {
			return out
		}
		return name
	case strings.HasPrefix(name, "_Z") || strings.HasPrefix(name, "___Z"):
		// Our own port of LLVM 14's Itanium demangler (itanium.go):
		// it fails where LLVM 14 fails, and then the name prints raw.
		if out, ok := demangleItanium(name); ok {
			return out
		}
	}
	return name
}

// AppendDemangle appends Demangle(name, style) to dst. An Itanium name in
// StyleLLVM is printed into dst, without the string Demangle allocates.
func AppendDemangle(dst []byte, name string, style Style) []byte {
	if style == StyleLLVM && (strings.HasPrefix(name, "_Z") || strings.HasPrefix(name, "___Z")) {
		if out, st := appendItaniumStatus(dst, name); st == itaniumOK {
			return out
		}
		return append(dst, name...)
	}
	return append(dst, Demangle(name, style)...)
}

// rustLegacyHash returns the "h0123456789abcdef" of a Rust legacy name,
// _ZN...17h<16 hex digits>E with an optional ".suffix", or "".
func rustLegacyHash(name string) string {
	if !strings.HasPrefix(name, "_ZN") {
		return ""
	}
	if i := strings.LastIndex(name, "E."); i > 0 {
		name = name[:i+1]
	}
	if len(name) < 24 || !strings.HasSuffix(name, "E") || name[len(name)-20:len(name)-17] != "17h" {
		return ""
	}
	h := name[len(name)-18 : len(name)-1]
	for _, c := range h[1:] {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return ""
		}
	}
	return h
}
