package symtab

import "strconv"

// Rust v0 names as GNU libiberty's rust-demangle.c (binutils 2.40) prints
// them without DMGL_VERBOSE, the way addr2line -C and c++filt -i do. The
// grammar is LLVM's (rustv0.go); what differs:
//
//   - a name must start, after "_R", with an upper-case letter and be
//     made of ASCII letters, digits and '_' up to its first '.'; the
//     suffix from there is dropped, not printed;
//   - numbers wrap instead of failing; backreferences may point anywhere,
//     forwards too; a binder may bind any number of lifetimes; lifetimes
//     past 'z print as '_26, '_27, ..., and an index beyond the binders
//     wraps instead of failing;
//   - the recursion limit is 1024, and basic types do not count;
//   - constants: leading zeros are allowed, '-' only for signed types, an
//     integer of more than 16 digits prints its digits shifted by one
//     ("0xfffff_" for 0xffffff, a libiberty bug kept here), a char may
//     have 8 digits, and only \t, \r and \n are escaped: '\'' prints ''',
//     space and '~' print \u{20} and \u{7e};
//   - Punycode is decoded without validation (libiberty writes whatever
//     bytes its UTF-8 encoder makes of an out-of-range code point), a
//     Punycode identifier must have digits after its last '_', and one
//     cut short prints as nothing;
//   - an ABI must not be empty, and its '_'s print as '-' with libiberty's
//     slip: the character right after a '-' is never turned into one
//     ("C__x" prints "C-_x");
//   - an associated type binding's name is decoded like any identifier.

// demangleRustV0GNU returns name, a Rust v0 symbol, as addr2line -C
// prints it, or ok false when it would print it raw or the bounds of
// rustv0.go are exceeded.
func demangleRustV0GNU(name string) (string, bool) {
	out, ok, _ := rustV0(name, true)
	return out, ok
}

// gnuLooksV0 is libiberty's check before parsing: a path (upper case)
// first, and only identifier characters.
func gnuLooksV0(in string) bool {
	if in == "" || !isUpperASCII(in[0]) {
		return false
	}
	for i := 0; i < len(in); i++ {
		if !isIdentByte(in[i]) {
			return false
		}
	}
	return true
}

// gnuABI prints a function pointer's ABI after its "K".
//
//	<abi> = "C" | <undisambiguated-identifier>
func (d *v0Demangler) gnuABI() {
	abi := "C"
	if !d.nextIf('C') {
		id := d.ident()
		if id.name == "" || id.punycode {
			d.err = true
			return
		}
		abi = id.name
	}
	d.print("extern \"")
	// libiberty restarts its scan at index 0 after each '_' and then
	// steps past it, so the byte right after a '_' is never checked.
	for i := 0; i < len(abi); i++ {
		if abi[i] == '_' {
			d.print(abi[:i])
			d.print("-")
			abi = abi[i+1:]
			i = 0
		}
	}
	d.print(abi)
	d.print("\" ")
}

// gnuDynTrait is dynTrait as libiberty has it, with the trait's path
// through gnuPathMaybeOpen and binding names decoded.
func (d *v0Demangler) gnuDynTrait() {
	open := d.gnuPathMaybeOpen()
	for !d.err && d.nextIf('p') {
		if !open {
			d.printByte('<')
		} else {
			d.print(", ")
		}
		open = true
		d.printIdent(d.ident())
		d.print(" = ")
		d.typ()
	}
	if open {
		d.printByte('>')
	}
}

// gnuPathMaybeOpen is libiberty's demangle_path_maybe_open_generics: a
// path whose generic argument list is left open. It counts one level of
// recursion itself, and the path it calls another.
func (d *v0Demangler) gnuPathMaybeOpen() bool {
	if !d.enter() {
		return false
	}
	defer d.leave()
	open := false
	switch {
	case d.nextIf('B'):
		if at, ok := d.backref(); ok {
			save := d.pos
			d.pos = at
			open = d.gnuPathMaybeOpen()
			d.pos = save
		}
	case d.nextIf('I'):
		d.path(true, false)
		d.printByte('<')
		open = true
		for i := 0; !d.err && !d.nextIf('E'); i++ {
			if i > 0 {
				d.print(", ")
			}
			d.genericArg()
		}
	default:
		d.path(true, false)
	}
	return open
}

// gnuConst is konst's body for libiberty, after the depth is counted.
//
//	<const> = <backref> | "p" | <int-type> ["n"] <hex> | "b" <hex> | "c" <hex>
func (d *v0Demangler) gnuConst() {
	if d.nextIf('B') {
		if at, ok := d.backref(); ok {
			save := d.pos
			d.pos = at
			d.konst()
			d.pos = save
		}
		return
	}
	switch d.next() {
	case 'p':
		d.printByte('_')
	case 'a', 's', 'l', 'x', 'n', 'i': // signed
		if d.nextIf('n') {
			d.printByte('-')
		}
		d.gnuConstUint()
	case 'h', 't', 'm', 'y', 'o', 'j':
		d.gnuConstUint()
	case 'b':
		switch v, n := d.gnuHex(); {
		case d.err || n != 1 || v > 1:
			d.err = true
		case v == 0:
			d.print("false")
		default:
			d.print("true")
		}
	case 'c':
		d.gnuConstChar()
	default:
		d.err = true
	}
}

// gnuHex reads hexadecimal digits up to a '_' (any number, leading zeros
// too, the value wrapping past 16) and returns the value and the count.
func (d *v0Demangler) gnuHex() (uint64, int) {
	var v uint64
	n := 0
	for !d.err && !d.nextIf('_') {
		c := d.next()
		v <<= 4
		switch {
		case '0' <= c && c <= '9':
			v |= uint64(c - '0')
		case 'a' <= c && c <= 'f':
			v |= uint64(c-'a') + 10
		default:
			d.err = true
			return 0, 0
		}
		n++
	}
	if d.err {
		return 0, 0
	}
	return v, n
}

// gnuConstUint prints an integer's digits in decimal, or past 16 digits
// the bytes libiberty prints: as many as there are digits, ending at the
// '_' after them.
func (d *v0Demangler) gnuConstUint() {
	v, n := d.gnuHex()
	switch {
	case d.err || n == 0:
		d.err = true
	case n > 16:
		d.print("0x")
		d.print(d.in[d.pos-n : d.pos])
	default:
		d.printUint(v)
	}
}

// gnuConstChar prints a char constant as libiberty does.
func (d *v0Demangler) gnuConstChar() {
	v, n := d.gnuHex()
	if d.err || n == 0 || n > 8 {
		d.err = true
		return
	}
	d.printByte('\'')
	switch {
	case v == '\t':
		d.print(`\t`)
	case v == '\r':
		d.print(`\r`)
	case v == '\n':
		d.print(`\n`)
	case ' ' < v && v < '~':
		d.printByte(byte(v))
	default:
		d.print(`\u{`)
		d.print(strconv.FormatUint(v, 16))
		d.printByte('}')
	}
	d.printByte('\'')
}

// gnuLifetime prints a lifetime as libiberty does: no range check, the
// depth wrapping, '_N past 'z.
func (d *v0Demangler) gnuLifetime(index uint64) {
	d.printByte('\'')
	if index == 0 {
		d.printByte('_')
		return
	}
	depth := d.bound - index
	if depth < 26 {
		d.printByte(byte('a' + depth))
		return
	}
	d.printByte('_')
	d.printUint(depth)
}

// gnuPunycode prints a Punycode identifier as libiberty decodes it: the
// code points held as four bytes each (an ASCII byte last, zeros before
// it), inserted as the deltas say, the zeros dropped at the end. Nothing
// is validated: arithmetic wraps, any code point is encoded with the
// UTF-8 bit patterns, whatever comes out; digits cut short print nothing.
func (d *v0Demangler) gnuPunycode(s string) {
	const (
		base = 36
		tMin = 1
		tMax = 26
		skew = 38
	)
	ascii, puny := "", s
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == '_' {
			ascii, puny = s[:i], s[i+1:]
			break
		}
	}
	groups := make([][4]byte, len(ascii), len(ascii)+len(puny))
	for i := 0; i < len(ascii); i++ {
		groups[i][3] = ascii[i]
	}
	damp, bias, i := uint64(700), uint64(72), uint64(0)
	c := uint32(0x80)
	for pos := 0; pos < len(puny); {
		delta, w, k := uint64(0), uint64(1), uint64(0)
		for {
			k += base
			t := uint64(0)
			if k >= bias {
				t = k - bias
			}
			t = min(max(t, tMin), tMax)
			if pos >= len(puny) {
				return // cut short: libiberty prints nothing, fails nothing
			}
			ch := puny[pos]
			pos++
			var dg uint8
			switch {
			case isLowerASCII(ch):
				dg = ch - 'a'
			case '0' <= ch && ch <= '9':
				dg = 26 + ch - '0'
			default:
				d.err = true
				return
			}
			delta += uint64(dg) * w
			w *= base - t
			if uint64(dg) < t {
				break
			}
		}
		n := uint64(len(groups)) + 1
		i += delta
		c += uint32(i / n)
		i %= n
		if d.moves += len(groups) - int(i); d.moves > v0MaxMoves {
			d.limit()
			return
		}
		groups = append(groups, [4]byte{})
		copy(groups[i+1:], groups[i:])
		groups[i] = gnuUTF8(c)
		if pos == len(puny) {
			break
		}
		i++
		delta /= damp
		damp = 2
		delta += delta / n
		k = 0
		for delta > (base-tMin)*tMax/2 {
			delta /= base - tMin
			k += base
		}
		bias = k + (base-tMin+1)*delta/(delta+skew)
	}
	for _, g := range groups {
		for _, b := range g {
			if b != 0 {
				d.printByte(b)
			}
		}
	}
}

// gnuUTF8 is libiberty's encoder: four bytes, zeros for the ones a
// shorter encoding does not use, with no check of c's range.
func gnuUTF8(c uint32) [4]byte {
	var g [4]byte
	if c >= 0x10000 {
		g[0] = byte(0xf0 | c>>18)
	}
	if c >= 0x800 {
		hi := uint32(0x80)
		if c < 0x10000 {
			hi = 0xe0
		}
		g[1] = byte(hi | c>>12&0x3f)
	}
	mid := uint32(0x80)
	if c < 0x800 {
		mid = 0xc0
	}
	g[2] = byte(mid | c>>6&0x3f)
	g[3] = byte(0x80 | c&0x3f)
	return g
}
