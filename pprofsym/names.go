package pprofsym

import (
	"strings"

	"github.com/ianlancetaylor/demangle"
)

// simplify are the demangler options of pprof's default display names
// (-symbolize=demangle=default): no parameters, no template arguments, no
// return types.
var simplify = []demangle.Option{demangle.NoParams, demangle.NoEnclosingParams, demangle.NoTemplateParams}

// displayName returns the name the standalone pprof shows for a function
// whose system (linkage) name is sys, after its local symbolization: sys
// demangled and simplified (no parameters, no template arguments), also
// with one leading underscore dropped (Mach-O's prefix); a name that does
// not demangle but reads like demangled C++ ("a::b(int)", "v<int>") loses
// its parenthesized and angle-bracketed groups; any other name is sys.
func displayName(sys string) string {
	if d := demangle.Filter(sys, simplify...); d != sys {
		return d
	}
	if rest, ok := strings.CutPrefix(sys, "_"); ok {
		if d := demangle.Filter(rest, simplify...); d != rest {
			return d
		}
	}
	if !readsAsCPlusPlus(sys) {
		return sys
	}
	return dropGroups(dropGroups(sys, '(', ')'), '<', '>')
}

// readsAsCPlusPlus reports whether a name that did not demangle reads like
// demangled C++, as pprof judges it: it has "::" or a bracket, and is
// neither a Java name ("Class.<init>") nor a Go method of a generic type
// ("pkg.(*T[...]).M").
func readsAsCPlusPlus(name string) bool {
	if strings.Contains(name, ".<") || strings.Contains(name, "]).") {
		return false
	}
	return strings.Contains(name, "::") || strings.ContainsAny(name, "<>[]")
}

// dropGroups removes each outermost open...close group of name, nested
// groups with it. At a close with no open before it, the rest of name is
// kept as it is; an open never closed is kept.
func dropGroups(name string, open, close byte) string {
	var b strings.Builder
	depth, from, start := 0, 0, 0
	for i := 0; i < len(name); i++ {
		switch name[i] {
		case open:
			if depth == 0 {
				start = i
			}
			depth++
		case close:
			depth--
			if depth < 0 {
				b.WriteString(name[from:])
				return b.String()
			}
			if depth == 0 {
				b.WriteString(name[from:start])
				from = i + 1
			}
		}
	}
	if from == 0 {
		return name
	}
	b.WriteString(name[from:])
	return b.String()
}
