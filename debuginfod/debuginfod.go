package elfx

import (
	"context"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
)

// Chain is a Locator that asks each of its locators in turn. OpenDebug
// treats it specially: a later locator is asked only when no candidate of
// the earlier ones matched, so a network locator after a DirLocator costs
// nothing when the file is installed locally.
type Chain []Locator

// Locate returns the candidates of every locator in order. An error of
// one locator is returned only if no locator proposed anything.
func (c Chain) Locate(ctx context.Context, id Identity) ([]string, error) {
	var out []string
	var firstErr error
	for _, l := range c {
		p, err := l.Locate(ctx, id)
		out = append(out, p...)
		firstErr = cmp(firstErr, err)
	}
	if len(out) > 0 {
		return out, nil
	}
	return nil, firstErr
}

// Debuginfod is a Locator that downloads debug files by build ID from
// debuginfod servers [elfutils debuginfod(8): GET /buildid/HEX/debuginfo]
// into a local cache. It proposes nothing for a binary without a build ID.
// Downloads are not trusted: OpenDebug checks the build ID of what came.
type Debuginfod struct {
	// URLs are the server base URLs. nil means the space-separated
	// list in $DEBUGINFOD_URLS; empty means no servers.
	URLs []string
	// CacheDir holds downloads as CacheDir/HEX/debuginfo. "" means
	// $DEBUGINFOD_CACHE_PATH, else debuginfod_client under
	// os.UserCacheDir.
	CacheDir string
	// Client makes the requests; nil means http.DefaultClient. Set its
	// Timeout, or pass a context with a deadline.
	Client *http.Client
	// MaxSize caps one download in bytes; 0 means 16 GiB.
	MaxSize int64
}

func (d *Debuginfod) urls() []string {
	if d.URLs != nil {
		return d.URLs
	}
	return strings.Fields(os.Getenv("DEBUGINFOD_URLS"))
}

func (d *Debuginfod) cacheDir() (string, error) {
	if d.CacheDir != "" {
		return d.CacheDir, nil
	}
	if p := os.Getenv("DEBUGINFOD_CACHE_PATH"); p != "" {
		return p, nil
	}
	c, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(c, "debuginfod_client"), nil
}

// Locate returns the cached debug file for id's build ID, downloading it
// from the first server that has it. A server answering 404 is not an
// error; nil, nil means none has it.
func (d *Debuginfod) Locate(ctx context.Context, id Identity) ([]string, error) {
	if len(id.BuildID) == 0 {
		return nil, nil
	}
	urls := d.urls()
	if len(urls) == 0 {
		return nil, nil
	}
	dir, err := d.cacheDir()
	if err != nil {
		return nil, err
	}
	h := hex.EncodeToString(id.BuildID) // hex: safe as a path element
	dest := filepath.Join(dir, h, "debuginfo")
	if st, err := os.Stat(dest); err == nil && st.Mode().IsRegular() {
		return []string{dest}, nil
	}
	var firstErr error
	for _, base := range urls {
		ok, err := d.fetch(ctx, base, id, dest)
		if ok {
			return []string{dest}, nil
		}
		firstErr = cmp(firstErr, err)
	}
	return nil, firstErr
}

// fetch downloads base/buildid/HEX/debuginfo to dest through a temporary
// file, so a cut or foreign download never poses as a cached one.
func (d *Debuginfod) fetch(ctx context.Context, base string, id Identity, dest string) (bool, error) {
	h := hex.EncodeToString(id.BuildID)
	u, err := url.JoinPath(base, "buildid", h, "debuginfo")
	if err != nil {
		return false, fmt.Errorf("elfx: debuginfod URL %q: %w", base, err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return false, fmt.Errorf("elfx: debuginfod: %w", err)
	}
	c := d.Client
	if c == nil {
		c = http.DefaultClient
	}
	resp, err := c.Do(req)
	if err != nil {
		return false, fmt.Errorf("elfx: debuginfod: %w", err)
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusNotFound:
		return false, nil
	case resp.StatusCode != http.StatusOK:
		return false, fmt.Errorf("elfx: debuginfod: GET %s: %s", u, resp.Status)
	}
	max := d.MaxSize
	if max <= 0 {
		max = 16 << 30
	}
	if resp.ContentLength > max {
		return false, fmt.Errorf("elfx: debuginfod: GET %s: %d bytes exceed the limit of %d", u, resp.ContentLength, max)
	}
	if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
		return false, err
	}
	tmp, err := os.CreateTemp(filepath.Dir(dest), ".download-*")
	if err != nil {
		return false, err
	}
	defer os.Remove(tmp.Name()) // no-op after the rename
	n, err := io.Copy(tmp, io.LimitReader(resp.Body, max+1))
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return false, fmt.Errorf("elfx: debuginfod: GET %s: %w", u, err)
	}
	if n > max {
		return false, fmt.Errorf("elfx: debuginfod: GET %s: more than the limit of %d bytes", u, max)
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

// checkDownload opens the file at path and compares its build ID with id's.
func checkDownload(id Identity, path, url string) error {
	f, err := Open(path, &Options{NoMmap: true})
	if err != nil {
		return fmt.Errorf("elfx: debuginfod: GET %s: %w", url, err)
	}
	defer f.Close()
	return checkIdentity(Identity{BuildID: id.BuildID}, f, id.Path, url)
}
