package dwinfo

// Tag is a DW_TAG_* code [DWARF5 7.5.4].
type Tag uint16

// Tags this module looks at; other values pass through unnamed.
const (
	TagLexicalBlock        Tag = 0x0b // DW_TAG_lexical_block
	TagCompileUnit         Tag = 0x11 // DW_TAG_compile_unit
	TagInlinedSubroutine   Tag = 0x1d // DW_TAG_inlined_subroutine
	TagSubprogram          Tag = 0x2e // DW_TAG_subprogram
	TagPartialUnit         Tag = 0x3c // DW_TAG_partial_unit
	TagImportedUnit        Tag = 0x3d // DW_TAG_imported_unit
	TagTypeUnit            Tag = 0x41 // DW_TAG_type_unit
	TagSkeletonUnit        Tag = 0x4a // DW_TAG_skeleton_unit
	TagGNUCallSite         Tag = 0x4109
	TagCallSite            Tag = 0x48 // DW_TAG_call_site
	TagNamespace           Tag = 0x39 // DW_TAG_namespace
	TagClassType           Tag = 0x02 // DW_TAG_class_type
	TagStructureType       Tag = 0x13 // DW_TAG_structure_type
	TagUnionType           Tag = 0x17 // DW_TAG_union_type
	TagEnumerationType     Tag = 0x04 // DW_TAG_enumeration_type
	TagVariable            Tag = 0x34 // DW_TAG_variable
	TagFormalParameter     Tag = 0x05 // DW_TAG_formal_parameter
	TagLabel               Tag = 0x0a // DW_TAG_label
	TagModule              Tag = 0x1e // DW_TAG_module
	TagInterfaceType       Tag = 0x38 // DW_TAG_interface_type
	TagGNUTemplateParmPack Tag = 0x4107
)

// Attr is a DW_AT_* code [DWARF5 7.5.4].
type Attr uint16

// Attributes this module or its users look at.
const (
	AttrSibling         Attr = 0x01   // DW_AT_sibling
	AttrName            Attr = 0x03   // DW_AT_name
	AttrStmtList        Attr = 0x10   // DW_AT_stmt_list
	AttrLowPC           Attr = 0x11   // DW_AT_low_pc
	AttrHighPC          Attr = 0x12   // DW_AT_high_pc
	AttrLanguage        Attr = 0x13   // DW_AT_language
	AttrCompDir         Attr = 0x1b   // DW_AT_comp_dir
	AttrProducer        Attr = 0x25   // DW_AT_producer
	AttrAbstractOrigin  Attr = 0x31   // DW_AT_abstract_origin
	AttrDeclFile        Attr = 0x3a   // DW_AT_decl_file
	AttrDeclLine        Attr = 0x3b   // DW_AT_decl_line
	AttrDeclaration     Attr = 0x3c   // DW_AT_declaration
	AttrSpecification   Attr = 0x47   // DW_AT_specification
	AttrEntryPC         Attr = 0x52   // DW_AT_entry_pc
	AttrRanges          Attr = 0x55   // DW_AT_ranges
	AttrCallColumn      Attr = 0x57   // DW_AT_call_column
	AttrCallFile        Attr = 0x58   // DW_AT_call_file
	AttrCallLine        Attr = 0x59   // DW_AT_call_line
	AttrLinkageName     Attr = 0x6e   // DW_AT_linkage_name
	AttrStrOffsetsBase  Attr = 0x72   // DW_AT_str_offsets_base
	AttrAddrBase        Attr = 0x73   // DW_AT_addr_base
	AttrRnglistsBase    Attr = 0x74   // DW_AT_rnglists_base
	AttrDWOName         Attr = 0x76   // DW_AT_dwo_name
	AttrLoclistsBase    Attr = 0x8c   // DW_AT_loclists_base
	AttrMIPSLinkageName Attr = 0x2007 // DW_AT_MIPS_linkage_name (pre-DWARF 4 gcc)
	AttrGNUDWOName      Attr = 0x2130 // DW_AT_GNU_dwo_name
	AttrGNUDWOID        Attr = 0x2131 // DW_AT_GNU_dwo_id
	AttrGNURangesBase   Attr = 0x2132 // DW_AT_GNU_ranges_base
	AttrGNUAddrBase     Attr = 0x2133 // DW_AT_GNU_addr_base
)

// UnitType is a DW_UT_* code [DWARF5 7.5.1]. Units before DWARF 5 are
// UnitCompile.
type UnitType uint8

// Unit types.
const (
	UnitCompile      UnitType = 0x01 // DW_UT_compile
	UnitTypeUnit     UnitType = 0x02 // DW_UT_type
	UnitPartial      UnitType = 0x03 // DW_UT_partial
	UnitSkeleton     UnitType = 0x04 // DW_UT_skeleton
	UnitSplitCompile UnitType = 0x05 // DW_UT_split_compile
	UnitSplitType    UnitType = 0x06 // DW_UT_split_type
)
