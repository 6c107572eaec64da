package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestAppendContext(t *testing.T) {
	src := []byte("one\ntwo\r\nthree\nfour\nfive\nsix\nseven\neight\nnine\nten\neleven")
	for _, c := range []struct {
		line uint32
		n    int
		want string
	}{
		{3, 1, "3 >: three\n"},
		{3, 2, "2  : two\n3 >: three\n"}, // '\r' dropped
		{3, 3, "2  : two\n3 >: three\n4  : four\n"},
		{1, 4, "1 >: one\n2  : two\n3  : three\n4  : four\n"},
		// Lines 1-10: LLVM's width is ceil(log10(10)) = 1, too narrow for 10.
		{5, 10, "1  : one\n2  : two\n3  : three\n4  : four\n5 >: five\n6  : six\n7  : seven\n8  : eight\n9  : nine\n10  : ten\n"},
		{10, 3, " 9  : nine\n10 >: ten\n11  : eleven\n"}, // the last line has no newline
		{11, 5, " 9  : nine\n10  : ten\n11 >: eleven\n"},
		{0, 2, "1  : one\n2  : two\n"}, // no line: the first lines, none marked
		{1, 1, "1 >: one\n"},
		{13, 2, ""}, // past the end
		{12, 1, ""},
		{3, 0, ""},
		{3, -4, ""},
	} {
		if got := string(appendContext(nil, src, c.line, c.n)); got != c.want {
			t.Errorf("line %d, n %d:\n got %q\nwant %q", c.line, c.n, got, c.want)
		}
	}
	if got := appendContext([]byte("x"), nil, 1, 3); string(got) != "x" {
		t.Errorf("no file: %q", got)
	}
	// A final newline ends the last line; it does not start one.
	if got := string(appendContext(nil, []byte("a\nb\n"), 3, 1)); got != "" {
		t.Errorf("line after the final newline: %q", got)
	}
}

// FuzzAppendContext: any file, line and count; nothing panics, at most n
// lines come out, each numbered in order from max(1, line-n/2), and the
// marked one is the line asked for.
func FuzzAppendContext(f *testing.F) {
	f.Add([]byte("a\nb\r\nc"), uint32(2), 3)
	f.Add([]byte(""), uint32(0), 1)
	f.Add([]byte("\n\n\n"), uint32(4), 2)
	f.Fuzz(func(t *testing.T, src []byte, line uint32, n int) {
		if n > 1<<16 {
			n = 1 << 16 // the count costs time, not memory, beyond the file
		}
		out := appendContext(nil, src, line, n)
		if len(out) == 0 {
			return
		}
		lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
		if len(lines) > n || len(lines) > bytes.Count(src, []byte("\n"))+1 {
			t.Fatalf("%d lines for n=%d from %d bytes", len(lines), n, len(src))
		}
		first := max(1, int64(line)-int64(n/2))
		for i, l := range lines {
			num, rest, ok := strings.Cut(strings.TrimLeft(l, " "), " ")
			if !ok || num != itoa(first+int64(i)) {
				t.Fatalf("line %d is %q, want number %d", i, l, first+int64(i))
			}
			if marked := strings.HasPrefix(rest, ">: "); marked != (first+int64(i) == int64(line)) {
				t.Fatalf("line %q marked %v (asked %d)", l, marked, line)
			}
		}
	})
}

func itoa(v int64) string {
	return string(appendInt(nil, v))
}

func appendInt(b []byte, v int64) []byte {
	if v >= 10 {
		b = appendInt(b, v/10)
	}
	return append(b, byte('0'+v%10))
}
