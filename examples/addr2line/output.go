package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strconv"
	"unicode/utf8"

	"github.com/symbolize-go/symbolize"
	"github.com/symbolize-go/symbolize/debuginfod"
	"github.com/symbolize-go/symbolize/elfx"
	"github.com/symbolize-go/symbolize/symtab"
)

// session answers requests with one configuration and one module cache.
type session struct {
	cfg    *config
	out    *bufio.Writer
	stderr io.Writer
	cache  moduleCache

	pending queue // runArgs's requests
	frames  []symbolize.Frame
	pcs     []uint64
	scratch []byte
	sources sourceCache     // --print-source-context-lines
	inList  int             // JSON objects written inside the argument list so far; -1 outside one
	warned  map[string]bool // warnings already written to stderr
}

func newSession(cfg *config, net *debuginfod.Client, stdout, stderr io.Writer) *session {
	opts := symbolize.Options{
		// GNU style without inlines prints the innermost frame, which
		// needs the chain (llvm-symbolizer does the same).
		Inlines:       cfg.inlines || cfg.style == styleGNU,
		Demangle:      cfg.demangle,
		FunctionNames: cfg.functions,

		DebugFileSymbols: cfg.debugSyms,
		UntagSymbols:     cfg.untag,
		DWP:              cfg.dwp,
	}
	if cfg.debugDirs != nil || cfg.fallbackDir != "" || net != nil {
		opts.Debug = &elfx.DebugOptions{Locator: llvmLocator{buildIDDirs: cfg.debugDirs, linkDir: cfg.fallbackDir, net: net}}
	}
	return &session{
		cfg:    cfg,
		out:    bufio.NewWriterSize(stdout, 64<<10),
		stderr: stderr,
		cache: moduleCache{opts: opts, defaultArch: cfg.defaultArch, dsymHints: cfg.dsymHints,
			debugDirs: cfg.debugDirs, net: net, mods: map[string]*module{}},
		// With room for any number: appending to a nil scratch would
		// allocate for every number printed.
		scratch: make([]byte, 0, 64),
		inList:  -1,
		warned:  map[string]bool{},
	}
}

func (s *session) close() { s.cache.close() }

// runArgs answers the addresses given as arguments. JSON answers form one
// array, as in llvm-symbolizer.
func (s *session) runArgs(inputs []string) {
	if s.cfg.style == styleJSON {
		s.out.WriteByte('[')
		s.inList = 0
	}
	for _, in := range inputs {
		s.pending.push(parseRequest(in, s.cfg.obj, s.cfg.addr2line))
	}
	s.answer(&s.pending)
	s.pending.reset()
	if s.cfg.style == styleJSON {
		s.out.WriteString("]\n")
		s.inList = -1
	}
}

// answer writes the answers to q's requests, in order. Runs of CODE
// requests for one module go through Binary.Batch.
func (s *session) answer(q *queue) {
	reqs := q.reqs
	for i := 0; i < len(reqs); {
		r := q.at(i)
		if !r.ok {
			s.printInvalid(&r)
			i++
			continue
		}
		m, err := s.cache.get(r.module)
		if err != nil || m.bin == nil || r.cmd != cmdCode {
			s.answerOne(&r, m, err)
			m.reportWarnings(s.stderr, s.warned)
			i++
			continue
		}
		// Adjacent requests name the same module by the same index.
		j := i + 1
		for j < len(reqs) && reqs[j].ok && reqs[j].cmd == cmdCode && reqs[j].name == reqs[i].name {
			j++
		}
		s.pcs = s.pcs[:0]
		for k := i; k < j; k++ {
			s.pcs = append(s.pcs, reqs[k].addr-s.cfg.adjustVMA)
		}
		for k, a := range m.bin.Batch(context.Background(), s.pcs) {
			r.addr = reqs[i+k].addr
			s.printCode(&r, m, a.Frames, a.Err)
		}
		m.reportWarnings(s.stderr, s.warned)
		i = j
	}
}

// answerOne answers a request that is not part of a CODE run: DATA and
// FRAME requests, and requests whose module did not open.
func (s *session) answerOne(r *request, m *module, openErr error) {
	if openErr != nil {
		s.printError(r, openErr)
		if s.cfg.style == styleJSON {
			return
		}
		// llvm-symbolizer follows the message with an empty answer.
	}
	pc := r.addr - s.cfg.adjustVMA
	switch r.cmd {
	case cmdCode:
		var frames []symbolize.Frame
		var err error
		if m.bin != nil {
			s.frames, err = m.bin.AppendFrames(s.frames[:0], pc)
			frames = s.frames
		} else if !s.cfg.inlines {
			// llvm-symbolizer answers an unopenable module with an
			// empty inline chain, or one empty frame without inlines.
			frames = append(s.frames[:0], symbolize.Frame{})
		}
		s.printCode(r, m, frames, err)
	case cmdData:
		var match symtab.Match
		if m.bin != nil {
			if mm, ok, _ := m.bin.LookupSymbol(pc); ok {
				match = mm
				if s.cfg.demangle {
					match.Name = symtab.Demangle(match.Name, symtab.StyleLLVM)
				}
			}
		}
		s.printData(r, match)
	case cmdFrame:
		s.answerFrame(r, m, pc)
	}
}

// printCode writes the answer to a CODE request. frames is nil when the
// module could not be opened (llvm-symbolizer then has no frames at all).
func (s *session) printCode(r *request, m *module, frames []symbolize.Frame, err error) {
	if err != nil {
		s.printError(r, err)
		if s.cfg.style == styleJSON {
			return
		}
		frames = nil
	}
	if len(frames) > 0 && !s.cfg.inlines {
		// Without inlines one frame: the root gives it unless the chain
		// was asked for (GNU style), whose innermost frame is the answer.
		frames = frames[:1]
	}
	if s.cfg.style == styleJSON {
		s.jsonCode(r, m, frames)
		return
	}
	s.header(r)
	if len(frames) == 0 {
		s.plainFrame(m, &symbolize.Frame{}, false)
	}
	for i := range frames {
		s.plainFrame(m, &frames[i], i > 0)
	}
	s.footer()
}

func (s *session) header(r *request) {
	if !s.cfg.printAddress {
		return
	}
	s.out.WriteString("0x")
	s.out.Write(strconv.AppendUint(s.scratch[:0], r.addr, 16))
	if s.cfg.pretty {
		s.out.WriteString(": ")
	} else {
		s.out.WriteByte('\n')
	}
}

func (s *session) footer() {
	if s.cfg.style == styleLLVM {
		s.out.WriteByte('\n')
	}
}

func (s *session) plainFrame(m *module, f *symbolize.Frame, inlined bool) {
	w := s.out
	if s.cfg.functions != symbolize.NamesNone {
		if s.cfg.pretty && inlined {
			w.WriteString(" (inlined by) ")
		}
		w.WriteString(orUnknown(f.Function))
		if s.cfg.pretty {
			w.WriteString(" at ")
		} else {
			w.WriteByte('\n')
		}
	}
	file := orUnknown(s.fileName(f.CompDir, f.File))
	if s.cfg.verbose {
		s.verboseFrame(file, f)
		return
	}
	w.WriteString(file)
	w.WriteByte(':')
	w.Write(strconv.AppendUint(s.scratch[:0], uint64(f.Line), 10))
	if s.cfg.style == styleGNU {
		if f.Discriminator != 0 {
			w.WriteString(" (discriminator ")
			w.Write(strconv.AppendUint(s.scratch[:0], uint64(f.Discriminator), 10))
			w.WriteByte(')')
		}
	} else {
		w.WriteByte(':')
		w.Write(strconv.AppendUint(s.scratch[:0], uint64(f.Column), 10))
	}
	w.WriteByte('\n')
	if s.cfg.contextLines > 0 {
		// The file is read by the name printed (so --relativenames
		// names are relative to the current directory), as LLVM does.
		s.scratch = appendContext(s.scratch[:0], s.sources.get(file), f.Line, s.cfg.contextLines)
		w.Write(s.scratch)
	}
}

// verboseFrame writes --verbose's block for a frame in LLVM 14's words:
// the start file and line when the function's declaration line is known,
// the start address (LLVM style only) when the symbol table gave one, the
// discriminator when not 0. It replaces the location line, and no source
// context follows it.
func (s *session) verboseFrame(file string, f *symbolize.Frame) {
	w := s.out
	w.WriteString("  Filename: ")
	w.WriteString(file)
	w.WriteByte('\n')
	if f.StartLine != 0 {
		// A declaration file that does not resolve is "" on LLVM's
		// inline-chain path (inlines, or GNU style), and its unset
		// "<invalid>" on the one-frame path, which keeps only a
		// non-empty name (JSON shows "" for both).
		start := s.fileName(f.CompDir, f.StartFile)
		if start == "" && !s.cfg.inlines && s.cfg.style != styleGNU {
			start = "<invalid>"
		}
		w.WriteString("  Function start filename: ")
		w.WriteString(start)
		w.WriteString("\n  Function start line: ")
		w.Write(strconv.AppendUint(s.scratch[:0], uint64(f.StartLine), 10))
		w.WriteByte('\n')
	}
	if f.HasStartAddress && s.cfg.style == styleLLVM {
		w.WriteString("  Function start address: 0x")
		w.Write(strconv.AppendUint(s.scratch[:0], f.StartAddress, 16))
		w.WriteByte('\n')
	}
	w.WriteString("  Line: ")
	w.Write(strconv.AppendUint(s.scratch[:0], uint64(f.Line), 10))
	w.WriteString("\n  Column: ")
	w.Write(strconv.AppendUint(s.scratch[:0], uint64(f.Column), 10))
	w.WriteByte('\n')
	if f.Discriminator != 0 {
		w.WriteString("  Discriminator: ")
		w.Write(strconv.AppendUint(s.scratch[:0], uint64(f.Discriminator), 10))
		w.WriteByte('\n')
	}
}

func orUnknown(s string) string {
	if s == "" {
		return "??"
	}
	return s
}

// printInvalid answers a line that does not parse: echoed as is, or a
// JSON Error object.
func (s *session) printInvalid(r *request) {
	if s.cfg.style != styleJSON {
		s.out.WriteString(r.text)
		s.out.WriteByte('\n')
		return
	}
	s.jsonBegin()
	s.out.WriteString(`{"Error":{"Message":`)
	s.jsonString("unable to parse arguments: " + r.text)
	s.out.WriteString(`},"ModuleName":`)
	s.jsonString(moduleName(r.module))
	s.jsonEnd()
}

// printError reports a failure for one request: a JSON Error object, or a
// line on standard error (written after flushing what precedes it).
func (s *session) printError(r *request, err error) {
	if s.cfg.style != styleJSON {
		s.out.Flush()
		fmt.Fprintf(s.stderr, "LLVMSymbolizer: error reading file: %v\n", err)
		return
	}
	s.jsonBegin()
	s.out.WriteString(`{"Address":`)
	s.jsonHex(r.addr)
	s.out.WriteString(`,"Error":{"Message":`)
	s.jsonString(err.Error())
	s.out.WriteString(`},"ModuleName":`)
	s.jsonString(moduleName(r.module))
	s.jsonEnd()
}

func (s *session) printData(r *request, m symtab.Match) {
	if s.cfg.style == styleJSON {
		s.jsonBegin()
		s.out.WriteString(`{"Address":`)
		s.jsonHex(r.addr)
		s.out.WriteString(`,"Data":{"Name":`)
		s.jsonString(m.Name)
		s.out.WriteString(`,"Size":`)
		s.jsonHex(m.Size)
		s.out.WriteString(`,"Start":`)
		s.jsonHex(m.Start)
		s.out.WriteString(`},"ModuleName":`)
		s.jsonString(moduleName(r.module))
		s.jsonEnd()
		return
	}
	s.header(r)
	s.out.WriteString(orUnknown(m.Name))
	s.out.WriteByte('\n')
	s.out.Write(strconv.AppendUint(s.scratch[:0], m.Start, 10))
	s.out.WriteByte(' ')
	s.out.Write(strconv.AppendUint(s.scratch[:0], m.Size, 10))
	s.out.WriteByte('\n')
	s.footer()
}

// jsonCode writes a CODE answer in llvm-symbolizer's JSON schema (keys in
// its sorted order).
func (s *session) jsonCode(r *request, m *module, frames []symbolize.Frame) {
	w := s.out
	s.jsonBegin()
	w.WriteString(`{"Address":`)
	s.jsonHex(r.addr)
	w.WriteString(`,"ModuleName":`)
	s.jsonString(moduleName(r.module))
	w.WriteString(`,"Symbol":[`)
	for i := range frames {
		f := &frames[i]
		if i > 0 {
			w.WriteByte(',')
		}
		w.WriteString(`{"Column":`)
		w.Write(strconv.AppendUint(s.scratch[:0], uint64(f.Column), 10))
		w.WriteString(`,"Discriminator":`)
		w.Write(strconv.AppendUint(s.scratch[:0], uint64(f.Discriminator), 10))
		w.WriteString(`,"FileName":`)
		s.jsonString(s.fileName(f.CompDir, f.File))
		w.WriteString(`,"FunctionName":`)
		s.jsonString(f.Function)
		w.WriteString(`,"Line":`)
		w.Write(strconv.AppendUint(s.scratch[:0], uint64(f.Line), 10))
		if s.cfg.contextLines > 0 {
			// LLVM reads the file by its JSON name, "<invalid>" for none.
			name := s.fileName(f.CompDir, f.File)
			if name == "" {
				name = "<invalid>"
			}
			if s.scratch = appendContext(s.scratch[:0], s.sources.get(name), f.Line, s.cfg.contextLines); len(s.scratch) > 0 {
				w.WriteString(`,"Source":`)
				s.jsonString(string(s.scratch))
			}
		}
		w.WriteString(`,"StartAddress":`)
		if f.HasStartAddress {
			s.jsonHex(f.StartAddress)
		} else {
			w.WriteString(`""`)
		}
		w.WriteString(`,"StartFileName":`)
		s.jsonString(s.fileName(f.CompDir, f.StartFile))
		w.WriteString(`,"StartLine":`)
		w.Write(strconv.AppendUint(s.scratch[:0], uint64(f.StartLine), 10))
		w.WriteByte('}')
	}
	w.WriteByte(']')
	s.jsonEnd()
}

// jsonBegin and jsonEnd separate objects, jsonEnd closing the current
// one: commas inside the argument list, newlines on standard input.
func (s *session) jsonBegin() {
	if s.inList > 0 {
		s.out.WriteByte(',')
	}
}

func (s *session) jsonEnd() {
	s.out.WriteByte('}')
	if s.inList >= 0 {
		s.inList++
		return
	}
	s.out.WriteByte('\n')
}

func (s *session) jsonHex(v uint64) {
	s.out.WriteString(`"0x`)
	s.out.Write(strconv.AppendUint(s.scratch[:0], v, 16))
	s.out.WriteByte('"')
}

// jsonString writes str quoted the way LLVM's JSON writer does: only '"',
// '\\' and control characters are escaped (\t, \n, \r by name, the rest as
// \u00XX), everything else is written as is; invalid UTF-8 becomes U+FFFD.
func (s *session) jsonString(str string) {
	w := s.out
	w.WriteByte('"')
	for i := 0; i < len(str); {
		c := str[i]
		if c >= utf8.RuneSelf {
			r, n := utf8.DecodeRuneInString(str[i:])
			if r == utf8.RuneError && n == 1 {
				w.WriteString("\uFFFD")
			} else {
				w.WriteString(str[i : i+n])
			}
			i += n
			continue
		}
		switch {
		case c == '"' || c == '\\':
			w.WriteByte('\\')
			w.WriteByte(c)
		case c == '\t':
			w.WriteString(`\t`)
		case c == '\n':
			w.WriteString(`\n`)
		case c == '\r':
			w.WriteString(`\r`)
		case c < 0x20:
			const hex = "0123456789abcdef"
			w.WriteString(`\u00`)
			w.WriteByte(hex[c>>4])
			w.WriteByte(hex[c&15])
		default:
			w.WriteByte(c)
		}
		i++
	}
	w.WriteByte('"')
}
