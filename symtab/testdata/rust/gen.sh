#!/bin/sh
# Regenerates v0.txt, the golden corpus of Rust v0 symbol names and their
# demangling by llvm-cxxfilt-14 (which shares llvm-symbolizer-14's
# demangler) and by GNU c++filt -i (libiberty without DMGL_VERBOSE, as
# addr2line -C demangles), one "mangled<TAB>llvm<TAB>gnu" a line. The names
# are every _R symbol of
#
#   features     features.rs, stable rustc, -C opt-level=0
#   features-O2  features.rs, stable rustc, -C opt-level=2 (ThinLTO's
#                ".llvm.N" suffixes)
#   nightly      nightly.rs, nightly rustc (constants LLVM 14 prints raw);
#                skipped when `rustc +nightly` is not installed
#   libstd-*.so  the stable toolchain's own std (built with v0 mangling)
#
# all with -C symbol-mangling-version=v0 and debug info. Binaries go to
# $OUT (default $TMPDIR/symtab-rust), outside the repository; only the
# corpus is committed. Needs rustc, llvm-nm-14, llvm-cxxfilt-14 and c++filt.
#
# Usage: symtab/testdata/rust/gen.sh
set -eu
cd "$(dirname "$0")"
OUT=${OUT:-${TMPDIR:-/tmp}/symtab-rust}
mkdir -p "$OUT"
export LC_ALL=C

flags="-g -C symbol-mangling-version=v0 --edition 2021"
# shellcheck disable=SC2086 # flags are words
rustc $flags -C opt-level=0 features.rs -o "$OUT/features"
# shellcheck disable=SC2086
rustc $flags -C opt-level=2 -C codegen-units=16 features.rs -o "$OUT/features-O2"
bins="$OUT/features $OUT/features-O2"
nightly=""
if rustc +nightly --version >/dev/null 2>&1; then
	# shellcheck disable=SC2086
	rustc +nightly $flags nightly.rs -o "$OUT/nightly"
	bins="$bins $OUT/nightly"
	nightly=$(rustc +nightly --version)
fi
sysroot=$(rustc --print sysroot)
host=$(rustc -vV | sed -n 's/^host: //p')
bins="$bins $(ls "$sysroot/lib/rustlib/$host/lib/"libstd-*.so)"

for b in $bins; do
	llvm-nm-14 "$b"
	llvm-nm-14 -D "$b"
done | awk '{print $NF}' | grep '^_R' | sort -u >"$OUT/names.txt"
llvm-cxxfilt-14 <"$OUT/names.txt" >"$OUT/llvm.txt"
c++filt -i <"$OUT/names.txt" >"$OUT/gnu.txt"
{
	echo "# Rust v0 names, llvm-cxxfilt-14's and c++filt -i's demangling, tab-separated; made by gen.sh."
	echo "# $(rustc --version); ${nightly:-no nightly}; $(llvm-cxxfilt-14 --version | sed -n 's/.*LLVM version /LLVM /p'); $(c++filt --version | sed 1q)"
	paste "$OUT/names.txt" "$OUT/llvm.txt" "$OUT/gnu.txt"
} >v0.txt
echo "v0.txt: $(wc -l <"$OUT/names.txt") names"
