#!/usr/bin/env bash
# Times examples/pprofsym against the standalone pprof driving
# llvm-symbolizer-14 (-symbolize=local -tools=DIR -proto) on one unsymbolized
# profile, end to end (read, symbolize, write the gzipped profile), in one
# run, alternating the two, and prints the medians and the ratio as
# Markdown. It then checks that `pprof -symbolize=none -traces` prints the
# same on both outputs.
#
#   bench/pprofsym.sh
#
# The profile (bench/pprofsym: 100,000 samples of 4 to 32 frames over
# 20,000 distinct addresses of testdata/elf/json-gcc-O2, a C++ program, and
# of libc.so.6 with its debug file from libc6-dbg) is made once in WORK.
# Environment: REPS (runs of each, default 5), WORK (default
# /tmp/symbolize-bench-pprofsym), SAMPLES (default 100000), LOCATIONS
# (default 20000), SYMBOLIZE_PPROF (the pprof at go.mod's version, as the
# e2e tests take it; default: pprof on PATH).
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
WORK=${WORK:-/tmp/symbolize-bench-pprofsym}
REPS=${REPS:-5}
SAMPLES=${SAMPLES:-100000}
LOCATIONS=${LOCATIONS:-20000}
PPROF=${SYMBOLIZE_PPROF:-$(command -v pprof || true)}
LIBC=/usr/lib/x86_64-linux-gnu/libc.so.6

for t in /usr/bin/time llvm-symbolizer-14 go "$PPROF"; do
	command -v "$t" >/dev/null || {
		echo "$0: ${t:-pprof} not found (apt-get install time llvm-14; pprof: see e2e/pprof_test.go)" >&2
		exit 1
	}
done
cd "$REPO"
want=$(go list -m -f '{{.Version}}' github.com/google/pprof)
have=$(go version -m "$PPROF" | awk '$1 == "mod" && $2 == "github.com/google/pprof" {print $3}')
if [[ $have != "$want" ]]; then
	echo "$0: $PPROF is pprof $have, go.mod has $want: GOBIN=DIR go install github.com/google/pprof@$want" >&2
	exit 1
fi

mkdir -p "$WORK/tools" "$WORK/home"
ln -sf "$(command -v llvm-symbolizer-14)" "$WORK/tools/llvm-symbolizer"
go build -o "$WORK/pprofsym" ./examples/pprofsym
go build -o "$WORK/pprofsym-profile" ./bench/pprofsym
IN=$WORK/raw-$SAMPLES-$LOCATIONS.pb.gz
[[ -e $IN ]] || "$WORK/pprofsym-profile" -samples "$SAMPLES" -locations "$LOCATIONS" -seed 1 -o "$IN" \
	testdata/elf/json-gcc-O2 "$LIBC"

export HOME=$WORK/home PPROF_TMPDIR=$WORK/home PPROF_BINARY_PATH=$WORK/home
RAW=$WORK/times.tsv
: >"$RAW"
for ((i = 1; i <= REPS; i++)); do
	/usr/bin/time -f "pprofsym	%e	%U	%S	%M" -a -o "$RAW" \
		"$WORK/pprofsym" -o "$WORK/ours.pb.gz" "$IN"
	/usr/bin/time -f "pprof	%e	%U	%S	%M" -a -o "$RAW" \
		sh -c '"$1" -symbolize=local -tools="$2" -proto "$3" >"$4"' _ "$PPROF" "$WORK/tools" "$IN" "$WORK/llvm.pb.gz"
done

# Medians of wall time, CPU time (user + system, children included) and max
# RSS; and of the ratios pprof/pprofsym of the runs made one after the
# other (run i of each), with their range.
awk -F'\t' -v reps="$REPS" '
function median(a, n,   i, j, t) {
	for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
{ n[$1]++; wall[$1, n[$1]] = $2; cpu[$1, n[$1]] = $3 + $4; rss[$1, n[$1]] = $5 }
END {
	split("pprofsym pprof", tools, " ")
	print "| tool | wall s (median) | CPU s (median) | max RSS MB (median) | wall s, every run |"
	print "|---|---|---|---|---|"
	for (k = 1; k <= 2; k++) {
		tool = tools[k]; ws = ""
		for (i = 1; i <= n[tool]; i++) { w[i] = wall[tool, i]; c[i] = cpu[tool, i]; r[i] = rss[tool, i]; ws = ws sprintf("%s%.2f", i > 1 ? " " : "", wall[tool, i]) }
		printf "| %s | %.2f | %.2f | %.0f | %s |\n", tool, median(w, n[tool]), median(c, n[tool]), median(r, n[tool]) / 1024, ws
	}
	for (i = 1; i <= reps; i++) { pw[i] = wall["pprof", i] / wall["pprofsym", i]; pc[i] = cpu["pprof", i] / cpu["pprofsym", i] }
	mw = median(pw, reps); mc = median(pc, reps)
	printf "\nspeed-up pprof/pprofsym, median of the %d run pairs: wall %.1fx (%.1f-%.1f), CPU %.1fx (%.1f-%.1f)\n", reps, mw, pw[1], pw[reps], mc, pc[1], pc[reps]
}' "$RAW"

"$PPROF" -symbolize=none -traces "$WORK/ours.pb.gz" >"$WORK/ours.traces" 2>/dev/null
"$PPROF" -symbolize=none -traces "$WORK/llvm.pb.gz" >"$WORK/llvm.traces" 2>/dev/null
if cmp -s "$WORK/ours.traces" "$WORK/llvm.traces"; then
	echo "pprof -symbolize=none -traces: the same on both outputs ($(wc -l <"$WORK/ours.traces") lines)"
else
	echo "pprof -symbolize=none -traces: DIFFERENT (diff $WORK/llvm.traces $WORK/ours.traces)"
	exit 1
fi
