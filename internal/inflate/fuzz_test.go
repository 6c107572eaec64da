package inflate

import (
	"math/rand/v2"
	"testing"
)

// FuzzInflate decodes arbitrary bytes as raw DEFLATE and as zlib, with
// DecodeTo and with Read, and requires compress/flate's and
// compress/zlib's outcome: the same output on success, the same
// success or failure, and agreeing output up to the point of failure.
func FuzzInflate(f *testing.F) {
	// Small seeds: the fuzzer minimizes every new input it finds, at a
	// cost quadratic in its length, and runs nothing new meanwhile; even
	// 1.5 KiB inputs held it to a few dozen executions a minute. Streams
	// cut short are seeds too (the decoders must agree on the error).
	for _, z := range pyStreams(f) {
		f.Add(z[:min(len(z), 256)])
	}
	r := rand.New(rand.NewPCG(17, 18))
	for _, level := range []int{-2, 0, 1, 6, 9} {
		for kind := range 4 {
			if z := compressZlib(f, genData(r, kind, 300), level); len(z) <= 400 {
				f.Add(z)
			}
		}
	}
	f.Add([]byte{0x78, 0x9c, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01})
	f.Add(fixedLiteralAndRun(258))
	f.Fuzz(func(t *testing.T, src []byte) {
		want, werr := refRaw(src)
		got, gerr := ourRaw(src)
		same(t, "raw", want, werr, got, gerr)

		want, werr = refZlib(src)
		got, gerr = ourZlib(src)
		same(t, "zlib", want, werr, got, gerr)
		got, gerr = ourZlibRead(src, 1, 100, 5000)
		same(t, "zlib read", want, werr, got, gerr)
	})
}
