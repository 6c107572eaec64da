package symbolize

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/symbolize-go/symbolize/locate"
	"github.com/symbolize-go/symbolize/macho"
)

// A Mach-O image linked without running dsymutil keeps no DWARF of its
// own: its stabs (the debug map) name the object files it was linked from
// and, for each function, its address in the image and its size. With no
// dSYM beside the image, the objects' DWARF answers instead, each address
// translated into the object's address space and the answer's addresses
// translated back, as dsymutil would have translated them into a dSYM.

// ErrStaleObject is wrapped by the *DebugObjectError of a debug-map object
// whose modification time differs from the one the linker recorded: it was
// rebuilt since the image was linked, and its addresses no longer match.
// dsymutil warns about such objects; we do not read them.
var ErrStaleObject = errors.New("object file modified since the image was linked")

// ErrArchiveMember is wrapped by the *DebugObjectError of a debug-map
// object inside a static library ("lib.a(member.o)"), which is not read.
var ErrArchiveMember = errors.New("debug-map objects inside archives are not read")

// ErrNotRegular is wrapped by the *DebugObjectError of a debug-map object
// path that names something other than a regular file (it is
// locate.ErrNotRegular).
var ErrNotRegular = locate.ErrNotRegular

// DebugObjectError says why an object file named by a Mach-O image's debug
// map (N_OSO) was not used: it is missing (Err wraps fs.ErrNotExist),
// stale (ErrStaleObject), not a regular file (ErrNotRegular), of another
// architecture, or corrupt (a *DecodeError). Binary.Warnings reports it; the functions of that object
// are answered by the symbol table alone.
type DebugObjectError struct {
	Path string // as resolved against the image's directory
	Err  error
}

func (e *DebugObjectError) Error() string {
	return fmt.Sprintf("symbolize: debug-map object %s: %v", e.Path, e.Err)
}

// Unwrap returns the cause.
func (e *DebugObjectError) Unwrap() error { return e.Err }

// debugMap is the debug map of a Mach-O image without a dSYM, decoded on
// first use. It is safe for concurrent use: the function index is built
// once, and each object is read once, by the first lookup that needs it.
type debugMap struct {
	img  *macho.File
	path string // the image's path: the referring file of the objects' locator keys
	dir  string // the image's directory, against which relative N_OSO paths resolve

	once  sync.Once
	funcs []dmFunc // sorted by addr, disjoint
	objs  []dmObject
}

// dmFunc is a function of the debug map: [addr, addr+size) in the image,
// defined by Symbols[sym] of objs[obj].
type dmFunc struct {
	addr, size uint64
	obj, sym   int32
}

// dmObject is one N_OSO object, read on first use.
type dmObject struct {
	info macho.DebugObject

	once  sync.Once
	state *dwarfModule // nil when the object is unusable or has no DWARF
	// byObj holds the object's functions with a resolved object address,
	// sorted by it: where an answer's addresses (an inlined copy's start)
	// are translated back into the image.
	byObj []dmRange
}

// dmRange maps [objAddr, objAddr+size) of an object to [addr, addr+size)
// of the image.
type dmRange struct {
	objAddr, addr, size uint64
}

// newDebugMap prepares the debug map of img, parsed from the file at path;
// nothing is decoded until the first lookup.
func newDebugMap(img *macho.File, path string) *debugMap {
	return &debugMap{img: img, path: path, dir: filepath.Dir(path)}
}

// load decodes the stabs into the function index. A symbol table that
// does not decode leaves the map empty (the symbol table lookup reports
// the error).
func (m *debugMap) load() {
	m.once.Do(func() {
		dm, err := m.img.DebugMap()
		if err != nil {
			return
		}
		m.objs = make([]dmObject, len(dm.Objects))
		for i := range dm.Objects {
			m.objs[i].info = dm.Objects[i]
			for j, s := range dm.Objects[i].Symbols {
				// Variables (N_STSYM, N_GSYM) have no size; DWARF
				// answers code only.
				if s.Size == 0 || s.Addr+s.Size < s.Addr {
					continue
				}
				m.funcs = append(m.funcs, dmFunc{addr: s.Addr, size: s.Size, obj: int32(i), sym: int32(j)})
			}
		}
		slices.SortStableFunc(m.funcs, func(a, b dmFunc) int { return cmp.Compare(a.addr, b.addr) })
		// A well-formed map has disjoint functions; clip any overlap so
		// that binary search finds the one covering an address.
		out := m.funcs[:0]
		for _, f := range m.funcs {
			if n := len(out); n > 0 {
				p := &out[n-1]
				if f.addr == p.addr {
					continue
				}
				if f.addr < p.addr+p.size {
					p.size = f.addr - p.addr
				}
			}
			out = append(out, f)
		}
		m.funcs = out
	})
}

// lookup returns the function covering pc. Cost: O(log n).
func (m *debugMap) lookup(pc uint64) (*dmFunc, bool) {
	i, found := slices.BinarySearchFunc(m.funcs, pc, func(f dmFunc, pc uint64) int { return cmp.Compare(f.addr, pc) })
	if !found {
		if i == 0 {
			return nil, false
		}
		i--
	}
	f := &m.funcs[i]
	if pc-f.addr >= f.size {
		return nil, false
	}
	return f, true
}

// object returns objs[i] read and indexed, or nil when it cannot be used
// (the reason goes to warns).
func (m *debugMap) object(i int32, b *Binary) *dmObject {
	o := &m.objs[i]
	o.once.Do(func() {
		if err := o.open(m, b); err != nil {
			b.warns.add(&DebugObjectError{Path: o.path(m.dir), Err: err})
		}
	})
	if o.state == nil {
		return nil
	}
	return o
}

func (o *dmObject) path(dir string) string {
	p := o.info.Path
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, p)
	}
	return p
}

// open finds the object through the locator, checks that it is the one
// the linker saw (its modification time), resolves the functions' object
// addresses and prepares its DWARF.
func (o *dmObject) open(m *debugMap, b *Binary) error {
	if strings.HasSuffix(o.info.Path, ")") && strings.Contains(o.info.Path, "(") {
		return ErrArchiveMember
	}
	k := locate.Key{Kind: locate.KindObject, From: m.path, Name: o.info.Path, ModTime: int64(o.info.Timestamp)}
	lf, err := locate.First(b.opts.context(), b.opts.locator(), k, func(lf *locate.File) error {
		// ld64 records the object's mtime in whole seconds; builds made
		// with ZERO_AR_DATE record 0, which says nothing.
		if ts := o.info.Timestamp; ts != 0 && uint64(lf.ModTime.Unix()) != ts {
			return fmt.Errorf("%w: modified %d, debug map says %d", ErrStaleObject, lf.ModTime.Unix(), ts)
		}
		return nil
	})
	if lf == nil {
		if err == nil {
			err = &fs.PathError{Op: "open", Path: o.path(m.dir), Err: fs.ErrNotExist}
		}
		return err
	}
	data, err := fileBytes(lf)
	if err != nil {
		lf.Close()
		return err
	}
	if ms, ok := b.src.(*machoSource); ok {
		ms.keep(lf) // the object's DWARF aliases its bytes
	}
	obj, err := macho.Select(data, m.img.Arch())
	if err != nil {
		return err
	}
	if _, err := o.info.ResolveObjAddrs(obj); err != nil {
		return err
	}
	for _, s := range o.info.Symbols {
		if s.HasObjAddr && s.Size > 0 && s.ObjAddr+s.Size >= s.ObjAddr {
			o.byObj = append(o.byObj, dmRange{objAddr: s.ObjAddr, addr: s.Addr, size: s.Size})
		}
	}
	slices.SortFunc(o.byObj, func(a, b dmRange) int { return cmp.Compare(a.objAddr, b.objAddr) })
	// The object's DWARF is read the way an image's is: Mach-O objects
	// from clang and swiftc keep their debug sections' addresses as
	// section-relative values (relocations against sections, r_extern
	// 0), so the bytes already hold object addresses and no relocation
	// needs applying.
	o.state = loadModule(&machoSource{bin: obj}, 0, false, &b.warns, nil)
	var uuid []byte
	if obj.HasUUID {
		uuid = obj.UUID[:]
	}
	b.contribute("object", lf.Path, lf.How, nil, uuid, writeLocated(lf))
	return nil
}

// toImage translates an object address of o into the image, through the
// function that holds it; ok is false when no linked function does (the
// linker dropped it).
func (o *dmObject) toImage(objAddr uint64) (uint64, bool) {
	i, found := slices.BinarySearchFunc(o.byObj, objAddr, func(r dmRange, a uint64) int { return cmp.Compare(r.objAddr, a) })
	if !found {
		if i == 0 {
			return 0, false
		}
		i--
	}
	r := &o.byObj[i]
	if objAddr-r.objAddr >= r.size {
		return 0, false
	}
	return objAddr - r.objAddr + r.addr, true
}

// appendFrames answers for a Mach-O image without a dSYM from its debug
// map's objects. [lo, hi) is the code section around pc. The frames' and
// the range's addresses are the image's. A map without functions (a Go
// binary's: Go's linker writes no stabs) is not present, so that the next
// answerer (a Go binary's __gopclntab) is tried.
func (m *debugMap) appendFrames(b *Binary, dst []Frame, pc, lo, hi uint64, _ *hint) ([]Frame, uint64, uint64, bool) {
	m.load()
	if len(m.funcs) == 0 {
		return dst, pc, pc + 1, false
	}
	f, ok := m.lookup(pc)
	if !ok {
		return dst, pc, pc + 1, true
	}
	o := m.object(f.obj, b)
	if o == nil {
		return dst, pc, pc + 1, true
	}
	sym := &o.info.Symbols[f.sym]
	if !sym.HasObjAddr || sym.ObjAddr+f.size < sym.ObjAddr {
		return dst, pc, pc + 1, true
	}
	// Within the function, image and object addresses differ by a
	// constant; outside it nothing is known, so the range stays inside.
	lo, hi = max(lo, f.addr), min(hi, f.addr+f.size)
	toObj := func(a uint64) uint64 { return a - f.addr + sym.ObjAddr }
	n := len(dst)
	dst, olo, ohi := o.state.appendFrames(dst, toObj(pc), toObj(lo), toObj(hi), &b.opts, nil)
	if len(dst) == n+1 && dst[n].DWARFName == "" && !dst[n].HasStartAddress {
		// Only the line table covers pc, not a subprogram: the
		// alignment padding after a function, which its N_FUN size
		// includes. dsymutil keeps only the line rows inside linked
		// subprograms' [low_pc, high_pc), so the dSYM says nothing
		// here, and neither do we.
		return dst[:n], pc, pc + 1, true
	}
	for i := n; i < len(dst); i++ {
		fr := &dst[i]
		if !fr.HasStartAddress {
			continue
		}
		if a, ok := o.toImage(fr.StartAddress); ok {
			fr.StartAddress = a
		} else {
			fr.StartAddress, fr.HasStartAddress = 0, false
		}
	}
	return dst, olo - sym.ObjAddr + f.addr, ohi - sym.ObjAddr + f.addr, true
}
