package inflate

import (
	"fmt"
	"io"
)

// A Checkpoint is a place in a stream where decoding can start again
// without decoding what comes before it: a block boundary, with the 32 KiB
// of output before it (the most a back-reference reaches) and, for zlib,
// the checksum so far. A caller that keeps a checkpoint every few MB can
// let go of the output and later inflate any part of it again from the
// checkpoint before it [Resume], at a cost of 32 KiB per checkpoint.
type Checkpoint struct {
	// Out is the output offset the checkpoint resumes at.
	Out int64

	in     int64  // bit offset of the block header in the compressed stream
	window []byte // the output before Out: min(Out, 32 KiB) bytes
	adler  uint32 // zlib: the Adler-32 of the output before Out
	zlib   bool
}

// Window returns the output just before c.Out that a resumed Decoder
// needs in front of its output buffer (see Resume). Do not modify it.
func (c *Checkpoint) Window() []byte { return c.window }

// minCheckpointEvery bounds the checkpoints' memory: their windows add
// at most half the output's size.
const minCheckpointEvery = 2 * windowSize

// SetCheckpoints makes the Decoder take a Checkpoint at the first block
// boundary after every every bytes of output (at least 64 KiB: smaller
// values are raised), starting with the next block boundary at or after
// the current output offset plus every. Checkpoints returns them. Each
// copies 32 KiB of output, which DecodeTo's out[:n] must therefore hold
// (it does: the window it requires is the same 32 KiB).
func (d *Decoder) SetCheckpoints(every int64) {
	d.cpEvery = max(every, minCheckpointEvery)
	d.cpNext = d.total + d.cpEvery
}

// Checkpoints returns the checkpoints taken so far, in output order. The
// slice is the Decoder's: append to it only through further decoding.
func (d *Decoder) Checkpoints() []Checkpoint { return d.cps }

// checkpoint records a Checkpoint at the block boundary where out[o] is
// the next output byte.
func (d *Decoder) checkpoint(out []byte, o int) {
	at := d.total + int64(o-d.callStart)
	w := int(min(at, windowSize))
	c := Checkpoint{
		Out:    at,
		in:     int64(d.pos)*8 - int64(d.nbits),
		window: append([]byte(nil), out[o-w:o]...),
		zlib:   d.zlib,
	}
	if d.zlib {
		c.adler = adler32(d.adler, out[d.adlerAt:o])
	}
	d.cps = append(d.cps, c)
	d.cpNext = at + d.cpEvery
}

// Resume returns a Decoder that continues the stream src (the same bytes
// the checkpoint's Decoder read) from c. Its first DecodeTo call must
// have c.Window() at the end of out[:n], as if it were the output so far:
//
//	w := c.Window()
//	copy(out, w)
//	m, err := d.DecodeTo(out, len(w)) // out[len(w):] is at offset c.Out
//
// A zlib stream's checksum is still verified at its end. A checkpoint
// from another stream gives an error or wrong output, never a panic.
func Resume(src []byte, c *Checkpoint) (*Decoder, error) {
	if c.in < 0 || c.in > int64(len(src))*8 {
		return nil, &Error{c.in / 8, fmt.Sprintf("checkpoint at bit %d is outside the %d-byte stream", c.in, len(src)), io.ErrUnexpectedEOF}
	}
	d := &Decoder{in: src, zlib: c.zlib, adler: c.adler, total: c.Out}
	d.seek(c.in)
	return d, nil
}
