package symbolize

import (
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/symbolize-go/symbolize/symtab"
)

// Binary symbolizes addresses of one module: an ELF file (with its separate
// debug file, if any) or a Mach-O image (with its dSYM). It is safe for concurrent use: everything it decodes
// lazily (sections, the address index, each unit's line table and inline
// index, the symbol table) is built once, by the first goroutine that needs
// it, and shared read-only afterwards.
type Binary struct {
	path string
	src  source
	opts Options
	code [][2]uint64 // sorted code section ranges; nil if unknown

	answerers []answerer // tried in order for each address (lookup.go)
	namers    []namer    // name the outermost frame (lookup.go)
	closed    atomic.Bool

	dwarfOnce sync.Once
	dwarf     *dwarfModule // nil when the file has no usable DWARF
	// loaded is dwarf once loadDWARF has set it up, for readers that
	// must not load it (Batch's chunks deciding what to defer).
	loaded atomic.Pointer[dwarfModule]
	// bulk is set by a batch of many addresses before it loads the
	// DWARF: the lazy sections are then inflated whole (batch.go).
	bulk atomic.Bool

	warns warnList

	demangled demangledCache // linkage name -> demangled name
	// chunkFrames is the number of frames the last chunk of a batch
	// took, scaled to a chunk of batchChunk addresses (batch.go).
	chunkFrames atomic.Int64

	symOnce sync.Once
	syms    *symtab.Table
	// symAheadOnce starts the symbol table on another goroutine
	// (symbolsAhead) or, once symbols has run, stops it from starting;
	// symReady is closed when that goroutine has built aheadSyms.
	symAheadOnce sync.Once
	symReady     chan struct{}
	aheadSyms    *symtab.Table
	aheadErr     error
	symWarnOnce  sync.Once // reports the symbol table's error
	// The first lookup of a binary is alone when it is a Batch of one
	// address (the addr2line command's answer to one line, a crash's
	// one PC): its symbol-table lookup is one pass over the table
	// (elfSource.symbolAt) instead of a build of it, which takes many
	// times longer, and the table is not built ahead while it runs. A
	// later lookup builds the table. started is set by every lookup.
	started, alone, scanned atomic.Bool
	// scanOnce starts the one-pass lookup of scanPC on another goroutine
	// (symbolsAhead) or, once symbolAt has run, stops it from starting;
	// scanReady is closed once that goroutine has set scanMatch,
	// scanFound, scanErr and scanHandled.
	scanOnce    sync.Once
	scanReady   chan struct{}
	scanPC      uint64
	scanMatch   symtab.Match
	scanFound   bool
	scanErr     error
	scanHandled bool

	// bg is the goroutines that still read the files after the lookup
	// that started them returned; Close waits for them.
	bg sync.WaitGroup

	contribMu sync.Mutex
	contribs  []contribution // files that answer, for Identity
}

func newBinary(path string, src source, o Options) *Binary {
	return &Binary{path: path, src: src, opts: o, code: src.codeRanges(), answerers: src.answerers(), namers: src.namers()}
}

// codeRange returns the code section holding pc, or the whole address
// space when sections are unknown; ok is false when pc is outside code.
// DWARF answers only code addresses: GNU ld leaves the DWARF of sections
// removed by --gc-sections at address 0 (a tombstone), and llvm-symbolizer
// 14 wrongly resolves low PCs to those dead functions.
func (b *Binary) codeRange(pc uint64) (lo, hi uint64, ok bool) {
	if b.code == nil {
		return 0, ^uint64(0), true
	}
	i, _ := slices.BinarySearchFunc(b.code, pc, func(r [2]uint64, pc uint64) int {
		if r[1] <= pc {
			return -1
		}
		if r[0] > pc {
			return 1
		}
		return 0
	})
	if i < len(b.code) && b.code[i][0] <= pc && pc < b.code[i][1] {
		return b.code[i][0], b.code[i][1], true
	}
	return 0, 0, false
}

// inCode reports whether pc may be code (see codeRange).
func (b *Binary) inCode(pc uint64) bool {
	_, _, ok := b.codeRange(pc)
	return ok
}

// Path returns the path the binary was opened from.
func (b *Binary) Path() string { return b.path }

// Warnings returns the problems met so far in debug information, each
// reported once: what did not decode was left out and the rest answered. A
// bad attribute costs that attribute (a unit's producer in a form this
// reader cannot resolve), a bad unit that unit's DWARF (its addresses are
// named by the symbol table), a bad section that section (a compression
// header of unknown type, a corrupt stream), a bad symbol-table entry the
// entries after it. Each is a *DecodeError naming section and offset, or a
// *DebugObjectError for a Mach-O debug-map object that was not used; at
// most 64 are kept.
func (b *Binary) Warnings() []error {
	b.warns.mu.Lock()
	defer b.warns.mu.Unlock()
	return append([]error(nil), b.warns.list...)
}

// Close releases the files. Lookups after Close return ErrClosed; Close
// must not run while lookups are in flight.
func (b *Binary) Close() error {
	if b.closed.Swap(true) {
		return nil
	}
	b.bg.Wait()
	err := b.src.close()
	if b.dwarf != nil && b.dwarf.split != nil {
		if e := b.dwarf.split.close(); err == nil {
			err = e
		}
	}
	if b.dwarf != nil && b.dwarf.sup != nil {
		if e := b.dwarf.sup.close(); err == nil {
			err = e
		}
	}
	return err
}

// loadDWARF returns the module of the binary's own DWARF (its debug file's,
// or its dSYM's), loaded on first use with pc as the first address looked
// up; nil when there is none.
func (b *Binary) loadDWARF(pc uint64) *dwarfModule {
	b.dwarfOnce.Do(func() {
		// A bulk batch's lookups name every frame from the symbol
		// table: it is built while .debug_info inflates alone.
		b.dwarf = loadModule(b.src, pc, b.bulk.Load(), &b.warns, func() { b.symbolsAhead(nil, pc) })
		if b.dwarf != nil {
			b.dwarf.ahead = b.symbolsAhead
			b.dwarf.evict = b.evict
			b.dwarf.handBack = b.handBack
			b.dwarf.split = b.newSplitter(b.dwarf)
			b.attachSup(b.dwarf) // module_sup.go
			b.loaded.Store(b.dwarf)
		}
	})
	return b.dwarf
}

// maxWarnings bounds the warnings a Binary keeps.
const maxWarnings = 64

// warnList collects warnings; safe for concurrent use.
type warnList struct {
	mu   sync.Mutex
	list []error
}

// add records a warning, keeping at most maxWarnings.
func (w *warnList) add(err error) {
	w.mu.Lock()
	if len(w.list) < maxWarnings {
		w.list = append(w.list, err)
	}
	w.mu.Unlock()
}

// symbols returns the module's symbol table, built on first use. A table
// that does not decode whole keeps the entries before the bad one, and the
// error goes to Warnings: it costs the rest of that table, not the lookup.
func (b *Binary) symbols() *symtab.Table {
	b.symOnce.Do(func() {
		b.symAheadOnce.Do(func() {}) // too late to start it ahead
		var err error
		if b.symReady != nil {
			<-b.symReady
			b.syms, err = b.aheadSyms, b.aheadErr
			b.aheadSyms = nil
		} else {
			b.syms, err = b.buildSymbols()
		}
		// Reported here, not where it was built, so that warnings
		// keep the order of the lookups that met them.
		b.reportSymbols(err)
	})
	return b.syms
}

// reportSymbols reports the symbol table's error, once.
func (b *Binary) reportSymbols(err error) {
	b.symWarnOnce.Do(func() {
		if err != nil {
			b.warns.add(err)
		}
	})
}

// symbolScan turns on the one-pass lookup (a variable for the tests);
// symbolScans counts the lookups it answered, for the tests.
var (
	symbolScan  = true
	symbolScans atomic.Int64
)

// A symbolScanner answers what symbols and symtab.New's Lookup(pc) would,
// with the same error, without building the table; handled is false when
// it cannot for this file (elfSource.symbolAt).
type symbolScanner interface {
	symbolAt(pc uint64, untag bool) (m symtab.Match, found bool, err error, handled bool)
}

// symbolAt returns symbols().Lookup(pc), for the first lookup of a binary
// that is alone without building the table.
func (b *Binary) symbolAt(pc uint64) (symtab.Match, bool) {
	if symbolScan && b.alone.Load() && b.scanned.CompareAndSwap(false, true) {
		b.scanOnce.Do(func() {}) // too late to start it ahead
		var m symtab.Match
		var found, handled bool
		var err error
		if b.scanReady != nil && b.scanPC == pc {
			<-b.scanReady
			m, found, err, handled = b.scanMatch, b.scanFound, b.scanErr, b.scanHandled
		} else if sc, ok := b.src.(symbolScanner); ok {
			m, found, err, handled = sc.symbolAt(pc, b.opts.UntagSymbols)
		}
		if handled {
			symbolScans.Add(1)
			b.reportSymbols(err)
			return m, found
		}
	}
	return b.symbols().Lookup(pc)
}

// symbolsAhead starts building the symbol table on another goroutine, once
// after is closed (at once when nil), for
// a lookup that will need it once it is done with the DWARF (whose work
// is on one core for long stretches: one big unit's DIEs); during a
// lookup that is alone, it starts the one-pass lookup of pc instead. It
// does nothing on one core, without a symbol table, or once started or
// built.
func (b *Binary) symbolsAhead(after <-chan struct{}, pc uint64) {
	if b.opts.NoSymbolTable || runtime.GOMAXPROCS(0) < 2 || !slices.Contains(b.namers, namer(symtabNamer{})) {
		return
	}
	if b.alone.Load() {
		sc, ok := b.src.(symbolScanner)
		if !ok || !symbolScan {
			return
		}
		b.scanOnce.Do(func() {
			b.scanPC, b.scanReady = pc, make(chan struct{})
			b.bg.Go(func() {
				if after != nil {
					<-after
				}
				b.scanMatch, b.scanFound, b.scanErr, b.scanHandled = sc.symbolAt(pc, b.opts.UntagSymbols)
				close(b.scanReady)
			})
		})
		return
	}
	b.symAheadOnce.Do(func() {
		b.symReady = make(chan struct{})
		b.bg.Go(func() {
			if after != nil {
				<-after
			}
			b.aheadSyms, b.aheadErr = b.buildSymbols()
			close(b.symReady)
		})
	})
}

// buildSymbols reads and sorts the symbol table.
func (b *Binary) buildSymbols() (*symtab.Table, error) {
	syms, err := b.src.symbols()
	if b.opts.UntagSymbols {
		for i := range syms {
			syms[i].Addr = uint64(int64(syms[i].Addr<<8) >> 8)
		}
	}
	return symtab.New(syms), err
}

// LookupSymbol returns the symbol-table entry covering pc (a function or a
// data object), as llvm-symbolizer's DATA requests report it.
func (b *Binary) LookupSymbol(pc uint64) (symtab.Match, bool, error) {
	if b.closed.Load() {
		return symtab.Match{}, false, ErrClosed
	}
	m, ok := b.symbols().Lookup(pc)
	return m, ok, nil
}
