package main

import (
	"context"

	"github.com/symbolize-go/symbolize/elfx"
)

// llvmLocator proposes separate debug files where llvm-symbolizer 14 looks
// for them: the build ID under each --debug-file-directory (else
// /usr/lib/debug), then the .gnu_debuglink name beside the binary, in its
// .debug directory, and under the --fallback-debug-path (else
// /usr/lib/debug) joined with the binary's absolute directory. Unlike
// GDB's search (elfx.DirLocator alone), the debug file directories are not
// used for debuglink names, nor the fallback path for build IDs.
type llvmLocator struct {
	buildIDDirs []string // nil: elfx.DefaultDebugDir
	linkDir     string   // "": elfx.DefaultDebugDir
}

// Locate returns the candidates in LLVM's order; it touches no file system.
func (l llvmLocator) Locate(ctx context.Context, id elfx.Identity) ([]string, error) {
	byID, err := elfx.DirLocator{DebugDirs: l.buildIDDirs}.Locate(ctx, elfx.Identity{BuildID: id.BuildID})
	if err != nil {
		return nil, err
	}
	dir := l.linkDir
	if dir == "" {
		dir = elfx.DefaultDebugDir
	}
	byLink, err := elfx.DirLocator{DebugDirs: []string{dir}}.Locate(ctx,
		elfx.Identity{Path: id.Path, DebugLink: id.DebugLink, DebugLinkCRC: id.DebugLinkCRC})
	if err != nil {
		return nil, err
	}
	return append(byID, byLink...), nil
}
