package main

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/symbolize-go/symbolize/macho"
)

// keep returns the unit headings and rows of a --debug-line dump.
func keep(out []byte) string {
	var b strings.Builder
	for _, l := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(l, "0x") || strings.HasPrefix(l, "debug_line[") {
			b.WriteString(l)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// TestMatchesDwarfdump diffs linedump's rows and unit headings against
// llvm-dwarfdump-14 --debug-line on the ELF fixtures (zstd-compressed ones
// excepted: LLVM 14 cannot read them).
func TestMatchesDwarfdump(t *testing.T) {
	tool, err := exec.LookPath("llvm-dwarfdump-14")
	if err != nil {
		t.Skip("llvm-dwarfdump-14 not installed")
	}
	paths, _ := filepath.Glob("../../testdata/elf/*")
	n := 0
	for _, p := range paths {
		if fi, err := os.Stat(p); err != nil || !fi.Mode().IsRegular() || strings.Contains(p, "zstd") {
			continue
		}
		var buf bytes.Buffer
		w := bufio.NewWriter(&buf)
		if err := dump(w, p, false, false); err != nil {
			continue // no .debug_line
		}
		w.Flush()
		want, err := exec.Command(tool, "--debug-line", p).Output()
		if err != nil {
			t.Fatalf("%s %s: %v", tool, p, err)
		}
		if got, want := keep(buf.Bytes()), keep(want); got != want {
			t.Errorf("%s: linedump and llvm-dwarfdump differ", p)
		}
		n++
	}
	if n == 0 {
		t.Skip("no fixtures")
	}
}

// TestMatchesDwarfdumpMachO diffs linedump -arch=ARCH against
// llvm-dwarfdump-14 --debug-line --arch=ARCH on every Mach-O fixture:
// images, objects (32- and 64-bit), dSYM bundles and the DWARF files in
// them, universal files and dSYMs with each of their architectures. A
// file without __debug_line (a linked image whose DWARF is in its dSYM)
// must make llvm-dwarfdump print no rows either.
func TestMatchesDwarfdumpMachO(t *testing.T) {
	tool, err := exec.LookPath("llvm-dwarfdump-14")
	if err != nil {
		t.Skip("llvm-dwarfdump-14 not installed")
	}
	paths, _ := filepath.Glob("../../testdata/macho/*")
	dwarfFiles, _ := filepath.Glob("../../testdata/macho/*.dSYM/Contents/Resources/DWARF/*")
	paths = append(paths, dwarfFiles...)
	rows := 0
	compared := 0
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		var arches []string
		switch {
		case fi.IsDir():
			arches = archesOf(t, dwarfFiles, p)
		default:
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if !isMachO(data) {
				continue
			}
			arches = archesOfData(t, data)
		}
		for _, arch := range arches {
			var buf bytes.Buffer
			w := bufio.NewWriter(&buf)
			dumpErr := dumpFile(w, p, arch, false, false)
			w.Flush()
			out, err := exec.Command(tool, "--debug-line", "--arch="+arch, p).Output()
			if err != nil {
				t.Fatalf("%s %s: %v", tool, p, err)
			}
			want := keep(out)
			if dumpErr != nil {
				if want != "" {
					t.Errorf("%s --arch=%s: linedump: %v; llvm-dwarfdump prints rows", p, arch, dumpErr)
				}
				continue
			}
			if got := keep(buf.Bytes()); got != want {
				t.Errorf("%s --arch=%s: linedump and llvm-dwarfdump differ:\n%s", p, arch, firstDiff(got, want))
			}
			compared++
			rows += strings.Count(want, "\n0x")
		}
	}
	if compared == 0 {
		t.Skip("no Mach-O fixtures with line tables")
	}
	t.Logf("%d files/slices, %d rows agree", compared, rows)
}

func isMachO(data []byte) bool {
	if macho.IsFat(data) {
		return true
	}
	_, err := macho.Parse(data)
	return err == nil
}

// archesOfData lists the architectures of a thin or universal file.
func archesOfData(t *testing.T, data []byte) []string {
	if macho.IsFat(data) {
		ft, err := macho.ParseFat(data)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, a := range ft.Arches {
			out = append(out, a.Arch())
		}
		return out
	}
	f, err := macho.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	return []string{f.Arch()}
}

// archesOf lists the architectures of the DWARF files in a bundle.
func archesOf(t *testing.T, dwarfFiles []string, bundle string) []string {
	seen := map[string]bool{}
	var out []string
	for _, f := range dwarfFiles {
		if !strings.HasPrefix(f, bundle+"/") {
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range archesOfData(t, data) {
			if !seen[a] {
				seen[a] = true
				out = append(out, a)
			}
		}
	}
	return out
}

// firstDiff shows the first line where got and want differ.
func firstDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := 0; i < len(g) && i < len(w); i++ {
		if g[i] != w[i] {
			return "line " + strconv.Itoa(i+1) + ":\n ours:   " + g[i] + "\n theirs: " + w[i]
		}
	}
	return "lengths differ: ours " + strconv.Itoa(len(g)) + " lines, theirs " + strconv.Itoa(len(w))
}

// TestFatWithoutArch checks that a universal file without -arch dumps every
// slice, each after a "FILE(ARCH):" line, in file order.
func TestFatWithoutArch(t *testing.T) {
	p := "../../testdata/macho/prog.fat.dSYM"
	var buf bytes.Buffer
	w := bufio.NewWriter(&buf)
	if err := dumpFile(w, p, "", false, false); err != nil {
		t.Fatal(err)
	}
	w.Flush()
	out := buf.String()
	df := filepath.Join(p, "Contents/Resources/DWARF/prog.fat")
	x, a := strings.Index(out, df+"(x86_64):\n"), strings.Index(out, df+"(arm64):\n")
	if x < 0 || a < x {
		t.Errorf("slices missing or out of order (x86_64 at %d, arm64 at %d)", x, a)
	}
	var one bytes.Buffer
	w = bufio.NewWriter(&one)
	if err := dumpFile(w, p, "arm64", false, false); err != nil {
		t.Fatal(err)
	}
	w.Flush()
	if !strings.HasSuffix(out, one.String()) {
		t.Error("the arm64 slice dumped whole differs from -arch=arm64")
	}
	// A thin file of another architecture is skipped, not an error.
	buf.Reset()
	w = bufio.NewWriter(&buf)
	if err := dumpFile(w, "../../testdata/macho/main.x86_64.o", "arm64", false, false); err != nil || w.Buffered() != 0 {
		t.Errorf("thin file of another arch: err %v, %d bytes", err, w.Buffered())
	}
}

// TestStatsMatchesDwarfdump checks -stats against llvm-dwarfdump-14
// --debug-line on the ELF fixtures (zstd-compressed ones excepted, as in
// TestMatchesDwarfdump): units are its debug_line[] headings, rows its row
// lines, sequences its end_sequence rows, and bytes the sum of each
// unit's total_length and the initial length field itself.
func TestStatsMatchesDwarfdump(t *testing.T) {
	tool, err := exec.LookPath("llvm-dwarfdump-14")
	if err != nil {
		t.Skip("llvm-dwarfdump-14 not installed")
	}
	lengthRE := regexp.MustCompile(`^\s*total_length: 0x([0-9a-f]+)$`)
	paths, _ := filepath.Glob("../../testdata/elf/*")
	n := 0
	for _, p := range paths {
		if fi, err := os.Stat(p); err != nil || !fi.Mode().IsRegular() || strings.Contains(p, "zstd") {
			continue
		}
		var buf bytes.Buffer
		w := bufio.NewWriter(&buf)
		if err := dump(w, p, true, false); err != nil {
			continue // no .debug_line
		}
		w.Flush()
		out, err := exec.Command(tool, "--debug-line", p).Output()
		if err != nil {
			t.Fatalf("%s %s: %v", tool, p, err)
		}
		var units, seqs, rows, size uint64
		for _, l := range strings.Split(string(out), "\n") {
			switch {
			case strings.HasPrefix(l, "debug_line["):
				units++
			case strings.HasPrefix(l, "0x"):
				rows++
				if strings.HasSuffix(l, " end_sequence") {
					seqs++
				}
			case strings.TrimSpace(l) == "format: DWARF64":
				size += 8 // the 8-byte length after the 0xffffffff escape
			}
			if m := lengthRE.FindStringSubmatch(l); m != nil {
				v, _ := strconv.ParseUint(m[1], 16, 64)
				size += v + 4
			}
		}
		want := "units " + strconv.FormatUint(units, 10) + " sequences " + strconv.FormatUint(seqs, 10) +
			" rows " + strconv.FormatUint(rows, 10) + " bytes " + strconv.FormatUint(size, 10) + "\n"
		if got := buf.String(); got != want {
			t.Errorf("%s: -stats %q, llvm-dwarfdump %q", p, got, want)
		}
		n++
	}
	if n == 0 {
		t.Skip("no fixtures")
	}
}
