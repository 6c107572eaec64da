package main

import (
	"fmt"
	"io"

	"github.com/symbolize-go/symbolize/macho"
)

// printHeader prints the mach_header line under llvm-objdump's column
// headings: names where llvm has one, numbers otherwise, in fixed widths.
func printHeader(w io.Writer, h *macho.Header) {
	fmt.Fprintf(w, "Mach header\n")
	fmt.Fprintf(w, "      magic cputype cpusubtype  caps    filetype ncmds sizeofcmds      flags\n")
	switch h.Magic {
	case macho.Magic32:
		fmt.Fprintf(w, "%11s", "MH_MAGIC")
	case macho.Magic64:
		fmt.Fprintf(w, "%11s", "MH_MAGIC_64")
	default:
		fmt.Fprintf(w, " 0x%08x", h.Magic)
	}
	fmt.Fprint(w, cpuColumns(h.CPU, h.SubCPU))
	// The top byte of cpusubtype holds capability bits (CPU_SUBTYPE_MASK).
	if caps := h.SubCPU & 0xff000000; caps == 0x80000000 {
		fmt.Fprint(w, " LIB64")
	} else {
		fmt.Fprintf(w, "  0x%02x", caps>>24)
	}
	if int(h.Type) < len(fileTypes) && fileTypes[h.Type] != "" {
		fmt.Fprintf(w, "%12s", fileTypes[h.Type])
	} else {
		fmt.Fprintf(w, "  %10d", uint32(h.Type))
	}
	fmt.Fprintf(w, " %5d %10d", h.NCmds, h.SizeOfCmds)
	f := h.Flags
	for _, hf := range headerFlags {
		if f&hf.bit == 0 {
			continue
		}
		sep := " "
		if hf.bit == 1 {
			sep = "   " // llvm's column for NOUNDEFS, the first flag
		}
		fmt.Fprint(w, sep+hf.name)
		f &^= hf.bit
	}
	if f != 0 || h.Flags == 0 {
		fmt.Fprintf(w, " 0x%08x", f)
	}
	fmt.Fprintln(w)
}

// cpuColumns formats the cputype and cpusubtype columns.
func cpuColumns(cpu macho.CPU, sub uint32) string {
	sub &^= 0xff000000
	var name string
	var subs map[uint32]string
	switch cpu {
	case macho.CPU386:
		name, subs = "I386", map[uint32]string{3: "ALL"}
	case macho.CPUAmd64:
		name, subs = "X86_64", map[uint32]string{3: "ALL", 8: "Haswell"}
	case macho.CPUArm:
		name, subs = "ARM", map[uint32]string{0: "ALL", 5: "V4T", 6: "V6", 7: "V5TEJ", 8: "XSCALE",
			9: "V7", 11: "V7S", 12: "V7K", 14: "V6M", 15: "V7M", 16: "V7EM"}
	case macho.CPUArm64:
		name, subs = "ARM64", map[uint32]string{0: "ALL", 1: "V8", 2: "E"}
	case macho.CPUArm6432:
		// llvm's one column one wider than the others, its subtype one narrower.
		if sub == 1 {
			return " ARM64_32        V8"
		}
		return fmt.Sprintf(" ARM64_32 %10d", int32(sub))
	case macho.CPUPpc:
		name, subs = "PPC", map[uint32]string{0: "ALL"}
	case macho.CPUPpc64:
		name, subs = "PPC64", map[uint32]string{0: "ALL"}
	default:
		return fmt.Sprintf(" %7d %10d", int32(cpu), int32(sub))
	}
	if s, ok := subs[sub]; ok {
		return fmt.Sprintf("%8s %10s", name, s)
	}
	return fmt.Sprintf("%8s %10d", name, int32(sub))
}

// fileTypes names MH_* file types as llvm-objdump prints them.
var fileTypes = [...]string{1: "OBJECT", 2: "EXECUTE", 3: "FVMLIB", 4: "CORE", 5: "PRELOAD",
	6: "DYLIB", 7: "DYLINKER", 8: "BUNDLE", 9: "DYLIB_STUB", 10: "DSYM", 11: "KEXTBUNDLE", 12: "FILESET"}

// headerFlags are the MH_* flags in the order llvm-objdump prints them
// (not bit order: DEAD_STRIPPABLE_DYLIB precedes PIE). MH_ROOT_SAFE and
// MH_SETUID_SAFE have no name there and fall into the hex remainder.
var headerFlags = []struct {
	bit  uint32
	name string
}{
	{0x1, "NOUNDEFS"}, {0x2, "INCRLINK"}, {0x4, "DYLDLINK"}, {0x8, "BINDATLOAD"},
	{0x10, "PREBOUND"}, {0x20, "SPLIT_SEGS"}, {0x40, "LAZY_INIT"}, {0x80, "TWOLEVEL"},
	{0x100, "FORCE_FLAT"}, {0x200, "NOMULTIDEFS"}, {0x400, "NOFIXPREBINDING"},
	{0x800, "PREBINDABLE"}, {0x1000, "ALLMODSBOUND"}, {0x2000, "SUBSECTIONS_VIA_SYMBOLS"},
	{0x4000, "CANONICAL"}, {0x8000, "WEAK_DEFINES"}, {0x10000, "BINDS_TO_WEAK"},
	{0x20000, "ALLOW_STACK_EXECUTION"}, {0x400000, "DEAD_STRIPPABLE_DYLIB"}, {0x200000, "PIE"},
	{0x100000, "NO_REEXPORTED_DYLIBS"}, {0x800000, "MH_HAS_TLV_DESCRIPTORS"},
	{0x1000000, "MH_NO_HEAP_EXECUTION"}, {0x2000000, "APP_EXTENSION_SAFE"},
	{0x4000000, "NLIST_OUTOFSYNC_WITH_DYLDINFO"},
}

// printSegment prints an LC_SEGMENT or LC_SEGMENT_64 and its sections.
func printSegment(w io.Writer, f *macho.File, l macho.Load, s *macho.Segment, size uint64) {
	is64 := l.Cmd == macho.LoadSegment64
	hdr, secsz, hexw := uint64(56), uint64(68), 8 // segment_command, section
	if is64 {
		hdr, secsz, hexw = 72, 80, 16 // segment_command_64, section_64
	}
	cmdsize := uint32(len(l.Raw))
	cmdLines(w, l.Cmd, cmdsize, uint64(cmdsize) != hdr+secsz*uint64(len(s.Sections)), "Inconsistent size")
	fmt.Fprintf(w, "  segname %s\n", s.Name)
	fmt.Fprintf(w, "   vmaddr 0x%0*x\n", hexw, s.Addr)
	fmt.Fprintf(w, "   vmsize 0x%0*x\n", hexw, s.MemSize)
	fmt.Fprintf(w, "  fileoff %d%s\n", s.Offset, pastEnd(s.Offset > size))
	fmt.Fprintf(w, " filesize %d%s\n", s.FileSize, pastEnd(s.Offset+s.FileSize > size))
	fmt.Fprintf(w, "  maxprot %s\n", prot(s.MaxProt))
	fmt.Fprintf(w, " initprot %s\n", prot(s.InitProt))
	fmt.Fprintf(w, "   nsects %d\n", len(s.Sections))
	fmt.Fprintf(w, "    flags%s\n", segFlags(s.Flags))
	for j := range s.Sections {
		sec := &s.Sections[j]
		at := hdr + uint64(j)*secsz
		// reserved1 and reserved2 follow flags; package macho does not keep them.
		rsv := at + 60
		if is64 {
			rsv = at + 68
		}
		printSection(w, f, s, sec, rawU32(f, l, rsv), rawU32(f, l, rsv+4), hexw, size)
	}
}

// prot formats VM_PROT bits as rwx, or in hex when other bits are set.
func prot(p uint32) string {
	if p&^7 != 0 {
		return fmt.Sprintf("?0x%08x", p)
	}
	b := []byte("---")
	for i, c := range "rwx" {
		if p&(1<<i) != 0 {
			b[i] = byte(c)
		}
	}
	return string(b)
}

// segFlags formats SG_* flags, each after a space.
func segFlags(fl uint32) string {
	if fl == 0 {
		return " (none)"
	}
	s := ""
	for _, sf := range []struct {
		bit  uint32
		name string
	}{{0x1, "HIGHVM"}, {0x2, "FVMLIB"}, {0x4, "NORELOC"}, {0x8, "PROTECTED_VERSION_1"}} {
		if fl&sf.bit != 0 {
			s += " " + sf.name
			fl &^= sf.bit
		}
	}
	if fl != 0 {
		s += fmt.Sprintf(" 0x%08x (unknown flags)", fl)
	}
	return s
}

// Section types (the low byte of flags) whose reserved fields llvm annotates.
const (
	sNonLazyPointers    = 0x6
	sLazyPointers       = 0x7
	sSymbolStubs        = 0x8
	sLazyDylibPointers  = 0x10
	sTLVariablePointers = 0x14
)

// sectionTypes names S_* section types; llvm has no name for
// S_GB_ZEROFILL (0xc), printed as a number.
var sectionTypes = [...]string{0x0: "S_REGULAR", 0x1: "S_ZEROFILL", 0x2: "S_CSTRING_LITERALS",
	0x3: "S_4BYTE_LITERALS", 0x4: "S_8BYTE_LITERALS", 0x5: "S_LITERAL_POINTERS",
	0x6: "S_NON_LAZY_SYMBOL_POINTERS", 0x7: "S_LAZY_SYMBOL_POINTERS", 0x8: "S_SYMBOL_STUBS",
	0x9: "S_MOD_INIT_FUNC_POINTERS", 0xa: "S_MOD_TERM_FUNC_POINTERS", 0xb: "S_COALESCED",
	0xd: "S_INTERPOSING", 0xe: "S_16BYTE_LITERALS", 0xf: "S_DTRACE_DOF",
	0x10: "S_LAZY_DYLIB_SYMBOL_POINTERS", 0x11: "S_THREAD_LOCAL_REGULAR",
	0x12: "S_THREAD_LOCAL_ZEROFILL", 0x13: "S_THREAD_LOCAL_VARIABLES",
	0x14: "S_THREAD_LOCAL_VARIABLE_POINTERS", 0x15: "S_THREAD_LOCAL_INIT_FUNCTION_POINTERS"}

// sectionAttrs are the S_ATTR_* bits in llvm's print order.
var sectionAttrs = []struct {
	bit  uint32
	name string
}{
	{0x80000000, "PURE_INSTRUCTIONS"}, {0x40000000, "NO_TOC"}, {0x20000000, "STRIP_STATIC_SYMS"},
	{0x10000000, "NO_DEAD_STRIP"}, {0x08000000, "LIVE_SUPPORT"}, {0x04000000, "SELF_MODIFYING_CODE"},
	{0x02000000, "DEBUG"}, {0x400, "SOME_INSTRUCTIONS"}, {0x200, "EXT_RELOC"}, {0x100, "LOC_RELOC"},
}

func printSection(w io.Writer, f *macho.File, seg *macho.Segment, s *macho.Section, rsv1, rsv2 uint32, hexw int, size uint64) {
	fmt.Fprintf(w, "Section\n")
	fmt.Fprintf(w, "  sectname %s\n", s.Name)
	// Objects put every section in one unnamed segment, so only linked
	// images are checked.
	fmt.Fprintf(w, "   segname %s%s\n", s.Segment,
		suffix(f.Header.Type != macho.TypeObject && s.Segment != seg.Name, " (does not match segment)"))
	fmt.Fprintf(w, "      addr 0x%0*x\n", hexw, s.Addr)
	// llvm tests the S_ZEROFILL value as a bit mask here (any odd section
	// type); kept so that the notes agree.
	fmt.Fprintf(w, "      size 0x%0*x%s\n", hexw, s.Size, pastEnd(s.Flags&1 != 0 && uint64(s.Offset)+s.Size > size))
	fmt.Fprintf(w, "    offset %d%s\n", s.Offset, pastEnd(uint64(s.Offset) > size))
	// 1<<align in 32 bits, as llvm computes it; 0 for align >= 32.
	fmt.Fprintf(w, "     align 2^%d (%d)\n", s.Align, uint32(1)<<s.Align)
	fmt.Fprintf(w, "    reloff %d%s\n", s.RelOff, pastEnd(uint64(s.RelOff) > size))
	fmt.Fprintf(w, "    nreloc %d%s\n", s.NReloc, pastEnd(uint64(s.RelOff)+uint64(s.NReloc)*8 > size))
	typ := s.Flags & 0xff
	if int(typ) < len(sectionTypes) && sectionTypes[typ] != "" {
		fmt.Fprintf(w, "      type %s\n", sectionTypes[typ])
	} else {
		fmt.Fprintf(w, "      type0x%08x\n", typ) // sic: llvm prints no space here
	}
	attrs := s.Flags &^ 0xff
	fmt.Fprint(w, "attributes")
	for _, a := range sectionAttrs {
		if attrs&a.bit != 0 {
			fmt.Fprint(w, " "+a.name)
		}
	}
	if attrs == 0 {
		fmt.Fprint(w, " (none)")
	}
	fmt.Fprintln(w)
	switch typ {
	case sSymbolStubs, sLazyPointers, sLazyDylibPointers, sNonLazyPointers, sTLVariablePointers:
		fmt.Fprintf(w, " reserved1 %d (index into indirect symbol table)\n", rsv1)
	default:
		fmt.Fprintf(w, " reserved1 %d\n", rsv1)
	}
	fmt.Fprintf(w, " reserved2 %d%s\n", rsv2, suffix(typ == sSymbolStubs, " (size of stubs)"))
}
