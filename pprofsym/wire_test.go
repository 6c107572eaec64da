package pprofsym

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/pprof/profile"
)

// profileText is what Symbolize decides of a profile, one line per
// mapping, location and function, for comparing the two paths.
func profileText(p *profile.Profile) string {
	var b strings.Builder
	for _, m := range p.Mapping {
		fmt.Fprintf(&b, "mapping %d %#x-%#x@%#x %q %q %v %v %v %v\n", m.ID, m.Start, m.Limit, m.Offset, m.File, m.BuildID,
			m.HasFunctions, m.HasFilenames, m.HasLineNumbers, m.HasInlineFrames)
	}
	for _, l := range p.Location {
		mid := uint64(0)
		if l.Mapping != nil {
			mid = l.Mapping.ID
		}
		fmt.Fprintf(&b, "location %d mapping %d %#x folded %v: %q\n", l.ID, mid, l.Address, l.IsFolded, lineText(l))
	}
	for _, f := range p.Function {
		fmt.Fprintf(&b, "function %d %q %q %q %d\n", f.ID, f.Name, f.SystemName, f.Filename, f.StartLine)
	}
	fmt.Fprintf(&b, "%d samples\n", len(p.Sample))
	return b.String()
}

// checkSameAsParsed runs SymbolizeData on data and Symbolize on data
// parsed, and checks that the results agree. It returns false when
// profile.ParseData rejects data.
func checkSameAsParsed(t *testing.T, data []byte, s Symbolizer) bool {
	t.Helper()
	p, err := profile.ParseData(data)
	if err != nil {
		return false
	}
	want, err := Symbolize(context.Background(), p, s, nil)
	if err != nil {
		t.Fatal(err)
	}
	out, got, err := SymbolizeData(context.Background(), data, s, nil)
	if err != nil {
		t.Fatalf("SymbolizeData: %v (profile.ParseData accepts the input)", err)
	}
	q, err := profile.ParseData(out)
	if err != nil {
		t.Fatalf("SymbolizeData's output does not parse: %v", err)
	}
	if d := cmp.Diff(profileText(p), profileText(q)); d != "" {
		t.Errorf("SymbolizeData's output (-Symbolize +SymbolizeData):\n%s", d)
	}
	if d := cmp.Diff(want.Err(), got.Err(), cmp.Comparer(func(a, b error) bool { return fmt.Sprint(a) == fmt.Sprint(b) })); d != "" {
		t.Errorf("errors (-Symbolize +SymbolizeData):\n%s", d)
	}
	if want.Locations != got.Locations || want.Functions != got.Functions || want.Addresses != got.Addresses {
		t.Errorf("report %+v, Symbolize's %+v", got, want)
	}
	return true
}

func TestSymbolizeData(t *testing.T) {
	t.Run("synthetic", func(t *testing.T) {
		p := testProfile()
		p.Comments = []string{"kept"}
		p.Sample[0].Label = map[string][]string{"thread": {"main"}}
		p.Sample[1].NumLabel = map[string][]int64{"bytes": {64}}
		var buf bytes.Buffer
		if err := p.Write(&buf); err != nil {
			t.Fatal(err)
		}
		if !checkSameAsParsed(t, buf.Bytes(), testSymbolizer()) {
			t.Fatal("profile.ParseData rejects the test profile")
		}
		out, _, err := SymbolizeData(context.Background(), buf.Bytes(), testSymbolizer(), nil)
		if err != nil {
			t.Fatal(err)
		}
		q, err := profile.ParseData(out)
		if err != nil {
			t.Fatal(err)
		}
		if q.Comments[0] != "kept" || q.Sample[0].Label["thread"][0] != "main" || q.Sample[1].NumLabel["bytes"][0] != 64 {
			t.Errorf("comments or labels lost: %q %v %v", q.Comments, q.Sample[0].Label, q.Sample[1].NumLabel)
		}
	})
	t.Run("errors", func(t *testing.T) {
		p := testProfile()
		p.Mapping = append(p.Mapping, &profile.Mapping{ID: 3, Start: 0x7ff000, Limit: 0x7ff100, File: "[vdso]"})
		p.Location = append(p.Location, &profile.Location{ID: 7, Mapping: p.Mapping[2], Address: 0x7ff010},
			&profile.Location{ID: 8, Address: 0x10})
		var buf bytes.Buffer
		if err := p.WriteUncompressed(&buf); err != nil {
			t.Fatal(err)
		}
		checkSameAsParsed(t, buf.Bytes(), testSymbolizer())
	})
	seeds, _ := filepath.Glob("testdata/*.pb.gz")
	for _, f := range seeds {
		t.Run(filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if !checkSameAsParsed(t, data, hashSymbolizer{}) {
				t.Fatal("profile.ParseData rejects it")
			}
		})
	}
}

func TestSymbolizeDataMalformed(t *testing.T) {
	for _, tc := range []struct {
		name string
		data []byte
	}{
		{"text", []byte("--- heapz 1 ---\n")},
		{"truncated varint", []byte{0x18, 0x80}},
		{"length past end", []byte{0x1a, 0x05, 0x08}},
		{"mapping as varint", []byte{0x18, 0x01}},
		{"group", []byte{0x1b}},
		{"string index", []byte{0x1a, 0x04, 0x08, 0x01, 0x28, 0x03, 0x32, 0x00}},
		{"location ID 0", []byte{0x22, 0x02, 0x18, 0x01, 0x32, 0x00}},
		{"line without function", []byte{0x22, 0x06, 0x08, 0x01, 0x22, 0x02, 0x10, 0x03, 0x32, 0x00}},
		{"gzip", []byte{0x1f, 0x8b, 0x08}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := SymbolizeData(context.Background(), tc.data, testSymbolizer(), nil)
			var de *DataError
			if !errors.As(err, &de) {
				t.Fatalf("err %v, want a *DataError", err)
			}
			if tc.name != "gzip" && !errors.Is(err, ErrMalformed) {
				t.Errorf("err %v is not ErrMalformed", err)
			}
			// A legacy text profile is for profile.Parse.
			if _, perr := profile.ParseData(tc.data); (perr == nil) != (tc.name == "text") {
				t.Errorf("profile.ParseData: %v", perr)
			}
		})
	}
}

// TestGunzip: the one-member fast path and compress/gzip agree, and
// whatever the fast path does not take, compress/gzip decides.
func TestGunzip(t *testing.T) {
	payload := bytes.Repeat([]byte("pprofsym gunzip "), 5000)
	member := func(name string, data []byte) []byte {
		var b bytes.Buffer
		zw := gzip.NewWriter(&b)
		zw.Name = name
		zw.Write(data)
		zw.Close()
		return b.Bytes()
	}
	one := member("", payload)
	named := member("prof.pb", payload)
	two := append(member("", payload[:100]), member("", payload[100:])...)
	zeros := member("", make([]byte, 8<<20)) // 8 MiB in about 8 KB: past trustRatio
	badCRC := bytes.Clone(one)
	badCRC[len(badCRC)-8] ^= 1
	badSize := bytes.Clone(one)
	badSize[len(badSize)-4] ^= 1
	for _, tc := range []struct {
		name string
		data []byte
		fast bool // taken by the fast path
		ok   bool
	}{
		{"one", one, true, true},
		{"named", named, true, true},
		{"two members", two, false, true},
		{"ratio past trustRatio", zeros, false, true},
		{"trailing zeros", append(bytes.Clone(one), 0, 0), false, false},
		{"bad CRC", badCRC, false, false},
		{"bad size", badSize, false, false},
		{"truncated", one[:len(one)-9], false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, fast := gunzipOne(tc.data); fast != tc.fast {
				t.Errorf("fast path %v, want %v", fast, tc.fast)
			}
			got, err := gunzip(tc.data)
			if (err == nil) != tc.ok {
				t.Fatalf("err %v, want ok %v", err, tc.ok)
			}
			want := payload
			if tc.name == "ratio past trustRatio" {
				want = make([]byte, 8<<20)
			}
			if err == nil && !bytes.Equal(got, want) {
				t.Errorf("%d bytes, want the %d of the payload", len(got), len(want))
			}
		})
	}
}
