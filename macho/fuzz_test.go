package macho

import (
	"encoding/binary"
	"io"
	"os"
	"path/filepath"
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

func FuzzParse(f *testing.F) {
	for _, name := range append(thinFixtures, "main.fat", "main.fat.dSYM/Contents/Resources/DWARF/main.fat") {
		b, err := os.ReadFile(filepath.Join(fixtureDir, name))
		if err != nil {
			f.Fatal(err)
		}
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
