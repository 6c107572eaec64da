#!/usr/bin/env bash
# dwz-gnu.sh - GNU addr2line's function names against ours on the Debian
# libraries whose debug files name a dwz supplementary file (liblua5.4,
# libbfd), where llvm-symbolizer-14, which reads no supplementary file,
# is no reference for names. Run bench/debian/run.sh for them first: this
# reads its sampled addresses ($CACHE/addrs), llvm-symbolizer-14's answers
# ($CACHE/llvm) and ours ($OUT), and prints a Markdown table.
#
# GNU addr2line looks for the supplementary file only at the path the
# .gnu_debugaltlink records (/usr/lib/debug/.dwz/...), and for the debug
# file under /usr/lib/debug/.build-id; it has no option for another
# directory. So it runs in a private mount namespace (unshare -m: root, or
# a user namespace that allows it) where $CACHE/root/usr/lib/debug is
# bound over /usr/lib/debug; nothing outside changes.
#
#   bench/debian/dwz-gnu.sh            (CACHE, OUT, N, SEED as for run.sh)
set -euo pipefail

CACHE=${CACHE:-/work/cache/debian}
OUT=${OUT:-$CACHE/out}
N=${N:-5000}
SEED=${SEED:-1}
REPO=$(cd "$(dirname "$0")/../.." && pwd)

LIBS=(
	"liblua5.4|usr/lib/x86_64-linux-gnu/liblua5.4.so.0.0.0"
	"libbfd|usr/lib/x86_64-linux-gnu/libbfd-2.40-system.so"
)

(cd "$REPO" && go build -o "$OUT/dbgdiff" ./bench/debian/dbgdiff)
echo "| library | code addresses | frames (ours) | named: ours | llvm-symbolizer-14 | addr2line | addresses compared | frames: equal | equal but for a symbol suffix | addr2line ?? | ours unnamed | differ |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
for entry in "${LIBS[@]}"; do
	IFS='|' read -r name path <<<"$entry"
	addrs=$CACHE/addrs/$name.n$N.s$SEED
	lib=$(readlink -f "$CACHE/root/$path")
	gnu=$OUT/$name.gnu.txt
	unshare -m sh -c 'mount --bind "$1" /usr/lib/debug && exec addr2line -e "$2" -f -i -a' sh \
		"$CACHE/root/usr/lib/debug" "$lib" <"$addrs.in" >"$gnu" 2>"$gnu.err"
	"$OUT/dbgdiff" gnunames -lib "$name" -addrs "$addrs" -gnu "$gnu" \
		-short "$OUT/$name.inl-short-nodem.json" -linkage "$OUT/$name.inl-linkage-nodem.json" \
		-llvm "$CACHE/llvm/$name.n$N.s$SEED.inl-short-nodem.json"
done
