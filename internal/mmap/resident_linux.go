package mmap

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"unsafe"
)

// Resident returns how many bytes of the mapping that holds b[0] are in
// the process's resident set (its Rss in /proc/self/smaps), for tests and
// diagnostics of Drop and Release; ok is false when that cannot be read.
func Resident(b []byte) (n uint64, ok bool) {
	if len(b) == 0 {
		return 0, false
	}
	smaps, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		return 0, false
	}
	p := uint64(uintptr(unsafe.Pointer(&b[0])))
	in := false
	for line := range strings.SplitSeq(string(smaps), "\n") {
		// A mapping's first line: "start-end perms offset dev inode path".
		if r, _, _ := strings.Cut(line, " "); !strings.HasSuffix(r, ":") && strings.Contains(r, "-") {
			var lo, hi uint64
			_, err := fmt.Sscanf(r, "%x-%x", &lo, &hi)
			in = err == nil && lo <= p && p < hi
			continue
		}
		if kb, found := strings.CutPrefix(line, "Rss:"); found && in {
			v, err := strconv.ParseUint(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(kb), "kB")), 10, 64)
			return v << 10, err == nil
		}
	}
	return 0, false
}
