package inline

import (
	"slices"
	"testing"

	"github.com/symbolize-go/symbolize/internal/dwinfo"
	"github.com/symbolize-go/symbolize/internal/dwinfo/dwinfotest"
)

// seedUnits adds, from each fixture, the smallest unit that holds a
// subroutine with code, with the pieces of the sections its forms may need:
// its abbreviation table and the first contribution to .debug_str_offsets,
// .debug_addr and .debug_rnglists, each at most 1 KiB (the fuzzer's
// minimization is quadratic in each argument's length; whole sections
// held it to a few thousand executions a minute).
func seedUnits(f *testing.F) {
	const max = 1 << 10
	seen := map[string]bool{}
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
		if best < 0 || hs[best].End-hs[best].Offset > max {
			continue
		}
		h := hs[best]
		s := &o.secs
		abbrev := s.Abbrev[h.AbbrevOffset:]
		abbrev = abbrev[:dwinfotest.AbbrevTableEnd(abbrev)]
		aux := s.Ranges[:min(len(s.Ranges), max)]
		if h.Version >= 5 {
			aux = dwinfotest.FirstContribution(s.Rnglists, s.BigEndian)
		}
		strOff := dwinfotest.FirstContribution(s.StrOffsets, s.BigEndian)
		addr := dwinfotest.FirstContribution(s.Addr, s.BigEndian)
		info := s.Info[h.Offset:h.End]
		if len(abbrev) > max || len(aux) > max || len(strOff) > max || len(addr) > max || seen[string(info)] {
			continue
		}
		seen[string(info)] = true
		f.Add(info, abbrev, s.Str[:min(len(s.Str), max)], strOff, addr, aux, uint64(0))
	}
}

// FuzzChain builds the Index of every unit of arbitrary .debug_info (DIE
// walk, address map, reference chains), whole and lazy (whose scan by code
// sets must find what the scan by tags finds), and looks up the
// start of every span and a fuzzed PC. aux serves as both .debug_ranges and
// .debug_rnglists. Each Index is built again with one Strings for all the
// input's units (Options.Strings), whose chains must be the same.
func FuzzChain(f *testing.F) {
	info, abbrev := unitBytes(cu(&tdie{tag: dwinfo.TagSubprogram, attrs: pcRange(0x10, 0x20), kids: []*tdie{
		{tag: dwinfo.TagInlinedSubroutine, attrs: pcRange(0x12, 0x14)}}}))
	f.Add(info, abbrev, []byte(nil), []byte(nil), []byte(nil), []byte(nil), uint64(0x13))
	seedUnits(f)
	f.Fuzz(func(t *testing.T, info, abbrev, str, strOff, addr, aux []byte, pc uint64) {
		d := dwinfo.New(dwinfo.Sections{Info: info, Abbrev: abbrev, Str: str, StrOffsets: strOff, Addr: addr, Ranges: aux, Rnglists: aux}, nil)
		ur := d.Units()
		var frames, again []Frame
		strs := new(Strings)
		// same requires the chains at pc of a and b to be equal; frames
		// is then a's.
		same := func(what string, a, b *Index, pc uint64) {
			frames, again = a.AppendChain(frames[:0], pc), b.AppendChain(again[:0], pc)
			if !slices.Equal(frames, again) {
				t.Fatalf("%s at %#x: %+v without Strings, %+v with", what, pc, frames, again)
			}
		}
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
			ixS, _ := Build(d, u, nil, &Options{Strings: strs})
			same("whole", ix, ixS, pc)
			var hint Hint
			for i, lo := range ix.spanLo() {
				if i == 64 {
					break
				}
				same("whole", ix, ixS, lo)
				// From a Hint, as Batch walks ascending addresses.
				if again, _, _ = ix.AppendChainFrom(again[:0], lo, 0, &hint); !slices.Equal(frames, again) {
					t.Fatalf("at %#x: %+v from a Hint, %+v without", lo, again, frames)
				}
				if len(frames) > ix.nodeCount() {
					t.Fatalf("chain of %d frames from %d nodes", len(frames), ix.nodeCount())
				}
			}
			// The lazy Index on the same unit: at the same PCs, reading
			// the trees they land in, and at every function's start.
			lz, _ := Build(d, u, nil, &Options{Lazy: true, LazyMinSize: 1, Warn: func(error) {}})
			lzS, _ := Build(d, u, nil, &Options{Lazy: true, LazyMinSize: 1, Warn: func(error) {}, Strings: strs})
			// One that describes every node of a tree as it reads it:
			// lz, which describes a node when a lookup first returns it,
			// must answer as it does. lz is asked for the innermost
			// frame first, which names that node alone.
			deferNames = false
			lzE, _ := Build(d, u, nil, &Options{Lazy: true, LazyMinSize: 1, Warn: func(error) {}})
			deferNames = true
			var eager []Frame
			both := func(pc uint64) {
				inner, _, _ := lz.AppendChainRange(nil, pc, 1)
				same("lazy", lz, lzS, pc)
				eager = lzE.AppendChain(eager[:0], pc)
				if !slices.Equal(frames, eager) || len(inner) > 0 && inner[0] != frames[0] {
					t.Fatalf("lazy at %#x: %+v (innermost %+v), %+v describing every node", pc, frames, inner, eager)
				}
			}
			scanBoth(t, d, u, "fuzz")
			both(pc)
			lz.Subroutine(pc)
			for i, lo := range ix.spanLo() {
				if i == 64 {
					break
				}
				both(lo)
			}
			if lz.lz != nil {
				for i, lo := range lz.lz.topLo {
					if i == 64 {
						break
					}
					both(lo)
				}
			}
			passedScan(t, info, abbrev, str, strOff, addr, aux, h, pc)
		}
	})
}

// passedScan checks Options.Passed on the unit of h (passedBuild) over a
// copy of info, with a 16-byte step, and that the Index answers as the
// same Build without Passed (a fresh one, asked the same addresses in the
// same order: a lazy Index's answers at other functions' PCs may change
// once a tree whose ranges leave its function's has been read, see
// lazy.go), at pc and at the functions' starts.
func passedScan(t *testing.T, info, abbrev, str, strOff, addr, aux []byte, h dwinfo.Header, pc uint64) {
	defer func(s uint64) { passedStep = s }(passedStep)
	passedStep = 16
	load := func(info []byte) (*dwinfo.Data, *dwinfo.Unit) {
		d := dwinfo.New(dwinfo.Sections{Info: info, Abbrev: abbrev, Str: str, StrOffsets: strOff, Addr: addr, Ranges: aux, Rnglists: aux}, nil)
		u, err := d.LoadUnit(h)
		if err != nil {
			t.Fatalf("unit %#x loads from a copy of .debug_info with %v", h.Offset, err)
		}
		return d, u
	}
	d, u := load(info)
	lz, _ := Build(d, u, nil, &Options{Lazy: true, LazyMinSize: 1, Warn: func(error) {}})
	cp := slices.Clone(info)
	d, u = load(cp)
	ix, _ := passedBuild(t, d, u, cp, info, nil)
	var a, b []Frame
	pcs := []uint64{pc}
	if lz.lz != nil {
		for i, lo := range lz.lz.topLo {
			if i == 64 {
				break
			}
			pcs = append(pcs, lo)
		}
	}
	for _, pc := range pcs {
		a, b = lz.AppendChain(a[:0], pc), ix.AppendChain(b[:0], pc)
		if !slices.Equal(a, b) {
			t.Fatalf("unit %#x at %#x: %+v with Passed overwriting what it is handed, %+v without", h.Offset, pc, b, a)
		}
	}
}
