package dwinfo

import (
	"debug/elf"
	"io"
	"os"
	"testing"
	"unsafe"

	"github.com/symbolize-go/symbolize/internal/buf"
	"github.com/symbolize-go/symbolize/internal/dw"
)

// largest returns the fixture with the most .debug_info.
func largest(tb testing.TB) Sections {
	var best Sections
	for _, p := range fixtures(tb) {
		if s, _, ok := loadELF(tb, p); ok && len(s.Info) > len(best.Info) {
			best = s
		}
	}
	if best.Info == nil {
		tb.Skip("no fixture with .debug_info")
	}
	return best
}

// walkEntries reads every DIE of every unit and the attributes of
// subprograms and inlined subroutines (what package inline does).
func walkEntries(tb testing.TB, d *Data, units []*Unit) int {
	n := 0
	var e Entry
	var f Field
	for _, u := range units {
		er := u.Entries()
		for {
			err := er.Next(&e)
			if err == io.EOF {
				break
			}
			if err != nil {
				tb.Fatal(err)
			}
			n++
			if e.Tag == TagSubprogram || e.Tag == TagInlinedSubroutine {
				it := u.Attrs(&e)
				for it.Next(&f) {
				}
			}
		}
	}
	return n
}

func TestEntriesAllocFree(t *testing.T) {
	d := New(largest(t), nil)
	us := loadUnits(t, d)
	if a := testing.AllocsPerRun(5, func() { walkEntries(t, d, us) }); a != 0 {
		t.Fatalf("walking DIEs allocates %v times", a)
	}
	ix := NewIndex(d)
	ix.BuildAll()
	if a := testing.AllocsPerRun(100, func() { ix.Lookup(0x1234) }); a != 0 {
		t.Fatalf("Lookup allocates %v times", a)
	}
}

func BenchmarkEntries(b *testing.B) {
	s := largest(b)
	d := New(s, nil)
	us := loadUnits(b, d)
	b.SetBytes(int64(len(s.Info)))
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		n = walkEntries(b, d, us)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/DIE")
}

func BenchmarkIndexBuild(b *testing.B) {
	s := largest(b)
	b.ReportAllocs()
	for b.Loop() {
		ix := NewIndex(New(s, nil))
		ix.BuildAll()
	}
}

func BenchmarkLookup(b *testing.B) {
	d := New(largest(b), nil)
	ix := NewIndex(d)
	ix.BuildAll()
	var pcs []uint64
	for _, t := range [][]ivl{ix.aranges, ix.units} {
		for _, r := range t {
			pcs = append(pcs, r.lo, (r.lo+r.hi)/2)
		}
	}
	if len(pcs) == 0 {
		b.Skip("empty index")
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		ix.Lookup(pcs[i%len(pcs)])
		i++
	}
}

// BenchmarkEntriesDebugDwarf is the baseline: Go's debug/dwarf reading
// every entry (it decodes all attributes and allocates per entry).
func BenchmarkEntriesDebugDwarf(b *testing.B) {
	var path string
	var size int
	for _, p := range fixtures(b) {
		if s, _, ok := loadELF(b, p); ok && len(s.Info) > size {
			path, size = p, len(s.Info)
		}
	}
	_, f, _ := loadELF(b, path)
	gd, err := f.DWARF()
	if err != nil {
		b.Skip(err)
	}
	b.SetBytes(int64(size))
	b.ReportAllocs()
	for b.Loop() {
		r := gd.Reader()
		for {
			e, err := r.Next()
			if err != nil || e == nil {
				break
			}
		}
	}
}

// TestConcurrentUse exercises the lazy parts (units tier, unit and abbrev
// caches) from several goroutines; run with -race.
func TestConcurrentUse(t *testing.T) {
	d := New(largest(t), nil)
	ix := NewIndex(d)
	hs, _ := d.Headers()
	done := make(chan bool)
	for g := range 4 {
		go func() {
			defer func() { done <- true }()
			for i, h := range hs {
				if (i+g)%2 == 0 {
					ix.Lookup(h.Offset)
				}
				u, err := d.UnitAt(h.Offset)
				if err != nil {
					t.Error(err)
					return
				}
				if u2, _ := d.UnitAt(h.Offset); u2 != u {
					t.Error("UnitAt not cached")
				}
			}
			ix.Errors()
		}()
	}
	for range 4 {
		<-done
	}
	u, _ := d.UnitAt(hs[0].Offset)
	if a := testing.AllocsPerRun(100, func() { d.UnitAt(u.Offset) }); a != 0 {
		t.Errorf("cached UnitAt allocates %v", a)
	}
}

// BenchmarkParseAbbrevsLarge parses every abbreviation table of a large
// .debug_abbrev, from the ELF file named by $DWINFO_BENCH_ABBREV
// (libradosgw.so.2's debug file by default: gcc gives each of its units a
// table of its own, 2.7 MB in all); B/op is what the tables hold.
func BenchmarkParseAbbrevsLarge(b *testing.B) {
	path := os.Getenv("DWINFO_BENCH_ABBREV")
	if path == "" {
		path = "/root/.cache/symbolize-bench/root/usr/lib/debug/.build-id/4a/575717325cb5e3582c4eab9ac943bf54b76157.debug"
	}
	f, err := elf.Open(path)
	if err != nil {
		b.Skip("no large debug file")
	}
	defer f.Close()
	s := f.Section(".debug_abbrev")
	if s == nil {
		b.Skip("no .debug_abbrev")
	}
	data, err := io.ReadAll(s.Open())
	if err != nil {
		b.Fatal(err)
	}
	// The tables follow each other: each ends where the next begins.
	var offs []uint64
	for off := uint64(0); off < uint64(len(data)); {
		t, end, err := parseAbbrevsEnd(buf.New(pkg, secAbbrev, data, false), off)
		if err != nil || t == nil {
			b.Fatalf("table at %#x: %v", off, err)
		}
		offs = append(offs, off)
		off = end
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		var pool declPool // as a Data shares declarations between its tables
		for _, off := range offs {
			parseAbbrevs(buf.New(pkg, secAbbrev, data, false), off, defaultSizes, &pool)
		}
	}
	b.ReportMetric(float64(len(offs)), "tables")
	// What the parsed tables keep, and the declarations they share.
	kept := 0
	var pool declPool
	for _, off := range offs {
		t, _ := parseAbbrevs(buf.New(pkg, secAbbrev, data, false), off, defaultSizes, &pool)
		kept += int(unsafe.Sizeof(*t)) + cap(t.list)*int(unsafe.Sizeof(Abbrev{})) + 8*(cap(t.ops)+cap(t.steps))
	}
	for _, d := range pool.byRaw {
		kept += int(unsafe.Sizeof(*d)) + len(d.attrs)*int(unsafe.Sizeof(AttrSpec{})) + 8*len(d.vals)
	}
	b.ReportMetric(float64(len(pool.byRaw)), "distinct")
	b.ReportMetric(float64(kept), "kept-B")
}

// parseAbbrevsEnd parses the table at off and returns where it ends.
func parseAbbrevsEnd(r buf.Reader, off uint64) (*AbbrevTable, uint64, error) {
	t, err := parseAbbrevs(r, off, defaultSizes, nil)
	if err != nil {
		return nil, 0, err
	}
	r.Seek(off)
	for {
		code := r.ULEB()
		if code == 0 || r.Err() != nil {
			return t, r.Offset(), r.Err()
		}
		r.ULEB()
		r.U8()
		for {
			at, form := r.ULEB(), r.ULEB()
			if dw.Form(form) == dw.FormImplicitConst {
				r.SLEB()
			}
			if at == 0 && form == 0 || r.Err() != nil {
				break
			}
		}
	}
}

// BenchmarkStepUnit steps over every record of the largest unit of the
// program named by $DWINFO_BENCH_OBJ (the template-heavy C++ program of
// bench/cxx/gen.sh: one op is the 10 MB unit's 1.6 M records) with
// NextIn and an empty code set, the loop of the lazy scan of package
// inline. It skips when the variable is unset.
func BenchmarkStepUnit(b *testing.B) {
	path := os.Getenv("DWINFO_BENCH_OBJ")
	if path == "" {
		b.Skip("DWINFO_BENCH_OBJ not set")
	}
	s, _, ok := loadELF(b, path)
	if !ok {
		b.Skip("no .debug_info")
	}
	d := New(s, nil)
	var big *Unit
	for _, u := range loadUnits(b, d) {
		if big == nil || u.End-u.Offset > big.End-big.Offset {
			big = u
		}
	}
	codes, ok := big.Codes(func(*Abbrev) bool { return false })
	if !ok {
		b.Skip("codes too sparse for a set")
	}
	b.SetBytes(int64(big.End - big.Offset))
	b.ReportAllocs()
	cpu := cpuTime()
	for b.Loop() {
		er := big.Entries()
		var e Entry
		if err := er.NextIn(&e, -1, codes); err != io.EOF {
			b.Fatal(err)
		}
	}
	// CPU time varies less than wall time on a shared machine.
	b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N), "cpu-ns/op")
}
