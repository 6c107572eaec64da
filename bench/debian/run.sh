#!/usr/bin/env bash
# Differential test of our examples/addr2line against llvm-symbolizer-14 on
# real Debian bookworm libraries with their -dbg packages: both tools get
# the same sampled addresses and the same flags, in every variant, with
# --output-style=JSON, and bench/debian/dbgdiff compares the answers field
# by field. See bench/README.md ("Debian libraries") and RESULTS.md here.
#
#   bench/debian/run.sh [LIB...]      (default: every library in LIBS below;
#                                      those in OPT_LIBS only when named)
#
# Environment: CACHE (packages, unpacked tree, sampled addresses and
# llvm-symbolizer's answers; default /work/cache/debian), OUT (our answers,
# the summary and the report; default $CACHE/out), N (addresses per library,
# default 5000), SEED (default 1), SHOW (examples per field and variant,
# default 3), VARIANTS (space-separated subset of the eight below),
# FRESH=1 (recompute llvm-symbolizer's answers too), REV (the commit whose
# examples/addr2line is measured, default HEAD; REV=worktree builds the
# working tree as it is, others' uncommitted edits included).
#
# Nothing here is needed by CI, and nothing it fetches is committed.
set -euo pipefail

CACHE=${CACHE:-/work/cache/debian}
OUT=${OUT:-$CACHE/out}
N=${N:-5000}
SEED=${SEED:-1}
SHOW=${SHOW:-3}
REPO=$(cd "$(dirname "$0")/../.." && pwd)
DEBS=$CACHE/debs
ROOT=$CACHE/root
DEBUGDIR=$ROOT/usr/lib/debug

# Each library: name | packages (the library's and its -dbg) | path of the
# library in the unpacked tree. The DWARF is in the separate debug file
# found by build ID under $DEBUGDIR, except for libstdc++: Debian's
# libstdc++6-12-dbg ships no detached debug file for libstdc++.so.6 but a
# debug build of the library itself, with its DWARF inside.
LIBS=(
	"libc|libc6 libc6-dbg|lib/x86_64-linux-gnu/libc.so.6"
	"libstdc++|libstdc++6-12-dbg|usr/lib/x86_64-linux-gnu/debug/libstdc++.so.6.0.30"
	"libkrb5|libkrb5-3 libkrb5-dbg|usr/lib/x86_64-linux-gnu/libkrb5.so.3.3"
	"libpython3.11|libpython3.11 libpython3.11-dbg|usr/lib/x86_64-linux-gnu/libpython3.11.so.1.0"
	"libpcre|libpcre3 libpcre3-dbg|lib/x86_64-linux-gnu/libpcre.so.3.13.3"
	"libgsl|libgsl27 libgsl-dbg|usr/lib/x86_64-linux-gnu/libgsl.so.27.0.0"
	"libitpp|libitpp8v5 libitpp8v5-dbg|usr/lib/x86_64-linux-gnu/libitpp.so.8.2.1"
	"liblua5.4|liblua5.4-0 liblua5.4-0-dbg|usr/lib/x86_64-linux-gnu/liblua5.4.so.0.0.0"
	"libbfd|libbinutils libbinutils-dbg|usr/lib/x86_64-linux-gnu/libbfd-2.40-system.so"
	"libradosgw|radosgw radosgw-dbg|usr/lib/x86_64-linux-gnu/libradosgw.so.2"
)
# Run only when named: the kernel's vmlinux with its DWARF, from the
# linux-image-*-dbg package (858 MB to download, 5.6 GB unpacked, most of it
# the modules' debug files).
OPT_LIBS=(
	"vmlinux|linux-image-6.1.0-57-amd64-dbg|usr/lib/debug/boot/vmlinux-6.1.0-57-amd64"
)

# Each variant: name | flags given to both tools (besides --obj,
# --output-style=JSON and --debug-file-directory).
ALL_VARIANTS=(
	"inl-linkage-dem|--inlines --functions=linkage --demangle"
	"inl-linkage-nodem|--inlines --functions=linkage --no-demangle"
	"inl-short-dem|--inlines --functions=short --demangle"
	"inl-short-nodem|--inlines --functions=short --no-demangle"
	"noinl-linkage-dem|--no-inlines --functions=linkage --demangle"
	"noinl-linkage-nodem|--no-inlines --functions=linkage --no-demangle"
	"noinl-short-dem|--no-inlines --functions=short --demangle"
	"noinl-short-nodem|--no-inlines --functions=short --no-demangle"
)

for t in llvm-symbolizer-14 llvm-readelf-14 apt-get dpkg-deb go; do
	command -v "$t" >/dev/null || {
		echo "$0: $t not found (apt-get install llvm-14)" >&2
		exit 1
	}
done

want_lib() {
	((${#SELECT[@]} == 0)) && return 0
	local l
	for l in "${SELECT[@]}"; do [[ $l == "$1" ]] && return 0; done
	return 1
}
SELECT=("$@")
for entry in "${OPT_LIBS[@]}"; do
	for l in "${SELECT[@]}"; do [[ $l == "${entry%%|*}" ]] && LIBS+=("$entry"); done
done
want_variant() {
	[[ -z ${VARIANTS:-} ]] && return 0
	[[ " $VARIANTS " == *" $1 "* ]]
}

mkdir -p "$DEBS" "$ROOT/.unpacked" "$CACHE/addrs" "$CACHE/llvm" "$OUT"

# fetch PKG... downloads the packages not yet in $DEBS and unpacks each
# package once into $ROOT (a stamp per .deb file records it).
fetch() {
	local need=() p d
	for p in "$@"; do
		compgen -G "$DEBS/${p}_*.deb" >/dev/null || need+=("$p")
	done
	if ((${#need[@]})); then
		echo "fetching ${need[*]}" >&2
		(cd "$DEBS" && apt-get download "${need[@]}" >&2)
	fi
	for p in "$@"; do
		for d in "$DEBS/${p}"_*.deb; do
			[[ -e $ROOT/.unpacked/${d##*/} ]] && continue
			dpkg-deb -x "$d" "$ROOT"
			: >"$ROOT/.unpacked/${d##*/}"
		done
	done
}

# dwarf_file LIB prints the file that holds LIB's DWARF: the debug file
# named by its build ID, else LIB itself.
dwarf_file() {
	local bid
	bid=$(llvm-readelf-14 -n "$1" | awk '/Build ID/ {print $3; exit}')
	local d=$DEBUGDIR/.build-id/${bid:0:2}/${bid:2}.debug
	if [[ -n $bid && -f $d ]]; then
		printf '%s\n' "$d"
	else
		printf '%s\n' "$1"
	fi
}

# Build ours from a committed tree (git archive), so that the figures name
# a commit; the working tree of a shared checkout holds others' edits.
REV=${REV:-HEAD}
if [[ $REV == worktree ]]; then
	SRC=$REPO
	REVNAME="working tree at $(git -C "$REPO" rev-parse --short HEAD)"
else
	SRC=$OUT/src
	rm -rf "$SRC"
	mkdir -p "$SRC"
	git -C "$REPO" archive "$REV" | tar -x -C "$SRC"
	REVNAME="commit $(git -C "$REPO" rev-parse --short "$REV")"
fi
# Named llvm-symbolizer: as addr2line it takes llvm-addr2line's defaults.
(cd "$SRC" && go build -o "$OUT/llvm-symbolizer" ./examples/addr2line)
# The comparer is bench plumbing: from the checkout this script is in.
(cd "$REPO" && go build -o "$OUT/dbgdiff" ./bench/debian/dbgdiff)
OURS=$OUT/llvm-symbolizer
DD=$OUT/dbgdiff
SUMMARY=$OUT/summary.tsv
EXAMPLES=$OUT/examples.md
LIBTABLE=$OUT/libraries.md
: >"$SUMMARY"
: >"$EXAMPLES"
{
	echo "| library | DWARF | .debug_info compression | units by DWARF version | .gnu_debugaltlink | .symtab / .dynsym / debug .symtab |"
	echo "|---|---|---|---|---|---|"
} >"$LIBTABLE"
VERSIONS=$OUT/versions.txt
: >"$VERSIONS"

for entry in "${LIBS[@]}"; do
	IFS='|' read -r name pkgs path <<<"$entry"
	want_lib "$name" || continue
	read -ra pkglist <<<"$pkgs"
	fetch "${pkglist[@]}"
	lib=$ROOT/$path
	[[ -e $lib ]] || {
		echo "$0: $name: $lib not in the unpacked packages" >&2
		exit 1
	}
	lib=$(readlink -f "$lib")
	dwarf=$(dwarf_file "$lib")
	for p in "${pkglist[@]}"; do
		for d in "$DEBS/${p}"_*.deb; do
			echo "$name: $(dpkg-deb -f "$d" Package) $(dpkg-deb -f "$d" Version)" >>"$VERSIONS"
		done
	done
	# A package that no longer ships the debug file (libpython3.11-dbg
	# 3.11.2-6+deb12u9 as fetched on 2026-12-07 has no .build-id tree)
	# leaves its library out rather than ending the run.
	if ! row=$("$DD" describe "$name" "$lib" "$dwarf"); then
		echo "$0: $name: left out (no DWARF in $dwarf)" >&2
		echo "$name: left out, no DWARF in \`${dwarf#"$ROOT"}\`" >>"$VERSIONS"
		continue
	fi
	printf '%s\n' "$row" >>"$LIBTABLE"

	addrs=$CACHE/addrs/$name.n$N.s$SEED
	if [[ ! -s $addrs || -n ${FRESH:-} ]]; then
		if [[ $dwarf == "$lib" ]]; then
			"$DD" sample -n "$N" -seed "$SEED" "$lib" >"$addrs"
		else
			"$DD" sample -n "$N" -seed "$SEED" "$lib" "$dwarf" >"$addrs"
		fi
	fi
	cut -d' ' -f1 "$addrs" >"$addrs.in"
	declare -A secs=()

	for v in "${ALL_VARIANTS[@]}"; do
		IFS='|' read -r vname vflags <<<"$v"
		want_variant "$vname" || continue
		read -ra flags <<<"$vflags"
		common=("--obj=$lib" --output-style=JSON "--debug-file-directory=$DEBUGDIR" "${flags[@]}")
		ref=$CACHE/llvm/$name.n$N.s$SEED.$vname.json
		# llvm-symbolizer's answers depend only on the addresses and the
		# flags: kept between runs (FRESH=1 recomputes them).
		if [[ ! -s $ref || -n ${FRESH:-} || $ref -ot $addrs ]]; then
			llvm-symbolizer-14 "${common[@]}" <"$addrs.in" >"$ref.tmp" 2>"$ref.err"
			mv "$ref.tmp" "$ref"
		fi
		ours=$OUT/$name.$vname.json
		# One core: others share the machine.
		t0=$(date +%s.%N)
		GOMAXPROCS=1 "$OURS" "${common[@]}" <"$addrs.in" >"$ours" 2>"$ours.err" || {
			echo "$0: $name $vname: ours exited $?: $(tail -3 "$ours.err")" >&2
		}
		t1=$(date +%s.%N)
		secs[$vname]=$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.1f", b - a}')
	done
	# Compared once every variant has run: a --demangle variant is checked
	# against its --no-demangle twin to tell demangling from the rest.
	for v in "${ALL_VARIANTS[@]}"; do
		vname=${v%%|*}
		want_variant "$vname" || continue
		ref=$CACHE/llvm/$name.n$N.s$SEED.$vname.json
		ours=$OUT/$name.$vname.json
		twin=()
		if [[ $vname == *-dem ]]; then
			tn=${vname%-dem}-nodem
			tr=$CACHE/llvm/$name.n$N.s$SEED.$tn.json
			to=$OUT/$name.$tn.json
			[[ -s $tr && -s $to ]] && want_variant "$tn" && twin=(-nodem-ref "$tr" -nodem-ours "$to")
		fi
		"$DD" compare -lib "$name" -variant "$vname" -addrs "$addrs" -ref "$ref" -ours "$ours" \
			"${twin[@]}" -summary "$SUMMARY" -examples "$EXAMPLES" -show "$SHOW" |
			sed "s/\$/ (ours ${secs[$vname]} s)/" >&2
	done
done

REPORT=$OUT/report.md
{
	echo "## Debian libraries vs llvm-symbolizer-14 ($(date -u +%Y-%m-%d), ours from $REVNAME)"
	echo
	echo "$N addresses per library (seed $SEED); $(llvm-symbolizer-14 --version | awk '/LLVM version/ {print "LLVM " $NF}'); $(go env GOVERSION)."
	echo
	cat "$LIBTABLE"
	echo
	echo "Packages:"
	echo
	sed 's/^/- /' "$VERSIONS"
	echo
	"$DD" report "$SUMMARY"
	echo
	echo "### Examples (first $SHOW per combination of differing fields, per variant)"
	cat "$EXAMPLES"
} >"$REPORT"
"$DD" report "$SUMMARY"
echo "report: $REPORT" >&2
