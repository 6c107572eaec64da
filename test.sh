#!/usr/bin/env bash
# Runs every test, with the race detector. Usage: ./test.sh [go test flags]
set -euo pipefail
cd "$(dirname "$0")"
exec go test -race -count=1 "$@" ./...
