package inflate

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"testing"
	"time"
)

// parallelAll decodes src (zlib if zl) with decodeParallel into a buffer
// of size bytes, in parts of partSize bytes, on workers goroutines.
func parallelAll(src []byte, zl bool, size, workers, partSize int, every int64) ([]byte, []Checkpoint, error) {
	var d *Decoder
	if zl {
		var err error
		if d, err = NewZlib(src); err != nil {
			return nil, nil, err
		}
	} else {
		d = NewRaw(src)
	}
	if every > 0 {
		d.SetCheckpoints(every)
	}
	out := make([]byte, size)
	n, err := d.decodeParallel(out, workers, partSize)
	if err == nil {
		// As DecodeTo: with no room, read on to the end.
		var m int
		m, err = d.DecodeTo(out[:n], n)
		n += m
	}
	if err == io.EOF {
		err = nil
	} else if err == nil {
		err = fmt.Errorf("stream longer than %d bytes", size)
	}
	return out[:n], d.Checkpoints(), err
}

func TestParallelLarge(t *testing.T) {
	z, err := os.ReadFile(rgwPath)
	if err != nil || testing.Short() || raceEnabled {
		t.Skipf("needs %s, and no -short or -race", rgwPath)
	}
	const size = 314596110
	want := make([]byte, size)
	d, _ := NewZlib(z)
	t0 := time.Now()
	if n, err := d.DecodeTo(want, 0); n != size || err != io.EOF {
		t.Fatal(n, err)
	}
	t.Logf("serial %v", time.Since(t0))
	t0 = time.Now()
	got, _, err := parallelAll(z, true, size, 2, defaultPart, 0)
	t.Logf("parallel %v", time.Since(t0))
	logStats(t)
	logTimes(t)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("%d bytes, %v; first difference at %d", len(got), err, firstDiff(got, want))
	}
}

func logStats(t *testing.T) {
	t.Logf("placed %d ordered %d failed %d spec16 %d", dbgPlaced.Load(), dbgOrdered.Load(), dbgFailed.Load(), dbgSpec16.Load())
}

func logTimes(t *testing.T) {
	d := func(v int64) time.Duration { return time.Duration(v) }
	t.Logf("find %v s16 %v bytes %v place %v ordered %v", d(dbgFind.Load()), d(dbgS16.Load()), d(dbgBytes.Load()), d(dbgPlace.Load()), d(dbgOrd.Load()))
}
