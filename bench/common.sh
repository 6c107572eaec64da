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
