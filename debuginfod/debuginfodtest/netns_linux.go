package debuginfodtest

import (
	"syscall"
	"unsafe"
)

// loopbackUp sets the flags IFF_UP and IFF_RUNNING of the interface "lo",
// as `ip link set lo up` does: a new network namespace has it down.
func loopbackUp() error {
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_DGRAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer syscall.Close(fd)
	var req ifreq
	copy(req.name[:], "lo")
	if err := ioctl(fd, syscall.SIOCGIFFLAGS, &req); err != nil {
		return err
	}
	req.flags |= syscall.IFF_UP | syscall.IFF_RUNNING
	return ioctl(fd, syscall.SIOCSIFFLAGS, &req)
}

// ifreq is struct ifreq with the ifr_flags member of its union.
type ifreq struct {
	name  [syscall.IFNAMSIZ]byte
	flags uint16
	_     [22]byte
}

func ioctl(fd int, req uintptr, r *ifreq) error {
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, uintptr(fd), req, uintptr(unsafe.Pointer(r))); e != 0 {
		return e
	}
	return nil
}
