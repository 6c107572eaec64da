#!/usr/bin/env bash
# Profiles our addr2line (CPU and heap) on the bench cases and prints the top
# of each profile. See bench/README.md.
#
#   bench/profile.sh [mid|rgw|all]      (default mid)
#
# The command is built with bench/prof/main.go laid over its main (go build
# -overlay), so the profiled binary is the real one. Profiles land in
# $WORK/prof; open them with `go tool pprof -http=: $WORK/addr2line-prof FILE`.
set -euo pipefail
source "$(dirname "$0")/common.sh"
TOP=${TOP:-25}
P=$WORK/prof
cd "$REPO"
BIN=$WORK/addr2line-prof
build_prof "$P" "$BIN"
go build -o "$WORK/benchtool" ./bench/benchtool
BT=$WORK/benchtool

# profile NAME ADDRS ARGS... runs the command once with both profiles.
profile() {
	local name=$1 addrs=$2
	shift 2
	echo "### $name"
	echo
	echo '```'
	SYMBOLIZE_CPUPROFILE=$P/$name.cpu SYMBOLIZE_HEAPPROFILE=$P/$name.heap \
		/usr/bin/time -f 'wall %es, max RSS %MKiB' "$BIN" "$@" <"$addrs" 2>&1 >/dev/null | tail -2
	echo
	echo "CPU (flat, then cumulative):"
	go tool pprof -top -nodecount="$TOP" "$BIN" "$P/$name.cpu" 2>/dev/null | sed -n '4,$p'
	go tool pprof -top -cum -nodecount="$TOP" "$BIN" "$P/$name.cpu" 2>/dev/null | sed -n '6,$p'
	echo
	echo "Heap in use near the peak (inuse_space):"
	go tool pprof -top -sample_index=inuse_space -nodecount=12 "$BIN" "$P/$name.heap" 2>/dev/null | sed -n '4,$p'
	echo
	echo "All allocations (alloc_space):"
	go tool pprof -top -sample_index=alloc_space -nodecount=12 "$BIN" "$P/$name.heap.final" 2>/dev/null | sed -n '4,$p'
	echo '```'
	echo
}

if [[ $set_name == mid || $set_name == all ]]; then
	[[ -x $WORK/go ]] || go build -o "$WORK/go" cmd/go
	"$BT" sample -n "$N_MID" -seed 1 "$WORK/go" >"$WORK/go.addrs"
	profile go-inl "$WORK/go.addrs" --obj="$WORK/go" --functions --inlines
	profile go-noinl "$WORK/go.addrs" --obj="$WORK/go" --functions --no-inlines
fi
if [[ $set_name == rgw || $set_name == all ]]; then
	[[ -e $LIB ]] || {
		echo "$0: run bench/run.sh rgw first to fetch $LIB" >&2
		exit 1
	}
	DBG=$(rgw_debug)
	"$BT" sample -n 1 -seed 1 "$LIB" "$DBG" >"$WORK/rgw1.addrs"
	"$BT" sample -n "$N_RGW" -seed 1 "$LIB" "$DBG" >"$WORK/rgw.addrs"
	profile rgw-cold-noinl "$WORK/rgw1.addrs" --obj="$LIB" --functions --no-inlines --debug-file-directory="$ROOT/usr/lib/debug"
	profile rgw-inl "$WORK/rgw.addrs" --obj="$LIB" --functions --inlines --debug-file-directory="$ROOT/usr/lib/debug"
fi
