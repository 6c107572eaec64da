#!/usr/bin/env python3
# Regenerates the zlib streams in this directory with CPython's zlib (the
# C library, a different encoder from compress/flate), so the tests see
# its block shapes: fixed-Huffman blocks (Z_FIXED), run-length matches
# (Z_RLE), Z_FILTERED, Huffman-only, small windows and memLevels, and
# Z_FULL_FLUSH / Z_SYNC_FLUSH points (empty stored blocks).
# The input is the first 20 KiB of ../../../testdata/elf/cpp-gcc-O2 (ELF
# headers, code and DWARF). Run from this directory: python3 gen.py
import zlib

src = open('../../../testdata/elf/cpp-gcc-O2', 'rb').read()[:20 << 10]

variants = [
    # name, level, wbits, memlevel, strategy
    ('level1', 1, 15, 8, zlib.Z_DEFAULT_STRATEGY),
    ('level6', 6, 15, 8, zlib.Z_DEFAULT_STRATEGY),
    ('level9', 9, 15, 9, zlib.Z_DEFAULT_STRATEGY),
    ('filtered', 6, 15, 8, zlib.Z_FILTERED),
    ('rle', 6, 15, 8, zlib.Z_RLE),
    ('fixed', 6, 15, 8, zlib.Z_FIXED),
    ('huffman', 6, 15, 8, zlib.Z_HUFFMAN_ONLY),
    ('window9', 6, 9, 1, zlib.Z_DEFAULT_STRATEGY),
    ('level0', 0, 15, 8, zlib.Z_DEFAULT_STRATEGY),
]
for name, level, wbits, mem, strategy in variants:
    c = zlib.compressobj(level, zlib.DEFLATED, wbits, mem, strategy)
    out = c.compress(src) + c.flush()
    assert zlib.decompress(out) == src
    open('py-%s.zlib' % name, 'wb').write(out)

# Flush points: a sync flush ends a block with an empty stored block, a
# full flush also resets the window.
c = zlib.compressobj(6, zlib.DEFLATED, 15, 8, zlib.Z_FIXED)
out = b''
for i in range(0, len(src), 3000):
    out += c.compress(src[i:i + 3000])
    out += c.flush(zlib.Z_SYNC_FLUSH if i % 6000 else zlib.Z_FULL_FLUSH)
out += c.flush()
open('py-flush.zlib', 'wb').write(out)
