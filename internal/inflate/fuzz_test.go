package inflate

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"testing"
)

// FuzzInflate decodes arbitrary bytes as raw DEFLATE and as zlib, with
// DecodeTo and with Read, and requires compress/flate's and
// compress/zlib's outcome: the same output on success, the same
// success or failure, and agreeing output up to the point of failure.
// A raw stream resumed from any of its checkpoints must end the same way.
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
		d := NewRaw(src)
		d.SetCheckpoints(0) // every 64 KiB, for streams that inflate that far
		got, gerr := decodeAll(d)
		same(t, "raw", want, werr, got, gerr)
		// Resuming from a checkpoint ends as the whole stream does.
		for i := range d.Checkpoints() {
			c := &d.Checkpoints()[i]
			if c.Out > int64(len(want)) {
				break
			}
			got, gerr := resumeAll(src, c)
			same(t, fmt.Sprintf("raw resumed at %d", c.Out), want[c.Out:], werr, got, gerr)
		}

		want, werr = refZlib(src)
		got, gerr = ourZlib(src)
		same(t, "zlib", want, werr, got, gerr)
		got, gerr = ourZlibRead(src, 1, 100, 5000)
		same(t, "zlib read", want, werr, got, gerr)
	})
}

// FuzzRoundTrip compresses data made from the fuzzer's bytes with
// compress/flate at every level and decodes it, in one DecodeTo into a
// buffer of the exact size and in steps of the given size, the way elfx
// does. Random bytes rarely make a valid stream that runs long enough for
// the fast loop; these always do. It resumes from every checkpoint too.
// expand turns the input into up to
// 256 KiB of literals and back-references of every length and distance.
func FuzzRoundTrip(f *testing.F) {
	f.Add([]byte("DW_TAG_subprogram\x00\x01\x02"), uint8(6), uint16(1000))
	f.Add([]byte{0, 0, 0, 0, 0xff, 0xff, 1, 2, 3, 4, 5, 6, 7, 8, 9}, uint8(1), uint16(7))
	f.Add([]byte("ab\xfe\x01\x00cd\xfe\x20\x80"), uint8(9), uint16(300))
	f.Add([]byte("\xfe\x02\x01\xfe\x07\x01\xfe\x08\x01"), uint8(12), uint16(0))
	f.Fuzz(func(t *testing.T, src []byte, level uint8, step uint16) {
		data := expand(src)
		lv := int(level)%12 - 2 // -2 (Huffman only) to 9
		z := compressZlib(t, data, lv)

		d, err := NewZlib(z)
		if err != nil {
			t.Fatal(err)
		}
		d.SetCheckpoints(0) // every 64 KiB
		out := make([]byte, len(data))
		m, err := d.DecodeTo(out, 0)
		if err == nil {
			var m2 int
			m2, err = d.DecodeTo(out, m)
			m += m2
		}
		if err != io.EOF || m != len(data) || !bytes.Equal(out, data) {
			t.Fatalf("level %d, one call: %d of %d bytes, %v; first difference at %d", lv, m, len(data), err, firstDiff(out[:m], data))
		}

		for i := range d.Checkpoints() {
			c := &d.Checkpoints()[i]
			got, err := resumeAll(z, c)
			if err != nil || !bytes.Equal(got, data[c.Out:]) {
				t.Fatalf("level %d, resumed at %d: %v; first difference at %d", lv, c.Out, err, firstDiff(got, data[c.Out:]))
			}
		}

		n := max(int(step), 1)
		d, _ = NewZlib(z)
		out = make([]byte, 0, len(data))
		for {
			m, err := d.DecodeTo(out[:min(len(out)+n, cap(out))], len(out))
			out = out[:len(out)+m]
			if err == io.EOF {
				break
			}
			if err != nil || m == 0 && len(out) == cap(out) {
				t.Fatalf("level %d, steps of %d: %v after %d bytes", lv, n, err, len(out))
			}
		}
		if !bytes.Equal(out, data) {
			t.Fatalf("level %d, steps of %d: first difference at %d", lv, n, firstDiff(out, data))
		}
	})
}

// expand makes test data from a fuzzer's bytes: 0xfe, a length byte L
// and a distance byte D repeat L*2+3 bytes from D*D+1 bytes back (long
// distances and overlapping runs alike); 0xfd, a count byte C repeats the
// whole output so far C+1 times (cut at 256 KiB); anything else is a
// literal.
func expand(src []byte) []byte {
	const limit = 256 << 10
	var out []byte
	for i := 0; i < len(src) && len(out) < limit; i++ {
		switch c := src[i]; {
		case c == 0xfe && i+2 < len(src):
			l, dist := int(src[i+1])*2+3, int(src[i+2])*int(src[i+2])+1
			i += 2
			if dist > len(out) {
				out = append(out, byte(l), byte(dist))
				continue
			}
			for range l {
				out = append(out, out[len(out)-dist])
			}
		case c == 0xfd && i+1 < len(src):
			k := int(src[i+1]) + 1
			i++
			n := len(out)
			for range k {
				if len(out)+n > limit {
					break
				}
				out = append(out, out[:n]...)
			}
		default:
			out = append(out, c)
		}
	}
	return out[:min(len(out), limit)]
}

// FuzzParallel decodes arbitrary bytes as raw DEFLATE and as zlib with
// decodeParallel, in parts of a size the fuzzer picks, into buffers of
// the stream's size and of half of it, and requires DecodeTo's outcome
// exactly (count, bytes, error, checkpoints; FuzzInflate holds DecodeTo
// to compress/flate's).
func FuzzParallel(f *testing.F) {
	for _, z := range pyStreams(f) {
		f.Add(z[:min(len(z), 512)], uint16(100), uint8(2))
	}
	r := rand.New(rand.NewPCG(19, 20))
	for _, level := range []int{0, 1, 6, 9} {
		for kind := range 4 {
			if z := mixedBlocks(f, r, genData(r, kind, 2000), level); len(z) <= 600 {
				f.Add(z, uint16(len(z)/3), uint8(kind))
			}
		}
	}
	f.Fuzz(func(t *testing.T, src []byte, part uint16, workers uint8) {
		ps := max(int(part), 1)
		w := 2 + int(workers%3)
		for _, zl := range []bool{false, true} {
			var want []byte
			if zl {
				want, _ = refZlib(src)
			} else {
				want, _ = refRaw(src)
			}
			if len(want) > 1<<20 {
				return
			}
			checkParallel(t, "whole", src, zl, len(want), w, ps, 0)
			checkParallel(t, "checkpoints", src, zl, len(want)+10, w, ps, 1)
			checkParallel(t, "half", src, zl, len(want)/2, w, ps, 0)
		}
	})
}

// FuzzParallelRoundTrip compresses data expanded from the fuzzer's bytes
// (see expand) in flushed pieces, so that stored, fixed and dynamic
// blocks alternate, and decodes it with decodeParallel in parts of the
// size the fuzzer picks: valid streams that run long enough for the
// speculative parts, their logs of bytes not known and the fallback.
func FuzzParallelRoundTrip(f *testing.F) {
	f.Add([]byte("DW_TAG_subprogram\x00\x01\x02\xfd\x40"), uint8(6), uint16(1000), int64(1))
	f.Add([]byte("ab\xfe\x01\x00cd\xfe\x20\x80\xfd\xff"), uint8(9), uint16(300), int64(2))
	f.Add([]byte("\x00\x01\x02\xfe\xff\xb5\xfd\x20xyz\xfe\x80\xb4\xfd\x10"), uint8(1), uint16(64), int64(3))
	f.Fuzz(func(t *testing.T, src []byte, level uint8, part uint16, seed int64) {
		data := expand(src)
		lv := int(level)%11 - 1 // -1 to 9
		r := rand.New(rand.NewPCG(uint64(seed), 1))
		z := mixedBlocks(t, r, data, lv)
		ps := max(int(part), 1)
		checkParallel(t, "raw", z, false, len(data), 2, ps, 0)
		checkParallel(t, "raw/checkpoints", z, false, len(data), 2, ps, 1)
		zz := compressZlib(t, data, lv)
		checkParallel(t, "zlib", zz, true, len(data), 2, ps, 0)
	})
}
