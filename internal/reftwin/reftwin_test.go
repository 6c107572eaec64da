package reftwin

import (
	"os"
	"testing"
)

const dir = "../../testdata/elf/"

func TestOf(t *testing.T) {
	if _, err := os.Stat(dir + "c-gcc-O2-zstd"); err != nil {
		t.Skip(err)
	}
	got, err := Of(dir + "c-gcc-O2-zstd")
	if err != nil || got != dir+"c-gcc-O2-dwarf5" {
		t.Fatalf("Of(c-gcc-O2-zstd) = %q, %v", got, err)
	}
	if got, err := Of(dir + "c-gcc-O2-dwarf4"); err != nil || got != dir+"c-gcc-O2-dwarf4" {
		t.Fatalf("Of(c-gcc-O2-dwarf4) = %q, %v; want the fixture itself", got, err)
	}
	if !Has(dir+"c-gcc-O2-zstd") || Has(dir+"c-gcc-O2-dwarf4") {
		t.Error("Has is wrong")
	}
}

// TestNotTwins checks that the comparison tells fixtures apart: another
// build, the same file uncompressed (nothing to stand in for), and the
// sections renamed .zdebug_* by objcopy's zlib-gnu mode.
func TestNotTwins(t *testing.T) {
	if _, err := os.Stat(dir + "c-gcc-O2-zstd"); err != nil {
		t.Skip(err)
	}
	for _, p := range [][2]string{
		{"c-gcc-O2-zstd", "c-gcc-O2-dwarf4"},
		{"c-gcc-O2-dwarf5", "c-gcc-O2-dwarf5"},
		{"c-gcc-O2-zdebug", "c-gcc-O2-dwarf5"},
		{"c-gcc-O2-zstd", "c-gcc-O2-gz-zlib"},
	} {
		if err := same(dir+p[0], dir+p[1]); err == nil {
			t.Errorf("%s and %s taken for twins", p[0], p[1])
		} else {
			t.Logf("%s, %s: %v", p[0], p[1], err)
		}
	}
}
