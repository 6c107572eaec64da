package elfx_test

import (
	"context"
	"encoding/hex"
	"fmt"
	"path/filepath"

	"github.com/symbolize-go/symbolize/elfx"

	"github.com/symbolize-go/symbolize/locate"
)

// Reading a (possibly compressed) DWARF section.
func ExampleFile_Section() {
	f, err := elfx.Open(filepath.Join("..", "testdata", "elf", "c-gcc-O2-gz-zlib"), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer f.Close()
	s := f.Section(".debug_info")
	// Only the unit header is needed: inflate no further than that.
	head, err := s.Prefix(12)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(s.Compression, len(head) >= 12)
	// Output: zlib true
}

// Finding the separate debug file of a stripped binary, checked by build ID.
func ExampleOpenDebug() {
	dir := filepath.Join("..", "testdata", "elf")
	path := filepath.Join(dir, "c-gcc-O2-stripped")
	bin, err := elfx.Open(path, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer bin.Close()
	opts := &elfx.DebugOptions{Locator: locate.Dirs{DebugDirs: []string{filepath.Join(dir, "debug")}}}
	dbg, ok, err := elfx.OpenDebug(context.Background(), bin, path, opts)
	if err != nil || !ok {
		fmt.Println(ok, err)
		return
	}
	defer dbg.Close()
	want, _, _ := bin.BuildID()
	got, _, _ := dbg.BuildID()
	fmt.Println(hex.EncodeToString(got) == hex.EncodeToString(want), dbg.Section(".debug_line") != nil)
	// Output: true true
}
