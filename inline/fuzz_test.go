package inline

import (
	"testing"

	"github.com/symbolize-go/symbolize/internal/dwinfo"
)

// seedUnits adds, from each fixture, the smallest unit that holds a
// subroutine with code, with the sections its forms may need.
func seedUnits(f *testing.F) {
	for _, path := range fixtures(f) {
		o, ok := openObject(f, path)
		if !ok {
			continue
		}
		hs, _ := o.d.Headers()
		best := -1
		for i, h := range hs {
			u, err := o.d.LoadUnit(h)
			if err != nil {
				continue
			}
			ix, _ := Build(o.d, u, nil, nil)
			if ix.Len() > 0 && (best < 0 || hs[i].End-hs[i].Offset < hs[best].End-hs[best].Offset) {
				best = i
			}
		}
		if best < 0 || hs[best].End-hs[best].Offset > 1<<13 {
			continue
		}
		h := hs[best]
		s := &o.secs
		aux := s.Ranges
		if h.Version >= 5 {
			aux = s.Rnglists
		}
		f.Add(s.Info[h.Offset:h.End], s.Abbrev[h.AbbrevOffset:], trim(s.Str), s.StrOffsets, s.Addr, aux, uint64(0))
	}
}

func trim(b []byte) []byte {
	if len(b) > 1<<13 {
		return b[:1<<13]
	}
	return b
}

// FuzzChain builds the Index of every unit of arbitrary .debug_info (DIE
// walk, address map, reference chains) and looks up the start of every
// span and a fuzzed PC. aux serves as both .debug_ranges and
// .debug_rnglists.
func FuzzChain(f *testing.F) {
	info, abbrev := unitBytes(cu(&tdie{tag: dwinfo.TagSubprogram, attrs: pcRange(0x10, 0x20), kids: []*tdie{
		{tag: dwinfo.TagInlinedSubroutine, attrs: pcRange(0x12, 0x14)}}}))
	f.Add(info, abbrev, []byte(nil), []byte(nil), []byte(nil), []byte(nil), uint64(0x13))
	seedUnits(f)
	f.Fuzz(func(t *testing.T, info, abbrev, str, strOff, addr, aux []byte, pc uint64) {
		d := dwinfo.New(dwinfo.Sections{Info: info, Abbrev: abbrev, Str: str, StrOffsets: strOff, Addr: addr, Ranges: aux, Rnglists: aux}, nil)
		ur := d.Units()
		var frames []Frame
		for n := 0; n < 8; n++ {
			var h dwinfo.Header
			if err := ur.Next(&h); err != nil { // io.EOF or a bad header
				return
			}
			u, err := d.LoadUnit(h)
			if err != nil {
				continue
			}
			ix, _ := Build(d, u, nil, nil)
			frames = ix.AppendChain(frames[:0], pc)
			for i, lo := range ix.lo {
				if i == 64 {
					break
				}
				frames = ix.AppendChain(frames[:0], lo)
				if len(frames) > len(ix.nodes) {
					t.Fatalf("chain of %d frames from %d nodes", len(frames), len(ix.nodes))
				}
			}
		}
	})
}
