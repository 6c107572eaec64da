package locate

import (
	"context"
	"errors"
	"io"
	"iter"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// tree makes the files named (relative to a new temporary directory) and
// returns the directory.
func tree(t *testing.T, files ...string) string {
	t.Helper()
	dir := t.TempDir()
	for _, f := range files {
		p := filepath.Join(dir, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(f), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// found lists the candidates l yields for k as (path relative to dir, how),
// reading each one's bytes to check that it is open.
func found(t *testing.T, dir string, l Locator, k Key) []string {
	t.Helper()
	var out []string
	for f, err := range l.Locate(context.Background(), k) {
		if err != nil {
			out = append(out, "error: "+err.Error())
			continue
		}
		b, err := io.ReadAll(io.NewSectionReader(f.ReaderAt, 0, f.Size))
		if err != nil || string(b) != mustRel(t, dir, f.Path) || (f.Data != nil && string(f.Data) != string(b)) {
			t.Errorf("%s: read %q, %v", f.Path, b, err)
		}
		out = append(out, mustRel(t, dir, f.Path)+" "+f.How.String())
		f.Close()
	}
	return out
}

func mustRel(t *testing.T, dir, p string) string {
	r, err := filepath.Rel(dir, p)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestDirs(t *testing.T) {
	dir := tree(t,
		"debug/.build-id/ab/cdef.debug", "bin/prog.debug", "bin/.debug/prog.debug",
		"bin/prog.dSYM/Contents/Resources/DWARF/prog",
		"cdir/obj/a.dwo", "bin/obj/a.dwo", "bin/a.dwo", "bin/prog.dwp", "debug/obj/a.dwo", "debug/a.dwo",
		"debug/b.dwo",
		"bin/common.debug", "debug/.dwz/common.debug", "debug/.build-id/12/34.debug",
		"debug/.dwz/x86_64-linux-gnu/libx.debug", "debug/.dwz/libx.debug",
		"bin/lib.o",
	)
	dbg := filepath.Join(dir, "debug")
	bin := filepath.Join(dir, "bin", "prog")
	d := Dirs{DebugDirs: []string{dbg}}
	for _, c := range []struct {
		name string
		k    Key
		want []string
	}{
		{"debug file by build ID then debuglink", Key{Kind: KindDebugFile, From: bin, BuildID: []byte{0xab, 0xcd, 0xef}, DebugLink: "prog.debug"},
			[]string{"debug/.build-id/ab/cdef.debug build-id folder", "bin/prog.debug debuglink", "bin/.debug/prog.debug debuglink"}},
		{"a debuglink is a base name", Key{Kind: KindDebugFile, From: bin, DebugLink: "../bin/prog.debug"}, nil},
		{"dSYM beside the image", Key{Kind: KindDSYM, From: bin}, []string{"bin/prog.dSYM/Contents/Resources/DWARF/prog dSYM bundle"}},
		{"dSYM given", Key{Kind: KindDSYM, Name: filepath.Join(dir, "bin/prog.dSYM")}, []string{"bin/prog.dSYM/Contents/Resources/DWARF/prog given"}},
		{"dwo under comp_dir, then beside the binary", Key{Kind: KindDWO, From: bin, Name: "obj/a.dwo", CompDir: filepath.Join(dir, "cdir")},
			[]string{"cdir/obj/a.dwo comp_dir", "bin/obj/a.dwo beside the binary", "bin/a.dwo beside the binary",
				"debug/obj/a.dwo debug directory", "debug/a.dwo debug directory"}},
		{"a dwo name climbing out: its base name in the debug directories", Key{Kind: KindDWO, From: bin, Name: "../elsewhere/b.dwo"},
			[]string{"debug/b.dwo debug directory"}},
		{"dwp beside the binary", Key{Kind: KindDWP, From: bin}, []string{"bin/prog.dwp dwp beside the binary"}},
		{"supplementary file: alt link, .dwz, build ID", Key{Kind: KindSup, From: bin, Name: "common.debug", BuildID: []byte{0x12, 0x34}},
			[]string{"bin/common.debug alt link", "debug/.dwz/common.debug .dwz folder", "debug/.build-id/12/34.debug build-id folder"}},
		{"supplementary file: Debian's absolute link, moved to the debug directory", Key{Kind: KindSup, From: bin,
			Name: "/usr/lib/debug/.dwz/x86_64-linux-gnu/libx.debug"},
			[]string{"debug/.dwz/x86_64-linux-gnu/libx.debug .dwz folder", "debug/.dwz/libx.debug .dwz folder"}},
		{"supplementary file: what follows .dwz/ must stay inside", Key{Kind: KindSup, From: bin, Name: "/x/.dwz/../../etc/libx.debug"},
			[]string{"debug/.dwz/libx.debug .dwz folder"}},
		{"object beside the image", Key{Kind: KindObject, From: bin, Name: "lib.o"}, []string{"bin/lib.o debug map path"}},
		{"nothing without a name", Key{Kind: KindObject, From: bin}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := found(t, dir, d, c.k); !slices.Equal(got, c.want) {
				t.Errorf("got %q\nwant %q", got, c.want)
			}
		})
	}
	// SkipBinaryDir leaves only the debug directories.
	got := found(t, dir, Dirs{DebugDirs: []string{dbg}, SkipBinaryDir: true},
		Key{Kind: KindDebugFile, From: bin, BuildID: []byte{0xab, 0xcd, 0xef}, DebugLink: "prog.debug"})
	if want := []string{"debug/.build-id/ab/cdef.debug build-id folder"}; !slices.Equal(got, want) {
		t.Errorf("SkipBinaryDir: got %q, want %q", got, want)
	}
}

// TestNotRegular: a candidate path that names a directory is an error for
// that candidate, never opened; the search goes on.
func TestNotRegular(t *testing.T) {
	dir := tree(t, "bin/obj/a.dwo")
	os.MkdirAll(filepath.Join(dir, "cdir/obj/a.dwo"), 0o755)
	got := found(t, dir, Dirs{DebugDirs: []string{}}, Key{Kind: KindDWO, From: filepath.Join(dir, "bin/prog"), Name: "obj/a.dwo", CompDir: filepath.Join(dir, "cdir")})
	if len(got) != 2 || got[1] != "bin/obj/a.dwo beside the binary" {
		t.Fatalf("got %q", got)
	}
	if _, err := Open(filepath.Join(dir, "cdir/obj/a.dwo"), HowGiven); !errors.Is(err, ErrNotRegular) {
		t.Errorf("Open(directory) = %v, want ErrNotRegular", err)
	}
}

// TestFirst: the first accepted candidate wins, refused ones are closed,
// and a later locator of a Chain is asked only past the earlier ones.
func TestFirst(t *testing.T) {
	dir := tree(t, "a/x.o", "b/x.o")
	la, lb := Dirs{}, Dirs{}
	ka := Key{Kind: KindObject, Name: filepath.Join(dir, "a/x.o")}
	kb := ka
	kb.Name = filepath.Join(dir, "b/x.o")
	c := Chain{fixed{la, ka}, fixed{lb, kb}}
	refuse := errors.New("wrong build")
	var seen []string
	f, err := First(context.Background(), c, Key{}, func(f *File) error {
		seen = append(seen, mustRel(t, dir, f.Path))
		if filepath.Base(filepath.Dir(f.Path)) == "a" {
			return refuse
		}
		return nil
	})
	if err != nil || f == nil || mustRel(t, dir, f.Path) != "b/x.o" || !slices.Equal(seen, []string{"a/x.o", "b/x.o"}) {
		t.Fatalf("First = %v, %v after %q", f, err, seen)
	}
	f.Close()
	if f, err := First(context.Background(), c, Key{}, func(*File) error { return refuse }); f != nil || err != refuse {
		t.Errorf("First refusing all = %v, %v; want the first refusal", f, err)
	}
	if f, err := First(context.Background(), Dirs{}, Key{Kind: KindObject, Name: filepath.Join(dir, "none.o")}, nil); f != nil || err != nil {
		t.Errorf("First with no candidate = %v, %v", f, err)
	}
}

// fixed asks l for k whatever key it is given.
type fixed struct {
	l Locator
	k Key
}

func (f fixed) Locate(ctx context.Context, _ Key) iter.Seq2[*File, error] {
	return f.l.Locate(ctx, f.k)
}
