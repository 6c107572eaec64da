package symbolize

import (
	"cmp"
	"debug/elf"
	"slices"
	"strings"
	"sync"

	"github.com/symbolize-go/symbolize/elfx"
	"github.com/symbolize-go/symbolize/pclntab"
)

// --- The Go runtime's tables as an answerer --------------------------------
//
// A Go binary carries .gopclntab (__gopclntab in Mach-O) whatever it was
// built with: -ldflags='-s -w', go run and go test drop DWARF and symbols,
// not the tables the runtime's tracebacks read. They answer after the DWARF
// (Options.GoPCLN): they know functions, files, lines and inlined calls,
// not columns, declaration files or inlined copies' start addresses.

// goImage is what a binary format hands the table reader: the table's
// bytes and address, where code starts, the sections the runtime's module
// record may lie in, and the image's loaded bytes by address (for the
// inline trees, which lie in read-only data).
type goImage struct {
	table     []byte
	tableAddr uint64
	text      uint64         // .text, __text: runtime.text without a module record
	module    []imageSection // where runtime.firstmoduledata may be, most likely first
	mem       []imageSection // loaded sections with file contents, sorted by address
}

type imageSection struct {
	addr uint64
	data []byte
}

// memory reads n bytes at addr from the loaded sections, fewer at a
// section's end, nil outside them.
func (g *goImage) memory(addr uint64, n int) []byte {
	i, _ := slices.BinarySearchFunc(g.mem, addr, func(s imageSection, a uint64) int { return cmp.Compare(s.addr, a+1) })
	if i == 0 {
		return nil
	}
	s := g.mem[i-1]
	if addr-s.addr >= uint64(len(s.data)) {
		return nil
	}
	b := s.data[addr-s.addr:]
	return b[:min(n, len(b))]
}

// pclnState is a source's table, decoded on first use.
type pclnState struct {
	once sync.Once
	tab  *pclntab.Table // nil when there is none, or it does not decode

	mu       sync.RWMutex
	symNames map[string]string // table name with "·" -> symbol name (symbolName)
	paths    map[string]string // table file -> DWARF path (dwarfPath)
}

// intern returns m[k], made by mk on first use (under st.mu; a lookup of
// a string key in a map allocates nothing).
func (st *pclnState) intern(m *map[string]string, k string, mk func(string) string) string {
	st.mu.RLock()
	v, ok := (*m)[k]
	st.mu.RUnlock()
	if ok {
		return v
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if v, ok = (*m)[k]; !ok {
		if *m == nil {
			*m = make(map[string]string)
		}
		v = mk(k)
		(*m)[k] = v
	}
	return v
}

// pclnSource is a source that may hold a Go binary's tables.
type pclnSource interface {
	pcln() *pclnState
	// goImage returns the binary's table and memory; ok is false when
	// it has no table.
	goImage() (img goImage, ok bool, err error)
}

// goTable returns the binary's Go table, decoded on first use; nil when
// there is none (not a Go binary) or it does not decode (the error goes to
// Warnings).
func (b *Binary) goTable() *pclntab.Table {
	ps, ok := b.src.(pclnSource)
	if !ok {
		return nil
	}
	st := ps.pcln()
	st.once.Do(func() {
		img, ok, err := ps.goImage()
		if err != nil {
			b.warns.add(err)
		}
		if !ok {
			return
		}
		t, err := openGoTable(&img)
		if err != nil {
			b.warns.add(err)
			return
		}
		st.tab = t
	})
	return st.tab
}

// openGoTable decodes img's table with the runtime.text and go:func.* of
// its module record when one is found (a PIE's once relocated, see
// relocateModule; without a record code starts at .text and inlined calls
// are left out).
func openGoTable(img *goImage) (*pclntab.Table, error) {
	hdr, err := pclntab.New(img.table, nil)
	if err != nil {
		return nil, err
	}
	opts := &pclntab.Options{TextStart: img.text, Memory: img.memory}
	for _, s := range img.module {
		if md, ok := pclntab.FindModuledata(hdr, img.tableAddr, s.data, s.addr); ok {
			opts.TextStart, opts.GoFunc = md.Text, md.GoFunc
			break
		}
	}
	return pclntab.New(img.table, opts)
}

// pclnAnswerer answers from a Go binary's .gopclntab: after the DWARF by
// default, alone with GoPCLNAlways, never with GoPCLNNever.
type pclnAnswerer struct{}

func (pclnAnswerer) appendFrames(b *Binary, dst []Frame, pc, lo, hi uint64, _ *hint) ([]Frame, uint64, uint64, bool) {
	if b.opts.GoPCLN == GoPCLNNever {
		return dst, pc, pc + 1, false
	}
	t := b.goTable()
	if t == nil {
		return dst, pc, pc + 1, false
	}
	st := b.pcln()
	// The chain lives on the stack (deeper ones grow onto the heap): a
	// sync.Pool would allocate under the race detector, which drops
	// pooled values at random.
	var buf [16]pclntab.Frame
	// The table's range is where its answer holds, so Batch reuses it
	// for sorted addresses.
	chain, flo, fhi, err := t.AppendFramesRange(buf[:0], pc)
	if err != nil {
		b.warns.add(err)
	}
	lo, hi = max(lo, flo), min(hi, fhi)
	if !b.opts.Inlines && len(chain) > 1 {
		// One frame, as the DWARF answers --no-inlines: the innermost
		// function's name (the namers rename it to the physical
		// function's) at the innermost position.
		chain = chain[:1]
		chain[0].Inlined = false
	}
	for i := range chain {
		fr := &chain[i]
		f := Frame{
			Function:  fr.Function,
			DWARFName: fr.Function,
			File:      st.dwarfPath(fr.File),
			CompDir:   ".",
			Line:      fr.Line,
			StartLine: fr.StartLine,
			Inlined:   fr.Inlined,
			Source:    SourceGoPCLN,
		}
		if i == len(chain)-1 && !fr.Inlined {
			f.StartAddress, f.HasStartAddress = fr.Entry, true
		}
		dst = append(dst, f)
	}
	return dst, lo, hi, true
}

// dwarfPath returns a file name of the table as the same binary's DWARF
// names it: Go writes compilation directory "." and relative paths there
// (-trimpath's module paths, GOROOT-relative runtime files), which
// llvm-symbolizer joins into "./runtime/proc.go". Absolute paths and
// pseudo-files such as "<autogenerated>" are as the table has them.
func (st *pclnState) dwarfPath(file string) string {
	if file == "" || file[0] == '/' || file[0] == '<' {
		return file
	}
	return st.intern(&st.paths, file, func(f string) string { return "./" + f })
}

// pclnNamer names outermost frames from the table's function table, as a
// symbol table would: the namer of -s binaries, which have none.
type pclnNamer struct{}

func (pclnNamer) naming(b *Binary, pc uint64, _ *hint) (naming, bool) {
	// With DWARF (and GoPCLNAuto) the symbol table names frames, as in
	// llvm-symbolizer.
	if b.opts.GoPCLN == GoPCLNNever || b.opts.GoPCLN == GoPCLNAuto && b.loadDWARF(pc) != nil {
		return naming{}, false
	}
	t := b.goTable()
	if t == nil {
		return naming{}, false
	}
	fn, ok, err := t.LookupFunc(pc)
	if err != nil {
		b.warns.add(err)
	}
	if !ok {
		return naming{}, false
	}
	return naming{name: b.pcln().symbolName(fn.Name), start: fn.Entry, lo: fn.Entry, hi: fn.End, source: SourceGoPCLN, rename: true}, true
}

// pcln returns the binary's table state (b.src is a pclnSource when
// goTable returned a table).
func (b *Binary) pcln() *pclnState { return b.src.(pclnSource).pcln() }

// symbolName returns name as Go's linker writes it into the ELF and Mach-O
// symbol tables, which a namer of -s binaries stands in for: with each
// "·" rewritten to "." (cmd/link does so for tools that read ASCII only,
// DTrace), type:.eq.main.T·1 as type:.eq.main.T.1. The table keeps the
// "·" (runtime.Frame.Function and DWARF have it). Rewritten names are
// made once per name.
func (st *pclnState) symbolName(name string) string {
	// "·" is 0xc2 0xb7: IndexByte (vectorized) rules most names out.
	if i := strings.IndexByte(name, 0xb7); i < 1 || !strings.Contains(name[i-1:], "·") {
		return name
	}
	return st.intern(&st.symNames, name, func(n string) string { return strings.ReplaceAll(n, "·", ".") })
}

// --- ELF -------------------------------------------------------------------

func (e *elfSource) pcln() *pclnState { return &e.goTab }

// goImage finds the table by section name (.gopclntab; an externally
// linked PIE has .data.rel.ro.gopclntab), else, in a Go binary whose
// section names were changed, by its header inside read-only data.
func (e *elfSource) goImage() (goImage, bool, error) {
	f := e.bin
	if f.Section(".gopclntab") == nil && f.Section(".data.rel.ro.gopclntab") == nil && !isGoELF(f) {
		return goImage{}, false, nil // not a Go binary: read nothing
	}
	var img goImage
	for _, s := range f.Sections {
		if s.Flags&elf.SHF_ALLOC == 0 || s.Type == elf.SHT_NOBITS || !s.HasData() || s.FileSize == 0 {
			continue
		}
		d, err := s.Data()
		if err != nil {
			return goImage{}, false, err
		}
		img.mem = append(img.mem, imageSection{s.Addr, d})
		switch s.Name {
		case ".gopclntab", ".data.rel.ro.gopclntab":
			img.table, img.tableAddr = d, s.Addr
		case ".text":
			img.text = s.Addr
		}
	}
	slices.SortFunc(img.mem, func(a, b imageSection) int { return cmp.Compare(a.addr, b.addr) })
	for _, name := range []string{".go.module", ".noptrdata", ".data", ".data.rel.ro"} {
		if s := f.Section(name); s != nil && s.HasData() {
			if d, err := s.Data(); err == nil {
				img.module = append(img.module, imageSection{s.Addr, d})
			}
		}
	}
	relocateModule(f, img.module)
	if img.table == nil {
		for _, name := range []string{".rodata", ".data.rel.ro", ".noptrdata"} {
			s := f.Section(name)
			if s == nil || !s.HasData() {
				continue
			}
			d, err := s.Data()
			if err != nil {
				continue
			}
			if off, ok := pclntab.Find(d); ok {
				img.table, img.tableAddr = d[off:], s.Addr+uint64(off)
				break
			}
		}
	}
	return img, img.table != nil, nil
}

// relocateModule applies to the sections where the module record may be
// the relative relocations of a position-independent executable's dynamic
// relocation sections (SHT_RELA with SHF_ALLOC: .rela of Go's linker,
// .rela.dyn of an external one): a PIE's record holds zeros until the
// dynamic loader writes its pointers, the addend plus the load address
// (taken as 0: the file's own addresses). A section a relocation writes
// into is copied first. Only R_X86_64_RELATIVE and R_AARCH64_RELATIVE of
// 64-bit files are applied (32-bit files use REL, whose addends are in
// place already); DT_RELR's packed relocations need not be read: their
// places hold the link-time value too (TestGoPCLNAgreesWithDWARFRELR).
func relocateModule(f *elfx.File, module []imageSection) {
	var relative uint32
	switch f.Machine {
	case elf.EM_X86_64:
		relative = uint32(elf.R_X86_64_RELATIVE)
	case elf.EM_AARCH64:
		relative = uint32(elf.R_AARCH64_RELATIVE)
	default:
		return
	}
	if f.Class != elf.ELFCLASS64 || f.Type != elf.ET_DYN || len(module) == 0 {
		return
	}
	copied := make([]bool, len(module))
	o := f.ByteOrder
	for _, rs := range f.Sections {
		if rs.Type != elf.SHT_RELA || rs.Flags&elf.SHF_ALLOC == 0 || !rs.HasData() {
			continue
		}
		d, err := rs.Data()
		if err != nil {
			continue
		}
		for ; len(d) >= 24; d = d[24:] {
			off, info, addend := o.Uint64(d), o.Uint64(d[8:]), o.Uint64(d[16:])
			if uint32(info) != relative {
				continue
			}
			for i := range module {
				m := &module[i]
				if off < m.addr || off-m.addr >= uint64(len(m.data)) || uint64(len(m.data))-(off-m.addr) < 8 {
					continue
				}
				if !copied[i] {
					m.data, copied[i] = slices.Clone(m.data), true
				}
				o.PutUint64(m.data[off-m.addr:], addend)
				break
			}
		}
	}
}

// isGoELF reports whether f was linked by Go's linker or carries Go's
// notes.
func isGoELF(f *elfx.File) bool {
	return f.Section(".note.go.buildid") != nil || f.Section(".go.buildinfo") != nil
}

// --- Mach-O ----------------------------------------------------------------

func (m *machoSource) pcln() *pclnState { return &m.goTab }

func (m *machoSource) goImage() (goImage, bool, error) {
	f := m.bin
	var img goImage
	var module [3]*imageSection
	for i := range f.Segments {
		for j := range f.Segments[i].Sections {
			s := &f.Segments[i].Sections[j]
			if s.Segment == "__DWARF" || s.ZeroFill() {
				continue
			}
			d, err := f.SectionData(s)
			if err != nil || d == nil {
				continue
			}
			img.mem = append(img.mem, imageSection{s.Addr, d})
			switch s.Name {
			case "__gopclntab":
				img.table, img.tableAddr = d, s.Addr
			case "__text":
				if s.Segment == "__TEXT" {
					img.text = s.Addr
				}
			case "__go_module":
				module[0] = &imageSection{s.Addr, d}
			case "__noptrdata":
				module[1] = &imageSection{s.Addr, d}
			case "__data":
				module[2] = &imageSection{s.Addr, d}
			}
		}
	}
	for _, s := range module {
		if s != nil {
			img.module = append(img.module, *s)
		}
	}
	slices.SortFunc(img.mem, func(a, b imageSection) int { return cmp.Compare(a.addr, b.addr) })
	return img, img.table != nil, nil
}
