package window

import (
	"testing"
	"time"
	"unsafe"
)

var t0 = time.Unix(1_000_000, 0)

func at(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }

type avgCase struct {
	name string
	// writes are (second, value) pairs recorded in order.
	writes [][2]float64
	now    int
	k      int
	want   float64
	ok     bool
}

// TestAverageWorkedExamples are the cases of seed 001: a 60 s window of
// one-second buckets (k = 60), and the 6 s panic window (k = 6).
func TestAverageWorkedExamples(t *testing.T) {
	cases := []avgCase{
		{name: "nothing recorded", now: 10, k: 60, ok: false},
		{name: "partial window: 6 s seen of 60, averaged over the 6",
			writes: [][2]float64{{0, 10}, {1, 20}, {2, 30}, {3, 40}, {4, 50}, {5, 60}}, now: 5, k: 60, want: 35, ok: true},
		{name: "last data 10 s ago: averaged up to the last write",
			writes: [][2]float64{{0, 6}, {49, 6}}, now: 59, k: 60, want: 12.0 / 50, ok: true},
		{name: "a gap inside the window counts as zero",
			writes: [][2]float64{{0, 100}, {3, 100}}, now: 3, k: 60, want: 50, ok: true},
		{name: "panic window sees the last 6 buckets only",
			writes: [][2]float64{{0, 10}, {50, 10}, {51, 10}, {52, 10}, {53, 10}, {54, 70}, {55, 70}}, now: 55, k: 6, want: 30, ok: true},
		{name: "the stable window drops what is older than 60 s",
			writes: [][2]float64{{0, 1000}, {30, 10}, {61, 10}}, now: 61, k: 60, want: 20.0 / 60, ok: true},
		{name: "a whole window without data: the next write starts a partial window",
			writes: [][2]float64{{0, 1000}, {100, 8}, {101, 4}}, now: 101, k: 60, want: 6, ok: true},
		{name: "nothing within the span: no average",
			writes: [][2]float64{{0, 5}}, now: 60, k: 60, ok: false},
		{name: "the clock went back: the window starts again",
			writes: [][2]float64{{50, 1000}, {10, 7}}, now: 10, k: 60, want: 7, ok: true},
		{name: "a later value in the same bucket replaces the earlier",
			writes: [][2]float64{{0, 4}, {1, 9}, {1, 3}}, now: 1, k: 60, want: 3.5, ok: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var r Ring
			if err := r.Reset(time.Minute, time.Second); err != nil {
				t.Fatal(err)
			}
			for _, w := range c.writes {
				r.Record(at(int(w[0])), w[1])
			}
			got, ok := r.Average(at(c.now), c.k)
			if ok != c.ok || got != c.want {
				t.Errorf("Average = %v, %v; want %v, %v", got, ok, c.want, c.ok)
			}
		})
	}
}

func TestResetBounds(t *testing.T) {
	var r Ring
	for _, c := range []struct {
		length, width time.Duration
		buckets       int
		err           bool
	}{
		{time.Minute, time.Second, 60, false},
		{time.Minute, 10 * time.Second, 6, false},
		{6 * time.Second, 10 * time.Second, 1, false},
		{65 * time.Second, 10 * time.Second, 7, false},
		{101 * time.Second, time.Second, 0, true},
		{time.Minute, 0, 0, true},
		{0, time.Second, 0, true},
	} {
		err := r.Reset(c.length, c.width)
		if (err != nil) != c.err || (err == nil && r.Len() != c.buckets) {
			t.Errorf("Reset(%v, %v) = %v with %d buckets; want error %v, %d buckets", c.length, c.width, err, r.Len(), c.err, c.buckets)
		}
	}
}

func TestRingSize(t *testing.T) {
	if s := unsafe.Sizeof(Ring{}); s > 850 {
		t.Errorf("a Ring is %d bytes; the source autoscaler's budget is 1 KiB a source", s)
	}
}

func TestRecordAllocatesNothing(t *testing.T) {
	var r Ring
	_ = r.Reset(time.Minute, time.Second)
	s := 0
	if n := testing.AllocsPerRun(100, func() {
		s++
		r.Record(at(s), float64(s))
		_, _ = r.Average(at(s), 60)
	}); n != 0 {
		t.Errorf("Record and Average allocate %v times", n)
	}
}

func TestSinceAndLatest(t *testing.T) {
	var r Ring
	_ = r.Reset(time.Minute, time.Second)
	if _, ok := r.Latest(); ok || r.Since(at(5)) != 0 || !r.Empty() {
		t.Fatal("an empty ring has a latest value or an age")
	}
	r.Record(at(2), 5)
	r.Record(at(4), 9)
	if v, ok := r.Latest(); !ok || v != 9 {
		t.Errorf("Latest = %v, %v; want 9, true", v, ok)
	}
	if d := r.Since(at(10)); d != 8*time.Second {
		t.Errorf("Since = %v; want 8s", d)
	}
}
