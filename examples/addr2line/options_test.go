package main

import (
	"slices"
	"strings"
	"testing"
)

func TestTokenizeGNU(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{"", nil},
		{" a  b\t\nc\r\n", []string{"a", "b", "c"}},
		{`'a b' "c d"e`, []string{"a b", "c de"}},
		{`a\ b \'c\' "x\"y" 'p\q'`, []string{"a b", "'c'", `x"y`, "pq"}}, // backslash escapes inside quotes too
		{`"" '' x ""y`, []string{"x", "y"}},                              // empty arguments dropped
		{`tail\`, []string{`tail\`}},                                     // a final backslash is literal
		{`"open quote`, []string{"open quote"}},
		{"a\\\nb", []string{"a\nb"}},
	} {
		if got := tokenizeGNU(c.in, nil); !slices.Equal(got, c.want) {
			t.Errorf("tokenizeGNU(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestOptionOrder(t *testing.T) {
	// LLVM's table order: a name before any name it is a prefix of comes
	// after it, and case is ignored.
	for _, c := range [][2]string{{"e=", "e"}, {"inlines", "inline"}, {"C", "d"}, {"a", "B"}, {"functions=", "functions"}} {
		if optionCompare(c[0], c[1]) >= 0 || optionCompare(c[1], c[0]) <= 0 {
			t.Errorf("optionCompare(%q, %q) does not order them", c[0], c[1])
		}
	}
	if !slices.IsSortedFunc(options, func(a, b optSpec) int { return optionCompare(a.name, b.name) }) {
		t.Error("options are not in LLVM's order")
	}
}

// FuzzParseOptions: any arguments (NUL-separated); nothing panics, every
// argument that cannot be an option is an input, in order, and every
// error is one of LLVM's three shapes.
func FuzzParseOptions(f *testing.F) {
	for _, s := range []string{"-apfi\x00-e\x00bin\x000x10", "--obj=x\x00--verbos", "-a=1\x00-yq\x00--", "-ae",
		"--print-source-context-lines\x00-3\x00-f=short", "-\x00\x00--exe"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		args := strings.Split(s, "\x00")
		parsed, errs := parseOptions(args)
		var inputs []string
		for _, p := range parsed {
			if p.input {
				inputs = append(inputs, p.value)
			}
		}
		if len(errs) == 0 {
			var want []string
			for i := 0; i < len(args); i++ {
				if a := args[i]; a != "" && (a[0] != '-' || a == "-") && !valueOf(args, i) {
					want = append(want, a)
				}
			}
			if !slices.Equal(inputs, want) {
				t.Fatalf("parseOptions(%q) inputs %q, want %q", args, inputs, want)
			}
		}
		for _, e := range errs {
			if !strings.HasPrefix(e, "unknown argument '") && !strings.HasSuffix(e, ": missing argument") {
				t.Fatalf("parseOptions(%q): error %q", args, e)
			}
		}
		if len(errs) > 0 {
			parseArgs(args, false)
		}
	})
}

// valueOf reports whether args[i] is the value of the option before it
// (an option taking the next argument).
func valueOf(args []string, i int) bool {
	if i == 0 {
		return false
	}
	prev := args[i-1]
	for _, o := range options {
		if (o.kind == kindSeparate || o.kind == kindJoinedOrSeparate) && prev == o.prefix+o.name {
			return !valueOf(args, i-1)
		}
	}
	// A group ending in -e (-ae) takes the next argument too.
	if len(prev) > 2 && prev[0] == '-' && prev[1] != '-' && strings.HasSuffix(prev, "e") && !valueOf(args, i-1) {
		return groupEndsInE(prev)
	}
	return false
}

// groupEndsInE reports whether a group of one-letter flags ends with the
// -e that takes the next argument: every letter before it a flag.
func groupEndsInE(g string) bool {
	for _, c := range g[1 : len(g)-1] {
		if !strings.ContainsRune("aCfhipsv", c) {
			return false
		}
	}
	return true
}
