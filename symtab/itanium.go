package symtab

import (
	"math"
	"strings"
	"sync"
)

// An Itanium C++ demangler that prints what llvm-symbolizer-14 and
// llvm-cxxfilt-14 print, failures included: LLVM 14 gives up on some names
// GNU demangles (an argument pack spelled I...E, an unresolved name
// starting "srSt", a transaction clone _ZGTt), and then the name prints
// raw. The parser follows LLVM 14's ItaniumDemangle.h production by
// production (each function carries its grammar), with its lookahead,
// its substitution-table rules and its template-parameter scoping, so that
// S<n>_ and T<n>_ name what LLVM 14 makes them name. The syntax tree and
// the printer are in itanium_node.go.
//
// Bounds (LLVM 14 has none): the parser's recursion depth, the printer's
// visits and depth, and the output (1 MiB); a name that passes one prints
// raw. Nothing here panics on any input; the parser reads each byte at
// most once (no backtracking), so its work and its nodes are linear in the
// name's length.

// maxParseDepth bounds the parser's recursion. Real names nest a few dozen
// levels; LLVM 14 has no bound but its stack.
const maxParseDepth = 4096

// tplList is one level of template arguments that T<n>_ refers to.
type tplList struct{ args []*inode }

// iparser holds the state of one parse, LLVM's AbstractManglingParser.
type iparser struct {
	s   string
	pos int

	// names is a stack of nodes being gathered into lists.
	names []*inode
	// subs is the substitution table, S_ and S<seq-id>_.
	subs []*inode
	// outer is the template argument list of the encoding being parsed
	// (LLVM's OuterTemplateParams); tparams the lists T_ and TL<n>_ refer
	// to, by level: tparams[0] is outer when set, the others lambdas'
	// template parameters (nil for a generic lambda's invented ones).
	outer   *tplList
	tparams []*tplList
	// fwdRefs are T<n>_ in a conversion operator's type, resolved once the
	// encoding's template arguments are known.
	fwdRefs []*inode

	tryTemplateArgs bool
	permitFwdRefs   bool
	lambdaLevel     uint64 // level whose "auto" parameters are being parsed, or noLevel
	synthetic       [3]uint64

	depth  int
	failed bool

	// chunks are the node arena, slabs the backing of node lists; both
	// are reused from one name to the next through demanglerPool.
	chunks [][]inode
	chunk  int
	slabs  [][]*inode
	slab   int
}

const noLevel = math.MaxUint64

// demangleItanium demangles an Itanium name (_Z...) or a clang block
// invocation (___Z..._block_invoke) as LLVM 14's itaniumDemangle does;
// ok is false where LLVM fails (and prints the name as it is) or where a
// bound is hit.
func demangleItanium(name string) (out string, ok bool) {
	out, st := demangleItaniumStatus(name)
	return out, st == itaniumOK
}

// Outcomes of demangleItaniumStatus.
const (
	itaniumOK      = iota
	itaniumInvalid // LLVM 14 rejects the name too
	itaniumBounded // a bound of ours was hit; LLVM 14 may have printed it
)

func demangleItaniumStatus(name string) (string, int) {
	d := demanglerPool.Get().(*idemangler)
	defer d.release()
	out, st := d.run(name)
	return string(out), st
}

// appendItaniumStatus is demangleItaniumStatus appending the name to dst.
func appendItaniumStatus(dst []byte, name string) ([]byte, int) {
	d := demanglerPool.Get().(*idemangler)
	defer d.release()
	out, st := d.run(name)
	return append(dst, out...), st
}

// run demangles name into d's buffer, which holds the answer until d is
// released.
func (d *idemangler) run(name string) ([]byte, int) {
	// LLVM reads the name as a C string.
	if i := strings.IndexByte(name, 0); i >= 0 {
		name = name[:i]
	}
	p := &d.p
	p.reset(name)
	root := p.parse()
	switch {
	case p.failed:
		return nil, itaniumBounded
	case root == nil:
		return nil, itaniumInvalid
	}
	pr := &d.pr
	*pr = iprinter{buf: pr.buf[:0], packIndex: packNone, packMax: packNone}
	pr.print(root)
	if pr.failed {
		return nil, itaniumBounded
	}
	return pr.buf, itaniumOK
}

// idemangler is a parser and a printer, kept in demanglerPool so that a
// name costs no allocation but its result.
type idemangler struct {
	p  iparser
	pr iprinter
}

var demanglerPool = sync.Pool{New: func() any { return &idemangler{p: iparser{outer: &tplList{}}} }}

// Past these sizes a demangler is dropped rather than kept for reuse.
const (
	maxPooledNodes  = 1 << 14
	maxPooledOutput = 1 << 16
)

// release clears what d points to (so the pool holds no node of this
// name) and returns it to the pool unless an outsize name grew it.
func (d *idemangler) release() {
	p := &d.p
	nodes := 0
	for i := 0; i <= p.chunk && i < len(p.chunks); i++ {
		nodes += cap(p.chunks[i])
		clear(p.chunks[i])
		p.chunks[i] = p.chunks[i][:0]
	}
	for i := 0; i <= p.slab && i < len(p.slabs); i++ {
		clear(p.slabs[i])
		p.slabs[i] = p.slabs[i][:0]
	}
	clear(p.names)
	clear(p.subs)
	clear(p.fwdRefs)
	clear(p.tparams[:cap(p.tparams)])
	p.outer.args = nil
	if nodes > maxPooledNodes || cap(d.pr.buf) > maxPooledOutput {
		return
	}
	demanglerPool.Put(d)
}

// reset readies p for a new name.
func (p *iparser) reset(name string) {
	*p = iparser{
		s: name, outer: p.outer, tryTemplateArgs: true, lambdaLevel: noLevel,
		names: p.names[:0], subs: p.subs[:0], fwdRefs: p.fwdRefs[:0], tparams: p.tparams[:0],
		chunks: p.chunks, slabs: p.slabs,
	}
}

// parse is the top level:
//
//	<mangled-name> ::= _Z <encoding> [.<clone suffix>]
//	extension      ::= ___Z <encoding> _block_invoke [_] [<decimal-digit>+] [.<suffix>]
//
// Anything after a '.' following the encoding is a suffix, printed as
// " (.suffix)"; a block invocation's suffix is dropped.
func (p *iparser) parse() *inode {
	switch {
	case p.consume("_Z") || p.consume("__Z"):
		enc := p.parseEncoding()
		if enc == nil {
			return nil
		}
		if p.look(0) == '.' {
			d := p.mk(kDotSuffix)
			d.a, d.s = enc, p.s[p.pos:]
			p.pos = len(p.s)
			enc = d
		}
		if p.numLeft() != 0 {
			return nil
		}
		return enc
	case p.consume("___Z") || p.consume("____Z"):
		enc := p.parseEncoding()
		if enc == nil || !p.consume("_block_invoke") {
			return nil
		}
		requireNumber := p.consumeByte('_')
		if p.parseNumber(false) == "" && requireNumber {
			return nil
		}
		if p.look(0) == '.' {
			p.pos = len(p.s)
		}
		if p.numLeft() != 0 {
			return nil
		}
		return p.special("invocation function for block in ", enc)
	}
	// LLVM would parse a bare <type> here; Demangle never asks.
	return nil
}

// --- input ---

func (p *iparser) look(k int) byte {
	if p.pos+k >= len(p.s) {
		return 0
	}
	return p.s[p.pos+k]
}

func (p *iparser) numLeft() int { return len(p.s) - p.pos }

func (p *iparser) consume(s string) bool {
	if strings.HasPrefix(p.s[p.pos:], s) {
		p.pos += len(s)
		return true
	}
	return false
}

func (p *iparser) consumeByte(c byte) bool {
	if p.pos < len(p.s) && p.s[p.pos] == c {
		p.pos++
		return true
	}
	return false
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func isXDigit(c byte) bool {
	return isDigit(c) || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// in enters a recursive production; it fails the parse past the depth
// bound. Each in is paired with a deferred out.
func (p *iparser) in() bool {
	p.depth++
	if p.depth > maxParseDepth {
		p.failed = true
	}
	return !p.failed
}

func (p *iparser) out() { p.depth-- }

// --- nodes ---

// mk allocates a zeroed node from the parser's arena.
func (p *iparser) mk(k nodeKind) *inode {
	if len(p.chunks) == 0 {
		p.chunks = append(p.chunks, make([]inode, 0, 64))
	}
	c := p.chunks[p.chunk]
	if len(c) == cap(c) {
		p.chunk++
		if p.chunk == len(p.chunks) {
			p.chunks = append(p.chunks, make([]inode, 0, min(2*cap(c), 1024)))
		}
		c = p.chunks[p.chunk]
	}
	c = c[:len(c)+1]
	p.chunks[p.chunk] = c
	n := &c[len(c)-1]
	n.kind = k
	return n
}

// list copies nodes into a list carved from the parser's slabs.
func (p *iparser) list(nodes []*inode) []*inode {
	if len(nodes) == 0 {
		return nil
	}
	if len(p.slabs) == 0 {
		p.slabs = append(p.slabs, make([]*inode, 0, 256))
	}
	s := p.slabs[p.slab]
	if cap(s)-len(s) < len(nodes) {
		p.slab++
		if p.slab == len(p.slabs) {
			p.slabs = append(p.slabs, make([]*inode, 0, max(2*cap(s), len(nodes))))
		}
		s = p.slabs[p.slab]
		if cap(s)-len(s) < len(nodes) {
			s = make([]*inode, 0, max(2*cap(s), len(nodes)))
			p.slabs[p.slab] = s
		}
	}
	start := len(s)
	s = append(s, nodes...)
	p.slabs[p.slab] = s
	return s[start:len(s):len(s)]
}

func (p *iparser) nameType(s string) *inode {
	n := p.mk(kNameType)
	n.s = s
	return n
}

func (p *iparser) node1(k nodeKind, a *inode) *inode {
	n := p.mk(k)
	n.a = a
	return n
}

func (p *iparser) node2(k nodeKind, a, b *inode) *inode {
	n := p.mk(k)
	n.a, n.b = a, b
	return n
}

func (p *iparser) special(prefix string, child *inode) *inode {
	n := p.node1(kSpecialName, child)
	n.s = prefix
	return n
}

func (p *iparser) enclosing(prefix string, child *inode, postfix string) *inode {
	n := p.node1(kEnclosingExpr, child)
	n.s, n.t = prefix, postfix
	return n
}

func (p *iparser) listNode(k nodeKind, list []*inode) *inode {
	n := p.mk(k)
	n.list = list
	return n
}

// Nodes whose caches follow a child, as LLVM's constructors set them.

func (p *iparser) qualType(child *inode, quals uint8) *inode {
	n := p.node1(kQualType, child)
	n.quals = quals
	n.rhs, n.array, n.function = child.rhs, child.array, child.function
	return n
}

func (p *iparser) pointerLike(k nodeKind, pointee *inode) *inode {
	n := p.node1(k, pointee)
	n.rhs = pointee.rhs
	return n
}

func (p *iparser) reference(pointee *inode, rvalue bool) *inode {
	n := p.pointerLike(kReferenceType, pointee)
	if rvalue {
		n.num = 1
	}
	return n
}

func (p *iparser) parameterPack(elems []*inode) *inode {
	n := p.listNode(kParameterPack, elems)
	n.rhs, n.array, n.function = cacheNo, cacheNo, cacheNo
	for _, e := range elems {
		if e.array != cacheNo {
			n.array = cacheUnknown
		}
		if e.function != cacheNo {
			n.function = cacheUnknown
		}
		if e.rhs != cacheNo {
			n.rhs = cacheUnknown
		}
	}
	return n
}

func (p *iparser) push(n *inode) { p.names = append(p.names, n) }

// popTrailing takes the names pushed since from as a list.
func (p *iparser) popTrailing(from int) []*inode {
	if from >= len(p.names) {
		p.names = p.names[:from]
		return nil
	}
	list := p.list(p.names[from:])
	p.names = p.names[:from]
	return list
}

// dropTemplateParams is LLVM's TemplateParams.dropBack(n); like LLVM's, it
// may grow the list back over entries it dropped earlier.
func (p *iparser) dropTemplateParams(n int) {
	if n <= cap(p.tparams) {
		p.tparams = p.tparams[:n]
	}
}

// --- numbers ---

// parseNumber:
//
//	<number> ::= [n] <non-negative decimal integer>
//
// It returns the digits (with the 'n'), or "" (having consumed an 'n').
func (p *iparser) parseNumber(allowNegative bool) string {
	start := p.pos
	if allowNegative {
		p.consumeByte('n')
	}
	if p.numLeft() == 0 || !isDigit(p.s[p.pos]) {
		return ""
	}
	for p.numLeft() != 0 && isDigit(p.s[p.pos]) {
		p.pos++
	}
	return p.s[start:p.pos]
}

// parsePositiveInteger reads decimal digits into a wrapping 64-bit value
// (LLVM's size_t).
func (p *iparser) parsePositiveInteger() (uint64, bool) {
	if !isDigit(p.look(0)) {
		return 0, false
	}
	var v uint64
	for isDigit(p.look(0)) {
		v = v*10 + uint64(p.s[p.pos]-'0')
		p.pos++
	}
	return v, true
}

// parseBareSourceName reads <length> <identifier> and returns the
// identifier, or "".
func (p *iparser) parseBareSourceName() string {
	n, ok := p.parsePositiveInteger()
	if !ok || uint64(p.numLeft()) < n {
		return ""
	}
	r := p.s[p.pos : p.pos+int(n)]
	p.pos += int(n)
	return r
}

// parseSeqId:
//
//	<seq-id> ::= <0-9A-Z>+
func (p *iparser) parseSeqId() (uint64, bool) {
	c := p.look(0)
	if !isDigit(c) && !('A' <= c && c <= 'Z') {
		return 0, false
	}
	var id uint64
	for {
		c := p.look(0)
		switch {
		case isDigit(c):
			id = id*36 + uint64(c-'0')
		case 'A' <= c && c <= 'Z':
			id = id*36 + uint64(c-'A') + 10
		default:
			return id, true
		}
		p.pos++
	}
}

// parseCVQualifiers:
//
//	<CV-qualifiers> ::= [r] [V] [K]
func (p *iparser) parseCVQualifiers() uint8 {
	var q uint8
	if p.consumeByte('r') {
		q |= qualRestrict
	}
	if p.consumeByte('V') {
		q |= qualVolatile
	}
	if p.consumeByte('K') {
		q |= qualConst
	}
	return q
}

// parseDiscriminator skips a discriminator:
//
//	<discriminator> ::= _ <digit>
//	                ::= __ <number> _
//	extension       ::= <digit>+      (only at the end of the name)
func (p *iparser) parseDiscriminator() {
	s, i := p.s, p.pos
	if i >= len(s) {
		return
	}
	switch {
	case s[i] == '_':
		j := i + 1
		if j >= len(s) {
			return
		}
		if isDigit(s[j]) {
			p.pos = j + 1
		} else if s[j] == '_' {
			for j++; j < len(s) && isDigit(s[j]); j++ {
			}
			if j < len(s) && s[j] == '_' {
				p.pos = j + 1
			}
		}
	case isDigit(s[i]):
		j := i + 1
		for j < len(s) && isDigit(s[j]) {
			j++
		}
		if j == len(s) {
			p.pos = j
		}
	}
}

// --- names ---

// nameState is what a <name> tells the <encoding> around it.
type nameState struct {
	ctorDtorConversion   bool
	endsWithTemplateArgs bool
	cv                   uint8
	refQual              int
	fwdRefsBegin         int
}

// resolveFwdRefs points the forward references made since st began at the
// encoding's template arguments; true means one has no argument.
func (p *iparser) resolveFwdRefs(st *nameState) bool {
	for _, r := range p.fwdRefs[min(st.fwdRefsBegin, len(p.fwdRefs)):] {
		if len(p.tparams) == 0 || p.tparams[0] == nil || r.idx >= uint64(len(p.tparams[0].args)) {
			return true
		}
		r.a = p.tparams[0].args[r.idx]
	}
	if st.fwdRefsBegin <= len(p.fwdRefs) {
		p.fwdRefs = p.fwdRefs[:st.fwdRefsBegin]
	}
	return false
}

// parseEncoding:
//
//	<encoding> ::= <function name> <bare-function-type>
//	           ::= <data name>
//	           ::= <special-name>
//
// A function's return type is mangled only when its name ends in template
// arguments and it is no constructor, destructor or conversion operator.
// The template arguments of an encoding are its own: the enclosing ones
// are set aside while it is parsed.
func (p *iparser) parseEncoding() *inode {
	if !p.in() {
		return nil
	}
	defer p.out()
	savedParams, savedOuter := p.tparams, p.outer.args
	p.tparams, p.outer.args = nil, nil
	defer func() { p.tparams, p.outer.args = savedParams, savedOuter }()

	if c := p.look(0); c == 'G' || c == 'T' {
		return p.parseSpecialName()
	}
	isEnd := func() bool {
		c := p.look(0)
		return p.numLeft() == 0 || c == 'E' || c == '.' || c == '_'
	}
	st := nameState{fwdRefsBegin: len(p.fwdRefs)}
	name := p.parseName(&st)
	if name == nil {
		return nil
	}
	if p.resolveFwdRefs(&st) {
		return nil
	}
	if isEnd() {
		return name
	}
	var attrs *inode
	if p.consume("Ua9enable_ifI") {
		begin := len(p.names)
		for !p.consumeByte('E') {
			arg := p.parseTemplateArg()
			if arg == nil {
				return nil
			}
			p.push(arg)
		}
		attrs = p.listNode(kEnableIfAttr, p.popTrailing(begin))
	}
	var ret *inode
	if !st.ctorDtorConversion && st.endsWithTemplateArgs {
		if ret = p.parseType(); ret == nil {
			return nil
		}
	}
	enc := p.node2(kFunctionEncoding, ret, name)
	enc.c, enc.quals, enc.num = attrs, st.cv, st.refQual
	enc.rhs, enc.function = cacheYes, cacheYes
	if p.consumeByte('v') {
		return enc
	}
	begin := len(p.names)
	for {
		t := p.parseType()
		if t == nil {
			return nil
		}
		p.push(t)
		if isEnd() {
			break
		}
	}
	enc.list = p.popTrailing(begin)
	return enc
}

// parseSpecialName:
//
//	<special-name> ::= TA <template-arg>        # template parameter object
//	               ::= TV <type>                # virtual table
//	               ::= TT <type>                # VTT structure
//	               ::= TI <type>                # typeinfo structure
//	               ::= TS <type>                # typeinfo name
//	               ::= Tc <call-offset> <call-offset> <base encoding>
//	               ::= T <call-offset> <base encoding>
//	               ::= TC <type> <number> _ <type>  # construction vtable
//	               ::= TW <object name>         # thread-local wrapper
//	               ::= TH <object name>         # thread-local initialization
//	               ::= GV <object name>         # guard variable
//	               ::= GR <object name> [<seq-id>] _  # reference temporary
func (p *iparser) parseSpecialName() *inode {
	switch p.look(0) {
	case 'T':
		typed := func(prefix string) *inode {
			p.pos += 2
			t := p.parseType()
			if t == nil {
				return nil
			}
			return p.special(prefix, t)
		}
		named := func(prefix string) *inode {
			p.pos += 2
			n := p.parseName(nil)
			if n == nil {
				return nil
			}
			return p.special(prefix, n)
		}
		switch p.look(1) {
		case 'A':
			p.pos += 2
			arg := p.parseTemplateArg()
			if arg == nil {
				return nil
			}
			return p.special("template parameter object for ", arg)
		case 'V':
			return typed("vtable for ")
		case 'T':
			return typed("VTT for ")
		case 'I':
			return typed("typeinfo for ")
		case 'S':
			return typed("typeinfo name for ")
		case 'c':
			p.pos += 2
			if !p.parseCallOffset() || !p.parseCallOffset() {
				return nil
			}
			enc := p.parseEncoding()
			if enc == nil {
				return nil
			}
			return p.special("covariant return thunk to ", enc)
		case 'C':
			p.pos += 2
			first := p.parseType()
			if first == nil {
				return nil
			}
			if p.parseNumber(true) == "" || !p.consumeByte('_') {
				return nil
			}
			second := p.parseType()
			if second == nil {
				return nil
			}
			return p.node2(kCtorVtableSpecialName, second, first)
		case 'W':
			return named("thread-local wrapper routine for ")
		case 'H':
			return named("thread-local initialization routine for ")
		default:
			p.pos++
			virtual := p.look(0) == 'v'
			if !p.parseCallOffset() {
				return nil
			}
			enc := p.parseEncoding()
			if enc == nil {
				return nil
			}
			if virtual {
				return p.special("virtual thunk to ", enc)
			}
			return p.special("non-virtual thunk to ", enc)
		}
	case 'G':
		switch p.look(1) {
		case 'V':
			p.pos += 2
			n := p.parseName(nil)
			if n == nil {
				return nil
			}
			return p.special("guard variable for ", n)
		case 'R':
			p.pos += 2
			n := p.parseName(nil)
			if n == nil {
				return nil
			}
			_, seq := p.parseSeqId()
			if !p.consumeByte('_') && seq {
				return nil
			}
			return p.special("reference temporary for ", n)
		}
	}
	return nil
}

// parseCallOffset skips a thunk's offsets; false means bad input.
//
//	<call-offset> ::= h <nv-offset> _
//	              ::= v <v-offset> _
//	<nv-offset>   ::= <offset number>
//	<v-offset>    ::= <offset number> _ <virtual offset number>
func (p *iparser) parseCallOffset() bool {
	if p.consumeByte('h') {
		return p.parseNumber(true) != "" && p.consumeByte('_')
	}
	if p.consumeByte('v') {
		return p.parseNumber(true) != "" && p.consumeByte('_') &&
			p.parseNumber(true) != "" && p.consumeByte('_')
	}
	return false
}

// parseName:
//
//	<name> ::= <nested-name>
//	       ::= <local-name>
//	       ::= <unscoped-template-name> <template-args>
//	       ::= <unscoped-name>
//	<unscoped-template-name> ::= <unscoped-name>
//	                         ::= <substitution>
//
// An 'L' in front (GCC's internal linkage mark) is skipped.
func (p *iparser) parseName(st *nameState) *inode {
	if !p.in() {
		return nil
	}
	defer p.out()
	p.consumeByte('L')
	switch p.look(0) {
	case 'N':
		return p.parseNestedName(st)
	case 'Z':
		return p.parseLocalName(st)
	}
	isSubst := p.look(0) == 'S' && p.look(1) != 't'
	var r *inode
	if isSubst {
		r = p.parseSubstitution()
	} else {
		r = p.parseUnscopedName(st)
	}
	if r == nil {
		return nil
	}
	if p.look(0) == 'I' {
		if !isSubst {
			p.subs = append(p.subs, r) // an unscoped template name is a candidate
		}
		ta := p.parseTemplateArgs(st != nil)
		if ta == nil {
			return nil
		}
		if st != nil {
			st.endsWithTemplateArgs = true
		}
		return p.node2(kNameWithTemplateArgs, r, ta)
	}
	if isSubst {
		return nil // a substitution here must have template arguments
	}
	return r
}

// parseLocalName:
//
//	<local-name> ::= Z <function encoding> E <entity name> [<discriminator>]
//	             ::= Z <function encoding> E s [<discriminator>]
//	             ::= Z <function encoding> Ed [<parameter number>] _ <entity name>
func (p *iparser) parseLocalName(st *nameState) *inode {
	if !p.consumeByte('Z') {
		return nil
	}
	enc := p.parseEncoding()
	if enc == nil || !p.consumeByte('E') {
		return nil
	}
	if p.consumeByte('s') {
		p.parseDiscriminator()
		return p.node2(kLocalName, enc, p.nameType("string literal"))
	}
	if p.consumeByte('d') {
		p.parseNumber(true)
		if !p.consumeByte('_') {
			return nil
		}
		n := p.parseName(st)
		if n == nil {
			return nil
		}
		return p.node2(kLocalName, enc, n)
	}
	entity := p.parseName(st)
	if entity == nil {
		return nil
	}
	p.parseDiscriminator()
	return p.node2(kLocalName, enc, entity)
}

// parseUnscopedName:
//
//	<unscoped-name> ::= <unqualified-name>
//	                ::= St <unqualified-name>   # ::std::
//	extension       ::= StL <unqualified-name>
func (p *iparser) parseUnscopedName(st *nameState) *inode {
	std := p.consume("St")
	if std {
		p.consumeByte('L')
	}
	r := p.parseUnqualifiedName(st)
	if r == nil {
		return nil
	}
	if std {
		r = p.node1(kStdQualifiedName, r)
	}
	return r
}

// parseUnqualifiedName:
//
//	<unqualified-name> ::= <operator-name> [<abi-tags>]
//	                   ::= <ctor-dtor-name>     (in parseNestedName)
//	                   ::= <source-name>
//	                   ::= <unnamed-type-name>
//	                   ::= DC <source-name>+ E  # structured binding
func (p *iparser) parseUnqualifiedName(st *nameState) *inode {
	var r *inode
	switch c := p.look(0); {
	case c == 'U':
		r = p.parseUnnamedTypeName(st)
	case '1' <= c && c <= '9':
		r = p.parseSourceName()
	case p.consume("DC"):
		begin := len(p.names)
		for {
			b := p.parseSourceName()
			if b == nil {
				return nil
			}
			p.push(b)
			if p.consumeByte('E') {
				break
			}
		}
		r = p.listNode(kStructuredBindingName, p.popTrailing(begin))
	default:
		r = p.parseOperatorName(st)
	}
	if r != nil {
		r = p.parseAbiTags(r)
	}
	return r
}

// parseUnnamedTypeName:
//
//	<unnamed-type-name> ::= Ut [<nonnegative number>] _
//	                    ::= <closure-type-name>
//	                    ::= Ub [<number>] _        # block literal
//	<closure-type-name> ::= Ul <lambda-sig> E [<nonnegative number>] _
//	<lambda-sig>        ::= <template-param-decl>* <parameter type>+   # "v" for none
//
// A generic lambda's "auto" parameters are mangled as template parameters
// of a level of their own, which print as "auto".
func (p *iparser) parseUnnamedTypeName(st *nameState) *inode {
	if st != nil {
		// The template parameters are the innermost arguments': drop the
		// outer ones.
		p.tparams = p.tparams[:0]
	}
	if p.consume("Ut") {
		count := p.parseNumber(false)
		if !p.consumeByte('_') {
			return nil
		}
		n := p.mk(kUnnamedTypeName)
		n.s = count
		return n
	}
	if p.consume("Ul") {
		savedLevel := p.lambdaLevel
		p.lambdaLevel = uint64(len(p.tparams))
		defer func() { p.lambdaLevel = savedLevel }()
		oldLen := len(p.tparams)
		p.tparams = append(p.tparams, &tplList{})
		defer p.dropTemplateParams(oldLen)

		begin := len(p.names)
		for p.look(0) == 'T' && strings.IndexByte("yptn", p.look(1)) >= 0 {
			d := p.parseTemplateParamDecl()
			if d == nil {
				return nil
			}
			p.push(d)
		}
		tparams := p.popTrailing(begin)
		if len(tparams) == 0 {
			p.tparams = p.tparams[:len(p.tparams)-1]
		}
		if !p.consume("vE") {
			for {
				t := p.parseType()
				if t == nil {
					return nil
				}
				p.push(t)
				if p.consumeByte('E') {
					break
				}
			}
		}
		params := p.popTrailing(begin)
		count := p.parseNumber(false)
		if !p.consumeByte('_') {
			return nil
		}
		n := p.listNode(kClosureTypeName, tparams)
		n.list2, n.s = params, count
		return n
	}
	if p.consume("Ub") {
		p.parseNumber(false)
		if !p.consumeByte('_') {
			return nil
		}
		return p.nameType("'block-literal'")
	}
	return nil
}

// parseSourceName:
//
//	<source-name> ::= <positive length number> <identifier>
//
// GCC's anonymous namespaces (_GLOBAL__N...) print as "(anonymous namespace)".
func (p *iparser) parseSourceName() *inode {
	n, ok := p.parsePositiveInteger()
	if !ok || uint64(p.numLeft()) < n || n == 0 {
		return nil
	}
	name := p.s[p.pos : p.pos+int(n)]
	p.pos += int(n)
	if strings.HasPrefix(name, "_GLOBAL__N") {
		return p.nameType("(anonymous namespace)")
	}
	return p.nameType(name)
}

// operatorNames maps <operator-name> codes to their names, except cv
// (conversion), li (literal operator) and v<digit> (vendor).
var operatorNames = map[string]string{
	"aa": "operator&&", "ad": "operator&", "an": "operator&", "aN": "operator&=",
	"aS": "operator=", "cl": "operator()", "cm": "operator,", "co": "operator~",
	"da": "operator delete[]", "de": "operator*", "dl": "operator delete",
	"dv": "operator/", "dV": "operator/=", "eo": "operator^", "eO": "operator^=",
	"eq": "operator==", "ge": "operator>=", "gt": "operator>", "ix": "operator[]",
	"le": "operator<=", "ls": "operator<<", "lS": "operator<<=", "lt": "operator<",
	"mi": "operator-", "mI": "operator-=", "ml": "operator*", "mL": "operator*=",
	"mm": "operator--", "na": "operator new[]", "ne": "operator!=", "ng": "operator-",
	"nt": "operator!", "nw": "operator new", "oo": "operator||", "or": "operator|",
	"oR": "operator|=", "pm": "operator->*", "pl": "operator+", "pL": "operator+=",
	"pp": "operator++", "ps": "operator+", "pt": "operator->", "qu": "operator?",
	"rm": "operator%", "rM": "operator%=", "rs": "operator>>", "rS": "operator>>=",
	"ss": "operator<=>",
}

// code is the next two bytes (0 past the end).
func (p *iparser) code() string {
	if p.numLeft() >= 2 {
		return p.s[p.pos : p.pos+2]
	}
	return string([]byte{p.look(0), p.look(1)})
}

// parseOperatorName:
//
//	<operator-name> ::= <two-letter code>        # see operatorNames
//	                ::= cv <type>                # (cast)
//	                ::= li <source-name>         # operator ""
//	                ::= v <digit> <source-name>  # vendor extended operator
//
// A conversion operator's type is parsed without template arguments, and
// in an encoding's name its T<n>_ refer forward to the encoding's own
// template arguments.
func (p *iparser) parseOperatorName(st *nameState) *inode {
	code := p.code()
	switch {
	case code == "cv":
		p.pos += 2
		savedTry, savedPermit := p.tryTemplateArgs, p.permitFwdRefs
		p.tryTemplateArgs = false
		p.permitFwdRefs = p.permitFwdRefs || st != nil
		t := p.parseType()
		p.tryTemplateArgs, p.permitFwdRefs = savedTry, savedPermit
		if t == nil {
			return nil
		}
		if st != nil {
			st.ctorDtorConversion = true
		}
		return p.node1(kConversionOperatorType, t)
	case code == "li":
		p.pos += 2
		sn := p.parseSourceName()
		if sn == nil {
			return nil
		}
		return p.node1(kLiteralOperator, sn)
	case code[0] == 'v' && isDigit(code[1]):
		p.pos += 2
		sn := p.parseSourceName()
		if sn == nil {
			return nil
		}
		return p.node1(kConversionOperatorType, sn)
	}
	if name, ok := operatorNames[code]; ok {
		p.pos += 2
		return p.nameType(name)
	}
	return nil
}

// parseCtorDtorName:
//
//	<ctor-dtor-name> ::= C1 | C2 | C3 | C4 | C5   # constructors (4, 5: GCC)
//	                 ::= CI1 <base class type> ...  # inheriting constructor
//	                 ::= D0 | D1 | D2 | D4 | D5   # destructors
//
// The name is the class's base name; a std::string or stream abbreviation
// in front is spelled out first (std::basic_string<char, ...>::basic_string).
func (p *iparser) parseCtorDtorName(soFar **inode, st *nameState) *inode {
	if s := *soFar; s.kind == kSpecialSubstitution {
		switch s.num {
		case ssString, ssIstream, ssOstream, ssIostream:
			e := p.mk(kExpandedSpecialSubstitution)
			e.num = s.num
			*soFar = e
		}
	}
	if p.consumeByte('C') {
		inherited := p.consumeByte('I')
		c := p.look(0)
		if c < '1' || c > '5' {
			return nil
		}
		p.pos++
		if st != nil {
			st.ctorDtorConversion = true
		}
		if inherited && p.parseName(st) == nil {
			return nil
		}
		n := p.node1(kCtorDtorName, *soFar)
		n.num = int(c - '0')
		return n
	}
	if c := p.look(1); p.look(0) == 'D' && (c == '0' || c == '1' || c == '2' || c == '4' || c == '5') {
		p.pos += 2
		if st != nil {
			st.ctorDtorConversion = true
		}
		n := p.node1(kCtorDtorName, *soFar)
		n.flag, n.num = true, int(c-'0')
		return n
	}
	return nil
}

// parseNestedName:
//
//	<nested-name> ::= N [<CV-qualifiers>] [<ref-qualifier>] <prefix> <unqualified-name> E
//	              ::= N [<CV-qualifiers>] [<ref-qualifier>] <template-prefix> <template-args> E
//	<prefix> ::= <prefix> <unqualified-name>
//	         ::= <template-prefix> <template-args>
//	         ::= <template-param>
//	         ::= <decltype>
//	         ::= # empty
//	         ::= <substitution>
//	         ::= <prefix> <data-member-prefix>
//	extension ::= L
//	<data-member-prefix> ::= <member source-name> [<template-args>] M
//	<template-prefix> ::= <prefix> <template unqualified-name>
//	                  ::= <template-param>
//	                  ::= <substitution>
//
// Every prefix is a substitution candidate but the whole name.
func (p *iparser) parseNestedName(st *nameState) *inode {
	if !p.consumeByte('N') {
		return nil
	}
	cv := p.parseCVQualifiers()
	if st != nil {
		st.cv = cv
	}
	switch {
	case p.consumeByte('O'):
		if st != nil {
			st.refQual = refQualRValue
		}
	case p.consumeByte('R'):
		if st != nil {
			st.refQual = refQualLValue
		}
	default:
		if st != nil {
			st.refQual = refQualNone
		}
	}
	var soFar *inode
	pushComponent := func(c *inode) bool {
		if c == nil {
			return false
		}
		if soFar != nil {
			soFar = p.node2(kNestedName, soFar, c)
		} else {
			soFar = c
		}
		if st != nil {
			st.endsWithTemplateArgs = false
		}
		return true
	}
	if p.consume("St") {
		soFar = p.nameType("std")
	}
	for !p.consumeByte('E') {
		p.consumeByte('L')
		if p.consumeByte('M') {
			if soFar == nil {
				return nil
			}
			continue
		}
		c0, c1 := p.look(0), p.look(1)
		switch {
		case c0 == 'T':
			if !pushComponent(p.parseTemplateParam()) {
				return nil
			}
			p.subs = append(p.subs, soFar)
		case c0 == 'I':
			ta := p.parseTemplateArgs(st != nil)
			if ta == nil || soFar == nil {
				return nil
			}
			soFar = p.node2(kNameWithTemplateArgs, soFar, ta)
			if st != nil {
				st.endsWithTemplateArgs = true
			}
			p.subs = append(p.subs, soFar)
		case c0 == 'D' && (c1 == 't' || c1 == 'T'):
			if !pushComponent(p.parseDecltype()) {
				return nil
			}
			p.subs = append(p.subs, soFar)
		case c0 == 'S' && c1 != 't':
			s := p.parseSubstitution()
			if !pushComponent(s) {
				return nil
			}
			if soFar != s {
				p.subs = append(p.subs, s) // LLVM adds the substitution, not the prefix
			}
		case c0 == 'C' || c0 == 'D' && c1 != 'C':
			if soFar == nil {
				return nil
			}
			if !pushComponent(p.parseCtorDtorName(&soFar, st)) {
				return nil
			}
			if soFar = p.parseAbiTags(soFar); soFar == nil {
				return nil
			}
			p.subs = append(p.subs, soFar)
		default:
			if !pushComponent(p.parseUnqualifiedName(st)) {
				return nil
			}
			p.subs = append(p.subs, soFar)
		}
	}
	if soFar == nil || len(p.subs) == 0 {
		return nil
	}
	p.subs = p.subs[:len(p.subs)-1]
	return soFar
}

// parseAbiTags:
//
//	<abi-tags> ::= <abi-tag> [<abi-tags>]
//	<abi-tag>  ::= B <source-name>
func (p *iparser) parseAbiTags(n *inode) *inode {
	for p.consumeByte('B') {
		tag := p.parseBareSourceName()
		if tag == "" {
			return nil
		}
		t := p.node1(kAbiTagAttr, n)
		t.s = tag
		t.rhs, t.array, t.function = n.rhs, n.array, n.function
		n = t
	}
	return n
}

// parseSubstitution:
//
//	<substitution> ::= S_ | S <seq-id> _
//	               ::= Sa | Sb | Ss | Si | So | Sd   # std:: abbreviations
//
// An abbreviation with ABI tags is a new candidate.
func (p *iparser) parseSubstitution() *inode {
	if !p.consumeByte('S') {
		return nil
	}
	if c := p.look(0); 'a' <= c && c <= 'z' {
		kind := strings.IndexByte("absiod", c)
		if kind < 0 {
			return nil
		}
		p.pos++
		n := p.mk(kSpecialSubstitution)
		n.num = [...]int{ssAllocator, ssBasicString, ssString, ssIstream, ssOstream, ssIostream}[kind]
		tagged := p.parseAbiTags(n)
		if tagged == nil {
			return nil
		}
		if tagged != n {
			p.subs = append(p.subs, tagged)
		}
		return tagged
	}
	if p.consumeByte('_') {
		if len(p.subs) == 0 {
			return nil
		}
		return p.subs[0]
	}
	idx, ok := p.parseSeqId()
	if !ok {
		return nil
	}
	idx++
	if !p.consumeByte('_') || idx >= uint64(len(p.subs)) {
		return nil
	}
	return p.subs[idx]
}

// --- unresolved names ---

// parseSimpleId:
//
//	<simple-id> ::= <source-name> [<template-args>]
func (p *iparser) parseSimpleId() *inode {
	sn := p.parseSourceName()
	if sn == nil {
		return nil
	}
	if p.look(0) == 'I' {
		ta := p.parseTemplateArgs(false)
		if ta == nil {
			return nil
		}
		return p.node2(kNameWithTemplateArgs, sn, ta)
	}
	return sn
}

// parseDestructorName:
//
//	<destructor-name> ::= <unresolved-type>   # ~T or ~decltype(f())
//	                  ::= <simple-id>         # ~A<2*N>
func (p *iparser) parseDestructorName() *inode {
	var r *inode
	if isDigit(p.look(0)) {
		r = p.parseSimpleId()
	} else {
		r = p.parseUnresolvedType()
	}
	if r == nil {
		return nil
	}
	return p.node1(kDtorName, r)
}

// parseUnresolvedType:
//
//	<unresolved-type> ::= <template-param>
//	                  ::= <decltype>
//	                  ::= <substitution>
func (p *iparser) parseUnresolvedType() *inode {
	switch p.look(0) {
	case 'T':
		t := p.parseTemplateParam()
		if t == nil {
			return nil
		}
		p.subs = append(p.subs, t)
		return t
	case 'D':
		t := p.parseDecltype()
		if t == nil {
			return nil
		}
		p.subs = append(p.subs, t)
		return t
	}
	return p.parseSubstitution()
}

// parseBaseUnresolvedName:
//
//	<base-unresolved-name> ::= <simple-id>
//	extension              ::= <operator-name> [<template-args>]
//	                       ::= on <operator-name> [<template-args>]
//	                       ::= dn <destructor-name>
func (p *iparser) parseBaseUnresolvedName() *inode {
	if isDigit(p.look(0)) {
		return p.parseSimpleId()
	}
	if p.consume("dn") {
		return p.parseDestructorName()
	}
	p.consume("on")
	op := p.parseOperatorName(nil)
	if op == nil {
		return nil
	}
	if p.look(0) == 'I' {
		ta := p.parseTemplateArgs(false)
		if ta == nil {
			return nil
		}
		return p.node2(kNameWithTemplateArgs, op, ta)
	}
	return op
}

// parseUnresolvedName:
//
//	<unresolved-name>
//	  extension ::= srN <unresolved-type> [<template-args>] <unresolved-qualifier-level>* E <base-unresolved-name>
//	            ::= [gs] <base-unresolved-name>
//	            ::= [gs] sr <unresolved-qualifier-level>+ E <base-unresolved-name>
//	            ::= sr <unresolved-type> <base-unresolved-name>
//	  extension ::= sr <unresolved-type> <template-args> <base-unresolved-name>
//	<unresolved-qualifier-level> ::= <simple-id>
//
// The qualifiers here are no substitution candidates; only an
// <unresolved-type> is. After "sr" LLVM 14 takes a digit as the start of
// qualifier levels and anything else as an unresolved type, so "srSt..."
// (std::) fails, as in llvm-cxxfilt-14.
func (p *iparser) parseUnresolvedName() *inode {
	if p.consume("srN") {
		soFar := p.parseUnresolvedType()
		if soFar == nil {
			return nil
		}
		if p.look(0) == 'I' {
			ta := p.parseTemplateArgs(false)
			if ta == nil {
				return nil
			}
			soFar = p.node2(kNameWithTemplateArgs, soFar, ta)
		}
		for !p.consumeByte('E') {
			q := p.parseSimpleId()
			if q == nil {
				return nil
			}
			soFar = p.node2(kQualifiedName, soFar, q)
		}
		base := p.parseBaseUnresolvedName()
		if base == nil {
			return nil
		}
		return p.node2(kQualifiedName, soFar, base)
	}
	global := p.consume("gs")
	if !p.consume("sr") {
		r := p.parseBaseUnresolvedName()
		if r == nil {
			return nil
		}
		if global {
			r = p.node1(kGlobalQualifiedName, r)
		}
		return r
	}
	var soFar *inode
	if isDigit(p.look(0)) {
		for {
			q := p.parseSimpleId()
			if q == nil {
				return nil
			}
			switch {
			case soFar != nil:
				soFar = p.node2(kQualifiedName, soFar, q)
			case global:
				soFar = p.node1(kGlobalQualifiedName, q)
			default:
				soFar = q
			}
			if p.consumeByte('E') {
				break
			}
		}
	} else {
		soFar = p.parseUnresolvedType()
		if soFar == nil {
			return nil
		}
		if p.look(0) == 'I' {
			ta := p.parseTemplateArgs(false)
			if ta == nil {
				return nil
			}
			soFar = p.node2(kNameWithTemplateArgs, soFar, ta)
		}
	}
	base := p.parseBaseUnresolvedName()
	if base == nil {
		return nil
	}
	return p.node2(kQualifiedName, soFar, base)
}

// --- types ---

// builtinTypes are the one-letter <builtin-type>s.
var builtinTypes = [256]string{
	'v': "void", 'w': "wchar_t", 'b': "bool", 'c': "char", 'a': "signed char",
	'h': "unsigned char", 's': "short", 't': "unsigned short", 'i': "int",
	'j': "unsigned int", 'l': "long", 'm': "unsigned long", 'x': "long long",
	'y': "unsigned long long", 'n': "__int128", 'o': "unsigned __int128",
	'f': "float", 'd': "double", 'e': "long double", 'g': "__float128", 'z': "...",
}

// dBuiltinTypes are the D<letter> <builtin-type>s.
var dBuiltinTypes = [256]string{
	'd': "decimal64", 'e': "decimal128", 'f': "decimal32", 'h': "half",
	'i': "char32_t", 's': "char16_t", 'u': "char8_t", 'a': "auto",
	'c': "decltype(auto)", 'n': "std::nullptr_t",
}

// parseType:
//
//	<type> ::= <builtin-type>
//	       ::= <qualified-type>
//	       ::= <function-type>
//	       ::= <class-enum-type>
//	       ::= <array-type>
//	       ::= <pointer-to-member-type>
//	       ::= <template-param>
//	       ::= <template-template-param> <template-args>
//	       ::= <decltype>
//	       ::= P <type>        # pointer
//	       ::= R <type>        # l-value reference
//	       ::= O <type>        # r-value reference
//	       ::= C <type>        # complex pair (C99)
//	       ::= G <type>        # imaginary (C99)
//	       ::= <substitution>
//	       ::= Dp <type>       # pack expansion
//	       ::= Dv ...          # vector type
//	<builtin-type> ::= v | w | b | c | a | h | s | t | i | j | l | m | x | y
//	               ::= n | o | f | d | e | g | z
//	               ::= Dd | De | Df | Dh | DF <number> _ | Di | Ds | Du | Da | Dc | Dn
//	               ::= u <source-name>    # vendor extended type
//
// Every type but a builtin one and a bare substitution becomes a
// substitution candidate (a vendor type does too).
func (p *iparser) parseType() *inode {
	if !p.in() {
		return nil
	}
	defer p.out()
	var r *inode
	switch c := p.look(0); c {
	case 'r', 'V', 'K':
		k := 0
		if p.look(k) == 'r' {
			k++
		}
		if p.look(k) == 'V' {
			k++
		}
		if p.look(k) == 'K' {
			k++
		}
		if p.look(k) == 'F' || p.look(k) == 'D' && strings.IndexByte("oOwx", p.look(k+1)) >= 0 {
			r = p.parseFunctionType()
			break
		}
		r = p.parseQualifiedType()
	case 'U':
		r = p.parseQualifiedType()
	case 'u':
		p.pos++
		name := p.parseBareSourceName()
		if name == "" {
			return nil
		}
		r = p.nameType(name)
	case 'D':
		c1 := p.look(1)
		if name := dBuiltinTypes[c1]; name != "" {
			p.pos += 2
			return p.nameType(name)
		}
		switch c1 {
		case 'F':
			p.pos += 2
			dim := p.nameType(p.parseNumber(false))
			if !p.consumeByte('_') {
				return nil
			}
			return p.node1(kBinaryFPType, dim)
		case 't', 'T':
			r = p.parseDecltype()
		case 'v':
			r = p.parseVectorType()
		case 'p':
			p.pos += 2
			child := p.parseType()
			if child == nil {
				return nil
			}
			r = p.node1(kParameterPackExpansion, child)
		case 'o', 'O', 'w', 'x':
			r = p.parseFunctionType()
		}
	case 'F':
		r = p.parseFunctionType()
	case 'A':
		r = p.parseArrayType()
	case 'M':
		r = p.parsePointerToMemberType()
	case 'T':
		if c1 := p.look(1); c1 == 's' || c1 == 'u' || c1 == 'e' {
			r = p.parseClassEnumType()
			break
		}
		r = p.parseTemplateParam()
		if r == nil {
			return nil
		}
		// <template-template-param> <template-args>, when allowed here.
		if p.tryTemplateArgs && p.look(0) == 'I' {
			ta := p.parseTemplateArgs(false)
			if ta == nil {
				return nil
			}
			r = p.node2(kNameWithTemplateArgs, r, ta)
		}
	case 'P':
		p.pos++
		t := p.parseType()
		if t == nil {
			return nil
		}
		r = p.pointerLike(kPointerType, t)
	case 'R', 'O':
		p.pos++
		t := p.parseType()
		if t == nil {
			return nil
		}
		r = p.reference(t, c == 'O')
	case 'C', 'G':
		p.pos++
		t := p.parseType()
		if t == nil {
			return nil
		}
		r = p.node1(kPostfixQualifiedType, t)
		if c == 'C' {
			r.s = " complex"
		} else {
			r.s = " imaginary"
		}
	case 'S':
		if p.look(1) != 't' {
			r = p.parseSubstitution()
			if r == nil {
				return nil
			}
			if !p.tryTemplateArgs || p.look(0) != 'I' {
				return r // a bare substitution is no new candidate
			}
			ta := p.parseTemplateArgs(false)
			if ta == nil {
				return nil
			}
			r = p.node2(kNameWithTemplateArgs, r, ta)
			break
		}
		r = p.parseClassEnumType()
	default:
		if name := builtinTypes[c]; name != "" {
			p.pos++
			return p.nameType(name)
		}
		r = p.parseClassEnumType()
	}
	if r != nil {
		p.subs = append(p.subs, r)
	}
	return r
}

// parseQualifiedType:
//
//	<qualified-type>     ::= <qualifiers> <type>
//	<qualifiers>         ::= <extended-qualifier>* <CV-qualifiers>
//	<extended-qualifier> ::= U <source-name> [<template-args>]
//	extension            ::= U <objc-name> <objc-type>   # objc_object<Proto>
func (p *iparser) parseQualifiedType() *inode {
	if !p.in() {
		return nil
	}
	defer p.out()
	if p.consumeByte('U') {
		qual := p.parseBareSourceName()
		if qual == "" {
			return nil
		}
		if proto, ok := strings.CutPrefix(qual, "objcproto"); ok {
			// The protocol is itself a <source-name> inside the qualifier.
			sub := iparser{s: proto}
			name := sub.parseBareSourceName()
			if name == "" {
				return nil
			}
			child := p.parseQualifiedType()
			if child == nil {
				return nil
			}
			n := p.node1(kObjCProtoName, child)
			n.s = name
			return n
		}
		var ta *inode
		if p.look(0) == 'I' {
			if ta = p.parseTemplateArgs(false); ta == nil {
				return nil
			}
		}
		child := p.parseQualifiedType()
		if child == nil {
			return nil
		}
		n := p.node2(kVendorExtQualType, child, ta)
		n.s = qual
		return n
	}
	quals := p.parseCVQualifiers()
	t := p.parseType()
	if t == nil {
		return nil
	}
	if quals != 0 {
		t = p.qualType(t, quals)
	}
	return t
}

// parseFunctionType:
//
//	<function-type>  ::= [<CV-qualifiers>] [<exception-spec>] [Dx] F [Y] <bare-function-type> [<ref-qualifier>] E
//	<exception-spec> ::= Do                # noexcept
//	                 ::= DO <expression> E # noexcept(expression)
//	                 ::= Dw <type>+ E      # throw(types)
//	<ref-qualifier>  ::= R | O
func (p *iparser) parseFunctionType() *inode {
	cv := p.parseCVQualifiers()
	var spec *inode
	switch {
	case p.consume("Do"):
		spec = p.nameType("noexcept")
	case p.consume("DO"):
		e := p.parseExpr()
		if e == nil || !p.consumeByte('E') {
			return nil
		}
		spec = p.node1(kNoexceptSpec, e)
	case p.consume("Dw"):
		begin := len(p.names)
		for !p.consumeByte('E') {
			t := p.parseType()
			if t == nil {
				return nil
			}
			p.push(t)
		}
		spec = p.listNode(kDynamicExceptionSpec, p.popTrailing(begin))
	}
	p.consume("Dx") // transaction safe
	if !p.consumeByte('F') {
		return nil
	}
	p.consumeByte('Y') // extern "C"
	ret := p.parseType()
	if ret == nil {
		return nil
	}
	ref := refQualNone
	begin := len(p.names)
	for {
		if p.consumeByte('E') {
			break
		}
		if p.consumeByte('v') {
			continue
		}
		if p.consume("RE") {
			ref = refQualLValue
			break
		}
		if p.consume("OE") {
			ref = refQualRValue
			break
		}
		t := p.parseType()
		if t == nil {
			return nil
		}
		p.push(t)
	}
	n := p.node2(kFunctionType, ret, spec)
	n.list, n.quals, n.num = p.popTrailing(begin), cv, ref
	n.rhs, n.function = cacheYes, cacheYes
	return n
}

// parseVectorType:
//
//	<vector-type> ::= Dv <positive dimension number> _ <extended element type>
//	              ::= Dv [<dimension expression>] _ <element type>
//	<extended element type> ::= <element type>
//	                        ::= p   # AltiVec vector pixel
func (p *iparser) parseVectorType() *inode {
	if !p.consume("Dv") {
		return nil
	}
	if c := p.look(0); '1' <= c && c <= '9' {
		dim := p.nameType(p.parseNumber(false))
		if !p.consumeByte('_') {
			return nil
		}
		if p.consumeByte('p') {
			return p.node1(kPixelVectorType, dim)
		}
		elem := p.parseType()
		if elem == nil {
			return nil
		}
		return p.node2(kVectorType, elem, dim)
	}
	var dim *inode
	if !p.consumeByte('_') {
		if dim = p.parseExpr(); dim == nil || !p.consumeByte('_') {
			return nil
		}
	}
	elem := p.parseType()
	if elem == nil {
		return nil
	}
	return p.node2(kVectorType, elem, dim)
}

// parseDecltype:
//
//	<decltype> ::= Dt <expression> E  # of an id-expression or member access
//	           ::= DT <expression> E  # of an expression
func (p *iparser) parseDecltype() *inode {
	if !p.consumeByte('D') {
		return nil
	}
	if !p.consumeByte('t') && !p.consumeByte('T') {
		return nil
	}
	e := p.parseExpr()
	if e == nil || !p.consumeByte('E') {
		return nil
	}
	return p.enclosing("decltype(", e, ")")
}

// parseArrayType:
//
//	<array-type> ::= A <positive dimension number> _ <element type>
//	             ::= A [<dimension expression>] _ <element type>
func (p *iparser) parseArrayType() *inode {
	if !p.consumeByte('A') {
		return nil
	}
	var dim *inode
	if isDigit(p.look(0)) {
		dim = p.nameType(p.parseNumber(false))
		if !p.consumeByte('_') {
			return nil
		}
	} else if !p.consumeByte('_') {
		if dim = p.parseExpr(); dim == nil || !p.consumeByte('_') {
			return nil
		}
	}
	t := p.parseType()
	if t == nil {
		return nil
	}
	n := p.node2(kArrayType, t, dim)
	n.rhs, n.array = cacheYes, cacheYes
	return n
}

// parsePointerToMemberType:
//
//	<pointer-to-member-type> ::= M <class type> <member type>
func (p *iparser) parsePointerToMemberType() *inode {
	if !p.consumeByte('M') {
		return nil
	}
	class := p.parseType()
	if class == nil {
		return nil
	}
	member := p.parseType()
	if member == nil {
		return nil
	}
	n := p.node2(kPointerToMemberType, class, member)
	n.rhs = member.rhs
	return n
}

// parseClassEnumType:
//
//	<class-enum-type> ::= <name>
//	                  ::= Ts <name>   # struct or class
//	                  ::= Tu <name>   # union
//	                  ::= Te <name>   # enum
func (p *iparser) parseClassEnumType() *inode {
	var kw string
	switch {
	case p.consume("Ts"):
		kw = "struct"
	case p.consume("Tu"):
		kw = "union"
	case p.consume("Te"):
		kw = "enum"
	}
	name := p.parseName(nil)
	if name == nil {
		return nil
	}
	if kw != "" {
		n := p.node1(kElaboratedTypeSpefType, name)
		n.s = kw
		return n
	}
	return name
}

// --- templates ---

// parseTemplateParam:
//
//	<template-param> ::= T_                        # first template parameter
//	                 ::= T <parameter-2 non-negative number> _
//	                 ::= TL <level-1> __
//	                 ::= TL <level-1> _ <parameter-2 non-negative number> _
//
// It names the argument of the current scope (tparams), a forward
// reference in a conversion operator's type, or "auto" for a generic
// lambda's parameter.
func (p *iparser) parseTemplateParam() *inode {
	if !p.consumeByte('T') {
		return nil
	}
	var level uint64
	if p.consumeByte('L') {
		v, ok := p.parsePositiveInteger()
		if !ok {
			return nil
		}
		level = v + 1
		if !p.consumeByte('_') {
			return nil
		}
	}
	var index uint64
	if !p.consumeByte('_') {
		v, ok := p.parsePositiveInteger()
		if !ok {
			return nil
		}
		index = v + 1
		if !p.consumeByte('_') {
			return nil
		}
	}
	if p.permitFwdRefs && level == 0 {
		n := p.mk(kForwardTemplateReference)
		n.idx = index
		n.rhs, n.array, n.function = cacheUnknown, cacheUnknown, cacheUnknown
		p.fwdRefs = append(p.fwdRefs, n)
		return n
	}
	if level >= uint64(len(p.tparams)) || p.tparams[level] == nil || index >= uint64(len(p.tparams[level].args)) {
		// A generic lambda's auto parameter names an invented parameter.
		if p.lambdaLevel == level && level <= uint64(len(p.tparams)) {
			if level == uint64(len(p.tparams)) {
				p.tparams = append(p.tparams, nil)
			}
			return p.nameType("auto")
		}
		return nil
	}
	return p.tparams[level].args[index]
}

// parseTemplateParamDecl:
//
//	<template-param-decl> ::= Ty                          # type parameter
//	                      ::= Tn <type>                   # non-type parameter
//	                      ::= Tt <template-param-decl>* E # template parameter
//	                      ::= Tp <template-param-decl>    # parameter pack
//
// A lambda's explicit template parameters get invented names, $T, $N, $TT
// with a count, numbered across the whole name as LLVM numbers them.
func (p *iparser) parseTemplateParamDecl() *inode {
	if !p.in() {
		return nil
	}
	defer p.out()
	invent := func(kind int) *inode {
		n := p.mk(kSyntheticTemplateParamName)
		n.num, n.idx = kind, p.synthetic[kind]
		p.synthetic[kind]++
		if len(p.tparams) == 0 || p.tparams[len(p.tparams)-1] == nil {
			return nil // LLVM 14 would crash here
		}
		l := p.tparams[len(p.tparams)-1]
		l.args = append(l.args, n)
		return n
	}
	decl := func(k nodeKind, name, b *inode) *inode {
		n := p.node2(k, name, b)
		n.rhs = cacheYes
		return n
	}
	switch {
	case p.consume("Ty"):
		name := invent(0)
		if name == nil {
			return nil
		}
		return decl(kTypeTemplateParamDecl, name, nil)
	case p.consume("Tn"):
		name := invent(1)
		if name == nil {
			return nil
		}
		t := p.parseType()
		if t == nil {
			return nil
		}
		return decl(kNonTypeTemplateParamDecl, name, t)
	case p.consume("Tt"):
		name := invent(2)
		if name == nil {
			return nil
		}
		begin := len(p.names)
		oldLen := len(p.tparams)
		p.tparams = append(p.tparams, &tplList{})
		defer p.dropTemplateParams(oldLen)
		for !p.consumeByte('E') {
			d := p.parseTemplateParamDecl()
			if d == nil {
				return nil
			}
			p.push(d)
		}
		n := decl(kTemplateTemplateParamDecl, name, nil)
		n.list = p.popTrailing(begin)
		return n
	case p.consume("Tp"):
		d := p.parseTemplateParamDecl()
		if d == nil {
			return nil
		}
		return decl(kTemplateParamPackDecl, d, nil)
	}
	return nil
}

// parseTemplateArg:
//
//	<template-arg> ::= <type>                 # type or template
//	               ::= X <expression> E       # expression
//	               ::= <expr-primary>         # simple expressions
//	               ::= J <template-arg>* E    # argument pack
//	               ::= LZ <encoding> E        # extension
//
// LLVM 14 knows no older I <template-arg>* E pack: an 'I' here fails.
func (p *iparser) parseTemplateArg() *inode {
	if !p.in() {
		return nil
	}
	defer p.out()
	switch p.look(0) {
	case 'X':
		p.pos++
		e := p.parseExpr()
		if e == nil || !p.consumeByte('E') {
			return nil
		}
		return e
	case 'J':
		p.pos++
		begin := len(p.names)
		for !p.consumeByte('E') {
			a := p.parseTemplateArg()
			if a == nil {
				return nil
			}
			p.push(a)
		}
		return p.listNode(kTemplateArgumentPack, p.popTrailing(begin))
	case 'L':
		if p.look(1) == 'Z' {
			p.pos += 2
			e := p.parseEncoding()
			if e == nil || !p.consumeByte('E') {
				return nil
			}
			return e
		}
		return p.parseExprPrimary()
	}
	return p.parseType()
}

// parseTemplateArgs:
//
//	<template-args> ::= I <template-arg>* E
//
// With tag set (the arguments of the name of an encoding) they become the
// arguments T<n>_ refer to from here on; each is parsed with no template
// parameters in scope, and a pack becomes a ParameterPack.
func (p *iparser) parseTemplateArgs(tag bool) *inode {
	if !p.consumeByte('I') {
		return nil
	}
	if tag {
		p.tparams = append(p.tparams[:0], p.outer)
		p.outer.args = nil
	}
	begin := len(p.names)
	for !p.consumeByte('E') {
		if !tag {
			a := p.parseTemplateArg()
			if a == nil {
				return nil
			}
			p.push(a)
			continue
		}
		saved := p.tparams
		p.tparams = nil
		a := p.parseTemplateArg()
		p.tparams = saved
		if a == nil {
			return nil
		}
		p.push(a)
		entry := a
		if a.kind == kTemplateArgumentPack {
			entry = p.parameterPack(a.list)
		}
		if l := p.tparams[len(p.tparams)-1]; l != nil {
			l.args = append(l.args, entry)
		} else {
			return nil // LLVM 14 would crash here
		}
	}
	return p.listNode(kTemplateArgs, p.popTrailing(begin))
}
