package main

import (
	"bytes"
	"os"
	"slices"
	"strings"
)

// This file reads the command line as llvm-symbolizer 14's option table
// (LLVM's OptTable with grouped short options) does, so that every
// spelling it accepts is accepted here with the same meaning, and every
// one it rejects is rejected with the same message.

// optID is an option after its aliases are resolved.
type optID uint8

const (
	optUnknown optID = iota
	optAddresses
	optAdjustVMA
	optBasenames
	optDebugFileDirectory
	optDebugFileSymbols // ours: not an llvm-symbolizer option
	optIdentity         // ours: print identity records (see main.go)
	optDebuginfod       // --debuginfod: not in LLVM 14 (see main.go)
	optNoDebuginfod     // --no-debuginfod: likewise
	optDefaultArch
	optDemangle
	optDIA
	optDsymHint
	optDWP
	optFallbackDebugPath
	optFunctions   // --functions, -f: linkage names, whatever --functions= says
	optFunctionsEq // --functions=KIND, -f=KIND
	optHelp
	optInlines
	optNoDemangle
	optNoInlines
	optNoUntagAddresses
	optObj
	optOutputStyle
	optPrettyPrint
	optPrintSourceContextLines
	optRelativeAddress
	optRelativenames
	optUntagAddresses
	optVerbose
	optVersion
)

// optKind is how an option takes its value, as in LLVM's OptTable.
type optKind uint8

const (
	kindFlag             optKind = iota // no value; the argument must be exactly the option
	kindJoined                          // the value is the rest of the argument (--obj=FILE)
	kindSeparate                        // the value is the next argument (--obj FILE)
	kindJoinedOrSeparate                // either (-eFILE, -e FILE)
)

// optSpec is one spelling: a prefix ("-" or "--") and a name.
type optSpec struct {
	prefix, name string
	kind         optKind
	id           optID
}

// options are llvm-symbolizer 14's spellings (its Opts.td, aliases
// included; -demangle=true/false and --inlining=true/false are
// compatibility flags of their own), plus our --debug-file-symbols and
// later LLVMs' --debuginfod and --no-debuginfod. Only
// the two -demangle= flags and the one-letter options take a single dash.
// The order is LLVM's sort order (optionLess), which decides which
// spelling a misspelling is said to resemble.
var options = func() []optSpec {
	t := []optSpec{
		{"--", "addresses", kindFlag, optAddresses},
		{"-", "a", kindFlag, optAddresses},
		{"--", "print-address", kindFlag, optAddresses},
		{"--", "adjust-vma=", kindJoined, optAdjustVMA},
		{"--", "adjust-vma", kindSeparate, optAdjustVMA},
		{"--", "basenames", kindFlag, optBasenames},
		{"-", "s", kindFlag, optBasenames},
		{"--", "debug-file-directory=", kindJoined, optDebugFileDirectory},
		{"--", "debug-file-directory", kindSeparate, optDebugFileDirectory},
		{"--", "debug-file-symbols", kindFlag, optDebugFileSymbols},
		{"--", "debuginfod", kindFlag, optDebuginfod},
		{"--", "no-debuginfod", kindFlag, optNoDebuginfod},
		{"--", "default-arch=", kindJoined, optDefaultArch},
		{"--", "default-arch", kindSeparate, optDefaultArch},
		{"--", "demangle", kindFlag, optDemangle},
		{"-", "C", kindFlag, optDemangle},
		{"-", "demangle=true", kindFlag, optDemangle},
		{"--", "no-demangle", kindFlag, optNoDemangle},
		{"-", "demangle=false", kindFlag, optNoDemangle},
		{"--", "dia", kindFlag, optDIA},
		{"--", "dsym-hint=", kindJoined, optDsymHint},
		{"--", "dsym-hint", kindSeparate, optDsymHint},
		{"--", "dwp=", kindJoined, optDWP},
		{"--", "dwp", kindSeparate, optDWP},
		{"--", "fallback-debug-path=", kindJoined, optFallbackDebugPath},
		{"--", "fallback-debug-path", kindSeparate, optFallbackDebugPath},
		{"--", "functions", kindFlag, optFunctions},
		{"-", "f", kindFlag, optFunctions},
		{"--", "functions=", kindJoined, optFunctionsEq},
		{"-", "f=", kindJoined, optFunctionsEq},
		{"--", "help", kindFlag, optHelp},
		{"--", "identity", kindFlag, optIdentity},
		{"-", "h", kindFlag, optHelp},
		{"--", "inlines", kindFlag, optInlines},
		{"-", "i", kindFlag, optInlines},
		{"--", "inlining", kindFlag, optInlines},
		{"--", "inlining=true", kindFlag, optInlines},
		{"--", "no-inlines", kindFlag, optNoInlines},
		{"--", "inlining=false", kindFlag, optNoInlines},
		{"--", "obj=", kindJoined, optObj},
		{"--", "obj", kindSeparate, optObj},
		{"--", "exe=", kindJoined, optObj},
		{"--", "exe", kindSeparate, optObj},
		{"-", "e=", kindJoined, optObj},
		{"-", "e", kindJoinedOrSeparate, optObj},
		{"--", "output-style=", kindJoined, optOutputStyle},
		{"--", "output-style", kindSeparate, optOutputStyle},
		{"--", "pretty-print", kindFlag, optPrettyPrint},
		{"-", "p", kindFlag, optPrettyPrint},
		{"--", "print-source-context-lines=", kindJoined, optPrintSourceContextLines},
		{"--", "print-source-context-lines", kindSeparate, optPrintSourceContextLines},
		{"--", "relative-address", kindFlag, optRelativeAddress},
		{"--", "relativenames", kindFlag, optRelativenames},
		{"--", "untag-addresses", kindFlag, optUntagAddresses},
		{"--", "no-untag-addresses", kindFlag, optNoUntagAddresses},
		{"--", "verbose", kindFlag, optVerbose},
		{"--", "version", kindFlag, optVersion},
		{"-", "v", kindFlag, optVersion},
	}
	slices.SortStableFunc(t, func(a, b optSpec) int { return optionCompare(a.name, b.name) })
	return t
}()

// optionCompare orders option names as LLVM's option tables are sorted:
// ignoring ASCII case, and a name sorts after every longer name it is a
// prefix of ("e=" before "e", "inlines" before "inline").
func optionCompare(a, b string) int {
	for i := 0; ; i++ {
		switch {
		case i == len(a) && i == len(b):
			return 0
		case i == len(a):
			return 1
		case i == len(b):
			return -1
		}
		x, y := lower(a[i]), lower(b[i])
		if x != y {
			if x < y {
				return -1
			}
			return 1
		}
	}
}

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// canonical is the spelling LLVM gives an option in its messages: its
// first, non-alias spelling ("--adjust-vma=" for --adjust-vma and
// --adjust-vma=).
var canonical = map[optID]string{
	optAdjustVMA:               "--adjust-vma=",
	optPrintSourceContextLines: "--print-source-context-lines=",
}

// parsedArg is one option or input found on the command line.
type parsedArg struct {
	id    optID
	value string
	input bool // an address (anything not starting with '-', and "-")
}

// parseOptions splits args into options and inputs the way LLVM 14's
// OptTable::parseArgs does with grouped short options. It returns every
// problem in LLVM's words and order: a missing value first (which ends
// the parse), then each unknown argument, with the spelling it is one edit
// away from when there is one.
func parseOptions(args []string) (out []parsedArg, errs []string) {
	args = slices.Clone(args) // grouped options rewrite their argument
	var unknown []string
	for i := 0; i < len(args); {
		a := args[i]
		if a == "" {
			i++ // empty arguments are ignored (a value may still be empty)
			continue
		}
		if a[0] != '-' || a == "-" {
			out = append(out, parsedArg{value: a, input: true})
			i++
			continue
		}
		p, next, missing := parseOne(args, i)
		if missing {
			errs = append(errs, args[i]+": missing argument")
			break
		}
		if p.id == optUnknown {
			unknown = append(unknown, p.value)
		} else {
			out = append(out, p)
		}
		i = next
	}
	for _, u := range unknown {
		if near, d := nearest(u); d <= 1 {
			errs = append(errs, "unknown argument '"+u+"', did you mean '"+near+"'?")
		} else {
			errs = append(errs, "unknown argument '"+u+"'")
		}
	}
	return out, errs
}

// parseOne reads the option that starts args[i] (which begins with '-').
// A group of one-letter flags (-apf) yields its first letter and leaves
// the rest in args[i] as "-pf"; next is then i again. missing is true when
// an option that takes the next argument as its value is last.
func parseOne(args []string, i int) (p parsedArg, next int, missing bool) {
	a := args[i]
	fallback := -1
	for k := range options {
		o := &options[k]
		spell := o.prefix + o.name
		if !strings.HasPrefix(a, spell) {
			continue
		}
		exact := len(a) == len(spell)
		switch o.kind {
		case kindFlag:
			if exact {
				return parsedArg{id: o.id}, i + 1, false
			}
			if len(spell) == 2 {
				fallback = k // -a of -abc, unless a longer option matches
			}
			continue
		case kindJoined:
			return parsedArg{id: o.id, value: a[len(spell):]}, i + 1, false
		case kindJoinedOrSeparate:
			if !exact {
				return parsedArg{id: o.id, value: a[len(spell):]}, i + 1, false
			}
		case kindSeparate:
			if !exact {
				continue
			}
		}
		if i+1 >= len(args) {
			return parsedArg{}, i, true
		}
		return parsedArg{id: o.id, value: args[i+1]}, i + 2, false
	}
	if fallback >= 0 {
		if a[2] == '=' {
			// A one-letter flag given a value (-a=1) is unknown whole.
			return parsedArg{value: a}, i + 1, false
		}
		args[i] = "-" + a[2:]
		return parsedArg{id: options[fallback].id}, i, false
	}
	if a[1] != '-' {
		// An unknown letter is reported alone and the group goes on;
		// the "-" left of a two-letter argument is an input, but the
		// unknown letter fails the command anyway.
		args[i] = "-" + a[2:]
		return parsedArg{value: a[:2]}, i, false
	}
	return parsedArg{value: a}, i + 1, false
}

// nearest returns the spelling closest to the unknown argument u by edit
// distance, as LLVM's OptTable::findNearest does: names shorter than four
// characters are not proposed, and for an option that ends in '=' only
// the part of u before its first '=' is compared (one more edit when u
// has no value there), the value being carried over to the proposal.
func nearest(u string) (string, int) {
	best, bestD := "", int(^uint(0)>>1)
	for _, o := range options {
		if len(o.name) < 4 {
			continue
		}
		norm, rest := u, ""
		delim := o.name[len(o.name)-1] == '='
		if delim {
			if lhs, rhs, ok := strings.Cut(u, "="); ok {
				norm, rest = lhs+"=", rhs
			}
		}
		cand := o.prefix + o.name
		d := editDistance(cand, norm)
		if delim && rest == "" {
			d++
		}
		if d < bestD {
			best, bestD = cand+rest, d
		}
	}
	return best, bestD
}

// editDistance is the Levenshtein distance (insertions, deletions and
// replacements) between a and b, in bytes.
func editDistance(a, b string) int {
	row := make([]int, len(b)+1)
	for j := range row {
		row[j] = j
	}
	for i := 1; i <= len(a); i++ {
		diag := row[0]
		row[0] = i
		for j := 1; j <= len(b); j++ {
			up := row[j]
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			row[j] = min(row[j]+1, row[j-1]+1, diag+cost)
			diag = up
		}
	}
	return row[len(b)]
}

// expandArgs returns the arguments LLVM 14's tools parse: the options in
// the environment variable env (LLVM_SYMBOLIZER_OPTS or
// LLVM_ADDR2LINE_OPTS) first, so that the command line overrides them,
// then args, with every @FILE replaced by the arguments FILE holds.
func expandArgs(env string, hasEnv bool, args []string) []string {
	var all []string
	if hasEnv {
		all = tokenizeGNU(env, nil)
	}
	return expandResponseFiles(append(all, args...), nil)
}

// maxResponseDepth bounds the nesting of response files (a cycle is
// already stopped; this bounds a long chain of distinct files).
const maxResponseDepth = 64

// expandResponseFiles replaces each argument @FILE by the arguments FILE
// holds, tokenized as GNU tools do, expanding @FILEs inside it in turn.
// An @FILE that cannot be read, or that is already being expanded (a
// cycle), stays as it is. Nested names are relative to the current
// directory, as LLVM 14 resolves them.
func expandResponseFiles(args, stack []string) []string {
	var out []string
	for _, a := range args {
		name, ok := strings.CutPrefix(a, "@")
		if !ok || slices.Contains(stack, name) || len(stack) >= maxResponseDepth {
			out = append(out, a)
			continue
		}
		data, err := os.ReadFile(name)
		if err != nil {
			out = append(out, a)
			continue
		}
		data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")) // a UTF-8 byte order mark
		out = append(out, expandResponseFiles(tokenizeGNU(string(data), nil), append(stack, name))...)
	}
	return out
}

// tokenizeGNU splits s into arguments as LLVM's TokenizeGNUCommandLine
// does: spaces, tabs, CRs and newlines separate them; a backslash takes the
// next character literally, also inside quotes; '...' and "..." quote
// (without ending the argument); an argument left empty is dropped.
func tokenizeGNU(s string, out []string) []string {
	var tok []byte
	isSpace := func(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }
	for i := 0; i < len(s); i++ {
		if len(tok) == 0 {
			for i < len(s) && isSpace(s[i]) {
				i++
			}
			if i == len(s) {
				break
			}
		}
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s):
			i++
			tok = append(tok, s[i])
		case c == '"' || c == '\'':
			for i++; i < len(s) && s[i] != c; i++ {
				if s[i] == '\\' && i+1 < len(s) {
					i++
				}
				tok = append(tok, s[i])
			}
		case isSpace(c):
			if len(tok) > 0 {
				out = append(out, string(tok))
			}
			tok = tok[:0]
		default:
			tok = append(tok, c)
		}
	}
	if len(tok) > 0 {
		out = append(out, string(tok))
	}
	return out
}
