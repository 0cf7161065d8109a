// Package window averages a demand signal over a trailing window of time,
// the way Knative's request autoscaler does: a ring of fixed-width buckets
// indexed by time, a partial window averaged over what was seen, a gap
// inside the window counted as zero, and a window that saw nothing for its
// whole length starting again as a partial one.
//
// A Ring is a value with a fixed-size array (no allocation after it is
// declared, MaxBuckets float64s at most), so that the source autoscaler
// keeps one per source in a flat slice. It is not safe for concurrent use.
package window
