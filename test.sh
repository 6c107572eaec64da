#!/usr/bin/env bash
# Runs the allocation tests without the race detector, then every test with
# it. Usage: ./test.sh [go test flags]
set -euo pipefail
cd "$(dirname "$0")"
# Under the race detector sync.Pool drops items at random, so the tests
# that count a lookup's allocations (each named *Allocs*) skip there: they
# run first without it, where they must hold.
# TestGoPCLNAgreesWithDWARF (and its RELR variant, which builds its pair with gcc) runs here too: under -race it samples the
# addresses and only logs an exception that matched nothing, so its full
# sweep, which fails on one, must run without it (5 s).
# -pgo=off: the tests check behaviour, not speed, and with examples/addr2line's
# default.pgo its test binaries build every package they import again, with
# and without -race (.ci/run took 10 min 6 s at f0b9eb6 against 6 min 30 s
# before the profile, every package's tests as long as before).
echo "== allocation tests and the Go table's full agreement sweep, without the race detector"
go test -count=1 -pgo=off -ldflags=-w=0 "$@" -run 'Allocs|TestGoPCLNAgreesWithDWARF' ./...
echo "== internal/inflate's and linetable's Go loops (purego: no assembly), without the race detector"
go test -count=1 -pgo=off -tags purego "$@" ./internal/inflate ./linetable
echo "== every test, with the race detector"
# -ldflags=-w=0 keeps DWARF in test binaries: inline's TestSelfGo symbolizes its own
# process and compares with runtime.CallersFrames. The race detector slows the
# heaviest packages (inflate's random streams, inline's fixtures) to minutes on
# a busy 2-core machine, past go test's default 10-minute limit per package.
go test -race -count=1 -pgo=off -timeout 30m -ldflags=-w=0 "$@" ./...
