package symbolize

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/symbolize-go/symbolize/symtab"
)

// TestDemangledCache asks four goroutines for the same names, in different
// orders, and requires symtab.Demangle's answers: names that demangle,
// names that do not (answered by themselves), and one past a chunk.
func TestDemangledCache(t *testing.T) {
	names := []string{"_Z3foov", "_Zfoo", "_ZN2ns3BoxIdLi3EE3sumEv", "___Z3foov_block_invoke", "_RNvCs1234_7mycrate3foo"}
	for i := range 300 {
		names = append(names, fmt.Sprintf("_ZN2ns%d%sIiEEvv", 5+len(fmt.Sprint(i)), "f"+fmt.Sprint(i)+"xxxx"))
	}
	long := "_ZN" + strings.Repeat("4abcd", 2000) + "3fooEv"
	names = append(names, long)
	var c demangledCache
	var wg sync.WaitGroup
	errs := make(chan string, 4)
	for g := range 4 {
		wg.Go(func() {
			for k := range names {
				name := names[(k*(g+1)+g)%len(names)]
				if got, want := c.get(name), symtab.Demangle(name, symtab.StyleLLVM); got != want {
					errs <- fmt.Sprintf("get(%.40q) = %.60q, want %.60q", name, got, want)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	// Every name once more, from the cache.
	for _, name := range names {
		if got, want := c.get(name), symtab.Demangle(name, symtab.StyleLLVM); got != want {
			t.Errorf("again: get(%.40q) = %.60q, want %.60q", name, got, want)
		}
	}
}
