package slide

import (
	"errors"
	"fmt"
)

// ELF file types (e_type) that MappingBase distinguishes.
const (
	ELFRel  = 1 // ET_REL
	ELFExec = 2 // ET_EXEC
	ELFDyn  = 3 // ET_DYN
)

// ELFImage is what the address arithmetic of one ELF file needs of it.
type ELFImage struct {
	Type  uint16    // e_type: ELFRel, ELFExec or ELFDyn
	Loads []Segment // the PT_LOAD program headers, in file order
	// Text is the index in Loads of the executable segment that holds
	// .text, or -1 when there is none (pprof's FindTextProgHeader).
	Text int
}

// Causes of a *MappingError, for errors.Is.
var (
	// ErrOutsideMapping: the address is not in [Start, End) of its mapping.
	ErrOutsideMapping = errors.New("address outside its mapping")
	// ErrNoSegment: no PT_LOAD segment of the file matches the mapping,
	// or none holds the address's file offset.
	ErrNoSegment = errors.New("no program header matches the mapping")
	// ErrAmbiguousSegment: two segments hold the address's file offset.
	ErrAmbiguousSegment = errors.New("two program headers match the address")
	// ErrFileType: the file is of a type (or a relocatable object mapped
	// at an offset) whose addresses cannot be rebased.
	ErrFileType = errors.New("cannot rebase addresses of this ELF file")
)

// MappingError says why a runtime address of a mapping has no file
// address; Err is one of the causes above.
type MappingError struct {
	Start, End, Offset uint64 // the mapping
	Addr               uint64 // the runtime address
	Err                error
}

func (e *MappingError) Error() string {
	return fmt.Sprintf("slide: address %#x of mapping [%#x, %#x) at offset %#x: %v", e.Addr, e.Start, e.End, e.Offset, e.Err)
}

func (e *MappingError) Unwrap() error { return e.Err }

// pageSize is the page size pprof assumes for every architecture.
const pageSize = 4096

// ppc64PageOffset is the kernel's PAGE_OFFSET on 64-bit PowerPC, which
// pprof accepts as the file offset of a kernel mapping.
const ppc64PageOffset = 0xc000000000000000

// MappingBase returns the base that is subtracted from addr, a runtime
// address inside the mapping m (Start, End and Offset as /proc/PID/maps or
// a pprof profile's Mapping give them: End is pprof's Limit), to give the
// address in img's own (link-time) address space, as the standalone pprof
// (github.com/google/pprof, internal/binutils and internal/elfexec) computes
// it for user-space ELF files:
//
//   - a mapping of the whole address space (Start 0, Offset 0, End 0 or
//     all ones) is already in file addresses: base 0;
//   - the segment is the unique PT_LOAD with file bytes that overlaps the
//     mapping's file range (not one whose aligned offset starts past it,
//     nor one the mapping only grazes in its last page), or among several,
//     the one whose file range holds addr's file offset; for an End not
//     above Start or in the upper half of the address space, the segment
//     that holds .text;
//   - ET_DYN, and ET_EXEC in the lower half of the address space:
//     Start - Offset + p_offset - p_vaddr (an ET_DYN file without a segment:
//     Start - Offset; an ET_EXEC without one: 0); ET_REL: Start, mapped at
//     offset 0 only.
//
// pprof computes a file's base once, from the first address it is asked
// about; this is computed from addr, which differs only for files whose
// segments have different p_offset - p_vaddr and are mapped by one
// mapping. pprof's kernel heuristics (vmlinux, _stext) are not applied.
// The error is a *MappingError. Cost O(len(img.Loads)), no allocation.
func MappingBase(img *ELFImage, m *Module, addr uint64) (uint64, error) {
	start, limit, offset := m.Start, m.End, m.Offset
	fail := func(err error) (uint64, error) {
		return 0, &MappingError{Start: start, End: limit, Offset: offset, Addr: addr, Err: err}
	}
	if start == 0 && offset == 0 && (limit == ^uint64(0) || limit == 0) {
		return 0, nil
	}
	if start < limit && (addr < start || addr >= limit) {
		return fail(ErrOutsideMapping)
	}
	seg, err := mappingSegment(img, start, limit, offset, addr)
	if err != nil {
		return fail(err)
	}
	switch img.Type {
	case ELFExec:
		if seg == nil {
			return 0, nil
		}
		if start > 0 && start < 1<<63 {
			return start - offset + seg.Offset - seg.Vaddr, nil
		}
		if seg.Vaddr == start-offset {
			return offset, nil
		}
		if start >= 1<<63 && limit > start && (offset == 0 || offset == ppc64PageOffset || offset == start) {
			return start - seg.Vaddr, nil
		}
		if start == 0 && limit != 0 {
			return start - seg.Vaddr, nil
		}
		return fail(ErrFileType)
	case ELFRel:
		if offset != 0 {
			return fail(ErrFileType)
		}
		return start, nil
	case ELFDyn:
		if seg == nil {
			return start - offset, nil
		}
		if seg.Vaddr == start-offset {
			return offset, nil
		}
		if start >= 1<<63 && limit > start && (offset == 0 || offset == ppc64PageOffset || offset == start) {
			return start - seg.Vaddr, nil
		}
		return start - offset + seg.Offset - seg.Vaddr, nil
	}
	return fail(ErrFileType)
}

// mappingSegment picks the segment of img that the mapping maps and that
// holds addr, as pprof's findProgramHeader does; nil without segments.
func mappingSegment(img *ELFImage, start, limit, offset, addr uint64) (*Segment, error) {
	if start >= limit || limit >= 1<<63 {
		if img.Text >= 0 && img.Text < len(img.Loads) {
			return &img.Loads[img.Text], nil
		}
		return nil, nil
	}
	if len(img.Loads) == 0 {
		return nil, nil
	}
	mapLimit := offset + (limit - start)
	var first *Segment
	n := 0
	for i := range img.Loads {
		p := &img.Loads[i]
		if !mapsSegment(p, offset, mapLimit) {
			continue
		}
		if n == 0 {
			first = p
		}
		n++
	}
	switch n {
	case 0:
		return nil, ErrNoSegment
	case 1:
		return first, nil
	}
	// Several segments share the mapping: the one whose file range (to
	// its memory size, as pprof measures it) holds addr's offset.
	fileOff := addr - start + offset
	var found *Segment
	for i := range img.Loads {
		p := &img.Loads[i]
		if !mapsSegment(p, offset, mapLimit) || fileOff < p.Offset || fileOff-p.Offset >= p.Memsz {
			continue
		}
		if found != nil {
			return nil, ErrAmbiguousSegment
		}
		found = p
	}
	if found == nil {
		return nil, ErrNoSegment
	}
	return found, nil
}

// mapsSegment reports whether the mapping of file bytes [mapOff, mapLimit)
// comes from segment p, by pprof's ProgramHeadersForMapping rules.
func mapsSegment(p *Segment, mapOff, mapLimit uint64) bool {
	if p.Filesz == 0 {
		return false // their offsets are arbitrary
	}
	segLimit := p.Offset + p.Memsz
	if mapOff >= segLimit || p.Offset >= mapLimit {
		return false
	}
	var aligned uint64
	if p.Align > 0 {
		if skew := p.Vaddr & (p.Align - 1); p.Offset > skew {
			aligned = p.Offset - skew
		}
	}
	if mapOff < aligned {
		return false
	}
	// A mapping that starts inside the segment, covers less than a page of
	// it and runs a page or more past it maps another segment.
	if mapOff > p.Offset && segLimit < mapOff+pageSize && mapLimit >= segLimit+pageSize {
		return false
	}
	return true
}
