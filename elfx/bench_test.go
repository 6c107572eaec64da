package elfx

import (
	"debug/elf"
	"math/rand/v2"
	"path/filepath"
	"testing"
)

// benchFile holds an 8 MiB compressed section of data that deflates about
// 2:1, like DWARF. (zstd is stored raw: the standard library has no zstd
// compressor, so that benchmark measures framing, not entropy decoding.)
func benchFile(b *testing.B, c Compression) []byte {
	b.Helper()
	raw := make([]byte, 8<<20)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range raw {
		raw[i] = byte(r.IntN(16))
	}
	te := &telf{is64: true, secs: []tsec{{name: sectionName(c), typ: elf.SHT_PROGBITS, flags: sectionFlags(c), data: compressed(true, false, c, raw)}}}
	return te.bytes()
}

func BenchmarkOpenFixture(b *testing.B) {
	path := filepath.Join("..", "testdata", "elf", "go-trimpath")
	if f, err := Open(path, nil); err != nil {
		b.Skip(err)
	} else {
		f.Close()
	}
	b.ReportAllocs()
	for b.Loop() {
		f, err := Open(path, nil)
		if err != nil {
			b.Fatal(err)
		}
		f.Close()
	}
}

func benchmarkData(b *testing.B, c Compression) {
	data := benchFile(b, c)
	b.SetBytes(8 << 20)
	b.ReportAllocs()
	for b.Loop() {
		f, err := NewBytes(data, nil)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := f.Section(".debug_info").Data(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDataZlib(b *testing.B) { benchmarkData(b, CompressZlib) }
func BenchmarkDataZstd(b *testing.B) { benchmarkData(b, CompressZstd) }

// BenchmarkPrefix reads a unit header's worth of a large compressed
// section: the point of Prefix is that this does not cost the whole.
func BenchmarkPrefix(b *testing.B) {
	data := benchFile(b, CompressZlib)
	b.ReportAllocs()
	for b.Loop() {
		f, err := NewBytes(data, nil)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := f.Section(".debug_info").Prefix(64); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCachedData(b *testing.B) {
	f, err := NewBytes(benchFile(b, CompressZlib), nil)
	if err != nil {
		b.Fatal(err)
	}
	s := f.Section(".debug_info")
	s.Data()
	b.ReportAllocs()
	for b.Loop() {
		s.Data()
	}
}
