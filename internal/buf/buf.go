// Package buf is the one bounds-checked byte reader that every decoder in
// this module uses, with LEB128, fixed-width integers in either byte order,
// DWARF initial lengths and NUL-terminated strings.
//
// A Reader has a sticky error: the first read that runs past its limit (or
// meets a malformed LEB128) records a *DecodeError naming the section and the
// absolute offset, and every later read returns zero values. Callers check
// Err once per record instead of after every field. No method panics on any
// input.
package buf

import (
	"errors"
	"fmt"
)

// Sentinel causes wrapped by *DecodeError; test for them with errors.Is.
var (
	// ErrTruncated: a read ran past the end of its section or unit.
	ErrTruncated = errors.New("truncated data")
	// ErrOverflow: a LEB128 or a computed value does not fit in 64 bits.
	ErrOverflow = errors.New("value overflows 64 bits")
	// ErrUnsupportedVersion: a header version this module does not decode.
	ErrUnsupportedVersion = errors.New("unsupported version")
	// ErrFormat: a structurally invalid field (a zero line_range, an
	// unknown form, an index out of range, ...).
	ErrFormat = errors.New("malformed data")
	// ErrLimit: the input asks for more than a configured limit allows
	// (a count, a depth, a decompressed size).
	ErrLimit = errors.New("limit exceeded")
)

// DecodeError says where a decoder met bad input. Offset is absolute within
// Section. Err wraps one of the sentinels above, possibly with detail.
type DecodeError struct {
	Package string // reporting package, e.g. "linetable"
	Section string // e.g. ".debug_line"
	Offset  uint64 // absolute offset within Section
	Err     error
}

func (e *DecodeError) Error() string {
	return fmt.Sprintf("%s: %s+%#x: %v", e.Package, e.Section, e.Offset, e.Err)
}

// Unwrap returns the cause.
func (e *DecodeError) Unwrap() error { return e.Err }

// Errorf returns a *DecodeError whose cause wraps sentinel with a formatted
// detail, e.g. Errorf("linetable", ".debug_line", off, ErrFormat, "line_range is 0").
func Errorf(pkg, section string, off uint64, sentinel error, format string, args ...any) *DecodeError {
	var err error = sentinel
	if format != "" {
		err = &detail{msg: fmt.Sprintf(format, args...), cause: sentinel}
	}
	return &DecodeError{Package: pkg, Section: section, Offset: off, Err: err}
}

// detail prints only its message but unwraps to the sentinel.
type detail struct {
	msg   string
	cause error
}

func (d *detail) Error() string { return d.msg }
func (d *detail) Unwrap() error { return d.cause }
