package autoscaler

import (
	"fmt"
	"math"
	"math/rand"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/config"
)

// TestAutoscalerDay runs a simulated day of load on the in-memory cluster:
// 40 sources whose demand follows a diurnal curve (trough at 02:00, peak at
// 14:00) plus random bursts that double a few sources for 10 to 40
// minutes. Time advances in ticks on the fake clock; each tick the source
// controller schedules what changed or was requeued, the StatefulSet
// controller creates pods PodStart after spec.replicas grows (and deletes
// them at once when it shrinks), and the autoscaler runs every refresh
// period and whenever a Schedule left vreplicas pending, as Run does. It
// reports the StatefulSet updates, the longest time a vreplica waited, and
// the idle capacity over the day, and checks that
//   - no scale-down is followed within the stabilization window by a
//     scale-up unless demand rose in between;
//   - every pending vreplica is placed within one refresh period plus the
//     pod start time (plus one tick, the simulation's resolution).
//
// Run with -v to see the figures.
func TestAutoscalerDay(t *testing.T) {
	if testing.Short() {
		t.Skip("a simulated day takes a while")
	}
	const (
		tick     = 10 * time.Second
		day      = 24 * time.Hour
		podStart = 20 * time.Second
		refresh  = 30 * time.Second
		window   = 5 * time.Minute
		sources  = 40
		capacity = 10
	)
	e := newEnv(t, envOpts{replicas: 3, nodesPerZone: 2, capacity: capacity, config: func(c *config.AutoscalerConfig) {
		c.RefreshPeriod = refresh
		c.StabilizationWindow = window
		c.ScaleDownCooldown = window
		c.MaxReplicas = 90
		c.MinReplicas = 3
	}})
	rng := rand.New(rand.NewSource(7))

	// Demand: base in [2, 12] at the peak, 25% of it at the trough.
	base := make([]float64, sources)
	for i := range base {
		base[i] = 2 + rng.Float64()*10
	}
	type burst struct {
		src      int
		from, to time.Duration
	}
	var bursts []burst
	for i := 0; i < 30; i++ {
		from := time.Duration(rng.Int63n(int64(day - time.Hour)))
		bursts = append(bursts, burst{src: rng.Intn(sources), from: from, to: from + 10*time.Minute + time.Duration(rng.Int63n(int64(30*time.Minute)))})
	}
	demandAt := func(i int, at time.Duration) int32 {
		phase := 2 * math.Pi * (at - 2*time.Hour).Hours() / 24
		f := 0.25 + 0.75*(1-math.Cos(phase))/2
		v := base[i] * f
		for _, b := range bursts {
			if b.src == i && at >= b.from && at < b.to {
				v *= 2
			}
		}
		return int32(math.Round(v))
	}
	name := func(i int) string { return fmt.Sprintf("src-%02d", i) }
	want := make([]int32, sources)
	for i := range want {
		want[i] = demandAt(i, 0)
		if _, err := e.src.Create(e.key(name(i)), want[i]); err != nil {
			t.Fatal(err)
		}
		e.requeued.add(e.key(name(i)))
	}

	// The StatefulSet controller: pods follow spec.replicas, new ones
	// after podStart.
	var growAt time.Time
	statefulSetController := func(now time.Time) {
		spec := e.specReplicas()
		have := e.c.Replicas()
		switch {
		case spec < have:
			growAt = time.Time{}
			if err := e.c.ScaleTo(spec); err != nil {
				t.Fatal(err)
			}
		case spec > have && growAt.IsZero():
			growAt = now.Add(podStart)
		case spec > have && !now.Before(growAt):
			growAt = time.Time{}
			if err := e.c.ScaleTo(spec); err != nil {
				t.Fatal(err)
			}
		case spec == have:
			growAt = time.Time{}
		}
	}

	var (
		lastCycle      time.Time
		sizeChanges    int
		scaleUps       int
		scaleDowns     int
		compactions    int
		requeues       int
		pendingSince   = map[types.NamespacedName]time.Time{}
		peakPending    time.Duration
		peakPendingSrc types.NamespacedName
		idleIntegral   float64 // vreplica-seconds
		specIntegral   float64 // pod-seconds
		lastDown       time.Time
		demandAtDown   int64
		minReplicas    = int32(math.MaxInt32)
		maxReplicas    int32
		maxPendingNow  int64
	)
	totalDemand := func() int64 {
		var n int64
		for _, w := range want {
			n += int64(w)
		}
		return n
	}
	triggered := func() bool {
		select {
		case <-e.a.wake:
			return true
		default:
			return false
		}
	}

	for at := time.Duration(0); at <= day; at += tick {
		if at > 0 {
			e.step(tick)
		}
		now := e.clk.Now()
		// Demand changes.
		for i := range want {
			if w := demandAt(i, at); w != want[i] {
				want[i] = w
				if _, err := e.src.Update(e.key(name(i)), w); err != nil {
					t.Fatal(err)
				}
				e.requeued.add(e.key(name(i)))
			}
		}
		statefulSetController(now)
		e.sync()
		e.work()
		// The autoscaler, as Run schedules it.
		if triggered() && now.Sub(lastCycle) >= time.Second || now.Sub(lastCycle) >= refresh {
			lastCycle = now
			d := e.reconcile()
			requeues += len(d.Requeued)
			if d.Action == ActionCompact {
				compactions++
			}
			if d.Written {
				sizeChanges++
				if d.Target > d.Current {
					scaleUps++
					if !lastDown.IsZero() && now.Sub(lastDown) < window && totalDemand() <= demandAtDown {
						t.Errorf("%v: scale-up %d->%d %v after a scale-down, demand %d not above %d", at, d.Current, d.Target, now.Sub(lastDown), totalDemand(), demandAtDown)
					}
				} else {
					scaleDowns++
					lastDown, demandAtDown = now, totalDemand()
				}
			}
			statefulSetController(now)
			e.sync()
			e.work()
		}
		// Measurements.
		st := e.s.Snapshot()
		pending, pendingNow := st.Pending()
		used := st.TotalUsed()
		maxPendingNow = max(maxPendingNow, pendingNow)
		// Everything in a tick happens at its instant: a source pending
		// since an earlier tick and placed in this one waited until now.
		for k, since := range pendingSince {
			if w := now.Sub(since); w > peakPending {
				peakPending, peakPendingSrc = w, k
			}
			if pending[k] == 0 {
				delete(pendingSince, k)
			}
		}
		for k := range pending {
			if _, ok := pendingSince[k]; !ok {
				pendingSince[k] = now
			}
		}
		spec := e.specReplicas()
		minReplicas, maxReplicas = min(minReplicas, spec), max(maxReplicas, spec)
		idleIntegral += float64(int64(spec)*capacity-used) * tick.Seconds()
		specIntegral += float64(spec) * tick.Seconds()
	}

	// Every source holds what it wants at the end.
	for i := range want {
		if got := vsched.TotalVReplicas(e.placementsOf(name(i))); got != want[i] {
			t.Errorf("%s holds %d, wants %d", name(i), got, want[i])
		}
	}
	annotationPatches := 0
	for _, a := range e.c.Client().Actions() {
		if a.GetVerb() == "patch" && a.GetResource().Resource == "statefulsets" {
			annotationPatches++
		}
	}
	idleShare := idleIntegral / (specIntegral * capacity)
	t.Logf("simulated %v in %v ticks (pod start %v, refresh %v, window and cooldown %v)", day, tick, podStart, refresh, window)
	t.Logf("StatefulSet size updates: %d (%d up, %d down), timestamp annotation patches: %d; compaction cycles: %d, sources requeued by the evictor: %d",
		sizeChanges, scaleUps, scaleDowns, annotationPatches, compactions, requeues)
	t.Logf("replicas between %d and %d; peak pending vreplicas at once: %d", minReplicas, maxReplicas, maxPendingNow)
	t.Logf("peak pending time: %v (%s)", peakPending, peakPendingSrc)
	t.Logf("idle capacity: %.1f%% of the capacity paid for on average (%.0f vreplica-hours idle over %.0f pod-hours)",
		100*idleShare, idleIntegral/3600, specIntegral/3600)
	if bound := refresh + podStart + tick; peakPending > bound {
		t.Errorf("a vreplica waited %v, longer than refresh + pod start + one tick (%v)", peakPending, bound)
	}
	if scaleUps == 0 || scaleDowns == 0 {
		t.Errorf("the day never scaled both ways (%d up, %d down)", scaleUps, scaleDowns)
	}
}
