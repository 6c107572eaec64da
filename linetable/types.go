package linetable

import (
	"github.com/symbolize-go/symbolize/internal/buf"
)

// DecodeError says which section and offset held bad input; its Err wraps
// one of the sentinels below. It is the same type in every package of this
// module, so one errors.As serves them all.
type DecodeError = buf.DecodeError

// Sentinel causes, for errors.Is.
var (
	ErrTruncated          = buf.ErrTruncated
	ErrOverflow           = buf.ErrOverflow
	ErrUnsupportedVersion = buf.ErrUnsupportedVersion
	ErrFormat             = buf.ErrFormat
	ErrLimit              = buf.ErrLimit
)

// Row is one row of the line-number matrix [DWARF5 6.2.2]: the state-machine
// registers at the moment an opcode appended a row. It holds no pointers; a
// file is an index into Header.Files.
type Row struct {
	Address       uint64
	OpIndex       uint32 // VLIW operation index; 0 unless maximum_operations_per_instruction > 1
	File          uint32 // index into Header.Files
	Line          uint32 // 0: no source line
	Column        uint32 // 0: no column (left edge)
	Discriminator uint32
	ISA           uint32
	IsStmt        bool
	BasicBlock    bool
	EndSequence   bool // the first address past the sequence; not an instruction
	PrologueEnd   bool
	EpilogueBegin bool
}

// Opcode is a standard (DW_LNS_*) or extended (DW_LNE_*) opcode number.
// Standard and extended opcodes are separate numbering spaces.
type Opcode uint8

// Standard opcodes [DWARF5 6.2.5.2].
const (
	OpCopy             Opcode = 0x01 // DW_LNS_copy
	OpAdvancePC        Opcode = 0x02 // DW_LNS_advance_pc
	OpAdvanceLine      Opcode = 0x03 // DW_LNS_advance_line
	OpSetFile          Opcode = 0x04 // DW_LNS_set_file
	OpSetColumn        Opcode = 0x05 // DW_LNS_set_column
	OpNegateStmt       Opcode = 0x06 // DW_LNS_negate_stmt
	OpSetBasicBlock    Opcode = 0x07 // DW_LNS_set_basic_block
	OpConstAddPC       Opcode = 0x08 // DW_LNS_const_add_pc
	OpFixedAdvancePC   Opcode = 0x09 // DW_LNS_fixed_advance_pc
	OpSetPrologueEnd   Opcode = 0x0a // DW_LNS_set_prologue_end
	OpSetEpilogueBegin Opcode = 0x0b // DW_LNS_set_epilogue_begin
	OpSetISA           Opcode = 0x0c // DW_LNS_set_isa
)

// Extended opcodes [DWARF5 6.2.5.3], introduced by a 0 byte and a ULEB128
// length.
const (
	OpEndSequence      Opcode = 0x01 // DW_LNE_end_sequence
	OpSetAddress       Opcode = 0x02 // DW_LNE_set_address
	OpDefineFile       Opcode = 0x03 // DW_LNE_define_file (DWARF 2-4)
	OpSetDiscriminator Opcode = 0x04 // DW_LNE_set_discriminator
)

// Content type codes of DWARF 5 directory and file entry formats [DWARF5 6.2.4.1].
const (
	LNCTPath           = 0x1 // DW_LNCT_path
	LNCTDirectoryIndex = 0x2 // DW_LNCT_directory_index
	LNCTTimestamp      = 0x3 // DW_LNCT_timestamp
	LNCTSize           = 0x4 // DW_LNCT_size
	LNCTMD5            = 0x5 // DW_LNCT_MD5
)

// EntryFormat is one (content type, form) pair of a DWARF 5
// directory_entry_format or file_name_entry_format.
type EntryFormat struct {
	Content uint64 // DW_LNCT_*, or a vendor code (skipped by its form)
	Form    uint64 // DW_FORM_*
}

// File is one entry of a line program's file table.
type File struct {
	Name   string
	Dir    uint64 // index into Header.Dirs
	MTime  uint64
	Size   uint64
	MD5    [16]byte
	HasMD5 bool
}

// Header is a line program's header [DWARF5 6.2.4]. Dirs and Files are
// indexed by the numbers the program uses in every version: for versions 2-4,
// whose numbering is 1-based, Dirs[0] and Files[0] are empty placeholders
// (directory 0 means the compilation directory; file 0 is invalid). A
// table with no entries (a DWARF 5 header may list none) is nil, whichever
// way the header was decoded (NewReader, NewTable) and after Reader.Reset.
type Header struct {
	Offset              uint64 // of the unit within .debug_line
	Dwarf64             bool   // 64-bit DWARF format
	UnitLength          uint64
	Version             uint16
	AddressSize         uint8 // from the v5 header; for v2-4, from Options or 0 if unknown
	SegmentSelectorSize uint8
	HeaderLength        uint64
	MinInstLength       uint8
	MaxOpsPerInst       uint8
	DefaultIsStmt       bool
	LineBase            int8
	LineRange           uint8
	OpcodeBase          uint8
	// StandardOpcodeLengths[i] is the number of ULEB128 operands of
	// standard opcode i+1; it aliases the section.
	StandardOpcodeLengths []uint8
	DirFormats            []EntryFormat // v5 only
	FileFormats           []EntryFormat // v5 only
	Dirs                  []string
	Files                 []File
	ProgramOffset         uint64 // absolute offset of the first opcode
	EndOffset             uint64 // absolute offset just past the unit
}

// Options say what decoding a line program needs beyond .debug_line itself.
// The zero value decodes a little-endian program whose strings are all
// inline.
type Options struct {
	BigEndian bool
	// LineStr and Str are .debug_line_str and .debug_str, for
	// DW_FORM_line_strp and DW_FORM_strp paths in DWARF 5 entry formats.
	LineStr []byte
	Str     []byte
	// StrX resolves DW_FORM_strx* indexes (through the unit's
	// str_offsets_base); nil makes such names empty.
	StrX func(index uint64) (string, error)
	// AddressSize is the target's address size for versions 2-4, whose
	// headers lack it (the compilation unit's header has it); it is only
	// reported as Header.AddressSize. Decoding does not use it: like LLVM,
	// DW_LNE_set_address reads an address of its operand's length.
	AddressSize uint8
	// MaxNameBytes caps the bytes of directory and file names that one
	// DWARF 5 header may copy out of LineStr and Str, so that a small
	// hostile header cannot name thousands of long overlapping strings.
	// Exceeding it is an ErrLimit error. 0 means 1 MiB plus 64 bytes per
	// byte of header, far above what compilers emit.
	MaxNameBytes uint64

	// SectionOf and PCSection make a Table look addresses up as LLVM 14
	// does in a relocatable object (ET_REL), where every section starts at
	// address 0, so that the sequences of different sections overlap.
	// SectionOf names the section (any key but 0, which is none) that the
	// address of a DW_LNE_set_address is in, given the offset of its
	// operand in data: the section of the relocation there. A sequence is
	// in the section of the address its end_sequence row was reached
	// from. PCSection names the section of a looked-up address (for
	// llvm-symbolizer, the first code section that contains it), 0 for
	// none. A lookup then answers from the sequences of the address's
	// section, and failing that from those of no section, as
	// LineTable::lookupAddress does with a SectionedAddress. Both nil, the
	// default, is the linked-file behaviour: one address space. They are
	// used only by NewTable.
	SectionOf func(off uint64) uint32
	PCSection func(pc uint64) uint32

	// Keep, when not nil, lists the addresses the caller will look up,
	// in ascending order (a batch's, say): the Table then keeps, of the
	// compact form's packed rows, only those that lookups of them read
	// (a block of up to eight rows each), and drops the rest with the
	// index of every sequence none of them reaches. A later lookup that
	// needs a dropped row builds the whole Table first (once; the Table
	// stays safe for concurrent use), as do Sequences, Rows and Len, so
	// every answer is NewTable's without Keep. On libradosgw's debug file
	// the tables of 10,000 addresses hold 3.5 MB of packed rows and
	// indexes against 28.6. Used only by NewTable, and not with
	// PCSection.
	Keep []uint64
	// Again, when set, is how that later build reads the section again,
	// for a caller that gives data's memory back once NewTable returns:
	// it calls build with the section's bytes (as data held them) and
	// may give them back once build returns. An error leaves the rows
	// dropped unanswered. Without it the build reads data.
	Again func(build func(data []byte)) error

	// LazyFiles makes NewTable validate the header's directory and file
	// tables but keep only a copy of their bytes, decoding them when
	// first needed: by Table.Header, which keeps them, or by
	// Table.FilePaths, which does not. LineStr, Str and StrX must then
	// stay usable as long as the Table is. The decoded tables are most
	// of a Table's memory when it keeps few rows: libradosgw's debug
	// file has 99,813 file entries, 8.6 MB decoded against 0.7 MB of
	// bytes. A DW_LNE_define_file opcode has them decoded at once. Used
	// only by NewTable.
	LazyFiles bool
}
