package elfx

import (
	"bytes"
	"debug/elf"

	"github.com/symbolize-go/symbolize/internal/buf"
)

// Supplementary files. dwz -m moves the DIEs and strings that several
// debug files share into one supplementary file, which each of them then
// names: in .gnu_debugaltlink (the GNU extension: the file name, NUL, the
// supplementary file's GNU build ID) or, with dwz -5, in .debug_sup
// [DWARF5 7.3.6], which the supplementary file carries too (with
// is_supplementary set). GDB reads .debug_sup first, then
// .gnu_debugaltlink (dwarf2/dwz.c, read_alt_info), and so does SupLink.

// Section names of the two links.
const (
	secAltLink  = ".gnu_debugaltlink"
	secDebugSup = ".debug_sup"
)

// SupLink is what a dwz-processed file records of its supplementary file.
type SupLink struct {
	// Section is where the link was read: ".debug_sup" or
	// ".gnu_debugaltlink".
	Section string
	// Name is the supplementary file's path as dwz recorded it: absolute,
	// or relative to the directory of the file holding the link.
	Name string
	// ID is the identity the supplementary file must have: its GNU build
	// ID for a .gnu_debugaltlink, the sup_checksum of its own .debug_sup
	// for a .debug_sup (GDB's verify_id); see SupID. A copy.
	ID []byte
}

// DebugSup is a decoded .debug_sup section [DWARF5 7.3.6].
type DebugSup struct {
	Version uint16
	// IsSupplementary is set in the supplementary file itself, clear in
	// the files that refer to it.
	IsSupplementary bool
	// Filename names the supplementary file (empty in that file itself).
	Filename string
	// Checksum identifies the supplementary file: dwz writes the same
	// bytes in both files. It aliases the section.
	Checksum []byte
}

// SupLink returns the link to f's supplementary file, and whether f has
// one: .debug_sup (with is_supplementary clear), else .gnu_debugaltlink.
// A supplementary file's own .debug_sup is no link (see SupID). A link
// that does not decode is an error (a *DecodeError naming its section).
func (f *File) SupLink() (SupLink, bool, error) {
	ds, ok, err := f.DebugSup()
	if err != nil {
		return SupLink{}, false, err
	}
	if ok && !ds.IsSupplementary {
		if ds.Filename == "" || len(ds.Checksum) == 0 {
			return SupLink{}, false, buf.Errorf(pkg, secDebugSup, 0, ErrFormat, "no supplementary file name or checksum")
		}
		return SupLink{Section: secDebugSup, Name: ds.Filename, ID: bytes.Clone(ds.Checksum)}, true, nil
	}
	s := f.byName[secAltLink]
	if s == nil {
		return SupLink{}, false, nil
	}
	data, err := s.Data()
	if err != nil {
		return SupLink{}, false, err
	}
	name, id, err := parseAltLink(data)
	if err != nil {
		return SupLink{}, false, err
	}
	return SupLink{Section: secAltLink, Name: name, ID: bytes.Clone(id)}, true, nil
}

// SupID returns the identity f has as a supplementary file for a link read
// from the section named linkSection (SupLink.Section): for a
// .gnu_debugaltlink its GNU build ID, for a .debug_sup the checksum of its
// own .debug_sup, which must have is_supplementary set. ok is false when f
// has no such identity. The result aliases the file when it is mapped.
func (f *File) SupID(linkSection string) (id []byte, ok bool, err error) {
	if linkSection != secDebugSup {
		return f.BuildID()
	}
	ds, ok, err := f.DebugSup()
	if err != nil || !ok || !ds.IsSupplementary {
		return nil, false, err
	}
	return ds.Checksum, true, nil
}

// DebugSup decodes f's .debug_sup section, and reports whether f has one.
func (f *File) DebugSup() (DebugSup, bool, error) {
	s := f.byName[secDebugSup]
	if s == nil || !s.HasData() {
		return DebugSup{}, false, nil
	}
	data, err := s.Data()
	if err != nil {
		return DebugSup{}, false, err
	}
	ds, err := parseDebugSup(data, f.Data == elf.ELFDATA2MSB)
	if err != nil {
		return DebugSup{}, false, err
	}
	return ds, true, nil
}

// parseAltLink decodes a .gnu_debugaltlink: the supplementary file's
// name, NUL-terminated, then its build ID, the rest of the section (as
// bfd's bfd_get_alt_debug_link_info reads it). Both alias data.
func parseAltLink(data []byte) (name string, id []byte, err error) {
	r := buf.New(pkg, secAltLink, data, false)
	n := r.CString()
	if err := r.Err(); err != nil {
		return "", nil, err
	}
	if len(n) == 0 {
		return "", nil, buf.Errorf(pkg, secAltLink, 0, ErrFormat, "empty supplementary file name")
	}
	id = r.Bytes(uint64(r.Len()))
	if len(id) == 0 {
		return "", nil, buf.Errorf(pkg, secAltLink, r.Offset(), ErrTruncated, "no build ID after the file name")
	}
	return string(n), id, nil
}

// parseDebugSup decodes a .debug_sup section [DWARF5 7.3.6]: version
// (uhalf, 5), is_supplementary (ubyte), sup_filename (a NUL-terminated
// string), sup_checksum_len (ULEB128) and sup_checksum. Bytes after the
// checksum are ignored, as GDB ignores them.
func parseDebugSup(data []byte, big bool) (DebugSup, error) {
	r := buf.New(pkg, secDebugSup, data, big)
	var ds DebugSup
	ds.Version = r.U16()
	if r.Err() == nil && ds.Version != 5 {
		return DebugSup{}, buf.Errorf(pkg, secDebugSup, 0, ErrUnsupportedVersion, "version %d", ds.Version)
	}
	switch flag := r.U8(); {
	case r.Err() != nil:
	case flag > 1:
		return DebugSup{}, buf.Errorf(pkg, secDebugSup, 2, ErrFormat, "is_supplementary is %d", flag)
	default:
		ds.IsSupplementary = flag == 1
	}
	ds.Filename = string(r.CString())
	// The checksum's length is bounded by the bytes left, not trusted.
	ds.Checksum = r.Bytes(r.ULEB())
	if err := r.Err(); err != nil {
		return DebugSup{}, err
	}
	return ds, nil
}
