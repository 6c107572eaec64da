package symtab

import (
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Rust v0 symbol names [RFC 2603], printed as LLVM 14's Rust demangler
// (llvm/lib/Demangle/RustDemangle.cpp, used by llvm-symbolizer-14 and
// llvm-cxxfilt-14) prints them. Where LLVM 14 gives up, so does this
// printer, and the caller prints the name raw: constants of types other
// than integers, bool and char (rustc's adt_const_params: str, references,
// arrays, tuples, structs), an encoding version after "_R", an instantiating
// crate that is not a path, more than 500 nested paths, types and
// constants. What LLVM 14 prints that rustc-demangle does not:
//
//   - crate disambiguators are dropped, "core::ptr", never "core[1f2e]::ptr";
//   - a suffix from the first '.' on is kept as " (.llvm.123)";
//   - generic arguments in a type drop the "::", "Vec<u8>", and elsewhere
//     keep it, "drop_in_place::<u8>";
//   - a lifetime that is erased prints nothing in a reference, "&u8", and
//     "'_" as a generic argument.
//
// The same parser prints as GNU libiberty (addr2line -C) does when asked
// to; rustv0_gnu.go lists where that differs.
//
// Unlike LLVM, which is bounded only by recursion depth (backreferences let
// a short name expand exponentially), the output is capped at 1 MiB and the
// work at a fixed number of grammar steps; past either the name prints raw.

const (
	// v0MaxDepth is LLVM 14's MaxRecursionLevel: paths, types and
	// constants nested deeper fail the name.
	v0MaxDepth = 500
	// v0MaxDepthGNU is libiberty's RUST_MAX_RECURSION_COUNT.
	v0MaxDepthGNU = 1024
	// v0MaxSteps bounds the grammar productions visited per name (each
	// backreference followed visits its target again). Real names take
	// a few hundred; an exponential backreference chain takes this many
	// and fails.
	v0MaxSteps = 1 << 20
	// v0MaxOutput caps the printed name, as maxDemangled does for Itanium.
	v0MaxOutput = 1 << maxDemangled
	// v0MaxMoves bounds the code points moved while decoding Punycode
	// (each decoded one is inserted in the middle, so an identifier of n
	// costs up to n²/2): at worst some 5 800 code points, far beyond any
	// real identifier, in a few milliseconds.
	v0MaxMoves = 1 << 24
)

// v0Ident is an identifier as mangled: its bytes, and whether they are
// Punycode ("u" prefix).
type v0Ident struct {
	name     string
	punycode bool
}

// v0Demangler holds one parse. Errors are sticky, as in LLVM: after the
// first, every getter returns zero and nothing more is printed.
type v0Demangler struct {
	in      string // the name after "_R", up to its first '.'
	pos     int
	out     []byte
	noPrint bool   // parsing only: impl paths, the instantiating crate
	err     bool   // sticky
	depth   int    // nested paths, types and constants
	steps   int    // productions visited, against v0MaxSteps
	moves   int    // Punycode code points moved, against v0MaxMoves
	limited bool   // err is for the bounds above, not the grammar
	bound   uint64 // lifetimes bound by the enclosing binders
	gnu     bool   // print as libiberty (rustv0_gnu.go)
}

// demangleRustV0 returns name, a Rust v0 symbol, as LLVM 14 prints it, or
// ok false when LLVM 14 would print it raw or it exceeds the bounds above.
//
//	<symbol-name> = "_R" <path> [<instantiating-crate>] ["." <suffix>]
//	<instantiating-crate> = <path>
func demangleRustV0(name string) (string, bool) {
	out, ok, _ := rustV0(name, false)
	return out, ok
}

// rustV0 is demangleRustV0, or with gnu demangleRustV0GNU, and also
// reports whether it failed for its own bounds (where the reference might
// have printed the name).
func rustV0(name string, gnu bool) (out string, ok, limited bool) {
	if len(name) < 2 || name[:2] != "_R" {
		return "", false, false
	}
	rest := name[2:]
	in, suffix := rest, ""
	for i := 0; i < len(rest); i++ {
		if rest[i] == '.' {
			in, suffix = rest[:i], rest[i:]
			break
		}
	}
	if gnu {
		if !gnuLooksV0(in) {
			return "", false, false
		}
		suffix = "" // libiberty drops it
	}
	d := v0Demangler{in: in, out: make([]byte, 0, 2*len(name)), gnu: gnu}
	d.path(false, false)
	if d.pos != len(d.in) {
		// LLVM parses any path here; it prints none.
		d.noPrint = true
		d.path(false, false)
		d.noPrint = false
	}
	if d.pos != len(d.in) {
		d.err = true
	}
	if suffix != "" {
		d.print(" (")
		d.print(suffix)
		d.print(")")
	}
	if d.err {
		return "", false, d.limited
	}
	return string(d.out), true, false
}

// enter counts one nested production, failing past the depth and step
// limits; leave undoes the depth.
func (d *v0Demangler) enter() bool {
	max := v0MaxDepth
	if d.gnu {
		max = v0MaxDepthGNU
	}
	if d.err || d.depth >= max {
		d.err = true
		return false
	}
	if d.steps >= v0MaxSteps {
		d.limit()
		return false
	}
	d.depth++
	d.steps++
	return true
}

func (d *v0Demangler) leave() { d.depth-- }

// step counts one unit of work that is not a nested production.
func (d *v0Demangler) step() bool {
	if d.steps++; d.steps > v0MaxSteps {
		d.limit()
		return false
	}
	return true
}

// limit fails the name for exceeding this printer's bounds.
func (d *v0Demangler) limit() {
	if !d.err {
		d.err, d.limited = true, true
	}
}

// path demangles a path and reports whether it left a generic argument
// list open (leaveOpen asks for that: a dyn trait's associated type
// bindings go inside its brackets). inType drops the "::" before generic
// arguments.
//
//	<path> = "C" <identifier>                    // crate root
//	       | "M" <impl-path> <type>              // <T> (inherent impl)
//	       | "X" <impl-path> <type> <path>       // <T as Trait> (trait impl)
//	       | "Y" <type> <path>                   // <T as Trait> (trait definition)
//	       | "N" <namespace> <path> <identifier> // ...::ident (nested path)
//	       | "I" <path> {<generic-arg>} "E"      // ...<T, U> (generic args)
//	       | <backref>
//	<identifier> = [<disambiguator>] <undisambiguated-identifier>
//	<namespace> = <A-Z> | <a-z> // "C" closure, "S" shim; lower case: hidden
func (d *v0Demangler) path(inType, leaveOpen bool) bool {
	if !d.enter() {
		return false
	}
	defer d.leave()
	switch d.next() {
	case 'C':
		d.optBase62('s') // the crate disambiguator: LLVM prints none
		d.printIdent(d.ident())
	case 'M':
		d.implPath(inType)
		d.print("<")
		d.typ()
		d.print(">")
	case 'X':
		d.implPath(inType)
		d.print("<")
		d.typ()
		d.print(" as ")
		d.path(true, false)
		d.print(">")
	case 'Y':
		d.print("<")
		d.typ()
		d.print(" as ")
		d.path(true, false)
		d.print(">")
	case 'N':
		ns := d.next()
		if !isLowerASCII(ns) && !isUpperASCII(ns) {
			d.err = true
			return false
		}
		d.path(inType, false)
		dis := d.optBase62('s')
		id := d.ident()
		if isUpperASCII(ns) {
			d.print("::{")
			switch ns {
			case 'C':
				d.print("closure")
			case 'S':
				d.print("shim")
			default:
				d.printByte(ns)
			}
			if id.name != "" {
				d.print(":")
				d.printIdent(id)
			}
			d.printByte('#')
			d.printUint(dis)
			d.printByte('}')
		} else if id.name != "" {
			d.print("::")
			d.printIdent(id)
		}
	case 'I':
		d.path(inType, false)
		if !inType {
			d.print("::")
		}
		d.print("<")
		for i := 0; !d.err && !d.nextIf('E'); i++ {
			if i > 0 {
				d.print(", ")
			}
			d.genericArg()
		}
		if leaveOpen {
			return true
		}
		d.print(">")
	case 'B':
		open := false
		if at, ok := d.backref(); ok {
			save := d.pos
			d.pos = at
			open = d.path(inType, leaveOpen)
			d.pos = save
		}
		return open
	default:
		d.err = true
	}
	return false
}

// implPath parses an impl path, which LLVM does not print (the impl's
// self type and trait follow it).
//
//	<impl-path> = [<disambiguator>] <path>
//	<disambiguator> = "s" <base-62-number>
func (d *v0Demangler) implPath(inType bool) {
	save := d.noPrint
	d.noPrint = true
	d.optBase62('s')
	d.path(inType, false)
	d.noPrint = save
}

// genericArg demangles one generic argument.
//
//	<generic-arg> = <lifetime> | <type> | "K" <const>
//	<lifetime> = "L" <base-62-number>
func (d *v0Demangler) genericArg() {
	switch {
	case d.nextIf('L'):
		d.lifetime(d.base62())
	case d.nextIf('K'):
		d.konst()
	default:
		d.typ()
	}
}

// basicTypes spells the one-letter basic types, "" for the letters that
// are not one.
//
//	<basic-type> = "a" i8 | "b" bool | "c" char | "d" f64 | "e" str | "f" f32
//	             | "h" u8 | "i" isize | "j" usize | "l" i32 | "m" u32
//	             | "n" i128 | "o" u128 | "s" i16 | "t" u16 | "u" ()
//	             | "v" ... | "x" i64 | "y" u64 | "z" ! | "p" _ (placeholder)
var basicTypes = [26]string{
	"i8", "bool", "char", "f64", "str", "f32", "", "u8", "isize", "usize", "",
	"i32", "u32", "i128", "u128", "_", "", "", "i16", "u16", "()", "...", "",
	"i64", "u64", "!",
}

func basicType(c byte) string {
	if isLowerASCII(c) {
		return basicTypes[c-'a']
	}
	return ""
}

// typ demangles a type.
//
//	<type> = <basic-type>
//	       | <path>                      // named type
//	       | "A" <type> <const>          // [T; N]
//	       | "S" <type>                  // [T]
//	       | "T" {<type>} "E"            // (T1, T2, T3, ...)
//	       | "R" [<lifetime>] <type>     // &T
//	       | "Q" [<lifetime>] <type>     // &mut T
//	       | "P" <type>                  // *const T
//	       | "O" <type>                  // *mut T
//	       | "F" <fn-sig>                // fn(...) -> ...
//	       | "D" <dyn-bounds> <lifetime> // dyn Trait<Assoc = X> + Send + 'a
//	       | <backref>
func (d *v0Demangler) typ() {
	if d.gnu && basicType(d.peek()) != "" {
		d.print(basicType(d.next())) // libiberty counts no depth for these
		return
	}
	if !d.enter() {
		return
	}
	defer d.leave()
	start := d.pos
	c := d.next()
	if s := basicType(c); s != "" {
		d.print(s)
		return
	}
	switch c {
	case 'A':
		d.print("[")
		d.typ()
		d.print("; ")
		d.konst()
		d.print("]")
	case 'S':
		d.print("[")
		d.typ()
		d.print("]")
	case 'T':
		d.print("(")
		n := 0
		for ; !d.err && !d.nextIf('E'); n++ {
			if n > 0 {
				d.print(", ")
			}
			d.typ()
		}
		if n == 1 {
			d.print(",")
		}
		d.print(")")
	case 'R', 'Q':
		d.printByte('&')
		if d.nextIf('L') {
			if lt := d.base62(); lt != 0 {
				d.lifetime(lt)
				d.printByte(' ')
			}
		}
		if c == 'Q' {
			d.print("mut ")
		}
		d.typ()
	case 'P':
		d.print("*const ")
		d.typ()
	case 'O':
		d.print("*mut ")
		d.typ()
	case 'F':
		d.fnSig()
	case 'D':
		d.dynBounds()
		if !d.nextIf('L') {
			d.err = true
			return
		}
		if lt := d.base62(); lt != 0 {
			d.print(" + ")
			d.lifetime(lt)
		}
	case 'B':
		if at, ok := d.backref(); ok {
			save := d.pos
			d.pos = at
			d.typ()
			d.pos = save
		}
	default:
		d.pos = start
		d.path(true, false)
	}
}

// fnSig demangles a function pointer type; its binder's lifetimes are in
// scope for its parameter and return types only.
//
//	<fn-sig> = [<binder>] ["U"] ["K" <abi>] {<type>} "E" <type>
//	<abi> = "C" | <undisambiguated-identifier> // '-' mangled as '_'
func (d *v0Demangler) fnSig() {
	save := d.bound
	defer func() { d.bound = save }()
	d.binder()
	if d.nextIf('U') {
		d.print("unsafe ")
	}
	if d.gnu && d.nextIf('K') {
		d.gnuABI()
	} else if d.nextIf('K') {
		d.print("extern \"")
		if d.nextIf('C') {
			d.print("C")
		} else {
			id := d.ident()
			if id.punycode {
				d.err = true
			}
			for i := 0; i < len(id.name); i++ {
				c := id.name[i]
				if c == '_' {
					c = '-'
				}
				d.printByte(c)
			}
		}
		d.print("\" ")
	}
	d.print("fn(")
	for i := 0; !d.err && !d.nextIf('E'); i++ {
		if i > 0 {
			d.print(", ")
		}
		d.typ()
	}
	d.print(")")
	if !d.nextIf('u') { // a () return type is not printed
		d.print(" -> ")
		d.typ()
	}
}

// dynBounds demangles the traits of a trait object.
//
//	<dyn-bounds> = [<binder>] {<dyn-trait>} "E"
func (d *v0Demangler) dynBounds() {
	save := d.bound
	defer func() { d.bound = save }()
	d.print("dyn ")
	d.binder()
	for i := 0; !d.err && !d.nextIf('E'); i++ {
		if i > 0 {
			d.print(" + ")
		}
		d.dynTrait()
	}
}

// dynTrait demangles one trait of a trait object; its associated type
// bindings print inside its generic argument list, opened if it has none.
// A binding's name prints as mangled, even when it is Punycode (as LLVM).
//
//	<dyn-trait> = <path> {<dyn-trait-assoc-binding>}
//	<dyn-trait-assoc-binding> = "p" <undisambiguated-identifier> <type>
func (d *v0Demangler) dynTrait() {
	if d.gnu {
		d.gnuDynTrait()
		return
	}
	open := d.path(true, true)
	for !d.err && d.nextIf('p') {
		if !open {
			open = true
			d.printByte('<')
		} else {
			d.print(", ")
		}
		d.print(d.ident().name)
		d.print(" = ")
		d.typ()
	}
	if open {
		d.printByte('>')
	}
}

// binder demangles a for<'a, 'b> prefix and adds its lifetimes to the
// bound ones. As LLVM, a binder of more lifetimes than the rest of the
// name could use fails (each use takes a byte), which bounds the output.
//
//	<binder> = "G" <base-62-number>
func (d *v0Demangler) binder() {
	n := d.optBase62('G')
	if d.err || n == 0 {
		return
	}
	if !d.gnu && n >= uint64(len(d.in))-d.bound { // libiberty does not check
		d.err = true
		return
	}
	d.print("for<")
	for i := uint64(0); i < n && !d.err; i++ {
		if d.gnu && !d.step() { // unbounded there, even when not printing
			return
		}
		d.bound++
		if i > 0 {
			d.print(", ")
		}
		d.lifetime(1)
	}
	d.print("> ")
}

// konst demangles a constant generic argument. LLVM 14 knows integers,
// bool, char and the placeholder; any other type fails the name.
//
//	<const> = <basic-type> <const-data>
//	        | "p" // placeholder, shown as _
//	        | <backref>
func (d *v0Demangler) konst() {
	if !d.enter() {
		return
	}
	defer d.leave()
	if d.gnu {
		d.gnuConst()
		return
	}
	switch c := d.next(); c {
	case 'a', 's', 'l', 'x', 'n', 'i', 'h', 't', 'm', 'y', 'o', 'j':
		d.constInt()
	case 'b':
		d.constBool()
	case 'c':
		d.constChar()
	case 'p':
		d.printByte('_')
	case 'B':
		if at, ok := d.backref(); ok {
			save := d.pos
			d.pos = at
			d.konst()
			d.pos = save
		}
	default:
		d.err = true
	}
}

// constInt prints an integer constant in decimal, or in hexadecimal when
// it has more than 16 digits (an i128 or u128 beyond 64 bits).
//
//	<const-data> = ["n"] <hex-number>
func (d *v0Demangler) constInt() {
	if d.nextIf('n') {
		d.printByte('-')
	}
	v, digits := d.hex()
	if len(digits) <= 16 {
		d.printUint(v)
	} else {
		d.print("0x")
		d.print(digits)
	}
}

// constBool prints a bool constant.
//
//	<const-data> = "0_" // false
//	             | "1_" // true
func (d *v0Demangler) constBool() {
	switch _, digits := d.hex(); digits {
	case "0":
		d.print("false")
	case "1":
		d.print("true")
	default:
		d.err = true
	}
}

// constChar prints a char constant in quotes: printable ASCII as itself
// (with \' and \\ escaped, and '"' not), \t \r \n, anything else as
// \u{hex}, the digits as mangled (LLVM checks no range but their count).
//
//	<const-data> = <hex-number> // the code point
func (d *v0Demangler) constChar() {
	v, digits := d.hex()
	if d.err || len(digits) > 6 {
		d.err = true
		return
	}
	d.printByte('\'')
	switch v {
	case '\t':
		d.print(`\t`)
	case '\r':
		d.print(`\r`)
	case '\n':
		d.print(`\n`)
	case '\\':
		d.print(`\\`)
	case '\'':
		d.print(`\'`)
	default:
		if 0x20 <= v && v <= 0x7e {
			d.printByte(byte(v))
		} else {
			d.print(`\u{`)
			d.print(digits)
			d.printByte('}')
		}
	}
	d.printByte('\'')
}

// backref reads a backreference and returns the position it names, and
// whether to follow it: only when printing (LLVM parses nothing at the
// target otherwise), and only backwards, to a position before the
// reference's end.
//
//	<backref> = "B" <base-62-number> // offset from just after "_R"
func (d *v0Demangler) backref() (int, bool) {
	at := d.base62()
	if d.gnu && !d.err {
		// libiberty follows a reference anywhere, forwards too (a loop
		// ends at its recursion limit); past the end it reads nothing.
		at = min(at, uint64(len(d.in)))
	} else if d.err || at >= uint64(d.pos) {
		d.err = true
		return 0, false
	}
	if d.noPrint {
		return 0, false
	}
	return int(at), true
}

// ident reads an identifier's bytes; they must be ASCII letters, digits
// and '_'.
//
//	<undisambiguated-identifier> = ["u"] <decimal-number> ["_"] <bytes>
//
// The "_" separates bytes that start with a digit or '_' from the length;
// LLVM takes one whenever it is there.
func (d *v0Demangler) ident() v0Ident {
	puny := d.nextIf('u')
	n := d.decimal()
	d.nextIf('_')
	if d.err || n > uint64(len(d.in)-d.pos) {
		d.err = true
		return v0Ident{}
	}
	s := d.in[d.pos : d.pos+int(n)]
	d.pos += int(n)
	for i := 0; i < len(s); i++ {
		if !isIdentByte(s[i]) {
			d.err = true
			return v0Ident{}
		}
	}
	if d.gnu && puny && strings.LastIndexByte(s, '_') == len(s)-1 {
		d.err = true // libiberty wants a Punycode part after the last '_'
		return v0Ident{}
	}
	return v0Ident{s, puny}
}

// optBase62 reads an optional number introduced by tag: 0 when the tag is
// absent, the number plus one when present.
func (d *v0Demangler) optBase62(tag byte) uint64 {
	if !d.nextIf(tag) {
		return 0
	}
	n := d.base62()
	if d.gnu {
		return n + 1 // wrapping, as libiberty
	}
	if d.err || n == math.MaxUint64 {
		d.err = true
		return 0
	}
	return n + 1
}

// base62 reads a number in base 62, offset by one so that "_" is 0.
//
//	<base-62-number> = {<0-9a-zA-Z>} "_" // "_" 0, "0_" 1, ..., "Z_" 62, "10_" 63
func (d *v0Demangler) base62() uint64 {
	if d.nextIf('_') {
		return 0
	}
	var v uint64
	for {
		c := d.next()
		var digit uint64
		switch {
		case c == '_':
			if v == math.MaxUint64 && !d.gnu {
				d.err = true
				return 0
			}
			return v + 1
		case '0' <= c && c <= '9':
			digit = uint64(c - '0')
		case isLowerASCII(c):
			digit = uint64(c-'a') + 10
		case isUpperASCII(c):
			digit = uint64(c-'A') + 36
		default:
			d.err = true
			return 0
		}
		if v > (math.MaxUint64-digit)/62 && !d.gnu { // libiberty wraps
			d.err = true
			return 0
		}
		v = v*62 + digit
	}
}

// decimal reads a decimal number without leading zeros ("0" alone is a
// number: "05" is 0 followed by "5").
//
//	<decimal-number> = "0" | <1-9> {<0-9>}
func (d *v0Demangler) decimal() uint64 {
	c := d.peek()
	if c < '0' || c > '9' {
		d.err = true
		return 0
	}
	if c == '0' {
		d.pos++
		return 0
	}
	var v uint64
	for c := d.peek(); '0' <= c && c <= '9'; c = d.peek() {
		digit := uint64(c - '0')
		if v > (math.MaxUint64-digit)/10 && !d.gnu { // libiberty wraps
			d.err = true
			return 0
		}
		v = v*10 + digit
		d.pos++
	}
	return v
}

// hex reads a lower-case hexadecimal number and returns its value (only
// meaningful up to 16 digits) and its digits.
//
//	<hex-number> = "0_" | <1-9a-f> {<0-9a-f>} "_"
func (d *v0Demangler) hex() (uint64, string) {
	start := d.pos
	if !isHexDigit(d.peek()) {
		d.err = true
	}
	var v uint64
	if d.nextIf('0') {
		if !d.nextIf('_') {
			d.err = true
		}
	} else {
		for !d.err && !d.nextIf('_') {
			c := d.next()
			v *= 16
			switch {
			case '0' <= c && c <= '9':
				v += uint64(c - '0')
			case 'a' <= c && c <= 'f':
				v += uint64(c-'a') + 10
			default:
				d.err = true
			}
		}
	}
	if d.err {
		return 0, ""
	}
	return v, d.in[start : d.pos-1]
}

// lifetime prints a lifetime: 0 is erased, "'_"; others are De Bruijn
// indices into the bound lifetimes, 1 the innermost, named 'a to 'z and
// then 'z1, 'z2, ... by binding depth.
func (d *v0Demangler) lifetime(index uint64) {
	if d.gnu {
		d.gnuLifetime(index)
		return
	}
	if index == 0 {
		d.print("'_")
		return
	}
	if index-1 >= d.bound {
		d.err = true
		return
	}
	depth := d.bound - index
	d.printByte('\'')
	if depth < 26 {
		d.printByte(byte('a' + depth))
	} else {
		d.printByte('z')
		d.printUint(depth - 26 + 1)
	}
}

// printIdent prints an identifier, decoding Punycode. As LLVM, a Punycode
// identifier that does not decode fails the name only when printed.
func (d *v0Demangler) printIdent(id v0Ident) {
	if d.err || d.noPrint {
		return
	}
	if !id.punycode {
		d.print(id.name)
		return
	}
	if d.gnu {
		d.gnuPunycode(id.name)
		return
	}
	if !d.punycode(id.name) {
		d.err = true
	}
}

// punycode appends the decoding of s [RFC 3492], with '_' as the
// delimiter (rustc's spelling of '-'), and reports whether s was valid.
// Each code point decoded moves the ones after its position, against
// v0MaxMoves.
func (d *v0Demangler) punycode(s string) bool {
	const (
		base = 36
		tMin = 1
		tMax = 26
		skew = 38
	)
	var cps []rune
	i := 0
	if delim := strings.LastIndexByte(s, '_'); delim >= 0 {
		for ; i < delim; i++ {
			cps = append(cps, rune(s[i]))
		}
		i++
	}
	bias, damp := uint64(72), uint64(700)
	adapt := func(delta, points uint64) uint64 {
		delta /= damp
		delta += delta / points
		damp = 2
		k := uint64(0)
		for delta > (base-tMin)*tMax/2 {
			delta /= base - tMin
			k += base
		}
		return k + (base-tMin+1)*delta/(delta+skew)
	}
	n := uint64(0x80)
	for at := uint64(0); i < len(s); at++ {
		old, w := at, uint64(1)
		for k := uint64(base); ; k += base {
			if i == len(s) {
				return false
			}
			c := s[i]
			i++
			var digit uint64
			switch {
			case isLowerASCII(c):
				digit = uint64(c - 'a')
			case '0' <= c && c <= '9':
				digit = uint64(c-'0') + 26
			default:
				return false
			}
			if digit > (math.MaxUint64-at)/w {
				return false
			}
			at += digit * w
			t := uint64(tMin)
			switch {
			case k <= bias:
			case k >= bias+tMax:
				t = tMax
			default:
				t = k - bias
			}
			if digit < t {
				break
			}
			if w > math.MaxUint64/(base-t) {
				return false
			}
			w *= base - t
		}
		points := uint64(len(cps)) + 1
		bias = adapt(at-old, points)
		if at/points > math.MaxUint64-n {
			return false
		}
		n += at / points
		at %= points
		if n > utf8.MaxRune || 0xd800 <= n && n <= 0xdfff {
			return false
		}
		if d.moves += len(cps) - int(at); d.moves > v0MaxMoves {
			d.limit()
			return false
		}
		cps = append(cps, 0)
		copy(cps[at+1:], cps[at:])
		cps[at] = rune(n)
	}
	for _, r := range cps {
		d.out = utf8.AppendRune(d.out, r)
	}
	if len(d.out) > v0MaxOutput {
		d.limit()
	}
	return true
}

// print appends s unless printing is off; past v0MaxOutput it fails the
// name.
func (d *v0Demangler) print(s string) {
	if d.err || d.noPrint {
		return
	}
	if len(d.out)+len(s) > v0MaxOutput {
		d.limit()
		return
	}
	d.out = append(d.out, s...)
}

func (d *v0Demangler) printByte(c byte) {
	if d.err || d.noPrint {
		return
	}
	if len(d.out) >= v0MaxOutput {
		d.limit()
		return
	}
	d.out = append(d.out, c)
}

func (d *v0Demangler) printUint(v uint64) {
	if d.err || d.noPrint {
		return
	}
	if len(d.out)+20 > v0MaxOutput {
		d.limit()
		return
	}
	d.out = strconv.AppendUint(d.out, v, 10)
}

// peek returns the next byte, or 0 at the end or after an error.
func (d *v0Demangler) peek() byte {
	if d.err || d.pos >= len(d.in) {
		return 0
	}
	return d.in[d.pos]
}

// next consumes the next byte; at the end it fails the name and returns 0.
func (d *v0Demangler) next() byte {
	if d.err || d.pos >= len(d.in) {
		d.err = true
		return 0
	}
	d.pos++
	return d.in[d.pos-1]
}

// nextIf consumes the next byte if it is c.
func (d *v0Demangler) nextIf(c byte) bool {
	if d.err || d.pos >= len(d.in) || d.in[d.pos] != c {
		return false
	}
	d.pos++
	return true
}

func isLowerASCII(c byte) bool { return 'a' <= c && c <= 'z' }
func isUpperASCII(c byte) bool { return 'A' <= c && c <= 'Z' }
func isHexDigit(c byte) bool   { return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' }
func isIdentByte(c byte) bool {
	return '0' <= c && c <= '9' || isLowerASCII(c) || isUpperASCII(c) || c == '_'
}
