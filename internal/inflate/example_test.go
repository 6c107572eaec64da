package inflate_test

import (
	"bytes"
	"compress/zlib"
	"fmt"
	"io"

	"github.com/symbolize-go/symbolize/internal/inflate"
)

// A section's declared size sizes the buffer; DecodeParallel fills it on
// two goroutines and, like DecodeTo, ends with io.EOF once the stream
// (and its Adler-32) ends there. DecodeTo with no room left then says
// whether the stream would have gone on.
func ExampleDecoder_DecodeParallel() {
	var z bytes.Buffer
	w := zlib.NewWriter(&z)
	for i := range 200000 {
		fmt.Fprintf(w, "DW_TAG_subprogram %d\n", i*i%7919)
	}
	w.Close()
	size := 4568658 // as an ELF compression header would declare it

	d, err := inflate.NewZlib(z.Bytes())
	if err != nil {
		fmt.Println(err)
		return
	}
	out := make([]byte, size)
	n, err := d.DecodeParallel(out, 2)
	fmt.Println(n == size, err == io.EOF)
	fmt.Printf("%q\n", out[:22])
	// Output:
	// true true
	// "DW_TAG_subprogram 0\nDW"
}
