#!/usr/bin/env bash
# Rebuilds the Mach-O fixtures of package macho. Run from anywhere; needs
# clang-14, ld64.lld-14, dsymutil-14, llvm-lipo-14, llvm-strip-14.
# The sources include no headers (no macOS SDK exists here); libSystem.tbd is
# a hand-written stub exporting only what the linker demands.
set -euo pipefail
# -P: the physical path, because ld64.lld resolves -oso_prefix through
# symlinks but not the object paths it strips it from.
cd -P "$(dirname "$0")"

# Fixed object mtimes so that the OSO stabs (debug map timestamps) are
# reproducible; -oso_prefix keeps the build directory out of them.
# -ffile-prefix-map records this directory as /symbolize/testdata/macho in
# DW_AT_comp_dir, the line tables and the N_SO stabs (which the linker copies
# from the objects' DWARF), so the bytes do not depend on the checkout path;
# testdata/build.sh maps the ELF fixtures the same way.
STAMP=1600000000
export LC_ALL=C TZ=UTC
MAP=("-ffile-prefix-map=$PWD=/symbolize/testdata/macho")
CFLAGS="-g -O1 -fno-stack-protector -fno-ident"

# target sets the clang triple and the ld64 -platform_version pair for $1.
target() {
  case $1 in
    arm64)  triple=arm64-apple-macos11;    ver="11.0 11.0" ;;
    x86_64) triple=x86_64-apple-macos10.15; ver="10.15 10.15" ;;
  esac
}

for arch in arm64 x86_64; do
  target $arch
  clang-14 -target $triple $CFLAGS "${MAP[@]}" -c main.c -o main.$arch.o
  clang-14 -target $triple $CFLAGS "${MAP[@]}" -c lib.c -o lib.$arch.o
  touch -d @$STAMP main.$arch.o lib.$arch.o
  ld64.lld-14 -arch $arch -platform_version macos $ver -dylib \
    -install_name @rpath/libfix.dylib -current_version 1.2.3 -compatibility_version 1.0.0 \
    -oso_prefix "$PWD/" lib.$arch.o libSystem.tbd -o libfix.$arch.dylib
  ld64.lld-14 -arch $arch -platform_version macos $ver -e _main \
    -oso_prefix "$PWD/" main.$arch.o libfix.$arch.dylib libSystem.tbd -o main.$arch
  rm -rf main.$arch.dSYM
  # OSO paths are relative to this directory, where dsymutil runs.
  dsymutil-14 main.$arch -o main.$arch.dSYM
  rm -rf libfix.$arch.dylib.dSYM
  dsymutil-14 libfix.$arch.dylib -o libfix.$arch.dylib.dSYM
done

# Stripped executable: no stabs or local symbols; only LC_FUNCTION_STARTS
# still knows where functions begin.
llvm-strip-14 -o main.arm64.stripped main.arm64

# Universal binary; dsymutil shells out to "lipo" for fat inputs.
llvm-lipo-14 -create main.arm64 main.x86_64 -output main.fat
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
ln -s "$(command -v llvm-lipo-14)" "$tmp/lipo"
rm -rf main.fat.dSYM
PATH="$tmp:$PATH" dsymutil-14 main.fat -o main.fat.dSYM

# A 32-bit object (i386, LC_SEGMENT and nlist) for the 32-bit header paths;
# ld64.lld cannot link i386.
clang-14 -target i386-apple-macos10.7 $CFLAGS "${MAP[@]}" -c lib.c -o lib.i386.o

# Larger program for the root package's differential tests (prog.*): -O2
# inlining (nested), two dozen functions, a static function, and a C++ unit
# for mangled names, linked against nothing but the stub libSystem.
PCFLAGS="-g -O2 -fno-stack-protector -fno-ident"
for arch in arm64 x86_64; do
  target $arch
  clang-14 -target $triple $PCFLAGS "${MAP[@]}" -c prog.c -o prog.$arch.o
  clang-14 -target $triple $PCFLAGS "${MAP[@]}" -fno-exceptions -fno-rtti -nostdinc++ -c shapes.cpp -o shapes.$arch.o
  touch -d @$STAMP prog.$arch.o shapes.$arch.o
  ld64.lld-14 -arch $arch -platform_version macos $ver -e _main \
    -oso_prefix "$PWD/" prog.$arch.o shapes.$arch.o libSystem.tbd -o prog.$arch
  rm -rf prog.$arch.dSYM
  dsymutil-14 prog.$arch -o prog.$arch.dSYM
done
# Stripped, alone (function starts and __mh_execute_header are all that is
# left) and with its dSYM beside it (a stripped binary keeps LC_UUID).
llvm-strip-14 -o prog.arm64.stripped prog.arm64
llvm-strip-14 -o prog.x86_64.stripped-dsym prog.x86_64
rm -rf prog.x86_64.stripped-dsym.dSYM
mkdir -p prog.x86_64.stripped-dsym.dSYM/Contents/Resources/DWARF
cp prog.x86_64.dSYM/Contents/Info.plist prog.x86_64.stripped-dsym.dSYM/Contents/
cp prog.x86_64.dSYM/Contents/Resources/DWARF/prog.x86_64 \
  prog.x86_64.stripped-dsym.dSYM/Contents/Resources/DWARF/prog.x86_64.stripped-dsym
llvm-lipo-14 -create prog.arm64 prog.x86_64 -output prog.fat
rm -rf prog.fat.dSYM
PATH="$tmp:$PATH" dsymutil-14 prog.fat -o prog.fat.dSYM

sha256sum main.c lib.c prog.c shapes.cpp libSystem.tbd *.o main.arm64 main.x86_64 main.arm64.stripped main.fat \
  libfix.*.dylib prog.arm64 prog.x86_64 prog.arm64.stripped prog.x86_64.stripped-dsym prog.fat $(find *.dSYM -type f | sort) > MANIFEST.sha256
{ clang-14 --version | head -1; echo "CFLAGS=$CFLAGS"; echo "PCFLAGS=$PCFLAGS"
  echo "MAP=-ffile-prefix-map=<this directory>=/symbolize/testdata/macho"; } > MANIFEST.tools
