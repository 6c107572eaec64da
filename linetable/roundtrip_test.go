package linetable

import (
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/symbolize-go/symbolize/internal/dw"
)

// The round-trip property: for every encodable row list and header,
// decode(assemble(rows)) == rows, the decoded header equals the assembled
// one, and Table.Lookup agrees with a brute-force search of the rows. The
// same generator serves a seeded random test and FuzzRoundTrip.

// rtChooser is where the generator gets its choices: a seeded PRNG, or the
// fuzzer's bytes.
type rtChooser interface {
	Intn(n int) int // in [0, n); n > 0
	Uint64() uint64
}

type rtRand struct{ r *rand.Rand }

func (c rtRand) Intn(n int) int { return c.r.IntN(n) }
func (c rtRand) Uint64() uint64 { return c.r.Uint64() }

// rtBytes draws choices from fuzz input; once it is used up every choice is
// 0, so any input yields a program.
type rtBytes struct{ data []byte }

func (c *rtBytes) byte() byte {
	if len(c.data) == 0 {
		return 0
	}
	b := c.data[0]
	c.data = c.data[1:]
	return b
}

func (c *rtBytes) Intn(n int) int {
	v := int(c.byte())
	if n > 256 {
		v = v<<8 | int(c.byte())
	}
	return v % n
}

func (c *rtBytes) Uint64() uint64 {
	var v uint64
	for range 8 {
		v = v<<8 | uint64(c.byte())
	}
	return v
}

func rtPick[T any](c rtChooser, xs ...T) T { return xs[c.Intn(len(xs))] }

// rtGenHeader chooses a header: any version, format, address size and
// program parameters, and for DWARF 5 a mix of entry forms.
func rtGenHeader(c rtChooser) Header {
	h := DefaultHeader(uint16(2 + c.Intn(4)))
	h.Dwarf64 = c.Intn(4) == 0
	h.AddressSize = rtPick[uint8](c, 8, 8, 4, 4, 2, 1)
	h.MinInstLength = rtPick[uint8](c, 1, 1, 1, 2, 4, 0, 3)
	if h.Version >= 4 {
		h.MaxOpsPerInst = rtPick[uint8](c, 1, 1, 1, 2, 3, 4, 255)
	}
	h.DefaultIsStmt = c.Intn(4) != 0
	h.LineBase = int8(c.Intn(24) - 20)
	h.LineRange = uint8(1 + c.Intn(24))
	if c.Intn(16) == 0 {
		h.LineRange = uint8(1 + c.Intn(255))
	}
	h.OpcodeBase = rtPick[uint8](c, 13, 13, 13, 1, 4, 10, 14, 20, 255)
	h.StandardOpcodeLengths = StandardOpcodeLengths(h.OpcodeBase)
	for i := 12; i < len(h.StandardOpcodeLengths); i++ {
		h.StandardOpcodeLengths[i] = uint8(c.Intn(4))
	}

	nd, nf := 1+c.Intn(3), 1+c.Intn(4)
	if h.Version >= 5 {
		pathForm := func() uint64 {
			return uint64(rtPick(c, dw.FormString, dw.FormLineStrp, dw.FormStrp, dw.FormStrx1, dw.FormStrx))
		}
		h.DirFormats = []EntryFormat{{LNCTPath, pathForm()}}
		h.FileFormats = []EntryFormat{{LNCTPath, pathForm()}, {LNCTDirectoryIndex, uint64(rtPick(c, dw.FormUdata, dw.FormData1, dw.FormData2))}}
		md5 := c.Intn(2) == 0
		if md5 {
			h.FileFormats = append(h.FileFormats, EntryFormat{LNCTMD5, uint64(dw.FormData16)})
		}
		sized := c.Intn(3) == 0
		if sized {
			h.FileFormats = append(h.FileFormats, EntryFormat{LNCTSize, uint64(dw.FormUdata)}, EntryFormat{LNCTTimestamp, uint64(dw.FormData4)})
		}
		if c.Intn(3) == 0 {
			// A vendor content type (DW_LNCT_LLVM_source) the decoder
			// must skip by its form.
			h.FileFormats = append(h.FileFormats, EntryFormat{0x2001, uint64(rtPick(c, dw.FormLineStrp, dw.FormString, dw.FormBlock, dw.FormData8))})
		}
		if c.Intn(2) == 0 {
			rtShuffle(c, h.FileFormats)
		}
		h.Dirs = make([]string, nd)
		for i := range h.Dirs {
			h.Dirs[i] = fmt.Sprintf("/d%d", c.Intn(4))
		}
		h.Files = make([]File, nf)
		for i := range h.Files {
			f := &h.Files[i]
			f.Name = fmt.Sprintf("f%d.c", c.Intn(8))
			f.Dir = uint64(c.Intn(nd))
			if md5 {
				f.HasMD5 = true
				for j := range f.MD5 {
					f.MD5[j] = byte(c.Intn(256))
				}
			}
			if sized {
				f.Size = uint64(c.Intn(1 << 16))
				f.MTime = uint64(c.Intn(1 << 30))
			}
		}
	} else {
		h.Dirs = []string{""}
		for range nd - 1 {
			h.Dirs = append(h.Dirs, fmt.Sprintf("/d%d", c.Intn(4)))
		}
		h.Files = []File{{}}
		for range nf {
			h.Files = append(h.Files, File{
				Name: fmt.Sprintf("f%d.c", c.Intn(8)), Dir: uint64(c.Intn(nd)),
				MTime: uint64(c.Intn(1 << 20)), Size: c.Uint64() >> c.Intn(64),
			})
		}
	}
	return h
}

func rtShuffle[T any](c rtChooser, xs []T) {
	for i := len(xs) - 1; i > 0; i-- {
		j := c.Intn(i + 1)
		xs[i], xs[j] = xs[j], xs[i]
	}
}

// rtGenRows chooses sequences that lie in disjoint address ranges, in a
// random order, whose registers change only where the header has an opcode
// to change them. Rows may still be unencodable (say, no special opcode and
// no DW_LNS_copy); the caller skips those.
func rtGenRows(c rtChooser, h *Header) []Row {
	has := func(op Opcode) bool { return op < Opcode(h.OpcodeBase) }
	maxOps := uint64(1)
	if h.Version >= 4 {
		maxOps = uint64(h.MaxOpsPerInst)
	}
	addrMax := uint64(1)<<(8*uint(h.AddressSize)) - 1
	if h.AddressSize == 8 {
		addrMax = ^uint64(0)
	}
	nseq := c.Intn(5)
	slot := addrMax / uint64(nseq+1)
	var seqs [][]Row
	for i := range nseq {
		base := uint64(i) * slot
		limit := base + slot/2
		if slot > 8 {
			base += uint64(c.Intn(int(min(slot/4, 1<<20))))
		}
		r := Row{Address: base, File: 1, Line: 1, IsStmt: h.DefaultIsStmt}
		if maxOps > 1 {
			r.OpIndex = uint32(c.Intn(int(maxOps)))
		}
		var seq []Row
		n := 1 + c.Intn(12)
		for j := 0; j <= n; j++ {
			if j > 0 {
				rtAdvance(c, h, &r, maxOps, limit)
			}
			if has(OpSetFile) && c.Intn(4) == 0 {
				r.File = uint32(c.Intn(len(h.Files) + 1))
			}
			if has(OpAdvanceLine) || c.Intn(2) == 0 {
				switch c.Intn(8) {
				case 0:
					r.Line = uint32(c.Intn(1 << 20))
				case 1:
					r.Line = uint32(c.Uint64())
				default:
					r.Line = uint32(max(0, int64(r.Line)+int64(c.Intn(12))-3))
				}
			}
			if has(OpSetColumn) && c.Intn(3) == 0 {
				r.Column = uint32(c.Intn(200))
			}
			if has(OpNegateStmt) && c.Intn(6) == 0 {
				r.IsStmt = !r.IsStmt
			}
			if has(OpSetISA) && c.Intn(10) == 0 {
				r.ISA = uint32(c.Intn(5))
			}
			r.Discriminator = 0
			if c.Intn(6) == 0 {
				r.Discriminator = uint32(c.Intn(1 << 10))
			}
			r.BasicBlock = has(OpSetBasicBlock) && c.Intn(8) == 0
			r.PrologueEnd = has(OpSetPrologueEnd) && c.Intn(8) == 0
			r.EpilogueBegin = has(OpSetEpilogueBegin) && c.Intn(8) == 0
			r.EndSequence = j == n
			seq = append(seq, r)
		}
		seqs = append(seqs, seq)
	}
	rtShuffle(c, seqs)
	return slices.Concat(seqs...)
}

// rtAdvance moves r's address and op_index forward, staying at or below
// limit.
func rtAdvance(c rtChooser, h *Header, r *Row, maxOps, limit uint64) {
	var d uint64
	switch c.Intn(6) {
	case 0, 1: // same address
	case 2, 3: // a multiple of min_inst_length
		d = uint64(c.Intn(40)) * uint64(h.MinInstLength)
	case 4: // anything small
		d = uint64(c.Intn(300))
	case 5: // a jump
		d = uint64(c.Intn(1 << 20))
	}
	if r.Address > limit || d > limit-r.Address {
		d = 0
	}
	r.Address += d
	if maxOps > 1 {
		op := uint64(c.Intn(int(maxOps)))
		if d == 0 {
			op = max(op, uint64(r.OpIndex))
		}
		r.OpIndex = uint32(op)
	}
}

// rtCheck assembles rows under h, decodes them back and compares. It
// reports whether the rows were encodable.
func rtCheck(t *testing.T, name string, h *Header, rows []Row, opts *AsmOptions, pcs []uint64) bool {
	t.Helper()
	out, err := Assemble(h, rows, opts)
	if errors.Is(err, ErrNotEncodable) {
		return false
	}
	if err != nil {
		t.Fatalf("%s: assemble: %v", name, err)
	}
	got, r, err := rtDecode(out)
	if err != nil {
		t.Fatalf("%s: decode: %v\nheader %+v\nrows %+v", name, err, h, rows)
	}
	if !slices.Equal(rows, got) {
		d := cmp.Diff(rows, got, cmpopts.EquateEmpty())
		t.Fatalf("%s: rows (-assembled +decoded):\n%s\nheader %+v", name, d, h)
	}
	rtCheckHeader(t, name, h, r.Header())

	tab, err := NewTable(out.Line, out.Offset, out.Options())
	if err != nil {
		t.Fatalf("%s: NewTable: %v", name, err)
	}
	rtCheckTable(t, name, tab, rows, pcs)
	return true
}

func rtCheckHeader(t *testing.T, name string, want, got *Header) {
	t.Helper()
	w := *want
	// Fields the assembler does not take, or that the decoder derives.
	w.Offset, w.UnitLength, w.HeaderLength, w.ProgramOffset, w.EndOffset = got.Offset, got.UnitLength, got.HeaderLength, got.ProgramOffset, got.EndOffset
	if w.Version < 4 {
		w.MaxOpsPerInst = 1
	}
	g := *got
	rtNilEmpty(&w)
	rtNilEmpty(&g)
	if !reflect.DeepEqual(&w, &g) { // cmp.Diff is too slow for every program
		t.Fatalf("%s: header (-assembled +decoded):\n%s", name, cmp.Diff(&w, &g))
	}
}

// rtNilEmpty makes h's empty slices nil, so that DeepEqual compares
// contents only.
func rtNilEmpty(h *Header) {
	if len(h.StandardOpcodeLengths) == 0 {
		h.StandardOpcodeLengths = nil
	}
	if len(h.DirFormats) == 0 {
		h.DirFormats = nil
	}
	if len(h.FileFormats) == 0 {
		h.FileFormats = nil
	}
	if len(h.Dirs) == 0 {
		h.Dirs = nil
	}
	if len(h.Files) == 0 {
		h.Files = nil
	}
}

// rtExpectedSequences returns the sequences of rows a Table keeps: those
// whose first row is below their end row.
func rtExpectedSequences(rows []Row) [][]Row {
	var seqs [][]Row
	start := 0
	for i, r := range rows {
		if !r.EndSequence {
			continue
		}
		if s := rows[start : i+1]; s[0].Address < r.Address {
			seqs = append(seqs, s)
		}
		start = i + 1
	}
	return seqs
}

// rtLookup is Table.Lookup by brute force: among the kept sequences, the
// one with the lowest end above pc must start at or below pc; the answer is
// its last row at or below pc.
func rtLookup(seqs [][]Row, pc uint64) (Row, bool) {
	var best []Row
	for _, s := range seqs {
		if high := s[len(s)-1].Address; high > pc && (best == nil || high < best[len(best)-1].Address) {
			best = s
		}
	}
	if best == nil || best[0].Address > pc {
		return Row{}, false
	}
	var row Row
	for _, r := range best {
		if r.Address <= pc && !r.EndSequence {
			row = r
		}
	}
	return row, true
}

func rtCheckTable(t *testing.T, name string, tab *Table, rows []Row, pcs []uint64) {
	t.Helper()
	seqs := rtExpectedSequences(rows)
	slices.SortFunc(seqs, func(a, b []Row) int {
		return cmpUint(a[len(a)-1].Address, b[len(b)-1].Address)
	})
	var gotSeqs [][]Row
	for s := range tab.Sequences() {
		gotSeqs = append(gotSeqs, slices.Collect(tab.Rows(s)))
	}
	if !slices.EqualFunc(seqs, gotSeqs, slices.Equal) {
		d := cmp.Diff(seqs, gotSeqs, cmpopts.EquateEmpty())
		t.Fatalf("%s: table sequences (-want +got):\n%s", name, d)
	}
	probe := func(pc uint64) {
		want, wok := rtLookup(seqs, pc)
		got, ok := tab.Lookup(pc)
		if ok != wok || got != want {
			t.Fatalf("%s: Lookup(%#x) = %+v, %v; brute force %+v, %v", name, pc, got, ok, want, wok)
		}
	}
	for _, r := range rows {
		probe(r.Address - 1)
		probe(r.Address)
		probe(r.Address + 1)
	}
	for _, pc := range pcs {
		probe(pc)
	}
}

func cmpUint(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func TestRoundTripRandom(t *testing.T) {
	n := 5000
	if testing.Short() {
		n = 300
	}
	encoded := 0
	for seed := range uint64(n) {
		c := rtRand{rand.New(rand.NewPCG(seed, 0x5eed))}
		h := rtGenHeader(c)
		rows := rtGenRows(c, &h)
		opts := &AsmOptions{BigEndian: c.Intn(2) == 0, SetAddressFirst: c.Intn(3) == 0}
		if c.Intn(3) == 0 {
			opts.Line = rtPrefix(t, rtVariant{h.Version, h.Dwarf64, opts.BigEndian})
		}
		pcs := []uint64{0, ^uint64(0), c.Uint64(), c.Uint64() >> c.Intn(64)}
		if rtCheck(t, fmt.Sprintf("seed %d", seed), &h, rows, opts, pcs) {
			encoded++
		}
	}
	// The generator avoids most unencodable rows; if almost none encode,
	// the test is not testing anything.
	if encoded < n*3/4 {
		t.Errorf("only %d of %d random programs were encodable", encoded, n)
	}
	t.Logf("%d of %d random programs encodable and round-tripped", encoded, n)
}

// TestRoundTripCompact checks that under the default header the automatic
// encoding of a typical compiler row stream averages under 1.2 bytes a row:
// the shortest-encoding rules are in effect, not just correct.
func TestRoundTripCompact(t *testing.T) {
	c := rtRand{rand.New(rand.NewPCG(1, 2))}
	h := DefaultHeader(5)
	var rows []Row
	r := Row{Address: 0x401000, File: 0, Line: 10, IsStmt: true}
	for range 1000 {
		rows = append(rows, r)
		r.Address += uint64(1 + c.Intn(8))
		r.Line = uint32(int(r.Line) + c.Intn(4) - 1)
	}
	r.EndSequence = true
	rows = append(rows, r)
	out, err := Assemble(&h, rows, nil)
	if err != nil {
		t.Fatal(err)
	}
	perRow := float64(out.EndOffset-out.ProgramOffset) / float64(len(rows))
	if perRow > 1.2 {
		t.Errorf("%.2f bytes a row; special opcodes should cover nearly every row", perRow)
	}
	if got, _, err := rtDecode(out); err != nil || !slices.Equal(got, rows) {
		t.Errorf("round trip failed: %v", err)
	}
}

func FuzzRoundTrip(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{3, 0, 0, 1, 0, 0, 0, 0, 2, 5, 1, 1, 1, 1, 7, 7, 7, 7, 3, 3, 3, 3, 3, 3, 3, 3})
	for seed := range uint64(8) {
		r := rand.New(rand.NewPCG(seed, 0xf022))
		b := make([]byte, 64+16*seed)
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c := &rtBytes{data}
		h := rtGenHeader(c)
		opts := &AsmOptions{BigEndian: c.Intn(2) == 0, SetAddressFirst: c.Intn(2) == 0}
		pcs := []uint64{c.Uint64(), c.Uint64()}
		rows := rtGenRows(c, &h)
		rtCheck(t, "fuzz", &h, rows, opts, pcs)
	})
}

// TestReaderNextAllocs checks the promise that Next allocates nothing per
// row (no DW_LNE_define_file here).
func TestReaderNextAllocs(t *testing.T) {
	out := rtBenchProgram(t, 2000)
	r, err := NewReader(out.Line, out.Offset, out.Options())
	if err != nil {
		t.Fatal(err)
	}
	var row Row
	n := 0
	allocs := testing.AllocsPerRun(20, func() {
		r.Reset()
		n = 0
		for r.Next(&row) == nil {
			n++
		}
	})
	if n != 2001 {
		t.Fatalf("decoded %d rows, want 2001", n)
	}
	if allocs != 0 {
		t.Errorf("Next: %v allocations per program of %d rows, want 0", allocs, n)
	}

	tab, err := NewTable(out.Line, out.Offset, out.Options())
	if err != nil {
		t.Fatal(err)
	}
	if a := testing.AllocsPerRun(100, func() { tab.Lookup(0x401234) }); a != 0 {
		t.Errorf("Lookup: %v allocations, want 0", a)
	}
}

// rtBenchProgram is a compiler-like program of n rows in one sequence.
func rtBenchProgram(tb testing.TB, n int) *Assembled {
	c := rtRand{rand.New(rand.NewPCG(7, 7))}
	h := DefaultHeader(5)
	var rows []Row
	r := Row{Address: 0x401000, File: 0, Line: 10, IsStmt: true}
	for range n {
		rows = append(rows, r)
		r.Address += uint64(1 + c.Intn(12))
		r.Line = uint32(max(1, int(r.Line)+c.Intn(9)-3))
		r.Column = uint32(c.Intn(3) * 4)
		r.Discriminator = 0
		if c.Intn(10) == 0 {
			r.Discriminator = 1
		}
	}
	r.EndSequence = true
	rows = append(rows, r)
	out, err := Assemble(&h, rows, &AsmOptions{SetAddressFirst: true})
	if err != nil {
		tb.Fatal(err)
	}
	return out
}

func BenchmarkAsmReaderNext(b *testing.B) {
	out := rtBenchProgram(b, 10000)
	r, err := NewReader(out.Line, out.Offset, out.Options())
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.SetBytes(int64(out.EndOffset - out.ProgramOffset))
	var row Row
	rows := 0
	for b.Loop() {
		r.Reset()
		for {
			if err := r.Next(&row); err != nil {
				if err != io.EOF {
					b.Fatal(err)
				}
				break
			}
			rows++
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(rows), "ns/row")
}
