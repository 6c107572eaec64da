// Package mmap maps files read-only into memory, for the packages that
// hand out section bytes without copying them (elfx, locate), and hands
// out anonymous memory outside the Go heap for large buffers whose
// lifetime is a mapped file's (elfx's inflated sections).
package mmap

import "errors"

// ErrUnavailable says a file cannot be mapped here (an empty or
// non-regular file, or a platform without mmap); read it instead.
var ErrUnavailable = errors.New("mmap unavailable")

// Mapping is a read-only shared mapping of a whole file.
type Mapping struct {
	Data []byte // the file's bytes; nil after Close
}

// Mapped reports whether m still maps its file (it has not been closed).
func (m *Mapping) Mapped() bool { return m.Data != nil }
