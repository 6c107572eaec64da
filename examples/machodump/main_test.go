package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/symbolize-go/symbolize/macho"
)

// notPrinted lists, per command, the fields llvm-objdump prints that
// machodump does not: package macho keeps these commands only as raw bytes,
// so machodump prints their cmd and cmdsize lines alone. Lines of these
// commands that begin with one of the labels are dropped from llvm's output
// before the comparison; any other difference fails, and so does a label
// that drops no line of any fixture.
var notPrinted = map[string][]string{
	// Rebase, bind and export ranges: dyld's business, not symbolication's.
	// (The fixtures have LC_DYLD_INFO_ONLY only; LC_DYLD_INFO prints the same.)
	"LC_DYLD_INFO_ONLY": {"rebase_off", "rebase_size", "bind_off", "bind_size", "weak_bind_off", "weak_bind_size", "lazy_bind_off", "lazy_bind_size", "export_off", "export_size"},
	// The dynamic linker's path.
	"LC_LOAD_DYLINKER": {"name"},
}

// fixtures returns every Mach-O file under testdata/macho: images,
// objects, dSYM DWARF files and universal files.
func fixtures(t *testing.T) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir("../../testdata/macho", func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if len(data) >= 4 && macho.HasMagic(data) {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no Mach-O fixtures under testdata/macho")
	}
	return files
}

// TestMatchesLLVMObjdump runs machodump and llvm-objdump-14 --macho
// --private-headers on every thin fixture and every slice of the universal
// ones, and compares the header and load command blocks line by line.
func TestMatchesLLVMObjdump(t *testing.T) {
	tool, err := exec.LookPath("llvm-objdump-14")
	if err != nil {
		t.Skip("llvm-objdump-14 not found")
	}
	var runs, blocks int
	dropped := map[string]int{} // "cmd label": lines filterLLVM dropped
	defer func() {
		for cmd, labels := range notPrinted {
			for _, l := range labels {
				if dropped[cmd+" "+l] == 0 {
					t.Errorf("notPrinted[%s] lists %s, which no fixture has: remove it", cmd, l)
				}
			}
		}
	}()
	for _, path := range fixtures(t) {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		arches := []string{""}
		if macho.IsFat(data) {
			ft, err := macho.ParseFat(data)
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			arches = arches[:0]
			for _, a := range ft.Arches {
				arches = append(arches, a.Arch())
			}
		}
		for _, arch := range arches {
			name := path
			args := []string{"--macho", "--private-headers"}
			if arch != "" {
				name += "(" + arch + ")"
				args = append(args, "--arch="+arch)
			}
			var ours bytes.Buffer
			if err := dumpFile(&ours, path, arch); err != nil {
				t.Errorf("%s: machodump: %v", name, err)
				continue
			}
			theirs, err := exec.Command(tool, append(args, path)...).Output()
			if err != nil {
				t.Errorf("%s: llvm-objdump-14: %v", name, err)
				continue
			}
			want := filterLLVM(fromHeader(string(theirs)), dropped)
			got := fromHeader(ours.String())
			blocks += strings.Count(got, "\nLoad command ")
			runs++
			compareLines(t, name, got, want)
		}
	}
	t.Logf("compared %d images, %d load commands", runs, blocks)
}

// fromHeader drops the file-name line(s) before "Mach header", which the
// tools spell differently for slices of universal files.
func fromHeader(s string) string {
	if i := strings.Index(s, "Mach header\n"); i >= 0 {
		return s[i:]
	}
	return s
}

// filterLLVM removes from llvm-objdump's output the fields in notPrinted,
// counting each in dropped.
func filterLLVM(s string, dropped map[string]int) string {
	var out []string
	var skip []string
	var cmd string
	for _, line := range strings.SplitAfter(s, "\n") {
		f := strings.Fields(line)
		switch {
		case strings.HasPrefix(line, "Load command "):
			skip = nil
		case len(f) == 2 && f[0] == "cmd":
			cmd, skip = f[1], notPrinted[f[1]]
		case len(f) > 0 && contains(skip, f[0]):
			dropped[cmd+" "+f[0]]++
			continue
		}
		out = append(out, line)
	}
	return strings.Join(out, "")
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// compareLines reports the first few differing lines, with the load
// command each belongs to.
func compareLines(t *testing.T, name, got, want string) {
	t.Helper()
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	block := "header"
	bad := 0
	for i := 0; i < len(g) || i < len(w); i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if strings.HasPrefix(wl, "Load command ") {
			block = wl
		}
		if gl != wl {
			t.Errorf("%s: %s: line %d:\n got  %q\n want %q", name, block, i+1, gl, wl)
			if bad++; bad == 5 {
				t.Errorf("%s: further differences not shown", name)
				return
			}
		}
	}
}

// TestUnknownCommand checks that a command no one decodes still prints its
// number and size, in llvm's "?(0x...)" form.
func TestUnknownCommand(t *testing.T) {
	data, err := os.ReadFile("../../testdata/macho/main.arm64")
	if err != nil {
		t.Fatal(err)
	}
	f, err := macho.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	// Renumber the last command (LC_CODE_SIGNATURE) in a copy.
	last := f.Loads[len(f.Loads)-1]
	img := append([]byte(nil), data...)
	img[last.Offset] = 0x77 // little-endian cmd: 0x1d -> 0x77
	f, err = macho.Parse(img)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	dump(&out, f)
	want := "      cmd ?(0x00000077)\n  cmdsize 16\n"
	if !strings.HasSuffix(out.String(), want) {
		t.Errorf("unknown command printed as\n%s\nwant suffix\n%s", out.String()[max(0, out.Len()-100):], want)
	}
}

// FuzzDump checks that dumping never panics on any image package macho
// accepts: fixtures with bytes overwritten, then cut short. The image is
// chosen by index rather than passed whole: the fuzzer minimizes every
// input that finds new coverage, at a cost quadratic in its length, and
// 12-50 KiB images held it to a few dozen executions a minute.
func FuzzDump(f *testing.F) {
	var images [][]byte
	for _, name := range []string{"main.arm64", "lib.i386.o", "libfix.x86_64.dylib", "prog.x86_64", "main.arm64.o"} {
		data, err := os.ReadFile("../../testdata/macho/" + name)
		if err != nil {
			f.Fatal(err)
		}
		images = append(images, data)
	}
	for i, data := range images {
		n := uint32(len(data))
		f.Add(uint8(i), uint32(0), []byte{}, uint32(0))
		f.Add(uint8(i), uint32(16), []byte{0xff, 0, 0, 0}, uint32(0))
		f.Add(uint8(i), uint32(40), []byte{0x80, 0x80, 0x80, 0x80}, uint32(0))
		f.Add(uint8(i), uint32(0), []byte{}, n-n/8)
	}
	f.Fuzz(func(t *testing.T, which uint8, at uint32, patch []byte, keep uint32) {
		// A longer patch is ignored, not cut: the fuzzer would minimize
		// its bytes (at a cost quadratic in their number) with every
		// input that finds new coverage, and run nothing new meanwhile.
		if len(patch) > 64 {
			return
		}
		data := bytes.Clone(images[int(which)%len(images)])
		copy(data[int(at)%len(data):], patch)
		if keep != 0 {
			data = data[:int(keep)%len(data)]
		}
		m, err := macho.Parse(data)
		if err != nil {
			return
		}
		var out bytes.Buffer
		dump(&out, m)
	})
}
