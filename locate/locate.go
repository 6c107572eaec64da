// Package locate finds the files that debug information lives in apart from
// the binary: an ELF binary's separate debug file, a Mach-O image's dSYM, a
// split unit's .dwo, a DWARF package (.dwp), a dwz supplementary file, the
// object files of a Mach-O debug map. Every such file is asked for by
// identity, a Key, through one interface, Locator, which yields candidate
// files opened for reading (mapped into memory where the system allows).
//
// A Locator proposes; it does not decide. The caller checks each candidate
// against the identity it asked for (the build ID, the debuglink CRC, the
// UUID, the dwo_id, the object's modification time) and closes the ones it
// refuses, so a Locator may be as liberal as it likes: a file of the right
// name from another build is never used.
//
// Dirs is the default, file-system Locator (GDB's and LLVM's search
// rules); Chain tries several in order. A network Locator (debuginfod) lives
// in a package of its own, so that importing this one links no HTTP client.
package locate

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"iter"
	"os"
	"time"

	"github.com/symbolize-go/symbolize/internal/mmap"
)

// Kind says what kind of file a Key asks for.
type Kind uint8

const (
	// KindDebugFile is an ELF binary's separate debug file: by BuildID,
	// else by DebugLink (checked against CRC).
	KindDebugFile Kind = iota + 1
	// KindDSYM is the DWARF file of a Mach-O image's dSYM bundle: by
	// UUID (and Arch for universal files). Name, when set, is a bundle or
	// DWARF file given by the user.
	KindDSYM
	// KindDWO is the .dwo file of a split unit: Name is its
	// DW_AT_dwo_name, CompDir its DW_AT_comp_dir, DWOID its dwo_id.
	KindDWO
	// KindDWP is the DWARF package of a split-DWARF binary; Name, when
	// set, is a package given by the user.
	KindDWP
	// KindSup is a dwz supplementary file: Name is the path in
	// .gnu_debugaltlink (or .debug_sup), BuildID its build ID.
	KindSup
	// KindObject is an object file named by a Mach-O debug map: Name is
	// its N_OSO path, ModTime the modification time the linker saw.
	KindObject
)

var kindNames = [...]string{KindDebugFile: "debug file", KindDSYM: "dSYM", KindDWO: "dwo", KindDWP: "dwp",
	KindSup: "supplementary file", KindObject: "object file"}

// String returns the kind's name as messages print it ("debug file", ...).
func (k Kind) String() string {
	if int(k) < len(kindNames) && kindNames[k] != "" {
		return kindNames[k]
	}
	return "unknown"
}

// Key identifies a wanted file by what the file that refers to it knows.
// Which fields matter depends on Kind.
type Key struct {
	Kind Kind
	// From is the path of the file that refers to the wanted one (the
	// binary, its debug file, the image): relative names resolve against
	// its directory. "" when unknown (a binary read from memory).
	From string

	BuildID   []byte // GNU build ID: debug files, supplementary files
	DebugLink string // .gnu_debuglink base name
	CRC       uint32 // .gnu_debuglink CRC-32 of the debug file
	UUID      []byte // Mach-O LC_UUID
	Arch      string // Mach-O architecture
	Name      string // dwo name, alt-link path, N_OSO path, or a file the user named
	CompDir   string // the split unit's compilation directory
	DWOID     uint64 // the split unit's dwo_id
	ModTime   int64  // the object's mtime, in seconds, as the debug map records it
}

// How says where a candidate was found.
type How uint8

const (
	HowGiven        How = iota + 1 // a path the user named
	HowBuildID                     // DIR/.build-id/xx/yyyy.debug
	HowDebugLink                   // the .gnu_debuglink name, in a GDB search directory
	HowBundle                      // the dSYM bundle beside the image
	HowCompDir                     // the dwo name under DW_AT_comp_dir
	HowBesideBinary                // the file's name in the referring file's directory
	HowPackage                     // BINARY.dwp beside the binary
	HowAltLink                     // the .gnu_debugaltlink path
	HowDWZDir                      // DIR/.dwz/NAME
	HowObjectPath                  // the debug map's N_OSO path
	HowDebuginfod                  // downloaded from a debuginfod server
	HowDebugDir                    // the file's name under a global debug directory (a .dwo)
)

var howNames = [...]string{HowGiven: "given", HowBuildID: "build-id folder", HowDebugLink: "debuglink",
	HowBundle: "dSYM bundle", HowCompDir: "comp_dir", HowBesideBinary: "beside the binary",
	HowPackage: "dwp beside the binary", HowAltLink: "alt link", HowDWZDir: ".dwz folder",
	HowObjectPath: "debug map path", HowDebuginfod: "debuginfod", HowDebugDir: "debug directory"}

// String returns how a file was found, as an identity record spells it.
func (h How) String() string {
	if int(h) < len(howNames) && howNames[h] != "" {
		return howNames[h]
	}
	return "unknown"
}

// File is a candidate, open for reading. Data holds the whole file when it
// is mapped (or was read into memory); ReaderAt always reads it. Close
// releases it; Data must not be used afterwards.
type File struct {
	Path     string
	How      How
	Data     []byte      // nil when the file is read through ReaderAt only
	ReaderAt io.ReaderAt // reads the file's bytes
	Size     int64
	ModTime  time.Time // zero when unknown

	closer io.Closer
}

// Drop takes the whole pages of the file bytes [off, off+n) out of the
// process's resident set when the file is mapped (see Open); the bytes
// fault back in if read again. elfx drops compressed bytes it has inflated.
func (f *File) Drop(off, n uint64) {
	if m, ok := f.closer.(*mmap.Mapping); ok {
		m.Drop(off, n)
	}
}

// Mapped reports whether Data aliases a mapping of the file, which Close
// releases.
func (f *File) Mapped() bool {
	m, ok := f.closer.(*mmap.Mapping)
	return ok && m.Mapped()
}

// Close releases the file. A second Close does nothing.
func (f *File) Close() error {
	c := f.closer
	f.closer, f.Data = nil, nil
	if c == nil {
		return nil
	}
	return c.Close()
}

// Open opens the regular file at path as a candidate found as how, mapped
// where possible. A missing file is an error wrapping fs.ErrNotExist; a
// path that names something other than a regular file (a directory, a
// device, a FIFO) is ErrNotRegular: paths come from the files being read
// and must never make us read a device.
func Open(path string, how How) (*File, error) {
	fd, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	st, err := fd.Stat()
	if err != nil {
		fd.Close()
		return nil, err
	}
	if !st.Mode().IsRegular() {
		fd.Close()
		return nil, &fs.PathError{Op: "open", Path: path, Err: ErrNotRegular}
	}
	f := &File{Path: path, How: how, Size: st.Size(), ModTime: st.ModTime()}
	if m, err := mmap.Map(fd); err == nil {
		fd.Close() // the mapping outlives the descriptor
		f.Data, f.ReaderAt, f.closer = m.Data, bytesReaderAt(m.Data), m
		return f, nil
	}
	f.ReaderAt, f.closer = fd, fd
	return f, nil
}

// NewBytes is a candidate held in memory (a file read whole, a download).
func NewBytes(path string, how How, data []byte) *File {
	return &File{Path: path, How: how, Data: data, ReaderAt: bytesReaderAt(data), Size: int64(len(data))}
}

// ErrNotRegular is wrapped by Open's error for a path that is not a
// regular file.
var ErrNotRegular = errors.New("not a regular file")

// Locator finds candidate files by identity. Locate yields them in the
// order to try them, each opened, until the caller stops; a candidate that
// exists but cannot be opened is yielded as an error and the search goes
// on. Missing candidates are skipped silently. The caller checks each
// candidate's identity and closes the ones it does not keep. ctx bounds
// slow searches (a download).
type Locator interface {
	Locate(ctx context.Context, k Key) iter.Seq2[*File, error]
}

// Chain is a Locator that asks each of its locators in turn: a later one
// only when the caller went on past every candidate of the earlier ones,
// so a network Locator after Dirs costs nothing when the file is
// installed locally.
type Chain []Locator

// Locate yields the candidates of each locator in order.
func (c Chain) Locate(ctx context.Context, k Key) iter.Seq2[*File, error] {
	return func(yield func(*File, error) bool) {
		for _, l := range c {
			for f, err := range l.Locate(ctx, k) {
				if !yield(f, err) {
					return
				}
			}
		}
	}
}

// First returns the first candidate of l for k that accept takes; accept
// returns nil to keep a file, else the reason to refuse it (the file is
// then closed). With no accepted candidate it returns the first error met
// (an open error or a refusal), or nil, nil when there was no candidate.
func First(ctx context.Context, l Locator, k Key, accept func(*File) error) (*File, error) {
	var first error
	for f, err := range l.Locate(ctx, k) {
		if err == nil {
			if err = accept(f); err == nil {
				return f, nil
			}
			f.Close()
		}
		if first == nil {
			first = err
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
	}
	return nil, first
}

// bytesReaderAt reads from a byte slice.
type bytesReaderAt []byte

func (b bytesReaderAt) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 || off > int64(len(b)) {
		return 0, io.EOF
	}
	n := copy(p, b[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}
