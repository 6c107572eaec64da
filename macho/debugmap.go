package macho

import (
	"fmt"
	"io"
	"strings"
)

// DebugMap is what the stabs of a linked image say about where its DWARF
// lives: the object files it was linked from, each with the symbols the
// linker placed and their final addresses. dsymutil reads it to build a
// dSYM; a symbolizer without a dSYM can read the objects directly.
type DebugMap struct {
	Arch    string // of the image
	Objects []DebugObject
}

// DebugObject is one N_OSO entry and the symbols that follow it.
type DebugObject struct {
	Path      string // as recorded; may be relative, or "lib.a(member.o)"
	Timestamp uint64 // mtime the linker saw, to detect a rebuilt object
	Symbols   []DebugSymbol
}

// DebugSymbol is one function or variable of a debug-map object.
type DebugSymbol struct {
	Name    string
	ObjAddr uint64 // address in the object file; valid when HasObjAddr
	Addr    uint64 // address in the linked image
	Size    uint64 // functions: from the closing N_FUN; variables: 0
	// HasObjAddr is set by DebugObject.ResolveObjAddrs.
	HasObjAddr bool
}

// DebugMap builds the debug map from the symbol table's stabs, following
// dsymutil: N_OSO opens an object (its n_value is the mtime), N_FUN gives a
// function's address and the empty-named N_FUN after it its size,
// N_STSYM/N_LCSYM give static data addresses, and N_GSYM names a global
// whose address comes from the image's own external symbols (ld64 leaves its
// n_value 0). An empty N_SO closes the object. An image without stabs
// yields an empty map. Cost: O(symbols) with one map of external names.
func (f *File) DebugMap() (*DebugMap, error) {
	syms, err := f.Symbols()
	if err != nil {
		return nil, err
	}
	m := &DebugMap{Arch: f.Arch()}
	var globals map[string]uint64
	var cur *DebugObject
	var fun = -1 // index in cur.Symbols of an N_FUN awaiting its size
	for i := range syms {
		s := &syms[i]
		if s.Kind != KindStab {
			continue
		}
		switch s.Type {
		case StabOSO:
			m.Objects = append(m.Objects, DebugObject{Path: s.Name, Timestamp: s.Value})
			cur, fun = &m.Objects[len(m.Objects)-1], -1
		case StabSO:
			if s.Name == "" {
				cur, fun = nil, -1
			}
		case StabFUN:
			if cur == nil {
				continue
			}
			if s.Name != "" {
				cur.Symbols = append(cur.Symbols, DebugSymbol{Name: s.Name, Addr: s.Value})
				fun = len(cur.Symbols) - 1
			} else if fun >= 0 {
				cur.Symbols[fun].Size = s.Value
				fun = -1
			}
		case StabSTSYM, StabLCSYM:
			if cur != nil {
				cur.Symbols = append(cur.Symbols, DebugSymbol{Name: s.Name, Addr: s.Value})
			}
		case StabGSYM:
			if cur == nil {
				continue
			}
			if globals == nil {
				globals = make(map[string]uint64)
				for j := range syms {
					if t := &syms[j]; t.Kind == KindDirect || t.Kind == KindAbsolute {
						if _, dup := globals[t.Name]; !dup && t.External() {
							globals[t.Name] = t.Value
						}
					}
				}
			}
			addr, ok := globals[s.Name]
			if !ok {
				// Dead-stripped or not exported: dsymutil drops it too.
				continue
			}
			cur.Symbols = append(cur.Symbols, DebugSymbol{Name: s.Name, Addr: addr})
		}
	}
	return m, nil
}

// ResolveObjAddrs fills ObjAddr from obj, the parsed object file o names,
// by looking each symbol up among obj's defined symbols. It returns the
// names it could not find (the object has changed, or the symbol is
// synthesized by the linker).
func (o *DebugObject) ResolveObjAddrs(obj *File) (missing []string, err error) {
	syms, err := obj.Symbols()
	if err != nil {
		return nil, err
	}
	addrs := make(map[string]uint64, len(syms))
	for i := range syms {
		if s := &syms[i]; s.Kind == KindDirect || s.Kind == KindAbsolute {
			if _, dup := addrs[s.Name]; !dup {
				addrs[s.Name] = s.Value
			}
		}
	}
	for i := range o.Symbols {
		s := &o.Symbols[i]
		if a, ok := addrs[s.Name]; ok {
			s.ObjAddr, s.HasObjAddr = a, true
		} else {
			missing = append(missing, s.Name)
		}
	}
	return missing, nil
}

// WriteYAML writes m in the layout of `dsymutil --dump-debug-map`, with
// binaryPath as the binary-path. Symbols without a resolved ObjAddr print
// objAddr 0x0.
func (m *DebugMap) WriteYAML(w io.Writer, binaryPath string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "---\ntriple:          '%s-apple-darwin'\nbinary-path:     %s\n", m.Arch, binaryPath)
	if len(m.Objects) > 0 {
		b.WriteString("objects:\n")
	}
	for _, o := range m.Objects {
		fmt.Fprintf(&b, "  - filename:        %s\n    timestamp:       %d\n", o.Path, o.Timestamp)
		if len(o.Symbols) == 0 {
			continue
		}
		b.WriteString("    symbols:\n")
		for _, s := range o.Symbols {
			fmt.Fprintf(&b, "      - { sym: %s, objAddr: 0x%X, binAddr: 0x%X, size: 0x%X }\n", s.Name, s.ObjAddr, s.Addr, s.Size)
		}
	}
	b.WriteString("...\n")
	_, err := io.WriteString(w, b.String())
	return err
}
