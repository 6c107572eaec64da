package pprofsym

import (
	"bytes"
	"context"
	"math/rand/v2"
	"testing"

	"github.com/google/pprof/profile"
)

// benchProfile is an unsymbolized profile of n samples of 4 to 32 frames
// over locs distinct addresses in two mappings, as bench/pprofsym makes
// them (but of no real file: the benchmarks answer with hashSymbolizer).
func benchProfile(n, locs int) []byte {
	r := rand.New(rand.NewPCG(1, 2))
	p := &profile.Profile{SampleType: []*profile.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}}}
	for i := range 2 {
		p.Mapping = append(p.Mapping, &profile.Mapping{ID: uint64(i + 1), Start: uint64(i+1) << 32, Limit: uint64(i+1)<<32 + 1<<24, File: "/lib/file" + string(rune('a'+i))})
	}
	for i := range locs {
		m := p.Mapping[i%2]
		p.Location = append(p.Location, &profile.Location{ID: uint64(i + 1), Mapping: m, Address: m.Start + r.Uint64N(1<<24)})
	}
	for range n {
		s := &profile.Sample{Value: []int64{1, 1e7}}
		for range 4 + r.IntN(29) {
			s.Location = append(s.Location, p.Location[r.IntN(locs)])
		}
		p.Sample = append(p.Sample, s)
	}
	var b bytes.Buffer
	if err := p.Write(&b); err != nil {
		panic(err)
	}
	return b.Bytes()
}

// BenchmarkSymbolizeData: a 100,000-sample gzipped profile to its
// symbolized encoding, lookups answered by hashSymbolizer (so the figure
// is this package's own cost), against the profile package's path:
// profile.ParseData, Symbolize, WriteUncompressed.
func BenchmarkSymbolizeData(b *testing.B) {
	data := benchProfile(100_000, 20_000)
	ctx := context.Background()
	b.Run("SymbolizeData", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			if _, _, err := SymbolizeData(ctx, data, hashSymbolizer{}, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("profile.Parse+Symbolize+Write", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(data)))
		var out bytes.Buffer
		for b.Loop() {
			p, err := profile.ParseData(data)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := Symbolize(ctx, p, hashSymbolizer{}, nil); err != nil {
				b.Fatal(err)
			}
			out.Reset()
			if err := p.WriteUncompressed(&out); err != nil {
				b.Fatal(err)
			}
		}
	})
}
