//go:build !unix

package mmap

import "os"

// Map is not implemented here: it always returns ErrUnavailable.
func Map(*os.File) (*Mapping, error) { return nil, ErrUnavailable }

// Close does nothing.
func (m *Mapping) Close() error { return nil }
