//go:build linux || darwin

package main

import (
	"io"
	"os"
	"syscall"
	"unsafe"
)

// waiting reports whether r is a file (a pipe, a terminal, a regular
// file) with bytes that a read would return at once, asked of the kernel
// with the FIONREAD ioctl. runStdin keeps collecting requests while it is
// true, so input already queued is answered in one large batch, which
// Batch symbolizes in address order.
func waiting(r io.Reader) bool {
	f, ok := r.(*os.File)
	if !ok {
		return false
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return false
	}
	var n int32
	var errno syscall.Errno
	if err := rc.Control(func(fd uintptr) {
		_, _, errno = syscall.Syscall(syscall.SYS_IOCTL, fd, fionread, uintptr(unsafe.Pointer(&n)))
	}); err != nil || errno != 0 {
		return false
	}
	return n > 0
}
