package symtab

import "strings"

// The <expression> productions of the Itanium demangler (itanium.go), as
// LLVM 14 parses them.

// binaryOperators are the <operator-name>s of binary expressions.
var binaryOperators = map[string]string{
	"aa": "&&", "an": "&", "aN": "&=", "aS": "=", "cm": ",", "dv": "/", "dV": "/=",
	"eo": "^", "eO": "^=", "eq": "==", "ge": ">=", "gt": ">", "le": "<=", "ls": "<<",
	"lS": "<<=", "lt": "<", "mi": "-", "mI": "-=", "ml": "*", "mL": "*=", "ne": "!=",
	"oo": "||", "or": "|", "oR": "|=", "pm": "->*", "pl": "+", "pL": "+=", "rm": "%",
	"rM": "%=", "rs": ">>", "rS": ">>=",
}

// prefixOperators are the <operator-name>s of unary expressions.
var prefixOperators = map[string]string{
	"ad": "&", "co": "~", "de": "*", "ng": "-", "nt": "!", "ps": "+",
}

// foldOperators are the operators a fold expression may have.
var foldOperators = map[string]string{
	"aa": "&&", "an": "&", "aN": "&=", "aS": "=", "cm": ",", "ds": ".*", "dv": "/",
	"dV": "/=", "eo": "^", "eO": "^=", "eq": "==", "ge": ">=", "gt": ">", "le": "<=",
	"ls": "<<", "lS": "<<=", "lt": "<", "mi": "-", "mI": "-=", "ml": "*", "mL": "*=",
	"ne": "!=", "oo": "||", "or": "|", "oR": "|=", "pl": "+", "pL": "+=", "rm": "%",
	"rM": "%=", "rs": ">>", "rS": ">>=",
}

// castKinds are the named casts: <code> <type> <expression>.
var castKinds = map[string]string{
	"cc": "const_cast", "dc": "dynamic_cast", "rc": "reinterpret_cast", "sc": "static_cast",
}

// exprList parses <expression>* up to an E.
func (p *iparser) exprList(parse func() *inode) ([]*inode, bool) {
	begin := len(p.names)
	for !p.consumeByte('E') {
		e := parse()
		if e == nil {
			return nil, false
		}
		p.push(e)
	}
	return p.popTrailing(begin), true
}

// parseExpr:
//
//	<expression> ::= <unary operator-name> <expression>
//	             ::= <binary operator-name> <expression> <expression>
//	             ::= qu <expression> <expression> <expression>
//	             ::= cl <expression>+ E                    # call
//	             ::= cv <type> <expression>                # conversion, one argument
//	             ::= cv <type> _ <expression>* E           # conversion, other counts
//	             ::= [gs] nw <expression>* _ <type> [pi <expression>*] E   # new
//	             ::= [gs] na <expression>* _ <type> [pi <expression>*] E   # new[]
//	             ::= [gs] dl <expression>                  # delete
//	             ::= [gs] da <expression>                  # delete[]
//	             ::= pp_ <expression> | mm_ <expression>   # prefix ++, --
//	             ::= pp <expression> | mm <expression>     # postfix ++, --
//	             ::= ti <type> | te <expression>           # typeid
//	             ::= dc | sc | cc | rc <type> <expression> # casts
//	             ::= st <type> | sz <expression>           # sizeof
//	             ::= at <type> | az <expression>           # alignof
//	             ::= nx <expression>                       # noexcept
//	             ::= <template-param> | <function-param>
//	             ::= dt <expression> <unresolved-name>     # expr.name
//	             ::= pt <expression> <unresolved-name>     # expr->name
//	             ::= ds <expression> <expression>          # expr.*expr
//	             ::= sZ <template-param> | sZ <function-param>  # sizeof...
//	             ::= sP <template-arg>* E                  # sizeof...(pack)
//	             ::= sp <expression>                       # pack expansion
//	             ::= tw <expression> | tr                  # throw
//	             ::= il <braced-expression>* E             # init list
//	             ::= tl <type> <braced-expression>* E      # typed init list
//	             ::= ix <expression> <expression>          # subscript
//	             ::= mc <type> <expression> [<number>] E   # pointer-to-member conversion
//	             ::= so <type> <expression> [<number>] <union-selector>* [p] E  # subobject
//	             ::= u <source-name> <template-arg>* E     # vendor extended expression
//	             ::= fL | fR <op> <expression> <expression> | fl | fr <op> <expression>  # folds
//	             ::= <unresolved-name>
//	             ::= <expr-primary>
//
// A leading "gs" is consumed here and then lost by new (which looks for
// its own) and by unresolved names, as in LLVM 14.
func (p *iparser) parseExpr() *inode {
	if !p.in() {
		return nil
	}
	defer p.out()
	global := p.consume("gs")
	if p.numLeft() < 2 {
		return nil
	}
	code := p.s[p.pos : p.pos+2]
	switch code[0] {
	case 'L':
		return p.parseExprPrimary()
	case 'T':
		return p.parseTemplateParam()
	case 'f':
		if code[1] == 'p' || code[1] == 'L' && isDigit(p.look(2)) {
			return p.parseFunctionParam()
		}
		return p.parseFoldExpr()
	case '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return p.parseUnresolvedName()
	}
	if op, ok := binaryOperators[code]; ok {
		p.pos += 2
		return p.parseBinaryExpr(op)
	}
	if op, ok := prefixOperators[code]; ok {
		p.pos += 2
		return p.parsePrefixExpr(op)
	}
	if kind, ok := castKinds[code]; ok {
		p.pos += 2
		t := p.parseType()
		if t == nil {
			return nil
		}
		e := p.parseExpr()
		if e == nil {
			return nil
		}
		n := p.node2(kCastExpr, t, e)
		n.s = kind
		return n
	}
	typed := func(prefix string) *inode {
		p.pos += 2
		t := p.parseType()
		if t == nil {
			return nil
		}
		return p.enclosing(prefix, t, ")")
	}
	unary := func(prefix string) *inode {
		p.pos += 2
		e := p.parseExpr()
		if e == nil {
			return nil
		}
		return p.enclosing(prefix, e, ")")
	}
	member := func(op string) *inode {
		p.pos += 2
		l := p.parseExpr()
		if l == nil {
			return nil
		}
		r := p.parseExpr()
		if r == nil {
			return nil
		}
		n := p.node2(kMemberExpr, l, r)
		n.s = op
		return n
	}
	switch code {
	case "at":
		return typed("alignof (")
	case "az":
		return unary("alignof (")
	case "cl":
		p.pos += 2
		callee := p.parseExpr()
		if callee == nil {
			return nil
		}
		args, ok := p.exprList(p.parseExpr)
		if !ok {
			return nil
		}
		n := p.node1(kCallExpr, callee)
		n.list = args
		return n
	case "cv":
		return p.parseConversionExpr()
	case "da", "dl":
		p.pos += 2
		e := p.parseExpr()
		if e == nil {
			return nil
		}
		n := p.node1(kDeleteExpr, e)
		n.flag, n.flag2 = global, code == "da"
		return n
	case "dn", "on", "sr":
		return p.parseUnresolvedName()
	case "ds":
		return member(".*")
	case "dt":
		return member(".")
	case "pt":
		return member("->")
	case "ix":
		p.pos += 2
		base := p.parseExpr()
		if base == nil {
			return nil
		}
		index := p.parseExpr()
		if index == nil {
			return nil
		}
		return p.node2(kArraySubscriptExpr, base, index)
	case "il":
		p.pos += 2
		inits, ok := p.exprList(p.parseBracedExpr)
		if !ok {
			return nil
		}
		return p.listNode(kInitListExpr, inits)
	case "mc":
		p.pos += 2
		return p.parsePointerToMemberConversionExpr()
	case "mm", "pp":
		p.pos += 2
		op := "--"
		if code == "pp" {
			op = "++"
		}
		if p.consumeByte('_') {
			return p.parsePrefixExpr(op)
		}
		e := p.parseExpr()
		if e == nil {
			return nil
		}
		n := p.node1(kPostfixExpr, e)
		n.s = op
		return n
	case "na", "nw":
		return p.parseNewExpr()
	case "nx":
		return unary("noexcept (")
	case "qu":
		p.pos += 2
		cond := p.parseExpr()
		if cond == nil {
			return nil
		}
		l := p.parseExpr()
		if l == nil {
			return nil
		}
		r := p.parseExpr()
		if r == nil {
			return nil
		}
		n := p.node2(kConditionalExpr, cond, l)
		n.c = r
		return n
	case "so":
		p.pos += 2
		return p.parseSubobjectExpr()
	case "sp":
		p.pos += 2
		child := p.parseExpr()
		if child == nil {
			return nil
		}
		return p.node1(kParameterPackExpansion, child)
	case "st":
		return typed("sizeof (")
	case "sz":
		return unary("sizeof (")
	case "sZ":
		p.pos += 2
		switch p.look(0) {
		case 'T':
			r := p.parseTemplateParam()
			if r == nil {
				return nil
			}
			return p.node1(kSizeofParamPackExpr, r)
		case 'f':
			fp := p.parseFunctionParam()
			if fp == nil {
				return nil
			}
			return p.enclosing("sizeof... (", fp, ")")
		}
		return nil
	case "sP":
		p.pos += 2
		args, ok := p.exprList(p.parseTemplateArg)
		if !ok {
			return nil
		}
		return p.enclosing("sizeof... (", p.listNode(kNodeArray, args), ")")
	case "te":
		return unary("typeid (")
	case "ti":
		return typed("typeid (")
	case "tl":
		p.pos += 2
		t := p.parseType()
		if t == nil {
			return nil
		}
		inits, ok := p.exprList(p.parseBracedExpr)
		if !ok {
			return nil
		}
		n := p.listNode(kInitListExpr, inits)
		n.a = t
		return n
	case "tr":
		p.pos += 2
		return p.nameType("throw")
	case "tw":
		p.pos += 2
		e := p.parseExpr()
		if e == nil {
			return nil
		}
		return p.node1(kThrowExpr, e)
	}
	if code[0] == 'u' {
		return p.parseVendorExpr()
	}
	return nil
}

// parseVendorExpr:
//
//	<expression> ::= u <source-name> <template-arg>* E
//	             ::= u 8__uuidof t <type> | u 8__uuidof z <expression>  # legacy
func (p *iparser) parseVendorExpr() *inode {
	p.pos++
	name := p.parseSourceName()
	if name == nil {
		return nil
	}
	if name.baseName() == "__uuidof" {
		if p.numLeft() < 2 {
			return nil
		}
		if c := p.s[p.pos]; c == 't' || c == 'z' {
			p.pos++
			var arg *inode
			if c == 't' {
				arg = p.parseType()
			} else {
				arg = p.parseExpr()
			}
			if arg == nil {
				return nil
			}
			n := p.node1(kCallExpr, name)
			n.list = p.list([]*inode{arg})
			return n
		}
	}
	args, ok := p.exprList(p.parseTemplateArg)
	if !ok {
		return nil
	}
	n := p.node1(kCallExpr, name)
	n.list = args
	return n
}

func (p *iparser) parsePrefixExpr(op string) *inode {
	e := p.parseExpr()
	if e == nil {
		return nil
	}
	n := p.node1(kPrefixExpr, e)
	n.s = op
	return n
}

func (p *iparser) parseBinaryExpr(op string) *inode {
	l := p.parseExpr()
	if l == nil {
		return nil
	}
	r := p.parseExpr()
	if r == nil {
		return nil
	}
	n := p.node2(kBinaryExpr, l, r)
	n.s = op
	return n
}

// parseFunctionParam:
//
//	<function-param> ::= fp <top-level CV-qualifiers> [<parameter-2 non-negative number>] _
//	                 ::= fL <L-1 non-negative number> p <top-level CV-qualifiers> [<parameter-2 non-negative number>] _
//	                 ::= fpT      # this
func (p *iparser) parseFunctionParam() *inode {
	if p.consume("fpT") {
		return p.nameType("this")
	}
	if p.consume("fp") {
		p.parseCVQualifiers()
		num := p.parseNumber(false)
		if !p.consumeByte('_') {
			return nil
		}
		n := p.mk(kFunctionParam)
		n.s = num
		return n
	}
	if p.consume("fL") {
		if p.parseNumber(false) == "" || !p.consumeByte('p') {
			return nil
		}
		p.parseCVQualifiers()
		num := p.parseNumber(false)
		if !p.consumeByte('_') {
			return nil
		}
		n := p.mk(kFunctionParam)
		n.s = num
		return n
	}
	return nil
}

// parseNewExpr:
//
//	[gs] nw <expression>* _ <type> E                 # new (expr-list) type
//	[gs] nw <expression>* _ <type> pi <expression>* E  # new (expr-list) type (init)
//	[gs] na ...                                      # new[]
func (p *iparser) parseNewExpr() *inode {
	global := p.consume("gs")
	array := p.look(1) == 'a'
	if !p.consume("nw") && !p.consume("na") {
		return nil
	}
	begin := len(p.names)
	for !p.consumeByte('_') {
		e := p.parseExpr()
		if e == nil {
			return nil
		}
		p.push(e)
	}
	exprs := p.popTrailing(begin)
	t := p.parseType()
	if t == nil {
		return nil
	}
	n := p.node1(kNewExpr, t)
	n.list, n.flag, n.flag2 = exprs, global, array
	if p.consume("pi") {
		inits, ok := p.exprList(p.parseExpr)
		if !ok {
			return nil
		}
		n.list2 = inits
		return n
	}
	if !p.consumeByte('E') {
		return nil
	}
	return n
}

// parseConversionExpr:
//
//	cv <type> <expression>       # conversion with one argument
//	cv <type> _ <expression>* E  # conversion with a different number of arguments
func (p *iparser) parseConversionExpr() *inode {
	if !p.consume("cv") {
		return nil
	}
	saved := p.tryTemplateArgs
	p.tryTemplateArgs = false
	t := p.parseType()
	p.tryTemplateArgs = saved
	if t == nil {
		return nil
	}
	if p.consumeByte('_') {
		exprs, ok := p.exprList(p.parseExpr)
		if !ok {
			return nil
		}
		n := p.node1(kConversionExpr, t)
		n.list = exprs
		return n
	}
	e := p.parseExpr()
	if e == nil {
		return nil
	}
	n := p.node1(kConversionExpr, t)
	n.list = p.list([]*inode{e})
	return n
}

// integerLiteralTypes are the types of integer literals, by their
// <builtin-type> letter, as LLVM prints them: a suffix of up to three
// letters, or a cast.
var integerLiteralTypes = [256]string{
	'w': "wchar_t", 'c': "char", 'a': "signed char", 'h': "unsigned char",
	's': "short", 't': "unsigned short", 'i': "", 'j': "u", 'l': "l", 'm': "ul",
	'x': "ll", 'y': "ull", 'n': "__int128", 'o': "unsigned __int128",
}

// parseExprPrimary:
//
//	<expr-primary> ::= L <type> <value number> E   # integer literal
//	               ::= L <type> <value float> E    # floating literal
//	               ::= L <string type> E           # string literal
//	               ::= L <nullptr type> E          # nullptr literal (LDnE)
//	               ::= L <lambda type> E           # lambda expression
//	               ::= L _Z <encoding> E           # external name
//	               ::= L b0E | L b1E               # false, true
func (p *iparser) parseExprPrimary() *inode {
	if !p.consumeByte('L') {
		return nil
	}
	c := p.look(0)
	switch c {
	case 'w', 'c', 'a', 'h', 's', 't', 'i', 'j', 'l', 'm', 'x', 'y', 'n', 'o':
		p.pos++
		v := p.parseNumber(true)
		if v == "" || !p.consumeByte('E') {
			return nil
		}
		n := p.mk(kIntegerLiteral)
		n.s, n.t = integerLiteralTypes[c], v
		return n
	case 'b':
		if p.consume("b0E") {
			return p.mk(kBoolExpr)
		}
		if p.consume("b1E") {
			n := p.mk(kBoolExpr)
			n.flag = true
			return n
		}
		return nil
	case 'f':
		p.pos++
		return p.parseFloatingLiteral(kFloatLiteral, 8)
	case 'd':
		p.pos++
		return p.parseFloatingLiteral(kDoubleLiteral, 16)
	case 'e':
		p.pos++
		return p.parseFloatingLiteral(kLongDoubleLiteral, 20) // x86's 80 bits
	case '_':
		if p.consume("_Z") {
			if r := p.parseEncoding(); r != nil && p.consumeByte('E') {
				return r
			}
		}
		return nil
	case 'A':
		t := p.parseType()
		if t == nil || !p.consumeByte('E') {
			return nil
		}
		return p.node1(kStringLiteral, t)
	case 'D':
		if p.consume("DnE") {
			return p.nameType("nullptr")
		}
		return nil
	case 'T':
		return nil
	case 'U':
		if p.look(1) != 'l' {
			return nil
		}
		t := p.parseUnnamedTypeName(nil)
		if t == nil || !p.consumeByte('E') {
			return nil
		}
		return p.node1(kLambdaExpr, t)
	}
	// An enumerator: a named type and a number.
	t := p.parseType()
	if t == nil {
		return nil
	}
	v := p.parseNumber(true)
	if v == "" || !p.consumeByte('E') {
		return nil
	}
	n := p.node1(kEnumLiteral, t)
	n.s = v
	return n
}

// parseFloatingLiteral reads size hex digits and an E.
func (p *iparser) parseFloatingLiteral(k nodeKind, size int) *inode {
	if p.numLeft() <= size {
		return nil
	}
	data := p.s[p.pos : p.pos+size]
	for i := 0; i < len(data); i++ {
		if !isXDigit(data[i]) {
			return nil
		}
	}
	p.pos += size
	if !p.consumeByte('E') {
		return nil
	}
	n := p.mk(k)
	n.s = data
	return n
}

// parseBracedExpr:
//
//	<braced-expression> ::= <expression>
//	                    ::= di <field source-name> <braced-expression>  # .name = expr
//	                    ::= dx <index expression> <braced-expression>   # [expr] = expr
//	                    ::= dX <range begin expression> <range end expression> <braced-expression>
func (p *iparser) parseBracedExpr() *inode {
	if !p.in() {
		return nil
	}
	defer p.out()
	if p.look(0) == 'd' {
		switch p.look(1) {
		case 'i':
			p.pos += 2
			field := p.parseSourceName()
			if field == nil {
				return nil
			}
			init := p.parseBracedExpr()
			if init == nil {
				return nil
			}
			return p.node2(kBracedExpr, field, init)
		case 'x':
			p.pos += 2
			index := p.parseExpr()
			if index == nil {
				return nil
			}
			init := p.parseBracedExpr()
			if init == nil {
				return nil
			}
			n := p.node2(kBracedExpr, index, init)
			n.flag = true
			return n
		case 'X':
			p.pos += 2
			first := p.parseExpr()
			if first == nil {
				return nil
			}
			last := p.parseExpr()
			if last == nil {
				return nil
			}
			init := p.parseBracedExpr()
			if init == nil {
				return nil
			}
			n := p.node2(kBracedRangeExpr, first, last)
			n.c = init
			return n
		}
	}
	return p.parseExpr()
}

// parseFoldExpr:
//
//	<fold-expr> ::= fL <binary-operator-name> <expression> <expression>
//	            ::= fR <binary-operator-name> <expression> <expression>
//	            ::= fl <binary-operator-name> <expression>
//	            ::= fr <binary-operator-name> <expression>
func (p *iparser) parseFoldExpr() *inode {
	if !p.consumeByte('f') {
		return nil
	}
	kind := p.look(0)
	if strings.IndexByte("lLrR", kind) < 0 {
		return nil
	}
	left := kind == 'l' || kind == 'L'
	hasInit := kind == 'L' || kind == 'R'
	p.pos++
	op, ok := foldOperators[p.code()]
	if !ok {
		return nil
	}
	p.pos += 2
	pack := p.parseExpr()
	if pack == nil {
		return nil
	}
	var init *inode
	if hasInit {
		if init = p.parseExpr(); init == nil {
			return nil
		}
	}
	if left && init != nil {
		pack, init = init, pack
	}
	n := p.node2(kFoldExpr, pack, init)
	n.s, n.flag = op, left
	return n
}

// parsePointerToMemberConversionExpr:
//
//	<expression> ::= mc <parameter type> <expr> [<offset number>] E
func (p *iparser) parsePointerToMemberConversionExpr() *inode {
	t := p.parseType()
	if t == nil {
		return nil
	}
	e := p.parseExpr()
	if e == nil {
		return nil
	}
	offset := p.parseNumber(true)
	if !p.consumeByte('E') {
		return nil
	}
	n := p.node2(kPointerToMemberConversionExpr, t, e)
	n.s = offset
	return n
}

// parseSubobjectExpr:
//
//	<expression>     ::= so <referent type> <expr> [<offset number>] <union-selector>* [p] E
//	<union-selector> ::= _ [<number>]
func (p *iparser) parseSubobjectExpr() *inode {
	t := p.parseType()
	if t == nil {
		return nil
	}
	e := p.parseExpr()
	if e == nil {
		return nil
	}
	offset := p.parseNumber(true)
	begin := len(p.names)
	for p.consumeByte('_') {
		p.push(p.nameType(p.parseNumber(false)))
	}
	onePast := p.consumeByte('p')
	if !p.consumeByte('E') {
		return nil
	}
	n := p.node2(kSubobjectExpr, t, e)
	n.s, n.list, n.flag = offset, p.popTrailing(begin), onePast
	return n
}
