package macho

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"testing"
)

// zdebugImage builds a 64-bit image whose __DWARF segment holds one
// section __zdebug_info with the given contents.
func zdebugImage(contents []byte) []byte {
	m := &image{bo: binary.LittleEndian, is64: true, cpu: CPUArm64}
	// The section's offset is known once the command is laid out: the
	// segment command is the only one, so its size is fixed.
	m.segment("__DWARF", 0, uint64(len(contents)), [4]any{"__zdebug_info", uint64(0), uint64(len(contents)), uint32(0)})
	off := m.tailOff()
	m.cmds = nil
	m.segment("__DWARF", 0, uint64(len(contents)), [4]any{"__zdebug_info", uint64(0), uint64(len(contents)), off})
	m.tail = contents
	return m.bytes()
}

// zdebugSection is what Go's linker writes for data: "ZLIB", the size
// (declared, big-endian), the zlib stream.
func zdebugSection(data []byte, declared uint64) []byte {
	var b bytes.Buffer
	b.WriteString("ZLIB")
	binary.Write(&b, binary.BigEndian, declared)
	w := zlib.NewWriter(&b)
	w.Write(data)
	w.Close()
	return b.Bytes()
}

func TestCompressedDWARF(t *testing.T) {
	data := bytes.Repeat([]byte("0123456789abcdef"), 64<<10) // 1 MiB, inflates in several chunks
	f, err := Parse(zdebugImage(zdebugSection(data, uint64(len(data)))))
	if err != nil {
		t.Fatal(err)
	}
	z, ok, err := f.CompressedDWARF(".debug_info")
	if !ok || err != nil {
		t.Fatalf("CompressedDWARF: %v %v", ok, err)
	}
	if z.Size != uint64(len(data)) {
		t.Fatalf("Size %d, want %d", z.Size, len(data))
	}
	p, err := z.Prefix(100)
	if err != nil || len(p) < 100 || !bytes.Equal(p, data[:len(p)]) {
		t.Fatalf("Prefix(100): %d bytes, %v", len(p), err)
	}
	if len(z.out) >= len(data) {
		t.Errorf("Prefix(100) inflated all %d bytes", len(z.out))
	}
	if z2, _, _ := f.CompressedDWARF("__debug_info"); z2 != z {
		t.Error("a second call made another ZSection")
	}
	all, ok, err := f.DWARF(".debug_info")
	if !ok || err != nil || !bytes.Equal(all, data) {
		t.Fatalf("DWARF: %d bytes, %v, %v", len(all), ok, err)
	}
	if _, ok, _ := f.CompressedDWARF(".debug_line"); ok {
		t.Error("found a __zdebug_line that is not there")
	}
}

func TestCompressedDWARFBad(t *testing.T) {
	data := bytes.Repeat([]byte("symbolize "), 1000)
	good := zdebugSection(data, uint64(len(data)))
	flip := append([]byte(nil), good...)
	flip[len(flip)-1] ^= 0xff // the Adler-32 checksum
	for _, c := range []struct {
		name    string
		section []byte
		want    error
	}{
		{"magic", append([]byte("ZLIX"), good[4:]...), ErrFormat},
		{"short header", []byte("ZLIB\x00\x00"), ErrFormat},
		{"size beyond any ratio", zdebugSection(data, 1<<50), ErrLimit},
		{"stream shorter than declared", zdebugSection(data, uint64(len(data))+1), ErrTruncated},
		{"stream longer than declared", zdebugSection(data, uint64(len(data))-1), ErrFormat},
		{"truncated stream", good[:len(good)-20], ErrTruncated},
		{"checksum", flip, ErrFormat},
	} {
		t.Run(c.name, func(t *testing.T) {
			f, err := Parse(zdebugImage(c.section))
			if err != nil {
				t.Fatal(err)
			}
			_, _, err = f.DWARF(".debug_info")
			var de *DecodeError
			if !errors.Is(err, c.want) || !errors.As(err, &de) || de.Section != "__DWARF,__zdebug_info" {
				t.Fatalf("got %v, want a *DecodeError for __DWARF,__zdebug_info wrapping %v", err, c.want)
			}
			// The error is kept: a second call gives it again, with no work.
			if _, _, err2 := f.DWARF(".debug_info"); err2 == nil || err2.Error() != err.Error() {
				t.Errorf("second call: %v", err2)
			}
		})
	}
}

// FuzzZSection: any section contents and prefix length give bytes or a
// *DecodeError, never a panic, and never more bytes than declared.
func FuzzZSection(f *testing.F) {
	data := []byte("line table bytes, line table bytes, line table bytes")
	f.Add(zdebugSection(data, uint64(len(data))), uint64(10))
	f.Add(zdebugSection(data, 5), uint64(100))
	f.Add([]byte("ZLIB\x00\x00\x00\x00\x00\x00\x00\x08x\x9c"), uint64(8))
	f.Fuzz(func(t *testing.T, section []byte, n uint64) {
		img, err := Parse(zdebugImage(section))
		if err != nil {
			return
		}
		z, ok, err := img.CompressedDWARF(".debug_info")
		if !ok || err != nil {
			return
		}
		p, err := z.Prefix(n)
		if err != nil {
			var de *DecodeError
			if !errors.As(err, &de) {
				t.Fatalf("error %v is not a *DecodeError", err)
			}
			return
		}
		if uint64(len(p)) > z.Size || uint64(len(p)) < min(n, z.Size) {
			t.Fatalf("Prefix(%d) gave %d bytes of %d", n, len(p), z.Size)
		}
	})
}
