//go:build !amd64 || purego

package inflate

// No assembly loop here: fast runs fastGo.
var useAsm = false

func (d *Decoder) fastAsm(out []byte, o int) (int, error) { return d.fastGo(out, o) }
