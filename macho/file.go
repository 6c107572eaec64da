package macho

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/symbolize-go/symbolize/internal/buf"
)

// secHeader names the header and load-command area in errors.
const secHeader = "mach-o"

// Header is the mach_header or mach_header_64 of an image.
type Header struct {
	Magic      uint32 // Magic32 or Magic64
	CPU        CPU
	SubCPU     uint32
	Type       FileType
	NCmds      uint32
	SizeOfCmds uint32
	Flags      uint32
}

// Load is one load command as stored: Raw holds all cmdsize bytes,
// including the 8-byte cmd/cmdsize prefix, aliasing the image. Commands this
// package does not decode are available only this way.
type Load struct {
	Cmd    LoadCmd
	Offset uint64 // of the command within the image
	Raw    []byte
}

// Segment is an LC_SEGMENT or LC_SEGMENT_64 with its sections.
type Segment struct {
	Name     string
	Addr     uint64 // vmaddr
	MemSize  uint64 // vmsize
	Offset   uint64 // fileoff
	FileSize uint64 // filesize
	MaxProt  uint32
	InitProt uint32
	Flags    uint32
	Sections []Section
}

// Section is one section header of a segment.
type Section struct {
	Name    string // sectname, e.g. "__text", "__debug_line"
	Segment string // segname, e.g. "__TEXT", "__DWARF"
	Addr    uint64
	Size    uint64
	Offset  uint32 // file offset of the contents; 0 for zero-fill
	Align   uint32
	RelOff  uint32
	NReloc  uint32
	Flags   uint32
}

// Section types (the low byte of Section.Flags) that occupy no file bytes.
const (
	sectionTypeMask = 0xff
	sZeroFill       = 0x1  // S_ZEROFILL
	sGBZeroFill     = 0xc  // S_GB_ZEROFILL
	sThreadZeroFill = 0x12 // S_THREAD_LOCAL_ZEROFILL
)

// Section attribute bits (the high bits of Section.Flags) that mark code
// [mach-o/loader.h].
const (
	AttrPureInstructions uint32 = 0x80000000 // S_ATTR_PURE_INSTRUCTIONS: only machine instructions
	AttrSomeInstructions uint32 = 0x00000400 // S_ATTR_SOME_INSTRUCTIONS: some machine instructions
)

// ZeroFill reports whether the section has no file contents (__bss,
// __common, thread-local zero-fill).
func (s *Section) ZeroFill() bool {
	switch s.Flags & sectionTypeMask {
	case sZeroFill, sGBZeroFill, sThreadZeroFill:
		return true
	}
	return false
}

// SymtabCmd is LC_SYMTAB: where the nlist array and string table lie.
type SymtabCmd struct {
	SymOff, NSyms, StrOff, StrSize uint32
}

// DysymtabCmd is LC_DYSYMTAB: how the symbol table is partitioned into
// local, external-defined and undefined runs, plus the indirect table.
type DysymtabCmd struct {
	ILocalSym, NLocalSym          uint32
	IExtDefSym, NExtDefSym        uint32
	IUndefSym, NUndefSym          uint32
	TOCOff, NTOC                  uint32
	ModTabOff, NModTab            uint32
	ExtRefSymOff, NExtRefSyms     uint32
	IndirectSymOff, NIndirectSyms uint32
	ExtRelOff, NExtRel            uint32
	LocRelOff, NLocRel            uint32
}

// Dylib is a dependent (or, for LC_ID_DYLIB, the file's own) library.
// Versions are packed xxxx.yy.zz nibbles as in the file.
type Dylib struct {
	Cmd            LoadCmd
	Name           string // install name, e.g. "/usr/lib/libSystem.B.dylib"
	Timestamp      uint32
	CurrentVersion uint32
	CompatVersion  uint32
}

// BuildVersion is LC_BUILD_VERSION, or an LC_VERSION_MIN_* command (Cmd
// says which; those have no platform field, so Platform is derived from the
// command, and no tools). Versions are packed xxxx.yy.zz.
type BuildVersion struct {
	Cmd      LoadCmd
	Platform uint32 // PLATFORM_MACOS = 1, IOS = 2, TVOS = 3, WATCHOS = 4, ...
	MinOS    uint32
	SDK      uint32
	Tools    []BuildTool
}

// BuildTool is one tool entry of LC_BUILD_VERSION.
type BuildTool struct {
	Tool    uint32 // TOOL_CLANG = 1, TOOL_SWIFT = 2, TOOL_LD = 3, TOOL_LLD = 4
	Version uint32
}

// EntryPoint is LC_MAIN.
type EntryPoint struct {
	EntryOff  uint64 // file offset of main within __TEXT
	StackSize uint64
}

// LinkeditData is a linkedit_data_command (LC_FUNCTION_STARTS and friends):
// a byte range of the image, normally inside __LINKEDIT.
type LinkeditData struct {
	DataOff, DataSize uint32
}

// UUID is the 128-bit identifier from LC_UUID.
type UUID [16]byte

// String formats u the way Apple's tools and llvm-dwarfdump --uuid do:
// upper-case 8-4-4-4-12 hex.
func (u UUID) String() string {
	return fmt.Sprintf("%X-%X-%X-%X-%X", u[0:4], u[4:6], u[6:8], u[8:10], u[10:16])
}

// File is one parsed thin Mach-O image. Fields hold the decoded load
// commands; optional ones are nil or zero when absent. The File aliases its
// input.
type File struct {
	Header    Header
	Is64      bool
	BigEndian bool
	// Data is the whole image (one slice of a universal file).
	Data []byte
	// Offset is where Data begins in the universal file it came from, or 0.
	Offset uint64

	Loads          []Load // every command, in file order
	Segments       []Segment
	UUID           UUID
	HasUUID        bool
	Symtab         *SymtabCmd
	Dysymtab       *DysymtabCmd
	Dylibs         []Dylib // LC_*_DYLIB in file order; ordinals count those with Cmd != LoadIDDylib
	ID             *Dylib  // LC_ID_DYLIB of a dylib
	Builds         []BuildVersion
	Main           *EntryPoint
	FunctionStarts *LinkeditData

	strtab string  // the string table, copied once; symbol names are substrings
	z      *zcache // the __zdebug_* sections, inflated on demand
}

// ErrFat is returned (wrapped in a *DecodeError) by Parse when given a
// universal file; use ParseFat or Select.
var ErrFat = fmt.Errorf("universal (fat) file: %w", ErrFormat)

// Parse decodes a thin Mach-O image. It validates the header, every load
// command's size and placement, and that the symbol table, string table and
// function-starts data lie within data. Cost: O(size of load commands);
// the string table is copied once.
func Parse(data []byte) (*File, error) {
	r := buf.New(pkg, secHeader, data, false)
	magic := r.U32()
	if r.Err() != nil {
		return nil, r.Err()
	}
	f := &File{Data: data, z: new(zcache)}
	switch magic {
	case Magic32:
	case Magic64:
		f.Is64 = true
	case 0xcefaedfe: // MH_CIGAM: big-endian 32-bit (ppc, m68k)
		f.BigEndian = true
	case 0xcffaedfe: // MH_CIGAM_64
		f.BigEndian, f.Is64 = true, true
	case 0xbebafeca, 0xbfbafeca: // FAT_MAGIC read little-endian
		return nil, &DecodeError{Package: pkg, Section: secHeader, Err: ErrFat}
	default:
		return nil, buf.Errorf(pkg, secHeader, 0, ErrFormat, "bad magic %#x", magic)
	}
	r = buf.New(pkg, secHeader, data, f.BigEndian)
	h := &f.Header
	h.Magic = r.U32()
	h.CPU = CPU(r.U32())
	h.SubCPU = r.U32()
	h.Type = FileType(r.U32())
	h.NCmds = r.U32()
	h.SizeOfCmds = r.U32()
	h.Flags = r.U32()
	if f.Is64 {
		r.U32() // reserved
	}
	if r.Err() != nil {
		return nil, r.Err()
	}
	cmdStart := r.Offset()
	cmdEnd := cmdStart + uint64(h.SizeOfCmds)
	if cmdEnd > uint64(len(data)) {
		return nil, buf.Errorf(pkg, secHeader, 20, ErrTruncated, "sizeofcmds %#x runs past end of file %#x", h.SizeOfCmds, len(data))
	}
	// Each command is at least 8 bytes, so sizeofcmds bounds ncmds and
	// thereby every allocation below.
	if uint64(h.NCmds) > uint64(h.SizeOfCmds)/8 {
		return nil, buf.Errorf(pkg, secHeader, 16, ErrFormat, "%d load commands cannot fit in sizeofcmds %#x", h.NCmds, h.SizeOfCmds)
	}
	f.Loads = make([]Load, 0, h.NCmds)
	r.SetLimit(cmdEnd)
	off := cmdStart
	for i := uint32(0); i < h.NCmds; i++ {
		r.Seek(off)
		cmd := LoadCmd(r.U32())
		size := r.U32()
		if r.Err() != nil {
			return nil, r.Err()
		}
		// A cmdsize below the 8-byte prefix (in particular 0) would loop
		// forever or overlap the next command; one past sizeofcmds overlaps
		// whatever follows the commands.
		if size < 8 {
			return nil, buf.Errorf(pkg, secHeader, off, ErrFormat, "load command %d (%v): cmdsize %d", i, cmd, size)
		}
		if uint64(size) > cmdEnd-off {
			return nil, buf.Errorf(pkg, secHeader, off, ErrTruncated, "load command %d (%v): cmdsize %#x runs past sizeofcmds", i, cmd, size)
		}
		raw := data[off : off+uint64(size) : off+uint64(size)]
		f.Loads = append(f.Loads, Load{Cmd: cmd, Offset: off, Raw: raw})
		if err := f.decodeLoad(cmd, off, raw); err != nil {
			return nil, err
		}
		off += uint64(size)
	}
	if err := f.checkLinkedit(); err != nil {
		return nil, err
	}
	return f, nil
}

// cmdReader returns a reader over one command, positioned after cmd/cmdsize.
// Offsets in its errors are absolute in the image.
func (f *File) cmdReader(off uint64, raw []byte) buf.Reader {
	r := buf.New(pkg, secHeader, f.Data, f.BigEndian)
	r.SetLimit(off + uint64(len(raw)))
	r.Seek(off + 8)
	return r
}

func (f *File) decodeLoad(cmd LoadCmd, off uint64, raw []byte) error {
	r := f.cmdReader(off, raw)
	switch cmd {
	case LoadSegment, LoadSegment64:
		return f.decodeSegment(&r, cmd == LoadSegment64, off)
	case LoadUUID:
		copy(f.UUID[:], r.Bytes(16))
		f.HasUUID = r.Err() == nil
	case LoadSymtab:
		f.Symtab = &SymtabCmd{r.U32(), r.U32(), r.U32(), r.U32()}
	case LoadDysymtab:
		var v [18]uint32
		for i := range v {
			v[i] = r.U32()
		}
		f.Dysymtab = &DysymtabCmd{v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9],
			v[10], v[11], v[12], v[13], v[14], v[15], v[16], v[17]}
	case LoadDylib, LoadIDDylib, LoadWeakDylib, LoadReexportDylib, LoadLazyDylib, LoadUpwardDylib:
		d := Dylib{Cmd: cmd}
		nameOff := r.U32()
		d.Timestamp, d.CurrentVersion, d.CompatVersion = r.U32(), r.U32(), r.U32()
		d.Name = lcString(&r, cmd, off, raw, nameOff)
		if cmd == LoadIDDylib {
			f.ID = &d
		} else {
			f.Dylibs = append(f.Dylibs, d)
		}
	case LoadBuildVersion:
		b := BuildVersion{Cmd: cmd, Platform: r.U32(), MinOS: r.U32(), SDK: r.U32()}
		n := r.U32()
		if r.Err() == nil && uint64(n) > uint64(r.Len())/8 {
			r.Fail(r.Offset()-4, ErrTruncated, "LC_BUILD_VERSION: %d tools do not fit in cmdsize", n)
		}
		if r.Err() == nil && n > 0 {
			b.Tools = make([]BuildTool, n)
			for i := range b.Tools {
				b.Tools[i] = BuildTool{r.U32(), r.U32()}
			}
		}
		f.Builds = append(f.Builds, b)
	case LoadVersionMinMac, LoadVersionMinIOS, LoadVersionMinTV, LoadVersionMinWatch:
		f.Builds = append(f.Builds, BuildVersion{Cmd: cmd, Platform: versionMinPlatform(cmd), MinOS: r.U32(), SDK: r.U32()})
	case LoadMain:
		f.Main = &EntryPoint{EntryOff: r.U64(), StackSize: r.U64()}
	case LoadFunctionStarts:
		f.FunctionStarts = &LinkeditData{r.U32(), r.U32()}
	}
	return r.Err()
}

// versionMinPlatform is the PLATFORM_* number an LC_VERSION_MIN_* command
// implies (PLATFORM_MACOS = 1, IOS = 2, TVOS = 3, WATCHOS = 4).
func versionMinPlatform(cmd LoadCmd) uint32 {
	switch cmd {
	case LoadVersionMinMac:
		return 1
	case LoadVersionMinIOS:
		return 2
	case LoadVersionMinTV:
		return 3
	case LoadVersionMinWatch:
		return 4
	}
	return 0
}

// lcString decodes an lc_str: an offset from the start of the command to a
// NUL-terminated string that must end within the command.
func lcString(r *buf.Reader, cmd LoadCmd, off uint64, raw []byte, strOff uint32) string {
	if r.Err() != nil {
		return ""
	}
	if uint64(strOff) >= uint64(len(raw)) || strOff < 8 {
		r.Fail(off, ErrFormat, "%v: name offset %#x outside cmdsize %#x", cmd, strOff, len(raw))
		return ""
	}
	s := raw[strOff:]
	if i := bytes.IndexByte(s, 0); i >= 0 {
		s = s[:i]
	}
	// Some linkers pad with NULs and no terminator is required when the
	// string fills the command exactly; either way it stays within raw.
	return string(s)
}

func (f *File) decodeSegment(r *buf.Reader, is64 bool, off uint64) error {
	var s Segment
	s.Name = fixedString(r.Bytes(16))
	if is64 {
		s.Addr, s.MemSize, s.Offset, s.FileSize = r.U64(), r.U64(), r.U64(), r.U64()
	} else {
		s.Addr, s.MemSize, s.Offset, s.FileSize = uint64(r.U32()), uint64(r.U32()), uint64(r.U32()), uint64(r.U32())
	}
	s.MaxProt, s.InitProt = r.U32(), r.U32()
	nsects := r.U32()
	s.Flags = r.U32()
	if r.Err() != nil {
		return r.Err()
	}
	sectSize := uint64(68)
	if is64 {
		sectSize = 80
	}
	if uint64(nsects) > uint64(r.Len())/sectSize {
		return buf.Errorf(pkg, secHeader, off, ErrFormat, "segment %q: %d sections do not fit in cmdsize", s.Name, nsects)
	}
	if nsects > 0 {
		s.Sections = make([]Section, nsects)
	}
	for i := range s.Sections {
		sec := &s.Sections[i]
		sec.Name = fixedString(r.Bytes(16))
		sec.Segment = fixedString(r.Bytes(16))
		if is64 {
			sec.Addr, sec.Size = r.U64(), r.U64()
		} else {
			sec.Addr, sec.Size = uint64(r.U32()), uint64(r.U32())
		}
		sec.Offset, sec.Align, sec.RelOff, sec.NReloc, sec.Flags = r.U32(), r.U32(), r.U32(), r.U32(), r.U32()
		r.U32() // reserved1
		r.U32() // reserved2
		if is64 {
			r.U32() // reserved3
		}
	}
	f.Segments = append(f.Segments, s)
	return r.Err()
}

// fixedString decodes a NUL-padded fixed-width name (segname, sectname).
// A name using all 16 bytes has no NUL.
func fixedString(b []byte) string {
	for i, c := range b {
		if c == 0 {
			return string(b[:i])
		}
	}
	return string(b)
}

// checkLinkedit validates the ranges that LC_SYMTAB and LC_FUNCTION_STARTS
// point at, so that later accessors can slice without re-checking, and
// copies the string table.
func (f *File) checkLinkedit() error {
	size := uint64(len(f.Data))
	if st := f.Symtab; st != nil {
		off := f.loadOffset(LoadSymtab)
		esz := uint64(12)
		if f.Is64 {
			esz = 16
		}
		if end := uint64(st.SymOff) + uint64(st.NSyms)*esz; end > size {
			return buf.Errorf(pkg, secHeader, off, ErrTruncated, "LC_SYMTAB: %d symbols at %#x run past end of file %#x", st.NSyms, st.SymOff, size)
		}
		if end := uint64(st.StrOff) + uint64(st.StrSize); end > size {
			return buf.Errorf(pkg, secHeader, off, ErrTruncated, "LC_SYMTAB: string table %#x+%#x runs past end of file %#x", st.StrOff, st.StrSize, size)
		}
		f.strtab = string(f.Data[st.StrOff : st.StrOff+st.StrSize])
	}
	if fs := f.FunctionStarts; fs != nil {
		if end := uint64(fs.DataOff) + uint64(fs.DataSize); end > size {
			return buf.Errorf(pkg, secHeader, f.loadOffset(LoadFunctionStarts), ErrTruncated,
				"LC_FUNCTION_STARTS: data %#x+%#x runs past end of file %#x", fs.DataOff, fs.DataSize, size)
		}
	}
	return nil
}

// loadOffset returns the offset of the last command c: the one whose
// values decodeLoad kept when the image repeats it.
func (f *File) loadOffset(c LoadCmd) uint64 {
	for i := len(f.Loads) - 1; i >= 0; i-- {
		if f.Loads[i].Cmd == c {
			return f.Loads[i].Offset
		}
	}
	return 0
}

// Arch returns the architecture name of the image ("arm64", "x86_64", ...).
func (f *File) Arch() string { return ArchName(f.Header.CPU, f.Header.SubCPU) }

// Segment returns the segment named name, or nil.
func (f *File) Segment(name string) *Segment {
	for i := range f.Segments {
		if f.Segments[i].Name == name {
			return &f.Segments[i]
		}
	}
	return nil
}

// Section returns the section segname,sectname, or nil. Object files put
// every section in one unnamed segment, so the search looks at each
// section's own segname rather than the segment's name.
func (f *File) Section(segname, sectname string) *Section {
	for i := range f.Segments {
		for j := range f.Segments[i].Sections {
			s := &f.Segments[i].Sections[j]
			if s.Name == sectname && s.Segment == segname {
				return s
			}
		}
	}
	return nil
}

// TextAddr returns the vmaddr of the __TEXT segment: the link-time address
// that the runtime load address of the image slides from.
func (f *File) TextAddr() (uint64, bool) {
	if s := f.Segment("__TEXT"); s != nil {
		return s.Addr, true
	}
	return 0, false
}

// SectionData returns the contents of s, aliasing the image. Zero-fill
// sections have none (nil, nil). A range outside the image is an error.
func (f *File) SectionData(s *Section) ([]byte, error) {
	if s.ZeroFill() || s.Size == 0 {
		return nil, nil
	}
	end := uint64(s.Offset) + s.Size
	if end > uint64(len(f.Data)) || end < s.Size {
		return nil, buf.Errorf(pkg, s.Segment+","+s.Name, 0, ErrTruncated,
			"section contents %#x+%#x run past end of file %#x", s.Offset, s.Size, len(f.Data))
	}
	return f.Data[s.Offset:end:end], nil
}

// DWARF returns the raw bytes of the DWARF section name, given in either its
// ELF spelling (".debug_line") or its Mach-O one ("__debug_line"), from the
// __DWARF segment. Mach-O section names hold 16 bytes, so longer names are
// truncated as the linker does (".debug_str_offsets" is "__debug_str_offs").
// A section stored compressed as __zdebug_X (Go's linker does so) is
// inflated (see CompressedDWARF to inflate it lazily instead). A missing
// section is (nil, false, nil).
func (f *File) DWARF(name string) ([]byte, bool, error) {
	if strings.HasPrefix(name, ".") {
		name = "__" + name[1:]
	}
	if len(name) > 16 {
		name = name[:16]
	}
	s := f.Section("__DWARF", name)
	if s == nil {
		// Go's linker stores it compressed (zdebug.go).
		z, ok, err := f.CompressedDWARF(name)
		if !ok || err != nil {
			return nil, false, err
		}
		b, err := z.Data()
		if err != nil {
			return nil, false, err
		}
		return b, true, nil
	}
	b, err := f.SectionData(s)
	if err != nil {
		return nil, false, err
	}
	return b, true, nil
}

// ErrNoUUID is wrapped by the error DSYM matching returns for an image
// without LC_UUID: it cannot be paired with debug info safely.
var ErrNoUUID = errors.New("image has no LC_UUID")

// SectionByIndex returns the section an nlist n_sect refers to: sections
// are numbered from 1 across all segments in load-command order. 0
// (NO_SECT) and out-of-range numbers return nil.
func (f *File) SectionByIndex(n uint8) *Section {
	if n == 0 {
		return nil
	}
	i := int(n) - 1
	for k := range f.Segments {
		if i < len(f.Segments[k].Sections) {
			return &f.Segments[k].Sections[i]
		}
		i -= len(f.Segments[k].Sections)
	}
	return nil
}
