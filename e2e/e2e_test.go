// Package e2e drives real clients of llvm-symbolizer with the
// examples/addr2line command installed as llvm-symbolizer: AddressSanitizer
// and UndefinedBehaviorSanitizer reports (sanitizer_test.go) and the
// standalone pprof's local symbolization (pprof_test.go). Each client runs
// twice, once with our command and once with llvm-symbolizer-14 under the
// same name, and what it prints must be the same.
//
// The tests compile their programs with clang-14 at test time (they are
// client tests: the compiler and its runtimes are part of what is tested).
// They skip, saying why, when clang-14, a sanitizer runtime, glibc's debug
// files (libc6-dbg), llvm-symbolizer-14 or the pinned pprof is missing;
// under CI=true a missing tool fails the test instead, so CI cannot pass by
// skipping. .ci/run installs all of them.
package e2e

import (
	"context"
	"debug/elf"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// runTimeout bounds every command a test runs: a symbolizer that stops
// answering would otherwise hang its client, and the test with it.
const runTimeout = 2 * time.Minute

// workDir holds what the package's tests share (the two symbolizer
// directories); TestMain removes it.
var workDir string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "symbolize-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	workDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// need skips t with the reason, or fails it when CI=true.
func need(t *testing.T, format string, args ...any) {
	t.Helper()
	msg := fmt.Sprintf(format, args...)
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s (CI=true: a missing tool fails the test)", msg)
	}
	t.Skip(msg)
}

// requirePlatform skips t except on linux/amd64: the test programs, the
// sanitizer runtimes they link and the debug-file layout are x86-64
// Debian's.
func requirePlatform(t *testing.T) {
	t.Helper()
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		t.Skipf("end-to-end tests run on linux/amd64, not %s/%s", runtime.GOOS, runtime.GOARCH)
	}
}

// symbolizers are the two directories a client is pointed at, each holding
// an executable named llvm-symbolizer.
type symbolizers struct {
	ours, llvm string
}

var (
	symOnce sync.Once
	symDirs symbolizers
	symErr  error
)

// requireSymbolizers builds examples/addr2line as ours/llvm-symbolizer and
// links llvm/llvm-symbolizer to llvm-symbolizer-14, once per test binary.
func requireSymbolizers(t *testing.T) symbolizers {
	t.Helper()
	requirePlatform(t)
	ref, err := exec.LookPath("llvm-symbolizer-14")
	if err != nil {
		need(t, "llvm-symbolizer-14 not found (apt-get install llvm-14)")
	}
	symOnce.Do(func() {
		symDirs = symbolizers{ours: filepath.Join(workDir, "ours"), llvm: filepath.Join(workDir, "llvm")}
		for _, d := range []string{symDirs.ours, symDirs.llvm} {
			if symErr = os.Mkdir(d, 0o755); symErr != nil {
				return
			}
		}
		if ref, symErr = filepath.Abs(ref); symErr != nil {
			return
		}
		if symErr = os.Symlink(ref, filepath.Join(symDirs.llvm, "llvm-symbolizer")); symErr != nil {
			return
		}
		goTool, err := exec.LookPath("go") // go test puts its own go first on PATH
		if err != nil {
			symErr = err
			return
		}
		cmd := exec.Command(goTool, "build", "-o", filepath.Join(symDirs.ours, "llvm-symbolizer"),
			"github.com/symbolize-go/symbolize/examples/addr2line")
		if out, err := cmd.CombinedOutput(); err != nil {
			symErr = fmt.Errorf("building examples/addr2line: %v\n%s", err, out)
		}
	})
	if symErr != nil {
		t.Fatal(symErr)
	}
	return symDirs
}

// compiler is clang-14 (C) or clang++-14 (C++).
type compiler struct {
	name string // clang-14 or clang++-14
	path string
}

// requireCompiler finds clang-14 or clang++-14.
func requireCompiler(t *testing.T, name string) compiler {
	t.Helper()
	requirePlatform(t)
	p, err := exec.LookPath(name)
	if err != nil {
		need(t, "%s not found (apt-get install clang-14)", name)
	}
	return compiler{name, p}
}

// requireRuntime checks that clang-14's compiler-rt holds the static
// runtime library lib (such as "asan" or "ubsan_standalone").
func requireRuntime(t *testing.T, cc compiler, lib string) {
	t.Helper()
	out, err := exec.Command(cc.path, "--print-runtime-dir").Output()
	if err != nil {
		t.Fatalf("%s --print-runtime-dir: %v", cc.name, err)
	}
	f := filepath.Join(strings.TrimSpace(string(out)), "libclang_rt."+lib+"-x86_64.a")
	if _, err := os.Stat(f); err != nil {
		need(t, "the %s runtime %s is missing (apt-get install libclang-rt-14-dev)", lib, f)
	}
}

// libcPaths are where Debian's libc.so.6 lives (merged /usr or not).
var libcPaths = []string{"/usr/lib/x86_64-linux-gnu/libc.so.6", "/lib/x86_64-linux-gnu/libc.so.6"}

// requireLibcDebug checks that libc.so.6's separate debug file is installed
// where both symbolizers look for it, by build ID under /usr/lib/debug.
func requireLibcDebug(t *testing.T) {
	t.Helper()
	for _, p := range libcPaths {
		id, err := buildID(p)
		if err != nil {
			continue
		}
		if len(id) < 2 {
			t.Fatalf("%s: build ID %q is too short", p, id)
		}
		debug := filepath.Join("/usr/lib/debug/.build-id", id[:2], id[2:]+".debug")
		if _, err := os.Stat(debug); err != nil {
			need(t, "libc.so.6's debug file %s is missing (apt-get install libc6-dbg)", debug)
		}
		return
	}
	need(t, "libc.so.6 not found in %v", libcPaths)
}

// buildID returns the GNU build ID of the ELF file at path, in hex.
func buildID(path string) (string, error) {
	f, err := elf.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type != elf.PT_NOTE {
			continue
		}
		data := make([]byte, p.Filesz)
		if _, err := p.ReadAt(data, 0); err != nil {
			return "", fmt.Errorf("%s: reading notes: %v", path, err)
		}
		order := f.ByteOrder
		for len(data) >= 12 {
			namesz, descsz, typ := order.Uint32(data), order.Uint32(data[4:]), order.Uint32(data[8:])
			nameEnd := 12 + align4(uint64(namesz))
			descEnd := nameEnd + align4(uint64(descsz))
			if descEnd > uint64(len(data)) {
				break
			}
			if typ == ntGNUBuildID && string(data[12:12+namesz]) == "GNU\x00" {
				return hex.EncodeToString(data[nameEnd : nameEnd+uint64(descsz)]), nil
			}
			data = data[descEnd:]
		}
	}
	return "", fmt.Errorf("%s: no build ID", path)
}

// ntGNUBuildID is the note type of a GNU build ID (NT_GNU_BUILD_ID).
const ntGNUBuildID = 3

func align4(n uint64) uint64 { return (n + 3) &^ 3 }

// compile builds testdata/src into dir/out with cc and flags.
func compile(t *testing.T, cc compiler, src, out string, flags ...string) {
	t.Helper()
	abs, err := filepath.Abs(filepath.Join("testdata", src))
	if err != nil {
		t.Fatal(err)
	}
	args := append(append([]string{}, flags...), abs, "-o", out)
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()
	if b, err := exec.CommandContext(ctx, cc.path, args...).CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v\n%s", cc.name, strings.Join(args, " "), err, b)
	}
}

// environ is the test's environment without the variables that configure
// the clients (sanitizer options and symbolizer paths, pprof's search
// paths), followed by set.
func environ(set ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasSuffix(k, "SAN_OPTIONS") || strings.HasSuffix(k, "_SYMBOLIZER_PATH") || strings.HasPrefix(k, "PPROF_") {
			continue
		}
		env = append(env, kv)
	}
	return append(env, set...)
}

// masker rewrites what legitimately differs between two runs of one
// program: absolute addresses, PIDs and temporary paths.
type masker struct {
	paths *strings.Replacer
}

var (
	hexRE = regexp.MustCompile(`0x[0-9a-f]+`)
	pidRE = regexp.MustCompile(`==[0-9]+==`)
)

// newMasker masks directories as names, given as pairs: dir, name, dir, name...
func newMasker(t *testing.T, pairs ...string) masker {
	t.Helper()
	var old []string
	for i := 0; i+1 < len(pairs); i += 2 {
		old = append(old, pairs[i], pairs[i+1])
		// The same directory through its symlinks, as a program may print it.
		if r, err := filepath.EvalSymlinks(pairs[i]); err == nil && r != pairs[i] {
			old = append(old, r, pairs[i+1])
		}
	}
	return masker{strings.NewReplacer(old...)}
}

func (m masker) mask(s string) string {
	s = m.paths.Replace(s)
	s = hexRE.ReplaceAllString(s, "0xADDR")
	return pidRE.ReplaceAllString(s, "==PID==")
}

// testdataDir is the absolute path of testdata, as the programs' debug
// information names their sources.
func testdataDir(t *testing.T) string {
	t.Helper()
	d, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// knownDiff is a difference between our output and llvm-symbolizer-14's
// that is a bug of ours, not of the harness: in the one subtest named, the
// text ours in our output is taken as llvm's text llvm before comparing. It
// must occur whenever that subtest runs, so the test fails once the bug is
// fixed and the entry is stale.
type knownDiff struct {
	test       string // the subtest's full name (t.Name())
	ours, llvm string
}

// knownDiffs tracks which known differences occurred, across parallel
// subtests.
type knownDiffs struct {
	list []knownDiff
	mu   sync.Mutex
	ran  map[string]bool // subtests that reached the comparison
	used []bool
}

func newKnownDiffs(list []knownDiff) *knownDiffs {
	return &knownDiffs{list: list, ran: make(map[string]bool), used: make([]bool, len(list))}
}

// apply rewrites our output of subtest t by its known differences.
func (k *knownDiffs) apply(t *testing.T, ours string) string {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.ran[t.Name()] = true
	for i, d := range k.list {
		if d.test == t.Name() && strings.Contains(ours, d.ours) {
			ours = strings.ReplaceAll(ours, d.ours, d.llvm)
			k.used[i] = true
		}
	}
	return ours
}

// checkUsed fails t for each known difference whose subtest ran without
// showing it.
func (k *knownDiffs) checkUsed(t *testing.T) {
	t.Helper()
	k.mu.Lock()
	defer k.mu.Unlock()
	for i, d := range k.list {
		if k.ran[d.test] && !k.used[i] {
			t.Errorf("known difference no longer seen in %s: remove it\nours: %s\nllvm: %s", d.test, d.ours, d.llvm)
		}
	}
}

// diffLines is a line-by-line diff of llvm's output (-) and ours (+), or
// "" when they are equal.
func diffLines(llvm, ours string) string {
	return cmp.Diff(strings.Split(llvm, "\n"), strings.Split(ours, "\n"))
}
