//go:build amd64 && !purego

package inflate

import (
	"encoding/binary"
	"unsafe"
)

// The assembly fast loop (fast_amd64.s) runs where the CPU has BMI2
// (Intel from 2013, AMD from 2015): its shifts by a variable count
// (SHRX, SHLX, BZHI) take one micro-op, where the SHR by CL that Go
// emits for amd64 v1 takes up to three on Intel and needs the count in
// CX; and it keeps all of the loop's state in registers, where Go's
// register allocator keeps some of it on the stack. It takes the same
// steps as fastGo, in the same order, on the same tables, and leaves
// the Decoder in the same state. The purego build tag leaves it out.
var useAsm = hasBMI2()

// hasBMI2 reports whether the CPU has the BMI2 instructions (CPUID leaf
// 7, EBX bit 8).
func hasBMI2() bool

// fastState is the assembly loop's state, read and written by offset:
// keep fast_amd64.s in step with the field order. The pointers point
// into the slices fastAsm is given; the loop moves in and out forward.
type fastState struct {
	in      unsafe.Pointer    // 0: the next input byte not yet in bits
	inEnd   unsafe.Pointer    // 8: the last input byte an iteration may start at
	out     unsafe.Pointer    // 16: the next output byte
	outEnd  unsafe.Pointer    // 24: the last output byte an iteration may start at
	outBase unsafe.Pointer    // 32: the output's start (a distance may reach back to it)
	bits    uint64            // 40
	nbits   uint64            // 48: as in fastGo, exact in its low 8 bits
	e       uint64            // 56: the next literal/length entry
	lit     *[litSize]uint32  // 64
	dist    *[distSize]uint32 // 72
	status  uint64            // 80: why it stopped, one of the fs constants
}

// Why the assembly loop stopped.
const (
	fsBounds  = iota // an end of its input or output was reached
	fsEOB            // the end of the block
	fsBadLit         // errBadLit
	fsBadDist        // errBadDist
	fsFar            // errFar
)

// fastLoop runs the loop from st until a reason in st.status.
//
//go:noescape
func fastLoop(st *fastState)

// asmSlice bounds the output of one fastLoop call: the loop has no
// preemption points, and a collection that stops the world waits for it
// to return (256 KiB take about half a millisecond).
const asmSlice = 256 << 10

// fastAsm is fast in assembly, a slice of output at a time.
func (d *Decoder) fastAsm(out []byte, o int) (int, error) {
	in := d.in
	pos, bits, nbits := d.pos, d.bits, d.nbits
	lt := &d.lit
	inEnd, outEnd := len(in)-fastIn, len(out)-fastOut
	e := lt[bits&(1<<litBits-1)]
	if nbits < litBits && pos <= inEnd {
		bits |= binary.LittleEndian.Uint64(in[pos:]) << (nbits & 63)
		pos += int(7 - nbits>>3&7)
		nbits |= 56
		e = lt[bits&(1<<litBits-1)]
	}
	inBase := uintptr(unsafe.Pointer(unsafe.SliceData(in)))
	st := fastState{bits: bits, nbits: uint64(nbits), e: uint64(e), lit: lt, dist: &d.dist}
	for pos <= inEnd && o <= outEnd {
		st.in, st.inEnd = unsafe.Pointer(&in[pos]), unsafe.Pointer(&in[inEnd])
		st.out, st.outEnd = unsafe.Pointer(&out[o]), unsafe.Pointer(&out[min(outEnd, o+asmSlice)])
		st.outBase = unsafe.Pointer(unsafe.SliceData(out))
		fastLoop(&st)
		pos = int(uintptr(st.in) - inBase)
		o = int(uintptr(st.out) - uintptr(st.outBase))
		if st.status != fsBounds {
			break
		}
	}
	var err error
	switch st.status {
	case fsEOB:
		d.state = stHeader
	case fsBadLit:
		err = errBadLit
	case fsBadDist:
		err = errBadDist
	case fsFar:
		err = errFar
	}
	return d.fastExit(o, pos, st.bits, uint(st.nbits), err)
}
