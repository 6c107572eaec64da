package slide

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"strconv"
	"strings"

	"github.com/symbolize-go/symbolize/internal/buf"
)

// lines calls fn with each line of data (without its newline or a trailing
// CR) and the line's offset, stopping at the first error.
func lines(data []byte, fn func(line string, off uint64) error) error {
	off := 0
	for off < len(data) {
		end := bytes.IndexByte(data[off:], '\n')
		next := off + end + 1
		if end < 0 {
			end, next = len(data)-off, len(data)
		}
		line := strings.TrimSuffix(string(data[off:off+end]), "\r")
		if err := fn(line, uint64(off)); err != nil {
			return err
		}
		off = next
	}
	return nil
}

// ParseProcMaps parses the lines of /proc/PID/maps:
//
//	start-end perms offset dev inode [path]
//
// with hexadecimal start, end and offset. Every line becomes a Module
// (Start, End, Offset, Perms, Path, and Name the base of Path); anonymous
// and pseudo mappings ("[stack]", "[vdso]") are kept, with Path as printed,
// so callers decide what to skip. Blank lines are ignored.
//
// A line that does not parse costs that line alone: the modules of every
// other line are returned, with an error joining one *DecodeError per bad
// line (errors.As finds the first; errors.Is matches ErrFormat). At most
// maxLineErrors of them are kept, so a file of garbage costs no more than
// its modules would.
func ParseProcMaps(data []byte) ([]Module, error) {
	const sec = "/proc/maps"
	var mods []Module
	var bad []error
	dropped := 0
	lines(data, func(line string, off uint64) error {
		if err := parseMapsLine(&mods, line, off); err != nil {
			if len(bad) < maxLineErrors {
				bad = append(bad, err)
			} else {
				dropped++
			}
		}
		return nil
	})
	if dropped > 0 {
		bad = append(bad, fmt.Errorf("slide: %s: %d more lines do not parse", sec, dropped))
	}
	return mods, errors.Join(bad...)
}

// maxLineErrors bounds the line errors ParseProcMaps returns.
const maxLineErrors = 16

func parseMapsLine(mods *[]Module, line string, off uint64) error {
	const sec = "/proc/maps"
	{
		if strings.TrimSpace(line) == "" {
			return nil
		}
		f := strings.Fields(line)
		if len(f) < 5 {
			return buf.Errorf(pkg, sec, off, ErrFormat, "want at least 5 fields: %q", clip(line))
		}
		lo, hi, ok := strings.Cut(f[0], "-")
		start, err1 := strconv.ParseUint(lo, 16, 64)
		end, err2 := strconv.ParseUint(hi, 16, 64)
		offset, err3 := strconv.ParseUint(f[2], 16, 64)
		if !ok || err1 != nil || err2 != nil || err3 != nil || end < start {
			return buf.Errorf(pkg, sec, off, ErrFormat, "bad range or offset: %q", clip(line))
		}
		m := Module{Start: start, End: end, Offset: offset, Perms: f[1]}
		if len(f) > 5 {
			// The path is the rest of the line after the inode; it may hold
			// spaces, and the kernel appends " (deleted)" to unlinked files.
			m.Path = strings.TrimSpace(line[fieldEnd(line, 5):])
			m.Name = path.Base(strings.TrimSuffix(m.Path, " (deleted)"))
		}
		*mods = append(*mods, m)
		return nil
	}
}

// fieldEnd returns the offset in s just past its n-th whitespace-separated
// field.
func fieldEnd(s string, n int) int {
	i := 0
	for k := 0; k < n; k++ {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
			i++
		}
		for i < len(s) && s[i] != ' ' && s[i] != '\t' {
			i++
		}
	}
	return i
}

// clip shortens a line quoted in an error message.
func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "..."
	}
	return s
}

// ParseModuleList parses lines of "module address" pairs: a path or name,
// whitespace, and the load address (0x-prefixed hex, or decimal) as the
// last field, so module paths may contain spaces. Blank lines and lines
// starting with '#' are ignored.
func ParseModuleList(data []byte) ([]Module, error) {
	const sec = "module list"
	var mods []Module
	err := lines(data, func(line string, off uint64) error {
		t := strings.TrimSpace(line)
		if t == "" || t[0] == '#' {
			return nil
		}
		i := strings.LastIndexAny(t, " \t")
		if i < 0 {
			return buf.Errorf(pkg, sec, off, ErrFormat, "want \"module address\": %q", clip(line))
		}
		addr, err := strconv.ParseUint(t[i+1:], 0, 64)
		if err != nil {
			return buf.Errorf(pkg, sec, off, ErrFormat, "bad address %q", clip(t[i+1:]))
		}
		p := strings.TrimSpace(t[:i])
		mods = append(mods, Module{Name: path.Base(p), Path: p, Start: addr})
		return nil
	})
	return mods, err
}

// ParseCrashText parses the "Binary Images:" section of a classic text
// crash report (macOS before 12, iOS before 15, and
// symbolicatecrash-style output). Each entry looks like
//
//	0x104a38000 -        0x104a3ffff com.example.App (1.0 - 1) <3b1c...> /path/App
//	0x1a2b3c000 - 0x1a2b7ffff libsystem_kernel.dylib arm64e  <a1b2...> /usr/lib/system/libsystem_kernel.dylib
//
// with an inclusive end address (so End is one more), an optional "+"
// before the name marking non-system images, an optional version in
// parentheses, an optional architecture, and the UUID in angle brackets.
// The section ends at a blank line or at the first line that is not an
// entry. A report without the section yields no modules.
func ParseCrashText(data []byte) ([]Module, error) {
	const sec = "crash report"
	var mods []Module
	in := false
	done := false
	err := lines(data, func(line string, off uint64) error {
		if done {
			return nil
		}
		t := strings.TrimSpace(line)
		if !in {
			in = strings.HasPrefix(t, "Binary Images:")
			return nil
		}
		if t == "" {
			if len(mods) > 0 {
				done = true
			}
			return nil
		}
		if !strings.HasPrefix(t, "0x") {
			done = true
			return nil
		}
		m, ok := parseImageLine(t)
		if !ok {
			return buf.Errorf(pkg, sec, off, ErrFormat, "bad Binary Images entry: %q", clip(line))
		}
		mods = append(mods, m)
		return nil
	})
	return mods, err
}

func parseImageLine(t string) (Module, bool) {
	var m Module
	lo, rest, ok := strings.Cut(t, "-")
	if !ok {
		return m, false
	}
	start, err := strconv.ParseUint(strings.TrimSpace(lo), 0, 64)
	if err != nil {
		return m, false
	}
	rest = strings.TrimSpace(rest)
	i := strings.IndexAny(rest, " \t")
	if i < 0 {
		return m, false
	}
	last, err := strconv.ParseUint(rest[:i], 0, 64)
	if err != nil || last < start || last == ^uint64(0) {
		return m, false
	}
	m.Start, m.End = start, last+1
	rest = strings.TrimSpace(rest[i:])
	// The UUID in <...> separates the name (with version and arch) from
	// the path; "???" may stand for an unknown name.
	lt := strings.IndexByte(rest, '<')
	gt := strings.IndexByte(rest, '>')
	if lt < 0 || gt < lt {
		return m, false
	}
	m.UUID = rest[lt+1 : gt]
	m.Path = strings.TrimSpace(rest[gt+1:])
	head := strings.TrimSpace(rest[:lt])
	head = strings.TrimPrefix(head, "+")
	if p := strings.IndexByte(head, '('); p >= 0 {
		head = strings.TrimSpace(head[:p])
	} else if f := strings.Fields(head); len(f) > 1 && isArch(f[len(f)-1]) {
		m.Arch = f[len(f)-1]
		head = strings.TrimSpace(head[:strings.LastIndex(head, m.Arch)])
	}
	m.Name = head
	if m.Name == "" || m.Name == "???" {
		m.Name = path.Base(m.Path)
	}
	return m, true
}

func isArch(s string) bool {
	switch s {
	case "arm64", "arm64e", "arm64_32", "x86_64", "x86_64h", "i386", "armv7", "armv7s", "armv7k":
		return true
	}
	return false
}

// ipsImage is one entry of usedImages in an .ips crash report (macOS 12+,
// iOS 15+).
type ipsImage struct {
	Source string  `json:"source"`
	Arch   string  `json:"arch"`
	Base   *uint64 `json:"base"`
	Size   uint64  `json:"size"`
	UUID   string  `json:"uuid"`
	Path   string  `json:"path"`
	Name   string  `json:"name"`
}

// ParseIPS parses the images of an .ips crash report: a one-line JSON
// header followed by a JSON body whose "usedImages" array lists each
// image's base, size, arch, uuid, name and path. A body alone (no header
// line) is accepted too. Images without a base (the "absent" placeholder
// entries) are returned with Start 0 and End 0 so that the indices frames
// use into usedImages stay valid; NewIndex would treat them as starting at
// 0, so filter them before indexing if that matters.
func ParseIPS(data []byte) ([]Module, error) {
	const sec = "ips"
	body := data
	bodyOff := 0
	// The header is a complete JSON object on the first line.
	if nl := bytes.IndexByte(data, '\n'); nl >= 0 && json.Valid(bytes.TrimSpace(data[:nl])) &&
		len(bytes.TrimSpace(data[nl+1:])) > 0 {
		body, bodyOff = data[nl+1:], nl+1
	}
	var doc struct {
		UsedImages []ipsImage `json:"usedImages"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		off := uint64(bodyOff)
		if se, ok := err.(*json.SyntaxError); ok {
			off += uint64(max(se.Offset, 0))
		}
		return nil, buf.Errorf(pkg, sec, off, ErrFormat, "%v", err)
	}
	mods := make([]Module, 0, len(doc.UsedImages))
	for _, im := range doc.UsedImages {
		m := Module{Name: im.Name, Path: im.Path, UUID: im.UUID, Arch: im.Arch}
		if im.Base != nil {
			m.Start = *im.Base
			if im.Size != 0 && m.Start+im.Size > m.Start {
				m.End = m.Start + im.Size
			}
		}
		if m.Name == "" && m.Path != "" {
			m.Name = path.Base(m.Path)
		}
		mods = append(mods, m)
	}
	return mods, nil
}
