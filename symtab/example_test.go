package symtab_test

import (
	"fmt"

	"github.com/symbolize-go/symbolize/symtab"
)

// A table built from symbols as ReadELF returns them (here written out by
// hand): gcc's foo and its alias bar, the cold part foo.cold, an object.
func ExampleTable_Lookup() {
	syms := []symtab.Symbol{
		{Name: "_Z3foov", Addr: 0x1130, Size: 0x2c, Kind: symtab.KindFunc, Defined: true},
		{Name: "bar", Addr: 0x1130, Size: 0x2c, Kind: symtab.KindFunc, Defined: true},
		{Name: "_Z3foov.cold", Addr: 0x1040, Size: 0x12, Kind: symtab.KindFunc, Defined: true},
		{Name: "table", Addr: 0x4040, Size: 0x40, Kind: symtab.KindObject, Defined: true},
	}
	tab := symtab.New(syms)
	for _, pc := range []uint64{0x1148, 0x104c, 0x1160, 0x4042} {
		m, ok := tab.Lookup(pc)
		if !ok {
			fmt.Printf("%#x: ??\n", pc)
			continue
		}
		fmt.Printf("%#x: %s = %s\n", pc, m, symtab.Demangle(m.Name, symtab.StyleLLVM))
	}
	// Output:
	// 0x1148: bar+0x18 = bar
	// 0x104c: _Z3foov.cold+0xc = foo() (.cold)
	// 0x1160: ??
	// 0x4042: table+0x2 = table
}

// Ascending addresses (a profile's samples, sorted) looked up with one
// hint: each search goes forward from where the last one landed.
func ExampleTable_LookupFrom() {
	tab := symtab.New([]symtab.Symbol{
		{Name: "a", Addr: 0x1000, Size: 0x10, Kind: symtab.KindFunc, Defined: true},
		{Name: "b", Addr: 0x1010, Size: 0x30, Kind: symtab.KindFunc, Defined: true},
		{Name: "c", Addr: 0x1040, Size: 0x08, Kind: symtab.KindFunc, Defined: true},
	})
	hint := 0
	for _, pc := range []uint64{0x1004, 0x1012, 0x1030, 0x1044, 0x1050} {
		if m, ok := tab.LookupFrom(pc, &hint); ok {
			fmt.Printf("%#x: %s\n", pc, m)
		} else {
			fmt.Printf("%#x: ??\n", pc)
		}
	}
	// Output:
	// 0x1004: a+0x4
	// 0x1012: b+0x2
	// 0x1030: b+0x20
	// 0x1044: c+0x4
	// 0x1050: ??
}

func ExampleDemangle() {
	for _, name := range []string{"_ZL6cloneeii.constprop.0", "_ZNSt6vectorIiSaIiEE9push_backERKi", "_RNvCs1234_7mycrate3foo", "main"} {
		fmt.Println(symtab.Demangle(name, symtab.StyleLLVM))
		fmt.Println(symtab.Demangle(name, symtab.StyleGNU))
	}
	// Output:
	// clonee(int, int) (.constprop.0)
	// clonee(int, int) [clone .constprop.0]
	// std::vector<int, std::allocator<int> >::push_back(int const&)
	// std::vector<int, std::allocator<int> >::push_back(int const&)
	// mycrate::foo
	// mycrate::foo
	// main
	// main
}
