package symbolize

import (
	"crypto/sha256"
	"debug/elf"
	"encoding/hex"
	"io"

	"github.com/symbolize-go/symbolize/locate"
)

// Identity records what a Binary trusted: the module's format,
// architecture and build identity, and every file that contributed to its
// answers so far, with how it was found and its SHA-256. A profiler can
// store it beside a symbolized profile. Its JSON form is what
// examples/addr2line --identity prints.
type Identity struct {
	Format  string         `json:"format"` // "ELF" or "Mach-O"
	Arch    string         `json:"arch"`   // "x86_64", "aarch64", "arm64", ...
	BuildID string         `json:"build_id,omitempty"`
	UUID    string         `json:"uuid,omitempty"` // of the selected Mach-O slice
	Files   []IdentityFile `json:"files"`
}

// IdentityFile is one file that contributed to a Binary's answers.
type IdentityFile struct {
	// Role is what the file is to the module: "binary", "debug file",
	// "dSYM", "object" (a Mach-O debug-map object), and for split DWARF
	// and dwz "dwo", "dwp", "supplementary file".
	Role string `json:"role"`
	Path string `json:"path"`
	// How says how it was found: "given" for the binary itself, else a
	// locate.How ("build-id folder", "debuglink", "dSYM bundle",
	// "debuginfod", ...).
	How     string `json:"how"`
	BuildID string `json:"build_id,omitempty"`
	UUID    string `json:"uuid,omitempty"`
	SHA256  string `json:"sha256"`
}

// contribution is a file registered as contributing to the answers; write
// streams its bytes for the hash.
type contribution struct {
	file  IdentityFile // SHA256 filled in by Identity
	write func(io.Writer) (int64, error)
}

// contribute records a file that answers for b. Safe for concurrent use:
// files such as debug-map objects are opened by lookups.
func (b *Binary) contribute(role, path string, how locate.How, buildID, uuid []byte, write func(io.Writer) (int64, error)) {
	f := IdentityFile{Role: role, Path: path, How: how.String()}
	if how == 0 {
		f.How = "given"
	}
	if len(buildID) > 0 {
		f.BuildID = hex.EncodeToString(buildID)
	}
	if len(uuid) > 0 {
		f.UUID = formatUUID(uuid)
	}
	b.contribMu.Lock()
	b.contribs = append(b.contribs, contribution{f, write})
	b.contribMu.Unlock()
}

// Identity returns the identity record of b: its own identity and each file
// opened so far (Mach-O debug-map objects are opened by the first lookup
// that needs them; call Identity after symbolizing to record exactly the
// files that answered). It reads every file once to hash it.
func (b *Binary) Identity() (Identity, error) {
	if b.closed.Load() {
		return Identity{}, ErrClosed
	}
	id := b.src.identity()
	b.contribMu.Lock()
	cs := append([]contribution(nil), b.contribs...)
	b.contribMu.Unlock()
	id.Files = make([]IdentityFile, 0, len(cs))
	for _, c := range cs {
		h := sha256.New()
		if _, err := c.write(h); err != nil {
			return Identity{}, err
		}
		c.file.SHA256 = hex.EncodeToString(h.Sum(nil))
		id.Files = append(id.Files, c.file)
	}
	return id, nil
}

// formatUUID prints a UUID as Apple's tools do, upper case with dashes.
func formatUUID(u []byte) string {
	const digits = "0123456789ABCDEF"
	out := make([]byte, 0, 36)
	for i, c := range u {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			out = append(out, '-')
		}
		out = append(out, digits[c>>4], digits[c&15])
	}
	return string(out)
}

// elfArch names an ELF machine as LLVM's triples do.
func elfArch(m elf.Machine, big bool) string {
	switch m {
	case elf.EM_X86_64:
		return "x86_64"
	case elf.EM_386:
		return "i386"
	case elf.EM_AARCH64:
		return "aarch64"
	case elf.EM_ARM:
		return "arm"
	case elf.EM_PPC64:
		if big {
			return "ppc64"
		}
		return "ppc64le"
	case elf.EM_PPC:
		return "ppc"
	case elf.EM_RISCV:
		return "riscv"
	case elf.EM_S390:
		return "s390x"
	case elf.EM_MIPS:
		if big {
			return "mips"
		}
		return "mipsel"
	}
	return m.String()
}

// identity is the ELF module's own identity.
func (e *elfSource) identity() Identity {
	id := Identity{Format: "ELF", Arch: elfArch(e.bin.Machine, e.bin.Data == elf.ELFDATA2MSB)}
	if bid, ok, err := e.bin.BuildID(); ok && err == nil {
		id.BuildID = hex.EncodeToString(bid)
	}
	return id
}

// identity is the Mach-O slice's own identity.
func (m *machoSource) identity() Identity {
	id := Identity{Format: "Mach-O", Arch: m.bin.Arch()}
	if m.bin.HasUUID {
		id.UUID = formatUUID(m.bin.UUID[:])
	}
	return id
}

// writeBytes returns a write function for Identity over data.
func writeBytes(data []byte) func(io.Writer) (int64, error) {
	return func(w io.Writer) (int64, error) {
		n, err := w.Write(data)
		return int64(n), err
	}
}

// writeLocated returns a write function for Identity over a located file.
func writeLocated(lf *locate.File) func(io.Writer) (int64, error) {
	return func(w io.Writer) (int64, error) {
		if lf.Data != nil {
			n, err := w.Write(lf.Data)
			return int64(n), err
		}
		return io.Copy(w, io.NewSectionReader(lf.ReaderAt, 0, lf.Size))
	}
}
