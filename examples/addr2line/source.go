package main

import (
	"bytes"
	"os"
	"strconv"
)

// sourceCache holds the source files --print-source-context-lines has
// read, by the name printed (nil for one that could not be read), so that
// an address run does not reread a file per frame.
type sourceCache struct {
	files map[string][]byte
	size  int // bytes held
}

// maxSourceCache bounds what sourceCache keeps; past it, it starts over.
const maxSourceCache = 64 << 20

func (c *sourceCache) get(name string) []byte {
	if data, ok := c.files[name]; ok {
		return data
	}
	data, err := os.ReadFile(name)
	if err != nil {
		data = nil
	}
	if c.files == nil || c.size+len(data) > maxSourceCache {
		c.files, c.size = map[string][]byte{}, 0
	}
	c.files[name] = data
	c.size += len(data)
	return data
}

// appendContext appends the n lines of src around line (1-based) as
// llvm-symbolizer 14 prints them for --print-source-context-lines=n:
// lines max(1, line-n/2) to that plus n-1, each as its number
// right-aligned to ceil(log10(last line)) columns, " >: " on the line
// itself and "  : " on the others, then the text without its '\r'. Lines
// past the end of the file are left out; a file shorter than the first
// line gives nothing, and so does n <= 0. Line 0 (no line) is shown as
// lines 1 to n with no line marked.
func appendContext(dst, src []byte, line uint32, n int) []byte {
	if n <= 0 || src == nil {
		return dst
	}
	first := max(1, int64(line)-int64(n/2))
	last := first + int64(n) - 1
	// Skip to the first line; stop if the file ends before it.
	pos := 0
	for l := int64(1); l < first; l++ {
		i := bytes.IndexByte(src[pos:], '\n')
		if i < 0 {
			return dst
		}
		pos += i + 1
	}
	width := digits(uint64(last - 1))
	for l := first; l <= last && pos < len(src); l++ {
		text := src[pos:]
		if i := bytes.IndexByte(text, '\n'); i >= 0 {
			text = text[:i]
			pos += i + 1
		} else {
			pos = len(src)
		}
		text = bytes.TrimSuffix(text, []byte{'\r'})
		num := strconv.AppendInt(nil, l, 10)
		for range width - len(num) {
			dst = append(dst, ' ')
		}
		dst = append(dst, num...)
		if l == int64(line) {
			dst = append(dst, " >: "...)
		} else {
			dst = append(dst, "  : "...)
		}
		dst = append(dst, text...)
		dst = append(dst, '\n')
	}
	return dst
}

// digits is the number of decimal digits of v, 0 for 0: digits(last-1) is
// ceil(log10(last)), the width LLVM gives line numbers.
func digits(v uint64) int {
	n := 0
	for ; v > 0; v /= 10 {
		n++
	}
	return n
}
