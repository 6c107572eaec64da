package inline

import (
	"slices"
	"strconv"
	"strings"
	"testing"
	"unsafe"
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

// TestStringsShared: Indexes given one Strings hand out one copy of each
// name and path, whichever unit it comes from, and answer as Indexes
// without it. Without a Strings, the fixtures' units hold names or paths
// in copies of their own (else the check would prove nothing).
func TestStringsShared(t *testing.T) {
	multi := 0
	for _, path := range fixtures(t) {
		o, ok := openObject(t, path)
		if !ok {
			continue
		}
		hs, err := o.d.Headers()
		if err != nil || len(hs) < 2 {
			continue
		}
		pcs := samplePCs(funcSyms(o.f), 3000)
		var shared Strings
		// data[s] is the first string seen equal to s, by each build.
		var seenOwn, seenShared = map[string]string{}, map[string]string{}
		copiesOwn := 0
		for _, lazy := range []bool{false, true} {
			own, sh := map[uint64]*Index{}, map[uint64]*Index{}
			for _, pc := range pcs {
				off, ok := o.ix.Lookup(pc)
				if !ok {
					continue
				}
				if _, ok := own[off]; !ok {
					h, err := o.d.HeaderAt(off)
					if err != nil {
						continue
					}
					u, err := o.d.LoadUnit(h)
					if err != nil {
						continue
					}
					own[off], _ = Build(o.d, u, o.table(u), &Options{LineTable: o.table, Lazy: lazy, LazyMinSize: 1})
					sh[off], _ = Build(o.d, u, o.table(u), &Options{LineTable: o.table, Lazy: lazy, LazyMinSize: 1, Strings: &shared})
				}
				if own[off] == nil || sh[off] == nil {
					continue
				}
				a, b := own[off].AppendChain(nil, pc), sh[off].AppendChain(nil, pc)
				if !slices.Equal(a, b) {
					t.Fatalf("%s %#x (lazy %v): with Strings %+v, without %+v", path, pc, lazy, b, a)
				}
				for i := range a {
					for _, s := range []string{a[i].Name, a[i].ShortName, a[i].File, a[i].StartFile} {
						if first, ok := seenOwn[s]; !ok {
							seenOwn[s] = s
						} else if s != "" && unsafe.StringData(first) != unsafe.StringData(s) {
							copiesOwn++
						}
					}
					for _, s := range []string{b[i].Name, b[i].ShortName, b[i].File, b[i].StartFile} {
						if first, ok := seenShared[s]; !ok {
							seenShared[s] = s
						} else if s != "" && unsafe.StringData(first) != unsafe.StringData(s) {
							t.Fatalf("%s %#x: two copies of %q with Strings", path, pc, s)
						}
					}
				}
			}
		}
		if copiesOwn > 0 {
			multi++
		}
	}
	if multi == 0 {
		t.Fatal("no fixture holds a name or path twice without Strings")
	}
}
