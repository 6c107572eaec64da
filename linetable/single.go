package linetable

import (
	"cmp"
	"io"
	"slices"
	"sync"
)

// NewTableFor is NewTable for a caller that looks up pc first and may look
// up little else (one address from the command line, the first of a
// program's unit): it decodes the whole program once without keeping its
// rows, to learn where each sequence starts and which one a lookup of pc
// picks, and keeps the rows of that sequence alone. A lookup that would
// pick another sequence builds the whole Table first (once; the Table is
// safe for concurrent use), as do Sequences, Rows and Len, so every answer
// is NewTable's, and so are the header and the error.
//
// With Options.SectionOf (a relocatable object) it is NewTable.
func NewTableFor(data []byte, off uint64, opts *Options, pc uint64) (*Table, error) {
	o := optsOrZero(opts)
	if o.SectionOf != nil {
		return NewTable(data, off, opts)
	}
	var r Reader
	if err := r.init(data, off, o); err != nil {
		return nil, err
	}
	// Every sequence's extent, in program order.
	type extent struct {
		low, high  uint64
		start, end int // offsets of its first opcode and past its end_sequence
	}
	var seqs []extent
	r.recordEnds = true
	var chunk [128]Row
	var low uint64
	startSeq := true
	for {
		k := r.fill(chunk[:])
		if k == 0 {
			break
		}
		for j := range chunk[:k] {
			row := &chunk[j]
			if startSeq {
				low, startSeq = row.Address, false
			}
			if startSeq = row.EndSequence; startSeq {
				seqs = append(seqs, extent{low: low, high: row.Address})
			}
		}
	}
	err := r.end()
	if err == io.EOF {
		err = nil
	}
	if len(r.seqEnds) != len(seqs) {
		return NewTable(data, off, opts) // cannot happen: each end is recorded
	}
	start := r.start
	for i := range seqs {
		seqs[i].start, seqs[i].end = start, r.seqEnds[i]
		start = r.seqEnds[i]
	}
	// Empty and inverted sequences are dropped, as NewTable drops them;
	// the rest sorted by High as NewTable sorts them, and pc's found as
	// Table.lookup finds it.
	seqs = slices.DeleteFunc(seqs, func(s extent) bool { return s.low >= s.high })
	slices.SortStableFunc(seqs, func(a, b extent) int { return cmp.Compare(a.high, b.high) })
	i, _ := slices.BinarySearchFunc(seqs, pc, func(s extent, pc uint64) int {
		if s.high <= pc {
			return -1
		}
		return 1
	})
	h := r.h
	h.Files = slices.Clip(slices.Clone(r.h.Files))
	part := &partial{data: data, off: off, opts: opts, lo: pc, last: pc}
	if i == len(seqs) || pc < seqs[i].low {
		// No sequence holds pc: a Table without rows answers it.
		return &Table{h: h, part: part}, err
	}
	// Every address in [lo, last] picks the same sequence: the first by
	// High above it is seqs[i], which starts at or below it.
	s := seqs[i]
	part.lo, part.last = s.low, s.high-1
	if i > 0 {
		part.lo = max(part.lo, seqs[i-1].high)
	}
	r.recordEnds, r.seqEnds = false, nil
	r.start = s.start
	r.p = r.p[:s.end]
	r.Reset()
	t, err1 := newTableForm(&r, true)
	if err1 != nil || len(t.seqs) != 1 {
		return NewTable(data, off, opts) // cannot happen: it decoded before
	}
	t.h, t.part = h, part
	return t, err
}

// partial is what a Table from NewTableFor needs to build the whole
// Table, and the addresses its own rows answer.
type partial struct {
	data []byte
	off  uint64
	opts *Options
	// lo and last bound the addresses whose lookups the rows answer
	// (last inclusive: a Table for pc 2^64-1 holds that address).
	lo, last uint64
	once     sync.Once
	whole    *Table
	// keep: a Table of NewTable whose Options.Keep dropped rows: each
	// lookup finds whether it needs them (find), whatever lo and last say.
	// again is its Options.Again.
	keep  bool
	again func(build func(data []byte)) error
}

// all returns t's whole Table: t itself unless NewTableFor built it.
func (t *Table) all() *Table {
	p := t.part
	if p == nil {
		return t
	}
	p.once.Do(func() {
		// The program decoded before: the error (which NewTableFor
		// returned) is the same again.
		build := func(data []byte) { p.whole, _ = NewTable(data, p.off, p.opts) }
		if p.again != nil {
			// On an error, a Table without rows below: the error is
			// the caller's to report.
			p.again(build)
		} else {
			build(p.data)
		}
		if p.whole == nil {
			p.whole = &Table{h: *t.Header()} // cannot happen: the header decoded
		}
	})
	return p.whole
}

// answers returns the Table that answers pc: t, or its whole Table when
// t is partial and pc is outside what its rows answer.
func (t *Table) answers(pc uint64) *Table {
	if p := t.part; p != nil && !p.keep && (pc < p.lo || pc > p.last) {
		return t.all()
	}
	return t
}
