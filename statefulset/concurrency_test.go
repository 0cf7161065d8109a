package statefulset

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand"
	"strings"
	"sync"
	"testing"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/framework"
)

func TestConcurrentScheduleNeverOverfills(t *testing.T) {
	const (
		workers  = 16
		perGo    = 3 // sources per worker
		rounds   = 15
		capacity = 4
	)
	c := zones3(t, 6) // 24 slots for up to 48*6 wanted: most calls compete
	s := c.start(func(cfg *Config) {
		cfg.Capacity = capacity
		cfg.Profiles = profilesFromData(t, kafkaHAScheduler, designDescheduler)
	})
	for w := 0; w < workers; w++ {
		for i := 0; i < perGo; i++ {
			c.store.create(fmt.Sprintf("w%02d-%d", w, i), 0)
		}
	}

	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			rng := rand.New(rand.NewSource(int64(w)))
			for r := 0; r < rounds; r++ {
				name := fmt.Sprintf("w%02d-%d", w, rng.Intn(perGo))
				want := int32(rng.Intn(7))
				src := c.store.scale(name, want)
				ps, err := s.Schedule(quietCtx(), src)
				if err != nil && !errors.Is(err, vsched.ErrNotEnoughReplicas) {
					errs <- err
					return
				}
				if got := vsched.TotalVReplicas(ps) + vsched.PendingCount(err); got != want {
					errs <- fmt.Errorf("%s: placed+pending = %d, want %d", name, got, want)
					return
				}
				c.store.writeStatus(name, ps)
			}
		}(w)
	}
	// Meanwhile the cluster changes and resyncs run: the informer
	// handlers and Resync take the same lock as Schedule.
	for i := 0; i < 4; i++ {
		c.cordon("node-c", i%2 == 0)
		if err := s.Resync(quietCtx()); err != nil {
			t.Fatal(err)
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}

	// What the scheduler counts and what the statuses say must agree,
	// and neither may overfill a pod.
	if err := s.Resync(quietCtx()); err != nil {
		t.Fatal(err)
	}
	fromStatus := map[int32]int32{}
	list, _ := c.store.List()
	for _, v := range list {
		for ord, n := range counts(t, v.GetPlacements()) {
			fromStatus[ord] += n
		}
	}
	u := used(s)
	for ord := int32(0); ord < 6; ord++ {
		if u[ord] > capacity || fromStatus[ord] > capacity {
			t.Errorf("adapter-%d over capacity: state %d, statuses %d", ord, u[ord], fromStatus[ord])
		}
		if u[ord] != fromStatus[ord] {
			t.Errorf("adapter-%d: state counts %d, statuses hold %d", ord, u[ord], fromStatus[ord])
		}
	}
}

func TestDeterministicPlacements(t *testing.T) {
	// Two fresh schedulers over identical clusters, fed the same calls,
	// must answer identically: placements depend on nothing but inputs
	// (no map order, no time).
	run := func() string {
		c := zones3(t, 9)
		s := c.start(func(cfg *Config) {
			cfg.Capacity = 3
			cfg.Profiles = profilesFromData(t, kafkaHAScheduler, designDescheduler)
		})
		rng := rand.New(rand.NewSource(7))
		var out strings.Builder
		for i := 0; i < 60; i++ {
			name := fmt.Sprintf("s%d", rng.Intn(8))
			if c.store.get(name) == nil {
				c.store.create(name, 0)
			}
			c.store.scale(name, int32(rng.Intn(9)))
			ps, err := s.Schedule(quietCtx(), c.store.get(name))
			if err != nil && !errors.Is(err, vsched.ErrNotEnoughReplicas) {
				t.Fatal(err)
			}
			c.store.writeStatus(name, ps)
			fmt.Fprintf(&out, "%s %v pending=%d\n", name, ps, vsched.PendingCount(err))
		}
		return out.String()
	}
	first, second := run(), run()
	if first != second {
		t.Fatalf("two runs differ:\n%s\n---\n%s", first, second)
	}
}

func TestWithExplanation(t *testing.T) {
	c := zones3(t, 6)
	s := c.start()
	c.store.create("a", 2)

	ex := &framework.Explanation{}
	ps, err := s.Schedule(WithExplanation(quietCtx(), ex), c.store.get("a"))
	if err != nil {
		t.Fatal(err)
	}
	c.store.writeStatus("a", ps)
	wantPlacements(t, ps, 0, 1, 1, 1)
	if ex.Mode != framework.Place || ex.Key != srcKey("a") || len(ex.Steps) != 2 {
		t.Fatalf("explanation = mode %v, key %v, %d steps; want place, a, 2", ex.Mode, ex.Key, len(ex.Steps))
	}
	for i, want := range []int32{0, 1} {
		st := ex.Steps[i]
		if st.Winner != want || st.WinnerPod != vsched.PodName(testSet, want) {
			t.Errorf("step %d winner %d (%s), want adapter-%d", i+1, st.Winner, st.WinnerPod, want)
		}
		// An explanation evaluates every candidate, each with every
		// score plugin of the default policy.
		if len(st.Candidates) != 6 {
			t.Errorf("step %d lists %d candidates, want all 6", i+1, len(st.Candidates))
		}
		for _, cand := range st.Candidates {
			if !cand.Feasible || len(cand.Scores) != 4 {
				t.Errorf("step %d, %s: feasible %v with %d scores", i+1, cand.Pod, cand.Feasible, len(cand.Scores))
			}
		}
	}
	var text bytes.Buffer
	if err := ex.WriteText(&text); err != nil || !strings.Contains(text.String(), "vreplica 2 -> adapter-1") {
		t.Fatalf("WriteText = %v:\n%s", err, text.String())
	}

	// A scale-down explains the descheduler's choice: holders only, and
	// the highest ordinal goes when everything else ties.
	c.store.scale("a", 1)
	ex = &framework.Explanation{}
	ps, err = s.Schedule(WithExplanation(quietCtx(), ex), c.store.get("a"))
	if err != nil {
		t.Fatal(err)
	}
	wantPlacements(t, ps, 0, 1)
	if ex.Mode != framework.Remove || len(ex.Steps) != 1 || ex.Steps[0].Winner != 1 || len(ex.Steps[0].Candidates) != 2 {
		t.Fatalf("scale-down explanation = %+v", ex)
	}

	// Asking for an explanation does not change the answer.
	c.store.create("b", 5)
	c.store.create("b2", 5)
	plain, err := s.Schedule(quietCtx(), c.store.get("b"))
	if err != nil {
		t.Fatal(err)
	}
	s.Forget(srcKey("b"))
	explained, err := s.Schedule(WithExplanation(quietCtx(), &framework.Explanation{}), c.store.get("b2"))
	if err != nil {
		t.Fatal(err)
	}
	if short(plain) != short(explained) {
		t.Fatalf("with an explanation [%s], without [%s]", short(explained), short(plain))
	}
}
