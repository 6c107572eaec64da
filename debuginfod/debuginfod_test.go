package elfx

import (
	"context"
	"debug/elf"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
)

func TestDebuginfod(t *testing.T) {
	bo := binary.LittleEndian
	id := []byte{0x11, 0x22, 0x33, 0x44}
	mk := func(id []byte, debug bool) []byte {
		te := &telf{is64: true, secs: []tsec{{name: ".note.gnu.build-id", typ: elf.SHT_NOTE, data: buildIDNote(bo, id), align: 4}}}
		if debug {
			te.secs = append(te.secs, tsec{name: ".debug_info", typ: elf.SHT_PROGBITS, data: pattern(40)})
		}
		return te.bytes()
	}
	good, foreign := mk(id, true), mk([]byte{9, 9, 9, 9}, true)
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

	dir := t.TempDir()
	binPath := writeFile(t, dir, "prog", mk(id, false))
	bin, err := Open(binPath, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer bin.Close()
	ctx := context.Background()
	opts := func(cache string, urls ...string) *DebugOptions {
		return &DebugOptions{Locator: Chain{
			DirLocator{DebugDirs: []string{}, SkipBinaryDir: true},
			&Debuginfod{URLs: urls, CacheDir: cache, Client: srv.Client()},
		}}
	}

	// A foreign file from the server is refused, and not cached.
	cache := t.TempDir()
	serve = foreign
	_, ok, err := OpenDebug(ctx, bin, binPath, opts(cache, srv.URL))
	var ie *IdentityError
	if ok || !errors.As(err, &ie) {
		t.Fatalf("foreign download: %v, %v; want an *IdentityError", ok, err)
	}

	// The right one is downloaded once, then served from the cache.
	serve = good
	for range 2 {
		df, ok, err := OpenDebug(ctx, bin, binPath, opts(cache, srv.URL+"/nothing-here", srv.URL))
		if err != nil || !ok || df.Section(".debug_info") == nil {
			t.Fatalf("OpenDebug = %v, %v", ok, err)
		}
		df.Close()
	}
	if n := hits.Load(); n != 1+2 { // foreign, then a 404 and the download
		t.Errorf("%d requests; want 3 (the second lookup must hit the cache)", n)
	}

	// Servers without it: not found, not an error.
	if df, ok, err := OpenDebug(ctx, bin, binPath, opts(t.TempDir(), srv.URL+"/nothing-here")); df != nil || ok || err != nil {
		t.Errorf("OpenDebug with a 404 = %v, %v, %v", df, ok, err)
	}
	// No servers at all.
	if paths, err := (&Debuginfod{URLs: []string{}}).Locate(ctx, Identity{BuildID: id}); paths != nil || err != nil {
		t.Errorf("Locate without servers = %v, %v", paths, err)
	}
	// An oversized download is refused and not cached.
	big := &Debuginfod{URLs: []string{srv.URL}, CacheDir: t.TempDir(), Client: srv.Client(), MaxSize: 10}
	if paths, err := big.Locate(ctx, Identity{BuildID: id}); paths != nil || err == nil {
		t.Errorf("oversized Locate = %v, %v; want an error", paths, err)
	}
}
