package elfx

import (
	"bytes"
	"debug/elf"
	"errors"
	"fmt"
	"os"
	"testing"
)

// relocSeedMax cuts the relocation entries of a seed: the fuzzer
// minimizes each new input at a cost quadratic in its length.
const relocSeedMax = 192

// FuzzRelocate replaces one relocation section of an object fixture (the
// fixture and the section chosen by index) with arbitrary entries and
// header fields (sh_info, sh_link, sh_entsize), then reads every section:
// no input may panic or hang, relocated sections keep their size, problems
// are *DecodeErrors, and the in-memory and ReaderAt paths agree. Seeded
// with the fixtures' own .rela.debug_* and .rel.debug_* sections.
func FuzzRelocate(f *testing.F) {
	type fixture struct {
		raw  []byte
		rels []*Section // relocation sections of debug sections
	}
	var fxs []fixture
	for _, p := range objFixtures(f) {
		raw, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		file, err := NewBytes(raw, nil)
		if err != nil {
			f.Fatal(err)
		}
		fx := fixture{raw: raw}
		for _, s := range file.Sections {
			if (s.Type == elf.SHT_RELA || s.Type == elf.SHT_REL) && int(s.Info) < len(file.Sections) && file.Sections[s.Info].Relocated() {
				fx.rels = append(fx.rels, s)
			}
		}
		for j, s := range fx.rels {
			d, _ := s.Data()
			f.Add(uint8(len(fxs)), uint8(j), s.Info, s.Link, s.Entsize, d[:min(len(d), relocSeedMax)])
		}
		fxs = append(fxs, fx)
	}
	f.Fuzz(func(t *testing.T, fi, ri uint8, info, link uint32, entsize uint64, relocs []byte) {
		fx := fxs[int(fi)%len(fxs)]
		rs := fx.rels[int(ri)%len(fx.rels)]
		data := patchSection(fx.raw, rs, relocs, info, link, entsize)
		defer watchdog(fmt.Sprintf("fixture %d section %s: %x", fi, rs.Name, relocs))()
		file, err := NewBytes(data, nil)
		if err != nil {
			t.Fatalf("the patched fixture does not open: %v", err)
		}
		file2, err := NewReaderAt(bytes.NewReader(data), int64(len(data)), nil)
		if err != nil {
			t.Fatal(err)
		}
		for i, s := range file.Sections {
			d, err := s.Data()
			if err == nil && uint64(len(d)) != s.Size {
				t.Fatalf("%s: Data has %d bytes, Size is %d", s.Name, len(d), s.Size)
			}
			if rerr := s.RelocationErr(); rerr != nil {
				var de *DecodeError
				if !errors.As(rerr, &de) {
					t.Fatalf("%s: RelocationErr %v is not a *DecodeError", s.Name, rerr)
				}
			}
			d2, err2 := file2.Sections[i].Data()
			if (err == nil) != (err2 == nil) || !bytes.Equal(d, d2) {
				t.Fatalf("%s: paths disagree: %v vs %v", s.Name, err, err2)
			}
			if s.Relocated() {
				// Where the new entries point, and around.
				for off := uint64(0); off+8 <= uint64(len(relocs)) && off < 256; off += 8 {
					s.RelocationSection(file.ByteOrder.Uint64(relocs[off:]) % (s.Size + 8))
				}
			}
		}
	})
}

// patchSection returns a copy of raw in which section rs holds relocs
// (appended at the end of the file) and the given sh_info, sh_link and
// sh_entsize.
func patchSection(raw []byte, rs *Section, relocs []byte, info, link uint32, entsize uint64) []byte {
	f := rs.f
	out := make([]byte, 0, len(raw)+len(relocs)+8)
	out = append(out, raw...)
	for len(out)%8 != 0 {
		out = append(out, 0)
	}
	off := uint64(len(out))
	out = append(out, relocs...)
	h := out[rs.hdrOff:]
	bo := f.ByteOrder
	if f.Class == elf.ELFCLASS64 {
		bo.PutUint64(h[24:], off)
		bo.PutUint64(h[32:], uint64(len(relocs)))
		bo.PutUint32(h[40:], link)
		bo.PutUint32(h[44:], info)
		bo.PutUint64(h[56:], entsize)
	} else {
		bo.PutUint32(h[16:], uint32(off))
		bo.PutUint32(h[20:], uint32(len(relocs)))
		bo.PutUint32(h[24:], link)
		bo.PutUint32(h[28:], info)
		bo.PutUint32(h[36:], uint32(entsize))
	}
	return out
}
