// Package slide turns runtime program counters into the file (link-time)
// addresses that debug info speaks of. A loader places an image at a load
// address L while the linker laid it out at A; every address in it moves by
// the slide S = L - A, and a runtime PC maps back to PC - S.
//
// It holds address arithmetic and the parsers that recover load addresses
// from the outside world: the "Binary Images" of Apple crash reports (.ips
// JSON and the classic text form), /proc/PID/maps, and plain
// (module, load address) lists. It takes plain numbers and structs and
// imports no object-format package; callers fill in link addresses and ELF
// program headers from elfx or macho.
//
// Robustness: no input makes a parser panic, loop without bound or allocate
// beyond a small multiple of its size. Malformed lines yield a *DecodeError
// (package "slide", section naming the format, offset of the line's first
// byte, or for .ips of the JSON syntax error) wrapping one of the sentinels.
package slide

import (
	"cmp"
	"slices"
	"sort"

	"github.com/symbolize-go/symbolize/internal/buf"
)

// DecodeError says where a parser met bad input; its Err wraps one of the
// sentinels below. It is the same type in every package of this module.
type DecodeError = buf.DecodeError

// Sentinel causes, for errors.Is.
var (
	ErrTruncated = buf.ErrTruncated
	ErrFormat    = buf.ErrFormat
	ErrOverflow  = buf.ErrOverflow
)

const pkg = "slide"

// Slide returns S = load - link, modulo 2^64: an image linked above its
// load address has a "negative" slide, which wraps and unwraps exactly.
func Slide(load, link uint64) uint64 { return load - link }

// Unslide returns the link-time address of a runtime pc: pc - S.
func Unslide(pc, slide uint64) uint64 { return pc - slide }

// Module is one loaded image: its runtime range and what is known about the
// file behind it. Fields a source does not provide stay zero.
type Module struct {
	Name string // short name: "libsystem_kernel.dylib", "libc.so.6"
	Path string // full path when known
	// Start is the runtime address of the image (the __TEXT load address
	// for Mach-O) or, for a /proc/PID/maps line, of the mapping.
	Start uint64
	// End is the first address past the module or mapping; 0 when unknown
	// (an Index then lets the module run up to the next one).
	End uint64
	// Offset is the file offset mapped at Start (/proc/PID/maps only).
	Offset uint64
	// Link is the link-time address corresponding to Start: the __TEXT
	// vmaddr of a Mach-O image (0x100000000 for executables, usually 0 for
	// dylibs), which the caller fills from the binary. Reports do not carry
	// it.
	Link uint64
	UUID string // as the source prints it, e.g. "3B1C0A6E-..." or lower-case hex
	Arch string // "arm64e", "x86_64", ... when given
	// Perms is the permission field of a maps line ("r-xp").
	Perms string
}

// FileAddr maps a runtime pc inside m to its link-time address,
// pc - (Start - Link). For ELF mappings use ELFFileAddr instead, which
// accounts for the mapping's file offset.
func (m *Module) FileAddr(pc uint64) uint64 { return pc - Slide(m.Start, m.Link) }

// Index finds the module containing a PC. It is immutable after NewIndex
// and safe for concurrent use.
type Index struct {
	mods []Module // sorted by Start; End filled in
}

// NewIndex copies mods, sorts them by Start and fills each unknown End with
// the next module's Start (or the top of the address space), so that
// crash-report lists with only base addresses still partition the space.
func NewIndex(mods []Module) *Index {
	x := &Index{mods: slices.Clone(mods)}
	slices.SortStableFunc(x.mods, func(a, b Module) int { return cmp.Compare(a.Start, b.Start) })
	for i := range x.mods {
		if x.mods[i].End != 0 {
			continue
		}
		x.mods[i].End = ^uint64(0)
		if i+1 < len(x.mods) {
			x.mods[i].End = x.mods[i+1].Start
		}
	}
	return x
}

// Modules returns the sorted modules; the slice must not be modified.
func (x *Index) Modules() []Module { return x.mods }

// Lookup returns the module whose [Start, End) holds pc. Modules are
// expected not to overlap: only the one starting nearest at or below pc is
// considered. Cost: O(log n), no allocation.
func (x *Index) Lookup(pc uint64) (*Module, bool) {
	i := sort.Search(len(x.mods), func(i int) bool { return x.mods[i].Start > pc })
	// x.mods[:i] start at or below pc; the nearest is the candidate.
	if i > 0 && pc < x.mods[i-1].End {
		return &x.mods[i-1], true
	}
	return nil, false
}

// Segment is one ELF PT_LOAD program header, filled by the caller (elfx, or
// debug/elf). Only loadable segments should be passed.
type Segment struct {
	Vaddr  uint64 // p_vaddr
	Offset uint64 // p_offset
	Filesz uint64 // p_filesz
	Memsz  uint64 // p_memsz
	Flags  uint32 // p_flags: PF_X = 1, PF_W = 2, PF_R = 4
	Align  uint64 // p_align (MappingBase reads it; 0 or 1: no alignment)
}

// ELFSlide returns S = load - link for an ELF image whose first PT_LOAD
// (lowest p_vaddr) was placed at load. The kernel and ld.so map whole
// pages, so a load address read from /proc/PID/maps is page-aligned; pass
// pageSize (e.g. 4096) to align the link address down the same way, or 0 when
// load is the exact runtime address of p_vaddr. ok is false without segments.
func ELFSlide(load uint64, segs []Segment, pageSize uint64) (s uint64, ok bool) {
	if len(segs) == 0 {
		return 0, false
	}
	link := segs[0].Vaddr
	for _, sg := range segs[1:] {
		link = min(link, sg.Vaddr)
	}
	if pageSize != 0 && pageSize&(pageSize-1) == 0 {
		link &^= pageSize - 1
	}
	return Slide(load, link), true
}

// ELFFileAddr maps a runtime pc inside the file-backed mapping m (from
// /proc/PID/maps: Start, End, Offset) of a PIE executable or shared library
// to its link-time address, following pprof's mapping logic: the pc's file
// offset pc - Start + Offset is located in the PT_LOAD segment whose file
// bytes hold it, and rebased to that segment's p_vaddr. Segments are
// searched by file range first, then by their page-aligned range (text that
// shares a page with the segment before it). Non-PIE (ET_EXEC) images are
// not relocated: pass fixed = true and the pc is returned as is. ok is false
// when pc is outside m or no segment holds its offset. Cost O(len(segs)).
func ELFFileAddr(m *Module, segs []Segment, pc uint64, fixed bool) (addr uint64, ok bool) {
	if pc < m.Start || (m.End != 0 && pc >= m.End) {
		return 0, false
	}
	if fixed {
		return pc, true
	}
	off := pc - m.Start + m.Offset
	if off < m.Offset { // wrapped
		return 0, false
	}
	for _, s := range segs {
		if off >= s.Offset && off-s.Offset < s.Filesz {
			return off - s.Offset + s.Vaddr, true
		}
	}
	// The loader maps whole pages: bytes before p_offset on its first page
	// belong to the mapping too, at the matching distance before p_vaddr.
	const page = 4096
	for _, s := range segs {
		lo := s.Offset &^ (page - 1)
		if off >= lo && off < s.Offset+max(s.Filesz, s.Memsz) {
			return s.Vaddr - (s.Offset - off), true
		}
	}
	return 0, false
}
