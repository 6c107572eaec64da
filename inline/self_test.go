package inline

import (
	"fmt"
	"os"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

// The chain selfOuter -> selfMid -> selfLeaf is inlined by gc, so
// selfOuter's code holds three-frame chains.

var selfSink int

func selfLeaf(x int) int { selfSink += x; return selfSink * 3 }

func selfMid(x int) int { return selfLeaf(x+1) + 2 }

//go:noinline
func selfOuter(x int) int { return selfMid(x) * 5 }

// funcNameForPrint is how the runtime shows generic functions.
func funcNameForPrint(s string) string {
	i, j := strings.IndexByte(s, '['), strings.LastIndexByte(s, ']')
	if i < 0 || j < i {
		return s
	}
	return s[:i] + "[...]" + s[j+1:]
}

// TestSelfGo symbolizes every byte of this package's functions in the
// running test binary and compares each chain with runtime.CallersFrames,
// which expands inlining from the Go runtime's own tables. go test strips
// DWARF from the binaries it does not keep, so this runs only with
//
//	go test -ldflags=-w=0 ./inline/ -run SelfGo
func TestSelfGo(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	o, ok := openObject(t, exe)
	if !ok {
		t.Skip("test binary has no DWARF: run with -ldflags=-w=0")
	}
	_ = selfOuter(1)
	const prefix = "github.com/symbolize-go/symbolize/inline."
	// Functions of this package with inlining in them, found through the
	// runtime (go test may strip the ELF symbol table); the test binary is
	// not position-independent, so runtime and DWARF addresses agree.
	fns := []any{selfOuter, TestSelfGo, Build, (*Index).AppendChain, (*builder).walk, (*builder).describe, unitBytes, checkOmap}
	var (
		frames            []Frame
		checked, inlined  int
		sawSelf, mismatch int
		uncovered         int
	)
	for _, fn := range fns {
		entry := reflect.ValueOf(fn).Pointer()
		f := runtime.FuncForPC(entry)
		if f == nil || !strings.HasPrefix(f.Name(), prefix) {
			t.Fatalf("no function at %#x", entry)
		}
		for pc := uint64(entry); runtime.FuncForPC(uintptr(pc)).Entry() == entry && pc < uint64(entry)+1<<16; pc++ {
			const bias = 0
			// CallersFrames takes return addresses and looks up pc-1.
			// A second, invalid PC makes the runtime expand the inlined
			// frames (it does so only while more PCs follow) and is then
			// skipped.
			fr := runtime.CallersFrames([]uintptr{uintptr(pc + bias + 1), 1})
			var want []runtime.Frame
			for {
				f, more := fr.Next()
				want = append(want, f)
				if !more {
					break
				}
			}
			frames = o.chain(t, frames[:0], pc)
			if len(frames) == 0 && len(want) == 1 {
				// Padding and trailing stubs past the subprogram's
				// high_pc, which the runtime's tables still cover.
				uncovered++
				continue
			}
			checked++
			if len(frames) > 1 {
				inlined++
			}
			if len(frames) >= 3 && frames[0].ShortName == prefix+"selfLeaf" {
				sawSelf++
			}
			ok := len(frames) == len(want)
			for i := 0; ok && i < len(frames); i++ {
				ok = funcNameForPrint(frames[i].Name) == want[i].Function && int(frames[i].Line) == want[i].Line
			}
			if !ok {
				mismatch++
				if mismatch <= 10 {
					var w []string
					for _, f := range want {
						w = append(w, fmt.Sprintf("%s:%d", f.Function, f.Line))
					}
					t.Errorf("pc %#x: got %s; runtime says %s", pc, names(frames), strings.Join(w, " <- "))
				}
			}
		}
	}
	t.Logf("%d addresses, %d with inlined frames, %d past DWARF ranges, %d mismatches", checked, inlined, uncovered, mismatch)
	if sawSelf == 0 {
		t.Errorf("selfLeaf was not found inlined twice (built with -gcflags=-l?)")
	}
}
