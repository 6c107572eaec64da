// Package debuginfod fetches debug files and executables by GNU build ID
// from debuginfod servers [elfutils debuginfod(8): GET /buildid/HEX/debuginfo
// and /buildid/HEX/executable] into a local cache, and serves debug files
// and dwz supplementary files to the rest of the module as a
// locate.Locator. It is a package of its own so that programs that do not
// use it link no HTTP client: nothing in the module downloads anything
// unless its caller puts a Client in its locator.
//
// Downloads are not trusted. Each is written to a temporary file and moved
// into the cache only once it parses as an ELF file whose contents fit in
// it and whose build ID equals the one asked for; anything else is refused
// and removed. Every download is bounded in size (Client.MaxSize), in time
// without progress (Client.Timeout) and overall (Client.MaxTime and the
// caller's context), and in redirects (Client.MaxRedirects). Each way it
// can fail has its own error type: *NotFoundError, *ServerError,
// *TooLargeError, *TimeoutError, *RequestError and *RefusedError.
//
// The cache has the layout of elfutils' client, DIR/HEX/debuginfo and
// DIR/HEX/executable, so the two can share one (an empty file there, the
// negative entry elfutils leaves after a failure, counts as absent).
package debuginfod

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"iter"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/symbolize-go/symbolize/elfx"
	"github.com/symbolize-go/symbolize/locate"
)

// Artifact is what is asked of a server for a build ID: the last element
// of the request's path.
type Artifact string

const (
	// Debuginfo is the separate debug file (or a dwz supplementary file,
	// which servers index as the debuginfo of its own build ID).
	Debuginfo Artifact = "debuginfo"
	// Executable is the binary itself.
	Executable Artifact = "executable"
)

// Defaults of the Client fields left zero.
const (
	DefaultMaxSize      = 16 << 30         // bytes in one download
	DefaultTimeout      = 90 * time.Second // as elfutils' and LLVM's DEBUGINFOD_TIMEOUT
	DefaultMaxRedirects = 10               // redirects followed (net/http's own policy follows 9)
)

// Client is a locate.Locator that downloads debug files
// (locate.KindDebugFile) and dwz supplementary files (locate.KindSup) by
// build ID; Fetch also gets executables. It proposes nothing for a key
// without a build ID, nor for other kinds.
//
// A Client is safe for concurrent use, and concurrent requests for one
// artifact of one build ID share one download. It must not be copied after
// first use.
type Client struct {
	// URLs are the server base URLs, tried in order. nil means the
	// space-separated list in $DEBUGINFOD_URLS; empty means no servers
	// (the cache still answers).
	URLs []string
	// CacheDir holds downloads as CacheDir/HEX/debuginfo and
	// CacheDir/HEX/executable. "" means $DEBUGINFOD_CACHE_PATH, else
	// debuginfod_client under os.UserCacheDir (elfutils' default). Folders
	// it creates are private to the user (mode 0700).
	CacheDir string
	// HTTP makes the requests; nil means a client with net/http's
	// default transport. Its CheckRedirect, when nil, is replaced by
	// the MaxRedirects rule; its Timeout, when set, also applies.
	HTTP *http.Client
	// MaxSize caps one download in bytes; 0 means DefaultMaxSize. A
	// larger Content-Length is refused before the body is read, and a
	// body that runs past it is cut there and refused.
	MaxSize int64
	// Timeout is how long a download may go without progress: to
	// connect and receive the response headers, then between reads of
	// the body. 0 means DefaultTimeout.
	Timeout time.Duration
	// MaxTime bounds one download from its request to its last byte; 0
	// means no bound other than the context's.
	MaxTime time.Duration
	// MaxRedirects is how many redirects one request may follow; 0
	// means DefaultMaxRedirects, and a negative value none.
	MaxRedirects int

	mu      sync.Mutex
	flights map[string]*flight // downloads under way, by artifact and build ID
}

var _ locate.Locator = (*Client)(nil)

// flight is a download under way that other requests for the same file
// wait for.
type flight struct {
	done chan struct{} // closed when path and err are set
	path string
	err  error
	// abandoned is true when the download stopped because the context
	// of the request that ran it ended: a waiter whose own context is
	// still alive tries again instead of taking that error.
	abandoned bool
}

// ErrTooManyRedirects is wrapped by the *RequestError of a request that
// was redirected more than Client.MaxRedirects times.
var ErrTooManyRedirects = errors.New("too many redirects")

// NotFoundError says that no server has the artifact: every server
// answered 404 Not Found, or there were none to ask. It matches
// fs.ErrNotExist with errors.Is.
type NotFoundError struct {
	BuildID  []byte
	Artifact Artifact
	URLs     []string // the servers asked
}

func (e *NotFoundError) Error() string {
	if len(e.URLs) == 0 {
		return fmt.Sprintf("debuginfod: no server to ask for the %s of build ID %x", e.Artifact, e.BuildID)
	}
	return fmt.Sprintf("debuginfod: no server has the %s of build ID %x", e.Artifact, e.BuildID)
}

// Is reports whether target is fs.ErrNotExist.
func (e *NotFoundError) Is(target error) bool { return target == fs.ErrNotExist }

// ServerError is a response other than 200 OK or 404 Not Found.
type ServerError struct {
	URL    string
	Status int // the HTTP status code
}

func (e *ServerError) Error() string {
	return fmt.Sprintf("debuginfod: GET %s: %d %s", e.URL, e.Status, http.StatusText(e.Status))
}

// TooLargeError is a download refused for its size.
type TooLargeError struct {
	URL   string
	Limit int64 // Client.MaxSize
	Size  int64 // the declared Content-Length; -1 when the body ran past Limit
}

func (e *TooLargeError) Error() string {
	if e.Size < 0 {
		return fmt.Sprintf("debuginfod: GET %s: more than the limit of %d bytes", e.URL, e.Limit)
	}
	return fmt.Sprintf("debuginfod: GET %s: %d bytes exceed the limit of %d", e.URL, e.Size, e.Limit)
}

// TimeoutError is a download stopped by Client.Timeout (Stalled) or
// Client.MaxTime. It matches context.DeadlineExceeded with errors.Is.
type TimeoutError struct {
	URL     string
	After   time.Duration // the timeout that ran out
	Stalled bool          // no progress for After; else the whole download took After
}

func (e *TimeoutError) Error() string {
	if e.Stalled {
		return fmt.Sprintf("debuginfod: GET %s: no progress in %v", e.URL, e.After)
	}
	return fmt.Sprintf("debuginfod: GET %s: not done in %v", e.URL, e.After)
}

// Timeout reports true, as net.Error's Timeout does.
func (e *TimeoutError) Timeout() bool { return true }

// Unwrap returns context.DeadlineExceeded.
func (e *TimeoutError) Unwrap() error { return context.DeadlineExceeded }

// RequestError is a request that did not complete: the connection failed,
// the redirects went past Client.MaxRedirects (ErrTooManyRedirects), the
// body ended before its Content-Length (io.ErrUnexpectedEOF), or the
// caller's context ended (context.Canceled, context.DeadlineExceeded).
// Err is the cause. URL is "" for a request that stopped waiting for
// another's download of the same file.
type RequestError struct {
	URL string
	Err error
}

func (e *RequestError) Error() string {
	if e.URL == "" {
		return "debuginfod: " + e.Err.Error()
	}
	return fmt.Sprintf("debuginfod: GET %s: %v", e.URL, e.Err)
}

// Unwrap returns Err.
func (e *RequestError) Unwrap() error { return e.Err }

// RefusedError is a download that arrived whole but was not kept: it is not
// an ELF file, its contents run past its end (a truncated file), it has no
// build ID, or it has another build ID than the one asked for (Err is then
// an *elfx.IdentityError).
type RefusedError struct {
	URL string
	Err error
}

func (e *RefusedError) Error() string {
	var ie *elfx.IdentityError
	if errors.As(e.Err, &ie) {
		got := "no build ID"
		if ie.Got != nil {
			got = "build ID " + hex.EncodeToString(ie.Got)
		}
		return fmt.Sprintf("debuginfod: GET %s: refused: the file has %s, not %x", e.URL, got, ie.Want)
	}
	return fmt.Sprintf("debuginfod: GET %s: refused: %v", e.URL, e.Err)
}

// Unwrap returns Err.
func (e *RefusedError) Unwrap() error { return e.Err }

func (c *Client) urls() []string {
	if c.URLs != nil {
		return c.URLs
	}
	return strings.Fields(os.Getenv("DEBUGINFOD_URLS"))
}

func (c *Client) cacheDir() (string, error) {
	if c.CacheDir != "" {
		return c.CacheDir, nil
	}
	if p := os.Getenv("DEBUGINFOD_CACHE_PATH"); p != "" {
		return p, nil
	}
	dir, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("debuginfod: no cache folder: %w", err)
	}
	return filepath.Join(dir, "debuginfod_client"), nil
}

func (c *Client) maxSize() int64 {
	if c.MaxSize > 0 {
		return c.MaxSize
	}
	return DefaultMaxSize
}

func (c *Client) timeout() time.Duration {
	if c.Timeout > 0 {
		return c.Timeout
	}
	return DefaultTimeout
}

// httpClient returns the HTTP client with the redirect rule.
func (c *Client) httpClient() *http.Client {
	var hc http.Client
	if c.HTTP != nil {
		hc = *c.HTTP
	}
	if hc.CheckRedirect == nil {
		max := c.MaxRedirects
		switch {
		case max == 0:
			max = DefaultMaxRedirects
		case max < 0:
			max = 0
		}
		hc.CheckRedirect = func(_ *http.Request, via []*http.Request) error {
			if len(via) > max {
				return ErrTooManyRedirects
			}
			return nil
		}
	}
	return &hc
}

// Locate yields the cached debug file for k's build ID, downloading it
// from the first server that has it. When no server has it (or there are
// none) it yields nothing; any other failure is yielded as the error, so
// that a locate.Chain goes on to its next locator.
func (c *Client) Locate(ctx context.Context, k locate.Key) iter.Seq2[*locate.File, error] {
	return func(yield func(*locate.File, error) bool) {
		if len(k.BuildID) == 0 || (k.Kind != locate.KindDebugFile && k.Kind != locate.KindSup) {
			return
		}
		path, err := c.Fetch(ctx, k.BuildID, Debuginfo)
		if errors.Is(err, fs.ErrNotExist) {
			return
		}
		if err != nil {
			yield(nil, err)
			return
		}
		f, err := locate.Open(path, locate.HowDebuginfod)
		if errors.Is(err, fs.ErrNotExist) {
			return // removed meanwhile
		}
		yield(f, err)
	}
}

// Fetch returns the path in the cache of the artifact a of build ID id,
// downloading it first when the cache has no file of that build ID. The
// servers are tried in order until one has it; a server that fails (an
// error status, a refused download, a connection that fails or stalls) is
// skipped. Without a file it returns a *NotFoundError when every server
// answered 404 (or there are none), else the first server's failure. The
// caller's context ends the whole fetch: its error is then a *RequestError
// wrapping ctx.Err().
//
// Concurrent calls for the same file share one download; a caller whose
// context ends stops waiting, and the others go on.
func (c *Client) Fetch(ctx context.Context, id []byte, a Artifact) (string, error) {
	if len(id) == 0 {
		return "", errors.New("debuginfod: empty build ID")
	}
	if a != Debuginfo && a != Executable {
		return "", fmt.Errorf("debuginfod: unknown artifact %q", a)
	}
	key := string(a) + "/" + hex.EncodeToString(id)
	for {
		c.mu.Lock()
		if f, ok := c.flights[key]; ok {
			c.mu.Unlock()
			select {
			case <-f.done:
			case <-ctx.Done():
				return "", &RequestError{Err: ctx.Err()}
			}
			if f.abandoned && ctx.Err() == nil {
				continue // its caller gave up; this one has not
			}
			return f.path, f.err
		}
		f := &flight{done: make(chan struct{})}
		if c.flights == nil {
			c.flights = map[string]*flight{}
		}
		c.flights[key] = f
		c.mu.Unlock()

		f.path, f.err = c.fetch(ctx, id, a)
		f.abandoned = f.err != nil && ctx.Err() != nil
		c.mu.Lock()
		delete(c.flights, key)
		c.mu.Unlock()
		close(f.done)
		return f.path, f.err
	}
}

// fetch is Fetch for the one request that does the work.
func (c *Client) fetch(ctx context.Context, id []byte, a Artifact) (string, error) {
	dir, err := c.cacheDir()
	if err != nil {
		return "", err
	}
	h := hex.EncodeToString(id) // hex: safe as a path element
	dest := filepath.Join(dir, h, string(a))
	if cached(dest, id) {
		return dest, nil
	}
	urls := c.urls()
	var firstErr error
	for _, base := range urls {
		err := c.download(ctx, base, id, a, dir, dest)
		if err == nil {
			return dest, nil
		}
		if ctx.Err() != nil {
			return "", err
		}
		var nf *NotFoundError
		if firstErr == nil && !errors.As(err, &nf) {
			firstErr = err
		}
	}
	if firstErr != nil {
		return "", firstErr
	}
	return "", &NotFoundError{BuildID: bytes.Clone(id), Artifact: a, URLs: urls}
}

// cached reports whether path is a cached file of build ID id. An empty
// file (elfutils' record of a failed download), a file that no longer
// parses or one of another build ID is not: a download replaces it.
func cached(path string, id []byte) bool {
	st, err := os.Stat(path)
	if err != nil || !st.Mode().IsRegular() || st.Size() == 0 {
		return false
	}
	return check(path, id, path) == nil
}

// download fetches base/buildid/HEX/a into dest through a temporary file
// in the cache folder dir, which is renamed into place only after check
// accepted it: a cut, foreign or oversized download never poses as a
// cached one, and none is left behind.
func (c *Client) download(parent context.Context, base string, id []byte, a Artifact, dir, dest string) error {
	u, err := url.JoinPath(base, "buildid", hex.EncodeToString(id), string(a))
	if err != nil {
		return &RequestError{URL: base, Err: err}
	}
	timeout := c.timeout()
	ctx, cancel := context.WithCancelCause(parent)
	defer cancel(nil)
	// The stall timer cancels the request when it fires; every read
	// that makes progress sets it again.
	stall := time.AfterFunc(timeout, func() { cancel(&TimeoutError{URL: u, After: timeout, Stalled: true}) })
	defer stall.Stop()
	if c.MaxTime > 0 {
		var stop context.CancelFunc
		ctx, stop = context.WithTimeoutCause(ctx, c.MaxTime, &TimeoutError{URL: u, After: c.MaxTime})
		defer stop()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return &RequestError{URL: u, Err: err}
	}
	resp, err := c.httpClient().Do(req)
	if err != nil {
		return requestError(parent, ctx, u, err)
	}
	defer resp.Body.Close()
	switch resp.StatusCode {
	case http.StatusOK:
	case http.StatusNotFound:
		return &NotFoundError{BuildID: bytes.Clone(id), Artifact: a, URLs: []string{base}}
	default:
		return &ServerError{URL: u, Status: resp.StatusCode}
	}
	limit := c.maxSize()
	if resp.ContentLength > limit {
		return &TooLargeError{URL: u, Limit: limit, Size: resp.ContentLength}
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, ".download-"+filepath.Base(filepath.Dir(dest))+"-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // fails harmlessly after the rename
	body := &progressReader{r: resp.Body, timer: stall, d: timeout}
	n, err := io.Copy(tmp, io.LimitReader(body, limit+1))
	if cerr := tmp.Close(); err == nil && cerr != nil {
		return cerr
	}
	if err != nil {
		return requestError(parent, ctx, u, err)
	}
	if n > limit {
		return &TooLargeError{URL: u, Limit: limit, Size: -1}
	}
	if err := check(tmp.Name(), id, u); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(dest), 0o700); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), dest)
}

// requestError turns a failure of the request made with ctx (derived from
// the caller's parent) into the package's error: the timeout that
// cancelled it, the caller's context error, else the transport's error.
func requestError(parent, ctx context.Context, u string, err error) error {
	var te *TimeoutError
	if errors.As(context.Cause(ctx), &te) {
		return te
	}
	if perr := parent.Err(); perr != nil {
		return &RequestError{URL: u, Err: perr}
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return &RequestError{URL: u, Err: err}
}

// progressReader sets the stall timer again on every read that brings
// bytes.
type progressReader struct {
	r     io.Reader
	timer *time.Timer
	d     time.Duration
}

func (p *progressReader) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	if n > 0 {
		p.timer.Reset(p.d)
	}
	return n, err
}

// check accepts the file at path, downloaded from u, when it is an ELF
// file whose sections and segments lie within it (a truncated download
// cuts them) and whose build ID is id.
func check(path string, id []byte, u string) error {
	f, err := elfx.Open(path, &elfx.Options{NoMmap: true})
	if err != nil {
		return &RefusedError{URL: u, Err: err}
	}
	defer f.Close()
	size := f.Size()
	for _, s := range f.Sections {
		if s.HasData() && (s.Offset > size || s.FileSize > size-s.Offset) {
			return &RefusedError{URL: u, Err: fmt.Errorf("section %s [%#x, +%#x) runs past the end of the %d-byte file", s.Name, s.Offset, s.FileSize, size)}
		}
	}
	for i, p := range f.Progs {
		if p.Off > size || p.Filesz > size-p.Off {
			return &RefusedError{URL: u, Err: fmt.Errorf("program header %d [%#x, +%#x) runs past the end of the %d-byte file", i, p.Off, p.Filesz, size)}
		}
	}
	got, ok, err := f.BuildID()
	if err != nil {
		return &RefusedError{URL: u, Err: err}
	}
	if !ok || !bytes.Equal(got, id) {
		e := &elfx.IdentityError{Debug: u, ByBuildID: true, Want: bytes.Clone(id)}
		if ok {
			e.Got = bytes.Clone(got)
		}
		return &RefusedError{URL: u, Err: e}
	}
	return nil
}
