package debuginfod

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/symbolize-go/symbolize/elfx"
	"github.com/symbolize-go/symbolize/locate"
)

const fixtures = "../testdata/elf"

// The stripped fixture, its debug file, and a file of another build.
var (
	binPath   = filepath.Join(fixtures, "c-gcc-O2-stripped")
	debugPath = filepath.Join(fixtures, "c-gcc-O2-stripped.debug")
	otherPath = filepath.Join(fixtures, "c-gcc-O0-dwarf5")
)

func readFile(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func buildID(t testing.TB, path string) []byte {
	t.Helper()
	f, err := elfx.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	id, ok, err := f.BuildID()
	if !ok || err != nil {
		t.Fatalf("%s: build ID: %v, %v", path, ok, err)
	}
	return bytes.Clone(id)
}

// cacheFiles lists the regular files under dir, relative to it.
func cacheFiles(t testing.TB, dir string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, rel)
		}
		return nil
	})
	return out
}

// serveFiles answers /buildid/HEX/debuginfo and /buildid/HEX/executable
// from files, 404 otherwise, counting requests.
type serveFiles struct {
	files map[string][]byte // "HEX/artifact" -> contents
	hits  atomic.Int32
}

func (s *serveFiles) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.hits.Add(1)
	data, ok := s.files[strings.TrimPrefix(r.URL.Path, "/buildid/")]
	if !ok {
		http.NotFound(w, r)
		return
	}
	w.Write(data)
}

func TestFetchAndCache(t *testing.T) {
	id := buildID(t, binPath)
	h := hex.EncodeToString(id)
	good := readFile(t, debugPath)
	exe := readFile(t, binPath)
	files := &serveFiles{files: map[string][]byte{h + "/debuginfo": good, h + "/executable": exe}}
	srv := httptest.NewServer(files)
	defer srv.Close()
	ctx := context.Background()
	cache := filepath.Join(t.TempDir(), "cache") // created by the client
	c := &Client{URLs: []string{srv.URL + "/nothing-here", srv.URL + "/"}, CacheDir: cache}
	opts := &elfx.DebugOptions{Locator: locate.Chain{locate.Dirs{DebugDirs: []string{}, SkipBinaryDir: true}, c}}
	bin, err := elfx.Open(binPath, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer bin.Close()

	// Downloaded once (after the first server's 404), then from the cache.
	for range 2 {
		df, ok, err := elfx.OpenDebug(ctx, bin, binPath, opts)
		if err != nil || !ok || df.Section(".debug_info") == nil {
			t.Fatalf("OpenDebug = %v, %v", ok, err)
		}
		if lf := df.Located(); lf == nil || lf.How != locate.HowDebuginfod || lf.Path != filepath.Join(cache, h, "debuginfo") {
			t.Errorf("found as %+v; want HowDebuginfod at CACHE/%s/debuginfo", lf, h)
		}
		df.Close()
	}
	if n := files.hits.Load(); n != 2 {
		t.Errorf("%d requests; want 2 (a 404, then the download; the second lookup hits the cache)", n)
	}
	if got := readFile(t, filepath.Join(cache, h, "debuginfo")); !bytes.Equal(got, good) {
		t.Error("the cached debug file differs from the one served")
	}
	for _, d := range []string{cache, filepath.Join(cache, h)} {
		if st, err := os.Stat(d); err != nil || st.Mode().Perm() != 0o700 {
			t.Errorf("%s: %v, %v; want a folder of mode 0700", d, st, err)
		}
	}

	// The executable, by the same build ID.
	p, err := c.Fetch(ctx, id, Executable)
	if err != nil || p != filepath.Join(cache, h, "executable") || !bytes.Equal(readFile(t, p), exe) {
		t.Errorf("Fetch(executable) = %q, %v", p, err)
	}

	// A dwz supplementary file is the debuginfo of its own build ID.
	n := 0
	for f, err := range c.Locate(ctx, locate.Key{Kind: locate.KindSup, Name: "x.dwz", BuildID: id}) {
		if n++; err != nil || f.How != locate.HowDebuginfod {
			t.Errorf("Locate(KindSup) = %+v, %v", f, err)
		}
		if f != nil {
			f.Close()
		}
	}
	if n != 1 {
		t.Errorf("Locate(KindSup) yielded %d files", n)
	}

	// Kinds it does not serve, and keys without a build ID: nothing, no request.
	before := files.hits.Load()
	for _, k := range []locate.Key{
		{Kind: locate.KindDWO, Name: "a.dwo", BuildID: id},
		{Kind: locate.KindDSYM, UUID: id},
		{Kind: locate.KindDebugFile, DebugLink: "x.debug"},
	} {
		for f, err := range c.Locate(ctx, k) {
			t.Errorf("Locate(%v) = %v, %v; want nothing", k.Kind, f, err)
		}
	}
	if _, err := c.Fetch(ctx, nil, Debuginfo); err == nil {
		t.Error("Fetch of an empty build ID: no error")
	}
	if _, err := c.Fetch(ctx, id, "source"); err == nil {
		t.Error("Fetch of an unknown artifact: no error")
	}
	if files.hits.Load() != before {
		t.Error("requests made for keys the client does not serve")
	}

	// No servers: the cache still answers, and a miss is a *NotFoundError.
	offline := &Client{URLs: []string{}, CacheDir: cache}
	if p, err := offline.Fetch(ctx, id, Debuginfo); err != nil || p != filepath.Join(cache, h, "debuginfo") {
		t.Errorf("Fetch from the cache without servers = %q, %v", p, err)
	}
	var nf *NotFoundError
	if _, err := offline.Fetch(ctx, buildID(t, otherPath), Debuginfo); !errors.As(err, &nf) || len(nf.URLs) != 0 {
		t.Errorf("Fetch of an uncached file without servers = %v; want a *NotFoundError", err)
	}
	if got := cacheFiles(t, cache); len(got) != 2 {
		t.Errorf("cache holds %q; want the debuginfo and the executable only", got)
	}
}

// TestEnvironment: nil URLs and "" CacheDir mean $DEBUGINFOD_URLS and
// $DEBUGINFOD_CACHE_PATH.
func TestEnvironment(t *testing.T) {
	id := buildID(t, binPath)
	h := hex.EncodeToString(id)
	files := &serveFiles{files: map[string][]byte{h + "/debuginfo": readFile(t, debugPath)}}
	srv := httptest.NewServer(files)
	defer srv.Close()
	cache := t.TempDir()
	t.Setenv("DEBUGINFOD_URLS", "  "+srv.URL+"/a   "+srv.URL+" ")
	t.Setenv("DEBUGINFOD_CACHE_PATH", cache)
	p, err := (&Client{}).Fetch(context.Background(), id, Debuginfo)
	if err != nil || p != filepath.Join(cache, h, "debuginfo") || files.hits.Load() != 2 {
		t.Errorf("Fetch = %q, %v after %d requests; want CACHE/%s/debuginfo after 2", p, err, files.hits.Load(), h)
	}
}

// TestServerErrors: 404 everywhere, an error status, and their order
// among several servers.
func TestServerErrors(t *testing.T) {
	id := buildID(t, binPath)
	h := hex.EncodeToString(id)
	good := readFile(t, debugPath)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case strings.HasPrefix(r.URL.Path, "/500/"):
			http.Error(w, "broken", http.StatusInternalServerError)
		case strings.HasPrefix(r.URL.Path, "/403/"):
			http.Error(w, "no", http.StatusForbidden)
		case strings.HasPrefix(r.URL.Path, "/good/buildid/"+h+"/"):
			w.Write(good)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	ctx := context.Background()
	u := func(p ...string) []string {
		out := []string{}
		for _, s := range p {
			out = append(out, srv.URL+"/"+s)
		}
		return out
	}
	key := locate.Key{Kind: locate.KindDebugFile, BuildID: id}
	for _, tc := range []struct {
		urls   []string
		status int // the *ServerError wanted; 0: a *NotFoundError; -1: success
	}{
		{u("404", "none"), 0},
		{u("500"), 500},
		{u("403", "404"), 403},
		{u("404", "500", "403"), 500}, // the first failure that is not a 404
		{u("500", "404", "good"), -1},
	} {
		cache := t.TempDir()
		c := &Client{URLs: tc.urls, CacheDir: cache}
		p, err := c.Fetch(ctx, id, Debuginfo)
		var se *ServerError
		var nf *NotFoundError
		switch {
		case tc.status < 0:
			if err != nil || p == "" {
				t.Errorf("%v: Fetch = %q, %v", tc.urls, p, err)
			}
			continue
		case tc.status == 0:
			if !errors.As(err, &nf) || !errors.Is(err, fs.ErrNotExist) || len(nf.URLs) != len(tc.urls) {
				t.Errorf("%v: %v; want a *NotFoundError matching fs.ErrNotExist", tc.urls, err)
			}
			for f, err := range c.Locate(ctx, key) {
				t.Errorf("%v: Locate = %v, %v; want nothing", tc.urls, f, err)
			}
		default:
			if !errors.As(err, &se) || se.Status != tc.status || errors.As(err, &nf) {
				t.Errorf("%v: %v; want a *ServerError %d", tc.urls, err, tc.status)
			}
			n := 0
			for f, err := range c.Locate(ctx, key) {
				if n++; f != nil || !errors.As(err, &se) {
					t.Errorf("%v: Locate = %v, %v; want the *ServerError", tc.urls, f, err)
				}
			}
			if n != 1 {
				t.Errorf("%v: Locate yielded %d times", tc.urls, n)
			}
		}
		if got := cacheFiles(t, cache); len(got) != 0 {
			t.Errorf("%v: cache holds %q", tc.urls, got)
		}
	}
}

// hostile is a server that misbehaves, and what the client must make of it.
type hostile struct {
	name    string
	client  *Client // nil: the zero Client; URLs and CacheDir are set by the test
	handler func(w http.ResponseWriter, r *http.Request)
	check   func(err error) bool
	want    string
	within  time.Duration
	minHits int32 // requests the server must have seen, when not 0
}

func TestHostileServers(t *testing.T) {
	id := buildID(t, binPath)
	good := readFile(t, debugPath)
	foreign := readFile(t, otherPath)
	const small = 1 << 20 // MaxSize of the size tests, above the 63 KB file
	isA := func(target any) func(error) bool {
		return func(err error) bool { return errors.As(err, target) }
	}
	var tooLarge *TooLargeError
	var timeout *TimeoutError
	var refused *RefusedError
	var request *RequestError
	var identity *elfx.IdentityError
	// block waits for the client to go away (or the test to end).
	block := func(r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(20 * time.Second):
		}
	}
	cases := []hostile{{
		name:   "a body that never ends",
		client: &Client{MaxSize: small},
		handler: func(w http.ResponseWriter, r *http.Request) {
			chunk := bytes.Repeat([]byte("x"), 32<<10)
			for r.Context().Err() == nil {
				if _, err := w.Write(chunk); err != nil {
					return
				}
			}
		},
		check: func(err error) bool {
			return errors.As(err, &tooLarge) && tooLarge.Size == -1 && tooLarge.Limit == small
		},
		want: "a *TooLargeError with Size -1", within: 5 * time.Second,
	}, {
		name:   "a Content-Length far beyond the limit",
		client: &Client{MaxSize: small},
		handler: func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Length", strconv.FormatInt(1<<40, 10))
			w.Write(good)
		},
		check: func(err error) bool { return errors.As(err, &tooLarge) && tooLarge.Size == 1<<40 },
		want:  "a *TooLargeError with the declared size", within: 5 * time.Second,
	}, {
		name: "a redirect loop",
		handler: func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, r.URL.Path, http.StatusFound)
		},
		check: func(err error) bool { return errors.As(err, &request) && errors.Is(err, ErrTooManyRedirects) },
		want:  "a *RequestError wrapping ErrTooManyRedirects", within: 5 * time.Second,
		minHits: DefaultMaxRedirects + 1,
	}, {
		name:    "a stall before the headers",
		client:  &Client{Timeout: 300 * time.Millisecond},
		handler: func(w http.ResponseWriter, r *http.Request) { block(r) },
		check: func(err error) bool {
			return errors.As(err, &timeout) && timeout.Stalled && errors.Is(err, context.DeadlineExceeded)
		},
		want: "a stalled *TimeoutError", within: 3 * time.Second,
	}, {
		name:   "a stall in the body",
		client: &Client{Timeout: 300 * time.Millisecond},
		handler: func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Length", strconv.Itoa(len(good)))
			w.Write(good[:len(good)/2])
			w.(http.Flusher).Flush()
			block(r)
		},
		check: func(err error) bool { return errors.As(err, &timeout) && timeout.Stalled },
		want:  "a stalled *TimeoutError", within: 3 * time.Second,
	}, {
		name: "a drip that never stalls, past MaxTime",
		// The stall timeout is longer than MaxTime, so that a loaded
		// machine's pause between two drops cannot pass for a stall.
		client: &Client{Timeout: 5 * time.Second, MaxTime: 600 * time.Millisecond},
		handler: func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Length", strconv.Itoa(len(good)))
			for i := range good {
				if _, err := w.Write(good[i : i+1]); err != nil {
					return
				}
				w.(http.Flusher).Flush()
				select {
				case <-r.Context().Done():
					return
				case <-time.After(50 * time.Millisecond):
				}
			}
		},
		check: func(err error) bool { return errors.As(err, &timeout) && !timeout.Stalled },
		want:  "a *TimeoutError of MaxTime", within: 3 * time.Second,
	}, {
		name: "a body cut before its Content-Length",
		handler: func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Length", strconv.Itoa(len(good)))
			w.Write(good[:len(good)/2]) // the server closes the connection
		},
		check: func(err error) bool { return errors.As(err, &request) && errors.Is(err, io.ErrUnexpectedEOF) },
		want:  "a *RequestError wrapping io.ErrUnexpectedEOF", within: 5 * time.Second,
	}, {
		name: "a truncated file, sent whole",
		handler: func(w http.ResponseWriter, r *http.Request) {
			w.Write(good[:len(good)/2])
		},
		check: isA(&refused),
		want:  "a *RefusedError", within: 5 * time.Second,
	}, {
		name: "a file truncated inside its sections",
		handler: func(w http.ResponseWriter, r *http.Request) {
			w.Write(cutSections(t, good))
		},
		check: func(err error) bool { return errors.As(err, &refused) && strings.Contains(err.Error(), "past the end") },
		want:  "a *RefusedError for a section past the end", within: 5 * time.Second,
	}, {
		name:    "a file with another build ID",
		handler: func(w http.ResponseWriter, r *http.Request) { w.Write(foreign) },
		check: func(err error) bool {
			return errors.As(err, &refused) && errors.As(err, &identity) &&
				bytes.Equal(identity.Want, id) && bytes.Equal(identity.Got, buildID(t, otherPath))
		},
		want: "a *RefusedError wrapping an *elfx.IdentityError", within: 5 * time.Second,
	}, {
		name:    "an HTML page",
		handler: func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "<html>not here</html>") },
		check:   isA(&refused),
		want:    "a *RefusedError", within: 5 * time.Second,
	}, {
		name:    "an empty answer",
		handler: func(w http.ResponseWriter, r *http.Request) {},
		check:   isA(&refused),
		want:    "a *RefusedError", within: 5 * time.Second,
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var hits atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				hits.Add(1)
				tc.handler(w, r)
			}))
			defer srv.Close()
			defer srv.CloseClientConnections()
			cache := t.TempDir()
			c := tc.client
			if c == nil {
				c = &Client{}
			}
			c.URLs, c.CacheDir = []string{srv.URL}, cache
			start := time.Now()
			p, err := c.Fetch(context.Background(), id, Debuginfo)
			took := time.Since(start)
			if err == nil || !tc.check(err) {
				t.Errorf("Fetch = %q, %v (%T); want %s", p, err, err, tc.want)
			}
			if took > tc.within {
				t.Errorf("took %v; want less than %v", took, tc.within)
			}
			if tc.minHits > 0 && hits.Load() != tc.minHits {
				t.Errorf("%d requests; want %d", hits.Load(), tc.minHits)
			}
			if got := cacheFiles(t, cache); len(got) != 0 {
				t.Errorf("left in the cache: %q", got)
			}
			// Through the locator, the same error, once.
			n := 0
			for f, lerr := range c.Locate(context.Background(), locate.Key{Kind: locate.KindDebugFile, BuildID: id}) {
				if n++; f != nil || lerr == nil || !tc.check(lerr) {
					t.Errorf("Locate = %v, %v", f, lerr)
				}
			}
			if n != 1 {
				t.Errorf("Locate yielded %d times; want once", n)
			}
			t.Logf("%v in %v", err, took.Round(time.Millisecond))
		})
	}
}

// cutSections returns the ELF file data with its last data section made
// to end past the end of the file, as a download cut inside it looks once
// the section headers (which come last) are put back.
func cutSections(t *testing.T, data []byte) []byte {
	f, err := elfx.NewBytes(data, nil)
	if err != nil {
		t.Fatal(err)
	}
	var last *elfx.Section
	for _, s := range f.Sections {
		if s.HasData() && s.FileSize > 0 && s.Name != ".shstrtab" && (last == nil || s.Offset > last.Offset) {
			last = s
		}
	}
	out := bytes.Clone(data)
	// sh_size of a 64-bit little-endian section header is at +32.
	hdr := uint64(len(data)) - uint64(len(f.Sections)-last.Index)*64
	if off := binaryLE(out[hdr+24:]); off != last.Offset {
		t.Fatalf("section header of %s not where expected (offset %#x, want %#x)", last.Name, off, last.Offset)
	}
	putLE(out[hdr+32:], uint64(len(data)))
	return out
}

func binaryLE(b []byte) uint64 {
	var v uint64
	for i := 7; i >= 0; i-- {
		v = v<<8 | uint64(b[i])
	}
	return v
}

func putLE(b []byte, v uint64) {
	for i := range 8 {
		b[i] = byte(v >> (8 * i))
	}
}

// TestRedirectLimit: MaxRedirects redirects are followed, one more is not.
func TestRedirectLimit(t *testing.T) {
	id := buildID(t, binPath)
	good := readFile(t, debugPath)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// /N/buildid/... redirects to /N-1/buildid/...; /0/ serves.
		n, rest, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
		if n == "0" {
			w.Write(good)
			return
		}
		k, _ := strconv.Atoi(n)
		http.Redirect(w, r, "/"+strconv.Itoa(k-1)+"/"+rest, http.StatusFound)
	}))
	defer srv.Close()
	for _, tc := range []struct {
		max, chain int
		ok         bool
	}{
		{0, DefaultMaxRedirects, true}, {0, DefaultMaxRedirects + 1, false},
		{3, 3, true}, {3, 4, false},
		{-1, 0, true}, {-1, 1, false},
	} {
		c := &Client{URLs: []string{srv.URL + "/" + strconv.Itoa(tc.chain)}, CacheDir: t.TempDir(), MaxRedirects: tc.max}
		_, err := c.Fetch(context.Background(), id, Debuginfo)
		if (err == nil) != tc.ok || (err != nil && !errors.Is(err, ErrTooManyRedirects)) {
			t.Errorf("MaxRedirects %d, %d redirects: %v; want ok=%v", tc.max, tc.chain, err, tc.ok)
		}
	}
}

// TestContext: the caller's cancellation and deadline end a download
// with their own errors, not a *TimeoutError, and leave nothing behind.
func TestContext(t *testing.T) {
	id := buildID(t, binPath)
	good := readFile(t, debugPath)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", strconv.Itoa(len(good)))
		w.Write(good[:100])
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	defer srv.Close()
	defer srv.CloseClientConnections()
	for _, tc := range []struct {
		name string
		ctx  func() (context.Context, context.CancelFunc)
		want error
	}{
		{"cancel", func() (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(200*time.Millisecond, cancel)
			return ctx, cancel
		}, context.Canceled},
		{"deadline", func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(context.Background(), 200*time.Millisecond)
		}, context.DeadlineExceeded},
	} {
		cache := t.TempDir()
		c := &Client{URLs: []string{srv.URL, srv.URL}, CacheDir: cache, Timeout: time.Minute}
		ctx, cancel := tc.ctx()
		start := time.Now()
		_, err := c.Fetch(ctx, id, Debuginfo)
		cancel()
		var re *RequestError
		var te *TimeoutError
		if !errors.As(err, &re) || !errors.Is(err, tc.want) || errors.As(err, &te) {
			t.Errorf("%s: %v; want a *RequestError wrapping %v", tc.name, err, tc.want)
		}
		if took := time.Since(start); took > 3*time.Second {
			t.Errorf("%s: took %v", tc.name, took)
		}
		if got := cacheFiles(t, cache); len(got) != 0 {
			t.Errorf("%s: left in the cache: %q", tc.name, got)
		}
	}
}

// TestSingleFlight: concurrent requests for one file make one download and
// all get its result; a waiter whose context ends stops waiting; when the
// request running the download gives up, a waiter takes over.
func TestSingleFlight(t *testing.T) {
	id := buildID(t, binPath)
	good := readFile(t, debugPath)
	var hits atomic.Int32
	gate := make(chan struct{})
	entered := make(chan struct{}, 100)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		entered <- struct{}{}
		select {
		case <-gate:
		case <-r.Context().Done():
			return
		}
		w.Write(good)
	}))
	defer srv.Close()
	cache := t.TempDir()
	c := &Client{URLs: []string{srv.URL}, CacheDir: cache}
	const n = 32
	paths := make([]string, n)
	errs := make([]error, n)
	var started, done sync.WaitGroup
	started.Add(n)
	done.Add(n)
	for i := range n {
		go func() {
			defer done.Done()
			started.Done()
			paths[i], errs[i] = c.Fetch(context.Background(), id, Debuginfo)
		}()
	}
	started.Wait()
	<-entered
	// A waiter whose own context ends returns without the file.
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	if _, err := c.Fetch(ctx, id, Debuginfo); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("a waiter past its deadline: %v", err)
	}
	cancel()
	c.mu.Lock()
	inFlight := len(c.flights)
	c.mu.Unlock()
	if inFlight != 1 {
		t.Errorf("%d downloads in flight; want 1", inFlight)
	}
	close(gate)
	done.Wait()
	for i := range n {
		if errs[i] != nil || paths[i] != paths[0] {
			t.Errorf("request %d: %q, %v", i, paths[i], errs[i])
		}
	}
	if h := hits.Load(); h != 1 {
		t.Errorf("%d downloads for %d concurrent requests; want 1", h, n)
	}

	// The leader's context ends: the waiter downloads it itself.
	cache2 := t.TempDir()
	c2 := &Client{URLs: []string{srv.URL}, CacheDir: cache2}
	hits.Store(0)
	gate2 := make(chan struct{})
	srv2 := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if hits.Add(1) == 1 {
			entered <- struct{}{}
			<-r.Context().Done() // the leader: stalls until it gives up
			return
		}
		<-gate2
		w.Write(good)
	}))
	defer srv2.Close()
	c2.URLs = []string{srv2.URL}
	leaderCtx, leaderCancel := context.WithCancel(context.Background())
	leaderErr := make(chan error, 1)
	go func() { _, err := c2.Fetch(leaderCtx, id, Debuginfo); leaderErr <- err }()
	<-entered
	waiter := make(chan error, 1)
	go func() { _, err := c2.Fetch(context.Background(), id, Debuginfo); waiter <- err }()
	time.Sleep(50 * time.Millisecond) // the waiter joins the flight
	leaderCancel()
	if err := <-leaderErr; !errors.Is(err, context.Canceled) {
		t.Errorf("leader: %v; want context.Canceled", err)
	}
	close(gate2)
	if err := <-waiter; err != nil {
		t.Errorf("waiter after the leader gave up: %v", err)
	}
	if h := hits.Load(); h != 2 {
		t.Errorf("%d requests; want 2 (the abandoned one and the waiter's)", h)
	}
}

// TestCacheEntries: an empty file in the cache (elfutils' record of a
// failed download) and a file of another build ID there are not answers:
// a download replaces them.
func TestCacheEntries(t *testing.T) {
	id := buildID(t, binPath)
	h := hex.EncodeToString(id)
	good := readFile(t, debugPath)
	files := &serveFiles{files: map[string][]byte{h + "/debuginfo": good}}
	srv := httptest.NewServer(files)
	defer srv.Close()
	for _, stale := range [][]byte{{}, readFile(t, otherPath)} {
		cache := t.TempDir()
		dest := filepath.Join(cache, h, "debuginfo")
		os.MkdirAll(filepath.Dir(dest), 0o700)
		if err := os.WriteFile(dest, stale, 0o600); err != nil {
			t.Fatal(err)
		}
		c := &Client{URLs: []string{srv.URL}, CacheDir: cache}
		p, err := c.Fetch(context.Background(), id, Debuginfo)
		if err != nil || p != dest || !bytes.Equal(readFile(t, dest), good) {
			t.Errorf("over a stale entry of %d bytes: %q, %v", len(stale), p, err)
		}
	}
	if files.hits.Load() != 2 {
		t.Errorf("%d downloads; want 2", files.hits.Load())
	}
}
