package sourceautoscaler

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/vsched/vsched/config"
	"github.com/vsched/vsched/sourceautoscaler/decision"
	"github.com/vsched/vsched/sourceautoscaler/signal"
	"github.com/vsched/vsched/sourceautoscaler/signal/scripted"
)

var t0 = time.Unix(1_000_000, 0)

func key(i int) types.NamespacedName {
	return types.NamespacedName{Namespace: "ns", Name: fmt.Sprintf("s%04d", i)}
}

// recorder is a Writer that remembers what it wrote, and can fail.
type recorder struct {
	mu     sync.Mutex
	counts map[types.NamespacedName]int32
	writes int
	fail   func(types.NamespacedName) error
}

func newRecorder() *recorder { return &recorder{counts: map[types.NamespacedName]int32{}} }

func (r *recorder) WriteVReplicas(_ context.Context, k types.NamespacedName, n int32) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.fail != nil {
		if err := r.fail(k); err != nil {
			return err
		}
	}
	r.writes++
	r.counts[k] = n
	return nil
}

type fixture struct {
	a     *Autoscaler
	clock *clocktesting.FakeClock
	w     *recorder
	prov  []*scripted.Provider
}

func newFixture(t testing.TB, providers int, mutate func(*Options)) *fixture {
	t.Helper()
	f := &fixture{clock: clocktesting.NewFakeClock(t0), w: newRecorder()}
	var ps []signal.Provider
	for i := 0; i < providers; i++ {
		p := scripted.New(fmt.Sprintf("p%d", i), f.clock.Now)
		f.prov = append(f.prov, p)
		ps = append(ps, p)
	}
	o := Options{Providers: ps, Writer: f.w, Clock: f.clock}
	if mutate != nil {
		mutate(&o)
	}
	a, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	f.a = a
	return f
}

// TestOneRoundPerProviderPerCycle: 1,000 sources over two providers cost
// two requests a cycle; KEDA's model (a ScaledObject each) costs 1,000.
func TestOneRoundPerProviderPerCycle(t *testing.T) {
	f := newFixture(t, 2, nil)
	const n = 1000
	for i := 0; i < n; i++ {
		f.prov[i%2].SetSeries(key(i).String(), scripted.Constant(150))
		if err := f.a.Upsert(Source{Key: key(i), Provider: fmt.Sprintf("p%d", i%2), VReplicas: 2}); err != nil {
			t.Fatal(err)
		}
	}
	const cycles = 5
	for c := 0; c < cycles; c++ {
		st := f.a.Cycle(context.Background())
		if st.Rounds != 2 || st.Due != n || st.Failed != 0 {
			t.Fatalf("cycle %d: %+v; want 2 rounds for %d sources", c, st, n)
		}
		f.clock.Step(10 * time.Second)
	}
	var rounds, targets int
	for _, p := range f.prov {
		r, n := p.Calls()
		rounds, targets = rounds+r, targets+n
	}
	kedaRequests := n * cycles // one query a ScaledObject a polling interval
	if rounds != 2*cycles || targets != n*cycles {
		t.Errorf("%d requests for %d targets; want %d (KEDA's model: %d)", rounds, targets, 2*cycles, kedaRequests)
	}
}

// TestPollingIntervalPerSource: a source is fetched when its own polling
// interval has passed; the tick does not make it poll faster.
func TestPollingIntervalPerSource(t *testing.T) {
	f := newFixture(t, 1, nil)
	f.prov[0].SetSeries("ns/s0000", scripted.Constant(100))
	f.prov[0].SetSeries("ns/s0001", scripted.Constant(100))
	_ = f.a.Upsert(Source{Key: key(0), VReplicas: 1})
	_ = f.a.Upsert(Source{Key: key(1), VReplicas: 1, Annotations: map[string]string{config.AnnotationPrefix + config.KeyPollingInterval: "30"}})
	var due []int
	for s := 0; s <= 60; s += 10 {
		due = append(due, f.a.Cycle(context.Background()).Due)
		f.clock.Step(10 * time.Second)
	}
	if diff := cmp.Diff([]int{2, 1, 1, 2, 1, 1, 2}, due); diff != "" {
		t.Errorf("sources due per cycle (-want +got):\n%s", diff)
	}
}

// TestFollowsTheSignal: a burst takes the source up in panic at once and
// the count is written; the write is what the next decision starts from.
func TestFollowsTheSignal(t *testing.T) {
	var modes []decision.Mode
	f := newFixture(t, 1, func(o *Options) {
		o.OnDecision = func(_ types.NamespacedName, d decision.Decision, err error) {
			if err != nil {
				t.Errorf("write error %v", err)
			}
			modes = append(modes, d.Mode)
		}
	})
	k := key(0)
	f.prov[0].SetSeries(k.String(), scripted.Burst(200, 1200, t0.Add(20*time.Second), time.Hour))
	_ = f.a.Upsert(Source{Key: k, VReplicas: 2})
	var counts []int32
	for i := 0; i < 4; i++ {
		f.a.Cycle(context.Background())
		counts = append(counts, f.w.counts[k])
		f.clock.Step(10 * time.Second)
	}
	if diff := cmp.Diff([]int32{0, 0, 12, 12}, counts); diff != "" {
		t.Errorf("written counts (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]decision.Mode{decision.Stable, decision.Stable, decision.Panic, decision.Panic}, modes); diff != "" {
		t.Errorf("modes (-want +got):\n%s", diff)
	}
}

// TestNothingWhileNotLeading: no round, no write while not leading; a
// leadership lost between the decision and the write drops the write.
func TestNothingWhileNotLeading(t *testing.T) {
	var leading atomic.Bool
	var errs []error
	f := newFixture(t, 1, func(o *Options) {
		o.IsLeader = leading.Load
		o.OnDecision = func(_ types.NamespacedName, _ decision.Decision, err error) { errs = append(errs, err) }
	})
	k := key(0)
	f.prov[0].SetSeries(k.String(), scripted.Constant(900))
	_ = f.a.Upsert(Source{Key: k, VReplicas: 1})
	if st := f.a.Cycle(context.Background()); st != (Stats{}) {
		t.Errorf("not leading: %+v", st)
	}
	leading.Store(true)
	f.w.fail = func(types.NamespacedName) error { return errors.New("unreachable") }
	// The provider's round demotes this replica: the decision is made,
	// the write must not be.
	f.prov[0].SetSeries(k.String(), func(time.Time) float64 { leading.Store(false); return 900 })
	st := f.a.Cycle(context.Background())
	if st.Due != 1 || st.Written != 0 || len(errs) != 1 || !errors.Is(errs[0], ErrNotLeader) {
		t.Errorf("demoted mid-cycle: %+v, errors %v", st, errs)
	}
	if r, _ := f.prov[0].Calls(); r != 1 {
		t.Errorf("%d rounds; want 1 (none while not leading)", r)
	}
}

// TestProviderFaults: a failed round and a hung one (its context times
// out) keep the count; stale samples too; the cycle returns in time.
func TestProviderFaults(t *testing.T) {
	cfg := config.DefaultSourceAutoscalerConfig()
	cfg.FetchTimeout = 20 * time.Millisecond
	f := newFixture(t, 1, func(o *Options) { o.Config = func() *config.SourceAutoscalerConfig { return cfg } })
	k := key(0)
	f.prov[0].SetSeries(k.String(), scripted.Constant(500))
	_ = f.a.Upsert(Source{Key: k, VReplicas: 5})
	step := func() (Stats, decision.Decision) {
		st := f.a.Cycle(context.Background())
		f.clock.Step(10 * time.Second)
		e, _ := f.a.Explain(k)
		return st, e.Decision
	}
	step()
	f.prov[0].FailNext(errors.New("broker down"))
	if st, d := step(); st.Failed != 1 || d.Mode != decision.Fallback || d.Desired != 5 {
		t.Errorf("failed round: %+v %+v", st, d)
	}
	f.prov[0].Hang(true)
	start := time.Now()
	if st, d := step(); st.Failed != 1 || d.Mode != decision.Fallback || d.Desired != 5 {
		t.Errorf("hung round: %+v %+v", st, d)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("a hung provider held the cycle %v", took)
	}
	f.prov[0].Hang(false)
	f.prov[0].Stale(time.Hour)
	if _, d := step(); d.Mode != decision.Fallback || d.Desired != 5 || d.Missing != 3 {
		t.Errorf("stale samples: %+v", d)
	}
	if f.w.writes != 0 {
		t.Errorf("%d writes while the signal was missing", f.w.writes)
	}
}

// deleting is a provider that deletes a source while its round is in
// flight.
type deleting struct {
	signal.Provider
	a   *Autoscaler
	key types.NamespacedName
}

func (d deleting) Fetch(ctx context.Context, ts []signal.Target, out []signal.Sample) error {
	d.a.Delete(d.key)
	return d.Provider.Fetch(ctx, ts, out)
}

// TestDeletedInFlight: a source deleted during its round is neither decided
// nor written; re-created, it starts afresh.
func TestDeletedInFlight(t *testing.T) {
	clk := clocktesting.NewFakeClock(t0)
	inner := scripted.New("p", clk.Now)
	w := newRecorder()
	k := key(0)
	d := &deleting{Provider: inner, key: k}
	a, err := New(Options{Providers: []signal.Provider{d}, Writer: w, Clock: clk})
	if err != nil {
		t.Fatal(err)
	}
	d.a = a
	inner.SetSeries(k.String(), scripted.Constant(5000))
	_ = a.Upsert(Source{Key: k, VReplicas: 1})
	if st := a.Cycle(context.Background()); st.Due != 0 || w.writes != 0 {
		t.Errorf("deleted in flight: %+v, %d writes", st, w.writes)
	}
	if _, ok := a.Explain(k); ok {
		t.Error("a deleted source is still explained")
	}
	// Deleted between the decision and the write: the writer says NotFound.
	d.key = key(99)
	w.fail = func(types.NamespacedName) error {
		return apierrors.NewNotFound(schema.GroupResource{Resource: "samplesources"}, k.Name)
	}
	_ = a.Upsert(Source{Key: k, VReplicas: 1})
	if st := a.Cycle(context.Background()); st.Due != 1 || st.Written != 0 || st.WriteErrors != 0 {
		t.Errorf("gone at the write: %+v", st)
	}
}

// TestBrokenAnnotations: reported once, the defaults apply.
func TestBrokenAnnotations(t *testing.T) {
	var problems []string
	f := newFixture(t, 1, func(o *Options) {
		o.OnProblem = func(k types.NamespacedName, err error) { problems = append(problems, k.Name+": "+err.Error()) }
	})
	k := key(0)
	f.prov[0].SetSeries(k.String(), scripted.Constant(300))
	_ = f.a.Upsert(Source{Key: k, VReplicas: 1, Annotations: map[string]string{config.AnnotationPrefix + config.KeyMaxScale: "lots"}})
	f.a.Cycle(context.Background())
	f.clock.Step(10 * time.Second)
	f.a.Cycle(context.Background())
	if len(problems) != 1 {
		t.Errorf("problems %q; want one", problems)
	}
	if e, _ := f.a.Explain(k); e.Policy.Max != 50 || e.Decision.Desired != 3 || e.Problem == nil {
		t.Errorf("explanation %+v", e)
	}
}

func TestUnknownProvider(t *testing.T) {
	f := newFixture(t, 1, nil)
	if err := f.a.Upsert(Source{Key: key(0), Provider: "kafka"}); err == nil {
		t.Error("a source of an unknown provider was accepted")
	}
}

// TestLeaderChangeInPanic: a replica that panicked to 12, lost and won the
// lease again starts a new term with empty windows and does not read its
// first low sample as a reason to shrink: it keeps 12 for a stable window.
func TestLeaderChangeInPanic(t *testing.T) {
	var leading atomic.Bool
	leading.Store(true)
	f := newFixture(t, 1, func(o *Options) { o.IsLeader = leading.Load })
	k := key(0)
	f.prov[0].SetSeries(k.String(), scripted.Step(1200, 200, t0.Add(15*time.Second)))
	_ = f.a.Upsert(Source{Key: k, VReplicas: 2})
	var got []int32
	cycle := func() {
		f.a.Cycle(context.Background())
		e, _ := f.a.Explain(k)
		got = append(got, e.Decision.Desired)
		f.clock.Step(10 * time.Second)
	}
	cycle() // 12, panic
	leading.Store(false)
	cycle() // nothing
	leading.Store(true)
	for i := 0; i < 7; i++ {
		cycle()
	}
	// The second entry repeats the first (no decision while not leading);
	// then 12 is held until a stable window after the new term's first
	// cycle (20 s), i.e. at 80 s: (6 x 200)/6 asks 2, rate-limited to 6.
	if diff := cmp.Diff([]int32{12, 12, 12, 12, 12, 12, 12, 12, 6}, got); diff != "" {
		t.Errorf("desired per cycle (-want +got):\n%s", diff)
	}
}
