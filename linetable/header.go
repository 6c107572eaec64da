package linetable

import (
	"errors"
	"fmt"
	"iter"

	"github.com/symbolize-go/symbolize/internal/buf"
	"github.com/symbolize-go/symbolize/internal/dw"
)

const (
	pkgName     = "linetable"
	sectionName = ".debug_line"
)

// newBuf returns the section reader every decoder in this package uses.
func newBuf(data []byte, bigEndian bool) buf.Reader {
	return buf.New(pkgName, sectionName, data, bigEndian)
}

var zeroOptions Options

func optsOrZero(opts *Options) *Options {
	if opts == nil {
		return &zeroOptions
	}
	return opts
}

// unitBounds reads the initial length of the unit at off and returns the
// offset of its first byte after the length, the offset just past it, and
// whether it is 64-bit DWARF.
func unitBounds(b *buf.Reader, off uint64) (start, end uint64, dwarf64 bool, err error) {
	b.Seek(off)
	length, dwarf64 := b.InitialLength()
	if err := b.Err(); err != nil {
		return 0, 0, false, err
	}
	start = b.Offset()
	if length > b.Limit()-start {
		return 0, 0, false, buf.Errorf(pkgName, sectionName, off, ErrTruncated,
			"unit_length %#x reaches past the section end %#x", length, b.Limit())
	}
	return start, start + length, dwarf64, nil
}

// NextUnit returns the offset of the unit that follows the one at off in
// .debug_line data, reading only the unit's initial length: len(data),
// with no error, for the last unit. An off with no initial length there
// (at or past the end of data, or too near it) and a unit_length that
// reaches past the section are ErrTruncated *DecodeErrors. opts supplies
// the byte order (nil means little-endian).
func NextUnit(data []byte, off uint64, opts *Options) (next uint64, err error) {
	b := newBuf(data, optsOrZero(opts).BigEndian)
	_, end, _, err := unitBounds(&b, off)
	return end, err
}

// Units iterates over the offsets of the units in .debug_line data, in
// section order. A malformed initial length ends the iteration with a
// (offset, error) pair. Units only walks initial lengths; NewReader decodes
// a unit's header. opts supplies the byte order (nil means little-endian).
func Units(data []byte, opts *Options) iter.Seq2[uint64, error] {
	return func(yield func(uint64, error) bool) {
		b := newBuf(data, optsOrZero(opts).BigEndian)
		for off := uint64(0); off < uint64(len(data)); {
			_, end, _, err := unitBounds(&b, off)
			if err != nil {
				yield(off, err)
				return
			}
			if !yield(off, nil) {
				return
			}
			off = end // end > off: an initial length takes at least 4 bytes
		}
	}
}

// parseHeader decodes and validates the header of the unit at off into h,
// leaving b limited to the unit and positioned at its first opcode. It
// returns the offset of the directory and file tables and whether it left
// them to decode (deferred).
//
// With dry set it validates the tables exactly as it would decode them
// (every read, bound, string and name budget) but stores neither Dirs nor
// Files and allocates nothing for them; parseTables with dry unset then
// decodes them later without new errors. (A dry run that meets
// DW_FORM_strx* names decodes the tables at once, so that the caller's
// resolver runs once per name; deferred then is false.) Rows need nothing
// from the tables, and their slices and names were most of the cost of a
// header (cmd/go: about 6.4 KB and 7 allocations per header, against 3 when
// dry).
//
// The directory and file tables are read with the reader limited to the
// header_length the header declares: a table that would run past it is an
// ErrTruncated error rather than a read into the program. Bytes between the
// tables' end and the program are ignored (as LLVM does, with a warning).
func parseHeader(h *Header, b *buf.Reader, off uint64, opts *Options, dry bool) (tabOff uint64, deferred bool, err error) {
	*h = Header{Offset: off}
	start, end, dwarf64, err := unitBounds(b, off)
	if err != nil {
		return 0, false, err
	}
	b.SetLimit(end)
	h.Dwarf64 = dwarf64
	h.UnitLength = end - start
	h.EndOffset = end

	verOff := b.Offset()
	h.Version = b.U16()
	if err := b.Err(); err != nil {
		return 0, false, err
	}
	if h.Version < 2 || h.Version > 5 {
		return 0, false, buf.Errorf(pkgName, sectionName, verOff, ErrUnsupportedVersion, "unsupported version %d", h.Version)
	}
	if h.Version >= 5 {
		h.AddressSize = b.U8()
		h.SegmentSelectorSize = b.U8()
	} else {
		h.AddressSize = opts.AddressSize
	}
	lenOff := b.Offset()
	h.HeaderLength = b.Off(dwarf64)
	if err := b.Err(); err != nil {
		return 0, false, err
	}
	if h.HeaderLength > end-b.Offset() {
		return 0, false, buf.Errorf(pkgName, sectionName, lenOff, ErrTruncated,
			"header_length %#x reaches past the unit end %#x", h.HeaderLength, end)
	}
	h.ProgramOffset = b.Offset() + h.HeaderLength
	b.SetLimit(h.ProgramOffset)

	h.MinInstLength = b.U8()
	h.MaxOpsPerInst = 1
	if h.Version >= 4 {
		h.MaxOpsPerInst = b.U8()
	}
	h.DefaultIsStmt = b.U8() != 0
	h.LineBase = int8(b.U8())
	rangeOff := b.Offset()
	h.LineRange = b.U8()
	h.OpcodeBase = b.U8()
	if h.OpcodeBase > 0 {
		h.StandardOpcodeLengths = b.Bytes(uint64(h.OpcodeBase - 1))
	}
	if err := b.Err(); err != nil {
		return 0, false, err
	}
	// Special opcodes and DW_LNS_const_add_pc divide by line_range. LLVM
	// instead warns and advances nothing; Go's debug/dwarf rejects the
	// header, as we do, since no producer writes 0.
	if h.LineRange == 0 {
		return 0, false, buf.Errorf(pkgName, sectionName, rangeOff, ErrFormat, "line_range is 0")
	}

	tabOff = b.Offset()
	strx, err := parseTables(h, b, opts, dry)
	if err != nil {
		return 0, false, err
	}
	if strx {
		b.Seek(tabOff)
		if _, err := parseTables(h, b, opts, false); err != nil {
			return 0, false, err
		}
		dry = false
	}
	b.SetLimit(end)
	b.Seek(h.ProgramOffset)
	return tabOff, dry, b.Err()
}

// parseTables reads the directory and file tables at b's offset, b being
// limited to the header's end; with dry set it only validates them (see
// parseHeader) and reports whether it left DW_FORM_strx* names unresolved.
func parseTables(h *Header, b *buf.Reader, opts *Options, dry bool) (strx bool, err error) {
	in := &inlineNames{data: b.Data(), start: b.Offset(), end: h.ProgramOffset}
	if h.Version < 5 {
		return false, parseV4Tables(h, b, in, dry)
	}
	names := &nameBudget{left: opts.MaxNameBytes, inline: in, dry: dry}
	if names.left == 0 {
		names.left = 1<<20 + 64*h.HeaderLength
	}
	err = parseV5Tables(h, b, opts, names)
	if names.strx {
		return true, nil
	}
	return false, err
}

// errStrx stops a dry run at its first DW_FORM_strx* name; it never leaves
// parseTables.
var errStrx = errors.New("linetable: strx name in a dry run")

// parseV4Tables reads the NUL-terminated include_directories and file_names
// lists of versions 2-4 [DWARF4 6.2.4]. Index 0 of each is a placeholder so
// that the program's 1-based numbers index them directly.
func parseV4Tables(h *Header, b *buf.Reader, names *inlineNames, dry bool) error {
	if !dry {
		h.Dirs = append(h.Dirs, "")
	}
	for {
		off := b.Offset()
		s := b.CString()
		if len(s) == 0 {
			break
		}
		if !dry {
			h.Dirs = append(h.Dirs, names.get(off, s))
		}
	}
	if !dry {
		h.Files = append(h.Files, File{})
	}
	for {
		off := b.Offset()
		name := b.CString()
		if len(name) == 0 {
			break
		}
		dir, mtime, size := b.ULEB(), b.ULEB(), b.ULEB()
		if !dry {
			h.Files = append(h.Files, File{Name: names.get(off, name), Dir: dir, MTime: mtime, Size: size})
		}
	}
	return b.Err()
}

// parseV5Tables reads the self-describing directory and file tables of
// DWARF 5 [DWARF5 6.2.4.1]: for each, an entry format (pairs of content type
// and form) and then the entries.
func parseV5Tables(h *Header, b *buf.Reader, opts *Options, names *nameBudget) error {
	u := dw.Unit{Version: h.Version, Dwarf64: h.Dwarf64, AddrSize: h.AddressSize}
	dry := names.dry
	var err error
	if h.DirFormats, err = parseFormats(b); err != nil {
		return err
	}
	dirs, err := parseEntries(b, h.DirFormats, u, opts, names, "directory")
	if err != nil {
		return err
	}
	if !dry && len(dirs) > 0 {
		h.Dirs = make([]string, len(dirs))
		for i := range dirs {
			h.Dirs[i] = dirs[i].Name
		}
	}
	if h.FileFormats, err = parseFormats(b); err != nil {
		return err
	}
	files, err := parseEntries(b, h.FileFormats, u, opts, names, "file")
	if !dry {
		h.Files = files
	}
	return err
}

// nameBudget counts down the bytes of names a header may still copy out of
// the string sections (Options.MaxNameBytes), and makes the names stored in
// the header itself.
type nameBudget struct {
	left   uint64
	inline *inlineNames
	dry    bool // validate only: make no strings and no entries
	strx   bool // a dry run met a DW_FORM_strx* name and stopped (errStrx)
}

// inlineNames makes the strings of names stored inside a header (every name
// of versions 2-4; DW_FORM_string names of version 5, which Go's linker
// writes). They are substrings of one copy of the header's directory and
// file tables, so that a header costs one allocation for all its names
// rather than one per name (cmd/go's headers name about 60 files each).
// The copy is as long as the tables, so it is bounded by the input.
type inlineNames struct {
	data       []byte // the section
	start, end uint64 // the tables' bytes within data
	s          string // string(data[start:end]), made on first use
}

// get returns name, which lies in the section at absolute offset off, as a
// string.
func (in *inlineNames) get(off uint64, name []byte) string {
	if off < in.start || off > in.end || uint64(len(name)) > in.end-off {
		return string(name) // not within the tables; not expected
	}
	if in.s == "" {
		in.s = string(in.data[in.start:in.end])
	}
	i := off - in.start
	return in.s[i : i+uint64(len(name))]
}

// parseFormats reads a directory_entry_format or file_name_entry_format:
// a one-byte count of ULEB128 pairs. The count is at most 255, but each
// pair takes at least 2 bytes, so it is capped by the bytes left anyway.
func parseFormats(b *buf.Reader) ([]EntryFormat, error) {
	off := b.Offset()
	n := int(b.U8())
	if err := b.Err(); err != nil {
		return nil, err
	}
	if n > b.Len()/2 {
		return nil, buf.Errorf(pkgName, sectionName, off, ErrTruncated,
			"%d entry formats need at least %d bytes, %d left", n, 2*n, b.Len())
	}
	if n == 0 {
		return nil, nil
	}
	f := make([]EntryFormat, n)
	for i := range f {
		f[i] = EntryFormat{Content: b.ULEB(), Form: b.ULEB()}
	}
	return f, b.Err()
}

// zeroWidth reports whether form f occupies no bytes in an entry.
func zeroWidth(f uint64) bool {
	return dw.Form(f) == dw.FormFlagPresent || dw.Form(f) == dw.FormImplicitConst
}

// parseEntries reads a ULEB128 count and that many entries of the given
// formats. Unknown content types (vendor extensions such as
// DW_LNCT_LLVM_source) are skipped by their form; unknown forms are errors,
// since their size cannot be known.
func parseEntries(b *buf.Reader, formats []EntryFormat, u dw.Unit, opts *Options, names *nameBudget, what string) ([]File, error) {
	countOff := b.Offset()
	count := b.ULEB()
	if err := b.Err(); err != nil {
		return nil, err
	}
	if count == 0 {
		return nil, nil
	}
	width := 0 // a lower bound on an entry's size in bytes
	for _, f := range formats {
		if !zeroWidth(f.Form) {
			width++
		}
	}
	if width == 0 {
		// An entry format without bytes (no formats, or only
		// DW_FORM_flag_present and DW_FORM_implicit_const) lacks the
		// DW_LNCT_path DWARF 5 requires. Allow as many entries as bytes
		// remain, so that a few bytes cannot ask for a huge table.
		if count > uint64(b.Len()) {
			return nil, buf.Errorf(pkgName, sectionName, countOff, ErrLimit,
				"%d %s entries of zero width, more than the %d bytes left", count, what, b.Len())
		}
	} else if count > uint64(b.Len()/width) {
		return nil, buf.Errorf(pkgName, sectionName, countOff, ErrTruncated,
			"%d %s entries need at least %d bytes each, %d left", count, what, width, b.Len())
	}
	if names.dry {
		return nil, validateEntries(b, count, formats, u, opts, names)
	}
	files := make([]File, count)
	if inlineFormats(formats) {
		// Go's linker: inline paths and ULEB128 directory indexes. The
		// same reads as dw.Read's, without a call and a switch per field.
		for i := range files {
			e := &files[i]
			for _, f := range formats {
				if f.Content == LNCTPath {
					off := b.Offset()
					e.Name = names.inline.get(off, b.CString())
				} else {
					e.Dir = b.ULEB()
				}
			}
		}
		if err := b.Err(); err != nil {
			return nil, err
		}
		return files, nil
	}
	for i := range files {
		if err := parseEntry(b, &files[i], formats, u, opts, names); err != nil {
			return nil, err
		}
	}
	return files, nil
}

// validateEntries is parseEntries' loop for a dry run: the same reads and
// checks into one scratch entry.
func validateEntries(b *buf.Reader, count uint64, formats []EntryFormat, u dw.Unit, opts *Options, names *nameBudget) error {
	if inlineFormats(formats) {
		for range count {
			for _, f := range formats {
				if f.Content == LNCTPath {
					b.CString()
				} else {
					b.ULEB()
				}
			}
		}
		return b.Err()
	}
	var e File
	for range count {
		if err := parseEntry(b, &e, formats, u, opts, names); err != nil {
			return err
		}
	}
	return nil
}

// parseEntry reads one directory or file entry of the given formats into e.
func parseEntry(b *buf.Reader, e *File, formats []EntryFormat, u dw.Unit, opts *Options, names *nameBudget) error {
	for _, f := range formats {
		valOff := b.Offset()
		v := dw.Read(b, dw.Form(f.Form), u, 0)
		if err := b.Err(); err != nil {
			return err
		}
		bad := false
		switch f.Content {
		case LNCTPath:
			var err error
			e.Name, err = entryString(v, valOff, opts, names)
			if err != nil {
				return err
			}
		case LNCTDirectoryIndex:
			e.Dir = v.U
			bad = v.Class != dw.ClassConstant
		case LNCTTimestamp:
			// DWARF 5 allows a block for an unspecified encoding;
			// it carries no number we can use.
			e.MTime = v.U
			bad = v.Class != dw.ClassConstant && v.Class != dw.ClassBlock
		case LNCTSize:
			e.Size = v.U
			bad = v.Class != dw.ClassConstant
		case LNCTMD5:
			bad = v.Class != dw.ClassData16
			if !bad {
				copy(e.MD5[:], v.B)
				e.HasMD5 = true
			}
		}
		if bad {
			return buf.Errorf(pkgName, sectionName, valOff, ErrFormat,
				"%s content type %#x has form %#x", lnctName(f.Content), f.Content, f.Form)
		}
	}
	return nil
}

// inlineFormats reports whether formats holds only DW_LNCT_path as
// DW_FORM_string and DW_LNCT_directory_index as DW_FORM_udata, as Go's
// linker writes them.
func inlineFormats(formats []EntryFormat) bool {
	for _, f := range formats {
		switch {
		case f.Content == LNCTPath && dw.Form(f.Form) == dw.FormString:
		case f.Content == LNCTDirectoryIndex && dw.Form(f.Form) == dw.FormUdata:
		default:
			return false
		}
	}
	return true
}

func lnctName(c uint64) string {
	switch c {
	case LNCTPath:
		return "DW_LNCT_path"
	case LNCTDirectoryIndex:
		return "DW_LNCT_directory_index"
	case LNCTTimestamp:
		return "DW_LNCT_timestamp"
	case LNCTSize:
		return "DW_LNCT_size"
	case LNCTMD5:
		return "DW_LNCT_MD5"
	}
	return "vendor"
}

// entryString resolves a DW_LNCT_path value: inline (Go's linker writes
// DW_FORM_string paths), in .debug_line_str (gcc, clang), in .debug_str, or
// through the caller's string-offsets resolver. Names from the string
// sections are charged to names.
func entryString(v dw.Value, off uint64, opts *Options, names *nameBudget) (string, error) {
	var sec []byte
	var form, secName string
	switch v.Class {
	case dw.ClassString:
		if names.dry {
			return "", nil
		}
		return names.inline.get(off, v.B), nil
	case dw.ClassLineStrp:
		sec, form, secName = opts.LineStr, "DW_FORM_line_strp", ".debug_line_str"
	case dw.ClassStrp:
		sec, form, secName = opts.Str, "DW_FORM_strp", ".debug_str"
	case dw.ClassStrx:
		if opts.StrX == nil {
			return "", nil
		}
		if names.dry {
			// Stop: parseHeader decodes the tables for real at once,
			// so that the caller's resolver runs once per name and
			// the first error is the one an eager decode meets.
			names.strx = true
			return "", errStrx
		}
		s, err := opts.StrX(v.U)
		if err != nil {
			return "", &DecodeError{Package: pkgName, Section: sectionName, Offset: off,
				Err: fmt.Errorf("DW_FORM_strx %d: %w", v.U, err)}
		}
		return s, nil
	default:
		return "", buf.Errorf(pkgName, sectionName, off, ErrFormat, "DW_LNCT_path is not a string form")
	}
	if v.U >= uint64(len(sec)) {
		return "", buf.Errorf(pkgName, sectionName, off, ErrFormat,
			"%s %#x outside %s (%#x bytes)", form, v.U, secName, len(sec))
	}
	// Search for the NUL no further than the budget allows, so that the
	// cost of many names stays bounded too.
	end := uint64(len(sec))
	if names.left < end-v.U {
		end = v.U + names.left
	}
	s, ok := buf.CStringAt(sec[:end], v.U)
	if !ok {
		if end < uint64(len(sec)) {
			return "", buf.Errorf(pkgName, sectionName, off, ErrLimit,
				"file and directory names exceed the name budget (Options.MaxNameBytes)")
		}
		return "", buf.Errorf(pkgName, sectionName, off, ErrFormat,
			"%s %#x: unterminated string in %s", form, v.U, secName)
	}
	names.left -= uint64(len(s))
	if names.dry {
		return "", nil
	}
	return string(s), nil
}
