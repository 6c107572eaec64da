// Package debuginfod fetches debug files by build ID from debuginfod
// servers [elfutils debuginfod(8): GET /buildid/HEX/debuginfo] into a local
// cache, as a locate.Locator. It is a package of its own so that
// programs that do not use it link no HTTP client.
//
// Downloads are not trusted: a file is cached only after its build ID was
// checked to equal the one asked for, and the caller checks the identity of
// what it is given again, as for any located file.
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

	"github.com/symbolize-go/symbolize/elfx"
	"github.com/symbolize-go/symbolize/locate"
)

// Client is a locate.Locator that downloads debug files (locate.KindDebugFile)
// and dwz supplementary files (locate.KindSup, which debuginfod serves as
// the debuginfo of their own build ID) by build ID. It proposes nothing for
// a key without a build ID, nor for other kinds.
type Client struct {
	// URLs are the server base URLs. nil means the space-separated
	// list in $DEBUGINFOD_URLS; empty means no servers.
	URLs []string
	// CacheDir holds downloads as CacheDir/HEX/debuginfo. "" means
	// $DEBUGINFOD_CACHE_PATH, else debuginfod_client under
	// os.UserCacheDir.
	CacheDir string
	// HTTP makes the requests; nil means http.DefaultClient. Set its
	// Timeout, or pass a context with a deadline.
	HTTP *http.Client
	// MaxSize caps one download in bytes; 0 means 16 GiB.
	MaxSize int64
}

var _ locate.Locator = (*Client)(nil)

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
		return "", err
	}
	return filepath.Join(dir, "debuginfod_client"), nil
}

// Locate yields the cached debug file for k's build ID, downloading it
// from the first server that has it. A server answering 404 is not an
// error; nothing is yielded when none has it.
func (c *Client) Locate(ctx context.Context, k locate.Key) iter.Seq2[*locate.File, error] {
	return func(yield func(*locate.File, error) bool) {
		if len(k.BuildID) == 0 || (k.Kind != locate.KindDebugFile && k.Kind != locate.KindSup) {
			return
		}
		path, err := c.fetch(ctx, k.BuildID)
		if err != nil {
			yield(nil, err)
			return
		}
		if path == "" {
			return
		}
		f, err := locate.Open(path, locate.HowDebuginfod)
		if errors.Is(err, fs.ErrNotExist) {
			return
		}
		yield(f, err)
	}
}

// fetch returns the cache path of the debuginfo of build ID id, downloading
// it when it is not cached; "" when no server has it.
func (c *Client) fetch(ctx context.Context, id []byte) (string, error) {
	urls := c.urls()
	if len(urls) == 0 {
		return "", nil
	}
	dir, err := c.cacheDir()
	if err != nil {
		return "", err
	}
	h := hex.EncodeToString(id) // hex: safe as a path element
	dest := filepath.Join(dir, h, "debuginfo")
	if st, err := os.Stat(dest); err == nil && st.Mode().IsRegular() {
		return dest, nil
	}
	var firstErr error
	for _, base := range urls {
		ok, err := c.download(ctx, base, id, dest)
		if ok {
			return dest, nil
		}
		if firstErr == nil {
			firstErr = err
		}
	}
	return "", firstErr
}

// download fetches base/buildid/HEX/debuginfo to dest through a temporary
// file, so a cut or foreign download never poses as a cached one.
func (c *Client) download(ctx context.Context, base string, id []byte, dest string) (bool, error) {
	h := hex.EncodeToString(id)
	u, err := url.JoinPath(base, "buildid", h, "debuginfo")
	if err != nil {
		return false, fmt.Errorf("debuginfod: URL %q: %w", base, err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return false, fmt.Errorf("debuginfod: %w", err)
	}
	hc := c.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		return false, fmt.Errorf("debuginfod: %w", err)
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusNotFound:
		return false, nil
	case resp.StatusCode != http.StatusOK:
		return false, fmt.Errorf("debuginfod: GET %s: %s", u, resp.Status)
	}
	limit := c.MaxSize
	if limit <= 0 {
		limit = 16 << 30
	}
	if resp.ContentLength > limit {
		return false, fmt.Errorf("debuginfod: GET %s: %d bytes exceed the limit of %d", u, resp.ContentLength, limit)
	}
	if err := os.MkdirAll(filepath.Dir(dest), 0o700); err != nil {
		return false, err
	}
	tmp, err := os.CreateTemp(filepath.Dir(dest), ".download-*")
	if err != nil {
		return false, err
	}
	defer os.Remove(tmp.Name()) // no-op after the rename
	n, err := io.Copy(tmp, io.LimitReader(resp.Body, limit+1))
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return false, fmt.Errorf("debuginfod: GET %s: %w", u, err)
	}
	if n > limit {
		return false, fmt.Errorf("debuginfod: GET %s: more than the limit of %d bytes", u, limit)
	}
	// Check the identity before caching, so a server's wrong answer is
	// not kept to be refused again on every later lookup.
	if err := checkDownload(id, tmp.Name(), u); err != nil {
		return false, err
	}
	if err := os.Rename(tmp.Name(), dest); err != nil {
		return false, err
	}
	return true, nil
}

// checkDownload opens the file at path and compares its build ID with id.
func checkDownload(id []byte, path, url string) error {
	f, err := elfx.Open(path, &elfx.Options{NoMmap: true})
	if err != nil {
		return fmt.Errorf("debuginfod: GET %s: %w", url, err)
	}
	defer f.Close()
	got, ok, err := f.BuildID()
	if err != nil {
		return fmt.Errorf("debuginfod: GET %s: %w", url, err)
	}
	if !ok || string(got) != string(id) {
		e := &elfx.IdentityError{Debug: url, ByBuildID: true, Want: bytes.Clone(id)}
		if ok {
			e.Got = bytes.Clone(got)
		}
		return e
	}
	return nil
}
