package symbolize

import (
	"debug/elf"
	"sync"
	"sync/atomic"

	"github.com/symbolize-go/symbolize/elfx"
	"github.com/symbolize-go/symbolize/internal/dw"
	"github.com/symbolize-go/symbolize/internal/dwinfo"
	"github.com/symbolize-go/symbolize/linetable"
	"github.com/symbolize-go/symbolize/symtab"
)

// Binary symbolizes addresses of one ELF file (with its separate debug
// file, if any). It is safe for concurrent use: everything it decodes
// lazily (sections, the address index, each unit's line table and inline
// index, the symbol table) is built once, by the first goroutine that needs
// it, and shared read-only afterwards.
type Binary struct {
	path   string
	bin    *elfx.File
	dbg    *elfx.File // separate debug file, or nil
	opts   Options
	closed atomic.Bool

	dwarfOnce sync.Once
	dwarf     *dwarfState // nil when the file has no usable DWARF
	dwarfErr  error

	symOnce sync.Once
	syms    *symtab.Table
	symErr  error
}

func newBinary(path string, bin, dbg *elfx.File, o Options) *Binary {
	return &Binary{path: path, bin: bin, dbg: dbg, opts: o}
}

// Path returns the path the binary was opened from.
func (b *Binary) Path() string { return b.path }

// DebugFile returns the separate debug file in use, or nil.
func (b *Binary) DebugFile() *elfx.File { return b.dbg }

// ELF returns the binary itself.
func (b *Binary) ELF() *elfx.File { return b.bin }

// Close releases the files. Lookups after Close return ErrClosed; Close
// must not run while lookups are in flight.
func (b *Binary) Close() error {
	if b.closed.Swap(true) {
		return nil
	}
	err := b.bin.Close()
	if b.dbg != nil {
		if e := b.dbg.Close(); err == nil {
			err = e
		}
	}
	return err
}

// dwarfFile is where the debug sections live: the separate debug file when
// there is one.
func (b *Binary) dwarfFile() *elfx.File {
	if b.dbg != nil {
		return b.dbg
	}
	return b.bin
}

// dwarfState is the decoded view of the DWARF sections.
type dwarfState struct {
	data    *dwinfo.Data
	index   *dwinfo.Index
	line    []byte
	lineStr []byte
	str     []byte
	big     bool
	units   sync.Map // .debug_info offset -> *unitState
}

// loadDWARF decompresses the sections symbolication needs, both cores at a
// time, and builds the address index's first tier.
func (b *Binary) loadDWARF() (*dwarfState, error) {
	b.dwarfOnce.Do(func() {
		f := b.dwarfFile()
		names := [...]string{".debug_info", ".debug_abbrev", ".debug_str", ".debug_line_str",
			".debug_str_offsets", ".debug_addr", ".debug_ranges", ".debug_rnglists",
			".debug_aranges", ".debug_line"}
		var out [len(names)][]byte
		var errs [len(names)]error
		var wg sync.WaitGroup
		for i, name := range names {
			s := f.Section(name)
			if s == nil || !s.HasData() {
				continue
			}
			wg.Go(func() { out[i], errs[i] = s.Data() })
		}
		wg.Wait()
		for _, err := range errs {
			if err != nil {
				b.dwarfErr = err
				return
			}
		}
		if out[0] == nil || out[9] == nil {
			return // no DWARF: the symbol table answers alone
		}
		big := f.Data == elf.ELFDATA2MSB
		d := dwinfo.New(dwinfo.Sections{
			Info: out[0], Abbrev: out[1], Str: out[2], LineStr: out[3], StrOffsets: out[4],
			Addr: out[5], Ranges: out[6], Rnglists: out[7], Aranges: out[8], BigEndian: big,
		}, nil)
		b.dwarf = &dwarfState{data: d, index: dwinfo.NewIndex(d), line: out[9],
			lineStr: out[3], str: out[2], big: big}
	})
	return b.dwarf, b.dwarfErr
}

// unitState is one compilation unit's lazily built lookup structures.
type unitState struct {
	once    sync.Once
	unit    *dwinfo.Unit
	lines   *linetable.Table
	files   []string // resolved path of each file index of the line table ("" if invalid)
	compDir string
	funcs   *funcIndex
	err     error
}

// unit returns the loaded unit at .debug_info offset off.
func (s *dwarfState) unit(off uint64) (*unitState, error) {
	v, ok := s.units.Load(off)
	if !ok {
		v, _ = s.units.LoadOrStore(off, new(unitState))
	}
	us := v.(*unitState)
	us.once.Do(func() { us.err = s.loadUnit(us, off) })
	return us, us.err
}

func (s *dwarfState) loadUnit(us *unitState, off uint64) error {
	h, err := s.data.HeaderAt(off)
	if err != nil {
		return err
	}
	u, err := s.data.LoadUnit(h)
	if err != nil {
		return err
	}
	us.unit = u
	us.compDir = string(u.Root.CompDir)
	if u.Root.HasStmt {
		opts := &linetable.Options{
			BigEndian:   s.big,
			LineStr:     s.lineStr,
			Str:         s.str,
			AddressSize: h.AddrSize,
			StrX: func(i uint64) (string, error) {
				b, err := u.String(dw.Value{Class: dw.ClassStrx, U: i})
				return string(b), err
			},
		}
		lt, err := linetable.NewTable(s.line, u.Root.StmtList, opts)
		if err != nil {
			return err
		}
		us.lines = lt
		hdr := lt.Header()
		us.files = make([]string, len(hdr.Files))
		for i := range hdr.Files {
			us.files[i], _ = hdr.FilePath(uint64(i), us.compDir)
		}
	}
	fi, err := buildFuncIndex(u)
	if err != nil {
		return err
	}
	us.funcs = fi
	return nil
}

// fileName returns the path of line-table file index i, or "".
func (us *unitState) fileName(i uint64) string {
	if i < uint64(len(us.files)) {
		return us.files[i]
	}
	return ""
}

// symbols returns the symbol table llvm-symbolizer would read, improved
// where it falls short: when the binary is stripped, the separate debug
// file's .symtab (which keeps every local function) is used before the
// binary's .dynsym.
func (b *Binary) symbols() (*symtab.Table, error) {
	b.symOnce.Do(func() {
		read := func(f *elfx.File, dynamic bool) ([]symtab.Symbol, error) {
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
		st, err := read(b.bin, false)
		if err != nil {
			b.symErr = err
			return
		}
		if len(st) == 0 && b.dbg != nil {
			if st, err = read(b.dbg, false); err != nil {
				b.symErr = err
				return
			}
		}
		dyn, err := read(b.bin, true)
		if err != nil {
			b.symErr = err
			return
		}
		b.syms = symtab.New(symtab.PreferELF(st, dyn))
	})
	return b.syms, b.symErr
}
