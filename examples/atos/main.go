// Command atos symbolizes addresses of a Mach-O image and prints them the
// way Apple's atos does:
//
//	atos -o BINARY [-arch ARCH] [-l LOADADDR | -s SLIDE | -offset] [-i] [-fullPath] [-d DELIM] [-f FILE] [ADDR...]
//
// Each address prints one line:
//
//	main (in MagicNumbers) (main.swift:13)    debug information knows the line
//	helper (in MagicNumbers) + 264            only a symbol (or function start) covers it
//	0x100003f21                               nothing does: the address, unchanged
//
// With -i, an address inside inlined code prints one line per frame,
// innermost first (or the frames joined by -d's delimiter); without it, the
// outermost function with its own location. Names are demangled; file
// names are base names unless -fullPath.
//
// BINARY is a thin or universal Mach-O file (-arch selects the slice) or a
// dSYM (the bundle or the DWARF file in it); a binary's dSYM beside it
// (BINARY.dSYM) is used when its UUID matches.
//
// Addresses are file (link-time) addresses unless -l gives the runtime load
// address of the image's __TEXT segment or -s the slide (load address minus
// __TEXT's vmaddr), in which case they are runtime addresses; with -offset
// they are offsets from __TEXT. -l and -s values are hexadecimal, with or
// without 0x; addresses are hexadecimal with 0x, else decimal. Addresses come
// from the arguments, else from -f FILE, else from standard input
// (whitespace-separated; each line is answered before the next is read).
package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/symbolize-go/symbolize"
	"github.com/symbolize-go/symbolize/macho"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// addrMode is how input addresses relate to file addresses.
type addrMode uint8

const (
	modeFile   addrMode = iota // as linked
	modeLoad                   // -l: runtime, image loaded at load
	modeSlide                  // -s: runtime, image slid by slide
	modeOffset                 // -offset: from the __TEXT vmaddr
)

// config is the parsed command line.
type config struct {
	obj      string
	arch     string
	mode     addrMode
	value    uint64 // the -l or -s value
	inlines  bool
	fullPath bool
	delim    string
	file     string
	addrs    []string
}

const usage = "usage: atos -o BINARY|DSYM [-arch ARCH] [-l LOADADDR | -s SLIDE | -offset] [-i] [-fullPath] [-d DELIM] [-f FILE] [ADDR...]\n"

// parseArgs reads atos's single-dash options; "--" spellings are accepted too.
func parseArgs(args []string) (*config, error) {
	cfg := &config{delim: "\n"}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a, "-") || len(a) == 1 {
			cfg.addrs = append(cfg.addrs, a)
			continue
		}
		name := strings.TrimLeft(a, "-")
		value := func() (string, error) {
			if i+1 >= len(args) {
				return "", fmt.Errorf("option -%s needs a value", name)
			}
			i++
			return args[i], nil
		}
		var err error
		switch name {
		case "o":
			cfg.obj, err = value()
		case "arch":
			cfg.arch, err = value()
		case "l", "s":
			var v string
			if v, err = value(); err == nil {
				n, perr := strconv.ParseUint(strings.TrimPrefix(strings.TrimPrefix(v, "0x"), "0X"), 16, 64)
				if perr != nil {
					return nil, fmt.Errorf("-%s: bad hexadecimal value %q", name, v)
				}
				if cfg.mode != modeFile {
					return nil, errors.New("only one of -l, -s and -offset may be given")
				}
				cfg.value, cfg.mode = n, modeLoad
				if name == "s" {
					cfg.mode = modeSlide
				}
			}
		case "offset":
			if cfg.mode != modeFile {
				return nil, errors.New("only one of -l, -s and -offset may be given")
			}
			cfg.mode = modeOffset
		case "i", "inlineFrames":
			cfg.inlines = true
		case "fullPath":
			cfg.fullPath = true
		case "d":
			cfg.delim, err = value()
		case "f":
			cfg.file, err = value()
		case "h", "help":
			return nil, nil
		default:
			return nil, fmt.Errorf("unknown option %s", a)
		}
		if err != nil {
			return nil, err
		}
	}
	if cfg.obj == "" {
		return nil, errors.New("no binary: give -o BINARY")
	}
	return cfg, nil
}

// run is the whole command, apart from the process, so tests can drive it.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	cfg, err := parseArgs(args)
	if err != nil {
		fmt.Fprintf(stderr, "atos: %v\n%s", err, usage)
		return 1
	}
	if cfg == nil {
		fmt.Fprint(stdout, usage)
		return 0
	}
	s, err := newSession(cfg)
	if err != nil {
		fmt.Fprintf(stderr, "atos: %v\n", err)
		return 1
	}
	defer s.bin.Close()
	out := bufio.NewWriter(stdout)
	switch {
	case len(cfg.addrs) > 0:
		for _, a := range cfg.addrs {
			s.answer(out, a)
		}
	case cfg.file != "":
		f, err := os.Open(cfg.file)
		if err != nil {
			fmt.Fprintf(stderr, "atos: %v\n", err)
			return 1
		}
		err = s.stream(f, out)
		f.Close()
		if err != nil {
			fmt.Fprintf(stderr, "atos: %v\n", err)
			return 1
		}
	default:
		if err := s.stream(stdin, out); err != nil {
			fmt.Fprintf(stderr, "atos: %v\n", err)
			return 1
		}
	}
	if err := out.Flush(); err != nil {
		return 1
	}
	return 0
}

// session is an opened image and how to read addresses for it.
type session struct {
	cfg    *config
	bin    *symbolize.Binary
	image  string // the name printed after "in"
	slide  uint64 // file address = runtime address - slide
	frames []symbolize.Frame
	line   []byte
}

func newSession(cfg *config) (*session, error) {
	path := cfg.obj
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		// A dSYM bundle given as the image: its DWARF file, which also
		// carries the symbol table and segment layout.
		path = macho.BundleDWARF(path, "")
	}
	bin, err := symbolize.Open(path, &symbolize.Options{Inlines: true, Demangle: true, Arch: cfg.arch})
	if err != nil {
		return nil, err
	}
	img, _, ok := bin.MachO()
	if !ok {
		bin.Close()
		return nil, fmt.Errorf("%s: not a Mach-O file", path)
	}
	s := &session{cfg: cfg, bin: bin, image: filepath.Base(path)}
	text, _ := img.TextAddr()
	switch cfg.mode {
	case modeLoad:
		s.slide = cfg.value - text
	case modeSlide:
		s.slide = cfg.value
	case modeOffset:
		s.slide = -text // file address = offset + __TEXT vmaddr
	}
	return s, nil
}

// stream answers whitespace-separated addresses from r, flushing after
// each line so that atos can run as a co-process.
func (s *session) stream(r io.Reader, out *bufio.Writer) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		for _, f := range strings.Fields(sc.Text()) {
			s.answer(out, f)
		}
		if err := out.Flush(); err != nil {
			return err
		}
	}
	return sc.Err()
}

// parseAddr reads an address: 0x-prefixed hexadecimal, else decimal.
func parseAddr(s string) (uint64, bool) {
	if h, ok := strings.CutPrefix(strings.ToLower(s), "0x"); ok {
		v, err := strconv.ParseUint(h, 16, 64)
		return v, err == nil
	}
	v, err := strconv.ParseUint(s, 10, 64)
	return v, err == nil
}

// answer prints the line(s) for one address argument. Text that is not an
// address is echoed, as atos does.
func (s *session) answer(out *bufio.Writer, text string) {
	a, ok := parseAddr(text)
	if !ok {
		out.WriteString(text)
		out.WriteByte('\n')
		return
	}
	pc := a - s.slide
	var err error
	s.frames, err = s.bin.AppendFrames(s.frames[:0], pc)
	if err != nil || len(s.frames) == 0 || !s.frames[0].Found() {
		fmt.Fprintf(out, "0x%x\n", a)
		return
	}
	frames := s.frames
	if !s.cfg.inlines {
		frames = frames[len(frames)-1:]
	}
	for i := range frames {
		if i > 0 {
			out.WriteString(s.cfg.delim)
		}
		s.line = s.appendFrame(s.line[:0], &frames[i], pc)
		out.Write(s.line)
	}
	out.WriteByte('\n')
}

// appendFrame formats one frame: "name (in image) (file:line)" with a line,
// else "name (in image) + offset" from the function's start.
func (s *session) appendFrame(dst []byte, f *symbolize.Frame, pc uint64) []byte {
	name := f.Function
	if name == "" {
		name = "???"
	}
	dst = append(dst, name...)
	dst = append(dst, " (in "...)
	dst = append(dst, s.image...)
	dst = append(dst, ')')
	if f.Line != 0 && f.File != "" {
		file := f.File
		if !s.cfg.fullPath {
			file = filepath.Base(file)
		}
		dst = append(dst, " ("...)
		dst = append(dst, file...)
		dst = append(dst, ':')
		dst = strconv.AppendUint(dst, uint64(f.Line), 10)
		return append(dst, ')')
	}
	if f.HasStartAddress {
		dst = append(dst, " + "...)
		dst = strconv.AppendUint(dst, pc-f.StartAddress, 10)
	}
	return dst
}
