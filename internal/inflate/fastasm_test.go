package inflate

import (
	"fmt"
	"math/rand/v2"
	"os"
	"testing"
)

// lockstep decodes src (zlib when zl) with two Decoders, one taking the
// assembly fast loop and one fastGo, DecodeTo into the same buffer sizes
// step bytes at a time, and fails at the first call after which their
// counts, errors, output or state differ. It returns the output.
func lockstep(t *testing.T, name string, src []byte, zl bool, step int) []byte {
	t.Helper()
	open := func() *Decoder {
		if !zl {
			return NewRaw(src)
		}
		d, err := NewZlib(src)
		if err != nil {
			return nil
		}
		return d
	}
	a, g := open(), open()
	if a == nil {
		return nil
	}
	g.goLoop = true
	var outA, outG []byte
	for call := 0; ; call++ {
		outA = append(outA, make([]byte, step)...)
		outG = append(outG, make([]byte, step)...)
		o := len(outA) - step
		ma, ea := a.DecodeTo(outA, o)
		mg, eg := g.DecodeTo(outG, o)
		outA, outG = outA[:o+ma], outG[:o+mg]
		if ma != mg || fmt.Sprint(ea) != fmt.Sprint(eg) {
			t.Fatalf("%s, step %d, call %d: assembly %d, %v; Go %d, %v", name, step, call, ma, ea, mg, eg)
		}
		if i := firstDiff(outA, outG); i < len(outA) {
			t.Fatalf("%s, step %d, call %d: output differs at %d", name, step, call, i)
		}
		if a.pos != g.pos || a.bits != g.bits || a.nbits != g.nbits || a.state != g.state || a.total != g.total {
			t.Fatalf("%s, step %d, call %d: assembly pos %d bits %#x nbits %d state %d total %d; Go %d %#x %d %d %d",
				name, step, call, a.pos, a.bits, a.nbits, a.state, a.total, g.pos, g.bits, g.nbits, g.state, g.total)
		}
		if ea != nil || ma == 0 {
			return outA
		}
	}
}

// TestFastAsm requires the assembly fast loop to leave every Decoder as
// fastGo does, call by call: on streams of every block kind and match
// shape (all distances below 8 among them), on a Go binary's sections
// when there, and on the same streams damaged, where the loops must fail
// at the same point with the same error. It skips where there is no
// assembly loop (not amd64, no BMI2, or the purego tag).
func TestFastAsm(t *testing.T) {
	if !useAsm {
		t.Skip("fast runs fastGo here")
	}
	t.Parallel()
	type stream struct {
		name string
		z    []byte
		zl   bool
	}
	var streams []stream
	for name, z := range pyStreams(t) {
		streams = append(streams, stream{name, z, true})
	}
	r := rand.New(rand.NewPCG(3, 4))
	for kind := range 4 {
		data := genData(r, kind, 200<<10)
		for _, level := range []int{-2, 1, 6, 9} {
			streams = append(streams, stream{fmt.Sprintf("kind%d/level%d", kind, level), compressRaw(t, data, level), false})
		}
	}
	// Every period below 8, repeated.
	var periods []byte
	for d := 1; d < 8; d++ {
		for i := range 2000 {
			periods = append(periods, byte(d*10+i%d))
		}
	}
	streams = append(streams, stream{"periods", compressZlib(t, periods, 9), true})
	if testing.Short() || raceEnabled {
		streams = streams[:len(streams)/2]
	} else if _, err := os.Stat(goBinary); err == nil {
		for name, z := range goSections(t) {
			if len(z) > 4096 {
				streams = append(streams, stream{"go" + name, z, true})
			}
		}
	}
	for _, s := range streams {
		out := lockstep(t, s.name, s.z, s.zl, 1<<20)
		if len(out) < 1000 {
			t.Fatalf("%s: %d bytes: too short to reach the fast loop", s.name, len(out))
		}
		lockstep(t, s.name, s.z, s.zl, 3000)
		// Damaged: bits flipped past the header, the stream cut short.
		for k := range 8 {
			bad := append([]byte(nil), s.z...)
			for range 1 + k%3 {
				i := 2 + r.IntN(len(bad)-2)
				bad[i] ^= 1 << r.IntN(8)
			}
			lockstep(t, fmt.Sprintf("%s/flipped%d", s.name, k), bad, s.zl, 1<<20)
		}
		lockstep(t, s.name+"/cut", s.z[:len(s.z)*2/3], s.zl, 1<<20)
	}
}
