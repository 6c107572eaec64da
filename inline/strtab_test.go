package inline

import (
	"strconv"
	"strings"
	"testing"
)

func TestStrTable(t *testing.T) {
	tab := newStrTable()
	if tab.bytes(nil) != 0 || tab.string("") != 0 || tab.list[0] != "" {
		t.Fatal(`"" is not index 0`)
	}
	// Enough strings to grow the slots several times and fill several
	// chunks, with long ones among them.
	var want []string
	for i := range 20000 {
		s := "name" + strconv.Itoa(i)
		if i%997 == 0 {
			s = strings.Repeat(s, strChunk/8/len(s)+1)
		}
		want = append(want, s)
	}
	idx := make([]uint32, len(want))
	for i, s := range want {
		b := []byte(s)
		idx[i] = tab.bytes(b)
		clear(b) // the table keeps a copy
		if again := tab.string(s); again != idx[i] {
			t.Fatalf("%q: string gives %d, bytes %d", s, again, idx[i])
		}
	}
	got := make([]string, len(want))
	for i, v := range idx {
		if v != uint32(i+1) {
			t.Fatalf("%q: index %d, want %d", want[i], v, i+1)
		}
		got[i] = tab.list[v]
	}
	tab.reset()
	tab.bytes([]byte("after reset")) // a new chunk: the old strings stay
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("string %d: %q after reset, want %q", i, got[i], want[i])
		}
	}
	if len(tab.list) != 2 {
		t.Fatalf("after reset and one string: %d strings", len(tab.list))
	}
}

func BenchmarkStrTable(b *testing.B) {
	names := make([][]byte, 4096)
	for i := range names {
		names[i] = []byte("_ZN4llvm12function" + strconv.Itoa(i) + "Ev")
	}
	tab := newStrTable()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		tab.bytes(names[i%len(names)])
	}
}
