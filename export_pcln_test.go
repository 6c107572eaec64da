package symbolize

import "github.com/symbolize-go/symbolize/pclntab"

// GoTableForTest returns b's Go table for the tests of package
// symbolize_test.
func GoTableForTest(b *Binary) *pclntab.Table { return b.goTable() }
