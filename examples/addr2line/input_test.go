package main

import (
	"bytes"
	"fmt"
	"io"
	"testing"
)

// TestLineView: a line loses every '\r' and '\n' as llvm-symbolizer drops
// them, and what a queue keeps of a request does not alias the read
// buffer, which the next read overwrites.
func TestLineView(t *testing.T) {
	var scratch []byte
	for _, tc := range []struct{ in, want string }{
		{"0x10\n", "0x10"},
		{"0x10\r\n", "0x10"},
		{"lib.so 0x\r20\n", "lib.so 0x20"},
		{"\n", ""},
		{"", ""},
		{"0x30", "0x30"},
	} {
		if got := lineView([]byte(tc.in), &scratch); got != tc.want {
			t.Errorf("lineView(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}

	buf := []byte("\"lib one.so\" 0x40\nnot an address\n")
	var q queue
	q.push(parseRequest(lineView(buf[:18], &scratch), "", false))
	q.push(parseRequest(lineView(buf[18:], &scratch), "", false))
	for i := range buf {
		buf[i] = 'X' // the next read
	}
	if r := q.at(0); r.module != "lib one.so" || !r.ok || r.addr != 0x40 {
		t.Errorf("request 0 after the buffer changed: module %q, ok %v, addr %#x", r.module, r.ok, r.addr)
	}
	if r := q.at(1); r.ok || r.text != "not an address" {
		t.Errorf("request 1 after the buffer changed: ok %v, text %q", r.ok, r.text)
	}
}

// BenchmarkReadBatches reads and parses 200,000 lines of bare hexadecimal
// addresses, a profiler's input, as runStdin's reader does.
func BenchmarkReadBatches(b *testing.B) {
	var in []byte
	x := uint64(0x401000)
	for range 200_000 {
		x = x*6364136223846793005 + 1442695040888963407
		in = fmt.Appendf(in, "0x%x\n", 0x400000+x>>40)
	}
	s := newSession(&config{obj: "bin"}, nil, io.Discard, io.Discard)
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		batches, free := make(chan inputBatch), make(chan *queue, 1)
		go s.readBatches(bytes.NewReader(in), batches, free)
		n := 0
		for in := range batches {
			n += len(in.reqs.reqs)
			in.reqs.reset()
			select {
			case free <- in.reqs:
			default:
			}
		}
		if n != 200_000 {
			b.Fatalf("%d requests, want 200000", n)
		}
	}
}
