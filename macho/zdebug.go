package macho

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"sync"

	"github.com/symbolize-go/symbolize/internal/buf"
	"github.com/symbolize-go/symbolize/internal/inflate"
)

// Go's linker compresses the DWARF of Mach-O images by default
// (-ldflags=-compressdwarf=true): each __DWARF,__debug_X section is stored as
// __zdebug_X holding the bytes "ZLIB", the inflated size as 8 big-endian
// bytes, then a zlib stream (cmd/link's compressSyms). llvm-symbolizer-14
// reads none of it; Go's debug/macho does.

// zdebugMagic opens every __zdebug_* section.
const zdebugMagic = "ZLIB"

// maxZRatio caps the declared inflated size at this multiple of the
// compressed bytes (plus a page): DWARF inflates by far less, and a lying
// header must not size a buffer. Past it the section is ErrLimit.
const maxZRatio = 1024

// ZSection is a compressed DWARF section (__zdebug_X), inflated lazily:
// Prefix inflates only as far as asked, keeping the decoder to go on from
// there. It is safe for concurrent use.
type ZSection struct {
	Name string // the Mach-O section name, "__zdebug_info"
	Size uint64 // the inflated size the header declares

	mu   sync.Mutex
	src  []byte // the zlib stream
	d    *inflate.Decoder
	out  []byte
	done bool // out (or err) is final
	err  error
}

// zcache holds a File's ZSections, each made once.
type zcache struct {
	mu sync.Mutex
	m  map[string]*ZSection
}

// CompressedDWARF returns the DWARF section name (".debug_info" or
// "__debug_info") when the image stores it compressed as __zdebug_X; ok is
// false when it does not. A header that is not "ZLIB" and a size is a
// *DecodeError. The same *ZSection is returned on every call.
func (f *File) CompressedDWARF(name string) (z *ZSection, ok bool, err error) {
	zname := "__z" + debugBase(name)
	if len(zname) > 16 {
		zname = zname[:16]
	}
	s := f.Section("__DWARF", zname)
	if s == nil {
		return nil, false, nil
	}
	if f.z == nil {
		return nil, false, nil // a File not made by Parse
	}
	f.z.mu.Lock()
	defer f.z.mu.Unlock()
	if z := f.z.m[zname]; z != nil {
		return z, true, z.hdrErr()
	}
	z = &ZSection{Name: zname}
	data, err := f.SectionData(s)
	switch {
	case err != nil:
		z.fail(err)
	case len(data) < 12 || !bytes.HasPrefix(data, []byte(zdebugMagic)):
		z.fail(buf.Errorf(pkg, "__DWARF,"+zname, 0, ErrFormat, "compressed section has no %q header", zdebugMagic))
	default:
		z.Size = binary.BigEndian.Uint64(data[4:12])
		z.src = data[12:]
		if z.Size/maxZRatio > uint64(len(z.src))+4096 {
			z.fail(buf.Errorf(pkg, "__DWARF,"+zname, 4, ErrLimit, "declared size %#x for %#x compressed bytes", z.Size, len(z.src)))
		}
	}
	if f.z.m == nil {
		f.z.m = map[string]*ZSection{}
	}
	f.z.m[zname] = z
	return z, true, z.hdrErr()
}

// debugBase turns ".debug_X" or "__debug_X" into "debug_X".
func debugBase(name string) string {
	for len(name) > 0 && (name[0] == '.' || name[0] == '_') {
		name = name[1:]
	}
	return name
}

// hdrErr returns the error found before any inflating (a bad header).
func (z *ZSection) hdrErr() error {
	if z.done && z.out == nil {
		return z.err
	}
	return nil
}

func (z *ZSection) fail(err error) { z.done, z.out, z.err = true, nil, err }

// Data inflates the whole section.
func (z *ZSection) Data() ([]byte, error) { return z.Prefix(math.MaxUint64) }

// Prefix returns at least the first n bytes of the inflated section (all
// of it when n >= Size). The result aliases the section's buffer and must
// not be modified; its capacity is clipped.
func (z *ZSection) Prefix(n uint64) ([]byte, error) {
	z.mu.Lock()
	defer z.mu.Unlock()
	if z.done {
		return z.out, z.err
	}
	if z.d == nil {
		d, err := inflate.NewZlib(z.src)
		if err != nil {
			z.fail(z.streamErr(err))
			return nil, z.err
		}
		z.d = d
	}
	want := min(n, z.Size)
	const chunk = 64 << 10
	for uint64(len(z.out)) < want {
		if len(z.out) == cap(z.out) {
			c := min(max(2*uint64(cap(z.out)), chunk, want), z.Size)
			nb := make([]byte, len(z.out), c)
			copy(nb, z.out)
			z.out = nb
		}
		end := min(uint64(len(z.out))+max(want-uint64(len(z.out)), chunk), uint64(cap(z.out)))
		m, err := z.d.DecodeTo(z.out[:end], len(z.out))
		z.out = z.out[:len(z.out)+m]
		switch {
		case err == io.EOF:
			if uint64(len(z.out)) < z.Size {
				z.fail(buf.Errorf(pkg, z.section(), uint64(len(z.out)), ErrTruncated,
					"zlib stream ends after %#x bytes; the header declares %#x", len(z.out), z.Size))
				return nil, z.err
			}
		case err != nil:
			z.fail(z.streamErr(err))
			return nil, z.err
		case m == 0:
			// With room DecodeTo makes progress or ends; never spin.
			z.fail(buf.Errorf(pkg, z.section(), uint64(len(z.out)), ErrFormat, "zlib decoder makes no progress"))
			return nil, z.err
		}
	}
	if uint64(len(z.out)) == z.Size {
		// Whole: the stream must end here (and its checksum match).
		if _, err := z.d.DecodeTo(z.out, len(z.out)); err != io.EOF {
			z.fail(buf.Errorf(pkg, z.section(), z.Size, ErrFormat, "zlib stream goes on past the declared size %#x", z.Size))
			return nil, z.err
		}
		z.done, z.d = true, nil
	}
	return z.out[:len(z.out):len(z.out)], nil
}

// streamErr wraps an error of the zlib decoder in a *DecodeError at the
// inflated offset reached.
func (z *ZSection) streamErr(err error) error {
	sentinel := ErrFormat
	if errors.Is(err, io.ErrUnexpectedEOF) {
		sentinel = ErrTruncated
	}
	return buf.Errorf(pkg, z.section(), uint64(len(z.out)), sentinel, "zlib: %v", err)
}

// section names z in errors: "__DWARF,__zdebug_info".
func (z *ZSection) section() string { return "__DWARF," + z.Name }
