package inline

import (
	"debug/elf"
	"encoding/binary"
	"sort"
	"testing"

	"github.com/symbolize-go/symbolize/internal/dwinfo"
	"github.com/symbolize-go/symbolize/internal/dwinfo/dwinfotest"
	"github.com/symbolize-go/symbolize/linetable"
)

// object is the DWARF of one ELF file, with a lazily built Index per unit:
// what the root package does, in miniature.
type object struct {
	path  string
	f     *elf.File
	secs  dwinfo.Sections
	line  []byte
	d     *dwinfo.Data
	ix    *dwinfo.Index
	units map[uint64]*unitIx
	tabs  map[uint64]*linetable.Table
	zstd  bool
}

type unitIx struct {
	u   *dwinfo.Unit
	ix  *Index
	err error
}

func openObject(t testing.TB, path string) (*object, bool) {
	t.Helper()
	e, ok, err := dwinfotest.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if !ok {
		return nil, false
	}
	t.Cleanup(func() { e.File.Close() })
	o := &object{path: path, f: e.File, zstd: e.Zstd, units: map[uint64]*unitIx{}, tabs: map[uint64]*linetable.Table{}}
	o.secs = dwinfo.Sections{
		Info:       e.Section(".debug_info"),
		Abbrev:     e.Section(".debug_abbrev"),
		Str:        e.Section(".debug_str"),
		LineStr:    e.Section(".debug_line_str"),
		StrOffsets: e.Section(".debug_str_offsets"),
		Addr:       e.Section(".debug_addr"),
		Ranges:     e.Section(".debug_ranges"),
		Rnglists:   e.Section(".debug_rnglists"),
		Aranges:    e.Section(".debug_aranges"),
		BigEndian:  e.File.ByteOrder == binary.BigEndian,
	}
	o.line = e.Section(".debug_line")
	if o.secs.Info == nil {
		return nil, false
	}
	o.d = dwinfo.New(o.secs, nil)
	o.ix = dwinfo.NewIndex(o.d)
	return o, true
}

// table returns the line table of u (cached).
func (o *object) table(u *dwinfo.Unit) *linetable.Table {
	if !u.Root.HasStmt || o.line == nil {
		return nil
	}
	if t, ok := o.tabs[u.Offset]; ok {
		return t
	}
	t, _ := linetable.NewTable(o.line, u.Root.StmtList, &linetable.Options{
		BigEndian: o.secs.BigEndian, LineStr: o.secs.LineStr, Str: o.secs.Str, AddressSize: u.AddrSize,
	})
	o.tabs[u.Offset] = t
	return t
}

// unit returns the Index of the unit covering pc, or nil.
func (o *object) unit(t testing.TB, pc uint64) *unitIx {
	off, ok := o.ix.Lookup(pc)
	if !ok {
		return nil
	}
	if ui, ok := o.units[off]; ok {
		return ui
	}
	ui := &unitIx{}
	o.units[off] = ui
	h, err := o.d.HeaderAt(off)
	if err != nil {
		ui.err = err
		return ui
	}
	u, err := o.d.LoadUnit(h)
	if err != nil {
		ui.err = err
		return ui
	}
	ui.u = u
	ui.ix, ui.err = Build(o.d, u, o.table(u), &Options{LineTable: o.table})
	if ui.err != nil {
		t.Logf("%s: unit %#x: %v", o.path, off, ui.err)
	}
	return ui
}

// chain symbolizes pc the way the root package will (without the symbol
// table override).
func (o *object) chain(t testing.TB, dst []Frame, pc uint64) []Frame {
	ui := o.unit(t, pc)
	if ui == nil || ui.ix == nil {
		return dst
	}
	return ui.ix.AppendChain(dst, pc)
}

// fixtures lists the ELF files under testdata/elf plus $INLINE_EXTRA
// (colon-separated).
func fixtures(t testing.TB) []string {
	t.Helper()
	out := dwinfotest.Fixtures("../testdata/elf", "INLINE_EXTRA")
	if len(out) == 0 {
		t.Skip("no fixtures under testdata/elf")
	}
	return out
}

// funcSym is a function symbol with a size.
type funcSym struct {
	name       string
	addr, size uint64
}

func funcSyms(f *elf.File) []funcSym {
	syms, _ := f.Symbols()
	var out []funcSym
	for _, s := range syms {
		if elf.ST_TYPE(s.Info) == elf.STT_FUNC && s.Size > 0 && s.Section != elf.SHN_UNDEF {
			out = append(out, funcSym{s.Name, s.Value, s.Size})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].addr < out[j].addr })
	return out
}

// samplePCs picks addresses from every function: its start, a few bytes in,
// evenly spaced interior points and its last byte, up to max in all.
func samplePCs(syms []funcSym, max int) []uint64 {
	seen := map[uint64]bool{}
	var out []uint64
	add := func(pc uint64) {
		if !seen[pc] {
			seen[pc] = true
			out = append(out, pc)
		}
	}
	per := 4
	if len(syms) > 0 {
		per = max/len(syms) - 3
		if per < 1 {
			per = 1
		}
	}
	for _, s := range syms {
		add(s.addr)
		add(s.addr + 1)
		add(s.addr + s.size - 1)
		for k := 1; k <= per; k++ {
			add(s.addr + s.size*uint64(k)/uint64(per+1))
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	if len(out) > max {
		step := float64(len(out)) / float64(max)
		var thin []uint64
		for i := 0.0; int(i) < len(out); i += step {
			thin = append(thin, out[int(i)])
		}
		out = thin
	}
	return out
}

// spanLo returns the starts of c's spans, however c holds them.
func (c *chains) spanLo() []uint64 {
	if c.lo32 == nil {
		return c.lo
	}
	lo := make([]uint64, len(c.lo32))
	for i, v := range c.lo32 {
		lo[i] = c.base + uint64(v)
	}
	return lo
}

// spanHi returns the ends of c's spans, however c holds them.
func (c *chains) spanHi() []uint64 {
	if c.hi32 == nil {
		return c.hi
	}
	hi := make([]uint64, len(c.hi32))
	for i, v := range c.hi32 {
		hi[i] = c.base + uint64(v)
	}
	return hi
}

// eachUnit calls f with every unit of every fixture that loads.
func eachUnit(t testing.TB, f func(path string, o *object, h dwinfo.Header, u *dwinfo.Unit)) {
	for _, path := range fixtures(t) {
		o, ok := openObject(t, path)
		if !ok {
			continue
		}
		hs, err := o.d.Headers()
		if err != nil {
			continue
		}
		for _, h := range hs {
			if u, err := o.d.LoadUnit(h); err == nil {
				f(path, o, h, u)
			}
		}
	}
}
