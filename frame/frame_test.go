package frame

import "testing"

// TestAppendText covers each unknown part on its own; the root package's
// TestFrameTextLLVM compares whole answers with llvm-symbolizer-14.
func TestAppendText(t *testing.T) {
	for _, c := range []struct {
		f    Frame
		want string
	}{
		{Frame{}, "??\n??:0:0\n"},
		{Frame{Function: "main", Source: SourceSymbolTable}, "main\n??:0:0\n"},
		{Frame{Function: "f", File: "/a/b.c", Line: 12}, "f\n/a/b.c:12:0\n"},
		{Frame{File: "x.go", Line: 4294967295, Column: 7}, "??\nx.go:4294967295:7\n"},
	} {
		b, err := c.f.AppendText([]byte("> "))
		if err != nil || string(b) != "> "+c.want || c.f.String() != c.want {
			t.Errorf("%+v: %q %v, String %q; want %q", c.f, b, err, c.f.String(), c.want)
		}
	}
	if s := SourceGoPCLN.String(); s == "none" || s == SourceDWARF.String() {
		t.Errorf("SourceGoPCLN prints %q", s)
	}
}
