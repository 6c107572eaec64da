// Command addr2line symbolizes addresses of ELF binaries and prints what
// llvm-symbolizer 14 prints, byte for byte, for the options that people and
// tools actually use:
//
//	addr2line --obj=prog 0x401234 0x401250
//	addr2line -e prog -f -C -i -a -p < addresses
//	addr2line --output-style=JSON < "CODE prog 0x401234" lines
//
// Options (long options take "--" or "-"; short ones group, as in -apfi):
//
//	--obj=FILE, --exe=FILE, -e FILE      the binary; without it, each input line names its module
//	--functions[=linkage|short|none], -f print function names (default linkage)
//	--demangle, -C, -demangle=true       demangle C++ and Rust names (default on)
//	--no-demangle, -demangle=false       do not
//	--inlines, -i, --inlining[=true]     print the inline chain (default on)
//	--no-inlines, --inlining=false       one frame per address
//	--addresses, --print-address, -a     print the address first
//	--pretty-print, -p                   one line per frame
//	--basenames, -s                      file names without directories
//	--relativenames                      file names without the compilation directory
//	--adjust-vma=N                       input addresses are file addresses plus N
//	--output-style=LLVM|GNU|JSON         output format (JSON as llvm-symbolizer's schema)
//	--debug-file-directory=DIR           where to look for separate debug files (repeatable)
//	--default-arch=ARCH                  the slice of Mach-O universal files (also FILE:ARCH)
//	--dsym-hint=PATH.dSYM                a dSYM bundle to try for Mach-O files (repeatable)
//	--debug-file-symbols                 let a stripped binary's debug file name its frames from
//	                                     its .symtab (local functions, foo.cold; not llvm-compatible)
//
// Mach-O binaries, dylibs, dSYMs and universal files work as ELF ones do. A
// binary's dSYM beside it (BINARY.dSYM) is found without a hint, and a dSYM
// is used only when its UUID matches, as in llvm-symbolizer. A module named
// FILE:ARCH selects the ARCH slice of FILE.
//
// Addresses come from the arguments or, when there are none, from standard
// input, one request a line: ADDR, MODULE ADDR (without --obj) or either
// prefixed by CODE, DATA or FRAME, as the sanitizers and pprof send them.
// MODULE may be quoted with ' or ". Addresses are C literals: 0x hex, 0
// octal, 0b binary, else decimal. Lines that do not parse are echoed (or, in
// JSON, answered with an Error object).
//
// On standard input the tool works as a co-process: every answer is written
// before the tool waits for more input, while requests that have already
// arrived are answered together and flushed with one write.
package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/symbolize-go/symbolize"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// outputStyle is llvm-symbolizer's --output-style.
type outputStyle uint8

const (
	styleLLVM outputStyle = iota
	styleGNU
	styleJSON
)

// pathStyle is how file names are printed.
type pathStyle uint8

const (
	pathAbsolute pathStyle = iota // as the line table gives them, joined to the compilation directory
	pathBase                      // --basenames
	pathRelative                  // --relativenames
)

// config is the parsed command line.
type config struct {
	obj          string
	functions    symbolize.FunctionNames
	demangle     bool
	inlines      bool
	printAddress bool
	pretty       bool
	paths        pathStyle
	adjustVMA    uint64
	style        outputStyle
	debugDirs    []string
	defaultArch  string
	dsymHints    []string
	debugSyms    bool     // --debug-file-symbols
	warnings     []string // printed to stderr before any answer
	inputs       []string
}

// run is the whole command, apart from the process, so tests can drive it.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	cfg, err := parseArgs(args)
	if err != nil {
		fmt.Fprintf(stderr, "error: %v\n", err)
		return 1
	}
	if cfg == nil { // --help or --version
		fmt.Fprint(stdout, usage)
		return 0
	}
	for _, w := range cfg.warnings {
		fmt.Fprintln(stderr, w)
	}
	s := newSession(cfg, stdout, stderr)
	defer s.close()
	if len(cfg.inputs) > 0 {
		s.runArgs(cfg.inputs)
	} else if err := s.runStdin(stdin); err != nil {
		fmt.Fprintf(stderr, "error: reading standard input: %v\n", err)
		s.out.Flush()
		return 1
	}
	if err := s.out.Flush(); err != nil {
		return 1
	}
	return 0
}

const usage = `USAGE: addr2line [options] addresses...

  --obj=FILE, -e FILE                 binary to symbolize (else each input line names it)
  --functions[=linkage|short|none], -f
  --demangle, -C / --no-demangle, -demangle=false
  --inlines, -i, --inlining / --no-inlines, --inlining=false
  --addresses, --print-address, -a
  --pretty-print, -p
  --basenames, -s / --relativenames
  --adjust-vma=N
  --output-style=LLVM|GNU|JSON
  --debug-file-directory=DIR
  --default-arch=ARCH, --dsym-hint=PATH.dSYM   (Mach-O)
  --debug-file-symbols                name frames from a stripped binary's debug-file .symtab
                                      (not what llvm-symbolizer prints)

Without addresses, requests are read from standard input, one a line:
  [CODE|DATA|FRAME] [MODULE] ADDRESS
`

// longOptions are the long option names, each mapped to whether it takes
// a value (--name=value or --name value). A single dash may introduce them
// too (-demangle=false, -inlining, -obj=FILE).
var longOptions = map[string]bool{
	"obj": true, "exe": true, "adjust-vma": true, "output-style": true,
	"debug-file-directory": true, "default-arch": true, "dsym-hint": true,
	"functions": false, "demangle": false, "no-demangle": false, "inlines": false, "inlining": false,
	"no-inlines": false, "addresses": false, "print-address": false, "pretty-print": false,
	"basenames": false, "relativenames": false, "help": false, "version": false,
	"debug-file-symbols": false,
}

// parseArgs reads the command line the way llvm-symbolizer's option table
// does: the last of contradicting options wins, short options group, and
// anything not starting with '-' is an input. It returns nil, nil for
// --help and --version.
func parseArgs(args []string) (*config, error) {
	cfg := &config{demangle: true, inlines: true}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "" {
			continue // llvm-symbolizer ignores empty arguments
		}
		if a[0] != '-' || a == "-" {
			cfg.inputs = append(cfg.inputs, a)
			continue
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		takesValue, known := longOptions[name]
		long := strings.HasPrefix(a, "--") || known
		if !long {
			// Grouped short options: -apfi, -e FILE, -eFILE, -e=FILE, -f=short.
			j := 1
			for ; j < len(a); j++ {
				switch c := a[j]; c {
				case 'a':
					cfg.printAddress = true
				case 'C':
					cfg.demangle = true
				case 'i':
					cfg.inlines = true
				case 'p':
					cfg.pretty = true
				case 's':
					cfg.paths = pathBase
				case 'v', 'h':
					return nil, nil
				case 'f':
					if j+1 < len(a) && a[j+1] == '=' {
						cfg.functions = functionNames(a[j+2:])
						j = len(a)
						continue
					}
					cfg.functions = symbolize.NamesLinkage
				case 'e':
					v := a[j+1:]
					if v == "" {
						if i+1 >= len(args) {
							return nil, fmt.Errorf("argument to '-e' is missing (expected 1 value)")
						}
						i++
						v = args[i]
					}
					cfg.obj = strings.TrimPrefix(v, "=")
					j = len(a)
					continue
				default:
					return nil, fmt.Errorf("unknown argument '%s'", a)
				}
			}
			continue
		}
		if takesValue && !hasValue {
			if i+1 >= len(args) {
				return nil, fmt.Errorf("argument to '%s' is missing (expected 1 value)", a)
			}
			i++
			value, hasValue = args[i], true
		}
		switch name {
		case "obj", "exe":
			cfg.obj = value
		case "functions":
			cfg.functions = symbolize.NamesLinkage
			if hasValue {
				cfg.functions = functionNames(value)
			}
		case "demangle", "inlines", "inlining":
			v, ok := boolValue(value, hasValue)
			if !ok {
				return nil, fmt.Errorf("unknown argument '%s'", a)
			}
			if name == "demangle" {
				cfg.demangle = v
			} else {
				cfg.inlines = v
			}
		case "no-demangle":
			cfg.demangle = false
		case "no-inlines":
			cfg.inlines = false
		case "addresses", "print-address":
			cfg.printAddress = true
		case "pretty-print":
			cfg.pretty = true
		case "basenames":
			cfg.paths = pathBase
		case "relativenames":
			cfg.paths = pathRelative
		case "adjust-vma":
			v, ok := parseNumber(value)
			if !ok {
				return nil, fmt.Errorf("--adjust-vma=: expected a non-negative integer, but got '%s'", value)
			}
			cfg.adjustVMA = v
		case "output-style":
			// llvm-symbolizer compares case-sensitively and falls back to LLVM.
			switch value {
			case "GNU":
				cfg.style = styleGNU
			case "JSON":
				cfg.style = styleJSON
			default:
				cfg.style = styleLLVM
			}
		case "debug-file-directory":
			cfg.debugDirs = append(cfg.debugDirs, value)
		case "default-arch":
			cfg.defaultArch = value
		case "dsym-hint":
			// llvm-symbolizer takes only bundles, and warns about the rest.
			if filepath.Ext(value) == ".dSYM" {
				cfg.dsymHints = append(cfg.dsymHints, value)
			} else {
				cfg.warnings = append(cfg.warnings,
					fmt.Sprintf("Warning: invalid dSYM hint: \"%s\" (must have the '.dSYM' extension).", value))
			}
		case "debug-file-symbols":
			cfg.debugSyms = true
		case "help", "version":
			return nil, nil
		default:
			return nil, fmt.Errorf("unknown argument '%s'", a)
		}
	}
	return cfg, nil
}

// boolValue reads the value of --demangle or --inlining the way
// llvm-symbolizer's option table spells them: none or "true" is true,
// "false" is false; ok is false for anything else ("1" and "TRUE" too).
func boolValue(value string, hasValue bool) (v, ok bool) {
	switch {
	case !hasValue || value == "true":
		return true, true
	case value == "false":
		return false, true
	}
	return false, false
}

// functionNames maps --functions=VALUE; anything unknown means linkage, as
// in llvm-symbolizer.
func functionNames(v string) symbolize.FunctionNames {
	switch v {
	case "none":
		return symbolize.NamesNone
	case "short":
		return symbolize.NamesShort
	}
	return symbolize.NamesLinkage
}

// parseNumber parses an unsigned integer the way LLVM's
// StringRef::getAsInteger does with radix 0: 0x/0X hex, 0b/0B binary, 0o
// octal, a leading 0 followed by a digit octal, else decimal; the whole
// string must be consumed and fit in 64 bits.
func parseNumber(s string) (uint64, bool) {
	base := 10
	switch {
	case strings.HasPrefix(s, "0x"), strings.HasPrefix(s, "0X"):
		base, s = 16, s[2:]
	case strings.HasPrefix(s, "0b"), strings.HasPrefix(s, "0B"):
		base, s = 2, s[2:]
	case strings.HasPrefix(s, "0o"):
		base, s = 8, s[2:]
	case len(s) > 1 && s[0] == '0' && s[1] >= '0' && s[1] <= '9':
		base, s = 8, s[1:]
	}
	if s == "" || s[0] == '+' || s[0] == '-' || strings.IndexByte(s, '_') >= 0 {
		return 0, false
	}
	v, err := strconv.ParseUint(s, base, 64)
	if err != nil {
		return 0, false
	}
	return v, true
}
