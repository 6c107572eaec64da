// Package inflate decompresses DEFLATE [RFC1951] and zlib [RFC1950]
// streams held entirely in memory, about three times as fast as
// compress/flate and taking about libdeflate's CPU time (C, with
// BMI2) on libradosgw's .debug_info on amd64 with BMI2 (0.93-1.09x over
// four rounds; 1.1-1.25x with the Go loop alone).
//
// The speed comes from decoding straight into the caller's buffer: with
// [Decoder.DecodeTo] the output produced so far is the LZ77 window, so
// nothing is copied twice, and a fast loop runs while at least 16 input
// bytes and 266 output bytes remain. It keeps 56 or more bits in a 64-bit
// buffer refilled by one unaligned 8-byte load, decodes a literal or a
// whole length (codeword and extra bits, consumed by one shift) with one
// table lookup, looks up the next symbol before copying a match, and
// copies matches 8 bytes at a time. Near either end a careful loop takes
// over one symbol at a time.
// [Decoder.Read] offers the same stream as an io.Reader through an
// internal 128 KiB buffer (the 32 KiB window plus room to decode ahead),
// at the cost of one copy.
//
// [Decoder.DecodeParallel] decodes a whole stream into a buffer of its
// size on several goroutines, with the same result as DecodeTo: later
// parts of the stream are decoded speculatively from block headers found
// ahead, without their window, and used only once the decoding before
// them is seen to stop exactly there (parallel.go).
//
// With [Decoder.SetCheckpoints] a Decoder keeps a [Checkpoint] every few
// MB (a block boundary and the 32 KiB before it), from which [Resume]
// inflates the rest of the stream again without starting over: a caller
// may release output it has indexed and re-inflate a part when needed.
//
// # Robustness
//
// Any input yields correct output or an error, never a panic, a hang or an
// allocation beyond the fixed-size Decoder (and the Read buffer;
// DecodeParallel's buffers come to at most half of out's size plus
// about 20 MB a worker, its speculative parts' output outside the Go heap
// where the system maps anonymous memory, unmapped when it returns). Like
// compress/flate it rejects over-subscribed and incomplete Huffman codes
// (except the empty and single-codeword codes zlib emits), code-length
// repeats that run past the lengths, distances beyond the output so far,
// stored blocks whose NLEN is not the complement of LEN, block type 3,
// and input that ends early; a zlib stream must also have a valid header
// without a preset dictionary and a matching Adler-32 trailer. Bytes after
// the end of the stream are ignored, as compress/zlib does. Errors are
// *[Error] values.
//
// The fast loop alone reads and writes through unsafe pointers, within
// bounds its loop condition ensures (fast.go says how); the package's
// tests and fuzz targets under -race, whose checkptr mode checks every
// such pointer against its slice, guard it. On amd64 CPUs with BMI2 the
// fast loop is in assembly (fast_amd64.s: the same steps within the same
// bounds, its variable shifts one micro-op each); checkptr cannot see
// inside it, so TestFastAsm runs it in lockstep with the Go loop, which
// the purego build tag selects everywhere (the CI runs the package's
// tests both ways).
package inflate

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// Sentinel causes wrapped by *Error; test for them with errors.Is. Input
// that ends early wraps io.ErrUnexpectedEOF.
var (
	// ErrCorrupt: the stream breaks a rule of RFC 1950 or RFC 1951.
	ErrCorrupt = errors.New("corrupt stream")
	// ErrChecksum: the zlib Adler-32 trailer does not match the output.
	ErrChecksum = errors.New("Adler-32 checksum mismatch")
)

// Error reports bad input. Offset is the compressed byte being read when
// the problem was found.
type Error struct {
	Offset int64
	Msg    string
	Err    error // ErrCorrupt, ErrChecksum or io.ErrUnexpectedEOF
}

func (e *Error) Error() string {
	return fmt.Sprintf("inflate: compressed byte %#x: %s", e.Offset, e.Msg)
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Decoder states between blocks and calls.
const (
	stHeader  = iota // next: a block header (or the trailer after the final block)
	stStored         // inside a stored block; stored bytes left
	stHuffman        // inside a Huffman block
	stTrailer        // final block done; the zlib trailer is next
	stDone           // stream done and verified
)

const (
	windowSize = 32 << 10 // the farthest distance DEFLATE can reach
	readBuf    = 128 << 10
	adlerStep  = 128 << 10 // see DecodeTo
)

// Decoder decompresses one stream. Use either DecodeTo or Read on a
// Decoder, not both. A Decoder is not safe for concurrent use.
type Decoder struct {
	in    []byte
	pos   int    // next input byte not yet in bits
	bits  uint64 // buffered input bits, least significant first
	nbits uint   // how many of bits are valid; higher bits are zero
	state int
	final bool // the current block is the last

	stored            int // bytes left in the stored block
	copyLen, copyDist int // a match cut short by the end of the output
	fixed             bool
	total             int64 // bytes output so far
	zlib              bool
	adler             uint32
	err               error // sticky

	// Read's window: win[:wend] ends with the latest output, and
	// win[rpos:wend] is not yet returned.
	win        []byte
	rpos, wend int

	// Checkpoints (checkpoint.go): one is taken at the first block
	// boundary at or past output offset cpNext, every cpEvery bytes.
	// During DecodeTo, out[callStart] is at output offset total, and
	// adler covers the output up to out[adlerAt].
	cpEvery, cpNext    int64
	cps                []Checkpoint
	callStart, adlerAt int

	// The parallel decoder's controls (parallel.go). At a block boundary
	// at or past bit stopAt (when positive) decode stops, setting
	// stopped. A part decoder (part) leaves the trailer alone, and with
	// record it notes every block boundary in bounds.
	stopAt  int64
	stopped bool
	part    bool
	record  bool
	bounds  []bound
	// progress, when set, is told Consumed as DecodeParallel's ordered
	// decoding passes input (SetProgress).
	progress func(consumed int)

	// goLoop runs fastGo where the assembly loop would run (tests that
	// compare the two).
	goLoop bool

	lit  [litSize]uint32
	dist [distSize]uint32
	clen [clenSize]uint32
	lens [numLitSyms + numDistSyms]uint8
}

// Consumed returns how many bytes at the start of src the Decoder has read
// and will not read again: a caller may drop them (elfx releases the pages
// of a mapped file behind the decoder).
func (d *Decoder) Consumed() int {
	// pos runs ahead of the stream by the whole bytes in the bit buffer,
	// which a stored block hands back.
	return max(d.pos-8, 0)
}

// NewRaw returns a Decoder for the raw DEFLATE stream in src. src must
// not change while the Decoder is in use.
func NewRaw(src []byte) *Decoder {
	return &Decoder{in: src}
}

// NewZlib returns a Decoder for the zlib stream in src, after checking
// its 2-byte header [RFC1950 2.2]: compression method 8, a window of at
// most 32 KiB, a valid FCHECK and no preset dictionary (FDICT), as
// compress/zlib requires.
func NewZlib(src []byte) (*Decoder, error) {
	if len(src) < 2 {
		return nil, &Error{0, "zlib header is truncated", io.ErrUnexpectedEOF}
	}
	cmf, flg := src[0], src[1]
	switch {
	case cmf&0x0f != 8 || cmf>>4 > 7:
		return nil, &Error{0, fmt.Sprintf("zlib header: CMF %#02x is not DEFLATE with a window of at most 32 KiB", cmf), ErrCorrupt}
	case (uint(cmf)<<8|uint(flg))%31 != 0:
		return nil, &Error{1, "zlib header: FCHECK does not check", ErrCorrupt}
	case flg&0x20 != 0:
		return nil, &Error{1, "zlib header: a preset dictionary (FDICT) is not supported", ErrCorrupt}
	}
	return &Decoder{in: src, pos: 2, zlib: true, adler: 1}, nil
}

// DecodeTo decodes the stream's next bytes into out[n:], returning how
// many it wrote: at most len(out)-n, fewer only at the end of the stream
// or on an error. out[:n] must hold the output of all earlier calls, or
// at least its last 32 KiB: back-references read it in place, which is
// what makes DecodeTo fast. DecodeTo may also scribble on out beyond the
// bytes it reports.
//
// The error is io.EOF once the stream has ended (with a zlib stream,
// after its checksum matched), possibly along with the last bytes. With
// no room (n == len(out)) DecodeTo still reads block headers and the end
// of the stream, so it returns 0, io.EOF if the stream ends there and
// 0, nil if it would produce more. Errors are sticky.
func (d *Decoder) DecodeTo(out []byte, n int) (int, error) {
	if d.err != nil {
		return 0, d.err
	}
	if n < 0 || n > len(out) || int64(n) < min(d.total, windowSize) {
		return 0, errors.New("inflate: DecodeTo: out[:n] does not hold the window")
	}
	// A zlib stream is decoded a step at a time, each step checksummed
	// while its bytes are still in the cache: summing hundreds of MB
	// after the fact reads them from memory again.
	o := n
	var err error
	d.callStart = n
	for {
		lim := len(out)
		if d.zlib && lim-o > adlerStep {
			lim = o + adlerStep
		}
		d.adlerAt = o
		var o2 int
		o2, err = d.decode(out[:lim], o)
		if d.zlib {
			d.adler = adler32(d.adler, out[o:o2])
		}
		o = o2
		if err != nil || o < lim || lim == len(out) {
			break
		}
	}
	d.total += int64(o - n)
	if err == nil && d.state == stTrailer && !d.part {
		err = d.trailer()
	}
	if err != nil {
		d.err = err
	}
	return o - n, err
}

// Read implements io.Reader. It decodes ahead into an internal window of
// 128 KiB, allocated on the first call.
func (d *Decoder) Read(p []byte) (int, error) {
	for {
		if d.rpos < d.wend {
			m := copy(p, d.win[d.rpos:d.wend])
			d.rpos += m
			return m, nil
		}
		if d.err != nil || len(p) == 0 {
			return 0, d.err
		}
		if d.win == nil {
			d.win = make([]byte, readBuf)
		}
		if d.wend > readBuf-windowSize {
			keep := min(d.wend, windowSize)
			copy(d.win, d.win[d.wend-keep:d.wend])
			d.wend, d.rpos = keep, keep
		}
		m, err := d.DecodeTo(d.win, d.wend)
		d.wend += m
		if m == 0 && err == nil {
			// Cannot happen: with room, DecodeTo progresses or ends.
			d.err = errors.New("inflate: no progress")
		}
	}
}

// fail returns an error at the current input position.
func (d *Decoder) fail(cause error, format string, args ...any) error {
	return &Error{int64(d.pos) - int64(d.nbits/8), fmt.Sprintf(format, args...), cause}
}

func (d *Decoder) truncated() error {
	return d.fail(io.ErrUnexpectedEOF, "stream ends early")
}

// bitPos returns the bit offset in the input of the next bit to decode.
func (d *Decoder) bitPos() int64 {
	return int64(d.pos)*8 - int64(d.nbits)
}

// seek positions the bit buffer at bit p of the input, p <= 8*len(in).
func (d *Decoder) seek(p int64) {
	d.pos = int(p / 8)
	d.bits, d.nbits = 0, 0
	if r := uint(p % 8); r != 0 {
		d.bits = uint64(d.in[d.pos]) >> r
		d.nbits = 8 - r
		d.pos++
	}
}

// fill tops the bit buffer up to 56..63 bits, or with all the input
// left.
func (d *Decoder) fill() {
	for d.nbits < 56 && d.pos < len(d.in) {
		d.bits |= uint64(d.in[d.pos]) << d.nbits
		d.pos++
		d.nbits += 8
	}
}

// getBits returns the next n (<= 32) bits.
func (d *Decoder) getBits(n uint) (uint32, bool) {
	if d.nbits < n {
		d.fill()
		if d.nbits < n {
			return 0, false
		}
	}
	v := uint32(d.bits & (1<<n - 1))
	d.bits >>= n
	d.nbits -= n
	return v, true
}

// align drops the bits up to the next byte boundary and gives the
// buffered whole bytes back to the input.
func (d *Decoder) align() {
	d.pos -= int(d.nbits / 8)
	d.bits, d.nbits = 0, 0
}

// decode runs the block state machine, writing from out[o:].
func (d *Decoder) decode(out []byte, o int) (int, error) {
	for {
		switch d.state {
		case stHeader:
			if d.final {
				d.state = stTrailer
				return o, nil
			}
			if d.stopAt > 0 && d.bitPos() >= d.stopAt {
				d.stopped = true
				return o, nil
			}
			if d.record {
				d.bounds = append(d.bounds, bound{d.total + int64(o-d.callStart), d.bitPos()})
			}
			if d.cpEvery > 0 && d.total+int64(o-d.callStart) >= d.cpNext {
				d.checkpoint(out, o)
			}
			if err := d.header(); err != nil {
				return o, err
			}
		case stStored:
			k := min(d.stored, len(out)-o, len(d.in)-d.pos)
			copy(out[o:o+k], d.in[d.pos:])
			o += k
			d.pos += k
			d.stored -= k
			if d.stored == 0 {
				d.state = stHeader
			} else if o == len(out) {
				return o, nil
			} else if k == 0 {
				return o, d.truncated()
			}
		case stHuffman:
			var err error
			o, err = d.huffman(out, o)
			if err != nil || d.state == stHuffman {
				return o, err
			}
		default:
			return o, nil
		}
	}
}

// header reads a block header [RFC1951 3.2.3] and prepares its block.
func (d *Decoder) header() error {
	h, ok := d.getBits(3)
	if !ok {
		return d.truncated()
	}
	d.final = h&1 != 0
	switch h >> 1 {
	case 0:
		// [RFC1951 3.2.4] stored: LEN and NLEN from the next byte boundary.
		d.align()
		if len(d.in)-d.pos < 4 {
			return d.truncated()
		}
		ln := binary.LittleEndian.Uint16(d.in[d.pos:])
		nln := binary.LittleEndian.Uint16(d.in[d.pos+2:])
		if ln != ^nln {
			return d.fail(ErrCorrupt, "stored block LEN %#04x does not match NLEN %#04x", ln, nln)
		}
		d.pos += 4
		d.stored = int(ln)
		d.state = stStored
	case 1:
		if !d.fixed {
			d.buildFixed()
		}
		d.state = stHuffman
	case 2:
		d.fixed = false
		if err := d.dynamic(); err != nil {
			return err
		}
		d.state = stHuffman
	default:
		return d.fail(ErrCorrupt, "block type 3 is reserved")
	}
	return nil
}

// buildFixed builds the fixed Huffman code tables [RFC1951 3.2.6].
func (d *Decoder) buildFixed() {
	l := d.lens[:]
	for i := range numLitSyms {
		switch {
		case i < 144:
			l[i] = 8
		case i < 256:
			l[i] = 9
		case i < 280:
			l[i] = 7
		default:
			l[i] = 8
		}
	}
	for i := range numDistSyms {
		l[numLitSyms+i] = 5
	}
	build(d.lit[:], litBits, l[:numLitSyms], litEntry[:])
	build(d.dist[:], distBits, l[numLitSyms:], distEntry[:])
	d.fixed = true
}

// clenOrder is the order code-length code lengths are sent in [RFC1951 3.2.7].
var clenOrder = [19]uint8{16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15}

// dynamic reads the code definitions of a dynamic Huffman block
// [RFC1951 3.2.7] and builds its tables.
func (d *Decoder) dynamic() error {
	h, ok := d.getBits(14)
	if !ok {
		return d.truncated()
	}
	nlit := int(h&0x1f) + 257
	ndist := int(h>>5&0x1f) + 1
	nclen := int(h>>10) + 4
	if nlit > 286 || ndist > 30 {
		return d.fail(ErrCorrupt, "%d literal/length and %d distance codes: at most 286 and 30", nlit, ndist)
	}
	var cl [19]uint8
	for i := range nclen {
		v, ok := d.getBits(3)
		if !ok {
			return d.truncated()
		}
		cl[clenOrder[i]] = uint8(v)
	}
	if !build(d.clen[:], clenBits, cl[:], clenEntry[:]) {
		return d.fail(ErrCorrupt, "invalid code-length code")
	}
	lens := d.lens[:nlit+ndist]
	for i := 0; i < len(lens); {
		d.fill()
		e := d.clen[d.bits&(clenSize-1)]
		n := uint(e & 0xff)
		if e&flagBad != 0 {
			return d.fail(ErrCorrupt, "invalid code-length codeword")
		}
		if n > d.nbits {
			return d.truncated()
		}
		d.bits >>= n
		d.nbits -= n
		sym := e >> 16
		if sym < 16 {
			lens[i] = uint8(sym)
			i++
			continue
		}
		var rep int
		var v uint8
		switch sym {
		case 16:
			if i == 0 {
				return d.fail(ErrCorrupt, "code length repeat with no previous length")
			}
			x, ok := d.getBits(2)
			if !ok {
				return d.truncated()
			}
			rep, v = 3+int(x), lens[i-1]
		case 17:
			x, ok := d.getBits(3)
			if !ok {
				return d.truncated()
			}
			rep = 3 + int(x)
		default:
			x, ok := d.getBits(7)
			if !ok {
				return d.truncated()
			}
			rep = 11 + int(x)
		}
		if rep > len(lens)-i {
			return d.fail(ErrCorrupt, "code length repeat runs past the %d lengths", len(lens))
		}
		for range rep {
			lens[i] = v
			i++
		}
	}
	if !build(d.lit[:], litBits, lens[:nlit], litEntry[:]) {
		return d.fail(ErrCorrupt, "invalid literal/length code")
	}
	if !build(d.dist[:], distBits, lens[nlit:], distEntry[:]) {
		return d.fail(ErrCorrupt, "invalid distance code")
	}
	return nil
}

// trailer checks the zlib Adler-32 trailer [RFC1950 2.2] after the final
// block.
func (d *Decoder) trailer() error {
	if d.zlib {
		d.align()
		if len(d.in)-d.pos < 4 {
			return d.truncated()
		}
		if want := binary.BigEndian.Uint32(d.in[d.pos:]); want != d.adler {
			return d.fail(ErrChecksum, "Adler-32 is %#08x, the trailer says %#08x", d.adler, want)
		}
		d.pos += 4
	}
	d.state = stDone
	return io.EOF
}

// huffman decodes a Huffman block from out[o:] until the block ends, out
// is full or an error. Fast runs while input and output are far from
// their ends; the loop here takes one symbol at a time with every check.
func (d *Decoder) huffman(out []byte, o int) (int, error) {
	if d.copyLen > 0 {
		o = d.copyRest(out, o)
		if d.copyLen > 0 {
			return o, nil
		}
	}
	for {
		if d.pos <= len(d.in)-fastIn && o <= len(out)-fastOut {
			var err error
			o, err = d.fast(out, o)
			if err != nil || d.state != stHuffman {
				return o, err
			}
			continue
		}
		d.fill()
		e := d.lit[d.bits&(1<<litBits-1)]
		n := uint(e >> 8 & 15)
		if e&flagSub != 0 {
			e = d.lit[(e>>16+uint32(d.bits>>litBits)&(1<<(e>>8&15)-1))&(litSize-1)]
			n = litBits + uint(e>>8&15)
		}
		if n > d.nbits {
			return o, d.truncated()
		}
		if e&flagBad != 0 {
			return o, d.fail(ErrCorrupt, "invalid literal/length codeword")
		}
		if e&flagEOB != 0 {
			d.bits >>= n
			d.nbits -= n
			d.state = stHeader
			return o, nil
		}
		if o == len(out) {
			return o, nil
		}
		d.bits >>= n
		d.nbits -= n
		if e&flagLit != 0 {
			out[o] = byte(e >> 16)
			o++
			continue
		}
		x, ok := d.getBits(extraBits(e))
		if !ok {
			return o, d.truncated()
		}
		length := int(e>>16) + int(x)

		d.fill()
		e = d.dist[d.bits&(1<<distBits-1)]
		n = uint(e >> 8 & 15)
		if e&flagSub != 0 {
			e = d.dist[(e>>16+uint32(d.bits>>distBits)&(1<<(e>>8&15)-1))&(distSize-1)]
			n = distBits + uint(e>>8&15)
		}
		if n > d.nbits {
			return o, d.truncated()
		}
		if e&flagBad != 0 {
			return o, d.fail(ErrCorrupt, "invalid distance codeword")
		}
		d.bits >>= n
		d.nbits -= n
		x, ok = d.getBits(extraBits(e))
		if !ok {
			return o, d.truncated()
		}
		dist := int(e>>16) + int(x)
		if dist > o {
			return o, d.fail(ErrCorrupt, "distance %d reaches before the start of the output", dist)
		}
		d.copyLen, d.copyDist = length, dist
		o = d.copyRest(out, o)
		if d.copyLen > 0 {
			return o, nil
		}
	}
}

// extraBits returns how many extra bits follow the codeword of a length or
// distance entry.
func extraBits(e uint32) uint {
	return uint(e&0xff) - uint(e>>8&15)
}

// copyRest copies as much of the pending match as fits in out[o:].
func (d *Decoder) copyRest(out []byte, o int) int {
	k := min(d.copyLen, len(out)-o)
	src := o - d.copyDist
	for i := range k {
		out[o+i] = out[src+i]
	}
	d.copyLen -= k
	return o + k
}
