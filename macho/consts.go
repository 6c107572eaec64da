package macho

import "fmt"

// Magic numbers of thin and universal headers, as read in the file's own
// byte order (fat headers are always big-endian) [mach-o/loader.h,
// mach-o/fat.h].
const (
	Magic32  uint32 = 0xfeedface // MH_MAGIC
	Magic64  uint32 = 0xfeedfacf // MH_MAGIC_64
	MagicFat uint32 = 0xcafebabe // FAT_MAGIC
	// MagicFat64 is FAT_MAGIC_64: a universal file whose fat_arch_64
	// entries carry 64-bit offsets and sizes, for slices past 4 GiB.
	MagicFat64 uint32 = 0xcafebabf
)

// CPU is a Mach-O cputype.
type CPU uint32

// CPU types [mach/machine.h]. cpuArch64 marks the LP64 ABI and
// cpuArch6432 the ILP32 ABI on 64-bit hardware (watchOS arm64_32).
const (
	cpuArch64   CPU = 0x01000000 // CPU_ARCH_ABI64
	cpuArch6432 CPU = 0x02000000 // CPU_ARCH_ABI64_32

	CPU386     CPU = 7                    // CPU_TYPE_X86 (i386)
	CPUAmd64   CPU = CPU386 | cpuArch64   // CPU_TYPE_X86_64
	CPUArm     CPU = 12                   // CPU_TYPE_ARM
	CPUArm64   CPU = CPUArm | cpuArch64   // CPU_TYPE_ARM64
	CPUArm6432 CPU = CPUArm | cpuArch6432 // CPU_TYPE_ARM64_32
	CPUPpc     CPU = 18                   // CPU_TYPE_POWERPC
	CPUPpc64   CPU = CPUPpc | cpuArch64   // CPU_TYPE_POWERPC64
)

// cpusubtype values that distinguish architecture names [mach/machine.h].
// The top byte of a cpusubtype holds capability bits (CPU_SUBTYPE_MASK;
// arm64e's pointer-authentication ABI version lives there), so it is masked
// off before comparing.
const (
	subtypeMask     uint32 = 0xff000000 // CPU_SUBTYPE_MASK
	subtypeX86_64H  uint32 = 8          // CPU_SUBTYPE_X86_64_H
	subtypeArm64E   uint32 = 2          // CPU_SUBTYPE_ARM64E
	subtypeArmV7    uint32 = 9          // CPU_SUBTYPE_ARM_V7
	subtypeArmV7S   uint32 = 11         // CPU_SUBTYPE_ARM_V7S
	subtypeArmV7K   uint32 = 12         // CPU_SUBTYPE_ARM_V7K
	subtypeArm64All uint32 = 0          // CPU_SUBTYPE_ARM64_ALL
	subtypeArm64V8  uint32 = 1          // CPU_SUBTYPE_ARM64_V8
)

// ArchName returns the name Apple's tools use for a cputype/cpusubtype pair
// ("arm64", "arm64e", "x86_64", "x86_64h", "i386", "arm64_32", "armv7",
// ...), or "" when it has none.
func ArchName(cpu CPU, subtype uint32) string {
	sub := subtype &^ subtypeMask
	switch cpu {
	case CPUArm64:
		switch sub {
		case subtypeArm64E:
			return "arm64e"
		case subtypeArm64All, subtypeArm64V8:
			return "arm64"
		}
	case CPUAmd64:
		switch sub {
		case subtypeX86_64H:
			return "x86_64h"
		default:
			return "x86_64"
		}
	case CPU386:
		return "i386"
	case CPUArm6432:
		return "arm64_32"
	case CPUArm:
		switch sub {
		case subtypeArmV7:
			return "armv7"
		case subtypeArmV7S:
			return "armv7s"
		case subtypeArmV7K:
			return "armv7k"
		}
		return "arm"
	case CPUPpc:
		return "ppc"
	case CPUPpc64:
		return "ppc64"
	}
	return ""
}

// FileType is a Mach-O filetype.
type FileType uint32

// File types [mach-o/loader.h].
const (
	TypeObject     FileType = 0x1 // MH_OBJECT: relocatable .o
	TypeExec       FileType = 0x2 // MH_EXECUTE
	TypeDylib      FileType = 0x6 // MH_DYLIB
	TypeBundle     FileType = 0x8 // MH_BUNDLE
	TypeDSYM       FileType = 0xa // MH_DSYM: a dSYM companion file
	TypeKextBundle FileType = 0xb // MH_KEXT_BUNDLE
)

// Header flags used by this package [mach-o/loader.h].
const (
	FlagTwoLevel uint32 = 0x80     // MH_TWOLEVEL: undefined symbols name their library
	FlagPIE      uint32 = 0x200000 // MH_PIE
)

// LoadCmd is a load command number.
type LoadCmd uint32

// lcReqDyld is LC_REQ_DYLD, set on commands dyld must understand.
const lcReqDyld LoadCmd = 0x80000000

// Load commands this package decodes, and a few it names [mach-o/loader.h].
// Every other command is kept as raw bytes in File.Loads.
const (
	LoadSegment         LoadCmd = 0x1              // LC_SEGMENT
	LoadSymtab          LoadCmd = 0x2              // LC_SYMTAB
	LoadDysymtab        LoadCmd = 0xb              // LC_DYSYMTAB
	LoadDylib           LoadCmd = 0xc              // LC_LOAD_DYLIB
	LoadIDDylib         LoadCmd = 0xd              // LC_ID_DYLIB
	LoadDylinker        LoadCmd = 0xe              // LC_LOAD_DYLINKER
	LoadWeakDylib       LoadCmd = 0x18 | lcReqDyld // LC_LOAD_WEAK_DYLIB
	LoadSegment64       LoadCmd = 0x19             // LC_SEGMENT_64
	LoadUUID            LoadCmd = 0x1b             // LC_UUID
	LoadRpath           LoadCmd = 0x1c | lcReqDyld // LC_RPATH
	LoadCodeSignature   LoadCmd = 0x1d             // LC_CODE_SIGNATURE
	LoadReexportDylib   LoadCmd = 0x1f | lcReqDyld // LC_REEXPORT_DYLIB
	LoadLazyDylib       LoadCmd = 0x20             // LC_LAZY_LOAD_DYLIB
	LoadDyldInfo        LoadCmd = 0x22             // LC_DYLD_INFO
	LoadDyldInfoOnly    LoadCmd = 0x22 | lcReqDyld // LC_DYLD_INFO_ONLY
	LoadUpwardDylib     LoadCmd = 0x23 | lcReqDyld // LC_LOAD_UPWARD_DYLIB
	LoadVersionMinMac   LoadCmd = 0x24             // LC_VERSION_MIN_MACOSX
	LoadVersionMinIOS   LoadCmd = 0x25             // LC_VERSION_MIN_IPHONEOS
	LoadFunctionStarts  LoadCmd = 0x26             // LC_FUNCTION_STARTS
	LoadMain            LoadCmd = 0x28 | lcReqDyld // LC_MAIN
	LoadDataInCode      LoadCmd = 0x29             // LC_DATA_IN_CODE
	LoadSourceVersion   LoadCmd = 0x2a             // LC_SOURCE_VERSION
	LoadVersionMinTV    LoadCmd = 0x2f             // LC_VERSION_MIN_TVOS
	LoadVersionMinWatch LoadCmd = 0x30             // LC_VERSION_MIN_WATCHOS
	LoadBuildVersion    LoadCmd = 0x32             // LC_BUILD_VERSION
	LoadChainedFixups   LoadCmd = 0x34 | lcReqDyld // LC_DYLD_CHAINED_FIXUPS
	LoadExportsTrie     LoadCmd = 0x33 | lcReqDyld // LC_DYLD_EXPORTS_TRIE
)

var loadNames = map[LoadCmd]string{
	LoadSegment: "LC_SEGMENT", LoadSymtab: "LC_SYMTAB", LoadDysymtab: "LC_DYSYMTAB",
	LoadDylib: "LC_LOAD_DYLIB", LoadIDDylib: "LC_ID_DYLIB", LoadDylinker: "LC_LOAD_DYLINKER",
	LoadWeakDylib: "LC_LOAD_WEAK_DYLIB", LoadSegment64: "LC_SEGMENT_64", LoadUUID: "LC_UUID",
	LoadRpath: "LC_RPATH", LoadCodeSignature: "LC_CODE_SIGNATURE", LoadReexportDylib: "LC_REEXPORT_DYLIB",
	LoadLazyDylib: "LC_LAZY_LOAD_DYLIB", LoadDyldInfo: "LC_DYLD_INFO", LoadDyldInfoOnly: "LC_DYLD_INFO_ONLY",
	LoadUpwardDylib: "LC_LOAD_UPWARD_DYLIB", LoadVersionMinMac: "LC_VERSION_MIN_MACOSX",
	LoadVersionMinIOS: "LC_VERSION_MIN_IPHONEOS", LoadFunctionStarts: "LC_FUNCTION_STARTS",
	LoadMain: "LC_MAIN", LoadDataInCode: "LC_DATA_IN_CODE", LoadSourceVersion: "LC_SOURCE_VERSION",
	LoadVersionMinTV: "LC_VERSION_MIN_TVOS", LoadVersionMinWatch: "LC_VERSION_MIN_WATCHOS",
	LoadBuildVersion: "LC_BUILD_VERSION", LoadChainedFixups: "LC_DYLD_CHAINED_FIXUPS",
	LoadExportsTrie: "LC_DYLD_EXPORTS_TRIE",
	// Kept raw; named for String only.
	0x4: "LC_THREAD", 0x5: "LC_UNIXTHREAD", 0x1e: "LC_SEGMENT_SPLIT_INFO", 0x21: "LC_ENCRYPTION_INFO",
	0x27: "LC_DYLD_ENVIRONMENT", 0x2c: "LC_ENCRYPTION_INFO_64", 0x2d: "LC_LINKER_OPTION",
	0x2e: "LC_LINKER_OPTIMIZATION_HINT", 0x31: "LC_NOTE", 0x35 | lcReqDyld: "LC_FILESET_ENTRY",
}

// String returns the LC_* name, or a hex number for commands not named here.
func (c LoadCmd) String() string {
	if s, ok := loadNames[c]; ok {
		return s
	}
	return fmt.Sprintf("LC_%#x", uint32(c))
}
