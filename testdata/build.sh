#!/usr/bin/env bash
# build.sh - rebuilds every committed fixture under testdata/elf/ from the
# sources under testdata/src/, then rewrites testdata/MANIFEST.
#
# Tests never compile anything: they read the committed binaries. Run this
# only to change or add a fixture, then commit the sources, this script, the
# binaries and MANIFEST together.
#
# Reproducibility: every build runs from testdata/ with relative source
# paths, maps that directory to /symbolize/testdata in all recorded paths
# (-ffile-prefix-map), pins SOURCE_DATE_EPOCH, locale and time zone, uses
# content-derived build IDs (--build-id=sha1) and a fixed -frandom-seed.
# Running it twice with the same toolchain (Debian 12: gcc 12.2, clang/lld
# 14.0.6, binutils 2.40, go 1.26) gives byte-identical files; `./build.sh
# --check` does exactly that and compares against MANIFEST.
#
# Usage: testdata/build.sh [--check]
set -euo pipefail

cd "$(dirname "$0")"
TD=$(pwd)
export SOURCE_DATE_EPOCH=1700000000 LC_ALL=C TZ=UTC
umask 022

CHECK=0
if [[ ${1:-} == --check ]]; then
	CHECK=1
fi

# --- toolchain ---------------------------------------------------------------

PKGS=(gcc g++ gcc-multilib g++-multilib clang-14 lld-14 llvm-14 binutils nlohmann-json3-dev)

have_tools() {
	local t
	for t in gcc g++ clang-14 clang++-14 ld.lld-14 llvm-dwarfdump-14 objcopy strip readelf go sha256sum; do
		command -v "$t" >/dev/null || return 1
	done
	[[ -f /usr/include/nlohmann/json.hpp ]] || return 1
	echo 'int main(void){return 0;}' | gcc -m32 -x c - -o /dev/null 2>/dev/null || return 1
}

if ! have_tools; then
	if [[ $(id -u) == 0 ]]; then
		apt-get update
		DEBIAN_FRONTEND=noninteractive apt-get install -y "${PKGS[@]}"
	fi
	have_tools || {
		echo "build.sh: missing tools; install: ${PKGS[*]} and go" >&2
		exit 1
	}
fi

GCC_VER=$(gcc --version | head -1)
GXX_VER=$(g++ --version | head -1)
CLANG_VER=$(clang-14 --version | head -1)
LLD_VER=$(ld.lld-14 --version | head -1)
BINUTILS_VER=$(objcopy --version | head -1)
GO_VER=$(GOTOOLCHAIN=local go version)

# --- output ------------------------------------------------------------------

OUT=$TD/elf
if [[ $CHECK == 1 ]]; then
	OUT=$(mktemp -d)/elf
	trap 'rm -rf "$(dirname "$OUT")"' EXIT
fi
rm -rf "$OUT"
mkdir -p "$OUT/debug/.build-id"

# MANIFEST rows, keyed by path below elf/: "tool<TAB>flags".
declare -A META

C_SRCS=(src/c/lexer.c src/c/main.c src/c/parser.c src/c/stats.c src/c/table.c)
LIB_SRCS=(src/c/lexer.c src/c/parser.c src/c/stats.c src/c/table.c)
CPP_SRCS=(src/cpp/main.cpp src/cpp/scene.cpp)
JSON_SRCS=(src/json/main.cpp)

# Flags every C/C++ build shares. -ffile-prefix-map covers DW_AT_comp_dir,
# DW_AT_name, the line table's directories and __FILE__.
MAP="-ffile-prefix-map=$TD=/symbolize/testdata"
COMMON=(-Wall -Wextra "$MAP" -frandom-seed=symbolize -Wl,--build-id=sha1)

# cc NAME TOOL FLAGS... -- SOURCES...: compiles and links one fixture.
cc() {
	local name=$1 tool=$2 ver
	shift 2
	local flags=() srcs=()
	while [[ $1 != -- ]]; do
		flags+=("$1")
		shift
	done
	shift
	srcs=("$@")
	case $tool in
	gcc) ver=$GCC_VER ;;
	g++) ver=$GXX_VER ;;
	clang-14 | clang++-14) ver="$CLANG_VER; $LLD_VER" ;;
	esac
	"$tool" "${COMMON[@]}" "${flags[@]}" -o "$OUT/$name" "${srcs[@]}" -lm
	META[$name]="$ver	$tool ${flags[*]} ${srcs[*]} -lm"
}

# derive NAME FROM WHAT: records the MANIFEST row of a fixture that a binutils
# command (WHAT) made from FROM.
derive() {
	local name=$1 from=$2 what=$3
	META[$name]="$BINUTILS_VER	$what (from $from)"
}

build_id() {
	readelf -n "$1" | awk '/Build ID:/ {print $3; exit}'
}

# --- 1. DWARF versions and formats --------------------------------------------

cc c-gcc-O0-dwarf5 gcc -O0 -gdwarf-5 -- "${C_SRCS[@]}"
cc c-gcc-O2-dwarf5 gcc -O2 -gdwarf-5 -- "${C_SRCS[@]}"
cc c-gcc-O2-dwarf4 gcc -O2 -gdwarf-4 -- "${C_SRCS[@]}"
# gas 2.40 writes a version 3 line table for -gdwarf-2 and cannot write a
# DWARF64 one at all, so these two have gcc emit .debug_line itself
# (-gno-as-loc-support): a version 2 table, and a DWARF64 version 5 table.
cc c-gcc-O0-dwarf2 gcc -O0 -gdwarf-2 -gno-as-loc-support -- "${C_SRCS[@]}"
cc c-gcc-O2-dwarf64 gcc -O2 -gdwarf-5 -gdwarf64 -gno-as-loc-support -- "${C_SRCS[@]}"
cc c-clang14-O2-dwarf5 clang-14 -O2 -gdwarf-5 -fuse-ld=lld -- "${C_SRCS[@]}"
cc c-clang14-O2-line-tables-only clang-14 -O2 -gline-tables-only -fuse-ld=lld -- "${C_SRCS[@]}"
cc c-gcc-m32-O2-dwarf5 gcc -m32 -O2 -gdwarf-5 -- "${C_SRCS[@]}"

# Go: default DWARF 5 with zlib-compressed (SHF_COMPRESSED) debug sections.
# -buildvcs=false keeps the git revision of this repository out of the binary.
(
	cd src/go
	GOTOOLCHAIN=local GOFLAGS= CGO_ENABLED=0 GOOS=linux GOARCH=amd64 \
		go build -trimpath -buildvcs=false -o "$OUT/go-trimpath" .
)
META[go-trimpath]="$GO_VER	CGO_ENABLED=0 GOOS=linux GOARCH=amd64 go build -trimpath -buildvcs=false (src/go)"

# --- 2. Containers: compression, split debug, PIE, clones, shared objects -----

cc c-gcc-O2-nopie gcc -O2 -gdwarf-5 -fno-pie -no-pie -- "${C_SRCS[@]}"
cc c-gcc-O2-gz-zlib gcc -O2 -gdwarf-5 -gz=zlib -- "${C_SRCS[@]}"
cc c-gcc-O2-gc-sections gcc -O2 -gdwarf-5 -ffunction-sections -fdata-sections -Wl,--gc-sections -- "${C_SRCS[@]}"
cc c-gcc-O2-lto gcc -O2 -gdwarf-5 -flto=1 -flto-partition=one -- "${C_SRCS[@]}"
cc libcalc-gcc-O2.so gcc -O2 -gdwarf-5 -fPIC -shared -Wl,-soname,libcalc.so.1 -- "${LIB_SRCS[@]}"

# Legacy .zdebug_* sections (zlib-gnu) and, when binutils has it, zstd.
objcopy --compress-debug-sections=zlib-gnu "$OUT/c-gcc-O2-dwarf5" "$OUT/c-gcc-O2-zdebug"
derive c-gcc-O2-zdebug c-gcc-O2-dwarf5 "objcopy --compress-debug-sections=zlib-gnu"
if objcopy --help | grep zstd >/dev/null; then
	objcopy --compress-debug-sections=zstd "$OUT/c-gcc-O2-dwarf5" "$OUT/c-gcc-O2-zstd"
	derive c-gcc-O2-zstd c-gcc-O2-dwarf5 "objcopy --compress-debug-sections=zstd"
else
	echo "build.sh: objcopy lacks zstd; skipping c-gcc-O2-zstd" >&2
fi

# split NAME FROM STRIP-FLAG: NAME is FROM stripped, with a .gnu_debuglink to
# NAME.debug next to it and the same file under debug/.build-id/xx/rest.debug.
split() {
	local name=$1 from=$2 how=$3 id
	objcopy --only-keep-debug "$OUT/$from" "$OUT/$name.debug"
	strip "$how" -o "$OUT/$name" "$OUT/$from"
	(cd "$OUT" && objcopy --add-gnu-debuglink="$name.debug" "$name")
	derive "$name" "$from" "strip $how; objcopy --add-gnu-debuglink=$name.debug"
	derive "$name.debug" "$from" "objcopy --only-keep-debug"
	id=$(build_id "$OUT/$from")
	local bid=debug/.build-id/${id:0:2}/${id:2}.debug
	if [[ ! -e $OUT/$bid ]]; then
		mkdir -p "$OUT/$(dirname "$bid")"
		cp "$OUT/$name.debug" "$OUT/$bid"
		derive "$bid" "$from" "objcopy --only-keep-debug (copy of $name.debug)"
	fi
}

split c-gcc-O2-stripped c-gcc-O2-dwarf5 --strip-all
split c-gcc-O2-stripped-debug c-gcc-O2-dwarf5 --strip-debug

# Another build of the same source (CALC_VARIANT_STR="2": a different build ID)
# whose NAME.debug is the debug file of c-gcc-O2-dwarf5: both its build ID
# and the debuglink CRC disagree, so a locator must refuse it.
cc c-gcc-O2-variant2 gcc -O2 -gdwarf-5 '-DCALC_VARIANT_STR="2"' -- "${C_SRCS[@]}"
strip --strip-all -o "$OUT/c-gcc-O2-mismatch" "$OUT/c-gcc-O2-variant2"
objcopy --only-keep-debug "$OUT/c-gcc-O2-variant2" "$OUT/c-gcc-O2-mismatch.debug"
(cd "$OUT" && objcopy --add-gnu-debuglink=c-gcc-O2-mismatch.debug c-gcc-O2-mismatch)
cp "$OUT/c-gcc-O2-stripped.debug" "$OUT/c-gcc-O2-mismatch.debug"
rm "$OUT/c-gcc-O2-variant2"
unset 'META[c-gcc-O2-variant2]'
derive c-gcc-O2-mismatch "gcc -O2 -gdwarf-5 -DCALC_VARIANT_STR='\"2\"'" \
	"strip --strip-all; objcopy --add-gnu-debuglink=c-gcc-O2-mismatch.debug"
derive c-gcc-O2-mismatch.debug c-gcc-O2-dwarf5 "WRONG debug file: copy of c-gcc-O2-stripped.debug"
if [[ $(build_id "$OUT/c-gcc-O2-mismatch") == $(build_id "$OUT/c-gcc-O2-dwarf5") ]]; then
	echo "build.sh: c-gcc-O2-mismatch has the same build ID as c-gcc-O2-dwarf5" >&2
	exit 1
fi

# --- 3. Inline chains ---------------------------------------------------------

cc cpp-gcc-O2 g++ -O2 -gdwarf-5 -std=c++17 -- "${CPP_SRCS[@]}"
cc cpp-gcc-O3 g++ -O3 -gdwarf-5 -std=c++17 -- "${CPP_SRCS[@]}"
cc cpp-clang14-O2 clang++-14 -O2 -gdwarf-5 -std=c++17 -fuse-ld=lld -- "${CPP_SRCS[@]}"
cc json-gcc-O2 g++ -O2 -gdwarf-5 -std=c++17 -- "${JSON_SRCS[@]}"

# --- 4. FRAME locals (llvm-symbolizer FRAME requests) -------------------------
# Locals of every kind of type and storage (src/frame/), for frame offsets
# (DW_OP_fbreg, clang's frame-base DW_OP_breg), sizes through type chains,
# location lists (.debug_loc, .debug_loclists, DW_FORM_loclistx) and hwasan's
# DW_AT_LLVM_tag_offset (the hwasan build links the shared runtime, which
# keeps the fixture small; it is never run). They go to frame/, not elf/:
# only the FRAME tests read them.

FRAME_OUT=$(dirname "$OUT")/frame
rm -rf "$FRAME_OUT"
mkdir -p "$FRAME_OUT"
FRAME_C=(src/frame/frame.c)
FRAME_CPP=(src/frame/frame.cpp)
ELF_OUT=$OUT
OUT=$FRAME_OUT
cc frame-gcc-O0-dwarf4 gcc -O0 -gdwarf-4 -- "${FRAME_C[@]}"
cc frame-gcc-O2-dwarf5 gcc -O2 -gdwarf-5 -- "${FRAME_C[@]}"
cc frame-clang14-O0-dwarf4 clang-14 -O0 -gdwarf-4 -fuse-ld=lld -- "${FRAME_C[@]}"
cc frame-clang14-O2-dwarf5 clang-14 -O2 -gdwarf-5 -fuse-ld=lld -- "${FRAME_C[@]}"
cc frame-clang14-O1-hwasan clang-14 -O1 -gdwarf-5 -fsanitize=hwaddress -shared-libsan -fuse-ld=lld -- "${FRAME_C[@]}"
cc framecpp-gcc-O1-dwarf4 g++ -O1 -gdwarf-4 -std=c++17 -- "${FRAME_CPP[@]}"
cc framecpp-gcc-O2-dwarf5 g++ -O2 -gdwarf-5 -std=c++17 -- "${FRAME_CPP[@]}"
cc framecpp-clang14-O0-dwarf5 clang++-14 -O0 -gdwarf-5 -std=c++17 -fuse-ld=lld -- "${FRAME_CPP[@]}"
OUT=$ELF_OUT

# --- Split DWARF (split/) ----------------------------------------------------
# The calculator with -gsplit-dwarf: gcc -gdwarf-5 (DW_UT_skeleton and
# DW_UT_split_compile, DW_AT_dwo_name, rnglistx in the .dwo), gcc -gdwarf-4
# (the GNU extension: DW_AT_GNU_dwo_name/_dwo_id/_addr_base/_ranges_base,
# DW_FORM_GNU_addr_index/_str_index) and clang-14 (DWARF 5, lld). Each source
# is compiled on its own (-c), so each unit's DW_AT_dwo_name is
# "split/VARIANT/FILE.dwo", relative to DW_AT_comp_dir /symbolize/testdata:
# the very path of the committed .dwo below testdata/. The compiles run in a
# scratch directory whose src/ links to testdata/src (mapped to
# /symbolize/testdata like testdata/ itself), so that --check, which builds
# elsewhere, records the same names. VARIANT.dwp is the package llvm-dwp-14
# makes of the variant's .dwo files: a version 5 index for DWARF 5, the GNU
# version 2 index for gcc's DWARF 4. It lies beside the variant's directory,
# not in it as calc.dwp: LLVM uses BINARY.dwp when there is one and never
# reads the .dwo files then. The code is byte-identical to the non-split
# twins elf/c-gcc-O2-dwarf5, elf/c-gcc-O2-dwarf4 and elf/c-clang14-O2-dwarf5
# at the same addresses. They go to split/, not elf/: the tests that walk
# elf/ would take the .dwo files and packages for fixtures of their own.

SPLIT_OUT=$(dirname "$ELF_OUT")/split
rm -rf "$SPLIT_OUT"
mkdir -p "$SPLIT_OUT"
command -v llvm-dwp-14 >/dev/null && command -v setarch >/dev/null || {
	echo "build.sh: llvm-dwp-14 (package llvm-14) or setarch (util-linux) missing" >&2
	exit 1
}
SPLIT_W=$(mktemp -d)
ln -s "$TD/src" "$SPLIT_W/src"
SPLIT_COMMON=(-Wall -Wextra "-ffile-prefix-map=$SPLIT_W=/symbolize/testdata" "$MAP" -frandom-seed=symbolize)
# split_cc VARIANT TOOL LINKFLAGS -- FLAGS...: compiles every C source of the
# calculator on its own and links VARIANT/calc.
split_cc() {
	local v=$1 tool=$2 link=$3 ver s objs=()
	shift 4
	case $tool in
	gcc) ver=$GCC_VER ;;
	clang-14) ver="$CLANG_VER; $LLD_VER" ;;
	esac
	mkdir -p "$SPLIT_W/split/$v" "$SPLIT_OUT/$v"
	for s in "${C_SRCS[@]}"; do
		local base
		base=$(basename "$s" .c)
		# gcc 12 derives the dwo_id of some units from addresses of its
		# own memory: without address randomization they are the same
		# from run to run.
		(cd "$SPLIT_W" && setarch "$(uname -m)" -R "$tool" "${SPLIT_COMMON[@]}" "$@" -gsplit-dwarf -c "$s" -o "split/$v/$base.o")
		objs+=("split/$v/$base.o")
		cp "$SPLIT_W/split/$v/$base.dwo" "$SPLIT_OUT/$v/$base.dwo"
		META[$v/$base.dwo]="$ver	setarch -R $tool $* -gsplit-dwarf -c $s (the split unit of $v/calc)"
	done
	# shellcheck disable=SC2086 # $link is a list of flags
	(cd "$SPLIT_W" && "$tool" $link -Wl,--build-id=sha1 -o "split/$v/calc" "${objs[@]}" -lm)
	cp "$SPLIT_W/split/$v/calc" "$SPLIT_OUT/$v/calc"
	META[$v/calc]="$ver	setarch -R $tool $* -gsplit-dwarf -c (each of ${C_SRCS[*]}), then $tool ${link:+$link }-Wl,--build-id=sha1 -lm"
	(cd "$SPLIT_OUT/$v" && llvm-dwp-14 ./*.dwo -o "../$v.dwp")
	META[$v.dwp]="$(llvm-dwp-14 --version | grep -m1 'LLVM version' | sed 's/^ *//')	llvm-dwp-14 $v/*.dwo"
}
split_cc gcc-dwarf5 gcc "" -- -O2 -gdwarf-5
split_cc gcc-dwarf4 gcc "" -- -O2 -gdwarf-4
split_cc clang-dwarf5 clang-14 "-fuse-ld=lld" -- -O2 -gdwarf-5
rm -rf "$SPLIT_W"
# The gcc DWARF 5 build with its skeletons in a separate debug file
# (strip --strip-debug keeps .symtab): LLVM looks for the package beside
# the file it reads the DWARF of, as DEBUGFILE.dwp.
mkdir -p "$SPLIT_OUT/gcc-dwarf5-stripped"
objcopy --only-keep-debug "$SPLIT_OUT/gcc-dwarf5/calc" "$SPLIT_OUT/gcc-dwarf5-stripped/calc.debug"
strip --strip-debug -o "$SPLIT_OUT/gcc-dwarf5-stripped/calc" "$SPLIT_OUT/gcc-dwarf5/calc"
(cd "$SPLIT_OUT/gcc-dwarf5-stripped" && objcopy --add-gnu-debuglink=calc.debug calc)
META[gcc-dwarf5-stripped/calc]="$BINUTILS_VER	strip --strip-debug; objcopy --add-gnu-debuglink=calc.debug (from gcc-dwarf5/calc)"
META[gcc-dwarf5-stripped/calc.debug]="$BINUTILS_VER	objcopy --only-keep-debug (from gcc-dwarf5/calc)"

# --- Relocatable objects (obj/) --------------------------------------------------
# ET_REL files, as a .o or a kernel module is: debug sections whose addresses
# and section offsets are relocations still to apply (RELA on most targets,
# REL on i386 and ARM; RISC-V's linker relaxation makes clang write code
# differences as ADD/SUB pairs), and every section at address 0, so that
# .text, .text.unlikely (a cold function) and .init.text (an __init-like
# function) overlap. One header-free source (src/reloc/), because the cross
# targets have no sysroot here. They live apart from elf/, like frame/ and
# split/: the tests walking elf/ do not take them on.

OBJ_OUT=$(dirname "$ELF_OUT")/obj
rm -rf "$OBJ_OUT"
mkdir -p "$OBJ_OUT"
OBJ_SRC=src/reloc/reloc.c
OBJ_COMMON=(-c -O2 -Wall -Wextra "$MAP" -frandom-seed=symbolize)

# obj NAME TOOL FLAGS...: compiles OBJ_SRC into obj/NAME without linking.
obj() {
	local name=$1 tool=$2 ver
	shift 2
	case $tool in
	gcc) ver=$GCC_VER ;;
	clang-14) ver=$CLANG_VER ;;
	esac
	"$tool" "${OBJ_COMMON[@]}" "$@" -o "$OBJ_OUT/$name" "$OBJ_SRC"
	META[$name]="$ver	$tool -c -O2 $* $OBJ_SRC (compiled only: no -Wl flags)"
}

obj reloc-x86_64-clang14-dwarf5.o clang-14 --target=x86_64-linux-gnu -gdwarf-5
obj reloc-x86_64-clang14-dwarf4.o clang-14 --target=x86_64-linux-gnu -gdwarf-4
obj reloc-x86_64-clang14-sections.o clang-14 --target=x86_64-linux-gnu -gdwarf-5 -ffunction-sections -fdata-sections
obj reloc-x86_64-clang14-gz.o clang-14 --target=x86_64-linux-gnu -gdwarf-5 -gz=zlib
obj reloc-x86_64-gcc-dwarf5.o gcc -gdwarf-5
obj reloc-x86_64-gcc-dwarf4.o gcc -gdwarf-4
obj reloc-i386-clang14-dwarf5.o clang-14 --target=i386-linux-gnu -gdwarf-5
obj reloc-aarch64-clang14-dwarf5.o clang-14 --target=aarch64-linux-gnu -gdwarf-5
obj reloc-aarch64-clang14-dwarf4.o clang-14 --target=aarch64-linux-gnu -gdwarf-4
obj reloc-armv7a-clang14-dwarf5.o clang-14 --target=armv7a-linux-gnueabihf -gdwarf-5
obj reloc-ppc64le-clang14-dwarf5.o clang-14 --target=powerpc64le-linux-gnu -gdwarf-5
obj reloc-ppc64-clang14-dwarf4.o clang-14 --target=powerpc64-linux-gnu -gdwarf-4
obj reloc-riscv64-clang14-dwarf5.o clang-14 --target=riscv64-linux-gnu -gdwarf-5
obj reloc-riscv64-clang14-dwarf4.o clang-14 --target=riscv64-linux-gnu -gdwarf-4
obj reloc-s390x-clang14-dwarf5.o clang-14 --target=s390x-linux-gnu -gdwarf-5
# --- 5. 32-bit ARM: Thumb and ARM code ----------------------------------------
# armv7a with Thumb-2 as the default instruction set (-mthumb) and some
# functions in ARM mode (target("arm")), for the symbol-table rules of EM_ARM
# (src/thumb/): Thumb-bit st_values, $a/$t/$d mapping symbols, an unnamed
# NOTYPE symbol at a function's odd value, NOTYPE and IFUNC symbols at odd
# values, aliases, hidden template members that lld makes STB_LOCAL. No ARM C
# library is installed, hence -nostdlib (no crt files, no libm) and the
# executable's entry point.

THUMB_SRCS=(src/thumb/thumb.c src/thumb/streambuf.cpp)
THUMB=(--target=armv7a-linux-gnueabihf -mthumb -O2 -gdwarf-5 -nostdlib -fno-exceptions -fuse-ld=lld)

# thumb NAME FLAGS...: links THUMB_SRCS for 32-bit ARM with clang-14 and lld.
thumb() {
	local name=$1
	shift
	clang-14 "${COMMON[@]}" "${THUMB[@]}" "$@" -o "$OUT/$name" "${THUMB_SRCS[@]}"
	META[$name]="$CLANG_VER; $LLD_VER	clang-14 ${THUMB[*]} $* ${THUMB_SRCS[*]}"
}

thumb libthumb-clang14-O2.so -fPIC -shared -Wl,-soname,libthumb.so
thumb thumb-clang14-O2-static -static -ffunction-sections -Wl,--gc-sections -Wl,-e,entry

# --- MANIFEST -------------------------------------------------------------------

manifest() {
	echo "# Generated by testdata/build.sh; do not edit. One fixture per line:"
	echo "# path (below testdata/) <TAB> toolchain <TAB> command and flags <TAB> sha256"
	echo "# All C/C++ builds also use: ${COMMON[*]/$TD/<testdata>}"
	echo "# SOURCE_DATE_EPOCH=$SOURCE_DATE_EPOCH"
	local f rel dir
	for dir in "$OUT" "$FRAME_OUT" "$SPLIT_OUT" "$OBJ_OUT"; do
		while IFS= read -r f; do
			rel=${f#"$dir"/}
			if [[ -z ${META[$rel]+x} ]]; then
				echo "build.sh: no MANIFEST entry for $rel" >&2
				exit 1
			fi
			printf '%s/%s\t%s\t%s\n' "$(basename "$dir")" "$rel" "${META[$rel]}" "$(sha256sum <"$f" | cut -d' ' -f1)"
		done < <(find "$dir" -type f | sort)
	done
}

if [[ $CHECK == 1 ]]; then
	if diff <(manifest | grep -v '^#') <(grep -v '^#' MANIFEST); then
		echo "build.sh: fixtures reproduce MANIFEST exactly"
	else
		echo "build.sh: rebuilt fixtures differ from MANIFEST (kept in $OUT)" >&2
		trap - EXIT
		exit 1
	fi
else
	manifest >MANIFEST
	echo "build.sh: wrote $(grep -vc '^#' MANIFEST) fixtures; total $(du -sh elf | cut -f1)"
fi
