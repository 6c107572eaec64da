package symbolize_test

import (
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// TestGoPCLNAgreesWithDWARFRELR: a Go PIE linked by the system linker with packed
// relative relocations (DT_RELR, -z pack-relative-relocs), as distributions
// are starting to link. RELR relocations have no addend of their own: the
// word at each place holds its link-time value, which is what the table's
// module record must read. The pair is built here, from testdata/gopcln/src,
// and checked as TestGoPCLNAgreesWithDWARF checks the committed pairs.
func TestGoPCLNAgreesWithDWARFRELR(t *testing.T) {
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		t.Skip("the exceptions are for linux/amd64")
	}
	dir := t.TempDir()
	name := filepath.Join(dir, "go1.26-linux-amd64-pie-relr")
	src, err := filepath.Abs("testdata/gopcln/src")
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{"dwarf", "sw"} {
		ld := "-linkmode=external -extldflags=-Wl,-z,pack-relative-relocs"
		if v == "sw" {
			ld += " -s -w"
		}
		cmd := exec.Command("go", "build", "-trimpath", "-buildmode=pie", "-ldflags="+ld, "-o", name+"-"+v, ".")
		cmd.Dir = src
		cmd.Env = append(os.Environ(), "GOENV=off", "GOFLAGS=", "CGO_ENABLED=1", "GOTOOLCHAIN=local")
		if out, err := cmd.CombinedOutput(); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("building with DT_RELR: %v\n%s", err, out)
			}
			t.Skipf("building with DT_RELR (needs gcc and binutils 2.38 or later): %v\n%s", err, out)
		}
	}
	f, err := elf.Open(name + "-sw")
	if err != nil {
		t.Fatal(err)
	}
	relr := f.Section(".relr.dyn")
	f.Close()
	if relr == nil || relr.Size == 0 {
		t.Fatal("the -s -w build has no .relr.dyn: the linker packed nothing")
	}
	checkGoPCLNPair(t, [2]string{name + "-dwarf", name + "-sw"})
}
