package symbolize

import (
	"cmp"
	"debug/elf"
	"encoding/binary"
	"slices"
	"sync"

	"github.com/symbolize-go/symbolize/elfx"
	"github.com/symbolize-go/symbolize/internal/buf"
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
	// lazySection returns the section ".debug_X" inflating front to back
	// when it is stored compressed; nil otherwise (reading it whole is
	// then cheap). Its Release and Again, when set, give back the memory
	// of inflated bytes that will not be read again and inflate the
	// section anew for a reader that needs them after all.
	lazySection(name string) *buf.Lazy
}

// A sizedSource tells the decompressed size of a DWARF section (".debug_X")
// without reading it: 0 when absent.
type sizedSource interface {
	dwarfSize(name string) uint64
}

// An evicter is a source whose mapped files can give their resident pages
// back without losing them: all of them (elfx.File.Evict), or those of
// bytes it handed out (elfx.File.EvictBytes; others are left alone).
type evicter interface {
	evict()
	evictBytes(b []byte)
}

func (e *elfSource) evict() {
	e.bin.Evict()
	if e.dbg != nil {
		e.dbg.Evict()
	}
}

func (e *elfSource) evictBytes(b []byte) {
	e.bin.EvictBytes(b)
	if e.dbg != nil {
		e.dbg.EvictBytes(b)
	}
}

// elfSource is an ELF binary with its separate debug file, if any.
type elfSource struct {
	bin *elfx.File
	dbg *elfx.File // nil without a separate debug file
	// debugSyms lets dbg's .symtab stand in for a stripped bin's
	// (Options.DebugFileSymbols).
	debugSyms bool

	// For a relocatable object: lineSections' answer, made once.
	objOnce              sync.Once
	sectionOf, pcSection func(uint64) uint32

	goTab pclnState // a Go binary's .gopclntab (pclntab_source.go)
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

func (e *elfSource) lazySection(name string) *buf.Lazy {
	s := e.dwarfFile().Section(name)
	// A relocatable object's debug sections are relocated whole.
	if s == nil || !s.HasData() || s.Compression == elfx.CompressNone || s.Relocated() {
		return nil
	}
	l := buf.NewLazy(nil, s.Size, s.Prefix)
	l.Release = s.Release
	l.Again = func() (*buf.Lazy, error) {
		a, err := s.Again()
		if err != nil {
			return nil, err
		}
		d, err := a.Data()
		fresh := buf.NewLazy(d, 0, nil)
		fresh.Release = a.Release
		return fresh, err
	}
	return l
}

func (e *elfSource) dwarfSize(name string) uint64 {
	if s := e.dwarfFile().Section(name); s != nil && s.HasData() {
		return s.Size
	}
	return 0
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

// symbolAt answers what symbols and symtab.New's Lookup(pc) would, with
// the same error, in one pass over the same tables (symtab.LookupELF);
// handled is false for a file whose symbol addresses need mending
// (opdAddresses). untag is Options.UntagSymbols.
func (e *elfSource) symbolAt(pc uint64, untag bool) (m symtab.Match, found bool, err error, handled bool) {
	if hasOPD(e.bin) || e.dbg != nil && hasOPD(e.dbg) {
		return symtab.Match{}, false, nil, false
	}
	m, found, n, err := scanELFSymbols(e.bin, false, pc, untag)
	if n == 0 && err == nil && e.dbg != nil && e.debugSyms {
		m, found, n, err = scanELFSymbols(e.dbg, false, pc, untag)
	}
	if n > 0 || err != nil {
		return m, found, err, true
	}
	m, found, _, err = scanELFSymbols(e.bin, true, pc, untag)
	return m, found, err, true
}

// elfSymbols returns f's .symtab (or its .dynsym) and the options to read
// it with.
func elfSymbols(f *elfx.File, dynamic bool) (elfx.SymbolTable, symtab.ELFOptions, bool, error) {
	var t elfx.SymbolTable
	var ok bool
	var err error
	if dynamic {
		t, ok, err = f.DynamicSymbols()
	} else {
		t, ok, err = f.Symbols()
	}
	return t, symtab.ELFOptions{
		Class64:     t.Class == elf.ELFCLASS64,
		BigEndian:   t.BigEndian,
		Machine:     uint16(f.Machine),
		NumSections: uint32(len(f.Sections)),
		Section:     t.Section,
	}, ok && err == nil, err
}

func readELFSymbols(f *elfx.File, dynamic bool) ([]symtab.Symbol, error) {
	t, opts, ok, err := elfSymbols(f, dynamic)
	if !ok {
		return nil, err
	}
	syms, err := symtab.ReadELF(t.Syms, t.Strings, opts)
	opdAddresses(f, syms)
	return syms, err
}

// scanELFSymbols is readELFSymbols and a Table's Lookup(pc) in one pass,
// the addresses untagged with untag.
func scanELFSymbols(f *elfx.File, dynamic bool, pc uint64, untag bool) (symtab.Match, bool, int, error) {
	t, opts, ok, err := elfSymbols(f, dynamic)
	if !ok {
		return symtab.Match{}, false, 0, err
	}
	opts.Untag = untag
	return symtab.LookupELF(t.Syms, t.Strings, opts, pc)
}

// opdAddresses gives the symbols of a big-endian 64-bit PowerPC file the
// addresses LLVM 14's SymbolizableObjectFile gives them: an address that
// falls within .opd, taken as an offset from the section's address, is a
// function descriptor, whose first doubleword (the section's bytes as
// stored, unrelocated) is the function's code address [ELFv1 ABI 3.2.5].
// In an object file every section is at 0, so LLVM maps every symbol below
// .opd's size through the zeros of its unrelocated descriptors, and so do
// we; in a linked ELFv1 binary the descriptors hold the entry points.
func opdAddresses(f *elfx.File, syms []symtab.Symbol) {
	if !hasOPD(f) {
		return
	}
	sec := f.Section(".opd")
	if sec == nil || !sec.HasData() {
		return
	}
	opd, err := sec.Data()
	if err != nil {
		return
	}
	for i := range syms {
		s := &syms[i]
		off := s.Addr - sec.Addr // wraps below the section, as in LLVM
		if off <= uint64(len(opd)) && uint64(len(opd))-off >= 8 {
			s.Addr = binary.BigEndian.Uint64(opd[off:])
		}
	}
}

// hasOPD reports a big-endian 64-bit PowerPC file (ELFv1), whose symbol
// addresses opdAddresses mends.
func hasOPD(f *elfx.File) bool {
	return f.Machine == elf.EM_PPC64 && f.Data == elf.ELFDATA2MSB && f.Class == elf.ELFCLASS64
}

// codeRanges returns the ranges of an executable's or shared object's code
// sections, those of a relocatable object's as its addresses are read
// (objectCodeRanges), or nil for files without section headers.
func (e *elfSource) codeRanges() [][2]uint64 {
	f := e.bin
	if f.Type == elf.ET_REL {
		return objectCodeRanges(f) // source.go, relocatable objects
	}
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

// answerers: the DWARF of the binary or of its debug file, then a Go
// binary's .gopclntab.
func (e *elfSource) answerers() []answerer { return []answerer{dwarfAnswerer{}, pclnAnswerer{}} }

// namers: the binary's symbol table, then a Go binary's function table.
func (e *elfSource) namers() []namer { return []namer{symtabNamer{}, pclnNamer{}} }

func (e *elfSource) close() error {
	err := e.bin.Close()
	if e.dbg != nil {
		if e2 := e.dbg.Close(); err == nil {
			err = e2
		}
	}
	return err
}

// --- Relocatable objects (ET_REL) ------------------------------------------
//
// In a .o file or a kernel module every section starts at address 0, so
// the functions of .text, .text.unlikely, .init.text or of each
// -ffunction-sections section overlap, and elfx applies the relocations
// of the debug sections, which leaves each address relative to its own
// section. llvm-symbolizer 14 reads an address of an object as being in
// the first code section (SHF_EXECINSTR, not SHT_NOBITS, in section-header
// order) whose [sh_addr, sh_addr+sh_size) holds it
// (SymbolizableObjectFile::getModuleSectionIndexForAddress), and takes its
// line from the line-table sequences of that section alone (a
// DW_LNE_set_address names its section through its relocation); the DIEs
// and the symbol table answer by address alone, whatever the section.

// objectRegion is a range of addresses that one code section answers for.
type objectRegion struct {
	lo, hi  uint64
	section uint32 // section index
}

// objectRegions splits the addresses of f's code sections into the
// ranges where the first section holding them is the same: sorted and
// disjoint (adjacent ones may belong to different sections).
func objectRegions(f *elfx.File) []objectRegion {
	var code []*elfx.Section
	var cuts []uint64
	for _, s := range f.Sections {
		if s.Flags&elf.SHF_EXECINSTR != 0 && s.Type != elf.SHT_NOBITS && s.FileSize > 0 && s.Addr+s.FileSize > s.Addr {
			code = append(code, s)
			cuts = append(cuts, s.Addr, s.Addr+s.FileSize)
		}
	}
	slices.Sort(cuts)
	cuts = slices.Compact(cuts)
	var out []objectRegion
	// Between two cuts no section starts or ends, so one section answers
	// for the whole span. Objects have few code sections, but a kernel
	// module with -ffunction-sections has thousands: the scan per span
	// stops at the first section that holds it.
	for i := 0; i+1 < len(cuts); i++ {
		lo, hi := cuts[i], cuts[i+1]
		for _, s := range code {
			if s.Addr <= lo && hi <= s.Addr+s.FileSize {
				if n := len(out); n > 0 && out[n-1].hi == lo && out[n-1].section == uint32(s.Index) {
					out[n-1].hi = hi
				} else {
					out = append(out, objectRegion{lo, hi, uint32(s.Index)})
				}
				break
			}
		}
	}
	return out
}

// objectCodeRanges returns the regions of objectRegions as code ranges:
// DWARF answers only there (a DIE of an object covers no address outside
// its code sections), and a Batch reuses an answer only within one region.
func objectCodeRanges(f *elfx.File) [][2]uint64 {
	regs := objectRegions(f)
	r := make([][2]uint64, len(regs))
	for i, g := range regs {
		r[i] = [2]uint64{g.lo, g.hi}
	}
	return r
}

// lineSections returns, for a relocatable object, the functions that make
// its line tables answer per section (linetable.Options.SectionOf and
// PCSection, keyed by section index); nil for other files.
func (e *elfSource) lineSections() (sectionOf, pcSection func(uint64) uint32) {
	e.objOnce.Do(func() { e.sectionOf, e.pcSection = e.objectLines() })
	return e.sectionOf, e.pcSection
}

func (e *elfSource) objectLines() (sectionOf, pcSection func(uint64) uint32) {
	f := e.dwarfFile()
	line := f.Section(".debug_line")
	if f.Type != elf.ET_REL || line == nil {
		return nil, nil
	}
	regs := objectRegions(e.bin)
	sectionOf = func(off uint64) uint32 {
		if i, ok := line.RelocationSection(off); ok {
			return uint32(i)
		}
		return 0
	}
	pcSection = func(pc uint64) uint32 {
		i, ok := slices.BinarySearchFunc(regs, pc, func(g objectRegion, pc uint64) int {
			switch {
			case g.hi <= pc:
				return -1
			case g.lo > pc:
				return 1
			}
			return 0
		})
		if !ok {
			return 0
		}
		return regs[i].section
	}
	return sectionOf, pcSection
}

// relocationErrs returns the first relocation each debug section read so
// far could not take (elfx skips them, as LLVM does).
func (e *elfSource) relocationErrs() []error {
	var errs []error
	for _, s := range e.dwarfFile().Sections {
		if err := s.RelocationErr(); err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}
