package symbolize_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestNoHTTP: importing the root package links no HTTP client; the
// debuginfod locator is a package of its own that callers opt into.
func TestNoHTTP(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	out, err := exec.Command(goTool, "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 20 {
		t.Fatalf("go list printed %d packages: %q", len(deps), deps)
	}
	for _, d := range deps {
		if d == "net/http" || d == "net" {
			t.Errorf("the root package depends on %s", d)
		}
	}
}
