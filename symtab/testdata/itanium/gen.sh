#!/bin/sh
# gen.sh rebuilds the golden corpus of symtab's TestItaniumGolden.
#
#   gen.sh                    llvm-cxxfilt-14.txt from names.txt (needs llvm-cxxfilt-14)
#   gen.sh select PATH...     first names.txt, from the Itanium names of the ELF
#                             files under each PATH (symbol tables, dynamic symbols
#                             and .debug_str strings), then as above (needs llvm-nm-14,
#                             llvm-dwarfdump-14 and go)
#
# names.txt was selected from the Debian packages bench/debian/run.sh unpacks
# (libstdc++6-12-dbg, libitpp8v5 and -dbg, radosgw and radosgw-dbg, and the
# other libraries there) and testdata/elf:
#
#   symtab/testdata/itanium/gen.sh select /work/cache/debian/root testdata/elf
#
# CI has no such cache, so names.txt is committed as data; the answers are
# regenerated from it.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)

if [ "${1-}" = select ]; then
	shift
	[ $# -gt 0 ] || { echo "usage: $0 select PATH..." >&2; exit 2; }
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	find "$@" -type f | while read -r f; do
		[ "$(head -c 4 "$f" | od -An -c | tr -d ' ')" = '177ELF' ] || continue
		llvm-nm-14 -j "$f" 2>/dev/null || true
		llvm-nm-14 -j -D "$f" 2>/dev/null || true
		llvm-dwarfdump-14 --debug-str "$f" 2>/dev/null | sed -n 's/^0x[0-9a-f]*: "\(.*\)"$/\1/p' || true
	done | grep -E '^(_Z|___Z)[A-Za-z0-9_.$]*$' | LC_ALL=C sort -u >"$tmp/candidates"
	echo "$(wc -l <"$tmp/candidates") distinct names" >&2
	cd "$root"
	# Some mutations of them first (60 KiB, syntax features only), then the
	# names themselves (820 KiB of names and answers, features then random).
	go test -run '^TestItaniumSelect$' -v ./symtab -args -itanium.candidates="$tmp/candidates" \
		-itanium.mutate=300000 -itanium.fill=false -itanium.budget=61440 -itanium.out="$tmp/mutated" | grep names >&2
	go test -run '^TestItaniumSelect$' -v ./symtab -args -itanium.candidates="$tmp/candidates" \
		-itanium.base="$tmp/mutated" -itanium.budget=839680 -itanium.out="$here/names.txt" | grep names >&2
fi

llvm-cxxfilt-14 <"$here/names.txt" >"$here/llvm-cxxfilt-14.txt"
echo "$(wc -l <"$here/names.txt") names; $(wc -c <"$here/names.txt") + $(wc -c <"$here/llvm-cxxfilt-14.txt") bytes" >&2
