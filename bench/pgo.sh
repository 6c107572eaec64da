#!/usr/bin/env bash
# Rebuilds examples/addr2line/default.pgo, the CPU profile that `go build`
# and `go run` use for the command (profile-guided optimization, -pgo=auto).
#
#   bench/pgo.sh
#
# The profile is trained on inputs that no benchmark times, so that the
# benchmarks measure what it does for inputs it has not seen: GNU gold
# (C++) and as (C) from Debian's binutils packages with their dwz debug
# files (the objdump case's packages: fetched as run.sh fetches them),
# Go's cmd/compile (built here), and a small gcc -O2 -g C++ program from
# bench/cxx/gen.sh (2 units, 6 instances a unit; the benchmark's is clang's,
# 5 units of 20). Each runs four times with a CPU profile; the profiles are
# merged into one. Regenerate it when the hot paths change; a stale profile
# costs speed, never correctness.
set -euo pipefail
source "$(dirname "$0")/common.sh" objdump
P=$WORK/pgo
mkdir -p "$P"
cd "$REPO"

if [[ ! -e $OBJDUMP || ! -e $DWZ ]]; then
	mkdir -p "$CACHE" "$BU"
	(cd "$CACHE" && apt-get download binutils-x86-64-linux-gnu binutils-x86-64-linux-gnu-dbg)
	for d in "$CACHE"/binutils-x86-64-linux-gnu*.deb; do dpkg -x "$d" "$BU"; done
fi
debug_of() {
	local bid
	bid=$(llvm-readelf-14 -n "$1" | awk '/Build ID/ {print $3}')
	printf '%s\n' "$BU/usr/lib/debug/.build-id/${bid:0:2}/${bid:2}.debug"
}
GOLD=$BU/usr/bin/x86_64-linux-gnu-ld.gold
AS=$BU/usr/bin/x86_64-linux-gnu-as
[[ -x $P/compile ]] || go build -o "$P/compile" cmd/compile
GCXX=$(UNITS=2 K=6 "$REPO/bench/cxx/gen.sh" "$CACHE/cxx-pgo" gcc | tail -1)

# The command with bench/prof/main.go laid over its main (as profile.sh
# profiles it), built without a profile.
BIN=$P/addr2line-prof
build_prof "$P" "$BIN" -pgo=off
go build -o "$P/benchtool" ./bench/benchtool
BT=$P/benchtool

"$BT" sample -n 10000 -seed 7 "$GOLD" "$(debug_of "$GOLD")" >"$P/gold.addrs"
"$BT" sample -n 200000 -seed 7 "$AS" "$(debug_of "$AS")" >"$P/as.addrs"
"$BT" sample -n 200000 -seed 7 "$P/compile" >"$P/compile.addrs"
"$BT" sample -n 100000 -seed 7 "$GCXX" >"$P/gcxx.addrs"
"$BT" sample -n 1 -seed 7 "$GCXX" >"$P/gcxx1.addrs"

rm -f "$P"/*.cpu
for i in 1 2 3 4; do
	run() {
		local name=$1 addrs=$2
		shift 2
		SYMBOLIZE_CPUPROFILE=$P/$name$i.cpu "$BIN" --functions --inlines --demangle "$@" <"$addrs" >/dev/null
	}
	run gold "$P/gold.addrs" --obj="$GOLD" --debug-file-directory="$BU/usr/lib/debug"
	run as "$P/as.addrs" --obj="$AS" --debug-file-directory="$BU/usr/lib/debug"
	run compile "$P/compile.addrs" --obj="$P/compile"
	run gcxx "$P/gcxx.addrs" --obj="$GCXX"
	run gcxx1- "$P/gcxx1.addrs" --obj="$GCXX"
done
go tool pprof -proto "$BIN" "$P"/*.cpu >examples/addr2line/default.pgo
echo "examples/addr2line/default.pgo: $(wc -c <examples/addr2line/default.pgo) bytes from $(ls "$P"/*.cpu | wc -l) profiles"
