package main

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
)

// describe prints one Markdown table row about a library and the file that
// holds its DWARF: the debug file's size, how .debug_info is compressed,
// the DWARF versions of its units, its .gnu_debugaltlink (a dwz
// supplementary file) and the sizes of the symbol tables.
//
//	describe NAME LIB DWARFFILE
func describe(args []string) error {
	if len(args) != 3 {
		return errors.New("describe: want NAME LIB DWARFFILE")
	}
	lib, err := elf.Open(args[1])
	if err != nil {
		return err
	}
	defer lib.Close()
	dbg, err := elf.Open(args[2])
	if err != nil {
		return err
	}
	defer dbg.Close()
	info := dbg.Section(".debug_info")
	if info == nil {
		return fmt.Errorf("%s: no .debug_info", args[2])
	}
	comp := "none"
	if info.Flags&elf.SHF_COMPRESSED != 0 {
		comp = "compressed"
		if h, err := compressionType(args[2], info, dbg.ByteOrder); err == nil {
			comp = h
		}
	}
	versions, err := unitVersions(info, dbg.ByteOrder)
	if err != nil {
		return fmt.Errorf("%s: .debug_info: %w", args[2], err)
	}
	var vs []string
	for _, v := range slices.Sorted(maps.Keys(versions)) {
		vs = append(vs, fmt.Sprintf("v%d: %d", v, versions[v]))
	}
	alt := "-"
	if s := dbg.Section(".gnu_debugaltlink"); s != nil {
		if b, err := s.Data(); err == nil {
			name, _, _ := bytes.Cut(b, []byte{0})
			alt = "`" + string(name) + "`"
		}
	}
	nsym := func(f *elf.File, dyn bool) int {
		read := f.Symbols
		if dyn {
			read = f.DynamicSymbols
		}
		s, _ := read()
		return len(s)
	}
	where := "separate, by build ID"
	if args[1] == args[2] {
		where = "in the library"
	}
	size := int64(0)
	for _, s := range dbg.Sections {
		if s.Type != elf.SHT_NOBITS {
			size = max(size, int64(s.Offset+s.FileSize))
		}
	}
	fmt.Printf("| %s | %s (%.1f MB) | %s | %s | %s | %d / %d / %d |\n",
		args[0], where, float64(size)/1e6, comp, strings.Join(vs, ", "), alt,
		nsym(lib, false), nsym(lib, true), nsym(dbg, false))
	return nil
}

// compressionType names the algorithm in the Chdr at the start of an
// SHF_COMPRESSED section's file bytes [gABI 4.1 "Section Compression"];
// debug/elf hides those bytes behind the decompressing reader.
func compressionType(path string, s *elf.Section, bo binary.ByteOrder) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	var b [4]byte
	if _, err := f.ReadAt(b[:], int64(s.Offset)); err != nil {
		return "", err
	}
	switch elf.CompressionType(bo.Uint32(b[:])) {
	case elf.COMPRESS_ZLIB:
		return "zlib", nil
	case elf.COMPRESS_ZSTD:
		return "zstd", nil
	}
	return "", errors.New("unknown ch_type")
}

// unitVersions counts .debug_info's unit headers by DWARF version, reading
// the section as a stream (rgw's is hundreds of MB decompressed).
func unitVersions(s *elf.Section, bo binary.ByteOrder) (map[uint16]int, error) {
	r := s.Open()
	out := map[uint16]int{}
	var h [12]byte
	for {
		if _, err := io.ReadFull(r, h[:4]); err == io.EOF {
			return out, nil
		} else if err != nil {
			return nil, err
		}
		n := uint64(bo.Uint32(h[:4]))
		if n == 0xffffffff {
			if _, err := io.ReadFull(r, h[4:12]); err != nil {
				return nil, err
			}
			n = bo.Uint64(h[4:12])
		}
		if n < 2 {
			return nil, fmt.Errorf("unit length %d", n)
		}
		if _, err := io.ReadFull(r, h[:2]); err != nil {
			return nil, err
		}
		out[bo.Uint16(h[:2])]++
		if _, err := io.CopyN(io.Discard, r, int64(n-2)); err != nil {
			return nil, err
		}
	}
}
