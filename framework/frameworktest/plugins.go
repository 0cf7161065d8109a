package frameworktest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/vsched/vsched/framework"
)

// Names of the fake plugins. Each fake with a PluginName field uses it
// instead when set, so one profile can hold several of a kind.
const (
	CapacityName      = "FakeCapacity"
	RejectName        = "FakeReject"
	ScriptedName      = "FakeScripted"
	FailingName       = "FakeFailing"
	SkippingName      = "FakeSkipping"
	NormalizingName   = "FakeNormalizing"
	RecorderName      = "FakeRecorder"
	MaxPodsName       = "FakeMaxPods"
	ZoneSpreadName    = "FakeZoneSpread"
	NodeSpreadName    = "FakeNodeSpread"
	PodSpreadName     = "FakePodSpread"
	LowestOrdinalName = "FakeLowestOrdinal"
	ZoneCounterName   = "FakeZoneCounter"
)

func nameOr(name, def string) string {
	if name != "" {
		return name
	}
	return def
}

// zoneEquivalent makes the plugins embedding it EquivalenceAware and
// ZoneEquivalenceAware: each reads only what those promises allow.
type zoneEquivalent struct{}

// EquivalentWithinClass implements framework.EquivalenceAware.
func (zoneEquivalent) EquivalentWithinClass() bool { return true }

// EquivalentWithinZone implements framework.ZoneEquivalenceAware.
func (zoneEquivalent) EquivalentWithinZone() bool { return true }

// CapacityFilter rejects, when placing, pods without free capacity, as
// PodFitsResources does. It passes every pod when removing. It is
// equivalence-aware: a class only holds pods with free capacity, all of
// which pass.
type CapacityFilter struct{ zoneEquivalent }

var (
	_ framework.FilterPlugin     = CapacityFilter{}
	_ framework.CapacityEnforcer = CapacityFilter{}
	_ framework.EquivalenceAware = CapacityFilter{}
)

// CapacityReason is CapacityFilter's rejection reason.
const CapacityReason = "pod has no free capacity"

func (CapacityFilter) Name() string { return CapacityName }

// Filter implements framework.FilterPlugin.
func (CapacityFilter) Filter(_ context.Context, d *framework.Decision, ordinal int32) *framework.Status {
	if d.Mode() == framework.Place && d.Free(ordinal) <= 0 {
		return framework.NewStatus(framework.Unschedulable, CapacityReason)
	}
	return nil
}

// EnforcesCapacity implements framework.CapacityEnforcer.
func (CapacityFilter) EnforcesCapacity() bool { return true }

// RejectFilter rejects the listed ordinals. It is not equivalence-aware: two
// pods of one class may be listed differently.
type RejectFilter struct {
	PluginName string
	Ordinals   []int32
	// Code is the rejection's code; Success (the zero value) means
	// Unschedulable.
	Code framework.Code
	// Reason defaults to "ordinal <n> is rejected".
	Reason string
}

var _ framework.FilterPlugin = &RejectFilter{}

func (f *RejectFilter) Name() string { return nameOr(f.PluginName, RejectName) }

// Filter implements framework.FilterPlugin.
func (f *RejectFilter) Filter(_ context.Context, _ *framework.Decision, ordinal int32) *framework.Status {
	if !slices.Contains(f.Ordinals, ordinal) {
		return nil
	}
	code := f.Code
	if code == framework.Success {
		code = framework.Unschedulable
	}
	reason := f.Reason
	if reason == "" {
		reason = fmt.Sprintf("ordinal %d is rejected", ordinal)
	}
	return framework.NewStatus(code, reason)
}

// ScriptedScorer scores each pod from a table, out-of-range values included,
// so tests can check the runtime's arithmetic and its range check. It is
// not equivalence-aware unless Equivalent is set.
type ScriptedScorer struct {
	PluginName string
	Scores     map[int32]int64
	// Default scores ordinals missing from Scores.
	Default int64
	// Equivalent is what EquivalentWithinClass returns; set it only when
	// the table keeps the promise for the cluster at hand.
	Equivalent bool
}

var (
	_ framework.ScorePlugin      = &ScriptedScorer{}
	_ framework.EquivalenceAware = &ScriptedScorer{}
)

func (s *ScriptedScorer) Name() string { return nameOr(s.PluginName, ScriptedName) }

// Score implements framework.ScorePlugin.
func (s *ScriptedScorer) Score(_ context.Context, _ *framework.Decision, ordinal int32) (int64, *framework.Status) {
	if v, ok := s.Scores[ordinal]; ok {
		return v, nil
	}
	return s.Default, nil
}

// EquivalentWithinClass implements framework.EquivalenceAware.
func (s *ScriptedScorer) EquivalentWithinClass() bool { return s.Equivalent }

// Stage is a plugin call a FailingPlugin can fail in.
type Stage string

const (
	AtPrepare Stage = "prepare"
	AtFilter  Stage = "filter"
	AtScore   Stage = "score"
)

// FailingPlugin is a prepare, filter and score plugin that returns a non-
// success status from the call named by At and succeeds (passing, scoring 0)
// elsewhere.
type FailingPlugin struct {
	PluginName string
	At         Stage
	// Code is the failure's code; Success (the zero value) means Error.
	Code framework.Code
	// Err is wrapped when Code is Error; nil means ErrFake.
	Err error
}

// ErrFake is FailingPlugin's default error.
var ErrFake = errors.New("fake plugin failure")

var (
	_ framework.PreparePlugin = &FailingPlugin{}
	_ framework.FilterPlugin  = &FailingPlugin{}
	_ framework.ScorePlugin   = &FailingPlugin{}
)

func (f *FailingPlugin) Name() string { return nameOr(f.PluginName, FailingName) }

func (f *FailingPlugin) status(at Stage) *framework.Status {
	if at != f.At {
		return nil
	}
	switch f.Code {
	case framework.Success, framework.Error:
		err := f.Err
		if err == nil {
			err = ErrFake
		}
		return framework.AsStatus(err)
	default:
		return framework.NewStatus(f.Code, "fake "+string(at)+" status")
	}
}

// Prepare implements framework.PreparePlugin.
func (f *FailingPlugin) Prepare(context.Context, *framework.Decision) *framework.Status {
	return f.status(AtPrepare)
}

// Filter implements framework.FilterPlugin.
func (f *FailingPlugin) Filter(context.Context, *framework.Decision, int32) *framework.Status {
	return f.status(AtFilter)
}

// Score implements framework.ScorePlugin.
func (f *FailingPlugin) Score(context.Context, *framework.Decision, int32) (int64, *framework.Status) {
	return 0, f.status(AtScore)
}

// SkippingPlugin's Prepare returns Skip. Were its other calls made anyway,
// it would reject every pod and score each MaxScore; it counts them so tests
// can check they are not.
type SkippingPlugin struct {
	zoneEquivalent
	PluginName string
	// Filtered, Scored and Changes count the calls that should not happen.
	Filtered, Scored, Changes atomic.Int64
}

var (
	_ framework.PreparePlugin    = &SkippingPlugin{}
	_ framework.FilterPlugin     = &SkippingPlugin{}
	_ framework.ScorePlugin      = &SkippingPlugin{}
	_ framework.ChangeObserver   = &SkippingPlugin{}
	_ framework.CapacityEnforcer = &SkippingPlugin{}
	_ framework.EquivalenceAware = &SkippingPlugin{}
)

func (s *SkippingPlugin) Name() string { return nameOr(s.PluginName, SkippingName) }

// Prepare implements framework.PreparePlugin.
func (s *SkippingPlugin) Prepare(context.Context, *framework.Decision) *framework.Status {
	return framework.NewStatus(framework.Skip)
}

// Filter implements framework.FilterPlugin.
func (s *SkippingPlugin) Filter(context.Context, *framework.Decision, int32) *framework.Status {
	s.Filtered.Add(1)
	return framework.NewStatus(framework.Unschedulable, "skipped plugin was called")
}

// Score implements framework.ScorePlugin.
func (s *SkippingPlugin) Score(context.Context, *framework.Decision, int32) (int64, *framework.Status) {
	s.Scored.Add(1)
	return framework.MaxScore, nil
}

// Changed implements framework.ChangeObserver.
func (s *SkippingPlugin) Changed(*framework.Decision, int32, int32) { s.Changes.Add(1) }

// EnforcesCapacity implements framework.CapacityEnforcer, so that a profile
// can be built with this as its only filter, and the runtime must notice
// that the capacity enforcer skipped itself.
func (s *SkippingPlugin) EnforcesCapacity() bool { return true }

// NormalizingScorer scores each pod Raw[ordinal] (0 when missing) and
// normalizes so that the highest raw score becomes MaxScore and the others
// scale with it (integer division).
type NormalizingScorer struct {
	PluginName string
	Raw        map[int32]int64
	// Fail makes NormalizeScores return an Error status.
	Fail bool
	// Calls counts NormalizeScores calls.
	Calls atomic.Int64
}

var (
	_ framework.ScorePlugin     = &NormalizingScorer{}
	_ framework.ScoreNormalizer = &NormalizingScorer{}
)

func (n *NormalizingScorer) Name() string { return nameOr(n.PluginName, NormalizingName) }

// Score implements framework.ScorePlugin.
func (n *NormalizingScorer) Score(_ context.Context, _ *framework.Decision, ordinal int32) (int64, *framework.Status) {
	return n.Raw[ordinal], nil
}

// NormalizeScores implements framework.ScoreNormalizer.
func (n *NormalizingScorer) NormalizeScores(_ context.Context, _ *framework.Decision, scores []framework.PodScore) *framework.Status {
	n.Calls.Add(1)
	if n.Fail {
		return framework.AsStatus(ErrFake)
	}
	var top int64
	for _, s := range scores {
		top = max(top, s.Score)
	}
	for i := range scores {
		if top > 0 {
			scores[i].Score = scores[i].Score * framework.MaxScore / top
		}
	}
	return nil
}

// Change is one call of ChangeObserver.Changed as Recorder saw it.
type Change struct {
	Ordinal, Delta int32
	// OnPod is d.OnPod(Ordinal) during the call: the change is applied.
	OnPod int32
}

// Recorder is a pass-all filter and a zero scorer that records its Prepare
// and Changed calls. It is equivalence-aware.
type Recorder struct {
	zoneEquivalent
	PluginName string

	mu       sync.Mutex
	prepared int
	changes  []Change
}

var (
	_ framework.PreparePlugin    = &Recorder{}
	_ framework.FilterPlugin     = &Recorder{}
	_ framework.ScorePlugin      = &Recorder{}
	_ framework.ChangeObserver   = &Recorder{}
	_ framework.EquivalenceAware = &Recorder{}
)

func (r *Recorder) Name() string { return nameOr(r.PluginName, RecorderName) }

// Prepare implements framework.PreparePlugin.
func (r *Recorder) Prepare(context.Context, *framework.Decision) *framework.Status {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.prepared++
	return nil
}

// Filter implements framework.FilterPlugin.
func (r *Recorder) Filter(context.Context, *framework.Decision, int32) *framework.Status { return nil }

// Score implements framework.ScorePlugin.
func (r *Recorder) Score(context.Context, *framework.Decision, int32) (int64, *framework.Status) {
	return 0, nil
}

// Changed implements framework.ChangeObserver.
func (r *Recorder) Changed(d *framework.Decision, ordinal int32, delta int32) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.changes = append(r.changes, Change{Ordinal: ordinal, Delta: delta, OnPod: d.OnPod(ordinal)})
}

// Prepared is how many times Prepare was called.
func (r *Recorder) Prepared() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.prepared
}

// Changes returns a copy of the recorded Changed calls.
func (r *Recorder) Changes() []Change {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.changes)
}

// Reset forgets every recorded call.
func (r *Recorder) Reset() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.prepared, r.changes = 0, nil
}

// MaxPodsFilter rejects, when placing, pods not holding the source once the
// source holds Limit pods, as a max-pods-per-source filter would. It is
// equivalence-aware: every non-holder gets the same answer.
type MaxPodsFilter struct {
	zoneEquivalent
	Limit int
}

var (
	_ framework.FilterPlugin     = MaxPodsFilter{}
	_ framework.EquivalenceAware = MaxPodsFilter{}
)

func (MaxPodsFilter) Name() string { return MaxPodsName }

// Filter implements framework.FilterPlugin.
func (f MaxPodsFilter) Filter(_ context.Context, d *framework.Decision, ordinal int32) *framework.Status {
	if d.Mode() == framework.Place && d.OnPod(ordinal) == 0 && d.PodsHeld() >= f.Limit {
		return framework.NewStatus(framework.UnschedulableAndUnresolvable, fmt.Sprintf("source already holds %d pod(s)", d.PodsHeld()))
	}
	return nil
}

// skewScore maps a skew to a score: 0 skew is MaxScore and each vreplica of
// skew costs 25.
func skewScore(skew int32) int64 {
	return max(framework.MinScore, framework.MaxScore-25*int64(skew))
}

func skewAfter(d *framework.Decision, s framework.DomainStats, current int32) int32 {
	if d.Mode() == framework.Remove {
		return s.SkewAfterRemove(current)
	}
	return s.SkewAfterAdd(current)
}

// domainSkewScore scores a pod by the skew its domain (index, < 0 for
// none: 0) leaves after the change, over the domains' stats and counts.
func domainSkewScore(d *framework.Decision, index int32, stats func() framework.DomainStats, on func(int32) int32) int64 {
	if index < 0 {
		return 0
	}
	return skewScore(skewAfter(d, stats(), on(index)))
}

// ZoneSpreadScorer prefers pods whose zone keeps the source's zone skew
// lowest after the change. Pods without a zone score 0. It is
// equivalence-aware: pods of one class share a zone.
type ZoneSpreadScorer struct{ zoneEquivalent }

var (
	_ framework.ScorePlugin      = ZoneSpreadScorer{}
	_ framework.EquivalenceAware = ZoneSpreadScorer{}
)

func (ZoneSpreadScorer) Name() string { return ZoneSpreadName }

// Score implements framework.ScorePlugin.
func (ZoneSpreadScorer) Score(_ context.Context, d *framework.Decision, ordinal int32) (int64, *framework.Status) {
	info, ok := d.Cluster().Pod(ordinal)
	if !ok {
		return 0, nil
	}
	return domainSkewScore(d, info.ZoneIndex, d.ZoneStats, d.OnZone), nil
}

// NodeSpreadScorer is ZoneSpreadScorer over nodes.
type NodeSpreadScorer struct{ zoneEquivalent }

var (
	_ framework.ScorePlugin      = NodeSpreadScorer{}
	_ framework.EquivalenceAware = NodeSpreadScorer{}
)

func (NodeSpreadScorer) Name() string { return NodeSpreadName }

// Score implements framework.ScorePlugin.
func (NodeSpreadScorer) Score(_ context.Context, d *framework.Decision, ordinal int32) (int64, *framework.Status) {
	info, ok := d.Cluster().Pod(ordinal)
	if !ok {
		return 0, nil
	}
	return domainSkewScore(d, info.NodeIndex, d.NodeStats, d.OnNode), nil
}

// PodSpreadScorer prefers pods that keep the source's pod skew (PodStats)
// lowest after the change. It is equivalence-aware: every pod of a class
// holds 0.
type PodSpreadScorer struct{ zoneEquivalent }

var (
	_ framework.ScorePlugin      = PodSpreadScorer{}
	_ framework.EquivalenceAware = PodSpreadScorer{}
)

func (PodSpreadScorer) Name() string { return PodSpreadName }

// Score implements framework.ScorePlugin.
func (PodSpreadScorer) Score(_ context.Context, d *framework.Decision, ordinal int32) (int64, *framework.Status) {
	return skewScore(skewAfter(d, d.PodStats(), d.OnPod(ordinal))), nil
}

// LowestOrdinalScorer prefers pods in use, then low ordinals when placing
// (MaxScore for a pod with less free than the capacity, else
// MaxScore*(Replicas-ordinal)/Replicas), and high ones when removing:
// MaxScore*(ordinal+1)/Replicas. It is equivalence-aware: placing, the
// first pod of a class in class order never scores below another.
type LowestOrdinalScorer struct{ zoneEquivalent }

var (
	_ framework.ScorePlugin      = LowestOrdinalScorer{}
	_ framework.EquivalenceAware = LowestOrdinalScorer{}
)

func (LowestOrdinalScorer) Name() string { return LowestOrdinalName }

// Score implements framework.ScorePlugin.
func (LowestOrdinalScorer) Score(_ context.Context, d *framework.Decision, ordinal int32) (int64, *framework.Status) {
	n := int64(d.Cluster().Replicas())
	if n <= 0 {
		return 0, nil
	}
	o := min(max(int64(ordinal), 0), n-1)
	if d.Mode() == framework.Remove {
		return framework.MaxScore * (o + 1) / n, nil
	}
	if d.Free(ordinal)+d.OnPod(ordinal) < d.Cluster().Capacity() {
		// A pod other sources use: opening no new pod is as good as
		// the lowest ordinal, like LowestOrdinalPriority.
		return framework.MaxScore, nil
	}
	return framework.MaxScore * (n - o) / n, nil
}

// ZoneCounter keeps its own per-zone count of the source, built in Prepare
// and kept current by Changed, the way a plugin with precomputed state
// would. Score prefers emptier zones (10 points per vreplica) and returns an
// Error status when its count disagrees with the Decision's, so that a
// missed or doubled Changed call fails the decision.
type ZoneCounter struct{ zoneEquivalent }

var (
	_ framework.PreparePlugin    = ZoneCounter{}
	_ framework.ScorePlugin      = ZoneCounter{}
	_ framework.ChangeObserver   = ZoneCounter{}
	_ framework.EquivalenceAware = ZoneCounter{}
)

const zoneCounterKey framework.StateKey = ZoneCounterName

func (ZoneCounter) Name() string { return ZoneCounterName }

// Prepare implements framework.PreparePlugin.
func (ZoneCounter) Prepare(_ context.Context, d *framework.Decision) *framework.Status {
	counts := make([]int32, d.Cluster().NumZones())
	for _, ord := range d.Holders() {
		if info, ok := d.Cluster().Pod(ord); ok && info.ZoneIndex >= 0 {
			counts[info.ZoneIndex] += d.OnPod(ord)
		}
	}
	d.Store(zoneCounterKey, counts)
	return nil
}

// Changed implements framework.ChangeObserver.
func (ZoneCounter) Changed(d *framework.Decision, ordinal int32, delta int32) {
	v, _ := d.Load(zoneCounterKey)
	counts := v.([]int32)
	if info, ok := d.Cluster().Pod(ordinal); ok && info.ZoneIndex >= 0 {
		counts[info.ZoneIndex] += delta
	}
}

// Score implements framework.ScorePlugin.
func (ZoneCounter) Score(_ context.Context, d *framework.Decision, ordinal int32) (int64, *framework.Status) {
	v, ok := d.Load(zoneCounterKey)
	if !ok {
		return 0, framework.NewStatus(framework.Error, "Score called without Prepare")
	}
	counts := v.([]int32)
	info, ok := d.Cluster().Pod(ordinal)
	if !ok || info.ZoneIndex < 0 {
		return 0, nil
	}
	n := counts[info.ZoneIndex]
	if want := d.OnZone(info.ZoneIndex); n != want {
		return 0, framework.NewStatus(framework.Error, fmt.Sprintf("zone %d: counted %d, decision says %d", info.ZoneIndex, n, want))
	}
	return max(framework.MinScore, framework.MaxScore-10*int64(n)), nil
}

// ClassScorer scores pods pseudo-randomly from Seed while keeping the
// EquivalenceAware promise to the letter: a pod that neither holds the
// source nor is full scores by its node (and the source's total, so the
// preference moves as vreplicas are placed), any other pod by its ordinal
// and what it holds. It exists to find the cases real plugins rarely
// produce, where a class's representative is the only pod that can win.
type ClassScorer struct {
	Seed uint64
	// Zones widens the classes to zone classes (see
	// framework.ZoneEquivalenceAware).
	Zones bool
}

var (
	_ framework.ScorePlugin      = ClassScorer{}
	_ framework.EquivalenceAware = ClassScorer{}
)

const ClassScorerName = "FakeClassScorer"

func (ClassScorer) Name() string { return ClassScorerName }

// Score implements framework.ScorePlugin.
func (s ClassScorer) Score(_ context.Context, d *framework.Decision, ordinal int32) (int64, *framework.Status) {
	return int64(classHash(s.Seed, s.Zones, d, ordinal) % uint64(framework.MaxScore+1)), nil
}

// EquivalentWithinClass implements framework.EquivalenceAware.
func (ClassScorer) EquivalentWithinClass() bool { return true }

// EquivalentWithinZone implements framework.ZoneEquivalenceAware: when Zones
// is set, pods of one zone class score alike too.
func (s ClassScorer) EquivalentWithinZone() bool { return s.Zones }

// ClassFilter rejects about one pod in Odds, chosen like ClassScorer's
// scores: whole classes at a time.
type ClassFilter struct {
	Seed uint64
	Odds uint64
	// Zones is ClassScorer's.
	Zones bool
}

var (
	_ framework.FilterPlugin     = ClassFilter{}
	_ framework.EquivalenceAware = ClassFilter{}
)

const ClassFilterName = "FakeClassFilter"

func (ClassFilter) Name() string { return ClassFilterName }

// Filter implements framework.FilterPlugin.
func (f ClassFilter) Filter(_ context.Context, d *framework.Decision, ordinal int32) *framework.Status {
	if f.Odds > 0 && classHash(f.Seed, f.Zones, d, ordinal)%f.Odds == 0 {
		return framework.NewStatus(framework.Unschedulable, "unlucky class")
	}
	return nil
}

// EquivalentWithinClass implements framework.EquivalenceAware.
func (ClassFilter) EquivalentWithinClass() bool { return true }

// EquivalentWithinZone implements framework.ZoneEquivalenceAware: when Zones
// is set, pods of one zone class pass or fail alike too.
func (f ClassFilter) EquivalentWithinZone() bool { return f.Zones }

// classHash is equal for pods of one class (see framework.EquivalenceAware),
// and with zones for pods of one zone class.
func classHash(seed uint64, zones bool, d *framework.Decision, ordinal int32) uint64 {
	info, _ := d.Cluster().Pod(ordinal)
	if d.OnPod(ordinal) == 0 && d.Free(ordinal) > 0 {
		if zones && info.ZoneIndex >= 0 && d.OnNode(info.NodeIndex) == 0 {
			return mix(seed, 3, uint64(int64(info.ZoneIndex)), uint64(d.Total()))
		}
		return mix(seed, 1, uint64(int64(info.NodeIndex)), uint64(d.Total()))
	}
	return mix(seed, 2, uint64(int64(ordinal)), uint64(d.OnPod(ordinal)), uint64(d.Total()))
}

// mix is a small deterministic hash (splitmix64 steps).
func mix(vs ...uint64) uint64 {
	var h uint64
	for _, v := range vs {
		h += v + 0x9e3779b97f4a7c15
		h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9
		h = (h ^ (h >> 27)) * 0x94d049bb133111eb
		h ^= h >> 31
	}
	return h
}
