package inflate

import (
	"bytes"
	"compress/flate"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/symbolize-go/symbolize/internal/mmap"
)

// outcome is what one DecodeTo(out, 0) or decodeParallel(out, ...) call
// did, and the DecodeTo(out, n) after it.
type outcome struct {
	n, n2      int
	err, err2  error
	out        []byte
	cps        []Checkpoint
	total, pos int64
}

func decodeOnce(src []byte, zl bool, size int, every int64, run func(d *Decoder, out []byte) (int, error)) outcome {
	var d *Decoder
	if zl {
		var err error
		if d, err = NewZlib(src); err != nil {
			return outcome{err: err}
		}
	} else {
		d = NewRaw(src)
	}
	if every > 0 {
		d.SetCheckpoints(every)
	}
	out := make([]byte, size)
	var o outcome
	o.n, o.err = run(d, out)
	o.out = out[:o.n]
	if o.err == nil {
		o.n2, o.err2 = d.DecodeTo(out, o.n)
	}
	o.cps = d.Checkpoints()
	o.total, o.pos = d.total, d.bitPos()
	return o
}

func errString(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}

// checkParallel requires decodeParallel to do exactly what DecodeTo
// does on src with an output buffer of size bytes: the same count, bytes,
// error, checkpoints and state after.
func checkParallel(t testing.TB, name string, src []byte, zl bool, size, workers, partSize int, every int64) {
	t.Helper()
	want := decodeOnce(src, zl, size, every, func(d *Decoder, out []byte) (int, error) { return d.DecodeTo(out, 0) })
	got := decodeOnce(src, zl, size, every, func(d *Decoder, out []byte) (int, error) { return d.decodeParallel(out, workers, partSize) })
	if got.n != want.n || errString(got.err) != errString(want.err) || got.n2 != want.n2 || errString(got.err2) != errString(want.err2) {
		t.Fatalf("%s (workers %d, parts of %d): parallel %d, %v then %d, %v; serial %d, %v then %d, %v", name, workers, partSize,
			got.n, got.err, got.n2, got.err2, want.n, want.err, want.n2, want.err2)
	}
	if !bytes.Equal(got.out, want.out) {
		t.Fatalf("%s (workers %d, parts of %d): output differs at %d of %d", name, workers, partSize, firstDiff(got.out, want.out), want.n)
	}
	if got.total != want.total || got.pos != want.pos {
		t.Fatalf("%s: parallel ends at output %d, bit %d; serial at %d, bit %d", name, got.total, got.pos, want.total, want.pos)
	}
	if len(got.cps) != len(want.cps) {
		t.Fatalf("%s: %d checkpoints, serial %d", name, len(got.cps), len(want.cps))
	}
	for i := range want.cps {
		g, w := &got.cps[i], &want.cps[i]
		if g.Out != w.Out || g.in != w.in || g.adler != w.adler || g.zlib != w.zlib || !bytes.Equal(g.window, w.window) {
			t.Fatalf("%s: checkpoint %d at %d (bit %d, adler %#x), serial at %d (bit %d, adler %#x)", name, i, g.Out, g.in, g.adler, w.Out, w.in, w.adler)
		}
	}
}

// partSizes are the part sizes the tests split streams into: from a few
// bytes (most parts find no header, or a false one) to many blocks.
var partSizes = []int{7, 64, 1000, 5000, 40000}

func TestParallelRandom(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(21, 22))
	sizes, parts := []int{0, 100, 70000, 400000}, partSizes
	if raceEnabled || testing.Short() {
		sizes, parts = []int{0, 100, 70000}, []int{64, 5000}
	}
	for _, n := range sizes {
		for kind := range 4 {
			data := genData(r, kind, n)
			for _, level := range []int{-2, 0, 1, 6, 9} {
				raw := compressRaw(t, data, level)
				z := compressZlib(t, data, level)
				for _, ps := range parts {
					name := fmt.Sprintf("n%d/kind%d/level%d", n, kind, level)
					checkParallel(t, name+"/raw", raw, false, n, 2, ps, 0)
					checkParallel(t, name+"/zlib", z, true, n, 2+ps%2, ps, 0)
					checkParallel(t, name+"/zlib/checkpoints", z, true, n, 2, ps, 1)
					checkParallel(t, name+"/zlib/short", z, true, n/2, 2, ps, 0)
					checkParallel(t, name+"/zlib/long", z, true, n+100, 2, ps, 0)
				}
			}
		}
	}
}

// mixedBlocks compresses data in pieces with a flush after each, so the
// stream alternates stored, fixed and dynamic blocks (and the empty stored
// blocks of the flushes), and part boundaries fall in each kind.
func mixedBlocks(t testing.TB, r *rand.Rand, data []byte, level int) []byte {
	var b bytes.Buffer
	w, err := flate.NewWriter(&b, level)
	if err != nil {
		t.Fatal(err)
	}
	for len(data) > 0 {
		k := min(len(data), 1+r.IntN(3000))
		if r.IntN(4) == 0 {
			k = min(len(data), 1+r.IntN(30))
		}
		w.Write(data[:k])
		w.Flush()
		data = data[k:]
	}
	w.Close()
	return b.Bytes()
}

// TestParallelBlockKinds decodes streams whose part boundaries fall in
// stored blocks (level 0, and the flushes' empty ones), in fixed-Huffman
// blocks (short flushed pieces) and across back-references that reach
// over a part's start (far repeats).
func TestParallelBlockKinds(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(23, 24))
	random := genData(r, 0, 40000)
	far := append(append(bytes.Clone(random), genData(r, 2, 5000)...), random...)
	far = append(far, far...)
	streams := map[string][]byte{}
	levels, n, parts := []int{0, 1, 6, 9, -2}, 200000, partSizes
	if raceEnabled || testing.Short() {
		levels, n, parts = []int{0, 6}, 50000, []int{64, 5000}
	}
	for _, level := range levels {
		for kind := range 4 {
			data := genData(r, kind, n)
			streams[fmt.Sprintf("mixed/kind%d/level%d", kind, level)] = mixedBlocks(t, r, data, level)
		}
		streams[fmt.Sprintf("far/level%d", level)] = compressRaw(t, far, level)
		streams[fmt.Sprintf("far-mixed/level%d", level)] = mixedBlocks(t, r, far, level)
	}
	var w bitWriter
	for range n / 60 {
		w.put(0, 1) // not final
		w.put(1, 2) // fixed
		for range r.IntN(20) {
			w.code(0x30+int('a'+r.IntN(3)), 8)
		}
		w.code(0, 7) // end of block
	}
	w.put(1, 1)
	w.put(1, 2)
	w.code(0, 7)
	streams["fixed-only"] = w.bytes()
	for name, z := range streams {
		want, err := refRaw(z)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, ps := range parts {
			checkParallel(t, name, z, false, len(want), 2, ps, 0)
			checkParallel(t, name+"/checkpoints", z, false, len(want), 2, ps, 1)
		}
	}
}

// TestParallelFixtures decodes the DWARF sections of the fixtures, and
// the zlib streams in testdata, in parts.
func TestParallelFixtures(t *testing.T) {
	t.Parallel()
	secs := dwarfSections(t)
	names := slices.Sorted(maps.Keys(secs))
	for i, name := range names {
		data := secs[name]
		if len(data) < 20000 || (raceEnabled || testing.Short()) && i%8 != 0 {
			continue
		}
		z := compressZlib(t, data, 6)
		for _, ps := range []int{1000, 20000} {
			checkParallel(t, name, z, true, len(data), 2, ps, 0)
		}
	}
	for name, z := range pyStreams(t) {
		want, err := refZlib(z)
		if err != nil {
			t.Fatal(err)
		}
		for _, ps := range partSizes {
			checkParallel(t, name, z, true, len(want), 2, ps, 0)
			checkParallel(t, name+"/checkpoints", z, true, len(want), 2, ps, 1)
		}
	}
}

// TestParallelCorrupt damages streams and requires the serial decoder's
// outcome to the byte and the message.
func TestParallelCorrupt(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(25, 26))
	var streams [][]byte
	for _, level := range []int{1, 6, 9, -2, 0} {
		streams = append(streams, compressZlib(t, genData(r, 2, 100000), level))
	}
	tries := 100
	if raceEnabled || testing.Short() {
		tries = 15
	}
	for i, z := range streams {
		for range tries {
			c := bytes.Clone(z)
			switch r.IntN(4) {
			case 0:
				c = c[:r.IntN(len(c))]
			case 1:
				c = append(c, byte(r.Uint32()), byte(r.Uint32()))
			default:
				for range 1 + r.IntN(3) {
					c[r.IntN(len(c))] ^= 1 << r.IntN(8)
				}
			}
			ps := partSizes[r.IntN(len(partSizes))]
			checkParallel(t, fmt.Sprintf("stream %d", i), c, true, 100000, 2, ps, 0)
			checkParallel(t, fmt.Sprintf("stream %d raw", i), c[2:], false, 100000, 2, ps, 0)
		}
	}
}

// TestParallelLarge decodes the 143 MB stream of rgwPath with
// DecodeParallel and compares it with DecodeTo's output.
func TestParallelLarge(t *testing.T) {
	z, err := os.ReadFile(rgwPath)
	if err != nil || testing.Short() || raceEnabled {
		t.Skipf("needs %s, and no -short or -race", rgwPath)
	}
	const size = 314596110
	t0 := time.Now()
	checkParallel(t, "rgw", z, true, size, 2, defaultPart, 0)
	t.Logf("%v", time.Since(t0))
	checkParallel(t, "rgw/checkpoints", z, true, size, 2, defaultPart, 4<<20)
}

// TestParallelPlaces checks that a stream of many blocks is decoded
// mostly from speculative parts, so the tests above exercise them.
func TestParallelPlaces(t *testing.T) {
	r := rand.New(rand.NewPCG(27, 28))
	var data []byte
	for _, sec := range dwarfSections(t) {
		data = append(data, sec...)
	}
	data = append(data, genData(r, 2, 2<<20)...)
	z := compressZlib(t, data, 6)
	// How many are placed depends on the scheduling (a worker that never
	// runs leaves every part to the ordered decoder): a few tries.
	placed := int64(0)
	for try := 0; try < 20 && placed < 3; try++ {
		before := partsPlaced.Load()
		checkParallel(t, "dwarf", z, true, len(data), 2, len(z)/8, 0)
		placed = max(placed, partsPlaced.Load()-before)
	}
	if placed < 3 {
		t.Errorf("at most %d of 7 speculative parts placed", placed)
	}
}

// TestParallelProgress: SetProgress's function hears Consumed as the
// ordered decoding passes the parts, never going back, never beyond the
// Consumed of the end, and the decode is DecodeTo's all the same.
func TestParallelProgress(t *testing.T) {
	r := rand.New(rand.NewPCG(29, 30))
	data := genData(r, 2, 4<<20)
	z := compressZlib(t, data, 6)
	want := decodeOnce(z, true, len(data), 0, func(d *Decoder, out []byte) (int, error) { return d.DecodeTo(out, 0) })
	var seen []int
	got := decodeOnce(z, true, len(data), 0, func(d *Decoder, out []byte) (int, error) {
		d.SetProgress(func(n int) { seen = append(seen, n) })
		n, err := d.decodeParallel(out, 2, len(z)/8)
		if c := d.Consumed(); len(seen) > 0 && seen[len(seen)-1] > c {
			t.Errorf("progress heard %d, past the end's Consumed %d", seen[len(seen)-1], c)
		}
		return n, err
	})
	if got.n != want.n || !bytes.Equal(got.out, want.out) || errString(got.err) != errString(want.err) {
		t.Fatalf("with progress: %d bytes, %v; DecodeTo: %d, %v", got.n, got.err, want.n, want.err)
	}
	if len(seen) < 4 {
		t.Fatalf("progress heard %d times over 8 parts: %v", len(seen), seen)
	}
	if !slices.IsSorted(seen) || seen[0] <= 0 {
		t.Errorf("progress went back or heard nothing consumed: %v", seen)
	}
}

// TestParallelNoLostWakeup: a worker that looks at the state, lets go of
// the lock (to find a part's first block) and takes it again must not then
// wait for a change that happened meanwhile: the decode finishing, or a
// part becoming ready. The hook widens that window, so that the other
// worker often finishes the stream inside it; each decode must end within
// a few seconds. (FuzzParallelRoundTrip found the hang about once in 6,000
// runs of one input without the hook.)
func TestParallelNoLostWakeup(t *testing.T) {
	defer testHookWindow.Store(nil)
	hook := func() { time.Sleep(50 * time.Microsecond) }
	testHookWindow.Store(&hook)
	r := rand.New(rand.NewPCG(125, 1))
	data := expand([]byte("0011A\xfdA\xfd000"))
	z := mixedBlocks(t, r, data, 9)
	want := decodeOnce(z, false, len(data), 0, func(d *Decoder, out []byte) (int, error) { return d.DecodeTo(out, 0) })
	for i := range 300 {
		// The decode runs on its own goroutine, so that a hang fails
		// the test instead of timing it out; the outcome is compared here.
		done := make(chan outcome, 1)
		go func() {
			done <- decodeOnce(z, false, len(data), 0, func(d *Decoder, out []byte) (int, error) { return d.decodeParallel(out, 2, 64) })
		}()
		select {
		case got := <-done:
			if got.n != want.n || errString(got.err) != errString(want.err) || !bytes.Equal(got.out, want.out) {
				t.Fatalf("run %d: parallel %d bytes, %v; serial %d, %v (output equal: %v)",
					i, got.n, got.err, want.n, want.err, bytes.Equal(got.out, want.out))
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("run %d: the parallel decode did not end", i)
		}
	}
}

// TestParallelSegmentsOffHeap: where the system maps anonymous memory, the
// speculative parts' buffers (8 MiB each) are outside the Go heap, so that
// the heap does not keep their pages once the decode is over.
func TestParallelSegmentsOffHeap(t *testing.T) {
	if mmap.Anon(1) == nil {
		t.Skip("no anonymous mappings here")
	}
	// DWARF, whose back-references the speculative parts mostly resolve
	// (a part's log of those it cannot is on the heap).
	var data []byte
	for len(data) < 24<<20 {
		for _, sec := range dwarfSections(t) {
			data = append(data, sec...)
		}
	}
	z := compressZlib(t, data, 6)
	checkParallel(t, "dwarf", z, true, len(data), 2, len(z)/6, 0)
	out := make([]byte, len(data))
	for try := 0; try < 20; try++ {
		mapped := segmentsMapped.Load()
		d, err := NewZlib(z)
		if err != nil {
			t.Fatal(err)
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		n, err := d.decodeParallel(out, 2, len(z)/6)
		runtime.ReadMemStats(&after)
		if n != len(data) || (err != nil && err != io.EOF) || !bytes.Equal(out, data) {
			t.Fatalf("decoded %d bytes of %d, %v", n, len(data), err)
		}
		if grew := after.TotalAlloc - before.TotalAlloc; grew >= segSize {
			t.Fatalf("the decode allocated %d bytes on the heap", grew)
		}
		if segmentsMapped.Load() > mapped {
			return
		}
	}
	t.Error("no speculative part took a buffer in 20 decodes")
}
