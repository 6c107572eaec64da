package main

import (
	"debug/elf"
	"errors"
	"fmt"
	"sync"

	"github.com/symbolize-go/symbolize"
	"github.com/symbolize-go/symbolize/frame"
	"github.com/symbolize-go/symbolize/slide"
)

// errBuildID: the file at a mapping's path has another build ID.
var errBuildID = errors.New("build ID mismatch")

// files is a pprofsym.Symbolizer over ELF files: it opens each mapping's
// file once (with its separate debug file), checks its build ID against the
// mapping's, and rebases addresses as pprof does (slide.MappingBase). It is
// a stand-in for the root package's Modules until that lands.
type files struct {
	opts symbolize.Options
	mu   sync.Mutex
	m    map[string]*file
}

type file struct {
	once sync.Once
	bin  *symbolize.Binary
	img  slide.ELFImage
	id   string
	err  error
}

func newFiles(opts symbolize.Options) *files {
	return &files{opts: opts, m: make(map[string]*file)}
}

func (fs *files) open(path string) *file {
	fs.mu.Lock()
	f := fs.m[path]
	if f == nil {
		f = &file{}
		fs.m[path] = f
	}
	fs.mu.Unlock()
	f.once.Do(func() {
		ef, err := elf.Open(path)
		if err != nil {
			f.err = err
			return
		}
		f.img = slide.ELFImage{Type: uint16(ef.Type), Text: -1}
		for _, p := range ef.Progs {
			if p.Type != elf.PT_LOAD {
				continue
			}
			if p.Flags&elf.PF_X != 0 && f.img.Text < 0 {
				for _, s := range ef.Sections {
					if s.Name == ".text" && s.Addr >= p.Vaddr && s.Addr < p.Vaddr+p.Memsz {
						f.img.Text = len(f.img.Loads)
					}
				}
			}
			f.img.Loads = append(f.img.Loads, slide.Segment{Offset: p.Off, Vaddr: p.Vaddr, Filesz: p.Filesz, Memsz: p.Memsz, Flags: uint32(p.Flags), Align: p.Align})
		}
		ef.Close()
		if f.bin, f.err = symbolize.Open(path, &fs.opts); f.err != nil {
			return
		}
		id, err := f.bin.Identity()
		if err != nil {
			f.err = err
			return
		}
		f.id = id.BuildID
	})
	return f
}

// AppendFrames implements pprofsym.Symbolizer.
func (fs *files) AppendFrames(dst []frame.Frame, m *slide.Module, pc uint64) ([]frame.Frame, error) {
	f := fs.open(m.Path)
	if f.err != nil {
		return dst, f.err
	}
	if m.UUID != "" && f.id != "" && m.UUID != f.id {
		return dst, fmt.Errorf("%s: %w (file %s, mapping %s)", m.Path, errBuildID, f.id, m.UUID)
	}
	base, err := slide.MappingBase(&f.img, m, pc)
	if err != nil {
		return dst, err
	}
	return f.bin.AppendFrames(dst, pc-base)
}

func (fs *files) Close() {
	for _, f := range fs.m {
		if f.bin != nil {
			f.bin.Close()
		}
	}
}
