package symbolize

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/symbolize-go/symbolize/elfx"
	"github.com/symbolize-go/symbolize/frame"
	"github.com/symbolize-go/symbolize/internal/buf"
	"github.com/symbolize-go/symbolize/locate"
	"github.com/symbolize-go/symbolize/macho"
)

// DecodeError says which section and offset held bad input. It is the same
// type in every package of this module, so one errors.As serves them all.
type DecodeError = buf.DecodeError

// Sentinel causes wrapped by *DecodeError, for errors.Is.
var (
	ErrTruncated          = buf.ErrTruncated
	ErrOverflow           = buf.ErrOverflow
	ErrUnsupportedVersion = buf.ErrUnsupportedVersion
	ErrFormat             = buf.ErrFormat
	ErrLimit              = buf.ErrLimit
)

// ErrClosed is returned by lookups on a closed Binary.
var ErrClosed = errors.New("symbolize: binary is closed")

// Source says which kind of information answered a frame. It is package
// frame's type, so packages that do not import this one name it too.
type Source = frame.Source

// The sources of a frame, as package frame declares them.
const (
	SourceNone           = frame.SourceNone
	SourceDWARF          = frame.SourceDWARF
	SourceSymbolTable    = frame.SourceSymbolTable
	SourceFunctionStarts = frame.SourceFunctionStarts
	SourceGoPCLN         = frame.SourceGoPCLN
)

// Frame is one source-level frame of an address: a function and a position
// in it. It is package frame's type (see there for its fields and its
// llvm-symbolizer formatting), so that leaf packages such as pprofsym take
// and return the frames this package answers without importing it.
type Frame = frame.Frame

// FunctionNames selects what Frame.Function holds, like llvm-symbolizer's
// --functions.
type FunctionNames uint8

const (
	NamesLinkage FunctionNames = iota // linkage names (the default)
	NamesShort                        // DW_AT_name, without the symbol table's override
	NamesNone                         // no names
)

// Options configure Open. The zero value gives llvm-symbolizer's answers
// with inlining off and no demangling.
type Options struct {
	// Inlines returns the whole inline chain for each address; without it,
	// one frame: the outermost function with the innermost location (what
	// llvm-symbolizer --no-inlines prints).
	Inlines bool
	// Demangle demangles Frame.Function (Itanium C++, Rust).
	Demangle bool
	// FunctionNames chooses linkage names, short names or none.
	FunctionNames FunctionNames
	// NoSymbolTable stops the symbol table from naming outermost frames
	// and from answering addresses DWARF does not cover.
	NoSymbolTable bool
	// DebugFileSymbols lets a stripped ELF binary's separate debug file
	// lend its .symtab (which keeps local functions, split parts like
	// foo.cold and, in executables, linkage names) to name frames and to
	// answer addresses DWARF does not cover. Not llvm-symbolizer
	// compatible: llvm-symbolizer 14 reads only the symbol table of the
	// binary it was asked about (.symtab, else .dynsym), and so does the
	// default.
	DebugFileSymbols bool
	// UntagSymbols replaces bits 56-63 of every symbol address by copies
	// of bit 55, as llvm-symbolizer does by default (llvm-addr2line with
	// --untag-addresses): AArch64 tagged globals (HWASan, MTE) then name
	// their untagged addresses, and kernel addresses stay as they are.
	// The addresses looked up are not untagged.
	UntagSymbols bool
	// NoDebugFile skips the search for a separate debug file (for Mach-O,
	// the dSYM and the object files of the debug map).
	NoDebugFile bool
	// Arch selects the slice of a Mach-O universal file and of its dSYM
	// ("arm64", "x86_64", "arm64e", ...). "" accepts a thin file of any
	// architecture or a universal file with a single slice.
	Arch string
	// DSYM is the dSYM of a Mach-O binary, a .dSYM bundle or the DWARF
	// file inside it, used instead of the bundle beside the binary
	// (BINARY.dSYM). It must exist and its UUID must match the binary's.
	DSYM string
	// DWP is the DWARF package (.dwp) of a split-DWARF binary, used
	// instead of BINARY.dwp beside the binary (llvm-symbolizer --dwp).
	// With a package, every split unit comes from it; without one, each
	// unit's .dwo is looked for (see Debug).
	DWP string
	// SplitBaseFromSkeleton reads the range lists of split units (split
	// DWARF) from their skeleton's DW_AT_low_pc, their base address by
	// the standard [DWARF5 3.1.3] and as GDB reads them: a split build
	// then answers exactly as the same program built without
	// -gsplit-dwarf. Not llvm-symbolizer compatible: LLVM 14 gives split
	// units base address 0, which moves the DW_RLE_offset_pair (and
	// DWARF 4 offset) ranges that gcc and clang write in units of
	// contiguous code, and so drops the inlined calls they describe; the
	// default does as LLVM 14.
	SplitBaseFromSkeleton bool
	// Debug configures where separate debug files are looked for: its
	// Locator finds every external file (ELF debug files, dSYMs, Mach-O
	// debug-map objects, split DWARF's .dwo and .dwp files); nil searches
	// as locate.Dirs{} does
	// (/usr/lib/debug and the binary's own directory).
	Debug *elfx.DebugOptions
	// GoPCLN chooses what answers for a Go binary: by default its DWARF
	// when it has some, else the Go runtime's own tables (.gopclntab,
	// which -ldflags='-s -w', go run and go test binaries keep). Frames
	// answered by the tables have Source SourceGoPCLN.
	GoPCLN GoPCLN
	// Context bounds the debug-file search (a debuginfod fetch); nil means
	// context.Background().
	Context context.Context
}

// GoPCLN selects whether a Go binary's .gopclntab answers (Options.GoPCLN).
type GoPCLN uint8

const (
	GoPCLNAuto   GoPCLN = iota // DWARF when present, else .gopclntab (the default)
	GoPCLNNever                // DWARF only, as llvm-symbolizer
	GoPCLNAlways               // .gopclntab only, even when there is DWARF
)

// Symbolizer turns addresses of one module into frames. Addresses are file
// (link-time) addresses; package slide converts runtime addresses.
// Implementations are safe for concurrent use.
type Symbolizer interface {
	// AppendFrames appends the frames of pc to dst, innermost first, and
	// returns the extended slice. An address that nothing covers appends
	// one frame whose Source is SourceNone; err is for failures that leave
	// no answer at all (a closed Symbolizer, I/O), and then dst is
	// returned unchanged. Implementations answer what they can from
	// partly corrupt data rather than fail.
	AppendFrames(dst []Frame, pc uint64) ([]Frame, error)
	io.Closer
}

var _ Symbolizer = (*Binary)(nil)

// Open opens the ELF binary at path and, unless opts says otherwise, its
// separate debug file (found by build ID or .gnu_debuglink and accepted only
// when its identity matches). Opening decodes headers only: debug sections
// are decompressed and indexed on the first lookup that needs them.
//
// A Mach-O file (thin, or universal with Options.Arch) is paired with its
// dSYM, Options.DSYM or else BINARY.dSYM beside it, accepted only when its
// UUID equals the image's (a *macho.UUIDMismatchError otherwise); without
// one, the object files its debug map names answer (when present and
// unchanged since the link), and then its nlist symbols and
// LC_FUNCTION_STARTS.
func Open(path string, opts *Options) (*Binary, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if macho.FileHasMagic(path) {
		return openMachO(path, o)
	}
	ctx := o.Context
	if ctx == nil {
		ctx = context.Background()
	}
	bin, err := elfx.Open(path, o.openOptions())
	if err != nil {
		return nil, err
	}
	var dbg *elfx.File
	if !o.NoDebugFile && !hasDWARF(bin) {
		d, ok, err := elfx.OpenDebug(ctx, bin, path, o.Debug)
		if err != nil {
			bin.Close()
			return nil, fmt.Errorf("symbolize: %s: %w", path, err)
		}
		if ok {
			dbg = d
		}
	}
	b := newBinary(path, &elfSource{bin: bin, dbg: dbg, debugSyms: o.DebugFileSymbols}, o)
	bid, _, _ := bin.BuildID()
	b.contribute("binary", path, 0, bid, nil, bin.WriteTo)
	if dbg != nil {
		dpath, how := "", locate.How(0)
		if lf := dbg.Located(); lf != nil {
			dpath, how = lf.Path, lf.How
		}
		did, _, _ := dbg.BuildID()
		b.contribute("debug file", dpath, how, did, nil, dbg.WriteTo)
	}
	return b, nil
}

// NewBytes symbolizes an ELF image held in memory (no separate debug file
// is looked for). data must not change while the Binary is in use.
func NewBytes(data []byte, opts *Options) (*Binary, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	bin, err := elfx.NewBytes(data, o.openOptions())
	if err != nil {
		return nil, err
	}
	b := newBinary("", &elfSource{bin: bin}, o)
	bid, _, _ := bin.BuildID()
	b.contribute("binary", "", 0, bid, nil, writeBytes(data))
	return b, nil
}

// locator returns the locator of Options.Debug, else locate.Dirs{}.
func (o *Options) locator() locate.Locator {
	if o.Debug != nil && o.Debug.Locator != nil {
		return o.Debug.Locator
	}
	return locate.Dirs{}
}

// context returns Options.Context, else context.Background().
func (o *Options) context() context.Context {
	if o.Context != nil {
		return o.Context
	}
	return context.Background()
}

func (o *Options) openOptions() *elfx.Options {
	if o.Debug != nil {
		return o.Debug.Open
	}
	return nil
}

// hasDWARF reports whether f carries its own line tables, in which case a
// separate debug file is not looked for (as in llvm-symbolizer).
func hasDWARF(f *elfx.File) bool {
	for _, name := range []string{".debug_line", ".zdebug_line"} {
		if s := f.Section(name); s != nil && s.HasData() && s.Size > 0 {
			return true
		}
	}
	return false
}
