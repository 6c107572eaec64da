package symbolize_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/symbolize-go/symbolize"
	"github.com/symbolize-go/symbolize/elfx"
	"github.com/symbolize-go/symbolize/locate"
)

// fileSHA256 hashes a file as the identity record must.
func fileSHA256(t *testing.T, path string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := sha256.Sum256(data)
	return hex.EncodeToString(s[:])
}

// TestIdentityELF: a stripped binary and its debug file, found by build ID,
// both in the record with their hashes.
func TestIdentityELF(t *testing.T) {
	bin := "testdata/elf/c-gcc-O2-stripped"
	dbg := "testdata/elf/debug/.build-id/72/dd7a3b49dd34834636d1c7d5096cc138083e4d.debug"
	b, err := symbolize.Open(bin, &symbolize.Options{Debug: &elfx.DebugOptions{Locator: locate.Dirs{DebugDirs: []string{"testdata/elf/debug"}, SkipBinaryDir: true}}})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	id, err := b.Identity()
	if err != nil {
		t.Fatal(err)
	}
	const buildID = "72dd7a3b49dd34834636d1c7d5096cc138083e4d"
	want := symbolize.Identity{Format: "ELF", Arch: "x86_64", BuildID: buildID, Files: []symbolize.IdentityFile{
		{Role: "binary", Path: bin, How: "given", BuildID: buildID, SHA256: fileSHA256(t, bin)},
		{Role: "debug file", Path: filepath.Join("testdata/elf/debug", ".build-id/72/dd7a3b49dd34834636d1c7d5096cc138083e4d.debug"),
			How: "build-id folder", BuildID: buildID, SHA256: fileSHA256(t, dbg)},
	}}
	got, _ := json.Marshal(id)
	exp, _ := json.Marshal(want)
	if string(got) != string(exp) {
		t.Errorf("Identity:\n got %s\nwant %s", got, exp)
	}
}

// TestIdentityMachO: an image, its dSYM beside it; and an image without
// one, whose debug-map objects enter the record once a lookup opened them.
func TestIdentityMachO(t *testing.T) {
	b, err := symbolize.Open("testdata/macho/prog.arm64", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	id, err := b.Identity()
	if err != nil {
		t.Fatal(err)
	}
	if id.Format != "Mach-O" || id.Arch != "arm64" || len(id.UUID) != 36 || len(id.Files) != 2 ||
		id.Files[1].Role != "dSYM" || id.Files[1].How != "dSYM bundle" || id.Files[1].UUID != id.UUID ||
		id.Files[1].SHA256 != fileSHA256(t, id.Files[1].Path) || id.Files[0].SHA256 != fileSHA256(t, "testdata/macho/prog.arm64") {
		t.Errorf("Identity = %+v", id)
	}

	// Without a dSYM the debug map's objects answer, and each enters the
	// record when a lookup first opens it.
	bin, objs := stageDebugMap(t, machoFixture{"testdata/macho/prog.arm64", ""}, nil)
	b2, err := symbolize.Open(bin, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b2.Close()
	if id, _ := b2.Identity(); len(id.Files) != 1 {
		t.Errorf("before any lookup: %+v", id.Files)
	}
	for _, a := range machoFuncAddrs(t, bin, 10) {
		if _, err := b2.AppendFrames(nil, a); err != nil {
			t.Fatal(err)
		}
	}
	id, err = b2.Identity()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, f := range id.Files[1:] {
		if f.Role != "object" || f.How != "debug map path" || f.SHA256 != fileSHA256(t, f.Path) {
			t.Errorf("object record %+v", f)
		}
		seen[f.Path] = true
	}
	for _, o := range objs {
		if !seen[o] {
			t.Errorf("object %s answered but is not in the record %+v", o, id.Files)
		}
	}
}
