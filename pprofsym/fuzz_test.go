package pprofsym

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/google/pprof/profile"
	"github.com/symbolize-go/symbolize/frame"
	"github.com/symbolize-go/symbolize/slide"
)

// hashSymbolizer answers every address from its bits alone, so any
// profile can be symbolized: up to three frames, some with no function or
// file, some addresses a *slide.MappingError, and files whose name ends in
// "gone" a file error.
type hashSymbolizer struct{}

var errGone = errors.New("gone")

func (hashSymbolizer) AppendFrames(dst []frame.Frame, m *slide.Module, pc uint64) ([]frame.Frame, error) {
	if len(m.Path) >= 4 && m.Path[len(m.Path)-4:] == "gone" {
		return dst, errGone
	}
	h := pc * 0x9e3779b97f4a7c15
	if h>>60 == 0 {
		return dst, &slide.MappingError{Start: m.Start, End: m.End, Offset: m.Offset, Addr: pc, Err: slide.ErrNoSegment}
	}
	n := int(h>>56) % 4
	if n == 0 {
		return append(dst, frame.Frame{}), nil
	}
	for i := range n {
		f := frame.Frame{Line: uint32(h >> 40 & 0xff), Column: uint32(h >> 32 & 7), Inlined: i < n-1, Source: frame.SourceDWARF}
		if h>>i&1 != 0 {
			f.Function = "_ZN1a1fEi" + strconv.Itoa(int(h>>20&15))
			f.DWARFName = f.Function
		}
		if h>>(i+8)&1 != 0 {
			f.File = "/src/f" + strconv.Itoa(int(h>>24&3)) + ".c"
		}
		dst = append(dst, f)
	}
	return dst, nil
}

// FuzzSymbolize symbolizes profile bytes through SymbolizeData and,
// parsed as pprof parses them, through Symbolize: no input may panic, the
// two must agree on what parses, and a valid profile stays valid, writes
// and parses back with every symbolized location's lines.
func FuzzSymbolize(f *testing.F) {
	seeds, err := filepath.Glob("testdata/*.pb.gz")
	if err != nil || len(seeds) == 0 {
		f.Fatalf("no seeds in testdata: %v", err)
	}
	for _, s := range seeds {
		data, err := os.ReadFile(s)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
		// Uncompressed too, so that mutations reach the protobuf.
		p, err := profile.ParseData(data)
		if err != nil {
			f.Fatalf("%s: %v", s, err)
		}
		var buf bytes.Buffer
		if err := p.WriteUncompressed(&buf); err != nil {
			f.Fatal(err)
		}
		f.Add(buf.Bytes())
	}
	var buf bytes.Buffer
	p := testProfile()
	p.Mapping[1].File = "/lib/gone"
	if err := p.WriteUncompressed(&buf); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.Bytes())
	f.Fuzz(func(t *testing.T, data []byte) {
		// The encoded path: no panic, and what profile.ParseData accepts
		// gives what Symbolize gives.
		checkSameAsParsed(t, data, hashSymbolizer{})
		p, err := profile.ParseData(data)
		if err != nil {
			return
		}
		rep, err := Symbolize(context.Background(), p, hashSymbolizer{}, &Options{Workers: 2})
		if err != nil {
			t.Fatal(err)
		}
		if err := p.CheckValid(); err != nil {
			t.Fatalf("invalid after symbolizing: %v", err)
		}
		var out bytes.Buffer
		if err := p.WriteUncompressed(&out); err != nil {
			t.Fatal(err)
		}
		q, err := profile.ParseData(out.Bytes())
		if err != nil {
			t.Fatalf("the symbolized profile does not parse: %v", err)
		}
		lines := 0
		for _, l := range q.Location {
			lines += len(l.Line)
		}
		if lines == 0 && rep.Locations > 0 {
			t.Errorf("%d locations symbolized, none with lines after parsing", rep.Locations)
		}
	})
}
