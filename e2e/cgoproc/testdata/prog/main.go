// Command prog is the test program of cgoproc_test.go: a Go program with
// C and C++ parts that symbolizes addresses of its own process with
// symbolize.OpenProcess and prints, as JSON, what it captured and what the
// Process answered, for the test to judge. It is built by the test (go
// build keeps the DWARF that go test strips).
//
//	prog -dl LIB -conc COPY1 -gone COPY2 -junk DATA -vdso-out FILE
//
// LIB is a shared library opened after the Process exists; COPY1 a copy of
// it whose address 8 goroutines look up at once (each misses the maps it
// has); COPY2 another copy, opened and then deleted before its address is
// looked up;
// DATA a file that is no object file, mapped; FILE receives the bytes of
// the vDSO, for llvm-symbolizer-14.
package main

/*
#cgo CFLAGS: -O2 -g
#cgo CXXFLAGS: -O2 -g
#cgo LDFLAGS: -ldl
#include <stdlib.h>
#include "prog.h"
*/
import "C"

import (
	"bufio"
	"bytes"
	"context"
	"debug/elf"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"unsafe"

	"github.com/symbolize-go/symbolize"
)

// Report is what prog prints; cgoproc_test.go has the same types.
type Report struct {
	Exe      string
	CXX      []Answer // by capture ID, each at its pc-1
	Go       []GoPC
	GoSweep  []GoPC // every byte of goOuter and goLeaf
	DL       Answer
	Conc     []Answer // COPY1's address, from 8 goroutines at once
	Gone     Answer
	Junk     Answer // at offset 100 of DATA
	VDSO     Answer
	VDSOSym  string // the vDSO symbol looked up, at VDSO.PC
	VDSOAddr Addr
	AddrCtor Addr     // Process.Addr of the constructor's capture
	Batch    []Answer // every address above and one nothing maps, in one Batch
}

// GoPC is one PC of runtime.Callers: ours at pc-1, and the runtime's.
type GoPC struct {
	Ours    Answer
	Runtime []Frame
	// NextEntry: another function starts at the byte after (the sweep's
	// addresses are not return addresses, and CallersFrames takes pc+1).
	NextEntry bool
}

type Answer struct {
	PC, Addr, Offset uint64
	Mapping          string // the mapping's path
	Frames           []Frame
	Err              string
	ErrDeleted       bool // errors.Is(Err, symbolize.ErrDeleted)
	ErrNotMapped     bool
	ModuleError      bool // errors.As(Err, *symbolize.ModuleError)
}

type Frame struct {
	Function, File string
	Line, Column   uint32
	Inlined        bool
}

type Addr struct {
	Mapping, Path, Symbol, Name string
	Base, Bias, SymbolAddr      uint64
	Err                         string
}

func main() {
	dl := flag.String("dl", "", "shared library to dlopen")
	conc := flag.String("conc", "", "copy of a shared library to dlopen and look up from 8 goroutines")
	gone := flag.String("gone", "", "copy of a shared library to dlopen and delete")
	junk := flag.String("junk", "", "a file that is no object file, to map")
	vdsoOut := flag.String("vdso-out", "", "file to write the vDSO's bytes to")
	flag.Parse()
	if err := run(*dl, *conc, *gone, *junk, *vdsoOut); err != nil {
		fmt.Fprintln(os.Stderr, "prog:", err)
		os.Exit(1)
	}
}

func run(dl, conc, gone, junk, vdsoOut string) error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	p, err := symbolize.OpenProcess(os.Getpid(), &symbolize.ModulesOptions{
		Options: symbolize.Options{Inlines: true, Demangle: true},
	})
	if err != nil {
		return err
	}
	defer p.Close()
	r := Report{Exe: exe}
	var all []uint64 // for the batch

	C.cxx_run(3)
	for id := range C.ID_COUNT {
		pc := uint64(C.captured_pc(C.int(id))) - 1 // a return address
		r.CXX = append(r.CXX, answer(p.Lookup(nil, pc), pc))
		all = append(all, pc)
	}
	r.AddrCtor = addr(p, r.CXX[C.ID_CTOR].PC)

	for _, pc := range goOuter(2) {
		ours := answer(p.Lookup(nil, uint64(pc)-1), uint64(pc)-1)
		r.Go = append(r.Go, GoPC{Ours: ours, Runtime: callersFrames(pc)})
		all = append(all, uint64(pc)-1)
	}

	for _, fn := range []any{goOuter, goLeaf} {
		entry := reflect.ValueOf(fn).Pointer()
		for pc := entry; runtime.FuncForPC(pc).Entry() == entry; pc++ {
			ours := answer(p.Lookup(nil, uint64(pc)), uint64(pc))
			next := runtime.FuncForPC(pc+1).Entry() == pc+1
			r.GoSweep = append(r.GoSweep, GoPC{Ours: ours, Runtime: callersFrames(pc + 1), NextEntry: next})
		}
	}

	// Opened after the Process read the maps: a miss must read them again.
	pc, err := dlCall(dl)
	if err != nil {
		return err
	}
	r.DL = answer(p.Lookup(nil, pc-1), pc-1)
	all = append(all, pc-1)

	pc, err = dlCall(conc)
	if err != nil {
		return err
	}
	r.Conc = make([]Answer, 8)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range r.Conc {
		wg.Go(func() {
			<-start
			r.Conc[i] = answer(p.Lookup(nil, pc-1), pc-1)
		})
	}
	close(start)
	wg.Wait()

	pc, err = dlCall(gone)
	if err != nil {
		return err
	}
	if err := os.Remove(gone); err != nil {
		return err
	}
	r.Gone = answer(p.Lookup(nil, pc-1), pc-1)
	all = append(all, pc-1)

	cs := C.CString(junk)
	pc = uint64(C.map_file(cs, 4096))
	C.free(unsafe.Pointer(cs))
	if pc == 0 {
		return fmt.Errorf("cannot map %s", junk)
	}
	r.Junk = answer(p.Lookup(nil, pc+100), pc+100)
	all = append(all, pc+100)

	r.VDSOSym, pc, err = vdso(vdsoOut)
	if err != nil {
		return err
	}
	r.VDSO = answer(p.Lookup(nil, pc), pc)
	r.VDSOAddr = addr(p, pc)
	all = append(all, pc)

	all = append(all, 8) // the zero page: no mapping
	r.Batch = make([]Answer, len(all))
	for i, a := range p.Batch(context.Background(), all) {
		r.Batch[i] = answer(a, all[i])
	}

	b, err := json.MarshalIndent(r, "", "\t")
	if err != nil {
		return err
	}
	_, err = os.Stdout.Write(append(b, '\n'))
	return err
}

// The chain goOuter -> goMid -> goLeaf is inlined by gc into goOuter.

//go:noinline
func goOuter(n int) []uintptr { return goMid(n + 1) }

func goMid(n int) []uintptr { return goLeaf(n * 2) }

func goLeaf(n int) []uintptr {
	pcs := make([]uintptr, 32+n)
	return pcs[:runtime.Callers(1, pcs)]
}

// callersFrames returns the frames runtime.CallersFrames gives for the
// return address pc (it looks up pc-1).
func callersFrames(pc uintptr) []Frame {
	// A second PC that is no code makes CallersFrames expand the first's
	// inlined frames, and then ends the iteration.
	var out []Frame
	frames := runtime.CallersFrames([]uintptr{pc, 1})
	for {
		f, more := frames.Next()
		if f.Function != "" {
			out = append(out, Frame{Function: f.Function, File: f.File, Line: uint32(f.Line)})
		}
		if !more {
			return out
		}
	}
}

func dlCall(path string) (uint64, error) {
	cs := C.CString(path)
	defer C.free(unsafe.Pointer(cs))
	var msg *C.char
	pc := uint64(C.dl_call(cs, &msg))
	if pc == 0 {
		return 0, fmt.Errorf("dlopen %s: %s", path, C.GoString(msg))
	}
	return pc, nil
}

// vdso returns the name and runtime address of a function of the vDSO,
// found in its dynamic symbols as the kernel mapped them, and writes the
// vDSO's bytes to out.
func vdso(out string) (string, uint64, error) {
	start, end, err := vdsoRange()
	if err != nil {
		return "", 0, err
	}
	base := C.vdso_base()
	if uint64(uintptr(base)) != start {
		return "", 0, fmt.Errorf("AT_SYSINFO_EHDR is %#x, the [vdso] mapping starts at %#x", uintptr(base), start)
	}
	mem := C.GoBytes(base, C.int(end-start))
	if err := os.WriteFile(out, mem, 0o644); err != nil {
		return "", 0, err
	}
	f, err := elf.NewFile(bytes.NewReader(mem))
	if err != nil {
		return "", 0, err
	}
	var first uint64
	for _, p := range f.Progs {
		if p.Type == elf.PT_LOAD {
			first = p.Vaddr - p.Off
			break
		}
	}
	syms, err := f.DynamicSymbols()
	if err != nil {
		return "", 0, err
	}
	for _, s := range syms {
		if s.Name == "__vdso_clock_gettime" {
			return s.Name, start + s.Value - first, nil
		}
	}
	return "", 0, errors.New("the vDSO has no __vdso_clock_gettime")
}

// vdsoRange reads the [vdso] mapping from /proc/self/maps.
func vdsoRange() (start, end uint64, err error) {
	f, err := os.Open("/proc/self/maps")
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 6 || fields[5] != "[vdso]" {
			continue
		}
		lo, hi, _ := strings.Cut(fields[0], "-")
		start, err1 := strconv.ParseUint(lo, 16, 64)
		end, err2 := strconv.ParseUint(hi, 16, 64)
		if err := errors.Join(err1, err2); err != nil {
			return 0, 0, err
		}
		return start, end, nil
	}
	return 0, 0, errors.Join(errors.New("no [vdso] mapping"), sc.Err())
}

func answer(a symbolize.Answer, pc uint64) Answer {
	out := Answer{PC: pc, Addr: a.Addr, Offset: a.Offset}
	if a.Mapping != nil {
		out.Mapping = a.Mapping.Path
	}
	for _, f := range a.Frames {
		out.Frames = append(out.Frames, Frame{Function: f.Function, File: f.File, Line: f.Line, Column: f.Column, Inlined: f.Inlined})
	}
	if a.Err != nil {
		out.Err = a.Err.Error()
		out.ErrDeleted = errors.Is(a.Err, symbolize.ErrDeleted)
		out.ErrNotMapped = errors.Is(a.Err, symbolize.ErrNotMapped)
		var me *symbolize.ModuleError
		out.ModuleError = errors.As(a.Err, &me)
	}
	return out
}

func addr(p *symbolize.Process, pc uint64) Addr {
	info, err := p.Addr(pc)
	out := Addr{Path: info.Path, Symbol: info.Symbol, Name: info.Name, Base: info.Base, Bias: info.Bias, SymbolAddr: info.SymbolAddr}
	if info.Mapping != nil {
		out.Mapping = info.Mapping.Path
	}
	if err != nil {
		out.Err = err.Error()
	}
	return out
}
