package macho

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// UUIDMismatchError says a dSYM's slice for Arch has a different UUID from
// the binary's: it describes another build, and its addresses would
// symbolize wrongly. It is never silently ignored.
type UUIDMismatchError struct {
	Arch   string
	Binary UUID
	DSYM   UUID
	Path   string // of the dSYM DWARF file, when known
}

func (e *UUIDMismatchError) Error() string {
	return fmt.Sprintf("macho: dSYM %s (%s) has UUID %v, binary has %v", e.Path, e.Arch, e.DSYM, e.Binary)
}

// NoUUIDError says a binary or dSYM lacks LC_UUID, so the pair cannot be
// verified. It wraps ErrNoUUID.
type NoUUIDError struct {
	What string // "binary" or "dSYM"
	Path string
}

func (e *NoUUIDError) Error() string {
	return fmt.Sprintf("macho: %s %s: %v; refusing to pair it", e.What, e.Path, ErrNoUUID)
}

// Unwrap returns ErrNoUUID.
func (e *NoUUIDError) Unwrap() error { return ErrNoUUID }

// DSYMPath returns where a dSYM bundle next to binaryPath keeps its DWARF:
// binaryPath.dSYM/Contents/Resources/DWARF/<base name>.
func DSYMPath(binaryPath string) string {
	return filepath.Join(binaryPath+".dSYM", "Contents", "Resources", "DWARF", filepath.Base(binaryPath))
}

// BundleDWARF turns a path to a .dSYM bundle into the DWARF file inside it;
// any other path is returned as is. A bundle's DWARF directory normally
// holds one file named after the binary (binaryPath, when not empty);
// failing that, the only file there; failing that, the file named after
// the bundle. The result need not exist.
func BundleDWARF(p, binaryPath string) string {
	if !strings.HasSuffix(strings.TrimSuffix(p, "/"), ".dSYM") {
		return p
	}
	dir := filepath.Join(p, "Contents", "Resources", "DWARF")
	if binaryPath != "" {
		if c := filepath.Join(dir, filepath.Base(binaryPath)); fileExists(c) {
			return c
		}
	}
	if ents, err := os.ReadDir(dir); err == nil && len(ents) == 1 {
		return filepath.Join(dir, ents[0].Name())
	}
	return filepath.Join(dir, filepath.Base(strings.TrimSuffix(strings.TrimSuffix(p, "/"), ".dSYM")))
}

// FileHasMagic reports whether the file at path begins with a Mach-O magic
// number (see HasMagic), reading only its first four bytes; a file that
// cannot be read is not Mach-O. It lets a caller choose between Mach-O and
// other formats before reading a whole file.
func FileHasMagic(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	var m [4]byte
	if _, err := io.ReadFull(f, m[:]); err != nil {
		return false
	}
	return HasMagic(m[:])
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

// MatchDSYM selects from dsymData (thin or universal) the slice for bin's
// architecture and checks that its UUID equals bin's. A missing slice is
// *ArchNotFoundError, a UUID missing on either side *NoUUIDError, and
// different UUIDs *UUIDMismatchError. path only labels errors.
func MatchDSYM(bin *File, dsymData []byte, path string) (*File, error) {
	if !bin.HasUUID {
		return nil, &NoUUIDError{What: "binary", Path: path}
	}
	d, err := Select(dsymData, bin.Arch())
	if err != nil {
		return nil, err
	}
	if !d.HasUUID {
		return nil, &NoUUIDError{What: "dSYM", Path: path}
	}
	if d.UUID != bin.UUID {
		return nil, &UUIDMismatchError{Arch: bin.Arch(), Binary: bin.UUID, DSYM: d.UUID, Path: path}
	}
	return d, nil
}

// OpenDSYM finds, reads and verifies the dSYM for bin, the image parsed
// from binaryPath. explicit, when not empty, is a .dSYM bundle or the DWARF
// file itself, and must exist; otherwise DSYMPath(binaryPath) is tried and
// its absence is not an error: (nil, "", nil). It returns the matching slice
// and the path it was read from. Reading files happens in this file (here,
// in FileHasMagic and in BundleDWARF) and nowhere else in the
// package; callers with other storage use MatchDSYM.
func OpenDSYM(bin *File, binaryPath, explicit string) (*File, string, error) {
	p := DSYMPath(binaryPath)
	if explicit != "" {
		p = BundleDWARF(explicit, binaryPath)
	}
	data, err := os.ReadFile(p)
	if err != nil {
		if explicit == "" && errors.Is(err, fs.ErrNotExist) {
			return nil, "", nil
		}
		return nil, "", err
	}
	d, err := MatchDSYM(bin, data, p)
	if err != nil {
		return nil, "", err
	}
	return d, p, nil
}
