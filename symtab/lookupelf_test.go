package symtab

import (
	"debug/elf"
	"encoding/binary"
	"fmt"
	"testing"
)

// lookupPCs returns the addresses that tell lookups apart in syms: each
// symbol's start, the byte before it, its last byte and the one past its
// end, and the ends of the address space.
func lookupPCs(syms []Symbol) []uint64 {
	pcs := []uint64{0, 1, ^uint64(0), ^uint64(0) - 1}
	for _, s := range syms {
		pcs = append(pcs, s.Addr, s.Addr-1, s.Addr+s.Size, s.Addr+s.Size-1, s.Addr+s.Size/2)
	}
	return pcs
}

// checkLookupELF fails t where LookupELF's answer to pc, or its error, or
// its count, differs from the Table's built from ReadELF's symbols.
func checkLookupELF(t *testing.T, name string, tab, strs []byte, opts ELFOptions, pcs []uint64) {
	t.Helper()
	syms, rerr := ReadELF(tab, strs, opts)
	tb := New(syms)
	for _, pc := range pcs {
		want, wok := tb.Lookup(pc)
		got, gok, n, err := LookupELF(tab, strs, opts, pc)
		if got != want || gok != wok {
			t.Fatalf("%s: LookupELF(%#x) = %+v, %v; the Table's Lookup = %+v, %v", name, pc, got, gok, want, wok)
		}
		if n != len(syms) || fmt.Sprint(err) != fmt.Sprint(rerr) {
			t.Fatalf("%s: LookupELF(%#x): %d symbols, error %v; ReadELF: %d, %v", name, pc, n, err, len(syms), rerr)
		}
	}
}

// TestLookupELFMatchesTable checks LookupELF against New and Lookup on both
// symbol tables of every ELF fixture, at every address where the answer
// can change.
func TestLookupELFMatchesTable(t *testing.T) {
	tables := 0
	for _, path := range fixtureFiles(t) {
		ef := readELFFile(t, path)
		for i, syms := range [][]Symbol{ef.symtab, ef.dynsym} {
			raw := ef.raw[i]
			if raw[0] == nil {
				continue
			}
			tables++
			opts := ef.opts
			opts.Section = [...]string{".symtab", ".dynsym"}[i]
			checkLookupELF(t, path+" "+opts.Section, raw[0], raw[1], opts, lookupPCs(syms))
		}
	}
	if tables < 20 {
		t.Fatalf("only %d symbol tables in the fixtures", tables)
	}
}

// TestLookupELFRules checks the tie-breaks, the file names and the bad
// entries on tables built for them: of the symbols at one address the
// largest wins and, of equal sizes, the last; a local symbol takes the
// last STT_FILE before it; markers and undefined symbols never answer;
// a bad entry ends the table, with ReadELF's error.
func TestLookupELFRules(t *testing.T) {
	// rawSym: name, value, size, type, binding, section (elf_test.go).
	syms := []rawSym{
		{"a.c", 0, 0, elf.STT_FILE, elf.STB_LOCAL, 0xfff1},
		{"first", 0x100, 8, elf.STT_FUNC, elf.STB_LOCAL, 1},
		{"second", 0x100, 8, elf.STT_FUNC, elf.STB_LOCAL, 1},
		{"small", 0x100, 4, elf.STT_FUNC, elf.STB_GLOBAL, 1},
		{"b.c", 0, 0, elf.STT_FILE, elf.STB_LOCAL, 0xfff1},
		{"local", 0x200, 0, elf.STT_FUNC, elf.STB_LOCAL, 1},
		{"$d", 0x300, 0, elf.STT_NOTYPE, elf.STB_LOCAL, 1},
		{"undef", 0x400, 0, elf.STT_FUNC, elf.STB_GLOBAL, 0},
		{"", 0x500, 0x10, elf.STT_FUNC, elf.STB_GLOBAL, 1},
		{"last", 0x600, 0, elf.STT_FUNC, elf.STB_GLOBAL, 1},
		{"far", 0x700, 0, elf.STT_FUNC, elf.STB_GLOBAL, 5}, // past NumSections below
	}
	pcs := []uint64{0xff, 0x100, 0x104, 0x108, 0x1ff, 0x200, 0x300, 0x400, 0x4ff, 0x500, 0x50f, 0x510, 0x600, 0x700, ^uint64(0)}
	for _, machine := range []uint16{0, MachineARM, MachineAArch64, MachineRISCV} {
		for _, class64 := range []bool{false, true} {
			tab, strs := buildELF(class64, binary.LittleEndian, syms)
			opts := ELFOptions{Class64: class64, Machine: machine, NumSections: 2}
			name := fmt.Sprintf("machine %d class64 %v", machine, class64)
			checkLookupELF(t, name, tab, strs, opts, pcs)
			if m, ok, _, _ := LookupELF(tab, strs, opts, 0x104); !ok || m.Name != "second" || m.File != "a.c" || m.End != 0x108 {
				t.Fatalf("%s: LookupELF(0x104) = %+v, %v; want second, in a.c, to 0x108", name, m, ok)
			}
			// A name outside the table, then one not NUL-terminated.
			bad := append([]byte(nil), tab...)
			ent := 16
			if class64 {
				ent = 24
			}
			binary.LittleEndian.PutUint32(bad[5*ent:], uint32(len(strs)+5))
			checkLookupELF(t, name+" bad name", bad, strs, opts, pcs)
			binary.LittleEndian.PutUint32(bad[5*ent:], uint32(len(strs))) // just past the end
			checkLookupELF(t, name+" name at the end", bad, strs, opts, pcs)
			if m, ok, _, _ := LookupELF(tab, strs, opts, 0x704); !ok || m.Name != "last" {
				t.Fatalf("%s: LookupELF(0x704) = %+v, %v; want last (far is in no section)", name, m, ok)
			}
			checkLookupELF(t, name+" unterminated", tab, strs[:len(strs)-1], opts, pcs)
			checkLookupELF(t, name+" truncated", tab[:len(tab)-3], strs, opts, pcs)
			checkLookupELF(t, name+" no strings", tab, nil, opts, pcs)
			// Tagged addresses answer only untagged.
			tagged := make([]rawSym, len(syms))
			for i, s := range syms {
				s.value |= 0x2a << 56
				tagged[i] = s
			}
			tab, strs = buildELF(class64, binary.LittleEndian, tagged)
			checkLookupELF(t, name+" tagged", tab, strs, opts, pcs)
			opts.Untag = true
			checkLookupELF(t, name+" untagged", tab, strs, opts, pcs)
			if m, ok, _, _ := LookupELF(tab, strs, opts, 0x104); class64 && (!ok || m.Name != "second" || m.Start != 0x100) {
				t.Fatalf("%s: untagged LookupELF(0x104) = %+v, %v; want second at 0x100", name, m, ok)
			}
		}
	}
}
