package autoscaler

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/types"
)

// TestLagTraceTail: the trace keeps the last lines in order, and says how
// many it dropped before what it prints.
func TestLagTraceTail(t *testing.T) {
	for _, tc := range []struct {
		name  string
		lines int
		n     int
		want  string
	}{
		{"empty", 0, 3, ""},
		{"fewer than asked", 2, 3, "line 1\nline 2\n"},
		{"the last n", 5, 2, "(3 earlier trace lines not kept)\nline 4\nline 5\n"},
		{"past the ring", lagTraceLines + 2, 2, fmt.Sprintf("(%d earlier trace lines not kept)\nline %d\nline %d\n", lagTraceLines, lagTraceLines+1, lagTraceLines+2)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var l lagTraceLog
			for i := 1; i <= tc.lines; i++ {
				l.add(fmt.Sprintf("line %d", i))
			}
			if diff := cmp.Diff(tc.want, l.tail(tc.n)); diff != "" {
				t.Errorf("tail(%d) after %d lines (-want +got):\n%s", tc.n, tc.lines, diff)
			}
		})
	}
}

// TestKeyQueueTakeSorted: take returns the keys sorted, whatever order
// concurrent workers added them in, once each.
func TestKeyQueueTakeSorted(t *testing.T) {
	var q keyQueue
	for _, n := range []string{"src-03", "src-01", "src-03", "src-02"} {
		q.add(types.NamespacedName{Namespace: "sources", Name: n})
	}
	q.add(types.NamespacedName{Namespace: "a", Name: "src-09"})
	want := []types.NamespacedName{{Namespace: "a", Name: "src-09"}, {Namespace: "sources", Name: "src-01"}, {Namespace: "sources", Name: "src-02"}, {Namespace: "sources", Name: "src-03"}}
	if diff := cmp.Diff(want, q.take()); diff != "" {
		t.Errorf("take (-want +got):\n%s", diff)
	}
	if got := q.take(); len(got) != 0 {
		t.Errorf("second take = %v, want nothing", got)
	}
}
