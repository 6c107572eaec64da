package symbolize

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sync"

	"github.com/symbolize-go/symbolize/elfx"
	"github.com/symbolize-go/symbolize/internal/dwinfo"
	"github.com/symbolize-go/symbolize/linetable"
	"github.com/symbolize-go/symbolize/locate"
)

// Supplementary files (dwz). dwz -m moves what several debug files share
// into one supplementary file: DIEs of partial units (types,
// declarations, the abstract instances of inline functions) and strings.
// A debug file it processed refers to them with DW_FORM_GNU_ref_alt and
// DW_FORM_GNU_strp_alt (DW_FORM_ref_sup4/8 and DW_FORM_strp_sup with dwz
// -5), and names the file in .gnu_debugaltlink (its path and build ID) or
// .debug_sup [DWARF5 7.3.6] (its path and a checksum that the file's own
// .debug_sup repeats).
//
// An ELF module's DWARF is composed with the module of its supplementary
// file: the first string or reference that needs the file (a unit's
// DW_AT_comp_dir or DW_AT_producer in the file's strings, an abstract
// origin in its partial units) makes the module find it, once, through the
// locator (locate.KindSup: the recorded path, relative to the debug file's
// directory; DIR/.dwz/NAME in each debug directory; the build-ID folders;
// debuginfod), accepting a candidate only when its identity is the one the
// link records (GDB's verify_id: the build ID for .gnu_debugaltlink, the
// .debug_sup checksum for .debug_sup) and it names no supplementary file
// of its own (dwz never chains them: a link to itself, or two files naming
// each other, is refused, so no chain is followed). Its strings then
// resolve, and names, declaration lines and declaration files follow
// references into its partial units, each declaration file in the line
// table of the partial unit holding it (package inline, sup.go).
//
// Without the file (missing, another build's, unreadable) the module
// answers as llvm-symbolizer 14, which reads no supplementary file: lines
// from the line tables, names from the symbol table, and no DWARF name
// that lives in the missing file. The reason is one *SupError in
// Warnings.

// ErrSupIdentity is wrapped by the *SupError of a candidate supplementary
// file whose build ID (or .debug_sup checksum) is not the one its link
// records: another build's file of the same name.
var ErrSupIdentity = errors.New("supplementary file of another build")

// ErrSupChain is wrapped by the *SupError of a candidate supplementary file
// that names a supplementary file of its own, such as the debug file itself
// (a link to itself) or a file whose link names the first (a loop). dwz
// never writes such a file.
var ErrSupChain = errors.New("candidate names a supplementary file of its own")

// SupError says why a module's supplementary file (dwz) did not answer.
// Err wraps fs.ErrNotExist when no candidate was found, ErrSupIdentity or
// ErrSupChain for a candidate refused, a *DecodeError for a link that does
// not decode, else the error opening the candidate. Binary.Warnings
// reports it once; the module then answers without the file's strings and
// DIEs.
type SupError struct {
	File string // the debug file (or binary) whose DWARF refers to it
	Name string // the path its link records ("" when the link is unusable)
	ID   []byte // the identity the link records
	Path string // the candidate refused, when there was one
	Err  error
}

func (e *SupError) Error() string {
	what := "supplementary file"
	if e.Name != "" {
		what = fmt.Sprintf("supplementary file %s (build ID %s)", e.Name, hex.EncodeToString(e.ID))
	}
	if e.Path != "" {
		return fmt.Sprintf("symbolize: %s of %s: candidate %s: %v", what, e.File, e.Path, e.Err)
	}
	return fmt.Sprintf("symbolize: %s of %s: %v", what, e.File, e.Err)
}

// Unwrap returns the cause.
func (e *SupError) Unwrap() error { return e.Err }

// errNoSupLink is the cause of a *SupError for DWARF that uses the forms
// of a supplementary file but names none.
var errNoSupLink = errors.New("the DWARF refers to a supplementary file, but neither .gnu_debugaltlink nor .debug_sup names one")

// supplementary is a module's supplementary file, found on first use (the
// module's dwinfo.Data resolves it once, through loadSup).
type supplementary struct {
	mu sync.Mutex
	m  *dwarfModule // nil until found, and when not found
	f  *elfx.File
}

// attachSup makes m, the module of an ELF binary's DWARF, resolve its
// supplementary file when first needed. It runs before m is shared.
func (b *Binary) attachSup(m *dwarfModule) {
	e, ok := b.src.(*elfSource)
	if !ok || m == nil {
		return
	}
	sp := new(supplementary)
	m.sup = sp
	m.data.SetSup(func() *dwinfo.Data { return b.loadSup(e, sp) })
}

// loadSup finds, checks and loads the supplementary file that e's DWARF
// names, recording it in sp; nil (and a *SupError in Warnings) when there
// is none to use.
func (b *Binary) loadSup(e *elfSource, sp *supplementary) *dwinfo.Data {
	df := e.dwarfFile()
	from := b.path
	if e.dbg != nil {
		if lf := e.dbg.Located(); lf != nil {
			from = lf.Path
		}
	}
	link, ok, err := df.SupLink()
	if err == nil && !ok {
		err = errNoSupLink
	}
	if err != nil {
		b.warns.add(&SupError{File: from, Err: err})
		return nil
	}
	fail := func(path string, err error) *dwinfo.Data {
		b.warns.add(&SupError{File: from, Name: link.Name, ID: link.ID, Path: path, Err: err})
		return nil
	}
	k := locate.Key{Kind: locate.KindSup, From: from, Name: link.Name, BuildID: link.ID}
	var sf *elfx.File
	var tried string
	lf, err := locate.First(b.opts.context(), b.opts.locator(), k, func(lf *locate.File) error {
		tried = lf.Path
		f, err := elfx.NewLocated(lf, b.opts.openOptions())
		if err != nil {
			return err
		}
		id, ok, err := f.SupID(link.Section)
		if err != nil {
			return err
		}
		if !ok || !bytes.Equal(id, link.ID) {
			return fmt.Errorf("%w: %s is %s, the link wants %s", ErrSupIdentity, supIDName(link.Section),
				hexOrNone(id, ok), hex.EncodeToString(link.ID))
		}
		if _, chained, _ := f.SupLink(); chained {
			return ErrSupChain
		}
		if s := f.Section(".debug_info"); s == nil || !s.HasData() {
			return errors.New("no .debug_info")
		}
		sf = f
		return nil
	})
	if lf == nil {
		if err != nil {
			return fail(tried, err)
		}
		p := link.Name
		if !filepath.IsAbs(p) && from != "" {
			p = filepath.Join(filepath.Dir(from), p)
		}
		return fail("", &fs.PathError{Op: "open", Path: p, Err: fs.ErrNotExist})
	}
	m := loadModule(&elfSource{bin: sf}, 0, false, &b.warns, nil)
	if m == nil {
		sf.Close()
		return fail(lf.Path, errors.New("no .debug_info"))
	}
	sp.mu.Lock()
	sp.m, sp.f = m, sf
	sp.mu.Unlock()
	bid, _, _ := sf.BuildID()
	b.contribute("supplementary file", lf.Path, lf.How, bid, nil, sf.WriteTo)
	return m.data
}

// supIDName names what identifies a supplementary file for a link read
// from section.
func supIDName(section string) string {
	if section == ".debug_sup" {
		return "its .debug_sup checksum"
	}
	return "its build ID"
}

func hexOrNone(id []byte, ok bool) string {
	if !ok {
		return "none"
	}
	return hex.EncodeToString(id)
}

// supModule returns the module of s's supplementary file, finding it on
// first use; nil when s has none.
func (s *dwarfModule) supModule() *dwarfModule {
	if s.sup == nil || s.data.Sup() == nil {
		return nil
	}
	s.sup.mu.Lock()
	defer s.sup.mu.Unlock()
	return s.sup.m
}

// lineTableOf returns the line table of u, a unit of s or of its
// supplementary file (a partial unit holding an abstract origin that dwz
// moved there), or nil. inline.Options.LineTable names declaration files
// with it.
func (s *dwarfModule) lineTableOf(u *dwinfo.Unit) *linetable.Table {
	m := s
	if u.Data() != s.data {
		if m = s.supModule(); m == nil || u.Data() != m.data {
			return nil
		}
	}
	if o, err := m.unitLines(u.Offset); err == nil {
		return o.lines
	}
	return nil
}

// close closes the supplementary file, if one was opened.
func (sp *supplementary) close() error {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	f := sp.f
	sp.f, sp.m = nil, nil
	if f == nil {
		return nil
	}
	return f.Close()
}
