package main

import (
	"bytes"
	"debug/elf"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
)

// fixture is an ELF executable of the repository's testdata (PIE, text at
// file offset and address 0x1000), with DWARF.
const fixture = "../../testdata/elf/c-gcc-O2-dwarf5"

// writeProfile writes a profile of two locations of fixture, mapped at
// 0x555500000000 as the kernel maps it, one of a file that does not
// exist, and one in no mapping.
func writeProfile(t *testing.T, dir string, gz bool) string {
	t.Helper()
	bin, err := filepath.Abs(fixture)
	if err != nil {
		t.Fatal(err)
	}
	return writeProfileOf(t, dir, bin, gz)
}

// writeProfileOf is writeProfile with bin, a build of fixture, for it.
func writeProfileOf(t *testing.T, dir, bin string, gz bool) string {
	t.Helper()
	var err error
	const base = 0x555500000000
	m := &profile.Mapping{ID: 1, Start: base + 0x1000, Limit: base + 0x4000, Offset: 0x1000, File: bin}
	gone := &profile.Mapping{ID: 2, Start: 0x7f0000000000, Limit: 0x7f0000001000, File: filepath.Join(dir, "gone.so")}
	p := &profile.Profile{
		SampleType: []*profile.ValueType{{Type: "samples", Unit: "count"}},
		Mapping:    []*profile.Mapping{m, gone},
		Location: []*profile.Location{
			{ID: 1, Mapping: m, Address: base + 0x11e8}, // calc_fatal
			{ID: 2, Mapping: m, Address: base + 0x2000}, // tree_size, inlined 7 deep in its .constprop.0.isra.0 clone
			{ID: 3, Mapping: gone, Address: 0x7f0000000010},
			{ID: 4, Address: 0x10},
		},
	}
	p.Sample = []*profile.Sample{{Location: p.Location, Value: []int64{1}}}
	file := filepath.Join(dir, "raw.pb")
	var buf bytes.Buffer
	if gz {
		err = p.Write(&buf)
	} else {
		err = p.WriteUncompressed(&buf)
	}
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return file
}

func TestRun(t *testing.T) {
	for _, gz := range []bool{true, false} {
		dir := t.TempDir()
		in := writeProfile(t, dir, gz)
		out := filepath.Join(dir, "out.pb.gz")
		var stdout, stderr bytes.Buffer
		if code := run([]string{"-o", out, in}, &stdout, &stderr); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr.String())
		}
		if stdout.Len() != 0 {
			t.Errorf("with -o, %d bytes on standard output", stdout.Len())
		}
		// The file that is not there and the location in no mapping are
		// reported; the rest is symbolized.
		msgs := stderr.String()
		if !strings.Contains(msgs, "gone.so") || !strings.Contains(msgs, "location 4 at 0x10") || strings.Count(msgs, "\n") != 2 {
			t.Errorf("standard error:\n%s", msgs)
		}
		data, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		if len(data) < 2 || data[0] != 0x1f || data[1] != 0x8b {
			t.Fatalf("the output is not gzipped")
		}
		p, err := profile.ParseData(data)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, l := range p.Location[:2] {
			for _, ln := range l.Line {
				got = append(got, ln.Function.Name)
			}
		}
		if len(got) != 9 || got[0] != "calc_fatal" || got[1] != "tree_size" || got[8] != "tree_size.constprop.0.isra.0" {
			t.Errorf("functions %q", got)
		}
		if len(p.Location[2].Line) != 0 || len(p.Location[3].Line) != 0 {
			t.Errorf("the locations that cannot be symbolized have lines")
		}
	}
}

// TestRunDebugDir: -debug-file-directory DIR finds a stripped binary's
// debug file by build ID under DIR/.build-id, as llvm-symbolizer's option
// does; without it, only the binary's own symbols answer.
func TestRunDebugDir(t *testing.T) {
	dir := t.TempDir()
	stripped, err := os.ReadFile("../../testdata/elf/c-gcc-O2-stripped")
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "prog")
	if err := os.WriteFile(bin, stripped, 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	note, err := f.Section(".note.gnu.build-id").Data()
	f.Close()
	if err != nil || len(note) < 16+2 {
		t.Fatalf("build ID note: %v", err)
	}
	id := hex.EncodeToString(note[16:])
	debug := filepath.Join(dir, "debug", ".build-id", id[:2], id[2:]+".debug")
	os.MkdirAll(filepath.Dir(debug), 0o755)
	data, err := os.ReadFile("../../testdata/elf/c-gcc-O2-stripped.debug")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(debug, data, 0o644); err != nil {
		t.Fatal(err)
	}
	in := writeProfileOf(t, dir, bin, true)
	for _, withDir := range []bool{false, true} {
		args := []string{in}
		if withDir {
			args = []string{"-debug-file-directory", filepath.Join(dir, "debug"), in}
		}
		var stdout, stderr bytes.Buffer
		if code := run(args, &stdout, &stderr); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr.String())
		}
		p, err := profile.Parse(&stdout)
		if err != nil {
			t.Fatal(err)
		}
		file := p.Location[0].Line[0].Function.Filename
		if want := withDir; strings.HasSuffix(file, "stats.c") != want {
			t.Errorf("-debug-file-directory %v: calc_fatal's file is %q", withDir, file)
		}
	}
}

func TestRunStdout(t *testing.T) {
	in := writeProfile(t, t.TempDir(), true)
	var stdout, stderr bytes.Buffer
	if code := run([]string{in}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if _, err := profile.Parse(&stdout); err != nil {
		t.Fatal(err)
	}
}

// TestRunLegacy: a legacy text profile, which SymbolizeData does not read,
// is parsed by profile.Parse and written as a protobuf.
func TestRunLegacy(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "heap.txt")
	legacy := "heap profile: 1: 2 [ 3: 4] @ heap/1048576\n1: 2 [3: 4] @ 0x1000\n"
	if err := os.WriteFile(in, []byte(legacy), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if code := run([]string{in}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	p, err := profile.Parse(&stdout)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Sample) != 1 {
		t.Errorf("%d samples, want 1", len(p.Sample))
	}
}

func TestRunErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad")
	os.WriteFile(bad, []byte("\x1f\x8bnot gzip"), 0o644)
	for _, tc := range []struct {
		args []string
		code int
	}{
		{nil, 2},
		{[]string{"a", "b"}, 2},
		{[]string{"-nosuchflag", "a"}, 2},
		{[]string{filepath.Join(dir, "missing")}, 1},
		{[]string{bad}, 1},
		{[]string{"-o", filepath.Join(dir, "no", "such", "dir"), writeProfile(t, dir, true)}, 1},
	} {
		var stdout, stderr bytes.Buffer
		if code := run(tc.args, &stdout, &stderr); code != tc.code {
			t.Errorf("%q: exit %d, want %d; standard error:\n%s", tc.args, code, tc.code, stderr.String())
		}
		if tc.code != 0 && stderr.Len() == 0 {
			t.Errorf("%q: nothing on standard error", tc.args)
		}
	}
}
