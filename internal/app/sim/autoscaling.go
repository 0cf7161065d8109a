package sim

import (
	"context"
	"fmt"
	"maps"
	"sort"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/otel/metric/noop"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/record"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/autoscaler"
	"github.com/vsched/vsched/config"
)

// maxCompactCycles bounds a compact step: compaction that has not settled
// after this many autoscaler cycles is reported rather than run forever.
const maxCompactCycles = 200

// maxNotes bounds the notes one step records.
const maxNotes = 24

// autoscaling runs the real autoscaler (and, through it, the evictor) for
// autoscale and compact steps, and plays the controllers around them: the
// source controller schedules the sources the evictor requeues, and the
// StatefulSet controller makes the pods follow spec.replicas, ready at once.
type autoscaling struct {
	sim      *simulation
	auto     *autoscaler.Autoscaler
	recorder *record.FakeRecorder

	mu      sync.Mutex
	evicted []types.NamespacedName
	// next is when the autoscaler's loop runs its next cycle, one refresh
	// period after the last (advance).
	next time.Time
}

func newAutoscaling(ctx context.Context, sim *simulation, cfg config.AutoscalerSource) (*autoscaling, error) {
	a := &autoscaling{sim: sim, recorder: record.NewFakeRecorder(1000)}
	var err error
	a.auto, err = autoscaler.New(ctx, autoscaler.Options{
		Scheduler:     sim.sched,
		Client:        sim.cluster.Client(),
		Recorder:      a.recorder,
		Config:        cfg,
		Cache:         autoscaler.CacheFromFactory(sim.cluster.InformerFactory()),
		Requeue:       a.evict,
		Clock:         sim.cluster.Clock(),
		MeterProvider: noop.NewMeterProvider(),
		Usage:         triggerUsage{reader: sim.cluster.UsageReader(), resources: sim.s.podResources(), now: sim.cluster.Clock().Now},
	})
	if err != nil {
		return nil, err
	}
	a.cycled()
	return a, nil
}

// evict is the autoscaler's Requeue: it queues the source, as a controller's work queue
// would, for scheduling once the cycle is over.
func (a *autoscaling) evict(_ context.Context, key types.NamespacedName) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.evicted = append(a.evicted, key)
	return nil
}

// takeEvicted returns the queued sources, sorted and without duplicates.
func (a *autoscaling) takeEvicted() []types.NamespacedName {
	a.mu.Lock()
	keys := a.evicted
	a.evicted = nil
	a.mu.Unlock()
	sort.Slice(keys, func(i, j int) bool { return keys[i].String() < keys[j].String() })
	out := keys[:0]
	for i, k := range keys {
		if i == 0 || k != keys[i-1] {
			out = append(out, k)
		}
	}
	return out
}

// autoscale runs one autoscaler cycle.
func (a *autoscaling) autoscale(ctx context.Context) ([]string, error) {
	var notes []string
	_, _, err := a.cycle(ctx, &notes)
	return notes, err
}

// compact runs autoscaler cycles until one changes nothing: no resize, no
// new or lifted drain, no source to move. The clock does not move, so the
// stabilization window and the cooldown apply as they stand.
//
// It returns the step's notes and each cycle's result, so that the JSON
// shows how the compaction got where it ended.
func (a *autoscaling) compact(ctx context.Context) ([]string, []CycleResult, error) {
	var notes []string
	var cycles []CycleResult
	for i := 0; i < maxCompactCycles; i++ {
		changed, cr, err := a.cycle(ctx, &notes)
		if err != nil {
			return capNotes(notes), cycles, err
		}
		cr.Cycle = i + 1
		cycles = append(cycles, cr)
		if !changed {
			if i > 0 {
				notes = append(notes, fmt.Sprintf("compaction settled after %d autoscaler cycle(s)", i+1))
			}
			return capNotes(notes), cycles, nil
		}
	}
	notes = append(notes, fmt.Sprintf("compaction had not settled after %d autoscaler cycles", maxCompactCycles))
	return capNotes(notes), cycles, nil
}

func capNotes(notes []string) []string {
	if len(notes) <= maxNotes {
		return notes
	}
	return append(notes[:maxNotes-1], fmt.Sprintf("... and %d more", len(notes)-maxNotes+1))
}

// cycle runs one autoscaler cycle, schedules the sources the evictor
// requeued, and lets the StatefulSet's pods follow. It reports whether
// anything changed, and what the cycle did.
func (a *autoscaling) cycle(ctx context.Context, notes *[]string) (bool, CycleResult, error) {
	var cr CycleResult
	first := len(*notes)
	before := a.auto.Marks()
	dec, err := a.auto.Reconcile(ctx)
	if err != nil {
		return false, cr, fmt.Errorf("autoscaler: %w", err)
	}
	events := a.events()
	*notes = append(*notes, events...)
	if len(events) == 0 {
		if dec.Action == autoscaler.ActionNone {
			*notes = append(*notes, fmt.Sprintf("autoscaler: no change at %d replicas: %s", dec.Current, dec.Reason))
		} else {
			*notes = append(*notes, fmt.Sprintf("autoscaler %s: %s", dec.Action, dec.Reason))
		}
	}
	after := a.auto.Marks()
	requeued := a.takeEvicted()
	for _, k := range requeued {
		cr.Requeued = append(cr.Requeued, k.String())
	}
	if len(requeued) > 0 {
		*notes = append(*notes, "evictor requeued "+strings.Join(cr.Requeued, ", "))
	}
	if err := a.settle(ctx, before, after); err != nil {
		return false, cr, err
	}
	placed := false
	for _, k := range requeued {
		v, err := a.sim.sources.Get(k)
		if err != nil {
			continue // deleted meanwhile
		}
		old := v.GetPlacements()
		if err := a.sim.reconcile(ctx, k); err != nil {
			return false, cr, fmt.Errorf("%s: %w", k, err)
		}
		if nv, err := a.sim.sources.Get(k); err == nil && !vsched.SamePlacements(old, nv.GetPlacements()) {
			placed = true
			cr.Moved += moved(old, nv.GetPlacements())
		}
	}
	cr.Replicas = a.sim.cluster.Replicas()
	cr.Draining = a.drainingPods(after)
	cr.Notes = append([]string(nil), (*notes)[first:]...)
	changed := dec.Written || placed || !maps.Equal(before, after)
	a.cycled()
	return changed, cr, nil
}

// drainingPods names the pods marked draining, in ordinal order.
func (a *autoscaling) drainingPods(marks map[int32]string) []string {
	ords := make([]int32, 0, len(marks))
	for o := range marks {
		ords = append(ords, o)
	}
	sort.Slice(ords, func(i, j int) bool { return ords[i] < ords[j] })
	out := make([]string, len(ords))
	for i, o := range ords {
		out[i] = vsched.PodName(a.sim.cluster.StatefulSetName(), o)
	}
	return out
}

// events drains the autoscaler's Events, as notes: "ScaledUp: scaled from
// 3 to 6 replicas: ...".
func (a *autoscaling) events() []string {
	var out []string
	for {
		select {
		case ev := <-a.recorder.Events:
			// "Normal ScaledUp message": drop the type.
			_, rest, ok := strings.Cut(ev, " ")
			if !ok {
				rest = ev
			}
			if reason, msg, ok := strings.Cut(rest, " "); ok {
				rest = reason + ": " + msg
			}
			out = append(out, rest)
		default:
			// The autoscaler emits the drains of one cycle in map
			// order; sort each run of events of one reason so the
			// output does not change from run to run.
			for i := 0; i < len(out); {
				j := i + 1
				for j < len(out) && eventReason(out[j]) == eventReason(out[i]) {
					j++
				}
				sort.Strings(out[i:j])
				i = j
			}
			return out
		}
	}
}

func eventReason(note string) string {
	r, _, _ := strings.Cut(note, ":")
	return r
}

// settle plays the StatefulSet controller and waits for the informers: the
// pods follow spec.replicas as the autoscaler wrote it, and the pods whose
// draining annotation the evictor changed are written again through the
// cluster, so that Sync waits until the scheduler has seen the change (the
// autoscaler writes through the clientset, which the cluster does not
// track).
func (a *autoscaling) settle(ctx context.Context, before, after map[int32]string) error {
	c := a.sim.cluster
	ann := c.DrainingAnnotation()
	ords := map[int32]bool{}
	for o := range before {
		ords[o] = true
	}
	for o := range after {
		ords[o] = true
	}
	sorted := make([]int32, 0, len(ords))
	for o := range ords {
		sorted = append(sorted, o)
	}
	sort.Slice(sorted, func(i, j int) bool { return sorted[i] < sorted[j] })
	for _, o := range sorted {
		pod, err := c.Pod(o)
		if apierrors.IsNotFound(err) {
			continue
		}
		if err != nil {
			return err
		}
		if v, ok := pod.Annotations[ann]; ok {
			err = c.AnnotatePod(o, ann, v)
		} else {
			err = c.RemovePodAnnotation(o, ann)
		}
		if err != nil && !apierrors.IsNotFound(err) {
			return err
		}
	}
	set, err := c.StatefulSet()
	if err != nil {
		return err
	}
	if set.Spec.Replicas != nil && *set.Spec.Replicas != c.Replicas() {
		if err := c.ScaleTo(*set.Spec.Replicas); err != nil {
			return err
		}
	}
	return c.Sync(ctx)
}
