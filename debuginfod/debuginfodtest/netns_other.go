//go:build !linux

package debuginfodtest

import "errors"

// loopbackUp is not needed off Linux: Private never makes a namespace.
func loopbackUp() error { return errors.New("no network namespaces here") }
