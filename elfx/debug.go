package elfx

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"path/filepath"

	"github.com/symbolize-go/symbolize/locate"
)

// Identity is what ties a binary to its separate debug file: the GNU build
// ID, and the .gnu_debuglink name and CRC-32.
type Identity struct {
	Path         string // the binary's path; "" if unknown (no next-to-binary search)
	BuildID      []byte // nil if the binary has none
	DebugLink    string // base name from .gnu_debuglink; "" if none
	DebugLinkCRC uint32 // CRC-32 (IEEE) of the debug file, from .gnu_debuglink
}

// Identity returns f's build ID and debuglink, with Path set to path.
// Malformed notes or debuglink are reported; absent ones are not.
func (f *File) Identity(path string) (Identity, error) {
	id := Identity{Path: path}
	bid, ok, err := f.BuildID()
	if err != nil {
		return id, err
	}
	if ok {
		// Copied: the identity may outlive a mapped file.
		id.BuildID = bytes.Clone(bid)
	}
	name, crc, ok, err := f.DebugLink()
	if err != nil {
		return id, err
	}
	if ok {
		id.DebugLink, id.DebugLinkCRC = name, crc
	}
	return id, nil
}

// DebugOptions configure OpenDebug. The zero value is ready to use.
type DebugOptions struct {
	// Locator proposes candidates; nil means locate.Dirs{}, GDB's search
	// of /usr/lib/debug and the binary's directory.
	Locator locate.Locator
	// Open configures opening each candidate.
	Open *Options
}

// IdentityError says a candidate debug file was found but belongs to
// another build. It names both identities.
type IdentityError struct {
	Binary, Debug string // paths
	// ByBuildID is true when the build IDs were compared, false when
	// the binary has none and the debuglink CRCs were.
	ByBuildID       bool
	Want, Got       []byte // build IDs (Got nil: the candidate has none)
	WantCRC, GotCRC uint32
}

// Error names the debug file, the binary and both identities.
func (e *IdentityError) Error() string {
	if e.ByBuildID {
		got := "none"
		if e.Got != nil {
			got = hex.EncodeToString(e.Got)
		}
		return fmt.Sprintf("elfx: debug file %s has build ID %s, but binary %s has build ID %s",
			e.Debug, got, e.Binary, hex.EncodeToString(e.Want))
	}
	return fmt.Sprintf("elfx: debug file %s has CRC-32 %#08x, but binary %s's .gnu_debuglink wants %#08x",
		e.Debug, e.GotCRC, e.Binary, e.WantCRC)
}

// OpenDebug finds and opens the separate debug file of bin, whose path is
// binPath ("" if unknown), asking the locator for a locate.KindDebugFile
// with bin's identity. A candidate is accepted only if its build ID equals
// bin's, or, when bin has no build ID, if its CRC-32 matches bin's
// .gnu_debuglink. It returns (nil, false, nil) when no candidate exists
// (or bin has neither identity), and an *IdentityError when candidates
// exist but none matches: a file of the right name from another build is
// never used. The caller closes the returned file.
func OpenDebug(ctx context.Context, bin *File, binPath string, opts *DebugOptions) (*File, bool, error) {
	var o DebugOptions
	if opts != nil {
		o = *opts
	}
	if o.Locator == nil {
		o.Locator = locate.Dirs{}
	}
	id, err := bin.Identity(binPath)
	if err != nil {
		return nil, false, err
	}
	if id.BuildID == nil && id.DebugLink == "" {
		return nil, false, nil
	}
	key := locate.Key{Kind: locate.KindDebugFile, From: binPath, BuildID: id.BuildID, DebugLink: id.DebugLink, CRC: id.DebugLinkCRC}
	self, _ := filepath.Abs(binPath)
	var df *File
	lf, err := locate.First(ctx, o.Locator, key, func(lf *locate.File) error {
		// The debuglink may name the binary itself (same directory,
		// same name); it is not its own debug file.
		if ap, _ := filepath.Abs(lf.Path); binPath != "" && ap == self {
			return errSelf
		}
		f, err := NewLocated(lf, o.Open)
		if err != nil {
			return fmt.Errorf("elfx: debug file candidate %s: %w", lf.Path, err)
		}
		if err := checkIdentity(id, f, binPath, lf.Path); err != nil {
			return err
		}
		df = f
		return nil
	})
	if lf == nil {
		if errors.Is(err, errSelf) {
			err = nil
		}
		return nil, false, err
	}
	return df, true, nil
}

// errSelf refuses the binary as its own debug file: no error of its own.
var errSelf = errors.New("the binary itself")

// NewLocated decodes the ELF file a locator found. The File takes lf over:
// its Close closes lf. Data is zero-copy when lf is mapped.
func NewLocated(lf *locate.File, opts *Options) (*File, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	var f *File
	var err error
	if lf.Data != nil {
		f, err = newFile(lf.Data, bytesReaderAt(lf.Data), uint64(len(lf.Data)), &o)
	} else {
		f, err = newFile(nil, lf.ReaderAt, uint64(max(lf.Size, 0)), &o)
	}
	if err != nil {
		return nil, err
	}
	f.closer = lf
	return f, nil
}

// checkIdentity reports whether df (at path) is the debug file of the
// binary identified by id.
func checkIdentity(id Identity, df *File, binPath, path string) error {
	if id.BuildID != nil {
		got, ok, err := df.BuildID()
		if err != nil {
			return err
		}
		// Copied: df is closed when it does not match, and the error
		// must not alias its mapping.
		got = bytes.Clone(got)
		if !ok || string(got) != string(id.BuildID) {
			return &IdentityError{Binary: binPath, Debug: path, ByBuildID: true, Want: id.BuildID, Got: got}
		}
		return nil
	}
	crc, err := fileCRC(df)
	if err != nil {
		return err
	}
	if crc != id.DebugLinkCRC {
		return &IdentityError{Binary: binPath, Debug: path, WantCRC: id.DebugLinkCRC, GotCRC: crc}
	}
	return nil
}

// fileCRC is the CRC-32 (IEEE, as GDB's gnu_debuglink_crc32) of the whole
// file, read in chunks when the file is not mapped.
func fileCRC(f *File) (uint32, error) {
	if f.data != nil {
		return crc32.ChecksumIEEE(f.data), nil
	}
	h := crc32.NewIEEE()
	if _, err := io.Copy(h, io.NewSectionReader(f.ra, 0, int64(f.size))); err != nil {
		return 0, err
	}
	return h.Sum32(), nil
}

// OpenWithDebug opens the binary at path and its separate debug file, if
// one is found and matches. debug is nil when there is none. Closing is
// the caller's: both files.
func OpenWithDebug(ctx context.Context, path string, opts *DebugOptions) (bin, debug *File, err error) {
	var oo *Options
	if opts != nil {
		oo = opts.Open
	}
	bin, err = Open(path, oo)
	if err != nil {
		return nil, nil, err
	}
	debug, _, err = OpenDebug(ctx, bin, path, opts)
	if err != nil {
		bin.Close()
		return nil, nil, err
	}
	return bin, debug, nil
}
