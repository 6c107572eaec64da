// Package debuginfodtest runs elfutils' debuginfod server for tests, over a
// folder of ELF files, reachable on the loopback interface only.
//
// A test calls Private first: on Linux, where unprivileged network
// namespaces (or root) allow it, the test binary runs the test again inside
// a namespace of its own that has nothing but a loopback interface (as
// `unshare --net` makes it), so that neither the server nor the clients
// under test can reach, or be reached from, any network. Elsewhere the test
// runs in place, and the server is asked on 127.0.0.1 only.
package debuginfodtest

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// envPrivate marks the test process that runs inside the namespace.
const envPrivate = "SYMBOLIZE_DEBUGINFOD_NETNS"

// Need skips the test when the program name is not installed, or fails
// it when $CI is "true" (CI installs every tool the tests need). It
// returns the program's path.
func Need(t testing.TB, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is not installed (CI=true; Debian package debuginfod, dwz)", name)
		}
		t.Skipf("%s is not installed", name)
	}
	return p
}

// Private runs the top-level test t again in a private network namespace
// and reports whether it did; the caller then returns at once, t having
// passed, failed or skipped as the run inside did. It returns false when
// the caller is that run (the loopback interface is then up), and when no
// namespace can be made: the test then runs here, on 127.0.0.1.
func Private(t *testing.T) bool {
	t.Helper()
	if os.Getenv(envPrivate) == "1" {
		if err := loopbackUp(); err != nil {
			t.Fatalf("bringing up the loopback interface: %v", err)
		}
		return false
	}
	if runtime.GOOS != "linux" {
		return false
	}
	unshare, err := exec.LookPath("unshare")
	if err != nil {
		t.Logf("no unshare: running on 127.0.0.1")
		return false
	}
	args := []string{"--net", "--map-root-user"}
	if out, err := exec.Command(unshare, append(args, "true")...).CombinedOutput(); err != nil {
		t.Logf("no private network namespace (%v: %s): running on 127.0.0.1", err, bytes.TrimSpace(out))
		return false
	}
	if strings.Contains(t.Name(), "/") {
		panic("debuginfodtest.Private needs a top-level test")
	}
	cmd := exec.Command(unshare, append(args, os.Args[0], "-test.run=^"+regexp.QuoteMeta(t.Name())+"$",
		"-test.v", "-test.count=1")...)
	cmd.Env = append(os.Environ(), envPrivate+"=1")
	out, err := cmd.CombinedOutput()
	t.Logf("in a private network namespace:\n%s", out)
	switch {
	case err != nil:
		t.Fatalf("the test failed in its network namespace: %v", err)
	case bytes.Contains(out, []byte("--- SKIP: "+t.Name())):
		t.Skip("skipped in its network namespace")
	case !bytes.Contains(out, []byte("--- PASS: "+t.Name())):
		t.Fatalf("the test did not run in its network namespace")
	}
	return true
}

// Server is a debuginfod process.
type Server struct {
	// URL is the server's base URL, on 127.0.0.1.
	URL string

	cmd  *exec.Cmd
	log  *bytes.Buffer
	once sync.Once
}

// Start runs debuginfod over the ELF files under dir (its -F scan, its
// database in a temporary folder) on a free port of 127.0.0.1, and waits
// until it serves the debuginfo of each build ID in ready (at most 20 s).
// The server stops when the test ends, or at Stop. The environment it
// gets has no $DEBUGINFOD_URLS, so it forwards nothing to other servers.
func Start(t testing.TB, dir string, ready ...[]byte) *Server {
	t.Helper()
	bin := Need(t, "debuginfod")
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	db := filepath.Join(t.TempDir(), "debuginfod.sqlite")
	// -t 0 -g 0: one scan, no grooming; -c 1: one scanning thread.
	cmd := exec.Command(bin, "-F", "-p", strconv.Itoa(port), "-d", db, "-t", "0", "-g", "0", "-c", "1", "-v", dir)
	for _, e := range os.Environ() {
		if !strings.HasPrefix(e, "DEBUGINFOD_") {
			cmd.Env = append(cmd.Env, e)
		}
	}
	s := &Server{URL: fmt.Sprintf("http://127.0.0.1:%d", port), cmd: cmd, log: new(bytes.Buffer)}
	cmd.Stdout, cmd.Stderr = s.log, s.log
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting debuginfod: %v", err)
	}
	t.Cleanup(s.Stop)
	deadline := time.Now().Add(20 * time.Second)
	hc := &http.Client{Timeout: 2 * time.Second}
	for _, id := range ready {
		u := s.URL + "/buildid/" + hex.EncodeToString(id) + "/debuginfo"
		for {
			resp, err := hc.Get(u)
			if err == nil {
				resp.Body.Close()
				if resp.StatusCode == http.StatusOK {
					break
				}
			}
			if time.Now().After(deadline) {
				s.Stop()
				t.Fatalf("debuginfod did not serve %s within 20 s (last: %v)\n%s", u, err, s.log)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	return s
}

// Stop ends the server and waits for it (SIGTERM, then SIGKILL after 5 s).
// Later calls do nothing.
func (s *Server) Stop() {
	s.once.Do(func() {
		s.cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { s.cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			s.cmd.Process.Kill()
			<-done
		}
	})
}
