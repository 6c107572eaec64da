#!/usr/bin/env bash
# Times our examples/addr2line against llvm-symbolizer-14, GNU addr2line and
# eu-addr2line on the same addresses and prints median wall time, median max
# RSS and the ratios ours/reference as Markdown. See bench/README.md.
#
#   bench/run.sh [mid|rgw|cxx|objdump|all]      (default mid)
#
# Environment: REPS (runs per tool and case, default 3), WORK (scratch dir,
# default /tmp/symbolize-bench), CACHE (Debian packages, default
# ~/.cache/symbolize-bench), N_MID (default 200000), N_RGW (default 10000),
# EU=0 (leave eu-addr2line out: it takes about 6 minutes on rgw-10k-inl),
# GIMLI=PATH (also time gimli's addr2line, built by
# shared/tools/gimli/build.sh, on every case with inlines), TOOLS="ours gimli"
# (time only these tools), OURS=PATH (time that build of examples/addr2line
# instead of building the working tree's).
set -euo pipefail
source "$(dirname "$0")/common.sh"
REPS=${REPS:-3}

for t in /usr/bin/time llvm-symbolizer-14 addr2line eu-addr2line go; do
	command -v "$t" >/dev/null || {
		echo "$0: $t not found (apt-get install time llvm-14 binutils elfutils)" >&2
		exit 1
	}
done

mkdir -p "$WORK/out"
cd "$REPO"
# Named so that it runs as llvm-symbolizer (as addr2line it would take
# llvm-addr2line's defaults).
if [[ -z ${OURS:-} ]]; then
	# Built as README.md says: static, without cgo.
	CGO_ENABLED=0 go build -o "$WORK/llvm-symbolizer" ./examples/addr2line
else
	# The command takes llvm-addr2line's defaults (no demangling, no
	# columns) when its base name contains "addr2line": a build given as
	# OURS runs under the name llvm-symbolizer too, by a symlink.
	ln -sf "$(realpath "$OURS")" "$WORK/llvm-symbolizer"
fi
OURS=$WORK/llvm-symbolizer
go build -o "$WORK/benchtool" ./bench/benchtool
BT=$WORK/benchtool
RAW=$WORK/raw-$set_name.tsv
: >"$RAW"

# Each case: name, mode (inl or noinl), binary, debug dir ("" for none),
# GNU binary (the path GNU addr2line finds the debug file from), addresses,
# optionally the tools to run (default: all for the mode), the file gimli
# reads (default: the binary; it follows no debug link) and the
# supplementary file gimli is given (--sup; it follows no
# .gnu_debugaltlink).
CASES=()
add_case() { CASES+=("$1|$2|$3|$4|$5|$6|${7:-}|${8:-$3}|${9:-}"); }

if [[ $set_name == mid || $set_name == all ]]; then
	# cmd/go: Go's linker writes zlib-compressed DWARF 5.
	[[ -x $WORK/go ]] || go build -o "$WORK/go" cmd/go
	C=$REPO/testdata/elf/c-gcc-O2-dwarf5
	"$BT" sample -n "$N_MID" -seed 1 "$WORK/go" >"$WORK/go.addrs"
	"$BT" sample -n "$N_MID" -seed 1 "$C" >"$WORK/c.addrs"
	# GNU addr2line 2.40 and eu-addr2line 0.188 find no line for any
	# address of a Go 1.26 binary ("go.go:?", "??:0"; GNU takes 20 s and
	# eu 4 min for it), so only llvm-symbolizer answers there. Set
	# GO_ALL_TOOLS=1 to time them anyway.
	gotools="ours llvm-symbolizer"
	[[ -n ${GO_ALL_TOOLS:-} ]] && gotools=""
	add_case "go-$((N_MID / 1000))k-noinl" noinl "$WORK/go" "" "$WORK/go" "$WORK/go.addrs" "$gotools"
	add_case "go-$((N_MID / 1000))k-inl" inl "$WORK/go" "" "$WORK/go" "$WORK/go.addrs" "$gotools"
	add_case "c-$((N_MID / 1000))k-noinl" noinl "$C" "" "$C" "$WORK/c.addrs"
	add_case "c-$((N_MID / 1000))k-inl" inl "$C" "" "$C" "$WORK/c.addrs"
fi

if [[ $set_name == rgw || $set_name == all ]]; then
	if [[ ! -e $LIB ]]; then
		mkdir -p "$CACHE" "$ROOT"
		(cd "$CACHE" && apt-get download radosgw radosgw-dbg)
		for d in "$CACHE"/radosgw*.deb; do dpkg -x "$d" "$ROOT"; done
	fi
	DBG=$(rgw_debug)
	[[ -f $DBG ]] || {
		echo "$0: no debug file $DBG" >&2
		exit 1
	}
	# GNU addr2line has no debug-directory option: BFD looks for the
	# .gnu_debuglink name in the binary's directory and its .debug/, so
	# give it a directory laid out that way.
	GNU=$CACHE/gnu
	LINK=$(llvm-readelf-14 --string-dump=.gnu_debuglink "$LIB" | awk '/\[ *0\]/ {print $3; exit}')
	mkdir -p "$GNU/.debug"
	ln -sfn "$(readlink -f "$LIB")" "$GNU/libradosgw.so.2"
	ln -sfn "$DBG" "$GNU/.debug/$LINK"
	# The library first: its .dynsym lists only exported functions, so the
	# sampler takes the debug file's full .symtab.
	"$BT" sample -n 1 -seed 1 "$LIB" "$DBG" >"$WORK/rgw1.addrs"
	"$BT" sample -n "$N_RGW" -seed 1 "$LIB" "$DBG" >"$WORK/rgw.addrs"
	# gimli's example follows no .gnu_debuglink: it reads the debug file.
	add_case rgw-cold-noinl noinl "$LIB" "$ROOT/usr/lib/debug" "$GNU/libradosgw.so.2" "$WORK/rgw1.addrs" "" "$DBG"
	add_case rgw-cold-inl inl "$LIB" "$ROOT/usr/lib/debug" "$GNU/libradosgw.so.2" "$WORK/rgw1.addrs" "" "$DBG"
	add_case "rgw-$((N_RGW / 1000))k-inl" inl "$LIB" "$ROOT/usr/lib/debug" "$GNU/libradosgw.so.2" "$WORK/rgw.addrs" "" "$DBG"
fi

if [[ $set_name == cxx || $set_name == all ]]; then
	# The template-heavy C++ program (bench/cxx/gen.sh), built once into
	# $CACHE/cxx: clang++-14 -O2 -g, a few very large units.
	CXXBIN=$(UNITS=$CXX_UNITS K=$CXX_K "$REPO/bench/cxx/gen.sh" "$CACHE/cxx" clang | tail -1)
	"$BT" sample -n 1 -seed 1 "$CXXBIN" >"$WORK/cxx1.addrs"
	"$BT" sample -n "$N_MID" -seed 1 "$CXXBIN" >"$WORK/cxx.addrs"
	add_case cxx-cold-inl inl "$CXXBIN" "" "$CXXBIN" "$WORK/cxx1.addrs"
	add_case "cxx-$((N_MID / 1000))k-inl" inl "$CXXBIN" "" "$CXXBIN" "$WORK/cxx.addrs"
	# The same program from g++ (issue 13 names both compilers): gcc
	# writes .debug_aranges and DW_AT_sibling, and units of another
	# shape. CXX_GCC=0 leaves it out (its first build took 6 minutes of
	# both cores here).
	if [[ ${CXX_GCC:-1} != 0 ]]; then
		GXXBIN=$(UNITS=$CXX_UNITS K=$CXX_K "$REPO/bench/cxx/gen.sh" "$CACHE/cxx" gcc | tail -1)
		"$BT" sample -n 1 -seed 1 "$GXXBIN" >"$WORK/gxx1.addrs"
		"$BT" sample -n "$N_MID" -seed 1 "$GXXBIN" >"$WORK/gxx.addrs"
		add_case cxx-gcc-cold-inl inl "$GXXBIN" "" "$GXXBIN" "$WORK/gxx1.addrs"
		add_case "cxx-gcc-$((N_MID / 1000))k-inl" inl "$GXXBIN" "" "$GXXBIN" "$WORK/gxx.addrs"
	fi
fi

if [[ $set_name == objdump || $set_name == all ]]; then
	# A C program as a distribution ships it: GNU objdump 2.40, its debug
	# file found by build ID under a debug directory, dwz-compressed
	# (names and types in the supplementary file .gnu_debugaltlink
	# names, which the debug directory also holds).
	if [[ ! -e $OBJDUMP || ! -e $DWZ ]]; then
		mkdir -p "$CACHE" "$BU"
		(cd "$CACHE" && apt-get download binutils-x86-64-linux-gnu binutils-x86-64-linux-gnu-dbg)
		for d in "$CACHE"/binutils-x86-64-linux-gnu*.deb; do dpkg -x "$d" "$BU"; done
	fi
	bid=$(llvm-readelf-14 -n "$OBJDUMP" | awk '/Build ID/ {print $3}')
	ODBG=$BU/usr/lib/debug/.build-id/${bid:0:2}/${bid:2}.debug
	"$BT" sample -n "$N_MID" -seed 1 "$OBJDUMP" "$ODBG" >"$WORK/objdump.addrs"
	# GNU addr2line would look for the supplementary file at the absolute
	# path the debug file names (under /usr/lib/debug): it is not timed.
	add_case "objdump-$((N_MID / 1000))k-inl" inl "$OBJDUMP" "$BU/usr/lib/debug" "$OBJDUMP" "$WORK/objdump.addrs" \
		"ours llvm-symbolizer" "$ODBG" "$DWZ"
fi

# tools MODE ONLY prints the tools run in that mode: eu-addr2line and gimli
# only with inlines, eu not with EU=0, gimli only with GIMLI set; ONLY (a
# case's own list) replaces the default list; TOOLS filters the result.
tools() {
	local ts
	if [[ -n $2 ]]; then
		ts=$2
	elif [[ $1 == inl && ${EU:-1} != 0 ]]; then
		ts="ours llvm-symbolizer gnu-addr2line eu-addr2line"
	else
		ts="ours llvm-symbolizer gnu-addr2line"
	fi
	[[ $1 == inl && -n ${GIMLI:-} ]] && ts="$ts gimli"
	if [[ -n ${TOOLS:-} ]]; then
		local t keep=()
		for t in $ts; do [[ " $TOOLS " == *" $t "* ]] && keep+=("$t"); done
		ts=${keep[*]}
	fi
	echo "$ts"
}

# say prints its arguments one a line; echo would eat "-e".
say() { printf '%s\n' "$@"; }

# command_for TOOL MODE BIN DEBUGDIR GNUBIN prints the command line, one
# argument a line. GNU and eu get -C so that every tool demangles, as ours
# and llvm-symbolizer do by default: the same work for the same answers.
command_for() {
	local tool=$1 mode=$2 bin=$3 dbg=$4 gbin=$5 gimbin=$6 gimsup=$7
	case $tool in
	ours | llvm-symbolizer)
		[[ $tool == ours ]] && say "$OURS" || say llvm-symbolizer-14
		say "--obj=$bin"
		say --functions
		[[ $mode == inl ]] && say --inlines || say --no-inlines
		[[ -n $dbg ]] && say "--debug-file-directory=$dbg"
		;;
	gnu-addr2line)
		say addr2line
		say -e
		say "$gbin"
		say -f
		say -C
		[[ $mode == inl ]] && say -i
		;;
	gimli)
		# Its example command takes GNU addr2line's flags.
		say "$GIMLI"
		say -e
		say "$gimbin"
		[[ -n $gimsup ]] && say --sup "$gimsup"
		say -f
		say -C
		[[ $mode == inl ]] && say -i
		;;
	eu-addr2line)
		say eu-addr2line
		say -e
		say "$bin"
		[[ -n $dbg ]] && say "--debuginfo-path=$dbg"
		say -f
		say -C
		[[ $mode == inl ]] && say -i
		;;
	esac
	return 0
}

# Interleaved: every tool of every case once, then again, so that a burst of
# load from someone else on the machine spreads over all tools.
for rep in $(seq 1 "$REPS"); do
	for c in "${CASES[@]}"; do
		IFS='|' read -r name mode bin dbg gbin addrs only gimbin gimsup <<<"$c"
		for tool in $(tools "$mode" "$only"); do
			mapfile -t cmd < <(command_for "$tool" "$mode" "$bin" "$dbg" "$gbin" "$gimbin" "$gimsup")
			out=$WORK/out/$name.$tool
			# eu-addr2line exits 1 when any address has no answer: keep
			# going, and let the Answers section show what came out.
			# Wall time from the shell's clock (microseconds; time's %e
			# has two decimals, too coarse for the one-address cases),
			# max RSS from time's %M, CPU time (user + system, which
			# waiting for a CPU on a loaded machine does not inflate)
			# from %U and %S.
			rc=0
			t0=$EPOCHREALTIME
			/usr/bin/time -f '%e %M %U %S' -o "$WORK/time" "${cmd[@]}" <"$addrs" >"$out" 2>"$out.err" || rc=$?
			t1=$EPOCHREALTIME
			if ((rc != 0)); then
				echo "$0: $name $tool exited $rc: $(grep -v '^Command exited' "$WORK/time" | tail -3; tail -3 "$out.err")" >&2
			fi
			tail -1 "$WORK/time" >"$WORK/time.last"
			read -r _ rss usr sys <"$WORK/time.last"
			wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f", b - a }')
			cpu=$(awk -v a="$usr" -v b="$sys" 'BEGIN { printf "%.2f", a + b }')
			printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$tool" "$rep" "$wall" "$rss" "$cpu" >>"$RAW"
			echo "rep $rep $name $tool: ${wall}s ${rss}KiB ${cpu}s CPU" >&2
		done
	done
done

echo "## Results ($set_name, $(date -u +%Y-%m-%d), $REPS runs each, medians)"
echo
echo "Machine: $(nproc) cores, $(awk '/model name/ {sub(/.*: /, ""); print; exit}' /proc/cpuinfo);" \
	"$(go env GOVERSION); $(llvm-symbolizer-14 --version | awk '/LLVM version/ {print "LLVM " $NF}');" \
	"$(addr2line --version | head -1); $(eu-addr2line --version | head -1)${GIMLI:+; gimli addr2line example ($GIMLI)}."
"$BT" report "$RAW"

echo
echo "### Answers"
echo
echo "Unknown answers (\"??\") in each tool's output, and our agreement with llvm-symbolizer-14"
echo "(whole answer per address, byte for byte; then function names only):"
echo
for c in "${CASES[@]}"; do
	IFS='|' read -r name mode _ _ _ addrs only _ _ <<<"$c"
	echo "- $name ($(wc -l <"$addrs") addresses):"
	ts=$(tools "$mode" "$only")
	for tool in $ts; do
		echo "  - $tool: $("$BT" unknown "$WORK/out/$name.$tool")"
	done
	if [[ " $ts " == *" ours "* && " $ts " == *" llvm-symbolizer "* ]]; then
		echo "  - ours vs llvm-symbolizer: $("$BT" agree "$WORK/out/$name.ours" "$WORK/out/$name.llvm-symbolizer" 2>"$WORK/out/$name.diff")"
	fi
done
