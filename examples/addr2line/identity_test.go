package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/symbolize-go/symbolize"
)

// TestIdentity: --identity prints, instead of the answers, one JSON record
// for each module the requests used, in order, with every file that
// answered and its SHA-256; a module that does not open says why.
func TestIdentity(t *testing.T) {
	stripped := filepath.Join(fixtures, "c-gcc-O2-stripped")
	other := filepath.Join(fixtures, "c-gcc-O2-dwarf4")
	in := strings.NewReader(stripped + " 0x1328\n" + other + " 0x1200\n" + stripped + " 0x1330\nno-such-file 0x10\n")
	var out, errb bytes.Buffer
	args := []string{"--identity", "--debug-file-directory=" + filepath.Join(fixtures, "debug"), "--no-debuginfod"}
	if code := run(args, in, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != 3 {
		t.Fatalf("%d records, want 3:\n%s", len(lines), out.String())
	}
	var recs [3]struct {
		Module string
		symbolize.Identity
		Error string
	}
	for i, l := range lines {
		if err := json.Unmarshal([]byte(l), &recs[i]); err != nil {
			t.Fatalf("record %d: %v: %s", i, err, l)
		}
	}
	if r := recs[0]; r.Module != stripped || r.Format != "ELF" || len(r.Files) != 2 || r.Files[1].Role != "debug file" || r.Files[1].How != "build-id folder" {
		t.Errorf("record 0: %+v", r)
	}
	if r := recs[1]; r.Module != other || len(r.Files) != 1 || r.Files[0].Role != "binary" {
		t.Errorf("record 1: %+v", r)
	}
	if r := recs[2]; r.Module != "no-such-file" || r.Error == "" || r.Files != nil {
		t.Errorf("record 2: %+v", r)
	}
	for _, r := range recs[:2] {
		for _, f := range r.Files {
			data, err := os.ReadFile(f.Path)
			if err != nil {
				t.Fatal(err)
			}
			if sum := sha256.Sum256(data); f.SHA256 != hex.EncodeToString(sum[:]) {
				t.Errorf("%s: sha256 %s, want %x", f.Path, f.SHA256, sum)
			}
		}
	}
}
