package main

import (
	"bufio"
	"cmp"
	"debug/elf"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
)

// span is [lo, hi) in the library's address space.
type span struct{ lo, hi uint64 }

// The kinds of sampled address and how often each is drawn, in percent.
// Starts and interiors are what profiles hit; last bytes end a function's
// last row; gaps (padding between functions, the PLT, code no sized symbol
// covers), data and addresses past the image test the "no answer" paths.
var kinds = []struct {
	name   string
	weight int
}{
	{"start", 20},
	{"interior", 55},
	{"last", 5},
	{"gap", 12},
	{"data", 5},
	{"beyond", 3},
}

// sample prints n addresses of LIB, each with its kind, one a line:
// "0x1234 interior". Functions are the sized STT_FUNC and STT_GNU_IFUNC
// symbols of LIB's .symtab and .dynsym and of DEBUG's .symtab, in
// executable sections, one per start address (the largest size wins). The
// PRNG is seeded, so the list is the same on every run and machine.
func sample(args []string) error {
	fs := flag.NewFlagSet("sample", flag.ContinueOnError)
	n := fs.Int("n", 5000, "number of addresses")
	seed := fs.Uint64("seed", 1, "PRNG seed")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() < 1 || fs.NArg() > 2 {
		return errors.New("sample: want LIB [DEBUG]")
	}
	lib, err := elf.Open(fs.Arg(0))
	if err != nil {
		return err
	}
	defer lib.Close()
	fns, err := functions(lib, true)
	if err != nil {
		return fmt.Errorf("%s: %w", fs.Arg(0), err)
	}
	if fs.NArg() == 2 {
		dbg, err := elf.Open(fs.Arg(1))
		if err != nil {
			return err
		}
		more, err := functions(dbg, false)
		dbg.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", fs.Arg(1), err)
		}
		fns = append(fns, more...)
	}
	fns = distinct(fns)
	if len(fns) == 0 {
		return errors.New("sample: no sized function symbols in executable sections")
	}
	var code, data []span
	var top uint64
	for _, s := range lib.Sections {
		if s.Flags&elf.SHF_ALLOC == 0 || s.Size == 0 {
			continue
		}
		sp := span{s.Addr, s.Addr + s.Size}
		top = max(top, sp.hi)
		if s.Flags&elf.SHF_EXECINSTR != 0 && s.Type != elf.SHT_NOBITS {
			code = append(code, sp)
		} else {
			data = append(data, sp)
		}
	}
	gaps := uncovered(code, fns)

	r := rand.New(rand.NewPCG(*seed, 0x5eed))
	w := bufio.NewWriter(os.Stdout)
	total := 0
	for _, k := range kinds {
		total += k.weight
	}
	for range *n {
		pick := r.IntN(total)
		kind := kinds[0].name
		for _, k := range kinds {
			if pick < k.weight {
				kind = k.name
				break
			}
			pick -= k.weight
		}
		// A library without gaps or data sections gets an interior
		// address instead, so that n stays n.
		if (kind == "gap" && len(gaps) == 0) || (kind == "data" && len(data) == 0) {
			kind = "interior"
		}
		var a uint64
		switch kind {
		case "start", "interior", "last":
			f := fns[r.IntN(len(fns))]
			switch kind {
			case "start":
				a = f.lo
			case "interior":
				a = f.lo + r.Uint64N(f.hi-f.lo)
			case "last":
				a = f.hi - 1
			}
		case "gap", "data":
			from := gaps
			if kind == "data" {
				from = data
			}
			g := from[r.IntN(len(from))]
			a = g.lo + r.Uint64N(g.hi-g.lo)
		case "beyond":
			a = top + r.Uint64N(1<<20)
		}
		fmt.Fprintf(w, "0x%x %s\n", a, kind)
	}
	return w.Flush()
}

// functions returns the sized function symbols of f's .symtab (and of its
// .dynsym when dyn is set) that lie in executable sections. A debug file's
// .text is SHT_NOBITS but keeps SHF_EXECINSTR, so its symbols count.
func functions(f *elf.File, dyn bool) ([]span, error) {
	var fns []span
	reads := []func() ([]elf.Symbol, error){f.Symbols}
	if dyn {
		reads = append(reads, f.DynamicSymbols)
	}
	for _, read := range reads {
		syms, err := read()
		if errors.Is(err, elf.ErrNoSymbols) {
			continue
		}
		if err != nil {
			return nil, err
		}
		for _, s := range syms {
			t := elf.ST_TYPE(s.Info)
			if (t != elf.STT_FUNC && t != elf.STT_GNU_IFUNC) || s.Size == 0 {
				continue
			}
			i := int(s.Section)
			if i <= 0 || i >= len(f.Sections) || f.Sections[i].Flags&elf.SHF_EXECINSTR == 0 {
				continue
			}
			fns = append(fns, span{s.Value, s.Value + s.Size})
		}
	}
	return fns, nil
}

// distinct sorts fns by start and keeps one per start, the largest:
// aliases (several names, one body) would weigh a function twice.
func distinct(fns []span) []span {
	slices.SortFunc(fns, func(a, b span) int {
		return cmp.Or(cmp.Compare(a.lo, b.lo), cmp.Compare(b.hi, a.hi))
	})
	return slices.CompactFunc(fns, func(a, b span) bool { return a.lo == b.lo })
}

// uncovered returns the parts of the code spans that no function covers.
// fns is sorted by start.
func uncovered(code, fns []span) []span {
	var gaps []span
	for _, c := range code {
		at := c.lo
		for _, f := range fns {
			if f.hi <= at || f.lo >= c.hi {
				continue
			}
			if f.lo > at {
				gaps = append(gaps, span{at, f.lo})
			}
			at = max(at, f.hi)
		}
		if at < c.hi {
			gaps = append(gaps, span{at, c.hi})
		}
	}
	return gaps
}
