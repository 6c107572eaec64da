package inflate

import (
	"bytes"
	"compress/flate"
	"compress/zlib"
	"debug/elf"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// refRaw and refZlib decode with the standard library, the oracle.
func refRaw(src []byte) ([]byte, error) {
	return io.ReadAll(flate.NewReader(bytes.NewReader(src)))
}

func refZlib(src []byte) ([]byte, error) {
	r, err := zlib.NewReader(bytes.NewReader(src))
	if err != nil {
		return nil, err
	}
	return io.ReadAll(r)
}

// decodeAll decodes with DecodeTo into one growing buffer, the way elfx
// does, starting small so the careful loop and resumption get exercised.
func decodeAll(d *Decoder) ([]byte, error) {
	out := make([]byte, 0, 100)
	for range 1 << 30 {
		if len(out) == cap(out) {
			out = append(out, 0)[:len(out)]
		}
		m, err := d.DecodeTo(out[:cap(out)], len(out))
		out = out[:len(out)+m]
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
	}
	panic("no progress")
}

func ourRaw(src []byte) ([]byte, error) { return decodeAll(NewRaw(src)) }

func ourZlib(src []byte) ([]byte, error) {
	d, err := NewZlib(src)
	if err != nil {
		return nil, err
	}
	return decodeAll(d)
}

// ourZlibRead decodes through Read with reads of the given sizes, in turn.
func ourZlibRead(src []byte, sizes ...int) ([]byte, error) {
	d, err := NewZlib(src)
	if err != nil {
		return nil, err
	}
	var out []byte
	p := make([]byte, 0, slices.Max(sizes)) // not more: FuzzInflate calls this on every input
	for i := 0; ; i++ {
		n := sizes[i%len(sizes)]
		if cap(p) < n {
			p = make([]byte, n)
		}
		m, err := d.Read(p[:n])
		out = append(out, p[:m]...)
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
	}
}

// same checks our result against the oracle's: identical output when
// both succeed, and the same outcome. On failure the outputs must agree
// on their common prefix.
func same(t *testing.T, name string, want []byte, werr error, got []byte, gerr error) {
	t.Helper()
	if (werr == nil) != (gerr == nil) {
		t.Fatalf("%s: stdlib error %v, ours %v", name, werr, gerr)
	}
	if werr == nil {
		if !bytes.Equal(got, want) {
			t.Fatalf("%s: output differs: %d bytes, want %d (first difference at %d)", name, len(got), len(want), firstDiff(got, want))
		}
		return
	}
	n := min(len(got), len(want))
	if !bytes.Equal(got[:n], want[:n]) {
		t.Fatalf("%s: output before the error differs at %d", name, firstDiff(got, want))
	}
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

func compressRaw(tb testing.TB, data []byte, level int) []byte {
	var b bytes.Buffer
	w, err := flate.NewWriter(&b, level)
	if err != nil {
		tb.Fatal(err)
	}
	w.Write(data)
	w.Close()
	return b.Bytes()
}

func compressZlib(tb testing.TB, data []byte, level int) []byte {
	var b bytes.Buffer
	w, err := zlib.NewWriterLevel(&b, level)
	if err != nil {
		tb.Fatal(err)
	}
	w.Write(data)
	w.Close()
	return b.Bytes()
}

// checkBoth compares raw and zlib decoding of data compressed at level.
func checkBoth(t *testing.T, name string, data []byte, level int) {
	t.Helper()
	raw := compressRaw(t, data, level)
	got, err := ourRaw(raw)
	same(t, name+"/raw", data, nil, got, err)
	z := compressZlib(t, data, level)
	got, err = ourZlib(z)
	same(t, name+"/zlib", data, nil, got, err)
}

// genData returns n bytes of one of several kinds.
func genData(r *rand.Rand, kind, n int) []byte {
	b := make([]byte, n)
	switch kind {
	case 0: // incompressible
		for i := range b {
			b[i] = byte(r.Uint32())
		}
	case 1: // small alphabet, skewed
		for i := range b {
			b[i] = "aaaabbbcde\x00\x00\x00\x01"[r.IntN(14)]
		}
	case 2: // words with repeats at all distances
		words := []string{"DW_TAG_subprogram", "\x00\x00\x00\x00", "main", "symbolize", "\x01\x02", "x", "runtime.", ".debug_info"}
		i := 0
		for i < n {
			if i > 300 && r.IntN(3) == 0 {
				d := 1 + r.IntN(min(i, 40000))
				l := min(3+r.IntN(300), n-i)
				for k := range l {
					b[i+k] = b[i+k-d]
				}
				i += l
				continue
			}
			i += copy(b[i:], words[r.IntN(len(words))])
		}
	case 3: // runs
		for i := 0; i < n; {
			l := min(1+r.IntN(600), n-i)
			c := byte(r.Uint32())
			for k := range l {
				b[i+k] = c
			}
			i += l
		}
	}
	return b
}

func TestRandom(t *testing.T) {
	t.Parallel() // compressing the inputs (under -race, in CI) is the slow part
	r := rand.New(rand.NewPCG(1, 2))
	sizes := []int{0, 1, 2, 7, 100, 258, 1000, 4096, 33000, 100000, 700000}
	if !testing.Short() {
		sizes = append(sizes, 3<<20)
	}
	for _, n := range sizes {
		for kind := range 4 {
			data := genData(r, kind, n)
			for level := -2; level <= 9; level++ {
				if n > 1<<20 && level != 1 && level != 6 && level != -2 {
					continue
				}
				checkBoth(t, fmt.Sprintf("n%d/kind%d/level%d", n, kind, level), data, level)
			}
		}
	}
}

func TestRepetitive(t *testing.T) {
	t.Parallel() // compressing the inputs (under -race, in CI) is the slow part
	cases := map[string][]byte{
		"zeros":    make([]byte, 1<<20),
		"ab":       bytes.Repeat([]byte("ab"), 300000),
		"period3":  bytes.Repeat([]byte("abc"), 100001),
		"period7":  bytes.Repeat([]byte("abcdefg"), 50000),
		"period8":  bytes.Repeat([]byte("abcdefgh"), 50000),
		"period9":  bytes.Repeat([]byte("abcdefghi"), 50000),
		"period33": bytes.Repeat([]byte("0123456789abcdefghijklmnopqrstuvw"), 20000),
		"far":      append(append(genData(rand.New(rand.NewPCG(3, 4)), 0, 32768), make([]byte, 1000)...), genData(rand.New(rand.NewPCG(3, 4)), 0, 32768)...),
	}
	for name, data := range cases {
		for _, level := range []int{0, 1, 6, 9, -2} {
			checkBoth(t, fmt.Sprintf("%s/level%d", name, level), data, level)
		}
	}
}

// TestHandMade decodes streams built bit by bit for corner cases an
// encoder rarely produces.
func TestHandMade(t *testing.T) {
	cases := []struct {
		name string
		raw  []byte
	}{
		{"empty stored final", []byte{0x01, 0x00, 0x00, 0xff, 0xff}},
		{"empty fixed final", []byte{0x03, 0x00}},
		{"stored bad nlen", []byte{0x01, 0x01, 0x00, 0xff, 0xff, 'a'}},
		{"stored truncated", []byte{0x01, 0x05, 0x00, 0xfa, 0xff, 'a'}},
		{"block type 3", []byte{0x07}},
		{"fixed a + dist 1 len 258", fixedLiteralAndRun(258)},
		{"fixed dist too far", []byte{0x03, 0x02}},
		{"nothing", nil},
		{"non-final then nothing", []byte{0x02, 0x00}},
	}
	for _, c := range cases {
		want, werr := refRaw(c.raw)
		got, gerr := ourRaw(c.raw)
		same(t, c.name, want, werr, got, gerr)
	}
}

// fixedLiteralAndRun is a fixed-Huffman block: literal 'a', then a match
// of length n (3..258) at distance 1, then end of block.
func fixedLiteralAndRun(n int) []byte {
	var w bitWriter
	w.put(1, 1) // final
	w.put(1, 2) // fixed
	w.code(0x30+'a', 8)
	sym, extra, nextra := lengthCode(n)
	if sym < 280 {
		w.code(sym-256, 7)
	} else {
		w.code(0xc0+sym-280, 8)
	}
	w.put(extra, nextra)
	w.code(0, 5) // distance code 0: distance 1
	w.code(0, 7) // end of block
	return w.bytes()
}

func lengthCode(n int) (sym, extra, nextra int) {
	if n == 258 {
		return 285, 0, 0
	}
	base := 3
	for s := 257; s < 285; s++ {
		e := 0
		if s >= 265 {
			e = (s - 261) / 4
		}
		if n < base+1<<e {
			return s, n - base, e
		}
		base += 1 << e
	}
	panic("length")
}

type bitWriter struct {
	b     []byte
	acc   uint64
	nbits uint
}

func (w *bitWriter) put(v, n int) {
	w.acc |= uint64(v) << w.nbits
	w.nbits += uint(n)
	for w.nbits >= 8 {
		w.b = append(w.b, byte(w.acc))
		w.acc >>= 8
		w.nbits -= 8
	}
}

// code writes a Huffman codeword, most significant bit first.
func (w *bitWriter) code(c, n int) {
	for i := n - 1; i >= 0; i-- {
		w.put(c>>i&1, 1)
	}
}

func (w *bitWriter) bytes() []byte {
	if w.nbits > 0 {
		return append(w.b, byte(w.acc))
	}
	return w.b
}

// dwarfSections returns the .debug_* sections of the ELF fixtures.
func dwarfSections(t testing.TB) map[string][]byte {
	files, _ := filepath.Glob("../../testdata/elf/*")
	secs := map[string][]byte{}
	for _, name := range files {
		f, err := elf.Open(name)
		if err != nil {
			continue
		}
		for _, s := range f.Sections {
			if !strings.HasPrefix(s.Name, ".debug_") || s.Type == elf.SHT_NOBITS {
				continue
			}
			if b, err := s.Data(); err == nil && len(b) > 0 {
				secs[filepath.Base(name)+"/"+s.Name] = b
			}
		}
		f.Close()
	}
	if len(secs) == 0 {
		t.Fatal("no DWARF sections in ../../testdata/elf")
	}
	return secs
}

func TestDWARFFixtures(t *testing.T) {
	t.Parallel() // compressing the inputs (under -race, in CI) is the slow part
	for name, data := range dwarfSections(t) {
		for _, level := range []int{1, 6, 9} {
			checkBoth(t, fmt.Sprintf("%s/level%d", name, level), data, level)
		}
	}
}

// goBinary is cmd/go as bench/run.sh builds it.
const goBinary = "/tmp/symbolize-bench/go"

// goSections returns the zlib streams of the compressed .debug_* sections
// of a Go binary, if it is there (else it skips the test).
func goSections(tb testing.TB) map[string][]byte {
	const path = goBinary
	f, err := elf.Open(path)
	if err != nil {
		tb.Skipf("%s: %v", path, err)
	}
	defer f.Close()
	raw, err := os.ReadFile(path)
	if err != nil {
		tb.Skip(err)
	}
	secs := map[string][]byte{}
	for _, s := range f.Sections {
		if s.Flags&elf.SHF_COMPRESSED == 0 || s.FileSize < 24 || s.Offset+s.FileSize > uint64(len(raw)) {
			continue
		}
		secs[s.Name] = raw[s.Offset+24 : s.Offset+s.FileSize]
	}
	if len(secs) == 0 {
		tb.Skipf("%s has no compressed sections", path)
	}
	return secs
}

func TestGoBinary(t *testing.T) {
	for name, z := range goSections(t) {
		want, werr := refZlib(z)
		got, gerr := ourZlib(z)
		same(t, name, want, werr, got, gerr)
	}
}

// TestLargeStream decodes the 143 MB stream BenchmarkInflate reads (see
// rgwPath; skipped when it is missing, with -short and under the race
// detector, which makes it take over a minute) the way elfx does,
// in 4 MiB steps into one buffer of the declared size, and compares every
// byte with compress/zlib's.
func TestLargeStream(t *testing.T) {
	z, err := os.ReadFile(rgwPath)
	if err != nil || testing.Short() || raceEnabled {
		t.Skipf("needs %s, and no -short or -race", rgwPath)
	}
	d, err := NewZlib(z)
	if err != nil {
		t.Fatal(err)
	}
	const size, step = 314596110, 4 << 20
	d.SetCheckpoints(step)
	out := make([]byte, 0, size)
	for err == nil {
		var m int
		m, err = d.DecodeTo(out[:min(len(out)+step, cap(out))], len(out))
		out = out[:len(out)+m]
		if m == 0 && err == nil {
			t.Fatalf("no progress at %d", len(out))
		}
	}
	if err != io.EOF || len(out) != size {
		t.Fatalf("%d bytes, %v", len(out), err)
	}
	r, err := zlib.NewReader(bytes.NewReader(z))
	if err != nil {
		t.Fatal(err)
	}
	want := make([]byte, step)
	for off := 0; off < size; off += step {
		n, err := io.ReadFull(r, want[:min(step, size-off)])
		if err != nil {
			t.Fatal(err)
		}
		if i := firstDiff(out[off:off+n], want[:n]); i < n {
			t.Fatalf("first difference at %d", off+i)
		}
	}
	// Resume from the middle checkpoint.
	cps := d.Checkpoints()
	if len(cps) < size/step-1 {
		t.Fatalf("%d checkpoints", len(cps))
	}
	c := &cps[len(cps)/2]
	got, err := resumeAll(z, c)
	if err != nil || !bytes.Equal(got, out[c.Out:]) {
		t.Fatalf("resumed at %d: %d bytes, %v, first difference at %d", c.Out, len(got), err, firstDiff(got, out[c.Out:]))
	}
}

func pyStreams(t testing.TB) map[string][]byte {
	files, _ := filepath.Glob("testdata/py-*.zlib")
	if len(files) == 0 {
		t.Fatal("no testdata/py-*.zlib")
	}
	m := map[string][]byte{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		m[filepath.Base(f)] = b
	}
	return m
}

func TestOtherEncoder(t *testing.T) {
	for name, z := range pyStreams(t) {
		want, werr := refZlib(z)
		if werr != nil {
			t.Fatalf("%s: %v", name, werr)
		}
		got, gerr := ourZlib(z)
		same(t, name, want, werr, got, gerr)
		got, gerr = ourZlibRead(z, 1, 3, 1000, 70000)
		same(t, name+"/read", want, werr, got, gerr)
	}
}

// TestCorrupt damages valid streams (bit flips, truncation, garbage
// appended) and requires the stdlib's outcome.
func TestCorrupt(t *testing.T) {
	t.Parallel() // compressing the inputs (under -race, in CI) is the slow part
	r := rand.New(rand.NewPCG(5, 6))
	var streams [][]byte
	for _, z := range pyStreams(t) {
		streams = append(streams, z)
	}
	for _, level := range []int{1, 6, 9, -2, 0} {
		streams = append(streams, compressZlib(t, genData(r, 2, 20000), level))
	}
	for i, z := range streams {
		for range 300 {
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
			want, werr := refZlib(c)
			got, gerr := ourZlib(c)
			same(t, fmt.Sprintf("stream %d", i), want, werr, got, gerr)
			if len(c) > 2 {
				want, werr = refRaw(c[2:])
				got, gerr = ourRaw(c[2:])
				same(t, fmt.Sprintf("stream %d raw", i), want, werr, got, gerr)
			}
		}
	}
}

func TestErrors(t *testing.T) {
	data := genData(rand.New(rand.NewPCG(7, 8)), 2, 50000)
	z := compressZlib(t, data, 6)
	bad := bytes.Clone(z)
	bad[len(bad)-1]++
	if _, err := ourZlib(bad); !errors.Is(err, ErrChecksum) {
		t.Errorf("bad checksum: %v, want ErrChecksum", err)
	}
	if _, err := ourZlib(z[:len(z)-2]); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("short trailer: %v, want io.ErrUnexpectedEOF", err)
	}
	for _, h := range [][]byte{{0x78}, {0x79, 0x9c}, {0x88, 0x98}, {0x78, 0x9d}, {0x78, 0xbb}} {
		if _, err := NewZlib(h); err == nil {
			t.Errorf("header % x accepted", h)
		}
		if _, err := zlib.NewReader(bytes.NewReader(h)); err == nil {
			t.Errorf("header % x: stdlib accepts it", h)
		}
	}
	// A Decoder whose caller drops the window gets an error, not a panic.
	d, _ := NewZlib(z)
	out := make([]byte, 40000)
	if _, err := d.DecodeTo(out, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := d.DecodeTo(out, 10); err == nil {
		t.Error("DecodeTo without the window: no error")
	}
}

// TestNoRoom checks DecodeTo with n == len(out) at and before the end.
func TestNoRoom(t *testing.T) {
	data := genData(rand.New(rand.NewPCG(9, 10)), 2, 3000)
	z := compressZlib(t, data, 6)
	out := make([]byte, len(data))
	d, _ := NewZlib(z)
	d, _ = NewZlib(z)
	if m, err := d.DecodeTo(out[:0], 0); m != 0 || err != nil {
		t.Fatalf("no room at the start: %d, %v", m, err)
	}
	if m, err := d.DecodeTo(out, 0); m != len(data) || (err != nil && err != io.EOF) {
		t.Fatalf("whole: %d, %v", m, err)
	}
	if m, err := d.DecodeTo(out, len(out)); m != 0 || err != io.EOF {
		t.Fatalf("no room at the end: %d, %v; want 0, EOF", m, err)
	}
	if !bytes.Equal(out, data) {
		t.Fatal("output differs")
	}
}

func TestReadSizes(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	data := append(genData(r, 2, 400000), genData(r, 0, 100000)...)
	z := compressZlib(t, data, 6)
	for _, sizes := range [][]int{{1}, {3, 7, 1}, {4095}, {65537, 1}, {1 << 20}} {
		got, err := ourZlibRead(z, sizes...)
		same(t, fmt.Sprint(sizes), data, nil, got, err)
	}
	d, _ := NewZlib(z)
	p := make([]byte, len(data)+10)
	n, err := io.ReadFull(d, p)
	if n != len(data) || err != io.ErrUnexpectedEOF || !bytes.Equal(p[:n], data) {
		t.Fatalf("ReadFull: %d, %v", n, err)
	}
	if n, err := d.Read(p); n != 0 || err != io.EOF {
		t.Fatalf("after the end: %d, %v", n, err)
	}
}

func TestAdler32(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	// Sizes around the 128-byte blocks and the 2^22-byte runs between
	// reductions; all 0xff is the largest every lane and sum can get.
	for _, m := range []int{0, 1, 7, 8, 9, 15, 16, 17, 31, 33, 127, 128, 129, 255, 256, 257, 5551, 5552, 5553, 100000, 1<<22 + 17, -100000} {
		n := max(m, -m)
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(r.Uint32()) | 0xf0
			if m < 0 {
				b[i] = 0xff
			}
		}
		want := refAdler(b)
		if got := adler32(1, b); got != want {
			t.Errorf("n=%d: %#x, want %#x", n, got, want)
		}
		// In two pieces.
		if got := adler32(adler32(1, b[:n/3]), b[n/3:]); got != want {
			t.Errorf("n=%d split: %#x, want %#x", n, got, want)
		}
	}
}

func refAdler(b []byte) uint32 {
	s1, s2 := uint32(1), uint32(0)
	for _, c := range b {
		s1 = (s1 + uint32(c)) % 65521
		s2 = (s2 + s1) % 65521
	}
	return s2<<16 | s1
}

func TestAllocs(t *testing.T) {
	z := compressZlib(t, genData(rand.New(rand.NewPCG(15, 16)), 2, 200000), 6)
	out := make([]byte, 200000)
	d := new(Decoder)
	allocs := testing.AllocsPerRun(10, func() {
		*d = Decoder{in: z, pos: 2, zlib: true, adler: 1}
		if m, err := d.DecodeTo(out, 0); err != io.EOF || m != len(out) {
			t.Fatal(m, err)
		}
	})
	if allocs != 0 {
		t.Errorf("DecodeTo allocates %v times", allocs)
	}
}
