// Command inflate times internal/inflate on one zlib stream: DecodeTo on
// one goroutine, and DecodeParallel on -workers, in alternating rounds,
// printing wall, CPU (user+sys) and user seconds for each. libdeflate/ld.c is
// the same measurement around libdeflate_zlib_decompress, to run beside
// it (see bench/RESULTS.md, 2026-12-02).
//
//	go run ./bench/inflate -size 314596110 -rounds 5 /tmp/rgw-info.zlib
package main

import (
	"crypto/sha256"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"runtime/pprof"
	"syscall"
	"time"

	"github.com/symbolize-go/symbolize/internal/inflate"
)

// cpu returns the process's CPU time (user+sys) and its user time.
func cpu() (time.Duration, time.Duration) {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), time.Duration(ru.Utime.Nano())
}

func main() {
	size := flag.Int("size", 0, "output bytes (the section's declared size; less decodes only a prefix)")
	rounds := flag.Int("rounds", 3, "rounds")
	workers := flag.Int("workers", 2, "DecodeParallel's workers")
	modes := flag.String("modes", "sp", "s: serial DecodeTo, p: DecodeParallel, in this order each round")
	touch := flag.Bool("touch", true, "fault the output buffer in before timing")
	prof := flag.String("cpuprofile", "", "write a CPU profile of the rounds here")
	sum := flag.Bool("sha256", true, "print the output's SHA-256 (off for instruction counts)")
	flag.Parse()
	if *prof != "" {
		f, err := os.Create(*prof)
		if err != nil {
			log.Fatal(err)
		}
		pprof.StartCPUProfile(f)
		defer pprof.StopCPUProfile()
	}
	z, err := os.ReadFile(flag.Arg(0))
	if err != nil {
		log.Fatal(err)
	}
	out := make([]byte, *size)
	if *touch {
		for i := 0; i < len(out); i += 4096 {
			out[i] = 1
		}
	}
	for r := range *rounds {
		for _, m := range *modes {
			if !*touch {
				out = make([]byte, *size)
			}
			d, err := inflate.NewZlib(z)
			if err != nil {
				log.Fatal(err)
			}
			c0, u0 := cpu()
			t0 := time.Now()
			var n int
			switch m {
			case 's':
				n, err = d.DecodeTo(out, 0)
			case 'p':
				n, err = d.DecodeParallel(out, *workers)
			}
			wall := time.Since(t0)
			c, u := cpu()
			c, u = c-c0, u-u0
			if (err != io.EOF && err != nil) || n != len(out) {
				log.Fatalf("%c: %d bytes, %v", m, n, err)
			}
			fmt.Printf("round %d %c wall %.3f cpu %.3f user %.3f", r, m, wall.Seconds(), c.Seconds(), u.Seconds())
			if *sum {
				fmt.Printf(" sha256 %x", sha256.Sum256(out[:n]))
			}
			fmt.Println()
		}
	}
}
