package linetable

// FilePath returns the full path of file index (a Row.File) the way
// llvm-symbolizer-14 prints it (Prologue::getFileNameByIndex with
// AbsoluteFilePath), and false if the header has no such file. compDir is
// the compilation unit's DW_AT_comp_dir, or "".
//
// The rule: an absolute name (POSIX "/x", or Windows "C:\x" or "\\host\x")
// is returned as it is. Otherwise the include directory is Dirs[Dir] for
// DWARF 5, where directory 0 is the compilation directory itself, and for
// DWARF 2-4 none when Dir is 0 (or out of range) and Dirs[Dir] otherwise.
// compDir is prepended unless the include directory is absolute or, in
// DWARF 5, Dir is 0. Components are joined like llvm::sys::path::append: one
// '/' between them, leading '/' of a component dropped after a trailing
// '/', and no cleaning of "." or "..". A DWARF 5 directory index out of range
// gives no include directory, as in LLVM.
//
// Cost: one allocation for the result; no allocation when the name is
// already absolute.
func (h *Header) FilePath(index uint64, compDir string) (string, bool) {
	if h.Version >= 5 {
		if index >= uint64(len(h.Files)) {
			return "", false
		}
	} else if index == 0 || index >= uint64(len(h.Files)) {
		// Files[0] is the placeholder for 1-based numbering.
		return "", false
	}
	f := &h.Files[index]
	if isAbsPath(f.Name) {
		return f.Name, true
	}
	var incDir string
	if f.Dir < uint64(len(h.Dirs)) && (h.Version >= 5 || f.Dir != 0) {
		incDir = h.Dirs[f.Dir]
	}
	var p []byte
	if (h.Version < 5 || f.Dir != 0) && compDir != "" && !isAbsPath(incDir) {
		p = appendPath(p, compDir)
	}
	p = appendPath(p, incDir)
	p = appendPath(p, f.Name)
	return string(p), true
}

// appendPath appends component c to path p the way LLVM 14's
// llvm::sys::path::append does in POSIX style: when p ends in '/', c's
// leading slashes are dropped; otherwise a '/' goes between unless p is
// empty or c starts with '/'. So an empty c after a non-empty p leaves a
// trailing '/', which the next component absorbs.
func appendPath(p []byte, c string) []byte {
	if len(p) > 0 && p[len(p)-1] == '/' {
		i := 0
		for i < len(c) && c[i] == '/' {
			i++
		}
		return append(p, c[i:]...)
	}
	if len(p) > 0 && (len(c) == 0 || c[0] != '/') {
		p = append(p, '/')
	}
	return append(p, c...)
}

// isAbsPath reports whether s is absolute in POSIX or in Windows style, as
// LLVM's isPathAbsoluteOnWindowsOrPosix decides: debug info may come from
// any host. A Windows path is absolute when it has both a root name (a
// drive "C:" or a network name "\\host") and a root directory after it.
func isAbsPath(s string) bool {
	if len(s) == 0 {
		return false
	}
	if s[0] == '/' {
		return true
	}
	sep := func(c byte) bool { return c == '/' || c == '\\' }
	// Drive letter: "C:" then a separator.
	if len(s) >= 3 && isAlpha(s[0]) && s[1] == ':' && sep(s[2]) {
		return true
	}
	// Network name: two equal separators, a non-separator, then a separator
	// after the name.
	if len(s) > 2 && sep(s[0]) && s[1] == s[0] && !sep(s[2]) {
		for i := 3; i < len(s); i++ {
			if sep(s[i]) {
				return true
			}
		}
	}
	return false
}

func isAlpha(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
