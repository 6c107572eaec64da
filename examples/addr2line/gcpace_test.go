package main

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"
	"time"
)

func TestGCPercent(t *testing.T) {
	for _, c := range []struct {
		live uint64
		want int
	}{
		{0, 400},
		{1, 400},
		{8 << 20, 400},
		{10 << 20, 320},
		{16 << 20, 200},
		{32<<20 - 1, 100},
		{32 << 20, 100},
		{1 << 30, 100},
	} {
		if got := gcPercent(c.live); got != c.want {
			t.Errorf("gcPercent(%d) = %d, want %d", c.live, got, c.want)
		}
	}
}

// liveHeap returns the live heap that the last collection found.
func liveHeap() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// TestPaceGC checks that paceGC leaves a set $GOGC alone, and otherwise
// sets GOGC from the live heap at once and again after each collection.
func TestPaceGC(t *testing.T) {
	old := debug.SetGCPercent(100)
	defer debug.SetGCPercent(old)

	t.Setenv("GOGC", "100")
	debug.SetGCPercent(123)
	paceGC()
	if got := debug.SetGCPercent(123); got != 123 {
		t.Fatalf("with $GOGC set, GOGC became %d", got)
	}

	t.Setenv("GOGC", "")
	runtime.GC()
	if base := liveHeap(); base > 6<<20 {
		t.Skipf("the test process holds %d bytes live: the pacer would stop at once", base)
	}
	// 16 MB more live: GOGC 200 or a little less.
	live := make([]*[1 << 20]byte, 16)
	for i := range live {
		live[i] = new([1 << 20]byte)
	}
	runtime.GC()
	paceGC()
	first := debug.SetGCPercent(123)
	if want := gcPercent(liveHeap()); first != want {
		t.Fatalf("after paceGC, GOGC = %d, want %d", first, want)
	}
	// The pacer runs again after the next collection: with the 16 MB gone
	// (live is not used past this point), GOGC goes back up.
	runtime.KeepAlive(live)
	deadline := time.Now().Add(10 * time.Second)
	for {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
		got := debug.SetGCPercent(123)
		if got != 123 {
			if want := gcPercent(liveHeap()); got < want-50 || got > want+50 || got <= first {
				t.Fatalf("after a collection with %d bytes live, GOGC = %d, want about %d", liveHeap(), got, want)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the pacer did not run after a collection")
		}
	}
	// With more than gcHeadroom live, the pacer sets 100 and stops: it
	// leaves the other tests' collector alone.
	big := make([]*[1 << 20]byte, gcHeadroom>>20+8)
	for i := range big {
		big[i] = new([1 << 20]byte)
	}
	for deadline = time.Now().Add(10 * time.Second); ; {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
		if got := debug.SetGCPercent(123); got == 100 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the pacer did not set GOGC 100 with more than gcHeadroom live")
		}
	}
	runtime.KeepAlive(big)
	runtime.GC()
	time.Sleep(10 * time.Millisecond)
	if got := debug.SetGCPercent(123); got != 123 {
		t.Fatalf("the pacer set GOGC %d after it had stopped", got)
	}
}
