// Command pprofsym-profile writes the unsymbolized profile that
// bench/pprofsym.sh symbolizes: samples of stacks over real function
// addresses of ELF files, mapped as the Linux kernel maps them, with
// mappings and addresses only (no functions, no lines), as a profiler that
// leaves symbolization to pprof writes them.
//
//	pprofsym-profile -samples 100000 -locations 20000 -seed 1 -o OUT FILE...
//
// Each FILE (an ET_DYN executable or library) gets one mapping per
// executable PT_LOAD segment, at a load base of its own, with its build ID.
// The distinct addresses are spread over the files in proportion to their
// number of sized STT_FUNC symbols (.symtab, else the separate debug file's
// .symtab found by build ID under /usr/lib/debug, else .dynsym): each a
// function picked uniformly, then its start (one in four) or a uniform
// interior address. Each sample is a stack of 4 to 32 of those addresses,
// picked uniformly, from a fixed PCG seed, so every run sees the same
// profile. The file uses debug/elf on purpose: the profile must not
// depend on the code under test.
package main

import (
	"debug/elf"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"

	"github.com/google/pprof/profile"
)

func main() {
	samples := flag.Int("samples", 100000, "samples in the profile")
	locations := flag.Int("locations", 20000, "distinct addresses")
	seed := flag.Uint64("seed", 1, "PCG seed")
	out := flag.String("o", "", "output file (gzipped profile)")
	flag.Parse()
	if *out == "" || flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: pprofsym-profile [-samples N] [-locations N] [-seed S] -o OUT FILE...")
		os.Exit(2)
	}
	if err := write(*out, flag.Args(), *samples, *locations, *seed); err != nil {
		fmt.Fprintln(os.Stderr, "pprofsym-profile:", err)
		os.Exit(1)
	}
}

type fn struct{ addr, size uint64 }

type image struct {
	path  string
	id    string
	base  uint64
	funcs []fn
	maps  []*profile.Mapping
}

func write(out string, files []string, nSamples, nLocs int, seed uint64) error {
	r := rand.New(rand.NewPCG(seed, seed^0x5eed))
	p := &profile.Profile{
		SampleType: []*profile.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}},
		PeriodType: &profile.ValueType{Type: "cpu", Unit: "nanoseconds"},
		Period:     10000000,
	}
	var imgs []*image
	total := 0
	for i, f := range files {
		img, err := load(f, 0x555555554000+uint64(i)<<36)
		if err != nil {
			return err
		}
		for _, m := range img.maps {
			m.ID = uint64(len(p.Mapping) + 1)
			p.Mapping = append(p.Mapping, m)
		}
		imgs = append(imgs, img)
		total += len(img.funcs)
	}
	seen := make(map[uint64]bool)
	var locs []*profile.Location
	for len(locs) < nLocs {
		k := r.IntN(total)
		var img *image
		for _, img = range imgs {
			if k < len(img.funcs) {
				break
			}
			k -= len(img.funcs)
		}
		f := img.funcs[k]
		v := f.addr
		if r.IntN(4) != 0 {
			v += r.Uint64N(f.size)
		}
		addr := img.base + v
		if seen[addr] {
			continue
		}
		var m *profile.Mapping
		for _, mm := range img.maps {
			if mm.Start <= addr && addr < mm.Limit {
				m = mm
			}
		}
		if m == nil {
			continue // a symbol outside the executable segments
		}
		seen[addr] = true
		locs = append(locs, &profile.Location{ID: uint64(len(locs) + 1), Mapping: m, Address: addr})
	}
	p.Location = locs
	for range nSamples {
		s := &profile.Sample{Value: []int64{1, 10000000}}
		for range 4 + r.IntN(29) {
			s.Location = append(s.Location, locs[r.IntN(len(locs))])
		}
		p.Sample = append(p.Sample, s)
	}
	if err := p.CheckValid(); err != nil {
		return err
	}
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	if err := p.Write(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// load reads path's build ID, executable segments and functions, and maps
// it at base.
func load(path string, base uint64) (*image, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	f, err := elf.Open(abs)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if f.Type != elf.ET_DYN {
		return nil, fmt.Errorf("%s: not ET_DYN", path)
	}
	img := &image{path: abs, base: base}
	if img.id, err = buildID(f); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	for _, ph := range f.Progs {
		if ph.Type != elf.PT_LOAD || ph.Flags&elf.PF_X == 0 {
			continue
		}
		start := base + ph.Vaddr&^0xfff
		limit := (base + ph.Vaddr + ph.Memsz + 0xfff) &^ 0xfff
		img.maps = append(img.maps, &profile.Mapping{Start: start, Limit: limit, Offset: ph.Off &^ 0xfff, File: abs, BuildID: img.id})
	}
	syms, err := f.Symbols()
	if len(syms) == 0 || err != nil {
		debug := filepath.Join("/usr/lib/debug/.build-id", img.id[:2], img.id[2:]+".debug")
		if df, err := elf.Open(debug); err == nil {
			syms, _ = df.Symbols()
			df.Close()
		}
	}
	if len(syms) == 0 {
		syms, _ = f.DynamicSymbols()
	}
	for _, s := range syms {
		if elf.ST_TYPE(s.Info) == elf.STT_FUNC && s.Size > 0 && s.Value != 0 {
			img.funcs = append(img.funcs, fn{s.Value, s.Size})
		}
	}
	if len(img.funcs) == 0 {
		return nil, fmt.Errorf("%s: no sized functions", path)
	}
	sort.Slice(img.funcs, func(i, j int) bool { return img.funcs[i].addr < img.funcs[j].addr })
	return img, nil
}

func buildID(f *elf.File) (string, error) {
	s := f.Section(".note.gnu.build-id")
	if s == nil {
		return "", errors.New("no build ID")
	}
	data, err := s.Data()
	if err != nil || len(data) < 16 {
		return "", errors.New("bad build ID note")
	}
	namesz := f.ByteOrder.Uint32(data)
	descsz := f.ByteOrder.Uint32(data[4:])
	off := 12 + (namesz+3)&^3
	if uint64(off)+uint64(descsz) > uint64(len(data)) {
		return "", errors.New("bad build ID note")
	}
	return hex.EncodeToString(data[off : off+descsz]), nil
}
