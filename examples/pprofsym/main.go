// Command pprofsym symbolizes a pprof profile whose locations hold only
// addresses and mappings (as profilers that leave symbolization to pprof
// write them), reading each mapping's file and its separate debug file:
//
//	pprofsym [-o OUT] [-debug-file-directory DIR]... PROFILE
//
// It writes the profile with every location it could symbolize filled in,
// gzipped, to OUT or else to standard output: at gzip's best speed, in a
// gzip member per core for profiles of a few MiB, which gzip readers
// (pprof's, gunzip) read as one stream. What
// it fills in, and how, is package pprofsym's doc: `pprof
// -symbolize=none -traces OUT` prints what `pprof -symbolize=local -traces
// PROFILE` prints with llvm-symbolizer-14.
//
// Separate debug files are found as llvm-symbolizer finds them: by build
// ID under /usr/lib/debug (or under each -debug-file-directory instead),
// else by their .gnu_debuglink name beside the file and in those
// directories (package locate's Dirs).
//
// A mapping or location it could not symbolize (no file, a file missing or
// of another build ID, an address outside its mapping) is reported on
// standard error, one line per mapping and per location up to -max-errors,
// and the rest is symbolized; the exit status is 0 all the same, as pprof
// goes on. The exit status is 1 when the profile cannot be read or the
// output written, 2 for a bad command line.
package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"sync"

	"github.com/google/pprof/profile"
	"github.com/symbolize-go/symbolize"
	"github.com/symbolize-go/symbolize/elfx"
	"github.com/symbolize-go/symbolize/locate"
	"github.com/symbolize-go/symbolize/pprofsym"
)

func main() {
	// The heap is mostly what lives to the end (the profile's bytes, the
	// files' indexes), so collecting at 4x the live heap rather than 2x
	// saves a fifth of the CPU time for a tenth more memory (measured on
	// bench/pprofsym.sh's profile). $GOGC still decides when set.
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("pprofsym", flag.ContinueOnError)
	fl.SetOutput(stderr)
	out := fl.String("o", "", "write the symbolized profile to `OUT` instead of standard output")
	maxErrors := fl.Int("max-errors", 10, "report at most `N` locations that could not be symbolized (then their count)")
	workers := fl.Int("workers", 0, "goroutines looking addresses up (0: GOMAXPROCS)")
	var debugDirs []string
	fl.Func("debug-file-directory", "look for separate debug files by build ID under `DIR` (repeatable; default /usr/lib/debug)", func(d string) error {
		debugDirs = append(debugDirs, d)
		return nil
	})
	fl.Usage = func() {
		fmt.Fprintf(stderr, "usage: pprofsym [-o OUT] PROFILE\n")
		fl.PrintDefaults()
	}
	if err := fl.Parse(args); err != nil {
		return 2
	}
	if fl.NArg() != 1 {
		fl.Usage()
		return 2
	}
	opts := symbolize.Options{Inlines: true, Demangle: true}
	if debugDirs != nil {
		opts.Debug = &elfx.DebugOptions{Locator: locate.Dirs{DebugDirs: debugDirs}}
	}
	if err := symbolizeFile(fl.Arg(0), *out, opts, *workers, *maxErrors, stdout, stderr); err != nil {
		fmt.Fprintln(stderr, "pprofsym:", err)
		return 1
	}
	return 0
}

func symbolizeFile(in, out string, opts symbolize.Options, workers, maxErrors int, stdout, stderr io.Writer) error {
	data, err := os.ReadFile(in)
	if err != nil {
		return err
	}
	s := symbolize.NewModules(&symbolize.ModulesOptions{Options: opts})
	defer s.Close()
	ctx := context.Background()
	popts := &pprofsym.Options{Workers: workers}
	// The encoded path copies the samples without decoding them; a legacy
	// (text) profile, which it does not read, is parsed.
	enc, rep, err := pprofsym.SymbolizeData(ctx, data, s, popts)
	var de *pprofsym.DataError
	if errors.As(err, &de) {
		p, perr := profile.ParseData(data)
		if perr != nil {
			return fmt.Errorf("%s: %v", in, perr)
		}
		if rep, err = pprofsym.Symbolize(ctx, p, s, popts); err == nil {
			var buf bytes.Buffer
			err = p.WriteUncompressed(&buf)
			enc = buf.Bytes()
		}
	}
	if err != nil {
		return err
	}
	for _, e := range rep.MappingErrors {
		fmt.Fprintln(stderr, e)
	}
	for i, e := range rep.LocationErrors {
		if i == maxErrors {
			fmt.Fprintf(stderr, "pprofsym: %d more locations not symbolized\n", len(rep.LocationErrors)-i)
			break
		}
		fmt.Fprintln(stderr, e)
	}
	w := stdout
	var file *os.File
	if out != "" {
		if file, err = os.Create(out); err != nil {
			return err
		}
		w = file
	}
	err = writeGzip(w, enc)
	if file != nil {
		if cerr := file.Close(); err == nil {
			err = cerr
		}
	}
	return err
}

// writeGzip writes data gzipped to w, as pprof writes profiles, with two
// differences that make it several times faster: gzip's best speed rather
// than its default level (profiles, mostly varints, come out a few percent
// larger), and on several cores, pieces of at least 1 MiB compressed at
// once, each a gzip member of its own. Every gzip reader reads the members
// as one stream (RFC 1952 2.2), pprof's and gunzip's among them.
func writeGzip(w io.Writer, data []byte) error {
	const minPiece = 1 << 20
	n := min(runtime.GOMAXPROCS(0), max(1, len(data)/minPiece))
	pieces := make([]bytes.Buffer, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			lo, hi := len(data)*i/n, len(data)*(i+1)/n
			pieces[i].Grow((hi - lo) + (hi-lo)/8 + 64)
			zw, err := gzip.NewWriterLevel(&pieces[i], gzip.BestSpeed)
			if err == nil {
				_, err = zw.Write(data[lo:hi])
			}
			if err == nil {
				err = zw.Close()
			}
			errs[i] = err
		})
	}
	wg.Wait()
	for i := range pieces {
		if errs[i] != nil {
			return errs[i]
		}
		if _, err := w.Write(pieces[i].Bytes()); err != nil {
			return err
		}
	}
	return nil
}
