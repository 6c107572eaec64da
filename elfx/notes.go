package elfx

import (
	"bytes"
	"debug/elf"

	"github.com/symbolize-go/symbolize/internal/buf"
)

// maxNotes bounds the notes walked in one note section or segment; each
// note takes at least 12 bytes, so this only stops pathological inputs.
const maxNotes = 1 << 16

// ntGNUBuildID is NT_GNU_BUILD_ID, the GNU note type of a build ID.
const ntGNUBuildID = 3

// BuildID returns the GNU build ID, the descriptor of the NT_GNU_BUILD_ID
// note [GNU ld --build-id], and whether the file has one. It looks in the
// SHT_NOTE sections, or, in a file without section headers (stripped of
// them), in the PT_NOTE segments. The result aliases the file's data when
// the file is mapped. Cost: a walk of the note sections.
func (f *File) BuildID() ([]byte, bool, error) {
	var firstErr error
	for _, s := range f.Sections {
		if s.Type != elf.SHT_NOTE {
			continue
		}
		data, err := s.Data()
		if err != nil {
			firstErr = cmp(firstErr, err)
			continue
		}
		id, ok, err := findBuildID(data, s.Name, s.Addralign, f.Data == elf.ELFDATA2MSB)
		if ok {
			return id, true, nil
		}
		firstErr = cmp(firstErr, err)
	}
	if len(f.Sections) == 0 {
		for _, p := range f.Progs {
			if p.Type != elf.PT_NOTE {
				continue
			}
			data, err := f.bytesAt(secPhdrs, p.Off, p.Filesz)
			if err != nil {
				firstErr = cmp(firstErr, err)
				continue
			}
			id, ok, err := findBuildID(data, "PT_NOTE", p.Align, f.Data == elf.ELFDATA2MSB)
			if ok {
				return id, true, nil
			}
			firstErr = cmp(firstErr, err)
		}
	}
	return nil, false, firstErr
}

func cmp(first, err error) error {
	if first != nil {
		return first
	}
	return err
}

// findBuildID walks the notes in data [gABI 5 "Note Section"]: namesz,
// descsz and type words, then name and descriptor, each padded to the
// note alignment (4, or 8 when the section says so, as GNU ld emits for
// some 64-bit notes).
func findBuildID(data []byte, section string, align uint64, big bool) ([]byte, bool, error) {
	pad := uint64(4)
	if align == 8 {
		pad = 8
	}
	r := buf.New(pkg, section, data, big)
	for i := 0; r.Len() > 0 && i < maxNotes; i++ {
		namesz := uint64(r.U32())
		descsz := uint64(r.U32())
		typ := r.U32()
		name := r.Bytes(namesz)
		r.Skip(padding(r.Offset(), pad, uint64(r.Len())))
		desc := r.Bytes(descsz)
		r.Skip(padding(r.Offset(), pad, uint64(r.Len())))
		if err := r.Err(); err != nil {
			return nil, false, err
		}
		if typ == ntGNUBuildID && bytes.Equal(name, []byte("GNU\x00")) && len(desc) > 0 {
			return desc, true, nil
		}
	}
	return nil, false, nil
}

// padding returns how many bytes take off to a multiple of align, clipped
// to what is left so a final unpadded note still reads.
func padding(off, align, left uint64) uint64 {
	p := (align - off%align) % align
	return min(p, left)
}

// DebugLink returns the file name and CRC-32 recorded in .gnu_debuglink
// [GDB "Debugging Information in Separate Files"]: a NUL-terminated name,
// padding to a 4-byte boundary, then the CRC of the debug file in the
// file's byte order. ok is false when there is no such section.
func (f *File) DebugLink() (name string, crc uint32, ok bool, err error) {
	s := f.byName[".gnu_debuglink"]
	if s == nil {
		return "", 0, false, nil
	}
	data, err := s.Data()
	if err != nil {
		return "", 0, false, err
	}
	r := buf.New(pkg, s.Name, data, f.Data == elf.ELFDATA2MSB)
	n := r.CString()
	r.Skip(padding(r.Offset(), 4, uint64(r.Len())))
	crc = r.U32()
	if err := r.Err(); err != nil {
		return "", 0, false, err
	}
	if len(n) == 0 {
		return "", 0, false, buf.Errorf(pkg, s.Name, 0, ErrFormat, "empty debug file name")
	}
	return string(n), crc, true, nil
}

// SymbolTable is the raw bytes of a symbol table and its string table,
// for a decoder of Elf32_Sym/Elf64_Sym records (package symtab). Both
// slices alias the file when it is mapped.
type SymbolTable struct {
	Section   string // ".symtab" or ".dynsym"
	Syms      []byte // the symbol records, Entsize bytes each
	Strings   []byte // the linked string table
	Entsize   uint64 // sh_entsize; 16 (ELF32) or 24 (ELF64) in practice
	Class     elf.Class
	BigEndian bool
}

// Symbols returns the static symbol table (.symtab, SHT_SYMTAB) with its
// string table, and whether the file has one.
func (f *File) Symbols() (SymbolTable, bool, error) {
	return f.symbolTable(elf.SHT_SYMTAB)
}

// DynamicSymbols returns the dynamic symbol table (.dynsym, SHT_DYNSYM)
// with its string table, and whether the file has one.
func (f *File) DynamicSymbols() (SymbolTable, bool, error) {
	return f.symbolTable(elf.SHT_DYNSYM)
}

func (f *File) symbolTable(t elf.SectionType) (SymbolTable, bool, error) {
	s := f.SectionByType(t)
	if s == nil {
		return SymbolTable{}, false, nil
	}
	syms, err := s.Data()
	if err != nil {
		return SymbolTable{}, false, err
	}
	if s.Link == 0 || uint64(s.Link) >= uint64(len(f.Sections)) {
		return SymbolTable{}, false, buf.Errorf(pkg, secShdrs, s.hdrOff, ErrFormat, "%s: string table link %d out of range", s.Name, s.Link)
	}
	ss := f.Sections[s.Link]
	if ss.Type != elf.SHT_STRTAB {
		return SymbolTable{}, false, buf.Errorf(pkg, secShdrs, s.hdrOff, ErrFormat, "%s: linked section %d has type %v, not SHT_STRTAB", s.Name, s.Link, ss.Type)
	}
	strs, err := ss.Data()
	if err != nil {
		return SymbolTable{}, false, err
	}
	return SymbolTable{
		Section:   s.Name,
		Syms:      syms,
		Strings:   strs,
		Entsize:   s.Entsize,
		Class:     f.Class,
		BigEndian: f.Data == elf.ELFDATA2MSB,
	}, true, nil
}
