package main

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"slices"
	"strconv"
	"strings"
	"unsafe"
)

// command is the kind of a request, from its CODE/DATA/FRAME prefix.
type command uint8

const (
	cmdCode command = iota
	cmdData
	cmdFrame
)

// request is one parsed input: what to look up, where, and the text it
// came from (echoed or quoted when it does not parse).
type request struct {
	module string
	text   string
	addr   uint64 // as written; the lookup subtracts --adjust-vma
	cmd    command
	ok     bool
}

// delims are the separators llvm-symbolizer accepts between the fields of
// a request: spaces only (and stray line ends), not tabs.
const delims = " \n\r"

// isDelim tells the bytes of delims apart in one load: strings.IndexAny
// scans a line once per delimiter.
var isDelim = func() (t [256]bool) {
	for i := range len(delims) {
		t[delims[i]] = true
	}
	return t
}()

// indexDelim returns the index of s's first delimiter, or -1.
func indexDelim(s string) int {
	for i := 0; i < len(s); i++ {
		if isDelim[s[i]] {
			return i
		}
	}
	return -1
}

// hexDigit maps a byte to its value as a hexadecimal digit, 0xff if none.
var hexDigit = func() (t [256]byte) {
	for i := range t {
		t[i] = 0xff
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = byte(c - '0')
	}
	for c := 'a'; c <= 'f'; c++ {
		t[c], t[c-'a'+'A'] = byte(c-'a'+10), byte(c-'a'+10)
	}
	return t
}()

// parseHexLine parses a line that is 0x or 0X and one to sixteen
// hexadecimal digits, nothing else: what profilers feed a symbolizer. It
// reports false for any other line, which parseRequest then reads in full;
// for this one both ways of reading an address (parseNumber, parseHex)
// agree with it.
func parseHexLine(s string) (uint64, bool) {
	if len(s) < 3 || len(s) > 18 || s[0] != '0' || s[1]|0x20 != 'x' {
		return 0, false
	}
	var v uint64
	for i := 2; i < len(s); i++ {
		d := hexDigit[s[i]]
		if d > 15 {
			return 0, false
		}
		v = v<<4 | uint64(d)
	}
	return v, true
}

// parseRequest splits an input line like llvm-symbolizer 14's
// parseCommand: an optional "CODE "/"DATA "/"FRAME " prefix, then, when no
// --obj was given, a module name (bare, or quoted with ' or "), then an
// address. Text after the address is ignored. The address is a C literal
// (parseNumber), or with hex set (llvm-addr2line, after GNU addr2line)
// hexadecimal with an optional 0x or 0X.
func parseRequest(line, obj string, hex bool) request {
	if obj != "" {
		if v, ok := parseHexLine(line); ok {
			return request{module: obj, text: line, addr: v, ok: true}
		}
	}
	return parseFull(line, obj, hex)
}

// parseFull is parseRequest without the fast path for bare hexadecimal
// lines.
func parseFull(line, obj string, hex bool) request {
	r := request{text: line}
	s := line
	switch {
	case strings.HasPrefix(s, "CODE "):
		s = s[5:]
	case strings.HasPrefix(s, "DATA "):
		r.cmd, s = cmdData, s[5:]
	case strings.HasPrefix(s, "FRAME "):
		r.cmd, s = cmdFrame, s[6:]
	}
	if obj != "" {
		r.module = obj
	} else {
		// BUILDID:HEX names the module by its build ID (later LLVMs'
		// syntax, which may quote HEX as it may a file name).
		byID := strings.HasPrefix(s, buildIDPrefix)
		if byID {
			s = s[len(buildIDPrefix):]
		}
		s = skipDelims(s)
		if s != "" && (s[0] == '"' || s[0] == '\'') {
			end := strings.IndexByte(s[1:], s[0])
			if end < 0 {
				return r
			}
			r.module, s = s[1:1+end], s[2+end:]
		} else {
			n := indexDelim(s)
			if n < 0 {
				n = len(s)
			}
			r.module, s = s[:n], s[n:]
		}
		if byID {
			if _, ok := parseBuildID(r.module); !ok {
				return r
			}
			r.module = buildIDPrefix + r.module
		}
	}
	s = skipDelims(s)
	if n := indexDelim(s); n >= 0 {
		s = s[:n]
	}
	if hex {
		r.addr, r.ok = parseHex(s)
	} else {
		r.addr, r.ok = parseNumber(s)
	}
	return r
}

// parseHex parses an address as llvm-addr2line 14 does: one optional 0x
// or 0X, then hexadecimal digits only, all of the string, within 64 bits.
func parseHex(s string) (uint64, bool) {
	if t, ok := strings.CutPrefix(s, "0x"); ok {
		s = t
	} else {
		s = strings.TrimPrefix(s, "0X")
	}
	v, err := strconv.ParseUint(s, 16, 64) // no sign, prefix or '_' in base 16
	if err != nil {
		return 0, false
	}
	return v, true
}

func skipDelims(s string) string {
	for s != "" && isDelim[s[0]] {
		s = s[1:]
	}
	return s
}

// A queue holds parsed requests for answer, 16 bytes each: the module
// names once per run of requests naming the same one, and the text of a
// line only when it did not parse (the one use of it).
type queue struct {
	reqs  []queued
	names []string // the modules of reqs
	texts []string // the lines of the requests that did not parse
}

// A queued request is a request of a queue.
type queued struct {
	addr uint64 // as written; for a request that did not parse, its line's index in texts
	name int32  // its module's index in names
	cmd  command
	ok   bool
}

// push appends r.
func (q *queue) push(r request) {
	if len(q.reqs) == cap(q.reqs) {
		// Grow in large steps: a piped file fills maxBatch, and every
		// doubling would copy the requests.
		q.reqs = slices.Grow(q.reqs, min(max(64, 7*len(q.reqs)), maxBatch))
	}
	// r's strings may alias the read buffer (lineView): what is kept
	// is copied.
	if n := len(q.names); n == 0 || q.names[n-1] != r.module {
		q.names = append(q.names, strings.Clone(r.module))
	}
	e := queued{addr: r.addr, name: int32(len(q.names) - 1), cmd: r.cmd, ok: r.ok}
	if !r.ok {
		e.addr = uint64(len(q.texts))
		q.texts = append(q.texts, strings.Clone(r.text))
	}
	q.reqs = append(q.reqs, e)
}

// at returns the i-th request (its text only when it did not parse).
func (q *queue) at(i int) request {
	e := q.reqs[i]
	r := request{module: q.names[e.name], cmd: e.cmd, ok: e.ok, addr: e.addr}
	if !e.ok {
		r.text, r.addr = q.texts[e.addr], 0
	}
	return r
}

// reset empties q for reuse.
func (q *queue) reset() {
	clear(q.names)
	clear(q.texts)
	q.reqs, q.names, q.texts = q.reqs[:0], q.names[:0], q.texts[:0]
}

// fgetsMax is the longest piece of a line llvm-symbolizer 14 reads at once.
const fgetsMax = 1023

// maxBatch bounds how many queued requests are answered together, so a
// huge input still streams out in pieces and memory stays bounded. A
// batch of four of Batch's 4,096-address windows overlaps symbolizing
// with printing at three window boundaries in four; 8,192 saved 3 MB of
// peak RSS on the C fixture's 200,000 addresses (22 against 25 MB) but
// cost 6% of wall time on bench/run.sh cxx's (0.854 against 0.803 s, CPU
// unchanged).
const maxBatch = 1 << 14

// runStdin answers requests from r, one a line, as a co-process: it
// collects the lines that have already arrived (in the read buffer or
// waiting in the pipe or file), answers them as one batch and flushes
// before it can block on the next read. So a caller that writes one line
// and waits gets its answer, and a caller that pipes a file in pays for a
// few large writes and batches that Batch can sort.
//
// Reading and parsing run on their own goroutine, a batch ahead of the
// answers.
func (s *session) runStdin(r io.Reader) error {
	// Unbuffered: the reader fills the next batch while this one is
	// answered, and no third is held.
	batches := make(chan inputBatch)
	free := make(chan *queue, 1)
	go s.readBatches(r, batches, free)
	for in := range batches {
		s.answer(in.reqs)
		in.reqs.reset()
		select {
		case free <- in.reqs:
		default:
		}
		if in.err != nil {
			if in.err == io.EOF {
				return nil
			}
			return in.err
		}
		if in.flush {
			if err := s.out.Flush(); err != nil {
				return err
			}
		}
	}
	return nil
}

// An inputBatch is a run of parsed requests for runStdin to answer.
type inputBatch struct {
	reqs  *queue
	flush bool  // no further line has arrived: flush after answering
	err   error // the read's error (io.EOF at the end): the last batch
}

// readBatches reads and parses r's lines into batches for runStdin,
// taking queues back from free.
func (s *session) readBatches(r io.Reader, batches chan<- inputBatch, free <-chan *queue) {
	defer close(batches)
	br := bufio.NewReaderSize(r, 64<<10)
	var long []byte    // a line longer than the buffer
	var scratch []byte // a line with '\r' or '\n' inside, cleaned
	reqs := new(queue)
	for {
		chunk, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			long = append(long, chunk...)
			continue
		}
		if len(long) > 0 {
			chunk = append(long, chunk...)
			long = long[:0]
		}
		for len(chunk) > 0 {
			// llvm-symbolizer 14 reads with fgets into 1024 bytes: a
			// longer line is answered as pieces of 1023 (the newline
			// counting in the last), each cut at its first NUL.
			piece := chunk[:min(len(chunk), fgetsMax)]
			chunk = chunk[len(piece):]
			if i := bytes.IndexByte(piece, 0); i >= 0 {
				piece = piece[:i]
			}
			reqs.push(parseRequest(lineView(piece, &scratch), s.cfg.obj, s.cfg.addr2line))
		}
		if err != nil {
			batches <- inputBatch{reqs: reqs, err: err}
			return
		}
		flush := !s.moreLines(br, r)
		if flush || len(reqs.reqs) >= maxBatch {
			batches <- inputBatch{reqs: reqs, flush: flush}
			select {
			case reqs = <-free:
			default:
				reqs = new(queue)
			}
		}
	}
}

// moreLines reports whether a complete line can be read from br without
// blocking, reading what r holds already into br's buffer to find out.
func (s *session) moreLines(br *bufio.Reader, r io.Reader) bool {
	for !lineBuffered(br) {
		n := br.Buffered()
		if n == br.Size() || !waiting(r) {
			return false
		}
		// r has bytes: this read returns them without blocking.
		if _, err := br.Peek(n + 1); err != nil {
			return n > 0 // the last line, unterminated, or an error to report
		}
	}
	return true
}

// lineBuffered reports whether br holds a complete line that can be read
// without blocking.
func lineBuffered(br *bufio.Reader) bool {
	n := br.Buffered()
	if n == 0 {
		return false
	}
	b, _ := br.Peek(n)
	return bytes.IndexByte(b, '\n') >= 0
}

// lineView returns line b without its '\r' and '\n' bytes, as
// llvm-symbolizer drops them, as a string aliasing b (or *scratch, when
// one is inside the line): valid only until either is written again.
// queue.push copies what it keeps of a request, so a line costs no
// allocation.
func lineView(b []byte, scratch *[]byte) string {
	for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	if bytes.IndexByte(b, '\n') >= 0 || bytes.IndexByte(b, '\r') >= 0 {
		out := (*scratch)[:0]
		for _, c := range b {
			if c != '\r' && c != '\n' {
				out = append(out, c)
			}
		}
		*scratch, b = out, out
	}
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}
