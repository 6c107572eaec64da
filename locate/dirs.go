package locate

import (
	"context"
	"encoding/hex"
	"errors"
	"io/fs"
	"iter"
	"os"
	"path/filepath"
	"strings"
)

// DefaultDebugDir is the global debug directory GDB uses by default.
const DefaultDebugDir = "/usr/lib/debug"

// Dirs finds files in the file system, the way GDB, dsymutil and
// llvm-symbolizer do. Its zero value searches /usr/lib/debug and the
// referring file's directory.
type Dirs struct {
	// DebugDirs are the global debug directories. nil means
	// [DefaultDebugDir]; an empty non-nil slice means none.
	DebugDirs []string
	// SkipBinaryDir turns off the search of the referring file's own
	// directory (and its .debug subdirectory).
	SkipBinaryDir bool
}

// Locate yields the candidates for k, in this order (DIR is each debug
// directory, BINDIR the referring file's directory):
//
//   - KindDebugFile [GDB "Separate Debug Files"]: DIR/.build-id/xx/yyyy.debug
//     for build ID xxyyyy; then for a debuglink NAME, BINDIR/NAME,
//     BINDIR/.debug/NAME and DIR/BINDIR/NAME.
//   - KindDSYM: Name when set (a bundle, whose DWARF file is named after
//     the image, or the DWARF file itself); else BINARY.dSYM beside the image.
//   - KindDWO: Name when absolute; else COMPDIR/Name (as LLVM), then
//     BINDIR/Name and BINDIR/base(Name), then DIR/Name (when Name does
//     not climb out with "..") and DIR/base(Name) (as GDB searches its
//     debug-file-directory).
//   - KindDWP: Name when set; else BINARY.dwp (as LLVM).
//   - KindSup [dwz]: Name when absolute, else BINDIR/Name; then, for a
//     Name holding "/.dwz/", DIR/.dwz/ followed by what comes after it (as
//     GDB moves a supplementary file to other debug directories); then
//     DIR/.dwz/base(Name); then DIR/.build-id/xx/yyyy.debug by build ID.
//   - KindObject: Name, relative to BINDIR when not absolute.
//
// Names from the files (debuglink, dwo and alt-link names) never climb out
// of the directory they are joined to where that matters (a debuglink is a
// base name). It touches nothing but the candidates it opens.
func (d Dirs) Locate(_ context.Context, k Key) iter.Seq2[*File, error] {
	return func(yield func(*File, error) bool) {
		for _, c := range d.candidates(k) {
			f, err := Open(c.path, c.how)
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if !yield(f, err) {
				return
			}
		}
	}
}

type candidate struct {
	path string
	how  How
}

func (d Dirs) dirs() []string {
	if d.DebugDirs == nil {
		return []string{DefaultDebugDir}
	}
	return d.DebugDirs
}

// bindir returns the directory of the referring file, absolute when it can
// be made so; "" when the referring file is unknown.
func (k *Key) bindir() string {
	if k.From == "" {
		return ""
	}
	p, err := filepath.Abs(k.From)
	if err != nil {
		p = k.From
	}
	return filepath.Dir(p)
}

// candidates lists the paths Locate tries, in order.
func (d Dirs) candidates(k Key) []candidate {
	var out []candidate
	add := func(p string, how How) { out = append(out, candidate{p, how}) }
	byBuildID := func() {
		if len(k.BuildID) >= 2 {
			h := hex.EncodeToString(k.BuildID)
			for _, dir := range d.dirs() {
				add(filepath.Join(dir, ".build-id", h[:2], h[2:]+".debug"), HowBuildID)
			}
		}
	}
	bindir := k.bindir()
	switch k.Kind {
	case KindDebugFile:
		byBuildID()
		// A debuglink is a base name; anything else could escape the
		// directories searched.
		if name := k.DebugLink; name != "" && !strings.ContainsRune(name, '/') && name != "." && name != ".." && bindir != "" {
			if !d.SkipBinaryDir {
				add(filepath.Join(bindir, name), HowDebugLink)
				add(filepath.Join(bindir, ".debug", name), HowDebugLink)
			}
			for _, dir := range d.dirs() {
				add(filepath.Join(dir, bindir, name), HowDebugLink)
			}
		}
	case KindDSYM:
		bundle, how := k.Name, HowGiven
		if bundle == "" && k.From != "" {
			bundle, how = k.From+".dSYM", HowBundle
		}
		for _, p := range bundleDWARF(bundle, k.From) {
			add(p, how)
		}
	case KindDWO:
		if k.Name == "" {
			break
		}
		if filepath.IsAbs(k.Name) {
			add(k.Name, HowCompDir)
			break
		}
		if k.CompDir != "" {
			add(filepath.Join(k.CompDir, k.Name), HowCompDir)
		}
		base := filepath.Base(k.Name)
		if bindir != "" && !d.SkipBinaryDir {
			add(filepath.Join(bindir, k.Name), HowBesideBinary)
			if base != k.Name {
				add(filepath.Join(bindir, base), HowBesideBinary)
			}
		}
		for _, dir := range d.dirs() {
			if filepath.IsLocal(k.Name) {
				add(filepath.Join(dir, k.Name), HowDebugDir)
			}
			if base != k.Name && base != ".." && base != "." {
				add(filepath.Join(dir, base), HowDebugDir)
			}
		}
	case KindDWP:
		switch {
		case k.Name != "":
			add(k.Name, HowGiven)
		case k.From != "":
			add(k.From+".dwp", HowPackage)
		}
	case KindSup:
		if k.Name != "" {
			switch {
			case filepath.IsAbs(k.Name):
				add(k.Name, HowAltLink)
			case bindir != "":
				add(filepath.Join(bindir, k.Name), HowAltLink)
			}
			// GDB (dwz_search_other_debugdirs) moves a name under
			// ".../.dwz/" to each debug directory: Debian's
			// /usr/lib/debug/.dwz/x86_64-linux-gnu/NAME.debug is
			// DIR/.dwz/x86_64-linux-gnu/NAME.debug there.
			if i := strings.LastIndex(k.Name, "/.dwz/"); i >= 0 {
				if rest := k.Name[i+len("/.dwz/"):]; filepath.IsLocal(rest) {
					for _, dir := range d.dirs() {
						add(filepath.Join(dir, ".dwz", rest), HowDWZDir)
					}
				}
			}
			if base := filepath.Base(k.Name); base != "." && base != ".." && base != "/" {
				for _, dir := range d.dirs() {
					add(filepath.Join(dir, ".dwz", base), HowDWZDir)
				}
			}
		}
		byBuildID()
	case KindObject:
		switch {
		case k.Name == "":
		case filepath.IsAbs(k.Name) || bindir == "":
			add(k.Name, HowObjectPath)
		default:
			add(filepath.Join(bindir, k.Name), HowObjectPath)
		}
	}
	// Two rules can propose one path (an absolute alt link under a debug
	// directory's .dwz): try it once.
	seen := make(map[string]bool, len(out))
	n := 0
	for _, c := range out {
		if !seen[c.path] {
			seen[c.path] = true
			out[n] = c
			n++
		}
	}
	return out[:n]
}

// bundleDWARF returns the candidates for the DWARF file of a dSYM: for a
// path ending in ".dSYM" (a bundle), in PATH/Contents/Resources/DWARF the
// file named after the image, else the only file there, else the file named
// after the bundle (as dsymutil names it); any other path is taken to be
// the DWARF file itself.
func bundleDWARF(path, image string) []string {
	if path == "" {
		return nil
	}
	clean := strings.TrimRight(path, "/")
	if !strings.HasSuffix(clean, ".dSYM") {
		return []string{path}
	}
	dir := filepath.Join(clean, "Contents", "Resources", "DWARF")
	var out []string
	if image != "" {
		out = append(out, filepath.Join(dir, filepath.Base(image)))
	}
	if ents, err := os.ReadDir(dir); err == nil && len(ents) == 1 {
		out = append(out, filepath.Join(dir, ents[0].Name()))
	}
	return append(out, filepath.Join(dir, strings.TrimSuffix(filepath.Base(clean), ".dSYM")))
}
