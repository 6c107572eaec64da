package main

import (
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/symbolize-go/symbolize/debuginfod/debuginfodtest"
	"github.com/symbolize-go/symbolize/elfx"
)

// This file checks the debuginfod side of the command: against
// llvm-symbolizer-14 asking elfutils' debuginfod server for the same
// files, and the BUILDID:HEX modules of later LLVMs, which LLVM 14 lacks,
// against LLVM 14 given the file they stand for.

func fixtureBuildID(t *testing.T, path string) string {
	t.Helper()
	f, err := elfx.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	id, ok, err := f.BuildID()
	if !ok || err != nil {
		t.Fatalf("%s: no build ID (%v)", path, err)
	}
	return hex.EncodeToString(id)
}

func copyTo(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// withModule names module on every request line of s, after its
// command when it has one.
func withModule(module, s string) string {
	var b strings.Builder
	for _, l := range strings.SplitAfter(s, "\n") {
		cmd := ""
		for _, c := range []string{"CODE ", "DATA ", "FRAME "} {
			if strings.HasPrefix(l, c) {
				cmd, l = c, l[len(c):]
			}
		}
		if l != "" {
			b.WriteString(cmd + module + " " + l)
		}
	}
	return b.String()
}

// TestDebuginfodAgainstLLVM serves the stripped fixture's debug file with
// elfutils' debuginfod (in a private network namespace where one can be
// made) and symbolizes the binary, alone in its folder, with both tools
// given $DEBUGINFOD_URLS: cold, warm, and with the server stopped (from
// the cache). BUILDID:HEX is compared with LLVM 14 symbolizing the debug
// file it names, the file later LLVMs symbolize for it.
func TestDebuginfodAgainstLLVM(t *testing.T) {
	sym := llvmTool(t, "llvm-symbolizer-14")
	a2l := llvmTool(t, "llvm-addr2line-14")
	debuginfodtest.Need(t, "debuginfod")
	if debuginfodtest.Private(t) {
		return
	}
	dir := t.TempDir()
	binSrc := filepath.Join(fixtures, "c-gcc-O2-stripped")
	served := filepath.Join(dir, "served")
	debugFile := filepath.Join(served, "prog.debug")
	copyTo(t, binSrc+".debug", debugFile)
	bin := filepath.Join(dir, "bin", "prog") // no debug file beside it
	copyTo(t, binSrc, bin)
	h := fixtureBuildID(t, bin)
	id, _ := hex.DecodeString(h)
	srv := debuginfodtest.Start(t, served, id)

	stdin := denseInput(t, filepath.Join(fixtures, "c-gcc-O2-dwarf5"), 61, false) + "DATA 0x5d81\nFRAME 0x1160\n"
	llvmCache, ourCache := filepath.Join(dir, "llvm-cache"), filepath.Join(dir, "our-cache")
	env := func(cache string, urls ...string) []string {
		return []string{"DEBUGINFOD_URLS=" + strings.Join(urls, " "), "DEBUGINFOD_CACHE_PATH=" + cache}
	}
	// compare runs args with both tools, each with its cache, and
	// returns our output.
	n := 0
	compare := func(tool, argv0 string, args []string, stdin string, urls ...string) outcome {
		t.Helper()
		want := runReference(t, tool, args, stdin, env(llvmCache, urls...))
		got := runOurs(argv0, args, stdin, env(ourCache, urls...))
		what := filepath.Base(tool) + " " + strings.Join(args, " ")
		diffText(t, what, want.stdout, got.stdout)
		diffText(t, what+" stderr", want.stderr, got.stderr)
		n++
		return got
	}
	flagSets := [][]string{{}, {"-a", "-f", "-i"}, {"--output-style=JSON"}, {"--output-style=GNU", "--no-inlines"}}
	for i, flags := range flagSets {
		got := compare(sym, "llvm-symbolizer", append([]string{"--obj=" + bin}, flags...), stdin, srv.URL)
		if !strings.Contains(got.stdout, "parser.c") {
			t.Fatalf("%q: no line found through the server:\n%s", flags, got.stdout)
		}
		if i == 0 {
			if _, err := os.Stat(filepath.Join(ourCache, h, "debuginfo")); err != nil {
				t.Fatalf("after the first run, the cache has no debug file: %v", err)
			}
		}
	}
	compare(a2l, "llvm-addr2line", []string{"-e", bin, "-f", "-i", "-C"}, stdin, srv.URL)
	// An unknown server path before the real one: LLVM goes past a 404.
	compare(sym, "llvm-symbolizer", []string{"--obj=" + bin}, stdin, srv.URL+"/nothing", srv.URL)
	// Without servers both still read their caches.
	compare(sym, "llvm-symbolizer", []string{"--obj=" + bin}, stdin)
	// Nothing at all with empty caches and no servers, nor with ours
	// given --no-debuginfod (which reads no cache and asks no server).
	empty := filepath.Join(dir, "empty-cache")
	want := runReference(t, sym, []string{"--obj=" + bin}, stdin, env(empty))
	if strings.Contains(want.stdout, "parser.c") {
		t.Fatalf("a debug file found without servers or cache:\n%s", want.stdout)
	}
	for _, e := range [][]string{env(empty), env(ourCache, srv.URL)} {
		args := []string{"--obj=" + bin}
		if len(e) > 0 && strings.Contains(e[0], srv.URL) {
			args = append(args, "--no-debuginfod")
		}
		got := runOurs("llvm-symbolizer", args, stdin, e)
		diffText(t, strings.Join(args, " ")+" "+e[0], want.stdout, got.stdout)
	}
	if _, err := os.Stat(empty); err == nil {
		t.Error("a lookup without servers created the cache folder")
	}

	// BUILDID:HEX, as --obj and on each line: LLVM 14 symbolizes the
	// debug file itself.
	ref := runReference(t, sym, []string{"--obj=" + debugFile}, stdin, nil)
	for _, tc := range []struct {
		args  []string
		stdin string
	}{
		{[]string{"--obj=BUILDID:" + h}, stdin},
		{[]string{"--obj=BUILDID:" + strings.ToUpper(h)}, stdin},
		{nil, withModule("BUILDID:"+h, stdin)},
	} {
		fresh := t.TempDir() // a cold cache each time
		got := runOurs("llvm-symbolizer", tc.args, tc.stdin, env(fresh, srv.URL))
		diffText(t, "BUILDID "+strings.Join(tc.args, " "), ref.stdout, got.stdout)
		if got.stderr != "" {
			t.Errorf("BUILDID %q: stderr %q", tc.args, got.stderr)
		}
	}
	// JSON names such a module by its build ID, as later LLVMs do.
	got := runOurs("llvm-symbolizer", []string{"--output-style=JSON"}, "BUILDID:"+h+" 0x1160\n", env(ourCache, srv.URL))
	if !strings.Contains(got.stdout, `"ModuleName":"`+h+`"`) {
		t.Errorf("JSON for BUILDID:%s: %s", h, got.stdout)
	}
	// A build ID no one has: LLVM's empty answer, with later LLVMs' message.
	got = runOurs("llvm-symbolizer", nil, "BUILDID:abab 0x10\n", env(ourCache, srv.URL))
	if got.stdout != "??\n??:0:0\n\n" || got.stderr != "LLVMSymbolizer: error reading file: could not find build ID\n" {
		t.Errorf("unknown build ID: %q, %q", got.stdout, got.stderr)
	}

	// The server stopped: both answer from their caches.
	srv.Stop()
	for _, flags := range flagSets[:2] {
		compare(sym, "llvm-symbolizer", append([]string{"--obj=" + bin}, flags...), stdin, srv.URL)
	}
	got = runOurs("llvm-symbolizer", []string{"--obj=BUILDID:" + h}, stdin, env(ourCache, srv.URL))
	diffText(t, "BUILDID, server stopped", ref.stdout, got.stdout)
	// --debuginfod without servers still reads the cache.
	got = runOurs("llvm-symbolizer", []string{"--obj=" + bin, "--debuginfod"}, stdin, env(ourCache))
	diffText(t, "--debuginfod, no servers, warm cache", runReference(t, sym, []string{"--obj=" + bin}, stdin, env(llvmCache, srv.URL)).stdout, got.stdout)
	t.Logf("%d comparisons with llvm-symbolizer-14 and llvm-addr2line-14", n)
}

// TestBuildIDFolders: BUILDID:HEX found in the build-ID folders of
// repeated --debug-file-directory options, the debug file (.debug) before
// the executable, and only with the right build ID; the answers are LLVM
// 14's for the file found.
func TestBuildIDFolders(t *testing.T) {
	sym := llvmTool(t, "llvm-symbolizer-14")
	dir := t.TempDir()
	stripped := filepath.Join(fixtures, "c-gcc-O2-stripped")
	withDWARF := filepath.Join(fixtures, "c-gcc-O2-dwarf4")
	sh, dh := fixtureBuildID(t, stripped), fixtureBuildID(t, withDWARF)
	empty, debugs, exes, wrong := filepath.Join(dir, "empty"), filepath.Join(dir, "debugs"), filepath.Join(dir, "exes"), filepath.Join(dir, "wrong")
	os.MkdirAll(empty, 0o755)
	copyTo(t, stripped+".debug", filepath.Join(debugs, ".build-id", sh[:2], sh[2:]+".debug"))
	copyTo(t, withDWARF, filepath.Join(exes, ".build-id", dh[:2], dh[2:])) // an executable, no .debug
	copyTo(t, filepath.Join(fixtures, "c-gcc-O0-dwarf5"), filepath.Join(wrong, ".build-id", sh[:2], sh[2:]+".debug"))
	stdin := denseInput(t, filepath.Join(fixtures, "c-gcc-O2-dwarf5"), 97, false)
	dirs := func(ds ...string) []string {
		var out []string
		for _, d := range ds {
			out = append(out, "--debug-file-directory="+d)
		}
		return out
	}
	offline := []string{"DEBUGINFOD_URLS=", "DEBUGINFOD_CACHE_PATH=" + filepath.Join(dir, "cache")}
	for _, tc := range []struct {
		dirs []string
		h    string
		ref  []string // LLVM 14's arguments for the same answers
	}{
		// The debug file (as later LLVMs, which symbolize it alone),
		// passing over the file of another build ID in wrong.
		{[]string{empty, wrong, debugs}, sh, []string{"--obj=" + filepath.Join(debugs, ".build-id", sh[:2], sh[2:]+".debug")}},
		{[]string{empty, exes}, dh, []string{"--obj=" + withDWARF}},
		{[]string{exes, debugs}, sh, []string{"--obj=" + stripped + ".debug"}},
	} {
		want := runReference(t, sym, tc.ref, stdin, nil)
		got := runOurs("llvm-symbolizer", append(dirs(tc.dirs...), "--obj=BUILDID:"+tc.h), stdin, offline)
		what := "BUILDID:" + tc.h[:8] + " in " + strings.Join(tc.dirs, ",")
		diffText(t, what, want.stdout, got.stdout)
		if !strings.Contains(got.stdout, ".c:") || got.stderr != "" {
			t.Errorf("%s: no lines, or stderr %q", what, got.stderr)
		}
	}
	// Only a file of another build ID: not found.
	got := runOurs("llvm-symbolizer", append(dirs(wrong), "--obj=BUILDID:"+sh), "0x1160\n", offline)
	if got.stderr != "LLVMSymbolizer: error reading file: could not find build ID\n" {
		t.Errorf("a file of another build ID accepted: %q, %q", got.stdout, got.stderr)
	}
	// Invalid hexadecimal: echoed as an unparsable line, as later LLVMs do.
	got = runOurs("llvm-symbolizer", nil, "BUILDID:xyz 0x10\n", offline)
	if got.stdout != "BUILDID:xyz 0x10\n" {
		t.Errorf("BUILDID:xyz: %q", got.stdout)
	}
}

// TestDebuginfodBeforeDebuglink: as llvm-symbolizer 14, the servers are
// asked after the build-ID folders and before the .gnu_debuglink file
// beside the binary; a 404 or a server that fails does not stop the
// search, and --no-debuginfod asks nothing.
func TestDebuginfodBeforeDebuglink(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		if strings.HasPrefix(r.URL.Path, "/broken/") {
			http.Error(w, "broken", http.StatusBadGateway)
			return
		}
		http.NotFound(w, r)
	}))
	defer srv.Close()
	bin := filepath.Join(fixtures, "c-gcc-O2-stripped") // its debuglink file is beside it
	cache := filepath.Join(t.TempDir(), "cache")
	args := []string{"--obj=" + bin, "--debug-file-directory=" + t.TempDir(), "0x1160"}
	want := runOurs("llvm-symbolizer", args, "", []string{"DEBUGINFOD_URLS="})
	if !strings.Contains(want.stdout, "parser.c") {
		t.Fatalf("the debuglink file was not found: %q", want.stdout)
	}
	for _, tc := range []struct {
		flags []string
		urls  string
		hits  int32
	}{
		{nil, srv.URL + " " + srv.URL + "/broken", 2},
		{[]string{"--no-debuginfod"}, srv.URL, 0},
		{[]string{"--no-debuginfod", "--debuginfod"}, srv.URL + "/broken", 1},
		{[]string{"--debuginfod", "--no-debuginfod"}, srv.URL, 0},
	} {
		hits.Store(0)
		got := runOurs("llvm-symbolizer", append(slices.Clone(args), tc.flags...), "",
			[]string{"DEBUGINFOD_URLS=" + tc.urls, "DEBUGINFOD_CACHE_PATH=" + cache})
		if got.stdout != want.stdout || got.stderr != "" || hits.Load() != tc.hits {
			t.Errorf("%q with %q: %q, %q after %d requests; want %q after %d", tc.flags, tc.urls, got.stdout, got.stderr, hits.Load(), want.stdout, tc.hits)
		}
	}
}

// TestDebuginfodEnvironment: which environment turns the client on, and
// what it reads.
func TestDebuginfodEnvironment(t *testing.T) {
	for _, tc := range []struct {
		flag     int8
		env      map[string]string
		client   bool
		urls     []string
		cache    string
		timeout  time.Duration
		maxTime  time.Duration
		maxSize  int64
		cacheDef bool // CacheDir is the user's default
	}{
		{flag: 0, env: nil, client: true, urls: []string{}, cacheDef: true},
		{flag: 0, env: map[string]string{"DEBUGINFOD_URLS": "  "}, client: true, urls: []string{}, cacheDef: true},
		{flag: 1, env: nil, client: true, urls: []string{}, cacheDef: true},
		{flag: -1, env: map[string]string{"DEBUGINFOD_URLS": "http://a"}, client: false},
		{flag: 0, env: map[string]string{"DEBUGINFOD_URLS": " http://a  http://b/ ", "DEBUGINFOD_CACHE_PATH": "/c",
			"DEBUGINFOD_TIMEOUT": "5", "DEBUGINFOD_MAXTIME": "60", "DEBUGINFOD_MAXSIZE": "1000"},
			client: true, urls: []string{"http://a", "http://b/"}, cache: "/c",
			timeout: 5 * time.Second, maxTime: time.Minute, maxSize: 1000},
		{flag: 0, env: map[string]string{"DEBUGINFOD_URLS": "http://a", "DEBUGINFOD_TIMEOUT": "-3", "DEBUGINFOD_MAXSIZE": "x"},
			client: true, urls: []string{"http://a"}, cacheDef: true},
	} {
		getenv := func(k string) (string, bool) { v, ok := tc.env[k]; return v, ok }
		c := newDebuginfod(&config{debuginfod: tc.flag}, getenv)
		if (c != nil) != tc.client {
			t.Errorf("%d %v: client %v; want %v", tc.flag, tc.env, c != nil, tc.client)
			continue
		}
		if c == nil {
			continue
		}
		cache := tc.cache
		if tc.cacheDef {
			d, _ := os.UserCacheDir()
			cache = filepath.Join(d, "debuginfod_client")
		}
		if !slices.Equal(c.URLs, tc.urls) || c.URLs == nil || c.CacheDir != cache || c.Timeout != tc.timeout ||
			c.MaxTime != tc.maxTime || c.MaxSize != tc.maxSize {
			t.Errorf("%d %v: %+v", tc.flag, tc.env, c)
		}
	}
}
