package main

import (
	"context"
	"iter"

	"github.com/symbolize-go/symbolize/locate"
)

// llvmLocator proposes separate debug files where llvm-symbolizer 14 looks
// for them: the build ID under each --debug-file-directory (else
// /usr/lib/debug), then the .gnu_debuglink name beside the binary, in its
// .debug directory, and under the --fallback-debug-path (else
// /usr/lib/debug) joined with the binary's absolute directory. Unlike
// GDB's search (locate.Dirs alone), the debug file directories are not
// used for debuglink names, nor the fallback path for build IDs. Other
// kinds of files are looked for as locate.Dirs looks for them.
type llvmLocator struct {
	buildIDDirs []string // nil: locate.DefaultDebugDir
	linkDir     string   // "": locate.DefaultDebugDir
}

// Locate yields the candidates in LLVM's order.
func (l llvmLocator) Locate(ctx context.Context, k locate.Key) iter.Seq2[*locate.File, error] {
	if k.Kind != locate.KindDebugFile {
		return locate.Dirs{DebugDirs: l.buildIDDirs}.Locate(ctx, k)
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
		for f, err := range (locate.Dirs{DebugDirs: []string{dir}}).Locate(ctx, byLink) {
			if !yield(f, err) {
				return
			}
		}
	}
}
