package buf

import (
	"bytes"
	"errors"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"
)

// lazySection is a DWARF32 unit of 10 bytes after its length at 0, then a
// DWARF64 unit of 20 at 14: 46 bytes.
func lazySection() []byte {
	var b []byte
	b = append(b, 10, 0, 0, 0)
	b = append(b, bytes.Repeat([]byte{0xaa}, 10)...)
	b = append(b, 0xff, 0xff, 0xff, 0xff, 20, 0, 0, 0, 0, 0, 0, 0)
	return append(b, bytes.Repeat([]byte{0xbb}, 20)...)
}

// TestLazyUnit checks that Unit fetches a unit's initial length and then
// exactly the bytes it covers, front to back, and never more than Size.
func TestLazyUnit(t *testing.T) {
	full := lazySection()
	var asked []uint64
	l := NewLazy(nil, uint64(len(full)), func(n uint64) ([]byte, error) {
		asked = append(asked, n)
		return full[:n], nil
	})
	b, err := l.Unit(0)
	if err != nil || len(b) < 14 || !bytes.Equal(b, full[:len(b)]) {
		t.Fatalf("Unit(0) = %d bytes, %v", len(b), err)
	}
	if b, err = l.Unit(14); err != nil || len(b) != len(full) {
		t.Fatalf("Unit(14) = %d bytes, %v", len(b), err)
	}
	if want := []uint64{12, 14, 26, 46}; !slices.Equal(asked, want) {
		t.Errorf("fetched %v, want %v", asked, want)
	}
	// Everything is here: no more fetches, even past the end.
	if b, err := l.UpTo(1000); err != nil || len(b) != len(full) || len(asked) != 4 {
		t.Errorf("UpTo(1000) = %d bytes, %v, after %d fetches", len(b), err, len(asked))
	}
}

// TestLazyPlain: a nil Fetch makes a Lazy a plain slice.
func TestLazyPlain(t *testing.T) {
	full := lazySection()
	l := NewLazy(full, 999, nil)
	if l.Size != uint64(len(full)) {
		t.Errorf("Size %d, want %d", l.Size, len(full))
	}
	if b, err := l.Unit(14); err != nil || len(b) != len(full) {
		t.Errorf("Unit(14) = %d bytes, %v", len(b), err)
	}
}

// TestLazyBadUnit: a unit whose length runs past Size, or an offset past
// the data, is left to the decoder (the available bytes, no error); a
// fetch error comes back with the bytes fetched before it.
func TestLazyBadUnit(t *testing.T) {
	full := lazySection()
	full[0] = 200 // unit 0 now claims 200 bytes of 46
	var asked []uint64
	l := NewLazy(nil, uint64(len(full)), func(n uint64) ([]byte, error) {
		asked = append(asked, n)
		return full[:n], nil
	})
	if b, err := l.Unit(0); err != nil || len(b) != 12 || !slices.Equal(asked, []uint64{12}) {
		t.Errorf("Unit(0) = %d bytes, %v, after fetching %v", len(b), err, asked)
	}
	// Past Size there is nothing to fetch.
	if b, err := l.Unit(100); err != nil || len(b) != 12 || !slices.Equal(asked, []uint64{12}) {
		t.Errorf("Unit(100) = %d bytes, %v, after fetching %v", len(b), err, asked)
	}

	boom := errors.New("boom")
	calls := 0
	l = NewLazy(nil, uint64(len(full)), func(n uint64) ([]byte, error) {
		if calls++; calls > 1 {
			return nil, boom
		}
		return full[:n], nil
	})
	if b, err := l.UpTo(4); err != nil || len(b) != 4 {
		t.Fatalf("UpTo(4) = %d bytes, %v", len(b), err)
	}
	if b, err := l.UpTo(20); !errors.Is(err, boom) || len(b) != 4 {
		t.Errorf("UpTo(20) after a failing fetch = %d bytes, %v", len(b), err)
	}
}

// TestLazyConcurrent: readers that need more at once fetch it once.
func TestLazyConcurrent(t *testing.T) {
	full := lazySection()
	var mu sync.Mutex
	fetches := 0
	l := NewLazy(nil, uint64(len(full)), func(n uint64) ([]byte, error) {
		mu.Lock()
		fetches++
		mu.Unlock()
		return full, nil // more than asked, as an inflater may return
	})
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if b, err := l.UpTo(30); err != nil || len(b) != len(full) {
				t.Errorf("UpTo(30) = %d bytes, %v", len(b), err)
			}
		})
	}
	wg.Wait()
	if fetches != 1 {
		t.Errorf("%d fetches, want 1", fetches)
	}
}

// TestLazyHugeOffset: Unit at any offset, with a plain or a fetched section
// of any claimed Size, neither panics nor fetches past Size. (An offset near
// 2^64, from a hostile 8-byte DW_AT_stmt_list, used to wrap off+12 and
// index the section at a negative position.)
func TestLazyHugeOffset(t *testing.T) {
	full := lazySection()
	offs := []uint64{46, 47, 1 << 32, 1 << 63, 1<<64 - 12, 1<<64 - 4, 1<<64 - 3, 1<<64 - 1}
	plain := NewLazy(full, 0, nil)
	for _, off := range offs {
		if b, err := plain.Unit(off); err != nil || len(b) != len(full) {
			t.Errorf("plain Unit(%#x) = %d bytes, %v", off, len(b), err)
		}
	}
	for _, size := range []uint64{uint64(len(full)), 1<<64 - 1} {
		l := NewLazy(nil, size, func(n uint64) ([]byte, error) {
			if n > size {
				t.Errorf("fetch of %#x bytes past Size %#x", n, size)
			}
			return full[:min(n, uint64(len(full)))], nil
		})
		l.UpTo(4)
		for _, off := range offs {
			if b, err := l.Unit(off); err != nil || len(b) > len(full) {
				t.Errorf("Size %#x: Unit(%#x) = %d bytes, %v", size, off, len(b), err)
			}
		}
	}
}

// FuzzLazyUnit calls Unit at any offset of any bytes, plain or fetched
// under any claimed Size: no panic, and no fetch past Size.
func FuzzLazyUnit(f *testing.F) {
	f.Add(lazySection(), uint64(0), uint64(46), true)
	f.Add(lazySection(), uint64(14), uint64(0), false)
	f.Add(lazySection(), uint64(1<<64-3), uint64(1<<64-1), true)
	f.Fuzz(func(t *testing.T, data []byte, off, size uint64, fetch bool) {
		if !fetch {
			NewLazy(data, 0, nil).Unit(off)
			return
		}
		l := NewLazy(nil, size, func(n uint64) ([]byte, error) {
			if n > size {
				t.Fatalf("fetch of %#x bytes past Size %#x", n, size)
			}
			return data[:min(n, uint64(len(data)))], nil
		})
		if b, _ := l.Unit(off); len(b) > len(data) {
			t.Fatalf("Unit(%#x) = %d bytes of %d", off, len(b), len(data))
		}
	})
}

// TestLazySteps: a reader far ahead fetches fetchStep bytes at a time,
// publishing each step, so a reader of bytes already fetched is not held
// up behind the far fetch; a reader of the whole section fetches it in
// one call; a Fetch that stops giving bytes ends UpTo instead of looping.
func TestLazySteps(t *testing.T) {
	size := uint64(5*fetchStep + 123)
	full := make([]byte, size)
	var mu sync.Mutex
	var asked []uint64
	gate := make(chan struct{})
	l := NewLazy(nil, size, func(n uint64) ([]byte, error) {
		mu.Lock()
		asked = append(asked, n)
		mu.Unlock()
		if n > fetchStep {
			<-gate // the far reader's second step blocks
		}
		return full[:n], nil
	})
	far := make(chan int)
	go func() {
		b, _ := l.UpTo(3*fetchStep + 1)
		far <- len(b)
	}()
	// The far reader's first step lands; a near reader then gets its
	// bytes while the second step is still blocked.
	for deadline := time.Now().Add(10 * time.Second); len(*l.cur.Load()) < fetchStep; runtime.Gosched() {
		if time.Now().After(deadline) {
			close(gate)
			t.Fatal("no step published while the far fetch is blocked")
		}
	}
	if b, err := l.UpTo(fetchStep / 2); err != nil || len(b) != fetchStep {
		t.Fatalf("near UpTo = %d bytes, %v", len(b), err)
	}
	close(gate)
	if n := <-far; n < 3*fetchStep+1 {
		t.Fatalf("far UpTo = %d bytes", n)
	}
	want := []uint64{fetchStep, 2 * fetchStep, 3 * fetchStep, 3*fetchStep + 1}
	if !slices.Equal(asked, want) {
		t.Errorf("fetched %v, want %v", asked, want)
	}
	// The whole section in one fetch.
	asked = nil
	if b, err := l.UpTo(size); err != nil || uint64(len(b)) != size {
		t.Fatalf("UpTo(Size) = %d bytes, %v", len(b), err)
	}
	if !slices.Equal(asked, []uint64{size}) {
		t.Errorf("whole section fetched as %v", asked)
	}
	// A Fetch that gives no more than 100 bytes: UpTo returns them.
	short := NewLazy(nil, size, func(n uint64) ([]byte, error) { return full[:min(n, 100)], nil })
	if b, err := short.UpTo(2 * fetchStep); err != nil || len(b) != 100 {
		t.Errorf("short UpTo = %d bytes, %v", len(b), err)
	}
}
