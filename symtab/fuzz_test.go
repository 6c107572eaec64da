package symtab

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
)

// FuzzReadELF decodes arbitrary bytes as an ELF symbol table in the
// layout flags selects, builds a Table and looks up pc: nothing may panic,
// errors must be *DecodeError, every answer must cover pc, and LookupELF
// must give the Table's answer and ReadELF's error. Seeds are
// the real .symtab and .dynsym sections of the fixtures.
func FuzzReadELF(f *testing.F) {
	tab, strs := buildELF(true, binary.LittleEndian, []rawSym{
		{"foo", 0x10, 4, 2, 1, 1}, {"bar", 0x10, 4, 2, 1, 1}, {"$d", 0x18, 0, 0, 0, 1},
	})
	f.Add(tab, strs, uint8(1), uint64(0x12))
	for _, path := range fixturePaths() {
		ef := readELFFile(f, path)
		flags := uint8(0)
		if ef.opts.Class64 {
			flags |= 1
		}
		if ef.opts.BigEndian {
			flags |= 2
		}
		for _, raw := range ef.raw {
			if raw[0] != nil {
				f.Add(raw[0], raw[1], flags, uint64(0x1130))
			}
		}
	}
	machines := []uint16{0, MachineARM, MachineAArch64, MachineRISCV}
	f.Fuzz(func(t *testing.T, tab, strs []byte, flags uint8, pc uint64) {
		opts := ELFOptions{
			Class64:     flags&1 != 0,
			BigEndian:   flags&2 != 0,
			Machine:     machines[flags>>2&3],
			NumSections: uint32(flags >> 5),
			Untag:       flags&16 != 0,
		}
		r := NewELFReader(tab, strs, opts)
		max := r.Len()
		syms, err := ReadELF(tab, strs, opts)
		if err != nil {
			var de *DecodeError
			if !errors.As(err, &de) || de.Offset > uint64(len(tab)) || errors.Is(err, io.EOF) {
				t.Fatalf("bad error %v", err)
			}
		}
		if len(syms) > max {
			t.Fatalf("%d symbols from %d entries", len(syms), max)
		}
		tb := New(syms)
		m, ok := tb.Lookup(pc)
		if h := int(flags) - 64; true {
			// From a hint anywhere around the table's entries.
			if fm, fok := tb.LookupFrom(pc, &h); fm != m || fok != ok {
				t.Fatalf("LookupFrom(%#x) from %d = %+v, %v; Lookup = %+v, %v", pc, int(flags)-64, fm, fok, m, ok)
			}
		}
		if lm, lok, n, lerr := LookupELF(tab, strs, opts, pc); lm != m || lok != ok || n != len(syms) || fmt.Sprint(lerr) != fmt.Sprint(err) {
			t.Fatalf("LookupELF(%#x) = %+v, %v, %d, %v; the Table's %+v, %v, ReadELF's %d, %v", pc, lm, lok, n, lerr, m, ok, len(syms), err)
		}
		if ok {
			if m.Start > pc || m.Offset != pc-m.Start || m.Size != 0 && m.Offset >= m.Size {
				t.Fatalf("Lookup(%#x) = %+v", pc, m)
			}
			_ = m.String()
		}
		for i := 0; i < tb.Len() && i < 4; i++ {
			_ = Demangle(tb.At(i).Name, StyleLLVM)
		}
	})
}

// FuzzDemangle feeds arbitrary names to Demangle in both styles: nothing
// may panic, the output stays within the 1 MiB cap (plus a clone suffix
// taken from the input), and in the LLVM style a name that is not
// Itanium (_Z, ___Z) or Rust v0 (_R) comes back unchanged. Seeds are the
// pinned cases and the names the oracle tests use.
func FuzzDemangle(f *testing.F) {
	for _, c := range demangleCases {
		f.Add(c.name)
	}
	for _, n := range handNames {
		f.Add(n)
	}
	f.Fuzz(func(t *testing.T, name string) {
		for _, style := range []Style{StyleLLVM, StyleGNU} {
			out := Demangle(name, style)
			if len(out) > 1<<20+2*len(name)+64 {
				t.Fatalf("style %d: %d bytes from a %d-byte name", style, len(out), len(name))
			}
		}
		if !strings.HasPrefix(name, "_Z") && !strings.HasPrefix(name, "___Z") && !strings.HasPrefix(name, "_R") {
			if out := Demangle(name, StyleLLVM); out != name {
				t.Fatalf("Demangle(%q, StyleLLVM) = %q; want it unchanged", name, out)
			}
		}
	})
}
