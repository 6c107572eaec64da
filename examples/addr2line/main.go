// Command addr2line symbolizes addresses of ELF and Mach-O binaries and
// prints what llvm-symbolizer 14 prints, byte for byte:
//
//	addr2line --obj=prog 0x401234 0x401250
//	addr2line -e prog -f -C -i -a -p < addresses
//	addr2line --output-style=JSON < "CODE prog 0x401234" lines
//
// Like LLVM's tool, it has two personalities, chosen by the name it runs
// under: when its base name without extension contains "addr2line" (as
// when built from this directory, or installed as llvm-addr2line), it is
// llvm-addr2line 14: GNU output style, no function names unless -f, no
// inline frames unless -i, no demangling unless -C, no untagging unless
// --untag-addresses, hexadecimal addresses with or without 0x, and options
// from $LLVM_ADDR2LINE_OPTS. Under any other name (llvm-symbolizer, say)
// it is llvm-symbolizer 14, with $LLVM_SYMBOLIZER_OPTS.
//
// The command line is read as LLVM's option table reads it: one-letter
// options group (-apfi, -eFILE, -e FILE), long ones take two dashes
// (--obj=FILE, --obj FILE) except -demangle=true and -demangle=false; the
// last of contradicting options wins, but any -f or --functions means
// linkage names; @FILE inserts the arguments FILE holds; errors are worded
// as LLVM words them ("did you mean ...?" included). The options:
//
//	--obj=FILE, --exe=FILE, -e FILE      the binary; without it, each input line names its module
//	--functions[=linkage|short|none], -f print function names (default linkage; addr2line none)
//	--demangle, -C, -demangle=true       demangle C++ and Rust names (default on; addr2line off)
//	--no-demangle, -demangle=false       do not
//	--inlines, -i, --inlining[=true]     print the inline chain (default on; addr2line off)
//	--no-inlines, --inlining=false       one frame per address
//	--addresses, --print-address, -a     print the address first
//	--pretty-print, -p                   one line per frame
//	--basenames, -s                      file names without directories
//	--relativenames                      file names without the compilation directory
//	--output-style=LLVM|GNU|JSON         output format (JSON as llvm-symbolizer's schema; addr2line GNU)
//	--verbose                            each frame's file, start file, start line, start
//	                                     address, line, column and discriminator, one a line
//	--print-source-context-lines=N       N lines of source around each frame's line, read
//	                                     from the file name as printed (JSON: "Source")
//	--adjust-vma=N                       input addresses are file addresses plus N
//	--relative-address                   addresses are relative to the image's preferred base;
//	                                     LLVM 14 takes that base from COFF headers only, so
//	                                     for ELF and Mach-O addresses are unchanged
//	--untag-addresses                    replace bits 56-63 of symbol addresses by copies of
//	--no-untag-addresses                 bit 55, as for AArch64 tagged globals, or not (default
//	                                     untag; addr2line not); input addresses stay as given
//	--debug-file-directory=DIR           where to look up build IDs (DIR/.build-id/xx/yyyy.debug;
//	                                     repeatable; default /usr/lib/debug)
//	--fallback-debug-path=DIR            where to look up .gnu_debuglink names, after the
//	                                     binary's directory and its .debug/: DIR/BINDIR/NAME
//	                                     (default /usr/lib/debug)
//	--debuginfod, --no-debuginfod        look up debug files by build ID in the debuginfod
//	                                     cache and the servers of $DEBUGINFOD_URLS, or not
//	                                     (default on; the last of the two wins)
//	--default-arch=ARCH                  the slice of Mach-O universal files (also FILE:ARCH)
//	--dsym-hint=PATH.dSYM                a dSYM bundle to try for Mach-O files (repeatable)
//	--dwp=FILE                           the DWARF package of split-DWARF binaries, instead of
//	                                     BINARY.dwp
//	--dia                                accepted and ignored: PDB is not read (LLVM 14 also
//	                                     ignores it off Windows)
//	--identity                           instead of the answers, print for each module used a
//	                                     JSON identity record: format, arch, build ID or UUID, and
//	                                     each file that answered, how it was found, its SHA-256
//	--debug-file-symbols                 let a stripped binary's debug file name its frames from
//	                                     its .symtab (local functions, foo.cold; not llvm-compatible)
//	--help, -h; --version, -v
//
// A module named BUILDID:HEX (as --obj, or on an input line) is the binary
// of that build ID: its debug file DIR/.build-id/xx/yyyy.debug in each
// --debug-file-directory (else /usr/lib/debug), else the debuginfod
// cache's or servers' /buildid/HEX/debuginfo, else the executable itself,
// DIR/.build-id/xx/yyyy or /buildid/HEX/executable; each is used only when
// its build ID is HEX. JSON names the module HEX.
//
// Debuginfod. As llvm-symbolizer 14 does, the tool looks for the separate
// debug file of an ELF binary by its build ID in the debuginfod cache,
// then asks the servers listed in $DEBUGINFOD_URLS (separated by spaces),
// after the build-ID folders and before the .gnu_debuglink name. The cache
// is $DEBUGINFOD_CACHE_PATH, else $XDG_CACHE_HOME/debuginfod_client
// (~/.cache/debuginfod_client), in elfutils' layout (HEX/debuginfo,
// HEX/executable; folders created with mode 0700), so what gdb or
// debuginfod-find downloaded is found too; a download is moved there only
// once its build ID was checked. $DEBUGINFOD_TIMEOUT (seconds without
// progress, default 90), $DEBUGINFOD_MAXTIME (seconds for a whole
// download) and $DEBUGINFOD_MAXSIZE (bytes) bound each download, as in
// elfutils' client. --no-debuginfod turns all of it off.
//
// Where this differs from llvm-symbolizer 14: LLVM 14 has no --debuginfod
// or --no-debuginfod (later LLVMs added them, on by default there only
// when $DEBUGINFOD_URLS names a server), and takes BUILDID:HEX for a file
// name (later LLVMs read it as here, but from the debug file only). It
// keeps a cache of its own (llvmcache-* files), gives up at the first
// server it cannot connect to where this tool tries the next, uses a
// build-ID file without checking its build ID, and also asks the servers
// for binaries that carry their own DWARF, which this tool reads without a
// separate debug file.
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
// octal, 0b binary, else decimal (as addr2line: hexadecimal). Lines that do
// not parse are echoed (or, in JSON, answered with an Error object). As
// LLVM 14 reads them with fgets, lines of 1023 bytes or more are taken in
// pieces of 1023, and a NUL ends what a piece says.
//
// On standard input the tool works as a co-process: every answer is written
// before the tool waits for more input, while requests that have already
// arrived are answered together and flushed with one write.
//
// Unless $GOGC is set, the garbage collector lets the heap grow by at least
// 32 MB between collections (see gcHeadroom), and by the default 100% once
// more than that is live.
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
	paceGC()
	os.Exit(runAs(os.Args[0], os.LookupEnv, os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
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

// run is the command as llvm-symbolizer, apart from the process, so tests
// (and bench/prof) can drive it: no environment options.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return runAs("llvm-symbolizer", noEnv, args, stdin, stdout, stderr)
}

func noEnv(string) (string, bool) { return "", false }

// isAddr2Line reports whether a command invoked as argv0 is llvm-addr2line,
// by LLVM's rule: its base name without the extension contains
// "addr2line" (addr2line, llvm-addr2line-14, addr2line.exe).
func isAddr2Line(argv0 string) bool {
	base := argv0[strings.LastIndexAny(argv0, `/\`)+1:]
	if i := strings.LastIndexByte(base, '.'); i >= 0 && base != "." && base != ".." {
		base = base[:i]
	}
	return strings.Contains(base, "addr2line")
}

// runAs is the whole command invoked as argv0 (which selects the
// llvm-addr2line or llvm-symbolizer personality), with getenv giving the
// environment's options.
func runAs(argv0 string, getenv func(string) (string, bool), args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	addr2line := isAddr2Line(argv0)
	envVar, tool := "LLVM_SYMBOLIZER_OPTS", "llvm-symbolizer"
	if addr2line {
		envVar, tool = "LLVM_ADDR2LINE_OPTS", "llvm-addr2line"
	}
	env, hasEnv := getenv(envVar)
	cfg, err := parseArgs(expandArgs(env, hasEnv, args), addr2line)
	if err != nil {
		fmt.Fprint(stderr, err.Error())
		return 1
	}
	switch {
	case cfg.help:
		fmt.Fprintf(stdout, usage, tool)
		return 0
	case cfg.version:
		fmt.Fprintf(stdout, "%s\n  %s\n", tool, version)
		return 0
	}
	for _, w := range cfg.warnings {
		fmt.Fprintln(stderr, w)
	}
	answers := stdout
	if cfg.identity {
		answers = io.Discard // the records are the output
	}
	s := newSession(cfg, newDebuginfod(cfg, getenv), answers, stderr)
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
	if cfg.identity {
		if len(cfg.inputs) == 0 && cfg.obj != "" && len(s.cache.order) == 0 {
			s.cache.get(cfg.obj) // no requests: the --obj module alone
		}
		if err := s.cache.writeIdentities(stdout); err != nil {
			fmt.Fprintf(stderr, "error: %v\n", err)
			return 1
		}
	}
	return 0
}

// version is what --version prints after the tool's name.
const version = "symbolize (github.com/symbolize-go/symbolize), compatible with LLVM version 14.0.6"

const usage = `USAGE: %s [options] addresses...

Output (llvm-addr2line's defaults in brackets):
  --obj=FILE, --exe=FILE, -e FILE    binary to symbolize (else each input line names it)
  --functions[=linkage|short|none], -f[=...]   function names (default linkage) [none]
  --demangle, -C / --no-demangle     demangle C++ and Rust names (default on) [off]
  --inlines, -i / --no-inlines       the inline chain (default on) [off]
  --addresses, --print-address, -a   the address first
  --pretty-print, -p                 one line per frame
  --basenames, -s / --relativenames  file names without directories / compilation directory
  --output-style=LLVM|GNU|JSON       output format (default LLVM) [GNU]
  --verbose                          every field of each frame
  --print-source-context-lines=N     N lines of the source around each line
Addresses:
  --adjust-vma=N                     input addresses are file addresses plus N
  --relative-address                 addresses relative to the image base (for ELF
                                     and Mach-O, as in LLVM 14, the same addresses)
  --untag-addresses / --no-untag-addresses
                                     drop AArch64 tag bits from symbol addresses (default on) [off]
Debug files:
  --debug-file-directory=DIR         where to look up build IDs (repeatable; default /usr/lib/debug)
  --fallback-debug-path=DIR          where to look up .gnu_debuglink names (default /usr/lib/debug)
  --debuginfod / --no-debuginfod     look up debug files in the debuginfod cache and on the
                                     servers of $DEBUGINFOD_URLS, or not (default on; not in LLVM 14)
  --default-arch=ARCH, --dsym-hint=PATH.dSYM   Mach-O slice and dSYM bundles
  --debug-file-symbols               name frames from a stripped binary's debug-file .symtab
                                     (not what llvm-symbolizer prints)
  --identity                         print each module's identity record (JSON) instead of answers
  --dwp=FILE                         the DWARF package of split-DWARF binaries (else BINARY.dwp)
  --dia                              accepted and ignored (PDB is not read)
Other:
  --help, -h / --version, -v
  @FILE                              read options from FILE; so does $LLVM_SYMBOLIZER_OPTS
                                     ($LLVM_ADDR2LINE_OPTS as addr2line)

Without addresses, requests are read from standard input, one a line:
  [CODE|DATA|FRAME] [MODULE] ADDRESS
MODULE (and --obj) may be BUILDID:HEX, the binary of that build ID.
Addresses are C literals (0x hex, 0 octal, 0b binary, else decimal); as
addr2line, hexadecimal with or without 0x.
`

// config is the parsed command line.
type config struct {
	addr2line    bool // the llvm-addr2line personality
	obj          string
	functions    symbolize.FunctionNames
	demangle     bool
	inlines      bool
	printAddress bool
	pretty       bool
	verbose      bool
	contextLines int // --print-source-context-lines
	paths        pathStyle
	adjustVMA    uint64
	untag        bool // untag symbol addresses
	style        outputStyle
	debugDirs    []string
	fallbackDir  string // --fallback-debug-path
	defaultArch  string
	dsymHints    []string
	debugSyms    bool     // --debug-file-symbols
	dwp          string   // --dwp
	identity     bool     // --identity: print identity records instead of answers
	debuginfod   int8     // 1: --debuginfod, -1: --no-debuginfod (the last given), 0: neither (on)
	help         bool     // --help: print the usage and stop
	version      bool     // --version
	warnings     []string // printed to stderr before any answer
	inputs       []string
}

// cmdError is a command-line problem, printed as LLVM 14 prints it.
type cmdError struct{ msg string }

func (e *cmdError) Error() string { return e.msg }

// parseArgs reads the command line as llvm-symbolizer 14 does (as
// llvm-addr2line with addr2line set): the option table of options.go,
// then each option's value by LLVM's rules. The error's text is exactly
// what LLVM writes to stderr.
func parseArgs(args []string, addr2line bool) (*config, error) {
	parsed, errs := parseOptions(args)
	if len(errs) > 0 {
		var b strings.Builder
		for _, e := range errs {
			b.WriteString("error: " + e + "\n")
		}
		return nil, &cmdError{b.String()}
	}
	cfg := &config{addr2line: addr2line, demangle: !addr2line, inlines: !addr2line, untag: !addr2line}
	if addr2line {
		cfg.functions = symbolize.NamesNone
		cfg.style = styleGNU
	}
	var (
		has                   [optVersion + 1]bool
		last                  [optVersion + 1]string
		functionsEq           bool
		adjustVMA, ctxLines   string
		hasAdjust, hasCtxLine bool
	)
	for _, p := range parsed {
		if p.input {
			cfg.inputs = append(cfg.inputs, p.value)
			continue
		}
		has[p.id], last[p.id] = true, p.value
		// Pairs where the last of either wins.
		switch p.id {
		case optDemangle, optNoDemangle:
			cfg.demangle = p.id == optDemangle
		case optInlines, optNoInlines:
			cfg.inlines = p.id == optInlines
		case optUntagAddresses, optNoUntagAddresses:
			cfg.untag = p.id == optUntagAddresses
		case optDebuginfod:
			cfg.debuginfod = 1
		case optNoDebuginfod:
			cfg.debuginfod = -1
		case optBasenames:
			cfg.paths = pathBase
		case optRelativenames:
			cfg.paths = pathRelative
		case optFunctionsEq:
			functionsEq = true
		case optAdjustVMA:
			adjustVMA, hasAdjust = p.value, true
		case optPrintSourceContextLines:
			ctxLines, hasCtxLine = p.value, true
		case optDebugFileDirectory:
			cfg.debugDirs = append(cfg.debugDirs, p.value)
		case optDsymHint:
			cfg.dsymHints = append(cfg.dsymHints, p.value)
		}
	}
	if has[optHelp] {
		cfg.help = true
		return cfg, nil
	}
	if has[optVersion] {
		cfg.version = true
		return cfg, nil
	}
	if hasAdjust {
		v, ok := parseNumber(adjustVMA)
		if !ok {
			return nil, intError(optAdjustVMA, adjustVMA)
		}
		cfg.adjustVMA = v
	}
	if hasCtxLine {
		v, ok := parseInt32(ctxLines)
		if !ok {
			return nil, intError(optPrintSourceContextLines, ctxLines)
		}
		cfg.contextLines = v
	}
	// Any --functions or -f means linkage names, wherever --functions=
	// is; an unknown --functions= value means linkage too.
	switch {
	case has[optFunctions]:
		cfg.functions = symbolize.NamesLinkage
	case functionsEq:
		cfg.functions = functionNames(last[optFunctionsEq])
	}
	if has[optOutputStyle] {
		// llvm-symbolizer compares case-sensitively and falls back to LLVM.
		switch last[optOutputStyle] {
		case "GNU":
			cfg.style = styleGNU
		case "JSON":
			cfg.style = styleJSON
		default:
			cfg.style = styleLLVM
		}
	}
	cfg.obj = last[optObj]
	cfg.defaultArch = last[optDefaultArch]
	cfg.fallbackDir = last[optFallbackDebugPath]
	cfg.printAddress = has[optAddresses]
	cfg.pretty = has[optPrettyPrint]
	cfg.verbose = has[optVerbose]
	cfg.debugSyms = has[optDebugFileSymbols]
	cfg.identity = has[optIdentity]
	// --relative-address makes LLVM 14 add the image's preferred base,
	// which it reads from COFF headers only: for ELF and Mach-O, the
	// formats read here, it adds 0. --dia is accepted and has no effect:
	// the library reads no PDB, and LLVM 14 ignores it off Windows.
	cfg.dwp = last[optDWP]
	hints := cfg.dsymHints
	cfg.dsymHints = nil
	for _, h := range hints {
		// llvm-symbolizer takes only bundles, and warns about the rest.
		if filepath.Ext(h) == ".dSYM" {
			cfg.dsymHints = append(cfg.dsymHints, h)
		} else {
			cfg.warnings = append(cfg.warnings,
				fmt.Sprintf("Warning: invalid dSYM hint: \"%s\" (must have the '.dSYM' extension).", h))
		}
	}
	return cfg, nil
}

// intError is LLVM's complaint about an option's number, written as it
// is: the option's canonical spelling, and no newline.
func intError(id optID, v string) error {
	return &cmdError{canonical[id] + ": expected a non-negative integer, but got '" + v + "'"}
}

// parseInt32 parses a signed 32-bit integer as LLVM's to_integer does
// with radix 0: an optional '-', then what parseNumber reads.
func parseInt32(s string) (int, bool) {
	neg := strings.HasPrefix(s, "-")
	u, ok := parseNumber(strings.TrimPrefix(s, "-"))
	switch {
	case !ok:
		return 0, false
	case neg && u <= 1<<31:
		return -int(u), true
	case !neg && u < 1<<31:
		return int(u), true
	}
	return 0, false
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
