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

var (
	llvmOpts = []demangle.Option{demangle.LLVMStyle, demangle.NoRust, demangle.MaxLength(maxDemangled)}
	gnuOpts  = []demangle.Option{demangle.MaxLength(maxDemangled)}
)

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
	case strings.HasPrefix(name, "___Z"):
		return spaceTemplateClose(demangle.Filter(name, llvmOpts...))
	case !strings.HasPrefix(name, "_Z"):
		return name
	case strings.HasPrefix(name, "_ZGTt"):
		// Transactional-memory clones (libstdc++ has them): LLVM 14's
		// grammar lacks GTt, so it prints the name raw.
		return name
	}
	out, err := demangle.ToString(name, llvmOpts...)
	suffix := ""
	if err != nil {
		// The library rejects some clone suffixes LLVM accepts (a Rust
		// legacy name's ".llvm.N"); LLVM makes anything after the encoding
		// a suffix. Itanium identifiers may contain '.', so try the few
		// last dots, longest base first.
		for end, tries := len(name), 0; tries < 4; tries++ {
			i := strings.LastIndexByte(name[:end], '.')
			if i < 0 {
				break
			}
			if o, e := demangle.ToString(name[:i], llvmOpts...); e == nil {
				out, err, suffix = o, nil, name[i:]
				break
			}
			end = i
		}
		if err != nil {
			return name
		}
	}
	out = spaceTemplateClose(out)
	// LLVM 14 glues an operator<< or operator< to its template arguments.
	out = strings.ReplaceAll(out, "operator<< <", "operator<<<")
	out = strings.ReplaceAll(out, "operator< <", "operator<<")
	// LLVM 14 prints all clone suffixes as one, "foo() (.isra.0.cold)",
	// where the library prints "foo() (.isra.0) (.cold)".
	out = joinClones(out)
	if suffix != "" {
		out += " (" + suffix + ")"
	}
	return out
}

// joinClones turns trailing " (.isra.0) (.cold)" into " (.isra.0.cold)".
func joinClones(s string) string {
	end := len(s)
	var groups []string
	for strings.HasSuffix(s[:end], ")") {
		i := strings.LastIndex(s[:end], " (.")
		if i < 0 || strings.ContainsAny(s[i+2:end-1], "()") {
			break
		}
		groups = append(groups, s[i+2:end-1])
		end = i
	}
	if len(groups) < 2 {
		return s
	}
	var b strings.Builder
	b.WriteString(s[:end])
	b.WriteString(" (")
	for i := len(groups) - 1; i >= 0; i-- {
		b.WriteString(groups[i])
	}
	b.WriteByte(')')
	return b.String()
}

// spaceTemplateClose writes "> >" where two template argument lists close
// together. LLVM 14's Itanium printer does that (to keep C++03 parsers
// happy); LLVM 15 stopped, and the LLVMStyle option of
// ianlancetaylor/demangle follows the newer LLVM. An operator>> or
// operator>>= keeps its spelling.
func spaceTemplateClose(s string) string {
	if !strings.Contains(s, ">>") {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); i++ {
		if s[i] == '>' && i > 0 && s[i-1] == '>' && !strings.HasSuffix(s[:i-1], "operator") {
			b.WriteByte(' ')
		}
		b.WriteByte(s[i])
	}
	return b.String()
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
