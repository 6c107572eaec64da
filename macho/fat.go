package macho

import (
	"errors"
	"fmt"

	"github.com/symbolize-go/symbolize/internal/buf"
)

const secFat = "fat"

// FatArch is one slice of a universal file.
type FatArch struct {
	CPU    CPU
	SubCPU uint32
	Offset uint64 // of the slice within the universal file
	Size   uint64
	Align  uint32 // log2 of the slice alignment
}

// Arch returns the slice's architecture name.
func (a FatArch) Arch() string { return ArchName(a.CPU, a.SubCPU) }

// Fat is a parsed universal header.
type Fat struct {
	Magic  uint32 // MagicFat or MagicFat64
	Arches []FatArch
	data   []byte
}

// maxFatArches bounds nfat_arch beyond what the file size allows; real
// universal files have a handful of slices, and Java class files share the
// 0xcafebabe magic with a "count" that is their version number (>= 45).
const maxFatArches = 32

// IsFat reports whether data begins with a universal header.
func IsFat(data []byte) bool {
	r := buf.New(pkg, secFat, data, true)
	m := r.U32()
	return r.Err() == nil && (m == MagicFat || m == MagicFat64)
}

// HasMagic reports whether data (at least its first 4 bytes) begins with a
// Mach-O magic number: a thin header of either byte order, or a universal
// header (big-endian only). 0xcafebabe is also the magic of Java class
// files, which ParseFat rejects.
func HasMagic(data []byte) bool {
	if len(data) < 4 {
		return false
	}
	be := uint32(data[0])<<24 | uint32(data[1])<<16 | uint32(data[2])<<8 | uint32(data[3])
	le := uint32(data[3])<<24 | uint32(data[2])<<16 | uint32(data[1])<<8 | uint32(data[0])
	return be == Magic32 || be == Magic64 || le == Magic32 || le == Magic64 || be == MagicFat || be == MagicFat64
}

// ParseFat decodes a universal header (FAT_MAGIC with fat_arch entries or
// FAT_MAGIC_64 with fat_arch_64 entries). Every slice must lie within data,
// after the header, and not overlap another slice.
func ParseFat(data []byte) (*Fat, error) {
	r := buf.New(pkg, secFat, data, true)
	ft := &Fat{Magic: r.U32(), data: data}
	n := r.U32()
	if r.Err() != nil {
		return nil, r.Err()
	}
	entSize := uint64(20)
	switch ft.Magic {
	case MagicFat:
	case MagicFat64:
		entSize = 32
	default:
		return nil, buf.Errorf(pkg, secFat, 0, ErrFormat, "bad magic %#x", ft.Magic)
	}
	if n == 0 {
		return nil, buf.Errorf(pkg, secFat, 4, ErrFormat, "no architectures")
	}
	if n > maxFatArches {
		return nil, buf.Errorf(pkg, secFat, 4, ErrLimit, "%d architectures (limit %d)", n, maxFatArches)
	}
	if uint64(n) > uint64(r.Len())/entSize {
		return nil, buf.Errorf(pkg, secFat, 4, ErrTruncated, "%d fat_arch entries run past end of file", n)
	}
	hdrEnd := 8 + uint64(n)*entSize
	ft.Arches = make([]FatArch, n)
	for i := range ft.Arches {
		a := &ft.Arches[i]
		entOff := r.Offset()
		a.CPU, a.SubCPU = CPU(r.U32()), r.U32()
		if ft.Magic == MagicFat64 {
			a.Offset, a.Size, a.Align = r.U64(), r.U64(), r.U32()
			r.U32() // reserved
		} else {
			a.Offset, a.Size, a.Align = uint64(r.U32()), uint64(r.U32()), r.U32()
		}
		if r.Err() != nil {
			return nil, r.Err()
		}
		end := a.Offset + a.Size
		if end < a.Offset || end > uint64(len(data)) {
			return nil, buf.Errorf(pkg, secFat, entOff, ErrTruncated, "slice %d (%s) %#x+%#x runs past end of file %#x", i, a.Arch(), a.Offset, a.Size, len(data))
		}
		if a.Offset < hdrEnd {
			return nil, buf.Errorf(pkg, secFat, entOff, ErrFormat, "slice %d (%s) at %#x overlaps the fat header", i, a.Arch(), a.Offset)
		}
		for j := range i {
			b := &ft.Arches[j]
			if a.Offset < b.Offset+b.Size && b.Offset < end && a.Size > 0 && b.Size > 0 {
				return nil, buf.Errorf(pkg, secFat, entOff, ErrFormat, "slice %d (%s) overlaps slice %d (%s)", i, a.Arch(), j, b.Arch())
			}
		}
	}
	return ft, nil
}

// Slice returns the bytes of slice a, aliasing the universal file.
func (ft *Fat) Slice(a FatArch) []byte { return ft.data[a.Offset : a.Offset+a.Size : a.Offset+a.Size] }

// Find returns the slice for arch, which is a name ArchName produces.
func (ft *Fat) Find(arch string) (FatArch, bool) {
	for _, a := range ft.Arches {
		if a.Arch() == arch {
			return a, true
		}
	}
	return FatArch{}, false
}

// Parse parses slice a as a thin image; its File.Offset records where the
// slice begins.
func (ft *Fat) Parse(a FatArch) (*File, error) {
	f, err := Parse(ft.Slice(a))
	if err != nil {
		var de *DecodeError
		if errors.As(err, &de) && de.Section == secHeader {
			// Report offsets in the universal file, the one the user has.
			de.Offset += a.Offset
			de.Section = fmt.Sprintf("mach-o[%s]", a.Arch())
		}
		return nil, err
	}
	f.Offset = a.Offset
	if f.Header.CPU != a.CPU {
		return nil, buf.Errorf(pkg, secFat, a.Offset, ErrFormat, "slice says cputype %#x, its header %#x", uint32(a.CPU), uint32(f.Header.CPU))
	}
	return f, nil
}

// ArchNotFoundError is returned by Select when the requested architecture
// is absent; Have lists what the file offers.
type ArchNotFoundError struct {
	Want string
	Have []string
}

func (e *ArchNotFoundError) Error() string {
	return fmt.Sprintf("macho: no %q slice (file has %v)", e.Want, e.Have)
}

// Select parses data, thin or universal, and returns the image for arch
// ("arm64", "arm64e", "x86_64", "i386", ...). An empty arch accepts a thin
// file of any architecture or a universal file with exactly one slice. A
// thin file of another architecture, or a universal file without the slice,
// yields *ArchNotFoundError.
func Select(data []byte, arch string) (*File, error) {
	if !IsFat(data) {
		f, err := Parse(data)
		if err != nil {
			return nil, err
		}
		if arch != "" && f.Arch() != arch {
			return nil, &ArchNotFoundError{Want: arch, Have: []string{f.Arch()}}
		}
		return f, nil
	}
	ft, err := ParseFat(data)
	if err != nil {
		return nil, err
	}
	if arch == "" {
		if len(ft.Arches) == 1 {
			return ft.Parse(ft.Arches[0])
		}
		return nil, &ArchNotFoundError{Want: arch, Have: ft.archNames()}
	}
	a, ok := ft.Find(arch)
	if !ok {
		return nil, &ArchNotFoundError{Want: arch, Have: ft.archNames()}
	}
	return ft.Parse(a)
}

func (ft *Fat) archNames() []string {
	names := make([]string, len(ft.Arches))
	for i, a := range ft.Arches {
		names[i] = a.Arch()
	}
	return names
}
