package elfx

import (
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"sync"

	"github.com/symbolize-go/symbolize/internal/buf"
	"github.com/symbolize-go/symbolize/internal/mmap"
	"github.com/symbolize-go/symbolize/locate"
)

// DecodeError says which part of the file held bad input; its Err wraps one
// of the sentinels below. It is the same type in every package of this
// module, so one errors.As serves them all. Section is a section name, or
// "ELF header", "section headers" or "program headers" for the tables.
type DecodeError = buf.DecodeError

// Sentinel causes, for errors.Is.
var (
	ErrTruncated          = buf.ErrTruncated
	ErrOverflow           = buf.ErrOverflow
	ErrUnsupportedVersion = buf.ErrUnsupportedVersion
	ErrFormat             = buf.ErrFormat
	ErrLimit              = buf.ErrLimit
)

const pkg = "elfx"

// Section names used in errors about the tables themselves.
const (
	secHeader = "ELF header"
	secShdrs  = "section headers"
	secPhdrs  = "program headers"
)

// Options tune how a file is opened. The zero value is ready to use.
type Options struct {
	// MaxRatio bounds a compressed section's declared uncompressed size
	// by its compressed size: a section declaring more than
	// MaxRatio*compressed + 64 KiB is refused with ErrLimit before
	// anything is inflated. 0 means 2048: zlib cannot exceed 1032:1, and
	// zstd output of real DWARF stays far below that, so only a lying
	// header (or a decompression bomb) trips it.
	MaxRatio uint64

	// NoMmap makes Open read section data with ReadAt into the heap
	// instead of mapping the file, so data outlives Close.
	NoMmap bool
}

func (o *Options) maxRatio() uint64 {
	if o == nil || o.MaxRatio == 0 {
		return 2048
	}
	return o.MaxRatio
}

// File is an open ELF file. Its exported fields are filled at open and
// never change; its methods are safe for concurrent use, except Close,
// which must come after all other use.
type File struct {
	Class     elf.Class // ELFCLASS32 or ELFCLASS64
	Data      elf.Data  // ELFDATA2LSB or ELFDATA2MSB
	ByteOrder binary.ByteOrder
	OSABI     elf.OSABI
	Type      elf.Type // ET_EXEC, ET_DYN, ET_REL, ET_CORE
	Machine   elf.Machine
	Entry     uint64

	// Sections holds every section header in index order, including the
	// null section 0.
	Sections []*Section

	// Progs holds the program headers in file order.
	Progs []elf.ProgHeader

	data   []byte      // the whole file when mapped or given as bytes; else nil
	ra     io.ReaderAt // always set
	size   uint64      // file size
	closer io.Closer   // owned by Open; nil otherwise
	opts   Options
	byName map[string]*Section

	anonMu sync.Mutex
	anon   [][]byte // inflated sections' memory outside the heap (alloc), freed by Close
}

// Open opens the named ELF file. Unless opts.NoMmap is set, the file is
// memory-mapped where the platform allows it, and the data of uncompressed
// sections aliases the mapping: it must not be used after Close (and, as
// with any mapping, a file truncated by another process while mapped
// faults on access). Decompressed data of a mapped file is held outside
// the Go heap and released by Close as well; with NoMmap it is on the
// heap and stays valid.
func Open(path string, opts *Options) (*File, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	fd, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	if !o.NoMmap {
		m, err := mmap.Map(fd)
		if err == nil {
			fd.Close() // the mapping outlives the descriptor
			f, err := newFile(m.Data, bytesReaderAt(m.Data), uint64(len(m.Data)), &o)
			if err != nil {
				m.Close()
				return nil, err
			}
			f.closer = m
			return f, nil
		}
		if !errors.Is(err, mmap.ErrUnavailable) {
			fd.Close()
			return nil, err
		}
	}
	st, err := fd.Stat()
	if err != nil {
		fd.Close()
		return nil, err
	}
	f, err := newFile(nil, fd, uint64(st.Size()), &o)
	if err != nil {
		fd.Close()
		return nil, err
	}
	f.closer = fd
	return f, nil
}

// NewBytes decodes an ELF file held in data. Uncompressed section data
// aliases data, which the caller must not modify.
func NewBytes(data []byte, opts *Options) (*File, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	return newFile(data, bytesReaderAt(data), uint64(len(data)), &o)
}

// NewReaderAt decodes an ELF file of size bytes read through r. Section
// data is read into the heap on first use and cached. r must stay usable
// until the File is no longer used; Close does not close it.
func NewReaderAt(r io.ReaderAt, size int64, opts *Options) (*File, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if size < 0 {
		size = 0
	}
	return newFile(nil, r, uint64(size), &o)
}

// Close releases the file opened by Open or NewLocated (unmapping it, and
// the inflated sections of a mapped file). It does nothing for files made
// by NewBytes or NewReaderAt.
func (f *File) Close() error {
	if f.closer == nil {
		return nil
	}
	c := f.closer
	f.closer = nil
	err := c.Close()
	f.freeAnon()
	return err
}

// Section returns the section called name, or nil. A name ".debug_X" also
// finds the legacy compressed ".zdebug_X", so DWARF readers need not care
// which form a producer chose. Cost: one map lookup.
func (f *File) Section(name string) *Section {
	if s := f.byName[name]; s != nil {
		return s
	}
	if rest, ok := strings.CutPrefix(name, ".debug_"); ok {
		return f.byName[".zdebug_"+rest]
	}
	return nil
}

// SectionByType returns the first section of type t, or nil.
func (f *File) SectionByType(t elf.SectionType) *Section {
	for _, s := range f.Sections {
		if s.Type == t {
			return s
		}
	}
	return nil
}

// FirstLoad returns the first PT_LOAD program header, whose p_vaddr and
// p_offset give the load bias of a mapped image, and whether there is one.
func (f *File) FirstLoad() (elf.ProgHeader, bool) {
	for _, p := range f.Progs {
		if p.Type == elf.PT_LOAD {
			return p, true
		}
	}
	return elf.ProgHeader{}, false
}

// Size returns the size of the file in bytes.
func (f *File) Size() uint64 { return f.size }

// bytesAt returns n bytes at file offset off: aliasing the mapping when
// there is one, else freshly read. n is checked against the file size
// first, so a lying header cannot force a large allocation.
func (f *File) bytesAt(section string, off, n uint64) ([]byte, error) {
	if off > f.size || n > f.size-off {
		return nil, buf.Errorf(pkg, section, off, ErrTruncated,
			"%#x bytes at file offset %#x pass the end of the file (size %#x)", n, off, f.size)
	}
	if f.data != nil {
		return f.data[off : off+n : off+n], nil
	}
	if n > math.MaxInt {
		return nil, buf.Errorf(pkg, section, off, ErrLimit, "%#x bytes do not fit in memory", n)
	}
	b := make([]byte, n)
	if _, err := f.ra.ReadAt(b, int64(off)); err != nil && !(errors.Is(err, io.EOF) && n == 0) {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, buf.Errorf(pkg, section, off, ErrTruncated, "reading %#x bytes: %v", n, err)
		}
		return nil, fmt.Errorf("elfx: %s: reading %#x bytes at file offset %#x: %w", section, n, off, err)
	}
	return b, nil
}

// Header sizes [gABI 4 "ELF Header", "Sections", "Program Header"].
const (
	identSize = 16
	ehdr32    = 52
	ehdr64    = 64
	shdr32    = 40
	shdr64    = 64
	phdr32    = 32
	phdr64    = 56
	chdr32    = 12
	chdr64    = 24

	shnXindex = 0xffff // SHN_XINDEX: real shstrndx is in section 0's sh_link
	pnXnum    = 0xffff // PN_XNUM: real phnum is in section 0's sh_info
)

func newFile(data []byte, ra io.ReaderAt, size uint64, opts *Options) (*File, error) {
	f := &File{data: data, ra: ra, size: size, opts: *opts}

	ident, err := f.bytesAt(secHeader, 0, identSize)
	if err != nil {
		return nil, buf.Errorf(pkg, secHeader, 0, ErrTruncated, "file of %d bytes is too short for an ELF header", size)
	}
	if string(ident[:4]) != elf.ELFMAG {
		return nil, buf.Errorf(pkg, secHeader, 0, ErrFormat, "bad magic %q, not an ELF file", ident[:4])
	}
	f.Class = elf.Class(ident[elf.EI_CLASS])
	f.Data = elf.Data(ident[elf.EI_DATA])
	f.OSABI = elf.OSABI(ident[elf.EI_OSABI])
	var ehsize uint64 = ehdr64
	switch f.Class {
	case elf.ELFCLASS32:
		ehsize = ehdr32
	case elf.ELFCLASS64:
	default:
		return nil, buf.Errorf(pkg, secHeader, elf.EI_CLASS, ErrFormat, "unknown class %d", ident[elf.EI_CLASS])
	}
	var big bool
	switch f.Data {
	case elf.ELFDATA2LSB:
		f.ByteOrder = binary.LittleEndian
	case elf.ELFDATA2MSB:
		f.ByteOrder, big = binary.BigEndian, true
	default:
		return nil, buf.Errorf(pkg, secHeader, elf.EI_DATA, ErrFormat, "unknown data encoding %d", ident[elf.EI_DATA])
	}
	if v := ident[elf.EI_VERSION]; v != byte(elf.EV_CURRENT) {
		return nil, buf.Errorf(pkg, secHeader, elf.EI_VERSION, ErrUnsupportedVersion, "ELF version %d", v)
	}
	hdr, err := f.bytesAt(secHeader, 0, ehsize)
	if err != nil {
		return nil, err
	}
	is64 := f.Class == elf.ELFCLASS64
	r := buf.New(pkg, secHeader, hdr, big)
	r.Seek(identSize)
	f.Type = elf.Type(r.U16())
	f.Machine = elf.Machine(r.U16())
	if v := r.U32(); v != uint32(elf.EV_CURRENT) {
		return nil, buf.Errorf(pkg, secHeader, 20, ErrUnsupportedVersion, "e_version %d", v)
	}
	f.Entry = r.Uint(addrSize(is64))
	phoff := r.Uint(addrSize(is64))
	shoff := r.Uint(addrSize(is64))
	r.U32() // e_flags
	r.U16() // e_ehsize
	phentsize := uint64(r.U16())
	phnum := uint64(r.U16())
	shentsize := uint64(r.U16())
	shnum := uint64(r.U16())
	shstrndx := uint64(r.U16())
	if err := r.Err(); err != nil {
		return nil, err
	}

	minSh, minPh := uint64(shdr32), uint64(phdr32)
	if is64 {
		minSh, minPh = shdr64, phdr64
	}

	// Extended numbering [gABI 4 "Sections"]: with 0xff00 or more
	// sections, e_shnum is 0 and section 0 carries the real counts.
	if shoff != 0 && (shnum == 0 || shstrndx == shnXindex || phnum == pnXnum) {
		if shentsize < minSh {
			return nil, buf.Errorf(pkg, secHeader, 0x2e, ErrFormat, "e_shentsize %d is below %d", shentsize, minSh)
		}
		s0, err := f.bytesAt(secShdrs, shoff, minSh)
		if err != nil {
			return nil, err
		}
		sh, _ := parseShdr(s0, is64, big)
		if shnum == 0 {
			shnum = sh.FileSize
		}
		if shstrndx == shnXindex {
			shstrndx = uint64(sh.Link)
		}
		if phnum == pnXnum {
			phnum = uint64(sh.Info)
		}
	} else if shoff == 0 {
		shnum = 0
	}

	// Program headers.
	if phnum > 0 {
		if phentsize < minPh {
			return nil, buf.Errorf(pkg, secHeader, 0x2a, ErrFormat, "e_phentsize %d is below %d", phentsize, minPh)
		}
		if phnum > f.size/phentsize {
			return nil, buf.Errorf(pkg, secPhdrs, phoff, ErrTruncated, "%d program headers of %d bytes cannot fit in a file of %d bytes", phnum, phentsize, f.size)
		}
		tab, err := f.bytesAt(secPhdrs, phoff, phnum*phentsize)
		if err != nil {
			return nil, err
		}
		f.Progs = make([]elf.ProgHeader, phnum)
		for i := range f.Progs {
			f.Progs[i] = parsePhdr(tab[uint64(i)*phentsize:], is64, big)
		}
	}

	// Section headers.
	if shnum == 0 {
		f.byName = map[string]*Section{}
		return f, nil
	}
	if shentsize < minSh {
		return nil, buf.Errorf(pkg, secHeader, 0x2e, ErrFormat, "e_shentsize %d is below %d", shentsize, minSh)
	}
	if shnum > f.size/shentsize {
		return nil, buf.Errorf(pkg, secShdrs, shoff, ErrTruncated, "%d section headers of %d bytes cannot fit in a file of %d bytes", shnum, shentsize, f.size)
	}
	tab, err := f.bytesAt(secShdrs, shoff, shnum*shentsize)
	if err != nil {
		return nil, err
	}
	f.Sections = make([]*Section, shnum)
	for i := range f.Sections {
		s := &Section{f: f, Index: i, hdrOff: shoff + uint64(i)*shentsize}
		s.SectionHeader, s.nameOff = parseShdr(tab[uint64(i)*shentsize:], is64, big)
		f.Sections[i] = s
	}

	// Names.
	f.byName = make(map[string]*Section, shnum)
	if shstrndx != 0 {
		if shstrndx >= shnum {
			return nil, buf.Errorf(pkg, secHeader, 0x3e, ErrFormat, "e_shstrndx %d is not below the section count %d", shstrndx, shnum)
		}
		ss := f.Sections[shstrndx]
		if ss.Type != elf.SHT_STRTAB {
			return nil, buf.Errorf(pkg, secShdrs, ss.hdrOff, ErrFormat, "section-name table %d has type %v, not SHT_STRTAB", shstrndx, ss.Type)
		}
		strs, err := f.bytesAt(secShdrs, ss.Offset, ss.FileSize)
		if err != nil {
			return nil, buf.Errorf(pkg, secShdrs, ss.hdrOff, ErrTruncated, "section-name table: %v", err)
		}
		for _, s := range f.Sections {
			name, ok := buf.CStringAt(strs, uint64(s.nameOff))
			if !ok && s.nameOff != 0 {
				return nil, buf.Errorf(pkg, secShdrs, s.hdrOff, ErrFormat, "section %d: name offset %#x outside the name table", s.Index, s.nameOff)
			}
			s.Name = string(name)
		}
	}
	for _, s := range f.Sections {
		s.init(is64, big)
		if s.Name != "" {
			if _, dup := f.byName[s.Name]; !dup {
				f.byName[s.Name] = s
			}
		}
	}
	return f, nil
}

func addrSize(is64 bool) int {
	if is64 {
		return 8
	}
	return 4
}

// parseShdr decodes one section header from b, which holds at least the
// minimum header size for the class, and returns it with its sh_name.
// Both classes order the fields alike; only the word-sized ones (flags,
// address, offset, size, alignment, entry size) widen.
func parseShdr(b []byte, is64, big bool) (h SectionHeader, nameOff uint32) {
	r := buf.New(pkg, secShdrs, b, big)
	w := addrSize(is64)
	nameOff = r.U32()
	h.Type = elf.SectionType(r.U32())
	h.Flags = elf.SectionFlag(r.Uint(w))
	h.Addr = r.Uint(w)
	h.Offset = r.Uint(w)
	h.FileSize = r.Uint(w)
	h.Link = r.U32()
	h.Info = r.U32()
	h.Addralign = r.Uint(w)
	h.Entsize = r.Uint(w)
	return h, nameOff
}

// parsePhdr decodes one program header; the two classes order the fields
// differently.
func parsePhdr(b []byte, is64, big bool) elf.ProgHeader {
	r := buf.New(pkg, secPhdrs, b, big)
	var p elf.ProgHeader
	p.Type = elf.ProgType(r.U32())
	if is64 {
		p.Flags = elf.ProgFlag(r.U32())
		p.Off = r.U64()
		p.Vaddr = r.U64()
		p.Paddr = r.U64()
		p.Filesz = r.U64()
		p.Memsz = r.U64()
		p.Align = r.U64()
	} else {
		p.Off = uint64(r.U32())
		p.Vaddr = uint64(r.U32())
		p.Paddr = uint64(r.U32())
		p.Filesz = uint64(r.U32())
		p.Memsz = uint64(r.U32())
		p.Flags = elf.ProgFlag(r.U32())
		p.Align = uint64(r.U32())
	}
	return p
}

// bytesReaderAt reads from an in-memory file without copying it into a
// bytes.Reader's bookkeeping.
type bytesReaderAt []byte

func (b bytesReaderAt) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 || off > int64(len(b)) {
		return 0, io.EOF
	}
	n := copy(p, b[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// WriteTo writes the whole file to w (a hash, for identity records): from
// the mapping when there is one, else read through the file.
func (f *File) WriteTo(w io.Writer) (int64, error) {
	if f.data != nil {
		n, err := w.Write(f.data)
		return int64(n), err
	}
	return io.Copy(w, io.NewSectionReader(f.ra, 0, int64(f.size)))
}

// Located returns the located file f was made from by NewLocated (how
// and where it was found), or nil.
func (f *File) Located() *locate.File {
	lf, _ := f.closer.(*locate.File)
	return lf
}
