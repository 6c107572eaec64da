package debuginfod_test

import (
	"time"

	"github.com/symbolize-go/symbolize"
	"github.com/symbolize-go/symbolize/debuginfod"
	"github.com/symbolize-go/symbolize/elfx"
	"github.com/symbolize-go/symbolize/locate"
)

// A binary whose debug file is neither installed nor beside it: the
// debuginfod servers are asked after the local folders, and what they
// send is cached and checked against the binary's build ID.
func ExampleClient() {
	client := &debuginfod.Client{
		URLs:     []string{"https://debuginfod.debian.net"}, // nil: $DEBUGINFOD_URLS
		CacheDir: "",                                        // $DEBUGINFOD_CACHE_PATH, else ~/.cache/debuginfod_client
		Timeout:  30 * time.Second,                          // without progress
	}
	b, err := symbolize.Open("/usr/bin/prog", &symbolize.Options{
		Inlines: true,
		Debug:   &elfx.DebugOptions{Locator: locate.Chain{locate.Dirs{}, client}},
	})
	if err != nil {
		return
	}
	defer b.Close()
	frames, _ := b.AppendFrames(nil, 0x401234)
	_ = frames
}
