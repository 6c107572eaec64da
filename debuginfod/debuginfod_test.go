package debuginfod

import (
	"context"
	"encoding/hex"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/symbolize-go/symbolize/elfx"
	"github.com/symbolize-go/symbolize/locate"
)

const fixtures = "../testdata/elf"

func TestClient(t *testing.T) {
	binPath := filepath.Join(fixtures, "c-gcc-O2-stripped")
	good, err := os.ReadFile(filepath.Join(fixtures, "c-gcc-O2-stripped.debug"))
	if err != nil {
		t.Fatal(err)
	}
	foreign, err := os.ReadFile(filepath.Join(fixtures, "c-gcc-O0-dwarf5")) // another build ID
	if err != nil {
		t.Fatal(err)
	}
	bin, err := elfx.Open(binPath, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer bin.Close()
	id, _, _ := bin.BuildID()
	var hits atomic.Int32
	serve := good
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		if r.URL.Path != "/buildid/"+hex.EncodeToString(id)+"/debuginfo" {
			http.NotFound(w, r)
			return
		}
		w.Write(serve)
	}))
	defer srv.Close()
	ctx := context.Background()
	opts := func(cache string, urls ...string) *elfx.DebugOptions {
		return &elfx.DebugOptions{Locator: locate.Chain{
			locate.Dirs{DebugDirs: []string{}, SkipBinaryDir: true},
			&Client{URLs: urls, CacheDir: cache, HTTP: srv.Client()},
		}}
	}

	// A foreign file from the server is refused, and not cached.
	cache := t.TempDir()
	serve = foreign
	_, ok, err := elfx.OpenDebug(ctx, bin, binPath, opts(cache, srv.URL))
	var ie *elfx.IdentityError
	if ok || !errors.As(err, &ie) {
		t.Fatalf("foreign download: %v, %v; want an *IdentityError", ok, err)
	}

	// The right one is downloaded once, then served from the cache, and
	// found as downloaded.
	serve = good
	for range 2 {
		df, ok, err := elfx.OpenDebug(ctx, bin, binPath, opts(cache, srv.URL+"/nothing-here", srv.URL))
		if err != nil || !ok || df.Section(".debug_info") == nil {
			t.Fatalf("OpenDebug = %v, %v", ok, err)
		}
		df.Close()
	}
	if n := hits.Load(); n != 1+2 { // foreign, then a 404 and the download
		t.Errorf("%d requests; want 3 (the second lookup must hit the cache)", n)
	}
	if st, err := os.Stat(filepath.Join(cache, hex.EncodeToString(id))); err != nil || st.Mode().Perm() != 0o700 {
		t.Errorf("cache folder: %v, %v; want mode 0700", st, err)
	}

	// Servers without it: not found, not an error.
	if df, ok, err := elfx.OpenDebug(ctx, bin, binPath, opts(t.TempDir(), srv.URL+"/nothing-here")); df != nil || ok || err != nil {
		t.Errorf("OpenDebug with a 404 = %v, %v, %v", df, ok, err)
	}
	key := locate.Key{Kind: locate.KindDebugFile, BuildID: id}
	// No servers at all.
	for f, err := range (&Client{URLs: []string{}}).Locate(ctx, key) {
		t.Errorf("Locate without servers = %v, %v", f, err)
	}
	// An oversized download is refused and not cached.
	big := &Client{URLs: []string{srv.URL}, CacheDir: t.TempDir(), HTTP: srv.Client(), MaxSize: 10}
	n := 0
	for f, err := range big.Locate(ctx, key) {
		if n++; f != nil || err == nil {
			t.Errorf("oversized Locate = %v, %v; want an error", f, err)
		}
	}
	if n != 1 {
		t.Errorf("oversized Locate yielded %d times", n)
	}
}
