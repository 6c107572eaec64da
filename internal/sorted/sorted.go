// Package sorted searches ascending slices of integers forward from a
// known position, for callers that look up ascending values one after
// another (a Batch chunk's sorted addresses): each search starts where the
// last one ended and costs a few probes of nearby elements, not a search
// of the whole slice.
package sorted

// LastFrom returns the index of the last element of the ascending a that
// is at or below v, searching forward from i, which must hold a[i] <= v
// (0 <= i < len(a)): it doubles its step while the element the step
// reaches is at or below v, then halves it back, keeping the last such
// element. Cost: O(log d) probes for an answer d elements past i.
func LastFrom[T ~uint32 | ~uint64](a []T, v T, i int) int {
	n := len(a)
	step := 1
	for i+step < n && a[i+step] <= v {
		i += step
		step <<= 1
	}
	for step > 1 {
		step >>= 1
		if i+step < n && a[i+step] <= v {
			i += step
		}
	}
	return i
}
