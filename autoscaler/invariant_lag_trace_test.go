package autoscaler

import (
	"fmt"
	"math/rand"
	"strings"
	"sync"
)

// lagTraceLines is how many trace lines a run keeps; lagTraceTail how many
// of the last a failure prints.
const (
	lagTraceLines = 600
	lagTraceTail  = 200
)

// lagTraceLog is a run's trace, kept in memory whether or not
// VSCHED_INVARIANT_TRACE is set: a failure under -race that the soak finds
// once in hundreds of runs is rarely replayable (the workers' interleaving
// is not the seed's), so it prints what led to it. A ring of the last
// lagTraceLines lines; workers append to it concurrently.
type lagTraceLog struct {
	mu    sync.Mutex
	lines []string
	next  int // where the next line goes once the ring is full
	total int
}

func (l *lagTraceLog) add(line string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.total++
	if len(l.lines) < lagTraceLines {
		l.lines = append(l.lines, line)
		return
	}
	l.lines[l.next] = line
	l.next = (l.next + 1) % lagTraceLines
}

// tail is the last n lines, oldest first, with a note of how many were
// dropped before them.
func (l *lagTraceLog) tail(n int) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	ordered := append(append([]string(nil), l.lines[l.next:]...), l.lines[:l.next]...)
	if len(ordered) > n {
		ordered = ordered[len(ordered)-n:]
	}
	var b strings.Builder
	if skipped := l.total - len(ordered); skipped > 0 {
		fmt.Fprintf(&b, "(%d earlier trace lines not kept)\n", skipped)
	}
	for _, s := range ordered {
		b.WriteString(s)
		b.WriteByte('\n')
	}
	return b.String()
}

// tracef records a line of the run's trace, and logs it with
// VSCHED_INVARIANT_TRACE=1 (and -v).
func (w *lagWorld) tracef(format string, args ...any) {
	line := fmt.Sprintf(format, args...)
	w.trace.add(line)
	if lagTrace {
		w.t.Log(line)
	}
}

// stepRand is the random source of one operation: a function of the seed
// and the step alone. The workers' interleaving changes what the queue
// holds, and with one source for the whole run the number of draws a
// shuffle of it takes shifted every later operation; seeded per step,
// step N of a seed is the same operation in every run.
func stepRand(seed int64, step int) *rand.Rand {
	return rand.New(rand.NewSource(seed*1_000_003 + int64(step)))
}

// leaderView is what the leader counts for each source next to what the
// API server holds, for a failure's trace.
func (w *lagWorld) leaderView() string {
	var b strings.Builder
	for _, sv := range w.leader().s.Sources() {
		cur, _ := w.src.Get(sv.Key)
		fmt.Fprintf(&b, "%s counts %s: committed [%s], reserved [%s] from %q at %v; the API server holds %v\n",
			w.leader().name, sv.Key.Name, short(sv.Committed), short(sv.Reserved), sv.BasedOn, sv.ReservedAt, cur)
	}
	return b.String()
}

// heldKinds names the kinds whose informer events are held, for the
// trace's step lines.
func (w *lagWorld) heldKinds() string {
	var b strings.Builder
	for _, k := range lagKinds {
		if held, n := w.c.Held(k); held {
			fmt.Fprintf(&b, ", %s held (%d)", k, n)
		}
	}
	return b.String()
}
