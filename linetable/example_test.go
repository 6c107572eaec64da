package linetable_test

import (
	"fmt"
	"io"

	"github.com/symbolize-go/symbolize/linetable"
)

// A line program, assembled here for the example; a real one comes from an
// object file's .debug_line section.
func exampleSection() ([]byte, *linetable.Options) {
	h := linetable.DefaultHeader(5) // one file, "a.c" in "/src"
	rows := []linetable.Row{
		{Address: 0x1000, File: 0, Line: 10, IsStmt: true},
		{Address: 0x1004, File: 0, Line: 11, IsStmt: true},
		{Address: 0x1010, File: 0, Line: 11, IsStmt: true, EndSequence: true},
	}
	asm, err := linetable.Assemble(&h, rows, nil)
	if err != nil {
		panic(err)
	}
	return asm.Line, asm.Options()
}

// Stream the rows of every unit of a .debug_line section.
func ExampleReader() {
	data, opts := exampleSection()
	for off, err := range linetable.Units(data, opts) {
		if err != nil {
			fmt.Println(err)
			return
		}
		r, err := linetable.NewReader(data, off, opts)
		if err != nil {
			fmt.Println(err)
			continue
		}
		var row linetable.Row
		for {
			if err := r.Next(&row); err == io.EOF {
				break
			} else if err != nil {
				fmt.Println(err)
				break
			}
			name, _ := r.Header().FilePath(uint64(row.File), "/build")
			fmt.Printf("%#x %s:%d end=%v\n", row.Address, name, row.Line, row.EndSequence)
		}
	}
	// Output:
	// 0x1000 /src/a.c:10 end=false
	// 0x1004 /src/a.c:11 end=false
	// 0x1010 /src/a.c:11 end=true
}

// Read a unit's rows in batches, the fastest way; the buffer is reused.
func ExampleReader_NextRows() {
	data, opts := exampleSection()
	r, err := linetable.NewReader(data, 0, opts)
	if err != nil {
		fmt.Println(err)
		return
	}
	var buf [128]linetable.Row
	for {
		n, err := r.NextRows(buf[:])
		if err == io.EOF {
			break
		} else if err != nil {
			fmt.Println(err)
			break
		}
		for _, row := range buf[:n] {
			fmt.Printf("%#x line %d\n", row.Address, row.Line)
		}
	}
	// Output:
	// 0x1000 line 10
	// 0x1004 line 11
	// 0x1010 line 11
}

// Build a Table once and look addresses up in it.
func ExampleTable_Lookup() {
	data, opts := exampleSection()
	t, err := linetable.NewTable(data, 0, opts)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, pc := range []uint64{0x1000, 0x1007, 0x1010} {
		if row, ok := t.Lookup(pc); ok {
			name, _ := t.Header().FilePath(uint64(row.File), "")
			fmt.Printf("%#x: %s:%d\n", pc, name, row.Line)
		} else {
			fmt.Printf("%#x: not found\n", pc)
		}
	}
	// Output:
	// 0x1000: /src/a.c:10
	// 0x1007: /src/a.c:11
	// 0x1010: not found
}

// Sorted addresses looked up with one Hint: each search goes forward from
// where the last one landed. The answers are LookupRange's.
func ExampleTable_LookupRangeFrom() {
	data, opts := exampleSection()
	t, err := linetable.NewTable(data, 0, opts)
	if err != nil {
		fmt.Println(err)
		return
	}
	var h linetable.Hint
	for _, pc := range []uint64{0x1000, 0x1003, 0x1007, 0x1010} {
		if row, end, ok := t.LookupRangeFrom(pc, &h); ok {
			fmt.Printf("%#x: line %d, to %#x\n", pc, row.Line, end)
		} else {
			fmt.Printf("%#x: not found\n", pc)
		}
	}
	// Output:
	// 0x1000: line 10, to 0x1004
	// 0x1003: line 10, to 0x1004
	// 0x1007: line 11, to 0x1010
	// 0x1010: not found
}

// Symbolize one address: the Table keeps only the sequence that holds it,
// and would build the whole Table if asked for another.
func ExampleNewTableFor() {
	data, opts := exampleSection()
	t, err := linetable.NewTableFor(data, 0, opts, 0x1007)
	if err != nil {
		fmt.Println(err)
		return
	}
	row, end, ok := t.LookupRange(0x1007)
	name, _ := t.Header().FilePath(uint64(row.File), "")
	fmt.Printf("%s:%d, until %#x, %v\n", name, row.Line, end, ok)
	// Output:
	// /src/a.c:11, until 0x1010, true
}
