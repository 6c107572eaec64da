package symtab

import (
	"math"
	"strconv"
	"strings"
)

// This file holds the syntax tree of the Itanium demangler (itanium.go) and
// its printer. Both reproduce LLVM 14's ItaniumDemangle.h
// (llvm/include/llvm/Demangle/ItaniumDemangle.h at llvmorg-14.0.6), which
// llvm-symbolizer-14 and llvm-cxxfilt-14 use: the same kinds of node, the
// same left/right printing of declarators, the same parentheses around
// every expression operand, the same "> >", and the same quirks, each
// named where it is handled. The code is ours; the rules were read there
// and checked against llvm-cxxfilt-14 (testdata/itanium).

// nodeKind says what an inode is and which of its fields it uses.
type nodeKind uint8

// The kinds, in LLVM's order. The comment after each says which fields
// of inode it uses.
const (
	kNodeArray                     nodeKind = iota // list
	kDotSuffix                                     // a prefix, s suffix
	kVendorExtQualType                             // a type, s qualifier, b template args or nil
	kQualType                                      // a child, quals
	kConversionOperatorType                        // a type
	kPostfixQualifiedType                          // a type, s postfix
	kElaboratedTypeSpefType                        // s keyword, a name
	kNameType                                      // s
	kAbiTagAttr                                    // a base, s tag
	kEnableIfAttr                                  // list conditions
	kObjCProtoName                                 // a type, s protocol
	kPointerType                                   // a pointee
	kReferenceType                                 // a pointee, num 0 lvalue, 1 rvalue
	kPointerToMemberType                           // a class, b member type
	kArrayType                                     // a element, b dimension or nil
	kFunctionType                                  // a return, list params, quals, num ref-qualifier, b exception spec or nil
	kNoexceptSpec                                  // a expression
	kDynamicExceptionSpec                          // list types
	kFunctionEncoding                              // a return or nil, b name, list params, c attributes or nil, quals, num ref-qualifier
	kLiteralOperator                               // a name
	kSpecialName                                   // s prefix, a child
	kCtorVtableSpecialName                         // a first, b second
	kQualifiedName                                 // a qualifier, b name
	kNestedName                                    // a qualifier, b name
	kLocalName                                     // a encoding, b entity
	kVectorType                                    // a element, b dimension or nil
	kPixelVectorType                               // a dimension
	kBinaryFPType                                  // a dimension
	kSyntheticTemplateParamName                    // num kind, idx
	kTypeTemplateParamDecl                         // a name
	kNonTypeTemplateParamDecl                      // a name, b type
	kTemplateTemplateParamDecl                     // a name, list params
	kTemplateParamPackDecl                         // a param
	kParameterPack                                 // list
	kTemplateArgumentPack                          // list
	kParameterPackExpansion                        // a child
	kTemplateArgs                                  // list
	kForwardTemplateReference                      // idx, a target once resolved
	kNameWithTemplateArgs                          // a name, b template args
	kGlobalQualifiedName                           // a child
	kStdQualifiedName                              // a child
	kExpandedSpecialSubstitution                   // num special kind
	kSpecialSubstitution                           // num special kind
	kCtorDtorName                                  // a class, flag destructor, num variant
	kDtorName                                      // a base
	kUnnamedTypeName                               // s count
	kClosureTypeName                               // list template params, list2 params, s count
	kStructuredBindingName                         // list
	kBinaryExpr                                    // a, s operator, b
	kArraySubscriptExpr                            // a, b
	kPostfixExpr                                   // a, s operator
	kConditionalExpr                               // a, b, c
	kMemberExpr                                    // a, s operator, b
	kSubobjectExpr                                 // a type, b expression, s offset, list selectors
	kEnclosingExpr                                 // s prefix, a, t postfix
	kCastExpr                                      // s kind, a to, b from
	kSizeofParamPackExpr                           // a pack
	kCallExpr                                      // a callee, list args
	kNewExpr                                       // list exprs, a type, list2 inits, flag global, flag2 array
	kDeleteExpr                                    // a, flag global, flag2 array
	kPrefixExpr                                    // s operator, a
	kFunctionParam                                 // s number
	kConversionExpr                                // a type, list
	kPointerToMemberConversionExpr                 // a type, b expression, s offset
	kInitListExpr                                  // a type or nil, list
	kFoldExpr                                      // a pack, b init or nil, s operator, flag left fold
	kThrowExpr                                     // a
	kBoolExpr                                      // flag
	kStringLiteral                                 // a type
	kLambdaExpr                                    // a closure type
	kEnumLiteral                                   // a type, s integer
	kIntegerLiteral                                // s type, t value
	kFloatLiteral                                  // s hex digits
	kDoubleLiteral                                 // s hex digits
	kLongDoubleLiteral                             // s hex digits
	kBracedExpr                                    // a element, b init, flag array
	kBracedRangeExpr                               // a first, b last, c init
)

// cache is LLVM's three-way answer to "does this node print a right-hand
// part / is it an array / is it a function": known no, known yes, or
// unknown until printing (a pack or a forward reference below).
type cache uint8

const (
	cacheNo cache = iota // LLVM's default
	cacheYes
	cacheUnknown
)

// Qualifier bits of qualType, functionType and functionEncoding.
const (
	qualConst    = 1
	qualVolatile = 2
	qualRestrict = 4
)

// Function ref-qualifiers.
const (
	refQualNone = iota
	refQualLValue
	refQualRValue
)

// The standard abbreviations Sa, Sb, Ss, Si, So, Sd.
const (
	ssAllocator = iota
	ssBasicString
	ssString
	ssIstream
	ssOstream
	ssIostream
)

// inode is one node of the syntax tree. One struct serves every kind, so
// nodes come from one arena; the comment on each kind says which fields
// it uses.
type inode struct {
	kind                  nodeKind
	rhs, array, function  cache
	quals                 uint8
	flag, flag2, printing bool
	num                   int
	idx                   uint64
	a, b, c               *inode
	s, t                  string
	list, list2           []*inode
}

// baseName is LLVM's getBaseName: the unqualified name a constructor or
// destructor takes from its class. Kinds LLVM does not give one (an ABI
// tag, an unnamed type, a closure) have none, which is why LLVM 14 prints
// "'unnamed'::~()" and "failure[abi:cxx11]::~()".
func (n *inode) baseName() string {
	for depth := 0; depth < maxPrintDepth; depth++ {
		switch n.kind {
		case kNameType:
			return n.s
		case kNestedName, kQualifiedName:
			n = n.b
		case kNameWithTemplateArgs, kGlobalQualifiedName, kStdQualifiedName:
			n = n.a
		case kSpecialSubstitution:
			return [...]string{"allocator", "basic_string", "string", "istream", "ostream", "iostream"}[n.num]
		case kExpandedSpecialSubstitution:
			return [...]string{"allocator", "basic_string", "basic_string", "basic_istream", "basic_ostream", "basic_iostream"}[n.num]
		default:
			return ""
		}
	}
	return ""
}

// Limits on the printer, so that no name costs more than it is worth:
// substitutions let a short name stand for an exponentially long one.
const (
	maxItaniumOutput = 1 << maxDemangled // bytes
	maxPrintSteps    = 1 << 23           // node visits
	maxPrintDepth    = 8192              // nested visits
)

// packNone is LLVM's "no pack being expanded" (UINT_MAX).
const packNone = math.MaxUint32

// iprinter is LLVM's OutputBuffer: the text so far, the position in the
// pack being expanded, and our bounds.
type iprinter struct {
	buf                []byte
	packIndex, packMax uint32
	steps, depth       int
	failed             bool
}

func (p *iprinter) str(s string) {
	if p.failed {
		return
	}
	if len(p.buf)+len(s) > maxItaniumOutput {
		p.failed = true
		return
	}
	p.buf = append(p.buf, s...)
}

func (p *iprinter) byte(c byte) {
	if p.failed {
		return
	}
	if len(p.buf)+1 > maxItaniumOutput {
		p.failed = true
		return
	}
	p.buf = append(p.buf, c)
}

// back is the last byte printed, or 0.
func (p *iprinter) back() byte {
	if len(p.buf) == 0 {
		return 0
	}
	return p.buf[len(p.buf)-1]
}

// enter counts a visit and reports whether printing may go on.
func (p *iprinter) enter() bool {
	p.steps++
	p.depth++
	if p.steps > maxPrintSteps || p.depth > maxPrintDepth {
		p.failed = true
	}
	return !p.failed
}

func (p *iprinter) leave() { p.depth-- }

// print is LLVM's Node::print: the left part, then the right part unless
// the node is known to have none.
func (p *iprinter) print(n *inode) {
	p.printLeft(n)
	if n.rhs != cacheNo {
		p.printRight(n)
	}
}

// printWithComma prints a list separated by ", ", taking back the comma
// before an element that printed nothing (an empty pack expansion).
func (p *iprinter) printWithComma(list []*inode) {
	first := true
	for _, n := range list {
		before := len(p.buf)
		if !first {
			p.str(", ")
		}
		after := len(p.buf)
		p.print(n)
		if p.failed {
			return
		}
		if len(p.buf) == after {
			p.buf = p.buf[:before]
			continue
		}
		first = false
	}
}

// initPack starts expanding pack unless a pack is being expanded already.
func (p *iprinter) initPack(pack *inode) {
	if p.packMax == packNone {
		p.packMax = uint32(len(pack.list))
		p.packIndex = 0
	}
}

// packElem is the element of pack that is being printed, or nil.
func (p *iprinter) packElem(pack *inode) *inode {
	p.initPack(pack)
	if int(p.packIndex) < len(pack.list) {
		return pack.list[p.packIndex]
	}
	return nil
}

func (p *iprinter) hasRHS(n *inode) bool {
	if n.rhs != cacheUnknown {
		return n.rhs == cacheYes
	}
	return p.slow(n, 0)
}

func (p *iprinter) hasArray(n *inode) bool {
	if n.array != cacheUnknown {
		return n.array == cacheYes
	}
	return p.slow(n, 1)
}

func (p *iprinter) hasFunction(n *inode) bool {
	if n.function != cacheUnknown {
		return n.function == cacheYes
	}
	return p.slow(n, 2)
}

// has asks question q (0 right-hand part, 1 array, 2 function) of n.
func (p *iprinter) has(n *inode, q int) bool {
	switch q {
	case 0:
		return p.hasRHS(n)
	case 1:
		return p.hasArray(n)
	}
	return p.hasFunction(n)
}

// slow answers question q of a node whose cache is unknown, as LLVM's
// has*Slow overrides do; kinds without an override answer false.
func (p *iprinter) slow(n *inode, q int) bool {
	if !p.enter() {
		p.leave()
		return false
	}
	defer p.leave()
	switch n.kind {
	case kQualType:
		return p.has(n.a, q)
	case kPointerType, kReferenceType:
		return q == 0 && p.hasRHS(n.a)
	case kPointerToMemberType:
		return q == 0 && p.hasRHS(n.b)
	case kArrayType:
		return q <= 1
	case kFunctionType, kFunctionEncoding:
		return q == 0 || q == 2
	case kParameterPack:
		if e := p.packElem(n); e != nil {
			return p.has(e, q)
		}
		return false
	case kForwardTemplateReference:
		if n.printing || n.a == nil {
			return false
		}
		n.printing = true
		r := p.has(n.a, q)
		n.printing = false
		return r
	}
	return false
}

// syntaxNode digs through packs and forward references to the node that
// prints (LLVM's getSyntaxNode). A forward reference met again while its
// own target is being dug through stands for itself.
func (p *iprinter) syntaxNode(n *inode) *inode {
	if !p.enter() {
		p.leave()
		return n
	}
	defer p.leave()
	switch n.kind {
	case kParameterPack:
		if e := p.packElem(n); e != nil {
			return p.syntaxNode(e)
		}
	case kForwardTemplateReference:
		if n.printing || n.a == nil {
			return n
		}
		n.printing = true
		r := p.syntaxNode(n.a)
		n.printing = false
		return r
	}
	return n
}

// collapse follows references to references: && to && stays &&, any
// other pair is &. A cycle (possible in bad input through a forward
// reference) yields nil, as LLVM's tortoise-and-hare check does.
func (p *iprinter) collapse(n *inode) (int, *inode) {
	kind, target := n.num, n.a
	var prev []*inode
	for {
		sn := p.syntaxNode(target)
		if sn.kind != kReferenceType || p.failed {
			break
		}
		target = sn.a
		kind = min(kind, sn.num)
		prev = append(prev, target)
		if len(prev) > 1 && target == prev[(len(prev)-1)/2] {
			return kind, nil
		}
		if len(prev) > maxPrintDepth {
			p.failed = true
			return kind, nil
		}
	}
	return kind, target
}

func (p *iprinter) quals(q uint8) {
	if q&qualConst != 0 {
		p.str(" const")
	}
	if q&qualVolatile != 0 {
		p.str(" volatile")
	}
	if q&qualRestrict != 0 {
		p.str(" restrict")
	}
}

func (p *iprinter) refQual(r int) {
	switch r {
	case refQualLValue:
		p.str(" &")
	case refQualRValue:
		p.str(" &&")
	}
}

// printPackExpansion prints child once per element of the pack it
// contains, separated by ", "; nothing for an empty pack; child and
// "..." when it contains no pack (a function parameter pack).
func (p *iprinter) printPackExpansion(child *inode) {
	savedIndex, savedMax := p.packIndex, p.packMax
	p.packIndex, p.packMax = packNone, packNone
	defer func() { p.packIndex, p.packMax = savedIndex, savedMax }()
	start := len(p.buf)
	p.print(child)
	switch p.packMax {
	case packNone:
		p.str("...")
		return
	case 0:
		if !p.failed {
			p.buf = p.buf[:start]
		}
		return
	}
	for i, e := uint32(1), p.packMax; i < e && !p.failed; i++ {
		p.str(", ")
		p.packIndex = i
		p.print(child)
	}
}

// closureDeclarator prints a lambda's "<template params>(params)".
func (p *iprinter) closureDeclarator(n *inode) {
	if len(n.list) > 0 {
		p.byte('<')
		p.printWithComma(n.list)
		p.byte('>')
	}
	p.byte('(')
	p.printWithComma(n.list2)
	p.byte(')')
}

// braceInit prints the initializer of a designated initializer.
func (p *iprinter) braceInit(init *inode) {
	if init.kind != kBracedExpr && init.kind != kBracedRangeExpr {
		p.str(" = ")
	}
	p.print(init)
}

// negNumber prints a mangled number, whose leading 'n' is a minus sign.
func (p *iprinter) negNumber(s string) {
	if strings.HasPrefix(s, "n") {
		p.byte('-')
		s = s[1:]
	}
	p.str(s)
}

func (p *iprinter) printLeft(n *inode) {
	if !p.enter() {
		p.leave()
		return
	}
	defer p.leave()
	switch n.kind {
	case kNodeArray, kTemplateArgumentPack:
		p.printWithComma(n.list)
	case kDotSuffix:
		p.print(n.a)
		p.str(" (")
		p.str(n.s)
		p.byte(')')
	case kVendorExtQualType:
		p.print(n.a)
		p.byte(' ')
		p.str(n.s)
		if n.b != nil {
			p.print(n.b)
		}
	case kQualType:
		p.printLeft(n.a)
		p.quals(n.quals)
	case kConversionOperatorType:
		p.str("operator ")
		p.print(n.a)
	case kPostfixQualifiedType:
		p.printLeft(n.a)
		p.str(n.s)
	case kNameType:
		p.str(n.s)
	case kElaboratedTypeSpefType:
		p.str(n.s)
		p.byte(' ')
		p.print(n.a)
	case kAbiTagAttr:
		p.printLeft(n.a)
		p.str("[abi:")
		p.str(n.s)
		p.byte(']')
	case kEnableIfAttr:
		p.str(" [enable_if:")
		p.printWithComma(n.list)
		p.byte(']')
	case kObjCProtoName:
		p.print(n.a)
		p.byte('<')
		p.str(n.s)
		p.byte('>')
	case kPointerType:
		// objc_object<Proto>* prints as id<Proto>.
		if isObjCObject(n.a) {
			p.str("id<")
			p.str(n.a.s)
			p.byte('>')
			return
		}
		p.printLeft(n.a)
		if p.hasArray(n.a) {
			p.byte(' ')
		}
		if p.hasArray(n.a) || p.hasFunction(n.a) {
			p.byte('(')
		}
		p.byte('*')
	case kReferenceType:
		if n.printing {
			return
		}
		n.printing = true
		defer func() { n.printing = false }()
		kind, t := p.collapse(n)
		if t == nil {
			return
		}
		p.printLeft(t)
		if p.hasArray(t) {
			p.byte(' ')
		}
		if p.hasArray(t) || p.hasFunction(t) {
			p.byte('(')
		}
		if kind == 0 {
			p.byte('&')
		} else {
			p.str("&&")
		}
	case kPointerToMemberType:
		p.printLeft(n.b)
		if p.hasArray(n.b) || p.hasFunction(n.b) {
			p.byte('(')
		} else {
			p.byte(' ')
		}
		p.print(n.a)
		p.str("::*")
	case kArrayType:
		p.printLeft(n.a)
	case kFunctionType:
		p.printLeft(n.a)
		p.byte(' ')
	case kNoexceptSpec:
		p.str("noexcept(")
		p.print(n.a)
		p.byte(')')
	case kDynamicExceptionSpec:
		p.str("throw(")
		p.printWithComma(n.list)
		p.byte(')')
	case kFunctionEncoding:
		if n.a != nil {
			p.printLeft(n.a)
			if !p.hasRHS(n.a) {
				p.byte(' ')
			}
		}
		p.print(n.b)
	case kLiteralOperator:
		p.str(`operator"" `)
		p.print(n.a)
	case kSpecialName:
		p.str(n.s)
		p.print(n.a)
	case kCtorVtableSpecialName:
		p.str("construction vtable for ")
		p.print(n.a)
		p.str("-in-")
		p.print(n.b)
	case kQualifiedName, kNestedName, kLocalName:
		p.print(n.a)
		p.str("::")
		p.print(n.b)
	case kVectorType:
		p.print(n.a)
		p.str(" vector[")
		if n.b != nil {
			p.print(n.b)
		}
		p.byte(']')
	case kPixelVectorType:
		p.str("pixel vector[")
		p.print(n.a)
		p.byte(']')
	case kBinaryFPType:
		p.str("_Float")
		p.print(n.a)
	case kSyntheticTemplateParamName:
		p.str([...]string{"$T", "$N", "$TT"}[n.num])
		if n.idx > 0 {
			p.str(strconv.FormatUint(n.idx-1, 10))
		}
	case kTypeTemplateParamDecl:
		p.str("typename ")
	case kNonTypeTemplateParamDecl:
		p.printLeft(n.b)
		if !p.hasRHS(n.b) {
			p.byte(' ')
		}
	case kTemplateTemplateParamDecl:
		p.str("template<")
		p.printWithComma(n.list)
		p.str("> typename ")
	case kTemplateParamPackDecl:
		p.printLeft(n.a)
		p.str("...")
	case kParameterPack:
		if e := p.packElem(n); e != nil {
			p.printLeft(e)
		}
	case kParameterPackExpansion:
		p.printPackExpansion(n.a)
	case kTemplateArgs:
		p.byte('<')
		p.printWithComma(n.list)
		if p.back() == '>' {
			p.byte(' ')
		}
		p.byte('>')
	case kForwardTemplateReference:
		if n.printing || n.a == nil {
			return
		}
		n.printing = true
		p.printLeft(n.a)
		n.printing = false
	case kNameWithTemplateArgs:
		p.print(n.a)
		p.print(n.b)
	case kGlobalQualifiedName:
		p.str("::")
		p.print(n.a)
	case kStdQualifiedName:
		p.str("std::")
		p.print(n.a)
	case kExpandedSpecialSubstitution:
		p.str([...]string{
			"std::allocator",
			"std::basic_string",
			"std::basic_string<char, std::char_traits<char>, std::allocator<char> >",
			"std::basic_istream<char, std::char_traits<char> >",
			"std::basic_ostream<char, std::char_traits<char> >",
			"std::basic_iostream<char, std::char_traits<char> >",
		}[n.num])
	case kSpecialSubstitution:
		p.str([...]string{"std::allocator", "std::basic_string", "std::string", "std::istream", "std::ostream", "std::iostream"}[n.num])
	case kCtorDtorName:
		if n.flag {
			p.byte('~')
		}
		p.str(n.a.baseName())
	case kDtorName:
		p.byte('~')
		p.printLeft(n.a)
	case kUnnamedTypeName:
		p.str("'unnamed")
		p.str(n.s)
		p.byte('\'')
	case kClosureTypeName:
		p.str("'lambda")
		p.str(n.s)
		p.byte('\'')
		p.closureDeclarator(n)
	case kStructuredBindingName:
		p.byte('[')
		p.printWithComma(n.list)
		p.byte(']')

	// Expressions: LLVM 14 puts every operand in parentheses, and a
	// binary ">" in a second pair (it may sit in a template argument).
	case kBinaryExpr:
		if n.s == ">" {
			p.byte('(')
		}
		p.byte('(')
		p.print(n.a)
		p.str(") ")
		p.str(n.s)
		p.str(" (")
		p.print(n.b)
		p.byte(')')
		if n.s == ">" {
			p.byte(')')
		}
	case kArraySubscriptExpr:
		p.byte('(')
		p.print(n.a)
		p.str(")[")
		p.print(n.b)
		p.byte(']')
	case kPostfixExpr:
		p.byte('(')
		p.print(n.a)
		p.byte(')')
		p.str(n.s)
	case kConditionalExpr:
		p.byte('(')
		p.print(n.a)
		p.str(") ? (")
		p.print(n.b)
		p.str(") : (")
		p.print(n.c)
		p.byte(')')
	case kMemberExpr:
		p.print(n.a)
		p.str(n.s)
		p.print(n.b)
	case kSubobjectExpr:
		p.print(n.b)
		p.str(".<")
		p.print(n.a)
		p.str(" at offset ")
		if n.s == "" {
			p.byte('0')
		} else {
			p.negNumber(n.s)
		}
		p.byte('>')
	case kEnclosingExpr:
		p.str(n.s)
		p.print(n.a)
		p.str(n.t)
	case kCastExpr:
		// Both operands print their left parts only (LLVM 14).
		p.str(n.s)
		p.byte('<')
		p.printLeft(n.a)
		p.str(">(")
		p.printLeft(n.b)
		p.byte(')')
	case kSizeofParamPackExpr:
		p.str("sizeof...(")
		p.printPackExpansion(n.a)
		p.byte(')')
	case kCallExpr:
		p.print(n.a)
		p.byte('(')
		p.printWithComma(n.list)
		p.byte(')')
	case kNewExpr:
		if n.flag {
			p.str("::operator ")
		}
		p.str("new")
		if n.flag2 {
			p.str("[]")
		}
		p.byte(' ')
		if len(n.list) > 0 {
			p.byte('(')
			p.printWithComma(n.list)
			p.byte(')')
		}
		p.print(n.a)
		if len(n.list2) > 0 {
			p.byte('(')
			p.printWithComma(n.list2)
			p.byte(')')
		}
	case kDeleteExpr:
		if n.flag {
			p.str("::")
		}
		p.str("delete")
		if n.flag2 {
			p.str("[] ")
		}
		p.print(n.a)
	case kPrefixExpr:
		p.str(n.s)
		p.byte('(')
		p.print(n.a)
		p.byte(')')
	case kFunctionParam:
		p.str("fp")
		p.str(n.s)
	case kConversionExpr:
		p.byte('(')
		p.print(n.a)
		p.str(")(")
		p.printWithComma(n.list)
		p.byte(')')
	case kPointerToMemberConversionExpr:
		p.byte('(')
		p.print(n.a)
		p.str(")(")
		p.print(n.b)
		p.byte(')')
	case kInitListExpr:
		if n.a != nil {
			p.print(n.a)
		}
		p.byte('{')
		p.printWithComma(n.list)
		p.byte('}')
	case kBracedExpr:
		if n.flag {
			p.byte('[')
			p.print(n.a)
			p.byte(']')
		} else {
			p.byte('.')
			p.print(n.a)
		}
		p.braceInit(n.b)
	case kBracedRangeExpr:
		p.byte('[')
		p.print(n.a)
		p.str(" ... ")
		p.print(n.b)
		p.byte(']')
		p.braceInit(n.c)
	case kFoldExpr:
		pack := func() {
			p.byte('(')
			p.printPackExpansion(n.a)
			p.byte(')')
		}
		p.byte('(')
		if n.flag { // init op ... op pack
			if n.b != nil {
				p.print(n.b)
				p.byte(' ')
				p.str(n.s)
				p.byte(' ')
			}
			p.str("... ")
			p.str(n.s)
			p.byte(' ')
			pack()
		} else { // pack op ... op init
			pack()
			p.byte(' ')
			p.str(n.s)
			p.str(" ...")
			if n.b != nil {
				p.byte(' ')
				p.str(n.s)
				p.byte(' ')
				p.print(n.b)
			}
		}
		p.byte(')')
	case kThrowExpr:
		p.str("throw ")
		p.print(n.a)
	case kBoolExpr:
		if n.flag {
			p.str("true")
		} else {
			p.str("false")
		}
	case kStringLiteral:
		p.str(`"<`)
		p.print(n.a)
		p.str(`>"`)
	case kLambdaExpr:
		p.str("[]")
		if n.a.kind == kClosureTypeName {
			p.closureDeclarator(n.a)
		}
		p.str("{...}")
	case kEnumLiteral:
		p.byte('(')
		p.print(n.a)
		p.byte(')')
		p.negNumber(n.s)
	case kIntegerLiteral:
		// A type of more than three letters is a cast, a shorter one a
		// suffix: (char)97, 5ul.
		if len(n.s) > 3 {
			p.byte('(')
			p.str(n.s)
			p.byte(')')
		}
		p.negNumber(n.t)
		if len(n.s) <= 3 {
			p.str(n.s)
		}
	case kFloatLiteral, kDoubleLiteral, kLongDoubleLiteral:
		p.str(formatFloatLiteral(n.kind, n.s))
	}
}

func (p *iprinter) printRight(n *inode) {
	if !p.enter() {
		p.leave()
		return
	}
	defer p.leave()
	switch n.kind {
	case kQualType:
		p.printRight(n.a)
	case kPointerType:
		if isObjCObject(n.a) {
			return
		}
		if p.hasArray(n.a) || p.hasFunction(n.a) {
			p.byte(')')
		}
		p.printRight(n.a)
	case kReferenceType:
		if n.printing {
			return
		}
		n.printing = true
		defer func() { n.printing = false }()
		_, t := p.collapse(n)
		if t == nil {
			return
		}
		if p.hasArray(t) || p.hasFunction(t) {
			p.byte(')')
		}
		p.printRight(t)
	case kPointerToMemberType:
		if p.hasArray(n.b) || p.hasFunction(n.b) {
			p.byte(')')
		}
		p.printRight(n.b)
	case kArrayType:
		if p.back() != ']' {
			p.byte(' ')
		}
		p.byte('[')
		if n.b != nil {
			p.print(n.b)
		}
		p.byte(']')
		p.printRight(n.a)
	case kFunctionType:
		p.byte('(')
		p.printWithComma(n.list)
		p.byte(')')
		p.printRight(n.a)
		p.quals(n.quals)
		p.refQual(n.num)
		if n.b != nil {
			p.byte(' ')
			p.print(n.b)
		}
	case kFunctionEncoding:
		p.byte('(')
		p.printWithComma(n.list)
		p.byte(')')
		if n.a != nil {
			p.printRight(n.a)
		}
		p.quals(n.quals)
		p.refQual(n.num)
		if n.c != nil {
			p.print(n.c)
		}
	case kTypeTemplateParamDecl, kTemplateTemplateParamDecl:
		p.print(n.a)
	case kNonTypeTemplateParamDecl:
		p.print(n.a)
		p.printRight(n.b)
	case kTemplateParamPackDecl:
		p.printRight(n.a)
	case kParameterPack:
		if e := p.packElem(n); e != nil {
			p.printRight(e)
		}
	case kForwardTemplateReference:
		if n.printing || n.a == nil {
			return
		}
		n.printing = true
		p.printRight(n.a)
		n.printing = false
	}
}

// isObjCObject reports whether n is objc_object<Proto>.
func isObjCObject(n *inode) bool {
	return n.kind == kObjCProtoName && n.a.kind == kNameType && n.a.s == "objc_object"
}

// formatFloatLiteral prints a floating-point literal's hex digits (the
// value's bytes, most significant first) as LLVM 14 on x86-64 does:
// printf's %a for a float (with an "f" after it) or a double, %La and an
// "L" for an 80-bit long double.
func formatFloatLiteral(kind nodeKind, hex string) string {
	// LLVM decodes digit pairs into bytes, most significant first.
	var bytes [10]byte
	n := len(hex) / 2
	if n > len(bytes) {
		n = len(bytes)
	}
	for i := 0; i < n; i++ {
		bytes[i] = byte(hexVal(hex[2*i])<<4 + hexVal(hex[2*i+1]))
	}
	var bits uint64
	switch kind {
	case kFloatLiteral:
		for _, c := range bytes[:4] {
			bits = bits<<8 | uint64(c)
		}
		return formatHexFloat(float64(math.Float32frombits(uint32(bits)))) + "f"
	case kDoubleLiteral:
		for _, c := range bytes[:8] {
			bits = bits<<8 | uint64(c)
		}
		return formatHexFloat(math.Float64frombits(bits))
	}
	// 80 bits: sign and exponent (2 bytes), then the 64-bit mantissa.
	se := uint16(bytes[0])<<8 | uint16(bytes[1])
	for _, c := range bytes[2:10] {
		bits = bits<<8 | uint64(c)
	}
	return formatHexLongDouble(se>>15 != 0, int(se&0x7fff), bits) + "L"
}

// hexVal is LLVM's digit decoding: '0'-'9', else c-'a'+10, in unsigned
// arithmetic (the parser has checked isxdigit; an upper-case digit
// decodes to LLVM's wrapped value and the byte keeps its low bits).
func hexVal(c byte) uint32 {
	if '0' <= c && c <= '9' {
		return uint32(c - '0')
	}
	return uint32(c) - 'a' + 10
}

// formatHexFloat is glibc's printf("%a", f).
func formatHexFloat(f float64) string {
	var b strings.Builder
	if math.Signbit(f) {
		b.WriteByte('-')
	}
	switch {
	case math.IsInf(f, 0):
		b.WriteString("inf")
		return b.String()
	case math.IsNaN(f):
		b.WriteString("nan")
		return b.String()
	}
	bits := math.Float64bits(f)
	exp := int(bits >> 52 & 0x7ff)
	mant := bits & (1<<52 - 1)
	lead := byte('1')
	switch {
	case exp == 0 && mant == 0:
		lead, exp = '0', 0
	case exp == 0: // subnormal: glibc prints 0x0.<digits>p-1022
		lead, exp = '0', -1022
	default:
		exp -= 1023
	}
	b.WriteString("0x")
	b.WriteByte(lead)
	if mant != 0 {
		frac := strconv.FormatUint(mant, 16)
		frac = strings.Repeat("0", 13-len(frac)) + frac
		b.WriteByte('.')
		b.WriteString(strings.TrimRight(frac, "0"))
	}
	b.WriteByte('p')
	if exp >= 0 {
		b.WriteByte('+')
	}
	b.WriteString(strconv.Itoa(exp))
	return b.String()
}

// formatHexLongDouble is glibc's printf("%La") of an x87 80-bit value:
// the explicit integer bit and the first three fraction bits make the
// leading digit, so 1.5 prints as 0xcp-3.
func formatHexLongDouble(neg bool, exp int, mant uint64) string {
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	// Infinity is the all-ones exponent with only the integer bit set;
	// any other value there, and a nonzero exponent without the integer
	// bit (an "unnormal"), is not a number to the x87 and to printf.
	if exp == 0x7fff || exp != 0 && mant>>63 == 0 {
		if exp == 0x7fff && mant == 1<<63 {
			b.WriteString("inf")
		} else {
			b.WriteString("nan")
		}
		return b.String()
	}
	e := exp - 16383 - 3
	switch {
	case exp == 0 && mant == 0:
		e = 0 // 0x0p+0
	case exp == 0:
		e = -16382 - 3
	}
	lead := mant >> 60
	frac := mant << 4
	b.WriteString("0x")
	b.WriteString(strconv.FormatUint(lead, 16))
	if frac != 0 {
		s := strconv.FormatUint(frac, 16)
		s = strings.Repeat("0", 16-len(s)) + s
		b.WriteByte('.')
		b.WriteString(strings.TrimRight(s, "0"))
	}
	b.WriteByte('p')
	if e >= 0 {
		b.WriteByte('+')
	}
	b.WriteString(strconv.Itoa(e))
	return b.String()
}
