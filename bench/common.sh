# Sourced by run.sh and profile.sh: the case set from the first argument,
# the environment defaults both scripts share (see bench/README.md) and
# where the rgw case's files live.

set_name=${1:-mid}
case $set_name in mid | rgw | cxx | objdump | all) ;; *)
	echo "usage: $0 [mid|rgw|cxx|objdump|all]" >&2
	exit 2
	;;
esac
WORK=${WORK:-/tmp/symbolize-bench}
CACHE=${CACHE:-$HOME/.cache/symbolize-bench}
N_MID=${N_MID:-200000}
N_RGW=${N_RGW:-10000}
CXX_UNITS=${CXX_UNITS:-5}
CXX_K=${CXX_K:-20}
REPO=$(cd "$(dirname "$0")/.." && pwd)

# libradosgw and its packages' files, unpacked under ROOT by run.sh.
ROOT=$CACHE/root
LIB=$ROOT/usr/lib/x86_64-linux-gnu/libradosgw.so.2

# rgw_debug prints the path of LIB's separate debug file, by build ID.
rgw_debug() {
	local bid
	bid=$(llvm-readelf-14 -n "$LIB" | awk '/Build ID/ {print $3}')
	printf '%s\n' "$ROOT/usr/lib/debug/.build-id/${bid:0:2}/${bid:2}.debug"
}

# GNU objdump (C) and its debug files from Debian bookworm's binutils
# packages, unpacked under BU by run.sh: the debug file, found by build ID,
# holds DWARF 5 made smaller by dwz, whose supplementary file is DWZ.
BU=$CACHE/bu
OBJDUMP=$BU/usr/bin/x86_64-linux-gnu-objdump
DWZ=$BU/usr/lib/debug/.dwz/x86_64-linux-gnu/binutils-x86-64-linux-gnu.debug

# build_prof DIR BIN [FLAGS...] builds the command with bench/prof/main.go
# laid over its main (go build -overlay, the overlay in DIR; the command's
# main renamed, so that the profiled binary is the real one) into BIN,
# without cgo as README.md builds it, FLAGS passed to go build.
build_prof() {
	local dir=$1 bin=$2
	shift 2
	mkdir -p "$dir/overlay"
	sed 's/^func main() {$/func unprofiledMain() {/' "$REPO/examples/addr2line/main.go" >"$dir/overlay/main.go"
	grep -q '^func unprofiledMain() {$' "$dir/overlay/main.go" || {
		echo "$0: examples/addr2line/main.go has no 'func main() {' line to wrap" >&2
		exit 1
	}
	grep -v '^//go:build ignore$' "$REPO/bench/prof/main.go" >"$dir/overlay/prof.go"
	printf '{"Replace": {\n  "%s": "%s",\n  "%s": "%s"\n}}\n' \
		"$REPO/examples/addr2line/main.go" "$dir/overlay/main.go" \
		"$REPO/examples/addr2line/zz_prof.go" "$dir/overlay/prof.go" >"$dir/overlay.json"
	(cd "$REPO" && CGO_ENABLED=0 go build "$@" -overlay "$dir/overlay.json" -o "$bin" ./examples/addr2line)
}
