package pclntab_test

import (
	"debug/elf"
	"fmt"
	"log"

	"github.com/symbolize-go/symbolize/pclntab"
)

// Example answers an address of a Go binary built with -ldflags='-s -w'
// (no DWARF, no symbol table) from its .gopclntab, inlined calls
// included: the module record tells where code starts and where the
// inline trees lie.
func Example() {
	f, err := elf.Open("../testdata/gopcln/go1.26-linux-amd64-sw")
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	sec := func(name string) ([]byte, uint64) {
		s := f.Section(name)
		d, err := s.Data()
		if err != nil {
			log.Fatal(err)
		}
		return d, s.Addr
	}
	table, tableAddr := sec(".gopclntab")
	module, moduleAddr := sec(".go.module") // .noptrdata before Go 1.26
	hdr, err := pclntab.New(table, nil)
	if err != nil {
		log.Fatal(err)
	}
	md, ok := pclntab.FindModuledata(hdr, tableAddr, module, moduleAddr)
	if !ok {
		log.Fatal("no module record")
	}
	tab, err := pclntab.New(table, &pclntab.Options{
		TextStart: md.Text,
		GoFunc:    md.GoFunc,
		Memory: func(addr uint64, n int) []byte { // the inline trees, in read-only data
			for _, s := range f.Sections {
				if s.Type != elf.SHT_NOBITS && addr >= s.Addr && addr-s.Addr < s.Size {
					b := make([]byte, min(uint64(n), s.Addr+s.Size-addr))
					s.ReadAt(b, int64(addr-s.Addr))
					return b
				}
			}
			return nil
		},
	})
	if err != nil {
		log.Fatal(err)
	}
	// The first address of main.work with inlined frames.
	for i := 0; i < tab.NumFuncs(); i++ {
		fn, _ := tab.Func(i)
		if fn.Name != "main.work" {
			continue
		}
		for pc := fn.Entry; pc < fn.End; pc++ {
			frames, err := tab.AppendFrames(nil, pc)
			if err != nil {
				log.Fatal(err)
			}
			if len(frames) < 2 {
				continue
			}
			for _, fr := range frames {
				fmt.Printf("%s %s:%d inlined=%v\n", fr.Function, fr.File, fr.Line, fr.Inlined)
			}
			return
		}
	}
	// Output:
	// example.com/gopcln/chain.Vec.Scale example.com/gopcln/chain/chain.go:13 inlined=true
	// main.work example.com/gopcln/main.go:27 inlined=false
}
