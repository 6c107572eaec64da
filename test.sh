#!/usr/bin/env bash
# Runs every test, with the race detector. Usage: ./test.sh [go test flags]
set -euo pipefail
cd "$(dirname "$0")"
# -ldflags=-w=0 keeps DWARF in test binaries: inline's TestSelfGo symbolizes its own
# process and compares with runtime.CallersFrames.
exec go test -race -count=1 -ldflags=-w=0 "$@" ./...
