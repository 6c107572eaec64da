package main

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"io/fs"
	"iter"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/symbolize-go/symbolize/debuginfod"
	"github.com/symbolize-go/symbolize/elfx"
	"github.com/symbolize-go/symbolize/locate"
)

// llvmLocator proposes separate debug files where llvm-symbolizer 14 looks
// for them: the build ID under each --debug-file-directory (else
// /usr/lib/debug), then the debuginfod servers when net is set, then the
// .gnu_debuglink name beside the binary, in its .debug directory, and
// under the --fallback-debug-path (else /usr/lib/debug) joined with the
// binary's absolute directory. Unlike GDB's search (locate.Dirs alone),
// the debug file directories are not used for debuglink names, nor the
// fallback path for build IDs. Other kinds of files are looked for as
// locate.Dirs looks for them, then (dwz supplementary files) on the
// servers.
type llvmLocator struct {
	buildIDDirs []string           // nil: locate.DefaultDebugDir
	linkDir     string             // "": locate.DefaultDebugDir
	net         *debuginfod.Client // nil: no debuginfod
}

// Locate yields the candidates in LLVM's order.
func (l llvmLocator) Locate(ctx context.Context, k locate.Key) iter.Seq2[*locate.File, error] {
	var chain locate.Chain
	if k.Kind != locate.KindDebugFile {
		chain = locate.Chain{locate.Dirs{DebugDirs: l.buildIDDirs}}
		if l.net != nil {
			chain = append(chain, l.net)
		}
		return chain.Locate(ctx, k)
	}
	byID, byLink := k, k
	byID.DebugLink, byLink.BuildID = "", nil
	dir := l.linkDir
	if dir == "" {
		dir = locate.DefaultDebugDir
	}
	return func(yield func(*locate.File, error) bool) {
		for f, err := range (locate.Dirs{DebugDirs: l.buildIDDirs}).Locate(ctx, byID) {
			if !yield(f, err) {
				return
			}
		}
		if l.net != nil {
			for f, err := range l.net.Locate(ctx, byID) {
				if !yield(f, err) {
					return
				}
			}
		}
		for f, err := range (locate.Dirs{DebugDirs: []string{dir}}).Locate(ctx, byLink) {
			if !yield(f, err) {
				return
			}
		}
	}
}

// newDebuginfod reads the environment of the debuginfod client, as
// elfutils' client and LLVM's read it: $DEBUGINFOD_URLS, separated by
// spaces; $DEBUGINFOD_CACHE_PATH, else debuginfod_client in the user's
// cache folder; $DEBUGINFOD_TIMEOUT and $DEBUGINFOD_MAXTIME in seconds and
// $DEBUGINFOD_MAXSIZE in bytes (a value that is not a positive integer
// keeps the default). It is nil with --no-debuginfod. Without servers it
// still answers from the cache, as llvm-symbolizer 14 does from its own.
func newDebuginfod(cfg *config, getenv func(string) (string, bool)) *debuginfod.Client {
	if cfg.debuginfod < 0 {
		return nil
	}
	env := func(name string) string { v, _ := getenv(name); return v }
	c := &debuginfod.Client{URLs: strings.Fields(env("DEBUGINFOD_URLS")), CacheDir: env("DEBUGINFOD_CACHE_PATH")}
	if c.URLs == nil {
		c.URLs = []string{} // not the process's $DEBUGINFOD_URLS again
	}
	if c.CacheDir == "" {
		if dir, err := os.UserCacheDir(); err == nil {
			c.CacheDir = filepath.Join(dir, "debuginfod_client")
		}
	}
	seconds := func(name string) time.Duration {
		v, err := strconv.ParseInt(env(name), 10, 32)
		if err != nil || v <= 0 {
			return 0
		}
		return time.Duration(v) * time.Second
	}
	c.Timeout, c.MaxTime = seconds("DEBUGINFOD_TIMEOUT"), seconds("DEBUGINFOD_MAXTIME")
	if v, err := strconv.ParseInt(env("DEBUGINFOD_MAXSIZE"), 10, 64); err == nil && v > 0 {
		c.MaxSize = v
	}
	return c
}

// buildIDPrefix starts a module name that is a build ID.
const buildIDPrefix = "BUILDID:"

// errNoBuildID is the open error of a BUILDID:HEX module nothing has, in
// later LLVMs' words.
var errNoBuildID = errors.New("could not find build ID")

// findBuildID returns the file to symbolize for the build ID spelled h:
// its debug file in the build-ID folders, else from the servers, else the
// executable from either. Each candidate must have that build ID.
func findBuildID(ctx context.Context, h string, dirs []string, net *debuginfod.Client) (string, error) {
	id, ok := parseBuildID(h)
	if !ok {
		return "", errNoBuildID
	}
	if dirs == nil {
		dirs = []string{locate.DefaultDebugDir}
	}
	h = hex.EncodeToString(id) // lower case, as the folders are
	var fetchErr error
	for _, a := range []debuginfod.Artifact{debuginfod.Debuginfo, debuginfod.Executable} {
		suffix := ""
		if a == debuginfod.Debuginfo {
			suffix = ".debug"
		}
		for _, dir := range dirs {
			p := filepath.Join(dir, ".build-id", h[:2], h[2:]+suffix)
			if hasBuildID(p, id) {
				return p, nil
			}
		}
		if net == nil {
			continue
		}
		p, err := net.Fetch(ctx, id, a)
		if err == nil {
			return p, nil
		}
		if fetchErr == nil && !errors.Is(err, fs.ErrNotExist) {
			fetchErr = err
		}
	}
	if fetchErr != nil {
		return "", errors.New(errNoBuildID.Error() + ": " + fetchErr.Error())
	}
	return "", errNoBuildID
}

// parseBuildID decodes a build ID written in hexadecimal as LLVM's
// tryGetFromHex does: an odd number of digits as if led by a 0. An empty
// or non-hexadecimal string is not a build ID.
func parseBuildID(s string) ([]byte, bool) {
	if len(s)%2 == 1 {
		s = "0" + s
	}
	id, err := hex.DecodeString(s)
	return id, err == nil && len(id) > 0
}

// hasBuildID reports whether the file at path is an ELF file of build ID
// id.
func hasBuildID(path string, id []byte) bool {
	f, err := elfx.Open(path, nil)
	if err != nil {
		return false
	}
	defer f.Close()
	got, ok, err := f.BuildID()
	return err == nil && ok && bytes.Equal(got, id)
}
