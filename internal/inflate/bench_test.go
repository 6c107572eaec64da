package inflate

import (
	"bytes"
	"compress/zlib"
	"io"
	"os"
	"sort"
	"testing"
)

// rgwPath is a 143 MB zlib stream, the .debug_info of Debian's
// libradosgw (314 MB inflated), cut from its debug file (build ID
// 4a575717325cb5e3582c4eab9ac943bf54b76157) after the section's 24-byte
// Elf64_Chdr:
//
//	d = open(path, 'rb').read(); off, size = 0x13bc0, 0x8895dd1
//	open('/tmp/rgw-info.zlib', 'wb').write(d[off+24:off+size])
//
// The benchmark inflates its first 64 MiB; it skips inputs that are
// missing.
const (
	rgwPath = "/tmp/rgw-info.zlib"
	rgwOut  = 64 << 20
)

// BenchmarkInflate compares compress/zlib with this package on the same
// inputs in the same run; run with -count to interleave. MB/s and
// MB/cpu-s (per second of process CPU time, which a busy machine does not
// inflate) are of output.
func BenchmarkInflate(b *testing.B) {
	type input struct {
		name string
		z    []byte
		size int // output bytes to produce
	}
	var inputs []input
	if z, err := os.ReadFile(rgwPath); err == nil {
		inputs = append(inputs, input{"rgw-info-64M", z, rgwOut})
	}
	if _, err := os.Stat("/tmp/symbolize-bench/go"); err == nil {
		secs := goSections(b)
		names := make([]string, 0, len(secs))
		for n := range secs {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			want, err := refZlib(secs[n])
			if err != nil || len(want) < 1<<20 {
				continue
			}
			inputs = append(inputs, input{"go" + n, secs[n], len(want)})
		}
	}
	for _, in := range inputs {
		out := make([]byte, in.size)
		b.Run(in.name+"/stdlib", func(b *testing.B) {
			b.SetBytes(int64(in.size))
			b.ReportAllocs()
			defer reportCPU(b, in.size)()
			for b.Loop() {
				r, err := zlib.NewReader(bytes.NewReader(in.z))
				if err != nil {
					b.Fatal(err)
				}
				if _, err := io.ReadFull(r, out); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(in.name+"/inflate", func(b *testing.B) {
			b.SetBytes(int64(in.size))
			b.ReportAllocs()
			defer reportCPU(b, in.size)()
			for b.Loop() {
				d, err := NewZlib(in.z)
				if err != nil {
					b.Fatal(err)
				}
				if m, err := d.DecodeTo(out, 0); m != len(out) || (err != nil && err != io.EOF) {
					b.Fatal(m, err)
				}
			}
		})
		b.Run(in.name+"/inflate-read", func(b *testing.B) {
			b.SetBytes(int64(in.size))
			b.ReportAllocs()
			defer reportCPU(b, in.size)()
			for b.Loop() {
				d, err := NewZlib(in.z)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := io.ReadFull(d, out); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// reportCPU starts the CPU clock; the function it returns reports
// MB/cpu-s for b.N passes of size bytes each.
func reportCPU(b *testing.B, size int) func() {
	start := cpuTime()
	return func() {
		if s := (cpuTime() - start).Seconds(); s > 0 {
			b.ReportMetric(float64(size)*float64(b.N)/1e6/s, "MB/cpu-s")
		}
	}
}
