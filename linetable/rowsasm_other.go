//go:build !amd64 || purego

package linetable

import "unsafe"

// No assembly here: fill decodes every opcode in Go.
var useRowsAsm = false

type rowState struct {
	p, pLast, dst unsafe.Pointer
	rem           uint64
	tab           *[256][5]uint64
	addr, line    uint64
	fileHi, col   uint64
	stmt, isaHi   uint64
	base, flags   uint64
}

func rowsAsm(st *rowState) { panic("linetable: no rowsAsm here") }

const (
	rowsExt = 1 << iota
	rowsDefaultStmt
)
