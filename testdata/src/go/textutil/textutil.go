// Package textutil has string helpers, some inlinable, some recursive.
package textutil

import (
	"strings"
	"unicode"
)

// IsWord reports whether r may appear in a word; it is inlined.
func IsWord(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' }

// Words splits s into words.
func Words(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return !IsWord(r) })
}

// Freq counts word frequencies, case-folded.
func Freq(words []string) map[string]int {
	m := make(map[string]int, len(words))
	for _, w := range words {
		m[strings.ToLower(w)]++
	}
	return m
}

// Reverse reverses s by recursion on halves, giving a real (non-inlined)
// recursive call stack.
//
//go:noinline
func Reverse(s string) string {
	if len(s) <= 1 {
		return s
	}
	mid := len(s) / 2
	return Reverse(s[mid:]) + Reverse(s[:mid])
}
