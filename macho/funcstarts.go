package macho

import "github.com/symbolize-go/symbolize/internal/buf"

const secFuncStarts = "function starts"

// DecodeFunctionStarts decodes an LC_FUNCTION_STARTS stream: ULEB128 deltas,
// the first from base (the __TEXT vmaddr) and each later one from the
// previous start, ended by a zero delta or the end of data (ld64 pads the
// stream with zeros to pointer alignment). Starts are appended to dst in
// increasing order. off is data's offset in the image, for errors.
//
// Each start takes at least one byte, so the output is bounded by len(data)
// and the loop by one pass. A ULEB128 cut off by the end of data is
// ErrTruncated; a delta that overflows or wraps the address space is
// ErrOverflow. Starts decoded before an error are still appended.
// Cost: O(len(data)); allocation only when dst must grow.
func DecodeFunctionStarts(dst []uint64, data []byte, base uint64, off uint64) ([]uint64, error) {
	r := buf.New(pkg, secFuncStarts, data, false)
	addr := base
	for r.Len() > 0 {
		at := r.Offset()
		d := r.ULEB()
		if err := r.Err(); err != nil {
			return dst, rebase(err, off)
		}
		if d == 0 {
			break
		}
		if addr+d < addr {
			return dst, buf.Errorf(pkg, secFuncStarts, off+at, ErrOverflow, "delta %#x from %#x wraps the address space", d, addr)
		}
		addr += d
		dst = append(dst, addr)
	}
	return dst, nil
}

// rebase shifts a *DecodeError's offset by off.
func rebase(err error, off uint64) error {
	if de, ok := err.(*DecodeError); ok {
		de.Offset += off
	}
	return err
}

// FunctionStartAddrs decodes the image's LC_FUNCTION_STARTS relative to the
// __TEXT vmaddr, appending to dst. An image without the command, or without
// __TEXT, appends nothing. Stripped binaries keep this table, so it is
// the last word on where functions begin when no symbols remain.
func (f *File) FunctionStartAddrs(dst []uint64) ([]uint64, error) {
	fs := f.FunctionStarts
	if fs == nil {
		return dst, nil
	}
	base, ok := f.TextAddr()
	if !ok {
		return dst, nil
	}
	data := f.Data[fs.DataOff : fs.DataOff+fs.DataSize] // range checked by Parse
	return DecodeFunctionStarts(dst, data, base, uint64(fs.DataOff))
}
