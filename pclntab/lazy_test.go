package pclntab

import "github.com/symbolize-go/symbolize/internal/buf"

// The decoder that functable.go replaced, kept as the reference the
// decoded runs are checked against: each lookup decodes the function's
// tables from its entry up to pc, and again at each inlined call's site.

// appendFramesLazy is AppendFramesRange decoding from the entry.
func (t *Table) appendFramesLazy(dst []Frame, pc uint64) (_ []Frame, lo, hi uint64, err error) {
	lo, hi = pc, pc+1
	i, ok := t.find(pc)
	if !ok {
		return dst, lo, hi, nil
	}
	f, err := t.funcAt(i)
	if err != nil {
		return dst, lo, hi, err
	}
	end, _ := t.entryAt(i + 1)
	n := len(dst)
	var inlTree uint64
	var haveTree bool
	fdi := uint8(funcdataInlTree)
	if t.version == Version12 {
		fdi = funcdataInlTree12
	}
	if t.opts.Memory != nil && f.npcdata > pcdataInlTreeIndex {
		inlTree, haveTree = t.funcdataAddr(&f, fdi)
	}
	cur := pc
	for depth := 0; ; depth++ {
		if depth > t.maxDepth {
			return dst[:n], pc, pc + 1, buf.Errorf(pkg, Section, f.off, buf.ErrLimit, "function at %#x: inline chain deeper than %d frames (a cycle?)", f.entry, t.maxDepth)
		}
		line, llo, lhi, ok, err := t.pcvalueRange(f.pcln, f.entry, end, cur)
		if err != nil || !ok {
			if err == nil && depth > 0 {
				err = buf.Errorf(pkg, Section, f.off, buf.ErrFormat, "function at %#x: no line for inlined call site %#x", f.entry, cur)
			}
			return dst[:n], pc, pc + 1, err
		}
		// A table that ends before pc (its value -1 there) holds for pc
		// alone; no table at all (offset 0) holds everywhere.
		fileno, flo, fhi, _, err := t.pcvalueRange(f.pcfile, f.entry, end, cur)
		if f.pcfile == 0 {
			flo, fhi = f.entry, end
		}
		if err != nil {
			return dst[:n], pc, pc + 1, err
		}
		if depth == 0 {
			lo, hi = max(llo, flo), min(lhi, fhi)
		}
		file, err := t.fileName(&f, fileno)
		if err != nil {
			return dst[:n], pc, pc + 1, err
		}
		ix := int32(-1)
		if haveTree {
			var err error
			var ilo, ihi uint64
			off := t.pcdataOff(&f, pcdataInlTreeIndex)
			if ix, ilo, ihi, _, err = t.pcvalueRange(off, f.entry, end, cur); err != nil {
				return dst[:n], pc, pc + 1, err
			}
			if depth == 0 && off != 0 {
				lo, hi = max(lo, ilo), min(hi, ihi)
			}
		}
		fr := Frame{File: file, Line: uint32(max(line, 0)), Entry: f.entry}
		if ix < 0 {
			fr.Function, err = t.funcName(f.nameOff)
			if err != nil {
				return dst[:n], pc, pc + 1, err
			}
			fr.StartLine = uint32(max(f.startLine, 0))
			fr.FuncID = f.funcID
			return append(dst, fr), lo, hi, nil
		}
		call, err := t.inlinedCall(inlTree, ix, f.off)
		if err != nil {
			return dst[:n], pc, pc + 1, err
		}
		if fr.Function, err = t.funcName(call.nameOff); err != nil {
			return dst[:n], pc, pc + 1, err
		}
		fr.StartLine = uint32(max(call.startLine, 0))
		fr.FuncID = call.funcID
		fr.Inlined = true
		dst = append(dst, fr)
		next := f.entry + uint64(uint32(call.parentPc))
		if call.parentPc < 0 || next >= end {
			return dst[:n], pc, pc + 1, buf.Errorf(pkg, Section, f.off, buf.ErrFormat, "function at %#x: inline tree entry %d: call site %#x outside the function", f.entry, ix, int64(call.parentPc))
		}
		cur = next
	}
}

// pcvalue returns the value that the pc-value table at pctab offset off
// gives pc, in a function whose code is [entry, end); ok is false when the
// table ends before pc (or there is none: off 0), and then val is -1. A
// table that runs past the function's end without covering pc is not
// followed further.
//
// A table is a sequence of (value delta, pc delta) pairs of varints, the
// value delta zig-zag coded, the pc delta in units of the quantum; the
// value starts at -1 and the pc at the entry, and a value delta of 0 after
// the first pair ends the table [runtime/symtab.go step].
func (t *Table) pcvalue(off uint32, entry, end, pc uint64) (val int32, ok bool, err error) {
	val, _, _, ok, err = t.pcvalueRange(off, entry, end, pc)
	return val, ok, err
}

// pcvalueRange is pcvalue that also returns the run [lo, hi) of addresses
// around pc that have the same value; [pc, pc+1) when ok is false.
func (t *Table) pcvalueRange(off uint32, entry, end, pc uint64) (val int32, lo, hi uint64, ok bool, err error) {
	lo, hi = pc, pc+1
	if off == 0 {
		return -1, lo, hi, false, nil
	}
	p := t.pctab + uint64(off)
	data := t.data
	val = -1
	cur := entry
	for first := true; ; first = false {
		uv, np, err := t.varint(data, p)
		if err != nil {
			return -1, pc, pc + 1, false, err
		}
		if uv == 0 && !first {
			return -1, pc, pc + 1, false, nil
		}
		p = np
		if uv&1 != 0 {
			uv = ^(uv >> 1)
		} else {
			uv >>= 1
		}
		val += int32(uv)
		d, np, err := t.varint(data, p)
		if err != nil {
			return -1, pc, pc + 1, false, err
		}
		p = np
		start := cur
		cur += uint64(d) * uint64(t.quantum)
		if pc < cur {
			if pc < start {
				return val, pc, pc + 1, true, nil // pc before entry
			}
			return val, start, cur, true, nil
		}
		if cur >= end {
			return -1, pc, pc + 1, false, nil
		}
	}
}
