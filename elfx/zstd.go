package elfx

import (
	"debug/elf"
	"encoding/binary"
	"io"

	"github.com/symbolize-go/symbolize/internal/buf"
)

// The standard library's zstd decoder (internal/zstd) is reachable only
// through debug/elf's Section.Open, and the module may add no dependency.
// zstdReader therefore presents the compressed payload to debug/elf as the
// one section of a minimal synthetic ELF64 file: a fixed header, two
// section headers and a compression header, followed by the payload read
// straight from the original file. debug/elf never sees the rest of the
// real file, so its view of that file cannot fail us.
const (
	synShoff   = 64              // section headers follow the ELF header
	synChdrOff = 64 + 2*64       // compression header follows them
	synDataOff = synChdrOff + 24 // payload follows the compression header
)

func zstdReader(name string, ra io.ReaderAt, off, n, size uint64) (io.Reader, error) {
	h := make([]byte, synDataOff)
	le := binary.LittleEndian
	copy(h, elf.ELFMAG)
	h[elf.EI_CLASS] = byte(elf.ELFCLASS64)
	h[elf.EI_DATA] = byte(elf.ELFDATA2LSB)
	h[elf.EI_VERSION] = byte(elf.EV_CURRENT)
	le.PutUint16(h[16:], uint16(elf.ET_REL))
	le.PutUint32(h[20:], uint32(elf.EV_CURRENT))
	le.PutUint64(h[40:], synShoff) // e_shoff
	le.PutUint16(h[52:], 64)       // e_ehsize
	le.PutUint16(h[58:], 64)       // e_shentsize
	le.PutUint16(h[60:], 2)        // e_shnum; e_shstrndx stays 0: no names
	sh := h[synShoff+64:]
	le.PutUint32(sh[4:], uint32(elf.SHT_PROGBITS))
	le.PutUint64(sh[8:], uint64(elf.SHF_COMPRESSED))
	le.PutUint64(sh[24:], synChdrOff) // sh_offset
	le.PutUint64(sh[32:], 24+n)       // sh_size
	le.PutUint64(sh[48:], 1)          // sh_addralign
	ch := h[synChdrOff:]
	le.PutUint32(ch[0:], uint32(elf.COMPRESS_ZSTD))
	le.PutUint64(ch[8:], size)
	le.PutUint64(ch[16:], 1)

	ef, err := elf.NewFile(&synthetic{head: h, body: io.NewSectionReader(ra, int64(off), int64(n))})
	if err != nil || len(ef.Sections) != 2 {
		return nil, buf.Errorf(pkg, name, 0, ErrFormat, "internal: synthetic ELF rejected: %v", err)
	}
	return ef.Sections[1].Open(), nil
}

// synthetic is head followed by body, as one io.ReaderAt.
type synthetic struct {
	head []byte
	body *io.SectionReader
}

func (s *synthetic) ReadAt(p []byte, off int64) (int, error) {
	n := 0
	if off < int64(len(s.head)) {
		n = copy(p, s.head[off:])
		if n == len(p) {
			return n, nil
		}
		off += int64(n)
	}
	m, err := s.body.ReadAt(p[n:], off-int64(len(s.head)))
	return n + m, err
}
