package symbolize

import "github.com/symbolize-go/symbolize/pclntab"

// GoTableForTest returns b's Go table for the tests of package
// symbolize_test.
func GoTableForTest(b *Binary) *pclntab.Table { return b.goTable() }

// SetAheadMinUnitForTest sets the unit size from which a unit's line table
// is built beside its DIE scan (and the first one's for one sequence), and
// returns a function that restores it.
func SetAheadMinUnitForTest(n uint64) (restore func()) {
	old := aheadMinUnit
	aheadMinUnit = n
	return func() { aheadMinUnit = old }
}

// SetSpeculateForTest turns the speculative build of a module's first
// unit on or off, and returns a function that restores it.
func SetSpeculateForTest(on bool) (restore func()) {
	old := speculation
	speculation = on
	return func() { speculation = old }
}

// SpeculationsKeptForTest returns how many speculative units have been
// kept so far, by every module.
func SpeculationsKeptForTest() int64 { return speculationsKept.Load() }

// SetSymbolScanForTest turns the one-pass symbol-table lookup of a
// binary's first lookup on or off, and returns a function that restores it.
func SetSymbolScanForTest(on bool) (restore func()) {
	old := symbolScan
	symbolScan = on
	return func() { symbolScan = old }
}

// SymbolScansForTest returns how many lookups have been answered by the
// one-pass symbol-table lookup so far, by every binary.
func SymbolScansForTest() int64 { return symbolScans.Load() }

// SymbolsStartedAheadForTest reports whether b's symbol table was started
// ahead of its first use (symbolsAhead).
func SymbolsStartedAheadForTest(b *Binary) bool { return b.symReady != nil }
