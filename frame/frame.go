// Package frame holds the answer type of every symbolizer in this module:
// Frame, one source-level frame of an address, and Source, what answered
// it. Package symbolize returns these types under the same names (as
// aliases); they live in this leaf package so that packages which consume
// frames (pprofsym, a caller's own adapters) need not import the root
// package.
//
// Frame.AppendText prints one frame as llvm-symbolizer prints it.
package frame

import "strconv"

// Source says which kind of information answered a frame, like the tags of
// Apple's symbols tool.
type Source uint8

const (
	SourceNone           Source = iota // nothing covers the address
	SourceDWARF                        // debug information (line table, DIEs)
	SourceSymbolTable                  // a symbol table entry alone
	SourceFunctionStarts               // a function-starts entry alone (Mach-O)
	SourceGoPCLN                       // the Go runtime's tables (.gopclntab)
)

// String returns the source's name as messages print it ("DWARF", "symbol
// table", ...).
func (s Source) String() string {
	switch s {
	case SourceDWARF:
		return "DWARF"
	case SourceSymbolTable:
		return "symbol table"
	case SourceFunctionStarts:
		return "function starts"
	case SourceGoPCLN:
		return "Go pclntab"
	}
	return "none"
}

// Frame is one source-level frame of an address: a function and a position
// in it. An address inside inlined calls has several frames, innermost
// first; every frame but the last has Inlined set.
//
// Strings are shared with the Binary's caches and must not be modified.
type Frame struct {
	// Function is the name llvm-symbolizer prints for this frame: for the
	// outermost frame, the covering symbol-table entry's name when there
	// is one (so gcc's split parts read foo.cold), else the DWARF name;
	// demangled when symbolize.Options.Demangle is set. symbolize.Options.FunctionNames
	// selects short names or none.
	Function string
	// DWARFName is the frame's name from DWARF: DW_AT_linkage_name
	// through abstract origins and specifications, else DW_AT_name. Never
	// demangled.
	DWARFName string
	// SymbolName is the covering symbol's (linkage) name on the outermost
	// frame, "" otherwise or when no symbol covers the address; SymbolOffset
	// is the address minus that symbol's start. A Mach-O frame answered
	// by LC_FUNCTION_STARTS alone has the name synthesized from the
	// function's address ("0x100003f00") here and in Function.
	SymbolName   string
	SymbolOffset uint64

	File          string // "" when unknown
	Line          uint32 // 0 when unknown
	Column        uint32 // 0 when unknown
	Discriminator uint32

	// CompDir is the compilation directory of the unit that answered
	// (what llvm-symbolizer --relativenames strips).
	CompDir string

	StartFile       string // the function's declaration file
	StartLine       uint32 // the function's declaration line (DW_AT_decl_line)
	StartAddress    uint64 // the function's (or inlined copy's) first address
	HasStartAddress bool

	Inlined bool   // this frame was inlined into the next one
	Source  Source // what answered
}

// Found reports whether anything is known about the frame.
func (f *Frame) Found() bool { return f.Source != SourceNone }

// AppendText appends the frame as llvm-symbolizer prints one frame in its
// default (LLVM) output style: the function name on one line and
// FILE:LINE:COLUMN on the next, each ended by a newline; an unknown name
// or file prints "??", an unknown line or column 0, so a frame nothing
// covers reads "??\n??:0:0\n". llvm-symbolizer follows each address's
// frames with an empty line, which is the caller's to write. It never
// fails; the error is there for encoding.TextAppender.
func (f *Frame) AppendText(b []byte) ([]byte, error) {
	b = appendOr(b, f.Function)
	b = append(b, '\n')
	b = appendOr(b, f.File)
	b = append(b, ':')
	b = strconv.AppendUint(b, uint64(f.Line), 10)
	b = append(b, ':')
	b = strconv.AppendUint(b, uint64(f.Column), 10)
	return append(b, '\n'), nil
}

// String returns the frame as AppendText prints it.
func (f Frame) String() string {
	b, _ := f.AppendText(make([]byte, 0, len(f.Function)+len(f.File)+24))
	return string(b)
}

func appendOr(b []byte, s string) []byte {
	if s == "" {
		return append(b, "??"...)
	}
	return append(b, s...)
}
