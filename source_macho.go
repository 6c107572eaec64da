package symbolize

import (
	"cmp"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/symbolize-go/symbolize/internal/buf"
	"github.com/symbolize-go/symbolize/locate"
	"github.com/symbolize-go/symbolize/macho"
	"github.com/symbolize-go/symbolize/symtab"
)

// openMachO opens a thin or universal Mach-O file, selects Options.Arch,
// and pairs it with its dSYM (Options.DSYM, else the bundle beside it)
// unless Options.NoDebugFile. A dSYM whose UUID differs from the image's is
// an error (*macho.UUIDMismatchError, naming both), never silently used or
// dropped; reopen with NoDebugFile to go on without it. Without a dSYM
// (and without NoDebugFile), the object files the image's debug map names
// answer for DWARF when present and unchanged (debugmap.go).
func openMachO(path string, o Options) (*Binary, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	img, err := macho.Select(data, o.Arch)
	if err != nil {
		return nil, fmt.Errorf("symbolize: %s: %w", path, err)
	}
	src := &machoSource{bin: img}
	if !o.NoDebugFile {
		if err := src.findDSYM(path, &o); err != nil {
			return nil, fmt.Errorf("symbolize: %s: %w", path, err)
		}
		if src.dsym == nil {
			// No dSYM: the objects named by the debug map, when
			// present, hold the DWARF.
			src.dmap = newDebugMap(img, path)
		}
	}
	b := newBinary(path, src, o)
	b.contribute("binary", path, 0, nil, uuidOf(img), writeBytes(data))
	if src.dsym != nil {
		b.contribute("dSYM", src.dsymPath, src.dsymHow, nil, src.dsym.UUID[:], writeLocated(src.dsymFile))
	}
	return b, nil
}

// uuidOf returns f's LC_UUID, or nil without one.
func uuidOf(f *macho.File) []byte {
	if !f.HasUUID {
		return nil
	}
	return f.UUID[:]
}

// findDSYM asks the locator for the image's dSYM (Options.DSYM, else the
// bundle beside the image) and keeps the first whose slice for the image's
// architecture has its UUID. A dSYM of another build is an error, as is a
// missing Options.DSYM; a missing bundle beside the image is not.
func (m *machoSource) findDSYM(path string, o *Options) error {
	k := locate.Key{Kind: locate.KindDSYM, From: path, Name: o.DSYM, UUID: m.bin.UUID[:], Arch: m.bin.Arch()}
	lf, err := locate.First(o.context(), o.locator(), k, func(lf *locate.File) error {
		data, err := fileBytes(lf)
		if err != nil {
			return err
		}
		d, err := macho.MatchDSYM(m.bin, data, lf.Path)
		if err != nil {
			return err
		}
		m.dsym, m.dsymPath, m.dsymHow, m.dsymFile = d, lf.Path, lf.How, lf
		return nil
	})
	if lf == nil {
		if err == nil && o.DSYM != "" {
			err = &fs.PathError{Op: "open", Path: macho.BundleDWARF(o.DSYM, path), Err: fs.ErrNotExist}
		}
		return err
	}
	m.keep(lf)
	return nil
}

// fileBytes returns the whole of a located file: its mapping, else its
// bytes read once.
func fileBytes(lf *locate.File) ([]byte, error) {
	if lf.Data != nil {
		return lf.Data, nil
	}
	data := make([]byte, lf.Size)
	if _, err := lf.ReaderAt.ReadAt(data, 0); err != nil && err != io.EOF {
		return nil, err
	}
	return data, nil
}

// NewMachOBytes symbolizes a Mach-O image held in memory: image is a thin
// or universal file (Options.Arch selects the slice) and dsym, when not
// nil, its dSYM DWARF file, which must have a slice of the same
// architecture with the same UUID (else *macho.UUIDMismatchError or
// *macho.ArchNotFoundError). Options.DSYM and NoDebugFile are ignored: no
// file is read. The Binary aliases both slices, which must not change
// while it is in use.
func NewMachOBytes(image, dsym []byte, opts *Options) (*Binary, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	img, err := macho.Select(image, o.Arch)
	if err != nil {
		return nil, err
	}
	src := &machoSource{bin: img}
	if dsym != nil {
		if src.dsym, err = macho.MatchDSYM(img, dsym, "dSYM"); err != nil {
			return nil, err
		}
	}
	b := newBinary("", src, o)
	b.contribute("binary", "", 0, nil, uuidOf(img), writeBytes(image))
	if src.dsym != nil {
		b.contribute("dSYM", "", 0, nil, src.dsym.UUID[:], writeBytes(dsym))
	}
	return b, nil
}

// MachO returns the Mach-O image b symbolizes (the selected slice of a
// universal file) and the path of the dSYM DWARF file in use ("" when
// none), or ok false when b is not a Mach-O binary. The image gives what
// slide arithmetic needs: TextAddr (the link-time __TEXT address), UUID
// and Arch. It must not be modified.
func (b *Binary) MachO() (image *macho.File, dsymPath string, ok bool) {
	m, ok := b.src.(*machoSource)
	if !ok {
		return nil, "", false
	}
	return m.bin, m.dsymPath, true
}

// machoSource is a Mach-O image with its dSYM, if any. The image is read
// into memory whole; the dSYM and debug-map objects are mapped (files),
// and closed with the Binary.
type machoSource struct {
	bin      *macho.File
	dsym     *macho.File // nil without a dSYM
	dsymPath string
	dsymHow  locate.How
	dsymFile *locate.File // the file dsym was read from; nil for NewMachOBytes
	dmap     *debugMap    // without a dSYM, the image's debug map; nil otherwise

	filesMu sync.Mutex
	files   []*locate.File // located files the image's answers alias

	startsOnce sync.Once
	starts     funcStarts

	goTab pclnState // a Go binary's __gopclntab (pclntab_source.go)
}

// dwarfFile is where the debug sections live: the dSYM when there is one,
// else the image itself (an object file, or a binary linked with its DWARF).
func (m *machoSource) dwarfFile() *macho.File {
	if m.dsym != nil {
		return m.dsym
	}
	return m.bin
}

func (m *machoSource) dwarfSection(name string) ([]byte, error) {
	data, _, err := m.dwarfFile().DWARF(name)
	return data, err
}

func (m *machoSource) bigEndian() bool { return m.dwarfFile().BigEndian }

// lazySection makes a section Go's linker stored compressed (__zdebug_X)
// inflate only as far as the units looked up need, as ELF's do.
func (m *machoSource) lazySection(name string) *buf.Lazy {
	z, ok, err := m.dwarfFile().CompressedDWARF(name)
	if !ok || err != nil {
		return nil // a bad header is reported by dwarfSection
	}
	return buf.NewLazy(nil, z.Size, z.Prefix)
}

// symbols returns the image's direct (N_SECT) nlist symbols as
// llvm-symbolizer 14 sees them: named without the leading underscore
// Mach-O adds to every C symbol, functions when their section holds code and
// objects otherwise, sized as LLVM sizes them (see machoSymbolSizes). The
// image's table is used, never the dSYM's copy, as in LLVM.
func (m *machoSource) symbols() ([]symtab.Symbol, error) {
	syms, err := m.bin.Symbols()
	if err != nil {
		return nil, err
	}
	sizes := machoSymbolSizes(m.bin, syms)
	var out []symtab.Symbol
	for i := range syms {
		s := &syms[i]
		if s.Kind != macho.KindDirect {
			continue
		}
		sec := m.bin.SectionByIndex(s.Sect)
		if sec == nil {
			continue
		}
		kind := symtab.KindFunc
		if sec.Flags&macho.AttrPureInstructions == 0 {
			kind = symtab.KindObject
		}
		bind := symtab.BindLocal
		if s.External() {
			bind = symtab.BindGlobal
		}
		out = append(out, symtab.Symbol{
			Name:    strings.TrimPrefix(s.Name, "_"),
			Addr:    s.Value,
			Size:    sizes[i],
			Section: uint32(s.Sect),
			Index:   uint32(i),
			Kind:    kind,
			Bind:    bind,
			Defined: true,
		})
	}
	return out, nil
}

// machoSymbolSizes returns a size for each of syms, computed as LLVM 14's
// computeSymbolSizes does for Mach-O, which has no symbol sizes: every
// symbol (stabs and undefined ones included) and the end address of every
// section are sorted by (section number - 1, address), the section number
// of an unsectioned entry wrapping to the largest; a symbol's size is the
// distance to the next entry at a different address, whatever section
// that entry belongs to. The last entry keeps its own address as its size.
// Matching these quirks is what makes symbol answers agree with
// llvm-symbolizer, e.g. __mh_execute_header covering the whole __text of a
// stripped image.
func machoSymbolSizes(f *macho.File, syms []macho.Symbol) []uint64 {
	type ent struct {
		sect uint32
		addr uint64
		sym  int // index into syms; -1 for a section end
	}
	ents := make([]ent, 0, len(syms)+8)
	for i := range syms {
		ents = append(ents, ent{uint32(syms[i].Sect) - 1, syms[i].Value, i})
	}
	n := uint32(0)
	for _, seg := range f.Segments {
		for _, s := range seg.Sections {
			ents = append(ents, ent{n, s.Addr + s.Size, -1})
			n++
		}
	}
	slices.SortFunc(ents, func(a, b ent) int {
		if c := cmp.Compare(a.sect, b.sect); c != 0 {
			return c
		}
		return cmp.Compare(a.addr, b.addr)
	})
	sizes := make([]uint64, len(syms))
	last := len(ents) - 1
	for i, e := range ents {
		if e.sym < 0 {
			continue
		}
		if i == last {
			sizes[e.sym] = e.addr
			continue
		}
		next := i + 1
		for next < last && ents[next].addr == e.addr {
			next++
		}
		sizes[e.sym] = ents[next].addr - e.addr
	}
	return sizes
}

// codeRanges returns the sorted ranges of the image's sections that hold
// code.
func (m *machoSource) codeRanges() [][2]uint64 {
	var r [][2]uint64
	for _, seg := range m.bin.Segments {
		for _, s := range seg.Sections {
			if s.Flags&(macho.AttrPureInstructions|macho.AttrSomeInstructions) != 0 && s.Size > 0 && !s.ZeroFill() {
				r = append(r, [2]uint64{s.Addr, s.Addr + s.Size})
			}
		}
	}
	slices.SortFunc(r, func(a, b [2]uint64) int { return cmp.Compare(a[0], b[0]) })
	return r
}

func (m *machoSource) close() error {
	m.filesMu.Lock()
	defer m.filesMu.Unlock()
	var first error
	for _, f := range m.files {
		if err := f.Close(); first == nil {
			first = err
		}
	}
	m.files = nil
	return first
}

// keep makes f live as long as the Binary (its bytes are aliased).
func (m *machoSource) keep(f *locate.File) {
	m.filesMu.Lock()
	m.files = append(m.files, f)
	m.filesMu.Unlock()
}

// funcStarts is LC_FUNCTION_STARTS decoded: sorted starts, each function
// ending at the next start or at the end of the code section it begins in,
// and names synthesized from the addresses ("0x100003f00"), kept as
// substrings of one string so that lookups allocate nothing.
type funcStarts struct {
	starts []uint64
	ends   []uint64
	names  string
	nameAt []uint32 // names[nameAt[i]:nameAt[i+1]] names starts[i]
}

// functionStarts decodes the image's function starts once. A table that
// stops decoding part way keeps the starts read before the error, and the
// error becomes a warning in warns.
func (m *machoSource) functionStarts(code [][2]uint64, warns *warnList) *funcStarts {
	m.startsOnce.Do(func() {
		starts, err := m.bin.FunctionStartAddrs(nil)
		if err != nil {
			warns.add(err)
		}
		// ld64 emits them sorted; a corrupt table might not be.
		slices.Sort(starts)
		starts = slices.Compact(starts)
		fs := &m.starts
		var names strings.Builder
		names.Grow(len(starts) * 12)
		var num [20]byte
		for i, s := range starts {
			end := uint64(0)
			for _, r := range code {
				if r[0] <= s && s < r[1] {
					end = r[1]
					break
				}
			}
			if end == 0 {
				continue // not in code: a corrupt table
			}
			if i+1 < len(starts) {
				end = min(end, starts[i+1])
			}
			fs.starts = append(fs.starts, s)
			fs.ends = append(fs.ends, end)
			fs.nameAt = append(fs.nameAt, uint32(names.Len()))
			names.WriteString("0x")
			names.Write(strconv.AppendUint(num[:0], s, 16))
		}
		fs.nameAt = append(fs.nameAt, uint32(names.Len()))
		fs.names = names.String()
	})
	return &m.starts
}

// lookup returns the function start covering pc, its end and its
// synthesized name. Cost: O(log n), no allocation.
func (fs *funcStarts) lookup(pc uint64) (start uint64, name string, ok bool) {
	if len(fs.starts) == 0 {
		return 0, "", false
	}
	i, found := slices.BinarySearch(fs.starts, pc)
	if !found {
		if i == 0 {
			return 0, "", false
		}
		i--
	}
	if pc >= fs.ends[i] {
		return 0, "", false
	}
	return fs.starts[i], fs.names[fs.nameAt[i]:fs.nameAt[i+1]], true
}

// functionStartsNamer names from LC_FUNCTION_STARTS, for images that have
// the table: the start of the function holding pc and a name synthesized
// from it. It renames no DWARF frame: where it knows a nearer function than
// the symbol table (in a stripped image, __mh_execute_header covers all of
// __text) it answers alone, or leaves the DWARF name alone rather than let
// the symbol table rename it as LLVM would.
type functionStartsNamer struct{ m *machoSource }

func (n functionStartsNamer) naming(b *Binary, pc uint64, _ *hint) (naming, bool) {
	if !b.inCode(pc) {
		return naming{}, false
	}
	start, name, ok := n.m.functionStarts(b.code, &b.warns).lookup(pc)
	if !ok {
		return naming{}, false
	}
	return naming{name: name, start: start, lo: pc, hi: pc + 1, source: SourceFunctionStarts}, true
}

// answerers: the dSYM's (or the image's own) DWARF, else, without a dSYM,
// the objects of the debug map; then a Go binary's __gopclntab.
func (m *machoSource) answerers() []answerer {
	if m.dmap != nil {
		return []answerer{dwarfAnswerer{}, m.dmap, pclnAnswerer{}}
	}
	return []answerer{dwarfAnswerer{}, pclnAnswerer{}}
}

// namers: the image's symbol table, a Go binary's function table, then
// its function starts.
func (m *machoSource) namers() []namer {
	return []namer{symtabNamer{}, pclnNamer{}, functionStartsNamer{m}}
}
