// Command machodump prints a Mach-O file's header and load commands the way
// `otool -l` and `llvm-objdump --macho --private-headers` do, built on package
// macho. It shows what that package decodes and is checked line by line
// against llvm-objdump-14 on the repository's fixtures.
//
// Usage:
//
//	machodump [-arch ARCH] FILE
//
// FILE is a thin image, object or dSYM DWARF file, or a universal file; -arch
// picks a slice (arm64, x86_64, ...). A universal file without -arch is
// dumped slice by slice. Example run:
//
//	$ go run ./examples/machodump testdata/macho/main.arm64
//	main.arm64:
//	Mach header
//	      magic cputype cpusubtype  caps    filetype ncmds sizeofcmds      flags
//	MH_MAGIC_64   ARM64        ALL  0x00     EXECUTE    17       1416   NOUNDEFS DYLDLINK TWOLEVEL PIE
//	Load command 0
//	      cmd LC_SEGMENT_64
//	  cmdsize 72
//	  segname __PAGEZERO
//	   vmaddr 0x0000000000000000
//	   vmsize 0x0000000100000000
//	...
//	Load command 9
//	     cmd LC_UUID
//	 cmdsize 24
//	    uuid 4C4C4410-5555-3144-A111-9930BD2F6E5E
//	...
//
// Fully printed: LC_SEGMENT/LC_SEGMENT_64 with their sections, LC_SYMTAB,
// LC_DYSYMTAB, LC_UUID, the dylib commands (LC_LOAD_DYLIB, LC_ID_DYLIB,
// LC_LOAD_WEAK_DYLIB, LC_REEXPORT_DYLIB, LC_LAZY_LOAD_DYLIB,
// LC_LOAD_UPWARD_DYLIB), LC_BUILD_VERSION, LC_VERSION_MIN_*, LC_MAIN and the
// linkedit_data commands (LC_FUNCTION_STARTS, LC_DATA_IN_CODE,
// LC_CODE_SIGNATURE, ...). Every other command, which package macho keeps
// only as raw bytes, prints its cmd and cmdsize lines alone; commands llvm
// does not know print as "cmd ?(0x...)" as llvm does. The sanity notes llvm
// appends ("Incorrect size", "(past end of file)", ...) are reproduced for
// the fields printed. Time stamps are shown in the local time zone, as
// ctime(3) does.
//
// Package macho keeps one LC_SYMTAB, LC_DYSYMTAB, LC_UUID, LC_MAIN and
// LC_FUNCTION_STARTS per image (the last one); an image with two of a kind
// prints that one for each, which is also what llvm does for the symbol
// tables.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/symbolize-go/symbolize/internal/buf"
	"github.com/symbolize-go/symbolize/macho"
)

func main() {
	arch := flag.String("arch", "", "dump only this `ARCH`'s slice of a universal file (arm64, x86_64, ...)")
	flag.Usage = func() {
		fmt.Fprintf(os.Stderr, "usage: machodump [-arch ARCH] FILE\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 1 {
		flag.Usage()
		os.Exit(2)
	}
	path := flag.Arg(0)
	w := bufio.NewWriter(os.Stdout)
	err := dumpFile(w, path, *arch)
	if ferr := w.Flush(); err == nil {
		err = ferr
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "machodump: %s: %v\n", path, err)
		os.Exit(1)
	}
}

// dumpFile dumps path: the one image a thin file holds or -arch selects,
// or every slice of a universal file.
func dumpFile(w io.Writer, path, arch string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	name := filepath.Base(path)
	if arch != "" || !macho.IsFat(data) {
		f, err := macho.Select(data, arch)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "%s:\n", name)
		dump(w, f)
		return nil
	}
	ft, err := macho.ParseFat(data)
	if err != nil {
		return err
	}
	for _, a := range ft.Arches {
		f, err := ft.Parse(a)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "%s (architecture %s):\n", name, a.Arch())
		dump(w, f)
	}
	return nil
}

// dump prints the header and every load command of f.
func dump(w io.Writer, f *macho.File) {
	printHeader(w, &f.Header)
	size := uint64(len(f.Data))
	var nsyms uint32
	if f.Symtab != nil {
		nsyms = f.Symtab.NSyms
	}
	// Package macho decodes repeatable commands into slices in file order;
	// these count how many of each have been printed so far.
	var nseg, ndylib, nbuild int
	for i, l := range f.Loads {
		fmt.Fprintf(w, "Load command %d\n", i)
		size32 := uint32(len(l.Raw))
		switch c := l.Cmd; {
		case c == macho.LoadSegment || c == macho.LoadSegment64:
			if nseg < len(f.Segments) {
				printSegment(w, f, l, &f.Segments[nseg], size)
			}
			nseg++
		case c == macho.LoadSymtab && f.Symtab != nil:
			printSymtab(w, f.Symtab, size32, f.Is64, size)
		case c == macho.LoadDysymtab && f.Dysymtab != nil:
			printDysymtab(w, f.Dysymtab, size32, nsyms, f.Is64, size)
		case c == macho.LoadUUID && f.HasUUID:
			cmdLines(w, c, size32, size32 != 24, "Incorrect size")
			fmt.Fprintf(w, "    uuid %s\n", f.UUID)
		case isDylib(c):
			d := f.ID
			if c != macho.LoadIDDylib {
				if ndylib >= len(f.Dylibs) {
					break
				}
				d = &f.Dylibs[ndylib]
				ndylib++
			}
			if d != nil {
				printDylib(w, f, d, l)
			}
		case c == macho.LoadBuildVersion || isVersionMin(c):
			if nbuild < len(f.Builds) {
				printBuild(w, &f.Builds[nbuild], size32)
			}
			nbuild++
		case c == macho.LoadMain && f.Main != nil:
			cmdLines(w, c, size32, size32 != 24, "Incorrect size")
			fmt.Fprintf(w, "  entryoff %d\n", f.Main.EntryOff)
			fmt.Fprintf(w, " stacksize %d\n", f.Main.StackSize)
		case linkeditNames[c] != "":
			printLinkedit(w, f, l, size)
		default:
			// Kept raw by package macho: cmd and cmdsize only.
			cmdLines(w, c, size32, false, "")
		}
	}
}

// cmdLines prints the cmd and cmdsize lines of a command with the label
// column llvm-objdump uses for it, and note after cmdsize when bad is set.
func cmdLines(w io.Writer, c macho.LoadCmd, cmdsize uint32, bad bool, note string) {
	ind, ok := cmdIndent[c]
	if !ok {
		ind = 6
	}
	fmt.Fprintf(w, "%*scmd %s\n", ind, "", cmdName(c))
	fmt.Fprintf(w, "%*scmdsize %d%s\n", ind-4, "", cmdsize, suffix(bad, " "+note))
}

// cmdName is the LC_* name llvm-objdump prints, or ?(0x...) for a command
// number it does not know.
func cmdName(c macho.LoadCmd) string {
	if n := linkeditNames[c]; n != "" {
		return n
	}
	if s := c.String(); !strings.HasPrefix(s, "LC_0x") {
		return s
	}
	return fmt.Sprintf("?(0x%08x)", uint32(c))
}

// cmdIndent is the width of the blank run before "cmd" in llvm-objdump's
// block for each command; "cmdsize" sits four columns to its left. Every
// block right-aligns its labels to its longest one, so the width differs
// between commands.
var cmdIndent = map[macho.LoadCmd]int{
	macho.LoadSymtab: 5, macho.LoadUUID: 5, 0x2d /* LC_LINKER_OPTION */ : 5,
	macho.LoadDysymtab: 12, macho.LoadDyldInfo: 12, macho.LoadDyldInfoOnly: 12,
	macho.LoadDylinker: 10, 0xf /* LC_ID_DYLINKER */ : 10, 0x27 /* LC_DYLD_ENVIRONMENT */ : 10,
	macho.LoadRpath: 10, 0x21 /* LC_ENCRYPTION_INFO */ : 10, 0x2c /* LC_ENCRYPTION_INFO_64 */ : 10,
	macho.LoadDylib: 10, macho.LoadIDDylib: 10, macho.LoadWeakDylib: 10, macho.LoadReexportDylib: 10,
	macho.LoadLazyDylib: 10, macho.LoadUpwardDylib: 10,
	macho.LoadBuildVersion: 7, macho.LoadMain: 7, 0x31 /* LC_NOTE */ : 7,
	// LC_SEGMENT*, LC_VERSION_MIN_*, LC_SOURCE_VERSION, linkedit_data and
	// unknown commands use the default, 6.
}

// linkeditNames names the linkedit_data_command kinds, whose body is a
// dataoff/datasize pair into __LINKEDIT.
var linkeditNames = map[macho.LoadCmd]string{
	macho.LoadCodeSignature:  "LC_CODE_SIGNATURE",
	0x1e:                     "LC_SEGMENT_SPLIT_INFO",
	macho.LoadFunctionStarts: "LC_FUNCTION_STARTS",
	macho.LoadDataInCode:     "LC_DATA_IN_CODE",
	0x2b:                     "LC_DYLIB_CODE_SIGN_DRS",
	0x2e:                     "LC_LINKER_OPTIMIZATION_HINT",
	macho.LoadExportsTrie:    "LC_DYLD_EXPORTS_TRIE",
	macho.LoadChainedFixups:  "LC_DYLD_CHAINED_FIXUPS",
}

func isDylib(c macho.LoadCmd) bool {
	switch c {
	case macho.LoadDylib, macho.LoadIDDylib, macho.LoadWeakDylib, macho.LoadReexportDylib,
		macho.LoadLazyDylib, macho.LoadUpwardDylib:
		return true
	}
	return false
}

func isVersionMin(c macho.LoadCmd) bool {
	switch c {
	case macho.LoadVersionMinMac, macho.LoadVersionMinIOS, macho.LoadVersionMinTV, macho.LoadVersionMinWatch:
		return true
	}
	return false
}

// suffix returns s when cond holds, else "".
func suffix(cond bool, s string) string {
	if cond {
		return s
	}
	return ""
}

// pastEnd is llvm's note for a file range that leaves the image.
func pastEnd(cond bool) string { return suffix(cond, " (past end of file)") }

func printSymtab(w io.Writer, st *macho.SymtabCmd, cmdsize uint32, is64 bool, size uint64) {
	cmdLines(w, macho.LoadSymtab, cmdsize, cmdsize != 24, "Incorrect size")
	esz := uint64(12) // struct nlist
	if is64 {
		esz = 16 // struct nlist_64
	}
	fmt.Fprintf(w, "  symoff %d%s\n", st.SymOff, pastEnd(uint64(st.SymOff) > size))
	fmt.Fprintf(w, "   nsyms %d%s\n", st.NSyms, pastEnd(uint64(st.SymOff)+uint64(st.NSyms)*esz > size))
	fmt.Fprintf(w, "  stroff %d%s\n", st.StrOff, pastEnd(uint64(st.StrOff) > size))
	fmt.Fprintf(w, " strsize %d%s\n", st.StrSize, pastEnd(uint64(st.StrOff)+uint64(st.StrSize) > size))
}

func printDysymtab(w io.Writer, d *macho.DysymtabCmd, cmdsize, nsyms uint32, is64 bool, size uint64) {
	cmdLines(w, macho.LoadDysymtab, cmdsize, cmdsize != 80, "Incorrect size")
	// An index and count into the symbol table.
	sym := func(ilabel, nlabel string, i, n uint32) {
		fmt.Fprintf(w, "%15s %d%s\n", ilabel, i, suffix(i > nsyms, " (greater than the number of symbols)"))
		fmt.Fprintf(w, "%15s %d%s\n", nlabel, n, suffix(uint64(i)+uint64(n) > uint64(nsyms), " (past the end of the symbol table)"))
	}
	// A file offset and a count of esz-byte entries.
	tab := func(olabel, nlabel string, off, n uint32, esz uint64) {
		fmt.Fprintf(w, "%15s %d%s\n", olabel, off, pastEnd(uint64(off) > size))
		fmt.Fprintf(w, "%15s %d%s\n", nlabel, n, pastEnd(uint64(off)+uint64(n)*esz > size))
	}
	sym("ilocalsym", "nlocalsym", d.ILocalSym, d.NLocalSym)
	sym("iextdefsym", "nextdefsym", d.IExtDefSym, d.NExtDefSym)
	sym("iundefsym", "nundefsym", d.IUndefSym, d.NUndefSym)
	tab("tocoff", "ntoc", d.TOCOff, d.NTOC, 8) // dylib_table_of_contents
	modsz := uint64(52)                        // dylib_module
	if is64 {
		modsz = 56 // dylib_module_64
	}
	tab("modtaboff", "nmodtab", d.ModTabOff, d.NModTab, modsz)
	tab("extrefsymoff", "nextrefsyms", d.ExtRefSymOff, d.NExtRefSyms, 4)
	tab("indirectsymoff", "nindirectsyms", d.IndirectSymOff, d.NIndirectSyms, 4)
	tab("extreloff", "nextrel", d.ExtRelOff, d.NExtRel, 8) // relocation_info
	tab("locreloff", "nlocrel", d.LocRelOff, d.NLocRel, 8)
}

func printDylib(w io.Writer, f *macho.File, d *macho.Dylib, l macho.Load) {
	cmdLines(w, l.Cmd, uint32(len(l.Raw)), len(l.Raw) < 24, "Incorrect size")
	// Parse has checked that the name offset lies within the command;
	// macho.Dylib keeps the name, not where it was.
	fmt.Fprintf(w, "         name %s (offset %d)\n", d.Name, rawU32(f, l, 8))
	t := time.Unix(int64(d.Timestamp), 0)
	fmt.Fprintf(w, "   time stamp %d %s\n", d.Timestamp, t.Format("Mon Jan _2 15:04:05 2006"))
	fmt.Fprintf(w, "      current version %s\n", dylibVersion(d.CurrentVersion))
	fmt.Fprintf(w, "compatibility version %s\n", dylibVersion(d.CompatVersion))
}

// dylibVersion formats a packed xxxx.yy.zz dylib version; all ones means
// none was recorded.
func dylibVersion(v uint32) string {
	if v == 0xffffffff {
		return "n/a"
	}
	return fmt.Sprintf("%d.%d.%d", v>>16, v>>8&0xff, v&0xff)
}

// rawU32 reads the 32-bit field at off within load command l, for the few
// fields package macho does not keep. A field past the command reads as 0
// (Parse has already checked the commands this is used on).
func rawU32(f *macho.File, l macho.Load, off uint64) uint32 {
	r := buf.New("machodump", "load commands", l.Raw, f.BigEndian)
	r.Seek(off)
	return r.U32()
}

// version formats a packed xxxx.yy.zz version as llvm does: the patch
// level only when it is not zero.
func version(v uint32) string {
	s := fmt.Sprintf("%d.%d", v>>16, v>>8&0xff)
	if v&0xff != 0 {
		s += fmt.Sprintf(".%d", v&0xff)
	}
	return s
}

// sdkVersion formats an SDK version as version does; 0 means none was
// recorded.
func sdkVersion(v uint32) string {
	if v == 0 {
		return "n/a"
	}
	return version(v)
}

func printBuild(w io.Writer, b *macho.BuildVersion, cmdsize uint32) {
	if b.Cmd != macho.LoadBuildVersion {
		// LC_VERSION_MIN_*: version and sdk only.
		cmdLines(w, b.Cmd, cmdsize, cmdsize != 16, "Incorrect size")
		fmt.Fprintf(w, "  version %s\n", version(b.MinOS))
		fmt.Fprintf(w, "      sdk %s\n", sdkVersion(b.SDK))
		return
	}
	cmdLines(w, b.Cmd, cmdsize, uint64(cmdsize) != 24+8*uint64(len(b.Tools)), "Incorrect size")
	fmt.Fprintf(w, "  platform %s\n", platformName(b.Platform))
	fmt.Fprintf(w, "       sdk %s\n", sdkVersion(b.SDK))
	fmt.Fprintf(w, "     minos %s\n", version(b.MinOS))
	fmt.Fprintf(w, "    ntools %d\n", len(b.Tools))
	for _, t := range b.Tools {
		fmt.Fprintf(w, "      tool %s\n", toolName(t.Tool))
		fmt.Fprintf(w, "   version %s\n", version(t.Version))
	}
}

// platformName is the name llvm gives a PLATFORM_* number
// [llvm/BinaryFormat/MachO.def]; others print as llvm's format_hex(p, 8).
func platformName(p uint32) string {
	names := [...]string{1: "macos", 2: "ios", 3: "tvos", 4: "watchos", 5: "bridgeos",
		6: "macCatalyst", 7: "iossimulator", 8: "tvossimulator", 9: "watchossimulator", 10: "driverkit"}
	if int(p) < len(names) && names[p] != "" {
		return names[p]
	}
	return fmt.Sprintf("0x%06X", p)
}

// toolName is the name llvm gives a TOOL_* number.
func toolName(t uint32) string {
	switch t {
	case 1:
		return "clang"
	case 2:
		return "swift"
	case 3:
		return "ld"
	case 4:
		return "lld"
	}
	return fmt.Sprintf("0x%06X", t)
}

func printLinkedit(w io.Writer, f *macho.File, l macho.Load, size uint64) {
	cmdsize := uint32(len(l.Raw))
	cmdLines(w, l.Cmd, cmdsize, cmdsize != 16, "Incorrect size")
	var ld macho.LinkeditData
	if l.Cmd == macho.LoadFunctionStarts && f.FunctionStarts != nil {
		ld = *f.FunctionStarts
	} else {
		// Package macho keeps the other linkedit_data commands raw.
		ld = macho.LinkeditData{DataOff: rawU32(f, l, 8), DataSize: rawU32(f, l, 12)}
	}
	fmt.Fprintf(w, "  dataoff %d%s\n", ld.DataOff, pastEnd(uint64(ld.DataOff) > size))
	fmt.Fprintf(w, " datasize %d%s\n", ld.DataSize, pastEnd(uint64(ld.DataOff)+uint64(ld.DataSize) > size))
}
