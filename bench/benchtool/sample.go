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

// fn is one function from a symbol table: [addr, addr+size).
type fn struct{ addr, size uint64 }

// sample prints n addresses inside functions of the first file that has a
// .symtab, or else of the first with a .dynsym: a stripped library's
// .dynsym lists only its exported functions, while its debug file (which
// run.sh passes after it) holds the full .symtab. A quarter of the
// addresses are function starts, the rest uniform interiors, since real
// profiles hit both: starts exercise the sequence boundaries and
// interiors the row search. The PRNG is seeded, so the list is the same on
// every run and machine.
func sample(args []string) error {
	fs := flag.NewFlagSet("sample", flag.ContinueOnError)
	n := fs.Int("n", 1000, "number of addresses")
	seed := fs.Uint64("seed", 1, "PRNG seed")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return errors.New("sample: no file")
	}
	var fns []fn
	for _, dyn := range []bool{false, true} {
		for _, name := range fs.Args() {
			var err error
			if fns, err = functions(name, dyn); err != nil {
				return err
			}
			if len(fns) > 0 {
				break
			}
		}
		if len(fns) > 0 {
			break
		}
	}
	if len(fns) == 0 {
		return errors.New("sample: no sized function symbols in executable sections")
	}
	r := rand.New(rand.NewPCG(*seed, 0x5eed))
	w := bufio.NewWriter(os.Stdout)
	for range *n {
		f := fns[r.IntN(len(fns))]
		a := f.addr
		if r.IntN(4) != 0 {
			a += r.Uint64N(f.size)
		}
		fmt.Fprintf(w, "0x%x\n", a)
	}
	return w.Flush()
}

// functions returns the distinct sized STT_FUNC symbols of name's .symtab
// (its .dynsym when dyn is set) that lie in executable sections. A debug
// file's .text is SHT_NOBITS but keeps SHF_EXECINSTR, so its symbols count.
func functions(name string, dyn bool) ([]fn, error) {
	f, err := elf.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	read := f.Symbols
	if dyn {
		read = f.DynamicSymbols
	}
	syms, err := read()
	if errors.Is(err, elf.ErrNoSymbols) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	var fns []fn
	for _, s := range syms {
		if elf.ST_TYPE(s.Info) != elf.STT_FUNC || s.Size == 0 {
			continue
		}
		i := int(s.Section)
		if i <= 0 || i >= len(f.Sections) || f.Sections[i].Flags&elf.SHF_EXECINSTR == 0 {
			continue
		}
		fns = append(fns, fn{s.Value, s.Size})
	}
	// Aliases (several names, one body) would weigh a function twice.
	slices.SortFunc(fns, func(a, b fn) int { return cmp.Compare(a.addr, b.addr) })
	fns = slices.CompactFunc(fns, func(a, b fn) bool { return a.addr == b.addr })
	return fns, nil
}
