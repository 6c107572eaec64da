package main

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWarningOnce: a debug section that does not decode (here .debug_info
// with an unknown compression type) costs that section: the symbol table
// still names the function, and the cause is written to stderr once for
// the whole run, however many addresses it touched.
func TestWarningOnce(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(fixtures, "c-gcc-O2-gz-zlib"))
	if err != nil {
		t.Fatal(err)
	}
	f, err := elf.NewFile(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	s := f.Section(".debug_info")
	if s == nil || s.Flags&elf.SHF_COMPRESSED == 0 {
		t.Fatal("fixture has no compressed .debug_info")
	}
	binary.LittleEndian.PutUint32(data[s.Offset:], 0x7f) // Elf64_Chdr.ch_type
	path := filepath.Join(t.TempDir(), "bad")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	in := strings.NewReader("0x1567\n0x1581\n")
	if code := run([]string{"--obj=" + path}, in, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if want := "lexer_next\n??:0:0\n\nlexer_next\n??:0:0\n\n"; out.String() != want {
		t.Errorf("stdout %q, want %q", out.String(), want)
	}
	if n := strings.Count(errb.String(), "warning: "); n != 1 || !strings.Contains(errb.String(), ".debug_info+0x0: compression type 127") {
		t.Errorf("stderr %q: want one warning naming .debug_info", errb.String())
	}
}
