package inflate

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"testing"
)

// resumeAll decodes the rest of src from c with DecodeTo into a buffer
// that starts with c's window.
func resumeAll(src []byte, c *Checkpoint) ([]byte, error) {
	d, err := Resume(src, c)
	if err != nil {
		return nil, err
	}
	out := append(make([]byte, 0, 1<<16), c.Window()...)
	for {
		if len(out) == cap(out) {
			out = append(out, 0)[:len(out)]
		}
		m, err := d.DecodeTo(out[:cap(out)], len(out))
		out = out[:len(out)+m]
		if err == io.EOF {
			return out[len(c.Window()):], nil
		}
		if err != nil {
			return out[len(c.Window()):], err
		}
	}
}

// checkCheckpoints decodes z with checkpoints every 64 KiB, through
// DecodeTo and through Read, and resumes from each checkpoint.
func checkCheckpoints(t *testing.T, name string, z []byte, zl bool, want []byte) int {
	t.Helper()
	newDec := func() *Decoder {
		if !zl {
			return NewRaw(z)
		}
		d, err := NewZlib(z)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	d := newDec()
	d.SetCheckpoints(1) // raised to 64 KiB
	got, err := decodeAll(d)
	same(t, name, want, nil, got, err)
	cps := d.Checkpoints()

	// Read takes the same checkpoints from its 128 KiB window.
	r := newDec()
	r.SetCheckpoints(64 << 10)
	if _, err := io.Copy(io.Discard, r); err != nil {
		t.Fatal(err)
	}
	if len(r.Checkpoints()) != len(cps) {
		t.Fatalf("%s: %d checkpoints through Read, %d through DecodeTo", name, len(r.Checkpoints()), len(cps))
	}
	last := int64(0)
	for i := range cps {
		c, rc := &cps[i], &r.Checkpoints()[i]
		if c.Out < last+64<<10 || c.Out != rc.Out || c.in != rc.in || !bytes.Equal(c.window, rc.window) || c.adler != rc.adler {
			t.Fatalf("%s: checkpoint %d at %d (bit %d) after %d; through Read at %d (bit %d)", name, i, c.Out, c.in, last, rc.Out, rc.in)
		}
		last = c.Out
		if !bytes.Equal(c.Window(), want[max(c.Out-windowSize, 0):c.Out]) {
			t.Fatalf("%s: checkpoint %d: window is not the output before %d", name, i, c.Out)
		}
		got, err := resumeAll(z, c)
		same(t, fmt.Sprintf("%s/resume%d", name, i), want[c.Out:], nil, got, err)
	}
	return len(cps)
}

func TestCheckpoints(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	n := 0
	for kind := range 4 {
		data := genData(r, kind, 1<<20+12345)
		for _, level := range []int{-2, 0, 1, 6, 9} {
			name := fmt.Sprintf("kind%d/level%d", kind, level)
			n += checkCheckpoints(t, name+"/zlib", compressZlib(t, data, level), true, data)
			n += checkCheckpoints(t, name+"/raw", compressRaw(t, data, level), false, data)
		}
	}
	for name, b := range dwarfSections(t) {
		if len(b) >= 200<<10 {
			n += checkCheckpoints(t, name, compressZlib(t, b, 6), true, b)
		}
	}
	if n < 100 {
		t.Fatalf("only %d checkpoints taken", n)
	}
}

// TestCheckpointTampered: a resumed zlib stream still checks its
// trailer, and a checkpoint past the end of the input is an error.
func TestCheckpointTampered(t *testing.T) {
	data := genData(rand.New(rand.NewPCG(7, 8)), 2, 300000)
	z := compressZlib(t, data, 6)
	d, _ := NewZlib(z)
	d.SetCheckpoints(64 << 10)
	if _, err := decodeAll(d); err != nil {
		t.Fatal(err)
	}
	c := d.Checkpoints()[0]
	c.adler++
	if _, err := resumeAll(z, &c); err == nil || !errors.Is(err, ErrChecksum) {
		t.Fatalf("wrong Adler-32 in the checkpoint: %v", err)
	}
	c = d.Checkpoints()[0]
	if _, err := Resume(z[:c.in/8-1], &c); err == nil {
		t.Fatal("a checkpoint past the end of the input resumed")
	}
	// From any bit offset, garbage but no panic.
	for bit := range int64(2000) {
		c.in = bit
		resumeAll(z, &c)
	}
}
