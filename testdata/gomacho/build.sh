#!/usr/bin/env bash
# Rebuilds the Go Mach-O fixtures (kept apart from ../macho, whose tests
# compare with tools that cannot read compressed DWARF): one small program for darwin/arm64 and
# darwin/amd64, each with Go's default compressed DWARF (__zdebug_*) and
# with -ldflags=-compressdwarf=false. The code of each pair is identical, so
# their answers must be too. Needs only the Go toolchain (go1.26.8 made the
# committed bytes); -trimpath keeps the checkout path out.
set -euo pipefail
cd "$(dirname "$0")"
export GOTOOLCHAIN=local GOFLAGS= CGO_ENABLED=0 GOOS=darwin
for arch in arm64 amd64; do
  GOARCH=$arch go build -trimpath -buildvcs=false -o goprog.$arch .
  GOARCH=$arch go build -trimpath -buildvcs=false -ldflags=-compressdwarf=false -o goprog.$arch.nocompress .
done
{ go version; echo "GOOS=darwin CGO_ENABLED=0 go build -trimpath -buildvcs=false [-ldflags=-compressdwarf=false]"
  sha256sum main.go go.mod goprog.*; } > MANIFEST
