package linetable

import (
	"cmp"
	"slices"
	"testing"
	"time"
)

// BenchmarkRowsByShape measures what branch mispredictions cost the line VM.
// It cuts every line program of the benchmark binary (see benchBinary) into
// rows, each row the opcode bytes from the end of the row before through the
// opcode that appends it, and reassembles them into one program twice: in
// program order, and grouped by shape (the row's opcode sequence with the
// byte length of each operand: negate_stmt then a special opcode, say, or
// set_file, a two-byte advance_line and a special opcode), so that nearly
// every branch of the decoder goes the same way as the last time. Both
// programs hold the same bytes, opcodes and rows; only their order differs.
// program-order decodes as fast as the binary's own units do
// (BenchmarkRowsBatch); the difference from grouped is the cost of
// predicting which opcodes come next, a cost that depends on the producer's
// data, not on the decoder's arithmetic. one-shape repeats the binary's most
// common shape alone: the least a row can cost.
//
//	go test ./linetable/ -run '^$' -bench 'RowsByShape' -count 6
//
// Only units with the first unit's special-opcode parameters are used, so
// that every row means the same under the one header.
func BenchmarkRowsByShape(b *testing.B) {
	in := loadBench(b)
	var (
		h     Header
		rows  []shapedRow
		first = true
	)
	for _, off := range in.units {
		r, err := NewReader(in.line, off, &in.opts)
		if err != nil {
			b.Fatal(err)
		}
		rh := r.Header()
		if first {
			h, first = *rh, false
		} else if rh.OpcodeBase != h.OpcodeBase || rh.LineBase != h.LineBase ||
			rh.LineRange != h.LineRange || rh.MinInstLength != h.MinInstLength ||
			rh.MaxOpsPerInst != h.MaxOpsPerInst {
			continue
		}
		start := r.Offset()
		var row Row
		for r.Next(&row) == nil {
			bytes := in.line[start:r.Offset()]
			rows = append(rows, shapedRow{bytes, rowShape(bytes, rh)})
			start = r.Offset()
		}
	}
	if len(rows) == 0 {
		b.Skip("no rows")
	}
	grouped := slices.Clone(rows)
	slices.SortStableFunc(grouped, func(x, y shapedRow) int { return cmp.Compare(x.shape, y.shape) })
	// The most common shape, repeated as many times as there are rows.
	var one []shapedRow
	for i, best := 0, 0; i < len(grouped); {
		j := i
		for j < len(grouped) && grouped[j].shape == grouped[i].shape {
			j++
		}
		if j-i > best {
			best, one = j-i, grouped[i:j]
		}
		i = j
	}
	for len(one) < len(rows) {
		one = append(one[:len(one):len(one)], one...)
	}
	one = one[:len(rows)]

	for _, c := range []struct {
		name string
		rows []shapedRow
	}{{"program-order", rows}, {"grouped", grouped}, {"one-shape", one}} {
		r := assembleRows(b, &h, c.rows)
		b.Run(c.name, func(b *testing.B) {
			var dst [128]Row
			n, passes := 0, 0
			start, cpu := time.Now(), cpuTime()
			for b.Loop() {
				passes++
				r.Reset()
				for {
					k, err := r.NextRows(dst[:])
					if k == 0 {
						if err == nil {
							b.Fatal("no rows and no error")
						}
						break
					}
					n += k
				}
			}
			if want := len(c.rows) + 1; n != passes*want { // and the end_sequence
				b.Fatalf("%d rows in %d passes, want %d a pass", n, passes, want)
			}
			reportRows(b, n, start, cpu)
			b.ReportMetric(float64((cpuTime()-cpu).Nanoseconds())/float64(n), "cpu-ns/row")
		})
	}
}

// shapedRow is one row's bytes and its shape (see rowShape).
type shapedRow struct {
	bytes []byte
	shape string
}

// rowShape names a row's opcodes and the byte length of each operand, from
// its bytes (which h's program decoded without error): special opcodes are
// all one shape, as the decoder branches the same way on each.
func rowShape(p []byte, h *Header) string {
	var s []byte
	for i := 0; i < len(p); {
		op := p[i]
		i++
		switch {
		case op >= max(h.OpcodeBase, 1):
			s = append(s, 'S')
			continue
		case op == 0:
			// An extended opcode: its length, then that many bytes.
			n, k := uleb(p[i:])
			s = append(s, 'E', byte('0'+k))
			if i+k < len(p) {
				s = append(s, p[i+k]) // the sub-opcode
			}
			i += k + int(n)
			continue
		case Opcode(op) == OpFixedAdvancePC:
			s = append(s, op)
			i += 2
			continue
		}
		s = append(s, op)
		for range h.StandardOpcodeLengths[op-1] {
			_, k := uleb(p[i:])
			s = append(s, byte('0'+k))
			i += k
		}
	}
	return string(s)
}

// uleb returns the ULEB128 value at the start of p and its length in bytes.
func uleb(p []byte) (uint64, int) {
	var v uint64
	for i, c := range p {
		if i < 10 {
			v |= uint64(c&0x7f) << (7 * i)
		}
		if c < 0x80 {
			return v, i + 1
		}
	}
	return v, len(p)
}

// assembleRows writes rows' bytes as the program of one unit with h's
// special-opcode parameters, ended by an end_sequence, and returns a Reader
// of it.
func assembleRows(b *testing.B, h *Header, rows []shapedRow) *Reader {
	hh := DefaultHeader(4)
	hh.MinInstLength, hh.MaxOpsPerInst = h.MinInstLength, h.MaxOpsPerInst
	hh.LineBase, hh.LineRange, hh.OpcodeBase = h.LineBase, h.LineRange, h.OpcodeBase
	hh.StandardOpcodeLengths = h.StandardOpcodeLengths
	a, err := NewAssembler(&hh, nil)
	if err != nil {
		b.Fatal(err)
	}
	for _, r := range rows {
		a.Raw(r.bytes)
	}
	a.EndSequence()
	as := a.Finish()
	r, err := NewReader(as.Line, 0, as.Options())
	if err != nil {
		b.Fatal(err)
	}
	return r
}

// BenchmarkOpcodeWalk is the floor of any decoder that branches on each
// opcode, as this package's, gimli's and debug/dwarf's do: it walks every
// line program of the benchmark binary with fill's dispatch (special
// opcodes first, then a switch on the standard and extended ones, one-byte
// operands in the common case) but keeps no registers and writes no rows,
// only counting them. It fails unless it counts the rows the Reader
// decodes. On cmd/go the walk alone takes most of a row's time
// (bench/RESULTS.md, 2026-12-07 12:40-12:48 UTC), which is why 4x debug/dwarf
// on one core is out of reach of such decoders there.
//
//	go test ./linetable/ -run '^$' -bench 'OpcodeWalk|RowsBatch$'
func BenchmarkOpcodeWalk(b *testing.B) {
	in := loadBench(b)
	type unit struct {
		p      []byte
		start  int
		spBase uint8
	}
	var (
		units []unit
		want  int
		dst   [128]Row
	)
	for _, off := range in.units {
		r, err := NewReader(in.line, off, &in.opts)
		if err != nil {
			b.Fatal(err)
		}
		units = append(units, unit{r.p, r.off, r.spBase})
		for {
			n, _ := r.NextRows(dst[:])
			if n == 0 {
				break
			}
			want += n
		}
	}
	rows, passes := 0, 0
	var sink uint64
	start, cpu := time.Now(), cpuTime()
	for b.Loop() {
		passes++
		for _, u := range units {
			n, s := walkOpcodes(u.p, u.start, u.spBase)
			rows += n
			sink += s
		}
	}
	if rows != passes*want {
		b.Fatalf("%d rows in %d passes, want %d a pass (sum %d)", rows, passes, want, sink)
	}
	reportRows(b, rows, start, cpu)
	b.ReportMetric(float64((cpuTime()-cpu).Nanoseconds())/float64(rows), "cpu-ns/row")
}

// walkOpcodes walks the opcodes of the program p from offset i as fill
// dispatches them and returns the rows they append and a sum of bytes
// read (so that the walk cannot be optimized away). Standard opcodes past
// DW_LNS_set_isa are not skipped by their declared operand counts: the
// benchmark's row count check catches a program that has them.
func walkOpcodes(p []byte, i int, spBase uint8) (rows int, sum uint64) {
	for uint(i) < uint(len(p)) {
		op := p[i]
		i++
		if op >= spBase {
			rows++
			sum += uint64(op)
			continue
		}
		switch Opcode(op) {
		case OpNegateStmt, OpConstAddPC, OpSetPrologueEnd, OpSetBasicBlock, OpSetEpilogueBegin:
			sum++
		case OpCopy:
			rows++
		case OpAdvanceLine, OpSetFile, OpAdvancePC, OpSetColumn, OpSetISA:
			for i < len(p) && p[i] >= 0x80 {
				i++
			}
			if i < len(p) {
				sum += uint64(p[i])
			}
			i++
		case OpFixedAdvancePC:
			i += 2
		case 0: // extended: a ULEB128 length, then the sub-opcode
			n, k := uleb(p[i:])
			i += k
			if n > 0 && i < len(p) && p[i] == uint8(OpEndSequence) {
				rows++
			}
			if n > uint64(len(p)) {
				return rows, sum
			}
			i += int(n)
		}
	}
	return rows, sum
}
