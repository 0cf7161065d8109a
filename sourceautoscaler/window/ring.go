package window

import (
	"fmt"
	"time"
)

// MaxBuckets is the most buckets a Ring holds: a Ring is 8 bytes a bucket
// plus a small header, under 1 KiB.
const MaxBuckets = 100

// Ring holds the values recorded over the last Len buckets of Width each.
// Its zero value is unusable: call Reset first.
type Ring struct {
	width int64 // nanoseconds a bucket
	n     int64 // buckets in the window
	// first and last are the bucket indexes (time / width) of the first
	// write of the current run and of the latest write; first < 0 means
	// nothing was written.
	first, last int64
	buckets     [MaxBuckets]float64
}

// Reset empties r and sets its geometry: length is the window, width one
// bucket. The window holds ceil(length/width) buckets, at least one and at
// most MaxBuckets.
func (r *Ring) Reset(length, width time.Duration) error {
	if width <= 0 || length <= 0 {
		return fmt.Errorf("window: length and width must be positive, got %v and %v", length, width)
	}
	n := (int64(length) + int64(width) - 1) / int64(width)
	if n > MaxBuckets {
		return fmt.Errorf("window: %v in buckets of %v is %d buckets, more than %d", length, width, n, MaxBuckets)
	}
	*r = Ring{width: int64(width), n: n, first: -1, last: -1}
	return nil
}

// Len is the number of buckets of the window.
func (r *Ring) Len() int { return int(r.n) }

// Width is the duration of one bucket.
func (r *Ring) Width() time.Duration { return time.Duration(r.width) }

// Empty says whether nothing was recorded since the last Reset or since a
// whole window passed without data.
func (r *Ring) Empty() bool { return r.first < 0 }

func (r *Ring) index(t time.Time) int64 { return t.UnixNano() / r.width }

func (r *Ring) slot(i int64) *float64 {
	m := i % r.n
	if m < 0 {
		m += r.n
	}
	return &r.buckets[m]
}

// Record sets the bucket of t to v (a later value in the same bucket
// replaces an earlier one: the signal is a level, not a count). The buckets
// between the previous write and t count as zero. When a whole window
// passed since the previous write, or t is before it (the clock went
// back), the window starts again at t, and Record says so.
func (r *Ring) Record(t time.Time, v float64) (restarted bool) {
	i := r.index(t)
	switch {
	case r.first < 0 || i < r.last || i-r.last >= r.n:
		restarted = r.first >= 0
		r.first, r.last = i, i
		clear(r.buckets[:r.n])
	case i > r.last:
		for j := r.last + 1; j < i; j++ {
			*r.slot(j) = 0
		}
		r.last = i
	}
	*r.slot(i) = v
	return restarted
}

// Latest is the value of the latest write, and whether there is one.
func (r *Ring) Latest() (float64, bool) {
	if r.first < 0 {
		return 0, false
	}
	return *r.slot(r.last), true
}

// Since is how long r has held data at now: from the start of its first
// bucket, zero when empty.
func (r *Ring) Since(now time.Time) time.Duration {
	if r.first < 0 {
		return 0
	}
	return time.Duration(now.UnixNano() - r.first*r.width)
}

// Average is the mean of the last k buckets at now (k at most Len): over
// the buckets from the first write (when more recent than the window's
// start) to the latest write (when older than now), gaps counted as zero.
// ok is false when there is no data in that span.
func (r *Ring) Average(now time.Time, k int) (avg float64, ok bool) {
	if r.first < 0 || k <= 0 {
		return 0, false
	}
	k64 := min(int64(k), r.n)
	end := r.index(now)
	start := max(end-k64+1, r.first)
	end = min(end, r.last)
	if end < start {
		return 0, false
	}
	var sum float64
	for i := start; i <= end; i++ {
		sum += *r.slot(i)
	}
	return sum / float64(end-start+1), true
}
