package elfx

import (
	"debug/elf"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/symbolize-go/symbolize/internal/buf"
	"github.com/symbolize-go/symbolize/internal/inflate"
)

// Compression says how a section's bytes are stored in the file.
type Compression uint8

const (
	// CompressNone: the section's file bytes are its data.
	CompressNone Compression = iota
	// CompressZlib: SHF_COMPRESSED with ELFCOMPRESS_ZLIB [gABI 4
	// "Section Compression"]; gcc/clang -gz=zlib.
	CompressZlib
	// CompressZstd: SHF_COMPRESSED with ELFCOMPRESS_ZSTD; -gz=zstd.
	CompressZstd
	// CompressZdebug: the legacy GNU form, a section renamed .zdebug_*
	// holding "ZLIB", an 8-byte big-endian size and a zlib stream
	// (-gz=zlib-gnu, old binutils --compress-debug-sections).
	CompressZdebug
)

// String returns the gcc -gz spelling: none, zlib, zstd, zlib-gnu.
func (c Compression) String() string {
	switch c {
	case CompressNone:
		return "none"
	case CompressZlib:
		return "zlib"
	case CompressZstd:
		return "zstd"
	case CompressZdebug:
		return "zlib-gnu"
	}
	return "Compression(" + strconv.Itoa(int(c)) + ")"
}

// SectionHeader is a section header as the file states it [gABI 4
// "Sections"], widened to 64 bits.
type SectionHeader struct {
	Name      string
	Type      elf.SectionType
	Flags     elf.SectionFlag
	Addr      uint64
	Offset    uint64 // file offset of the (possibly compressed) bytes
	FileSize  uint64 // sh_size: bytes in the file
	Link      uint32
	Info      uint32
	Addralign uint64
	Entsize   uint64
}

// Section is one section of a File. Its exported fields never change after
// open. Data and Prefix are safe for concurrent use: the first caller
// decompresses (under a per-section mutex), later callers share the cached
// bytes.
type Section struct {
	SectionHeader
	Index       int         // index in the section header table
	Size        uint64      // size of the data: uncompressed size for compressed sections
	Compression Compression // how the bytes are stored

	f       *File
	hdrOff  uint64 // file offset of this section's header, for errors
	nameOff uint32 // sh_name
	// payload is the compressed stream's range in the file.
	payloadOff, payloadLen uint64
	// hdrErr is a problem with the header or compression header, found
	// at open but reported on first use so one bad section does not make
	// the rest of the file unreadable.
	hdrErr error

	mu     sync.Mutex
	out    []byte    // decompressed so far; its length is what is valid
	anon   bool      // out is outside the heap (File.alloc), from its start
	stream io.Reader // decompressor positioned after out; nil before start
	// dropped is how many bytes at the start of the payload are released
	// from the resident set (see File.dropPayload).
	dropped uint64
	done    atomic.Bool
	full    []byte // the whole data, once done
	err     error  // sticky error, once done
	// relocErr is the first relocation skipped (reloc.go), once done.
	relocErr  error
	relocOnce sync.Once
	relocAt   []relocAt // where relocations apply, for RelocationSection
}

// init classifies the section's storage and, for compressed sections,
// reads the compression header so Size is known at open.
func (s *Section) init(is64, big bool) {
	s.Size = s.FileSize
	if s.Type == elf.SHT_NOBITS || s.Type == elf.SHT_NULL {
		return
	}
	f := s.f
	if s.Offset > f.size || s.FileSize > f.size-s.Offset {
		s.hdrErr = buf.Errorf(pkg, s.Name, 0, ErrTruncated,
			"section bytes [%#x, +%#x) pass the end of the file (size %#x)", s.Offset, s.FileSize, f.size)
		return
	}
	switch {
	case s.Flags&elf.SHF_COMPRESSED != 0:
		if s.Flags&elf.SHF_ALLOC != 0 {
			// [gABI 4]: SHF_COMPRESSED cannot apply to SHF_ALLOC sections.
			s.hdrErr = buf.Errorf(pkg, s.Name, 0, ErrFormat, "SHF_COMPRESSED on an SHF_ALLOC section")
			return
		}
		chsize := uint64(chdr32)
		if is64 {
			chsize = chdr64
		}
		if s.FileSize < chsize {
			s.hdrErr = buf.Errorf(pkg, s.Name, 0, ErrTruncated, "%d bytes cannot hold a %d-byte compression header", s.FileSize, chsize)
			return
		}
		ch, err := f.bytesAt(s.Name, s.Offset, chsize)
		if err != nil {
			s.hdrErr = err
			return
		}
		r := buf.New(pkg, s.Name, ch, big)
		typ := elf.CompressionType(r.U32())
		if is64 {
			r.U32() // ch_reserved
			s.Size = r.U64()
		} else {
			s.Size = uint64(r.U32())
		}
		switch typ {
		case elf.COMPRESS_ZLIB:
			s.Compression = CompressZlib
		case elf.COMPRESS_ZSTD:
			s.Compression = CompressZstd
		default:
			s.hdrErr = buf.Errorf(pkg, s.Name, 0, ErrUnsupportedVersion, "compression type %d", uint32(typ))
			return
		}
		s.payloadOff, s.payloadLen = s.Offset+chsize, s.FileSize-chsize
	case strings.HasPrefix(s.Name, ".zdebug") && s.FileSize >= 12:
		h, err := f.bytesAt(s.Name, s.Offset, 12)
		if err != nil {
			s.hdrErr = err
			return
		}
		if string(h[:4]) != "ZLIB" {
			// binutils reads a .zdebug section without the magic as
			// stored plainly; so do we.
			return
		}
		s.Compression = CompressZdebug
		s.Size = binary.BigEndian.Uint64(h[4:])
		s.payloadOff, s.payloadLen = s.Offset+12, s.FileSize-12
	default:
		return
	}
	// A declared size far beyond what the stream could inflate to is a
	// lie or a bomb; refuse it before allocating anything.
	ratio := f.opts.maxRatio()
	limit := uint64(math.MaxUint64)
	if s.payloadLen <= (math.MaxUint64-64<<10)/ratio {
		limit = s.payloadLen*ratio + 64<<10
	}
	if s.Size > limit || s.Size > math.MaxInt {
		s.hdrErr = buf.Errorf(pkg, s.Name, 0, ErrLimit,
			"declared size %#x is out of proportion to %#x compressed bytes", s.Size, s.payloadLen)
	}
}

// HasData reports whether the section occupies bytes in the file (it is
// neither SHT_NOBITS nor the null section).
func (s *Section) HasData() bool {
	return s.Type != elf.SHT_NOBITS && s.Type != elf.SHT_NULL
}

// Data returns the section's whole data, decompressed. The first call on a
// compressed section inflates it (or what Prefix left), later calls return
// the cached bytes. A zlib section of 8 MiB or more that nothing was
// inflated of yet inflates on runtime.GOMAXPROCS cores, with the same
// result. For an uncompressed section of a mapped or in-memory
// file the result aliases the file and costs nothing; do not modify it.
// No section data of a mapped file, inflated or not, may be used after
// File.Close: inflated data is held outside the heap until then.
// An SHT_NOBITS section has no data in the file: Data returns an error.
// A debug section of an ET_REL file comes with its relocations applied
// (see Relocated and RelocationErr); the bytes they change are a copy.
func (s *Section) Data() ([]byte, error) {
	if s.done.Load() {
		return s.full, s.err
	}
	return s.Prefix(math.MaxUint64)
}

// Release says that the section's data [off, off+n) will not be read
// again. Where it was inflated into memory outside the Go heap (a
// compressed section of a mapped file), the whole pages within that range
// go back to the system at once and read as zeros from then on; elsewhere
// (file bytes, heap memory) nothing happens. Only a section inflated whole
// releases anything (until then its last bytes are the decoder's window),
// and nothing after File.Close. The caller must not read the range again,
// through any slice it holds either.
func (s *Section) Release(off, n uint64) {
	if !s.done.Load() || s.Relocated() {
		return
	}
	s.mu.Lock()
	full, anon := s.full, s.anon && s.err == nil
	s.mu.Unlock()
	if anon {
		s.f.release(full, off, n)
	}
}

// Again returns a Section of the same header whose data is decompressed
// anew, whole (on all cores, as Data does), into memory of its own: for a
// caller that gave parts of Data's back (Release) and must read them once
// more. Its Data and Release work as s's; keep it rather than call Again
// twice, each call costing as much as the first inflate. A section that
// Release gives nothing back of (stored uncompressed, relocated) returns
// s itself.
func (s *Section) Again() (*Section, error) {
	if s.Compression == CompressNone || s.Relocated() {
		_, err := s.Data()
		return s, err
	}
	again := &Section{SectionHeader: s.SectionHeader, Index: s.Index, Size: s.Size, Compression: s.Compression,
		f: s.f, hdrOff: s.hdrOff, nameOff: s.nameOff, payloadOff: s.payloadOff, payloadLen: s.payloadLen, hdrErr: s.hdrErr}
	_, err := again.Data()
	return again, err
}

// Prefix returns at least the first n bytes of the section's data (all of
// it if n >= Size), inflating a compressed section only as far as needed
// and keeping the decompressor to continue on the next call. The result
// has the same aliasing rules as Data, and its capacity is clipped so
// appending to it cannot clobber the cache.
func (s *Section) Prefix(n uint64) ([]byte, error) {
	if s.done.Load() {
		return s.full, s.err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.done.Load() {
		return s.full, s.err
	}
	if s.hdrErr != nil {
		s.finish(nil, s.hdrErr)
		return nil, s.err
	}
	if !s.HasData() {
		s.finish(nil, buf.Errorf(pkg, s.Name, 0, ErrFormat, "section of type %v has no data in the file", s.Type))
		return nil, s.err
	}
	if s.Compression == CompressNone {
		b, err := s.f.bytesAt(s.Name, s.Offset, s.FileSize)
		s.finish(b, err)
		return s.full, s.err
	}
	want := min(n, s.Size)
	if s.Relocated() {
		want = s.Size // relocations apply to the whole (reloc.go)
	}
	var err error
	if want == s.Size && s.parallelOK() {
		err = s.inflateParallel()
	} else {
		err = s.inflate(want)
	}
	if err != nil {
		s.finish(nil, err)
		return nil, err
	}
	if uint64(len(s.out)) == s.Size {
		if err := s.checkEnd(); err != nil {
			s.finish(nil, err)
			return nil, err
		}
		s.finish(s.out, nil)
		return s.full, nil
	}
	return s.out[:len(s.out):len(s.out)], nil
}

// finish caches the final result and drops the decompressor.
func (s *Section) finish(b []byte, err error) {
	if err != nil {
		b = nil
	} else {
		// Debug sections of ET_REL files (reloc.go); b is ours to
		// write unless it aliases the file.
		b = s.relocate(b, s.Compression != CompressNone || s.f.data == nil)
	}
	s.full, s.err = b[:len(b):len(b)], err
	s.out, s.stream = nil, nil
	s.done.Store(true)
}

// dropStep is how many bytes the zlib decoder produces, and consumes,
// between releases of the compressed bytes it has read.
const dropStep = 4 << 20

// maxStalls bounds consecutive empty reads from a decompressor, so a
// reader that neither progresses nor fails cannot hang us.
const maxStalls = 100

// inflate decompresses until out holds want bytes (want <= Size).
func (s *Section) inflate(want uint64) error {
	if s.stream == nil {
		r, err := s.openStream()
		if err != nil {
			return err
		}
		s.stream = r
	}
	// A prefix is inflated in chunks of what is still wanted plus a
	// little, not to the end of the buffer, so Prefix(64) of a huge
	// section costs one chunk.
	const chunk = 64 << 10
	stalls := 0
	for uint64(len(s.out)) < want {
		if len(s.out) == cap(s.out) {
			// Trust the declared size only as far as 16x the
			// compressed size: real DWARF inflates by less, so this
			// is usually the only allocation (even for a short
			// prefix: pages never written are never touched, so
			// they cost no memory, and growing later would copy),
			// while a lying header costs at most 16x its stream.
			c := max(uint64(2*cap(s.out)), chunk, min(s.Size, 16*s.payloadLen))
			c = min(c, s.Size)
			nb, anon := s.f.alloc(c)
			nb = nb[:len(s.out)]
			copy(nb, s.out)
			s.out, s.anon = nb, anon
		}
		end := uint64(len(s.out)) + max(want-uint64(len(s.out)), chunk)
		end = min(end, uint64(cap(s.out)))
		var m int
		var err error
		if d, ok := s.stream.(*inflate.Decoder); ok {
			// zlib inflates in place: out's earlier bytes are the window.
			// A step at a time, so that the mapped pages of the
			// compressed bytes behind the decoder leave the resident
			// set as it goes: otherwise a large section's compressed
			// and inflated bytes would both stay resident.
			end = min(end, uint64(len(s.out))+dropStep)
			m, err = d.DecodeTo(s.out[:end], len(s.out))
			if done := uint64(d.Consumed()); done >= s.dropped+dropStep || err != nil {
				s.f.dropPayload(s.payloadOff+s.dropped, done-s.dropped)
				s.dropped = done
			}
		} else {
			m, err = s.stream.Read(s.out[len(s.out):end])
		}
		s.out = s.out[:len(s.out)+m]
		switch {
		case err == io.EOF:
			if uint64(len(s.out)) < s.Size {
				return s.truncated()
			}
		case err != nil:
			return s.streamErr(err)
		case m == 0:
			if stalls++; stalls > maxStalls {
				return buf.Errorf(pkg, s.Name, uint64(len(s.out)), ErrFormat, "%v decompressor makes no progress", s.Compression)
			}
			continue
		}
		stalls = 0
	}
	return nil
}

// parallelMin is the smallest declared size inflated on several cores
// when a whole section is asked for at once.
const parallelMin = 8 << 20

// parallelOK reports whether the whole section can be inflated on all
// cores (runtime.GOMAXPROCS): a zlib stream, not started, large enough,
// and declaring no more than the serial path would trust (16x its
// stream, see inflate).
func (s *Section) parallelOK() bool {
	return (s.Compression == CompressZlib || s.Compression == CompressZdebug) && s.stream == nil &&
		s.Size >= parallelMin && s.Size <= 16*s.payloadLen && runtime.GOMAXPROCS(0) > 1
}

// inflateParallel inflates the whole section on all cores, with the
// serial decoder's result: the same bytes, the same errors.
func (s *Section) inflateParallel() error {
	r, err := s.openStream()
	if err != nil {
		return err
	}
	d := r.(*inflate.Decoder)
	s.stream = d
	out, anon := s.f.alloc(s.Size)
	s.anon = anon
	// The compressed pages go as they are inflated, as on the serial
	// path: otherwise a large section's compressed and inflated bytes
	// are both resident at the end of the inflate.
	d.SetProgress(func(done int) {
		if uint64(done) >= s.dropped+dropStep {
			s.f.dropPayload(s.payloadOff+s.dropped, uint64(done)-s.dropped)
			s.dropped = uint64(done)
		}
	})
	m, err := d.DecodeParallel(out, 0)
	s.out = out[:m]
	s.f.dropPayload(s.payloadOff, uint64(d.Consumed()))
	s.dropped = uint64(d.Consumed())
	switch {
	case err == io.EOF:
		if uint64(m) < s.Size {
			return s.truncated()
		}
	case err != nil:
		return s.streamErr(err)
	}
	return nil
}

// truncated is the error of a stream that ended at len(s.out), short of
// the declared size.
func (s *Section) truncated() error {
	return buf.Errorf(pkg, s.Name, uint64(len(s.out)), ErrTruncated,
		"%v stream ends after %#x bytes; the header declares %#x", s.Compression, len(s.out), s.Size)
}

// checkEnd reads the stream to its end once the declared size is reached:
// that verifies the trailing checksum, and a stream that would produce
// more than declared is an error rather than silently cut.
func (s *Section) checkEnd() error {
	if d, ok := s.stream.(*inflate.Decoder); ok {
		// With no room left, DecodeTo reads on to the end of the stream
		// (and its checksum) and says whether more output would follow.
		_, err := d.DecodeTo(s.out, len(s.out))
		switch {
		case err == io.EOF:
			return nil
		case err != nil:
			return s.streamErr(err)
		}
		return buf.Errorf(pkg, s.Name, s.Size, ErrFormat,
			"%v stream is longer than the declared size %#x", s.Compression, s.Size)
	}
	var probe [1]byte
	for range maxStalls {
		m, err := s.stream.Read(probe[:])
		if m > 0 {
			return buf.Errorf(pkg, s.Name, s.Size, ErrFormat,
				"%v stream is longer than the declared size %#x", s.Compression, s.Size)
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return s.streamErr(err)
		}
	}
	return buf.Errorf(pkg, s.Name, s.Size, ErrFormat, "%v decompressor makes no progress", s.Compression)
}

// streamErr turns a decompressor's error into a DecodeError at the
// decompressed offset reached.
func (s *Section) streamErr(err error) error {
	var de *DecodeError
	if errors.As(err, &de) {
		return err
	}
	sentinel := ErrFormat
	if errors.Is(err, io.ErrUnexpectedEOF) {
		sentinel = ErrTruncated
	}
	return buf.Errorf(pkg, s.Name, uint64(len(s.out)), sentinel, "%v: %v", s.Compression, err)
}

// openStream starts a decompressor over the compressed payload.
func (s *Section) openStream() (io.Reader, error) {
	switch s.Compression {
	case CompressZlib, CompressZdebug:
		// internal/inflate wants the whole stream in memory: a mapped
		// file's bytes cost nothing, otherwise the compressed bytes
		// are read once (less than the output buffer they fill).
		src, err := s.f.bytesAt(s.Name, s.payloadOff, s.payloadLen)
		if err != nil {
			return nil, err
		}
		d, err := inflate.NewZlib(src)
		if err != nil {
			return nil, s.streamErr(err)
		}
		return d, nil
	case CompressZstd:
		return zstdReader(s.Name, s.f.ra, s.payloadOff, s.payloadLen, s.Size)
	}
	return nil, buf.Errorf(pkg, s.Name, 0, ErrFormat, "no decompressor for %v", s.Compression)
}
