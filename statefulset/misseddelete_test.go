package statefulset

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vsched/vsched"
)

// Issue 20, item 2: sources deleted without Forget (a delete event missed
// across a restart) are forgotten by the next resync, whether the list is
// empty or still shows other sources, and their room goes to new sources.
func TestResyncForgetsMissedDeletes(t *testing.T) {
	for _, tt := range []struct {
		name    string
		fresh   bool     // Config.FreshLister is set
		remove  []string // deleted without Forget
		resyncs int      // resyncs before the room must be free
		want    map[int32]int32
	}{
		{name: "empty list, fresh lister", fresh: true, remove: []string{"a", "b"}, resyncs: 1, want: map[int32]int32{}},
		{name: "newest source deleted, fresh lister", fresh: true, remove: []string{"b"}, resyncs: 1, want: map[int32]int32{0: 4}},
		{name: "empty list, no fresh lister", remove: []string{"a", "b"}, resyncs: 2, want: map[int32]int32{}},
		{name: "newest source deleted, no fresh lister", remove: []string{"b"}, resyncs: 2, want: map[int32]int32{0: 4}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := zones3(t, 3)
			s := c.start(func(cfg *Config) {
				cfg.Profiles = lowestOrdinal(t)
				if tt.fresh {
					cfg.FreshLister = c.store.List
				}
			})
			for _, name := range []string{"a", "b"} {
				c.store.create(name, 4+2*int32(name[0]-'a'))
				scheduleOK(t, s, c, name)
				s.Observe(c.store.get(name))
			}
			for _, name := range tt.remove {
				c.store.remove(name)
			}
			for i := 0; i < tt.resyncs; i++ {
				if err := s.Resync(quietCtx()); err != nil {
					t.Fatal(err)
				}
			}
			if d := cmp.Diff(tt.want, used(s)); d != "" {
				t.Fatalf("used after %d resync(s) (-want +got):\n%s", tt.resyncs, d)
			}
			c.store.create("c", 10)
			ps := scheduleOK(t, s, c, "c")
			if got := vsched.TotalVReplicas(ps); got != 10 {
				t.Fatalf("a new source got [%s] after the missed deletes, want all 10 placed", short(ps))
			}
		})
	}
}
