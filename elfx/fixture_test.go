package elfx

import (
	"bytes"
	"context"
	"debug/elf"
	"encoding/hex"
	"errors"
	"iter"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/symbolize-go/symbolize/locate"
)

// fixtureDirs are searched for ELF fixtures: testdata/elf, plus the
// colon-separated directories in $ELFX_FIXTURES (for local checks against
// other binaries). Absent directories are skipped.
func fixtureDirs() []string {
	dirs := []string{filepath.Join("..", "testdata", "elf")}
	if e := os.Getenv("ELFX_FIXTURES"); e != "" {
		dirs = append(dirs, filepath.SplitList(e)...)
	}
	return dirs
}

// elfFixtures returns every ELF file under the fixture directories.
func elfFixtures(t testing.TB) []string {
	var out []string
	for _, d := range fixtureDirs() {
		filepath.WalkDir(d, func(p string, e os.DirEntry, err error) error {
			if err != nil || !e.Type().IsRegular() {
				return nil
			}
			b := make([]byte, 4)
			if f, err := os.Open(p); err == nil {
				f.Read(b)
				f.Close()
			}
			if string(b) == elf.ELFMAG {
				out = append(out, p)
			}
			return nil
		})
	}
	if len(out) == 0 {
		t.Skip("no ELF fixtures under", fixtureDirs())
	}
	return out
}

// TestFixturesAgainstDebugElf checks every section of every fixture
// against the standard library's decompression, through both the mapped
// and the ReaderAt paths.
func TestFixturesAgainstDebugElf(t *testing.T) {
	for _, path := range elfFixtures(t) {
		t.Run(path, func(t *testing.T) {
			ef, err := elf.Open(path)
			if err != nil {
				t.Skip("debug/elf cannot open it:", err)
			}
			defer ef.Close()
			for _, noMmap := range []bool{false, true} {
				f, err := Open(path, &Options{NoMmap: noMmap})
				if err != nil {
					t.Fatal(err)
				}
				if len(f.Sections) != len(ef.Sections) || len(f.Progs) != len(ef.Progs) {
					t.Fatalf("%d sections, %d progs; debug/elf has %d, %d", len(f.Sections), len(f.Progs), len(ef.Sections), len(ef.Progs))
				}
				if f.Type != ef.Type || f.Machine != ef.Machine || f.Class != ef.Class || f.Entry != ef.Entry {
					t.Errorf("header %v %v %v %#x; debug/elf %v %v %v %#x", f.Type, f.Machine, f.Class, f.Entry, ef.Type, ef.Machine, ef.Class, ef.Entry)
				}
				for i, es := range ef.Sections {
					s := f.Sections[i]
					if s.Name != es.Name || s.Type != es.Type || s.Offset != es.Offset {
						t.Errorf("section %d: %q %v %#x; debug/elf %q %v %#x", i, s.Name, s.Type, s.Offset, es.Name, es.Type, es.Offset)
						continue
					}
					// debug/elf gives a SHF_COMPRESSED section the alignment
					// of its compression header, and a .zdebug one its
					// uncompressed Size only once it has been opened (Data
					// below checks that size through the bytes).
					wantAlign, wantSize := s.Addralign, s.Size
					if s.Compression == CompressZlib || s.Compression == CompressZstd {
						wantAlign = es.Addralign
					}
					if s.Compression == CompressZdebug {
						wantSize = es.Size
					}
					if s.Flags != es.Flags || s.Addr != es.Addr || s.FileSize != es.FileSize || s.Link != es.Link ||
						s.Info != es.Info || s.Entsize != es.Entsize || wantAlign != es.Addralign || wantSize != es.Size {
						t.Errorf("section %d %s: header %+v, Size %#x; debug/elf %+v", i, s.Name, s.SectionHeader, s.Size, es.SectionHeader)
					}
					if !s.HasData() {
						continue
					}
					want, werr := es.Data()
					got, err := s.Data()
					if err != nil || werr != nil {
						if (err == nil) != (werr == nil) {
							t.Errorf("%s: error %v; debug/elf %v", s.Name, err, werr)
						}
						continue
					}
					if !bytes.Equal(got, want) {
						t.Errorf("%s (%v): %d bytes differ from debug/elf's %d", s.Name, s.Compression, len(got), len(want))
					}
				}
				for i, p := range ef.Progs {
					if f.Progs[i] != p.ProgHeader {
						t.Errorf("prog %d: %+v; debug/elf %+v", i, f.Progs[i], p.ProgHeader)
					}
				}
				f.Close()
			}
		})
	}
}

// TestFixturesAgainstObjcopy compares decompressed sections with what
// GNU objcopy --decompress-debug-sections writes.
func TestFixturesAgainstObjcopy(t *testing.T) {
	objcopy, err := exec.LookPath("objcopy")
	if err != nil {
		t.Skip("no objcopy")
	}
	checked := 0
	for _, path := range elfFixtures(t) {
		f, err := Open(path, nil)
		if err != nil {
			continue
		}
		var comp []*Section
		for _, s := range f.Sections {
			if s.Compression != CompressNone {
				comp = append(comp, s)
			}
		}
		if len(comp) == 0 {
			f.Close()
			continue
		}
		t.Run(path, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "dec")
			if msg, err := exec.Command(objcopy, "--decompress-debug-sections", path, out).CombinedOutput(); err != nil {
				t.Skipf("objcopy: %v: %s", err, msg)
			}
			d, err := Open(out, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer d.Close()
			for _, s := range comp {
				// objcopy renames .zdebug_X back to .debug_X.
				ds := d.Section(strings.Replace(s.Name, ".zdebug_", ".debug_", 1))
				if ds == nil || ds.Compression != CompressNone {
					t.Errorf("%s: not decompressed by objcopy", s.Name)
					continue
				}
				want, err := ds.Data()
				if err != nil {
					t.Fatal(err)
				}
				got, err := s.Data()
				if err != nil || !bytes.Equal(got, want) {
					t.Errorf("%s (%v): %d bytes, %v; objcopy gives %d bytes", s.Name, s.Compression, len(got), err, len(want))
				}
				checked++
			}
		})
		f.Close()
	}
	t.Logf("%d compressed sections checked", checked)
}

var readelfBuildID = regexp.MustCompile(`Build ID: ([0-9a-f]+)`)

// TestFixturesBuildID compares build IDs with GNU readelf -n.
func TestFixturesBuildID(t *testing.T) {
	readelf, err := exec.LookPath("readelf")
	if err != nil {
		t.Skip("no readelf")
	}
	for _, path := range elfFixtures(t) {
		out, err := exec.Command(readelf, "-n", "-W", path).Output()
		if err != nil {
			continue
		}
		f, err := Open(path, nil)
		if err != nil {
			t.Errorf("%s: %v", path, err)
			continue
		}
		id, ok, err := f.BuildID()
		m := readelfBuildID.FindSubmatch(out)
		switch {
		case err != nil:
			t.Errorf("%s: BuildID: %v", path, err)
		case m == nil && ok:
			t.Errorf("%s: BuildID %x; readelf finds none", path, id)
		case m != nil && (!ok || hex.EncodeToString(id) != string(m[1])):
			t.Errorf("%s: BuildID %x, %v; readelf %s", path, id, ok, m[1])
		}
		f.Close()
	}
}

// fixedLocator proposes fixed paths.
type fixedLocator []string

func (l fixedLocator) Locate(context.Context, locate.Key) iter.Seq2[*locate.File, error] {
	return func(yield func(*locate.File, error) bool) {
		for _, p := range l {
			if !yield(locate.Open(p, locate.HowGiven)) {
				return
			}
		}
	}
}

// TestFixturesDebugFiles: every stripped fixture whose build ID has a
// file under debug/.build-id finds it, and every debug file of another
// build is refused with an *IdentityError.
func TestFixturesDebugFiles(t *testing.T) {
	type info struct {
		path string
		id   []byte
		dbg  bool // has .debug_info data
	}
	var all []info
	for _, path := range elfFixtures(t) {
		f, err := Open(path, nil)
		if err != nil {
			continue
		}
		id, _, _ := f.BuildID()
		s := f.Section(".debug_info")
		all = append(all, info{path, bytes.Clone(id), s != nil && s.HasData()})
		f.Close()
	}
	found, refused := 0, 0
	for _, b := range all {
		if b.id == nil || b.dbg || strings.HasSuffix(b.path, ".debug") {
			continue // only stripped binaries with a build ID
		}
		bin, err := Open(b.path, nil)
		if err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join(filepath.Dir(b.path), "debug")
		h := hex.EncodeToString(b.id)
		if _, err := os.Stat(filepath.Join(dir, ".build-id", h[:2], h[2:]+".debug")); err == nil {
			df, ok, err := OpenDebug(context.Background(), bin, b.path, &DebugOptions{Locator: locate.Dirs{DebugDirs: []string{dir}}})
			if err != nil || !ok {
				t.Errorf("%s: OpenDebug = %v, %v", b.path, ok, err)
			} else {
				found++
				df.Close()
			}
		}
		for _, d := range all {
			if !d.dbg || d.id == nil || bytes.Equal(d.id, b.id) {
				continue
			}
			df, ok, err := OpenDebug(context.Background(), bin, b.path, &DebugOptions{Locator: fixedLocator{d.path}})
			var ie *IdentityError
			if ok || !errors.As(err, &ie) {
				t.Errorf("%s accepted debug file %s of build %x: %v", b.path, d.path, d.id, err)
				if df != nil {
					df.Close()
				}
				continue
			}
			refused++
		}
		bin.Close()
	}
	t.Logf("%d debug files found by build ID, %d foreign debug files refused", found, refused)
}

// TestFixtureMismatchRefused: c-gcc-O2-mismatch is another build of the
// same source, and c-gcc-O2-mismatch.debug beside it (the name its
// debuglink asks for) comes from the original build. It must be refused,
// naming both build IDs, rather than used because the name fits.
func TestFixtureMismatchRefused(t *testing.T) {
	dir := filepath.Join("..", "testdata", "elf")
	binPath := filepath.Join(dir, "c-gcc-O2-mismatch")
	if _, err := os.Stat(filepath.Join(dir, "c-gcc-O2-mismatch.debug")); err != nil {
		t.Skip("fixture absent:", err)
	}
	bin, err := Open(binPath, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer bin.Close()
	df, ok, err := OpenDebug(context.Background(), bin, binPath,
		&DebugOptions{Locator: locate.Dirs{DebugDirs: []string{filepath.Join(dir, "debug")}}})
	var ie *IdentityError
	if ok || df != nil || !errors.As(err, &ie) {
		t.Fatalf("OpenDebug = %v, %v; want an *IdentityError", ok, err)
	}
	want, _, _ := bin.BuildID()
	if !bytes.Equal(ie.Want, want) || ie.Got == nil || bytes.Equal(ie.Got, want) || !strings.HasSuffix(ie.Debug, "c-gcc-O2-mismatch.debug") {
		t.Errorf("IdentityError = %+v", ie)
	}
	t.Log(err)

	// The matching stripped binary finds its debug file.
	binPath = filepath.Join(dir, "c-gcc-O2-stripped")
	bin2, err := Open(binPath, nil)
	if err != nil {
		t.Skip(err)
	}
	defer bin2.Close()
	df, ok, err = OpenDebug(context.Background(), bin2, binPath,
		&DebugOptions{Locator: locate.Dirs{DebugDirs: []string{filepath.Join(dir, "debug")}}})
	if err != nil || !ok {
		t.Fatalf("OpenDebug(stripped) = %v, %v", ok, err)
	}
	if s := df.Section(".debug_info"); s == nil || !s.HasData() {
		t.Error("debug file has no .debug_info")
	}
	df.Close()
}
