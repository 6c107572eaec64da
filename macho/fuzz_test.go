package macho

import (
	"encoding/binary"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// exercise runs every accessor over a parsed image; errors are fine, panics
// and hangs are not.
func exercise(f *File) {
	f.Symbols()
	f.FunctionStartAddrs(nil)
	f.DWARF(".debug_line")
	f.TextAddr()
	for i := range f.Segments {
		for j := range f.Segments[i].Sections {
			f.SectionData(&f.Segments[i].Sections[j])
		}
	}
	for i := range 256 {
		f.SectionByIndex(uint8(i))
	}
	if m, err := f.DebugMap(); err == nil {
		m.WriteYAML(io.Discard, "x")
		for i := range m.Objects {
			m.Objects[i].ResolveObjAddrs(f)
		}
	}
	MatchDSYM(f, f.Data, "self")
}

// fuzzSeedMax bounds a fixture seed. The fuzzer minimizes every input that
// finds new coverage, at a cost quadratic in its length (up to a minute
// each), and runs nothing new meanwhile: whole executables (16-80 KiB,
// mostly page padding) let it run a few dozen inputs a minute, and even a
// 1.5 KiB run of load commands stalls it for half a minute an input.
const fuzzSeedMax = 640

// fuzzSeeds returns small real inputs cut from the thin fixtures: the
// header and a run of consecutive load commands, ncmds and sizeofcmds set
// to match, up to fuzzSeedMax bytes; every command of every fixture is in
// one. LC_SYMTAB and LC_FUNCTION_STARTS come alone, with their data (the
// first 16 symbols, 256 bytes of strings) moved after them; what other
// commands point at is cut off (Parse reports that). Whole images come
// from the synthetic builder (sample).
func fuzzSeeds(tb testing.TB) [][]byte {
	var out [][]byte
	seen := map[string]bool{}
	for _, name := range thinFixtures {
		b := readFixture(tb, name)
		img, err := Parse(b)
		if err != nil {
			tb.Fatal(err)
		}
		hdr := 28
		if img.Is64 {
			hdr = 32
		}
		order := binary.ByteOrder(binary.LittleEndian)
		if img.BigEndian {
			order = binary.BigEndian
		}
		flush := func(cmds []Load) {
			seed := slices.Clone(b[:hdr])
			n := 0
			for _, l := range cmds {
				seed = append(seed, l.Raw...)
				n += len(l.Raw)
			}
			order.PutUint32(seed[16:], uint32(len(cmds)))
			order.PutUint32(seed[20:], uint32(n))
			if len(cmds) > 0 && !seen[string(seed)] {
				seen[string(seed)] = true
				out = append(out, seed)
			}
		}
		// linked returns the command with its data appended and its
		// offsets moved there.
		linked := func(l Load) []byte {
			raw := slices.Clone(l.Raw)
			at := uint32(hdr + len(raw))
			switch {
			case l.Cmd == LoadSymtab && len(raw) >= 24:
				symOff, nsyms := order.Uint32(raw[8:]), order.Uint32(raw[12:])
				strOff, strSize := order.Uint32(raw[16:]), order.Uint32(raw[20:])
				esize := uint32(12)
				if img.Is64 {
					esize = 16
				}
				nsyms, strSize = min(nsyms, 16), min(strSize, 256)
				syms := b[symOff : symOff+nsyms*esize]
				order.PutUint32(raw[8:], at)
				order.PutUint32(raw[12:], nsyms)
				order.PutUint32(raw[16:], at+uint32(len(syms)))
				order.PutUint32(raw[20:], strSize)
				return append(append(raw, syms...), b[strOff:strOff+strSize]...)
			case l.Cmd == LoadFunctionStarts && len(raw) >= 16:
				off, n := order.Uint32(raw[8:]), order.Uint32(raw[12:])
				n = min(n, 256)
				order.PutUint32(raw[8:], at)
				order.PutUint32(raw[12:], n)
				return append(raw, b[off:off+n]...)
			}
			return nil
		}
		var run []Load
		size := hdr
		for _, l := range img.Loads {
			if data := linked(l); data != nil {
				seed := append(slices.Clone(b[:hdr]), data...)
				order.PutUint32(seed[16:], 1)
				order.PutUint32(seed[20:], uint32(len(l.Raw)))
				if !seen[string(seed)] {
					seen[string(seed)] = true
					out = append(out, seed)
				}
				continue
			}
			if size+len(l.Raw) > fuzzSeedMax {
				flush(run)
				run, size = nil, hdr
			}
			if hdr+len(l.Raw) <= fuzzSeedMax {
				run = append(run, l)
				size += len(l.Raw)
			}
		}
		flush(run)
	}
	return out
}

func FuzzParse(f *testing.F) {
	for _, b := range fuzzSeeds(f) {
		f.Add(b)
	}
	f.Add(sample(binary.BigEndian, false))
	f.Add(sample(binary.LittleEndian, true))
	f.Fuzz(func(t *testing.T, data []byte) {
		if IsFat(data) {
			ft, err := ParseFat(data)
			if err != nil {
				return
			}
			for _, a := range ft.Arches {
				if img, err := ft.Parse(a); err == nil {
					exercise(img)
				}
			}
			return
		}
		if img, err := Parse(data); err == nil {
			exercise(img)
		}
	})
}

func FuzzFunctionStarts(f *testing.F) {
	for _, name := range []string{"main.arm64", "main.x86_64", "libfix.arm64.dylib"} {
		b, err := os.ReadFile(filepath.Join(fixtureDir, name))
		if err != nil {
			f.Fatal(err)
		}
		img, err := Parse(b)
		if err != nil {
			f.Fatal(err)
		}
		fs := img.FunctionStarts
		f.Add(b[fs.DataOff:fs.DataOff+fs.DataSize], uint64(0x100000000))
	}
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}, uint64(1))
	f.Fuzz(func(t *testing.T, data []byte, base uint64) {
		starts, err := DecodeFunctionStarts(nil, data, base, 0)
		if len(starts) > len(data) {
			t.Fatalf("%d starts from %d bytes", len(starts), len(data))
		}
		for i := 1; i < len(starts); i++ {
			if starts[i] <= starts[i-1] {
				t.Fatalf("starts not increasing: %x", starts)
			}
		}
		_ = err
	})
}
