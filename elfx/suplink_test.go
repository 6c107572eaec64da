package elfx

import (
	"bytes"
	"debug/elf"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestParseAltLink(t *testing.T) {
	id := []byte{0xa9, 0x9b, 0x01, 0x01, 0xd8}
	for _, tc := range []struct {
		name string
		data []byte
		want string
		err  error
	}{
		{"ok", append([]byte("common.debug\x00"), id...), "common.debug", nil},
		{"absolute", append([]byte("/usr/lib/debug/.dwz/x86_64-linux-gnu/liblua5.4-dev.debug\x00"), id...), "/usr/lib/debug/.dwz/x86_64-linux-gnu/liblua5.4-dev.debug", nil},
		{"empty", nil, "", ErrTruncated},
		{"unterminated", []byte("common.debug"), "", ErrTruncated},
		{"no name", append([]byte{0}, id...), "", ErrFormat},
		{"no build ID", []byte("common.debug\x00"), "", ErrTruncated},
	} {
		t.Run(tc.name, func(t *testing.T) {
			name, got, err := parseAltLink(tc.data)
			if !errors.Is(err, tc.err) {
				t.Fatalf("err = %v, want %v", err, tc.err)
			}
			var de *DecodeError
			if err != nil && (!errors.As(err, &de) || de.Section != ".gnu_debugaltlink") {
				t.Errorf("err = %#v, want a *DecodeError in .gnu_debugaltlink", err)
			}
			if err == nil && (name != tc.want || !bytes.Equal(got, id)) {
				t.Errorf("= %q %x, want %q %x", name, got, tc.want, id)
			}
		})
	}
}

func TestParseDebugSup(t *testing.T) {
	sum := bytes.Repeat([]byte{0xb6}, 20)
	sup := func(big bool, version uint16, flag byte, name string, n byte, sum []byte) []byte {
		b := []byte{byte(version), byte(version >> 8)}
		if big {
			b[0], b[1] = b[1], b[0]
		}
		b = append(b, flag)
		b = append(b, name...)
		b = append(b, 0, n)
		return append(b, sum...)
	}
	for _, tc := range []struct {
		name string
		data []byte
		big  bool
		want DebugSup
		err  error
	}{
		{"referring file", sup(false, 5, 0, "cpp5.debug", 20, sum), false, DebugSup{Version: 5, Filename: "cpp5.debug", Checksum: sum}, nil},
		{"big endian", sup(true, 5, 0, "cpp5.debug", 20, sum), true, DebugSup{Version: 5, Filename: "cpp5.debug", Checksum: sum}, nil},
		{"supplementary file", sup(false, 5, 1, "", 20, sum), false, DebugSup{Version: 5, IsSupplementary: true, Checksum: sum}, nil},
		{"trailing bytes", append(sup(false, 5, 0, "x", 20, sum), 7, 7), false, DebugSup{Version: 5, Filename: "x", Checksum: sum}, nil},
		{"version 4", sup(false, 4, 0, "x", 20, sum), false, DebugSup{}, ErrUnsupportedVersion},
		{"flag 2", sup(false, 5, 2, "x", 20, sum), false, DebugSup{}, ErrFormat},
		{"short checksum", sup(false, 5, 0, "x", 21, sum), false, DebugSup{}, ErrTruncated},
		{"huge checksum length", append(sup(false, 5, 0, "x", 0xff, nil), 0xff, 0xff, 0xff, 0xff, 0x0f), false, DebugSup{}, ErrTruncated},
		{"unterminated name", []byte{5, 0, 0, 'x'}, false, DebugSup{}, ErrTruncated},
		{"cut", []byte{5}, false, DebugSup{}, ErrTruncated},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseDebugSup(tc.data, tc.big)
			if !errors.Is(err, tc.err) {
				t.Fatalf("err = %v, want %v", err, tc.err)
			}
			if got.Version != tc.want.Version || got.IsSupplementary != tc.want.IsSupplementary ||
				got.Filename != tc.want.Filename || !bytes.Equal(got.Checksum, tc.want.Checksum) {
				t.Errorf("= %+v, want %+v", got, tc.want)
			}
		})
	}
}

// TestSupLinkSections: SupLink reads .debug_sup before .gnu_debugaltlink
// (as GDB), a supplementary file's own .debug_sup is no link, and SupID
// answers by the kind of link.
func TestSupLinkSections(t *testing.T) {
	order := (&telf{}).order()
	note := buildIDNote(order, []byte{1, 2, 3, 4})
	alt := append([]byte("alt.debug\x00"), 9, 9, 9)
	ref := append([]byte{5, 0, 0}, "sup.debug\x00\x02\x07\x07"...)
	self := []byte{5, 0, 1, 0, 2, 7, 7}
	mk := func(secs ...tsec) *File {
		t.Helper()
		te := &telf{is64: true, typ: elf.ET_DYN, secs: secs}
		f, err := NewBytes(te.bytes(), nil)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	f := mk(tsec{name: ".gnu_debugaltlink", typ: elf.SHT_PROGBITS, data: alt}, tsec{name: ".debug_sup", typ: elf.SHT_PROGBITS, data: ref})
	l, ok, err := f.SupLink()
	if err != nil || !ok || l.Section != ".debug_sup" || l.Name != "sup.debug" || !bytes.Equal(l.ID, []byte{7, 7}) {
		t.Errorf("both links: SupLink = %+v, %v, %v", l, ok, err)
	}
	f = mk(tsec{name: ".gnu_debugaltlink", typ: elf.SHT_PROGBITS, data: alt})
	if l, ok, err = f.SupLink(); err != nil || !ok || l.Section != ".gnu_debugaltlink" || l.Name != "alt.debug" || !bytes.Equal(l.ID, []byte{9, 9, 9}) {
		t.Errorf("alt link: SupLink = %+v, %v, %v", l, ok, err)
	}
	f = mk(tsec{name: ".debug_sup", typ: elf.SHT_PROGBITS, data: self}, tsec{name: ".note.gnu.build-id", typ: elf.SHT_NOTE, data: note, align: 4})
	if l, ok, err = f.SupLink(); err != nil || ok {
		t.Errorf("supplementary file: SupLink = %+v, %v, %v; want none", l, ok, err)
	}
	if id, ok, err := f.SupID(".debug_sup"); err != nil || !ok || !bytes.Equal(id, []byte{7, 7}) {
		t.Errorf("SupID(.debug_sup) = %x, %v, %v", id, ok, err)
	}
	if id, ok, err := f.SupID(".gnu_debugaltlink"); err != nil || !ok || !bytes.Equal(id, []byte{1, 2, 3, 4}) {
		t.Errorf("SupID(.gnu_debugaltlink) = %x, %v, %v", id, ok, err)
	}
	f = mk(tsec{name: ".debug_sup", typ: elf.SHT_PROGBITS, data: ref})
	if id, ok, err := f.SupID(".debug_sup"); err != nil || ok {
		t.Errorf("a referring file's SupID = %x, %v, %v; want none", id, ok, err)
	}
	f = mk(tsec{name: ".debug_sup", typ: elf.SHT_PROGBITS, data: []byte{5, 0, 0, 0, 0}})
	if _, _, err := f.SupLink(); !errors.Is(err, ErrFormat) {
		t.Errorf("empty .debug_sup link: err = %v, want ErrFormat", err)
	}
}

// TestSupLinkFixtures reads the links of the dwz fixtures (testdata/dwz).
func TestSupLinkFixtures(t *testing.T) {
	dir := filepath.Join("..", "testdata", "dwz")
	for _, tc := range []struct {
		file, section, name, sup string
	}{
		{"multi/cpp-gcc-O2.debug", ".gnu_debugaltlink", "cpp-common.debug", "multi/cpp-common.debug"},
		{"multi/c-gcc-O2-dwarf4.debug", ".gnu_debugaltlink", "c-common.debug", "multi/c-common.debug"},
		{"dwarf5/c-gcc-O2-dwarf5.debug", ".debug_sup", "c-common.debug", "dwarf5/c-common.debug"},
		{"dwarf5/libcalc-gcc-O2.so.debug", ".debug_sup", "c-common.debug", "dwarf5/c-common.debug"},
	} {
		f, err := Open(filepath.Join(dir, tc.file), nil)
		if os.IsNotExist(err) {
			t.Skipf("%s: not built", tc.file)
		}
		if err != nil {
			t.Fatal(err)
		}
		l, ok, err := f.SupLink()
		f.Close()
		if err != nil || !ok || l.Section != tc.section || l.Name != tc.name {
			t.Errorf("%s: SupLink = %+v, %v, %v", tc.file, l, ok, err)
			continue
		}
		s, err := Open(filepath.Join(dir, tc.sup), nil)
		if err != nil {
			t.Fatal(err)
		}
		id, ok, err := s.SupID(l.Section)
		if err != nil || !ok || !bytes.Equal(id, l.ID) {
			t.Errorf("%s: SupID = %x, %v, %v; want %x", tc.sup, id, ok, err, l.ID)
		}
		if _, ok, _ := s.SupLink(); ok {
			t.Errorf("%s: the supplementary file has a link of its own", tc.sup)
		}
		s.Close()
	}
}

// FuzzSupLink decodes arbitrary .gnu_debugaltlink and .debug_sup bodies:
// no input may panic, and what decodes must lie within the input.
func FuzzSupLink(f *testing.F) {
	f.Add(append([]byte("common.debug\x00"), bytes.Repeat([]byte{0xa9}, 20)...), false)
	f.Add(append([]byte{5, 0, 0}, "cpp-common.debug\x00\x14"+string(bytes.Repeat([]byte{0xb6}, 20))...), false)
	f.Add(append([]byte{0, 5, 1, 0, 0x14}, bytes.Repeat([]byte{0xb6}, 20)...), true)
	f.Fuzz(func(t *testing.T, data []byte, big bool) {
		if name, id, err := parseAltLink(data); err == nil && len(name)+1+len(id) != len(data) {
			t.Fatalf("alt link %q %x from %d bytes", name, id, len(data))
		}
		if ds, err := parseDebugSup(data, big); err == nil && 3+len(ds.Filename)+1+len(ds.Checksum) > len(data) {
			t.Fatalf(".debug_sup %+v from %d bytes", ds, len(data))
		}
	})
}
