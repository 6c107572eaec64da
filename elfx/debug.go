package elfx

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"path/filepath"
	"strings"
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

// Locator proposes files that may be the separate debug file for a binary.
// OpenDebug checks each candidate's identity, so a Locator need not.
// Implementations may fetch files (a debuginfod client) and return the
// local paths.
type Locator interface {
	// Locate returns candidate paths in the order to try them. Paths
	// that do not exist are skipped by the caller.
	Locate(ctx context.Context, id Identity) ([]string, error)
}

// DefaultDebugDir is the global debug directory GDB uses by default.
const DefaultDebugDir = "/usr/lib/debug"

// DirLocator finds debug files the way GDB does [GDB "Debugging
// Information in Separate Files"]. Its zero value searches
// /usr/lib/debug and the binary's directory.
type DirLocator struct {
	// DebugDirs are the global debug directories. nil means
	// [DefaultDebugDir]; an empty non-nil slice means none.
	DebugDirs []string
	// SkipBinaryDir turns off the search of the binary's own directory
	// and its .debug subdirectory.
	SkipBinaryDir bool
}

// Locate returns, in GDB's order: for a build ID b (hex h),
// DIR/.build-id/h[:2]/h[2:].debug for each debug directory DIR; then for a
// debuglink NAME of a binary in BINDIR, BINDIR/NAME, BINDIR/.debug/NAME
// and DIR/BINDIR/NAME for each DIR. It touches no file system.
func (l DirLocator) Locate(_ context.Context, id Identity) ([]string, error) {
	dirs := l.DebugDirs
	if dirs == nil {
		dirs = []string{DefaultDebugDir}
	}
	var out []string
	if len(id.BuildID) >= 2 {
		h := hex.EncodeToString(id.BuildID)
		for _, d := range dirs {
			out = append(out, filepath.Join(d, ".build-id", h[:2], h[2:]+".debug"))
		}
	}
	// A debuglink is a base name; anything else could escape the
	// directories searched.
	if name := id.DebugLink; name != "" && !strings.ContainsRune(name, '/') && name != "." && name != ".." {
		if id.Path != "" {
			bin, err := filepath.Abs(id.Path)
			if err != nil {
				bin = id.Path
			}
			bindir := filepath.Dir(bin)
			if !l.SkipBinaryDir {
				out = append(out, filepath.Join(bindir, name), filepath.Join(bindir, ".debug", name))
			}
			for _, d := range dirs {
				out = append(out, filepath.Join(d, bindir, name))
			}
		}
	}
	return out, nil
}

// DebugOptions configure OpenDebug. The zero value is ready to use.
type DebugOptions struct {
	// Locator proposes candidates; nil means DirLocator{}.
	Locator Locator
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
// binPath ("" if unknown). A candidate is accepted only if its build ID
// equals bin's, or, when bin has no build ID, if its CRC-32 matches bin's
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
		o.Locator = DirLocator{}
	}
	id, err := bin.Identity(binPath)
	if err != nil {
		return nil, false, err
	}
	if id.BuildID == nil && id.DebugLink == "" {
		return nil, false, nil
	}
	locs := Chain{o.Locator}
	if c, ok := o.Locator.(Chain); ok {
		locs = c
	}
	var firstErr error
	for _, l := range locs {
		paths, err := l.Locate(ctx, id)
		if err != nil {
			firstErr = cmp(firstErr, err)
			continue
		}
		df, err := tryCandidates(ctx, id, binPath, paths, o.Open)
		if df != nil {
			return df, true, nil
		}
		if ctx.Err() != nil {
			return nil, false, ctx.Err()
		}
		firstErr = cmp(firstErr, err)
	}
	return nil, false, firstErr
}

// tryCandidates opens paths in order and returns the first whose identity
// matches, or else the first error met (an *IdentityError for a file of
// another build); missing files are skipped silently.
func tryCandidates(ctx context.Context, id Identity, binPath string, paths []string, opts *Options) (*File, error) {
	self, _ := filepath.Abs(binPath)
	var firstErr error
	for _, p := range paths {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		// The debuglink may name the binary itself (same directory,
		// same name); it is not its own debug file.
		if ap, _ := filepath.Abs(p); binPath != "" && ap == self {
			continue
		}
		df, err := Open(p, opts)
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				firstErr = cmp(firstErr, fmt.Errorf("elfx: debug file candidate %s: %w", p, err))
			}
			continue
		}
		if err := checkIdentity(id, df, binPath, p); err != nil {
			df.Close()
			firstErr = cmp(firstErr, err)
			continue
		}
		return df, nil
	}
	return nil, firstErr
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
