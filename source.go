package symbolize

import (
	"cmp"
	"debug/elf"
	"slices"

	"github.com/symbolize-go/symbolize/elfx"
	"github.com/symbolize-go/symbolize/symtab"
)

// source is what a Binary needs from an object format: DWARF section bytes
// by their ELF names, the symbol table, and where code lives.
type source interface {
	sectionSource // the DWARF of the binary's own module
	// symbols returns every symbol-table entry (symtab.New keeps the ones
	// that name code or data).
	symbols() ([]symtab.Symbol, error)
	// codeRanges returns the sorted [start, end) ranges of code sections,
	// or nil when unknown.
	codeRanges() [][2]uint64
	// answerers returns the sources of frames in the order they are
	// tried, and namers the sources of outermost names (see answerer,
	// namer).
	answerers() []answerer
	namers() []namer
	// identity returns the module's own identity record, without files.
	identity() Identity
	close() error
}

// lazySource is a source whose compressed sections can be inflated front
// to back, only as far as needed.
type lazySource interface {
	// lazySection returns a function giving at least the first n bytes of
	// the section ".debug_X", and its size, when the section is stored
	// compressed; ok is false otherwise (reading it whole is then cheap).
	lazySection(name string) (fetch func(n uint64) ([]byte, error), size uint64, ok bool)
}

// elfSource is an ELF binary with its separate debug file, if any.
type elfSource struct {
	bin *elfx.File
	dbg *elfx.File // nil without a separate debug file
	// debugSyms lets dbg's .symtab stand in for a stripped bin's
	// (Options.DebugFileSymbols).
	debugSyms bool
}

// dwarfFile is where the debug sections live: the separate debug file when
// there is one.
func (e *elfSource) dwarfFile() *elfx.File {
	if e.dbg != nil {
		return e.dbg
	}
	return e.bin
}

func (e *elfSource) dwarfSection(name string) ([]byte, error) {
	s := e.dwarfFile().Section(name)
	if s == nil || !s.HasData() {
		return nil, nil
	}
	return s.Data()
}

func (e *elfSource) lazySection(name string) (func(uint64) ([]byte, error), uint64, bool) {
	s := e.dwarfFile().Section(name)
	if s == nil || !s.HasData() || s.Compression == elfx.CompressNone {
		return nil, 0, false
	}
	return s.Prefix, s.Size, true
}

func (e *elfSource) bigEndian() bool { return e.dwarfFile().Data == elf.ELFDATA2MSB }

// symbols returns the symbol table llvm-symbolizer 14 reads: the binary's
// own .symtab, else its .dynsym (LLVM's computeSymbolSizes falls back to the
// dynamic symbols only when .symtab is absent or empty), never the separate
// debug file's. With Options.DebugFileSymbols a stripped binary borrows the
// debug file's .symtab instead, before its .dynsym.
//
// On a table that does not decode whole it returns the entries before the
// bad one with the error: the rest of the table still names addresses.
func (e *elfSource) symbols() ([]symtab.Symbol, error) {
	st, err := readELFSymbols(e.bin, false)
	if len(st) == 0 && err == nil && e.dbg != nil && e.debugSyms {
		st, err = readELFSymbols(e.dbg, false)
	}
	if len(st) > 0 || err != nil {
		// symtab.PreferELF would take it over any .dynsym: do not
		// decode that, nor fail on it.
		return st, err
	}
	dyn, err := readELFSymbols(e.bin, true)
	return symtab.PreferELF(st, dyn), err
}

func readELFSymbols(f *elfx.File, dynamic bool) ([]symtab.Symbol, error) {
	var t elfx.SymbolTable
	var ok bool
	var err error
	if dynamic {
		t, ok, err = f.DynamicSymbols()
	} else {
		t, ok, err = f.Symbols()
	}
	if err != nil || !ok {
		return nil, err
	}
	return symtab.ReadELF(t.Syms, t.Strings, symtab.ELFOptions{
		Class64:     t.Class == elf.ELFCLASS64,
		BigEndian:   t.BigEndian,
		Machine:     uint16(f.Machine),
		NumSections: uint32(len(f.Sections)),
		Section:     t.Section,
	})
}

// codeRanges returns the ranges of an executable's or shared object's code
// sections, or nil for relocatable objects (whose sections all start at 0)
// and files without section headers.
func (e *elfSource) codeRanges() [][2]uint64 {
	f := e.bin
	if f.Type != elf.ET_EXEC && f.Type != elf.ET_DYN {
		return nil
	}
	var r [][2]uint64
	for _, s := range f.Sections {
		const want = elf.SHF_ALLOC | elf.SHF_EXECINSTR
		if s.Flags&want == want && s.Type != elf.SHT_NOBITS && s.FileSize > 0 {
			r = append(r, [2]uint64{s.Addr, s.Addr + s.FileSize})
		}
	}
	slices.SortFunc(r, func(a, b [2]uint64) int { return cmp.Compare(a[0], b[0]) })
	return r
}

// answerers: the DWARF of the binary or of its debug file.
func (e *elfSource) answerers() []answerer { return []answerer{dwarfAnswerer{}} }

// namers: the binary's symbol table.
func (e *elfSource) namers() []namer { return []namer{symtabNamer{}} }

func (e *elfSource) close() error {
	err := e.bin.Close()
	if e.dbg != nil {
		if e2 := e.dbg.Close(); err == nil {
			err = e2
		}
	}
	return err
}
