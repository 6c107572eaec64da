package debuginfod

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/symbolize-go/symbolize/debuginfod/debuginfodtest"
	"github.com/symbolize-go/symbolize/elfx"
	"github.com/symbolize-go/symbolize/locate"
)

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, readFile(t, from), 0o644); err != nil {
		t.Fatal(err)
	}
}

// altLink returns the name and build ID in a file's .gnu_debugaltlink
// [dwz: a NUL-terminated path, then the supplementary file's build ID].
func altLink(t *testing.T, path string) (string, []byte) {
	t.Helper()
	f, err := elfx.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s := f.Section(".gnu_debugaltlink")
	if s == nil {
		t.Fatalf("%s has no .gnu_debugaltlink", path)
	}
	data, err := s.Data()
	name, id, ok := bytes.Cut(data, []byte{0})
	if err != nil || !ok || len(id) == 0 {
		t.Fatalf("%s: .gnu_debugaltlink %q, %v", path, data, err)
	}
	return string(name), bytes.Clone(id)
}

// TestRealServer runs elfutils' debuginfod over a folder of fixtures, in a
// private network namespace where one can be made: a cold fetch of a
// debug file, of an executable and of a dwz supplementary file made here
// with dwz -m, an unknown build ID, then, with the server stopped, the
// same files from the cache.
func TestRealServer(t *testing.T) {
	debuginfodtest.Need(t, "debuginfod")
	dwz := debuginfodtest.Need(t, "dwz")
	if debuginfodtest.Private(t) {
		return
	}
	start := time.Now()
	dir := t.TempDir()
	served := filepath.Join(dir, "served")
	copyFile(t, debugPath, filepath.Join(served, "prog.debug"))
	copyFile(t, binPath, filepath.Join(served, "prog"))
	// Two builds whose DWARF dwz moves in part to a supplementary file.
	a, b := filepath.Join(served, "dwz", "a"), filepath.Join(served, "dwz", "b")
	copyFile(t, filepath.Join(fixtures, "c-gcc-O2-dwarf4"), a)
	copyFile(t, filepath.Join(fixtures, "c-gcc-O0-dwarf5"), b)
	cmd := exec.Command(dwz, "-m", "common.debug", "a", "b")
	cmd.Dir = filepath.Dir(a)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("dwz -m: %v\n%s", err, out)
	}
	supName, supID := altLink(t, a)
	common := filepath.Join(served, "dwz", "common.debug")
	if supName != "common.debug" || !bytes.Equal(buildID(t, common), supID) {
		t.Fatalf("a's alt link is %q %x; common.debug has %x", supName, supID, buildID(t, common))
	}

	id := buildID(t, binPath)
	srv := debuginfodtest.Start(t, served, id, supID)
	t.Logf("debuginfod ready at %s in %v", srv.URL, time.Since(start).Round(time.Millisecond))

	ctx := context.Background()
	cache := filepath.Join(dir, "cache")
	bin, err := elfx.Open(binPath, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer bin.Close()
	// The binary alone, in a folder without its debug file.
	lonely := filepath.Join(dir, "bin", "prog")
	copyFile(t, binPath, lonely)
	supKey := locate.Key{Kind: locate.KindSup, From: a, Name: supName, BuildID: supID}
	unknown := bytes.Repeat([]byte{0xab}, 20)

	// lookups fetches everything through c and checks what arrived.
	lookups := func(c *Client) {
		t.Helper()
		opts := &elfx.DebugOptions{Locator: locate.Chain{locate.Dirs{DebugDirs: []string{}, SkipBinaryDir: true}, c}}
		df, ok, err := elfx.OpenDebug(ctx, bin, lonely, opts)
		if err != nil || !ok {
			t.Fatalf("OpenDebug = %v, %v", ok, err)
		}
		if lf := df.Located(); lf.How != locate.HowDebuginfod || !bytes.Equal(lf.Data, readFile(t, debugPath)) {
			t.Errorf("debug file found as %v at %s, or not the one served", lf.How, lf.Path)
		}
		df.Close()
		if p, err := c.Fetch(ctx, id, Executable); err != nil || !bytes.Equal(readFile(t, p), readFile(t, binPath)) {
			t.Errorf("Fetch(executable) = %q, %v", p, err)
		}
		sup, err := locate.First(ctx, c, supKey, func(f *locate.File) error { return nil })
		if err != nil || sup == nil || !bytes.Equal(sup.Data, readFile(t, common)) {
			t.Fatalf("supplementary file = %v, %v", sup, err)
		}
		sup.Close()
	}

	// Cold.
	cold := time.Now()
	c := &Client{URLs: []string{srv.URL}, CacheDir: cache, Timeout: 10 * time.Second}
	lookups(c)
	t.Logf("cold fetches in %v", time.Since(cold).Round(time.Millisecond))
	var nf *NotFoundError
	if _, err := c.Fetch(ctx, unknown, Debuginfo); !errors.As(err, &nf) || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("unknown build ID: %v; want a *NotFoundError", err)
	}
	for f, err := range c.Locate(ctx, locate.Key{Kind: locate.KindDebugFile, BuildID: unknown}) {
		t.Errorf("Locate(unknown build ID) = %v, %v; want nothing", f, err)
	}
	want := []string{
		filepath.Join(hex.EncodeToString(id), "debuginfo"),
		filepath.Join(hex.EncodeToString(id), "executable"),
		filepath.Join(hex.EncodeToString(supID), "debuginfo"),
	}
	slices.Sort(want)
	if got := cacheFiles(t, cache); !slices.Equal(got, want) {
		t.Errorf("cache holds %q; want %q", got, want)
	}

	// Warm, the server stopped: a new client answers from the cache; an
	// unknown build ID now fails to connect, which is not a "not found".
	srv.Stop()
	warm := time.Now()
	c = &Client{URLs: []string{srv.URL}, CacheDir: cache, Timeout: 10 * time.Second}
	lookups(c)
	t.Logf("warm lookups in %v", time.Since(warm).Round(time.Millisecond))
	var re *RequestError
	if _, err := c.Fetch(ctx, unknown, Debuginfo); !errors.As(err, &re) || errors.As(err, &nf) {
		t.Errorf("unknown build ID, server stopped: %v; want a *RequestError", err)
	}
	if got := cacheFiles(t, cache); !slices.Equal(got, want) {
		t.Errorf("cache holds %q; want %q", got, want)
	}
	t.Logf("whole test in %v", time.Since(start).Round(time.Millisecond))
}
