package sim

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/go-logr/logr"
	"go.uber.org/zap"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
	"knative.dev/pkg/logging"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/config"
	"github.com/vsched/vsched/framework"
	"github.com/vsched/vsched/memcluster"
	"github.com/vsched/vsched/state"
	"github.com/vsched/vsched/statefulset"
)

// Options tune a simulation.
type Options struct {
	// ConfigMaps replace the scenario's inline configuration, kind by
	// kind.
	ConfigMaps []*ConfigMapFile
	// Explain, when set, records the scheduler's explanation of every
	// decision about this source; Run returns the last.
	Explain *types.NamespacedName
	// Progress, when set, is called after every operation with how many
	// are done out of how many.
	Progress func(done, total int)
	// Registry holds the plugins the configuration may name; nil means
	// the in-tree plugins.
	Registry *framework.Registry
	// ExplainAll records every decision about every source, the last of
	// each step (and of the initial sources' reconcile) in
	// Result.Explanations, for the HTML report. It makes the framework
	// evaluate every candidate: slower, same result.
	ExplainAll bool
}

// Explained is the scheduler's explanation of a decision about a source.
type Explained struct {
	// Step is the 0-based index of the step it was made in, -1 for the
	// reconcile of the initial sources; StepTitle that step's title.
	Step      int
	StepTitle string
	// Explanation is the framework's record of the decision.
	Explanation *framework.Explanation
	// Changed is how many vreplicas the decision placed (or removed);
	// Pending how many of the source's vreplicas have no pod after it;
	// Asked is Changed plus what was left to place (remove) after it.
	Asked, Changed, Pending int32
	// Pods are where the candidate pods were at the decision, by ordinal.
	Pods map[int32]PodPlace
}

// PodPlace is where a pod is.
type PodPlace struct {
	Node string `json:"node,omitempty"`
	Zone string `json:"zone,omitempty"`
}

// Operations counts a scenario's operations, the unit of progress: each
// source a schedule step lists, and each other step.
func Operations(s *Scenario) int {
	n := 0
	for i := range s.Steps {
		if s.Steps[i].Kind == StepSchedule {
			n += len(s.Steps[i].Schedule)
		} else {
			n++
		}
	}
	return n
}

var quietOnce sync.Once

// quiet silences client-go's klog, which would otherwise report the
// informers' shutdown on stderr.
func quiet() {
	quietOnce.Do(func() { klog.SetLogger(logr.Discard()) })
}

// simulation is one run's world.
type simulation struct {
	s       *Scenario
	opts    Options
	cluster *memcluster.Cluster
	sources *memcluster.Sources
	sched   *statefulset.Scheduler
	auto    *autoscaling
	live    *liveConfig
	signals *signals
	start   time.Time
	nodes   []Node

	done, total int
	explained   []*Explained
	byStep      map[int]map[string]*Explained
	step        int
	// stepTitle is the step's title, for the explanations: a schedule
	// step of n sources takes O(n) to describe.
	stepTitle string
}

// Run simulates the scenario: it builds the in-memory cluster, runs the
// real scheduler (and autoscaler and evictor) against it step by step, and
// reports the cluster after each step. A failure is a Problems naming the
// step.
func Run(ctx context.Context, s *Scenario, opts Options) (*Result, *Explained, error) {
	res, all, err := RunExplained(ctx, s, opts)
	if err != nil || len(all) == 0 {
		return res, nil, err
	}
	return res, all[len(all)-1], nil
}

// RunExplained is Run returning every decision about opts.Explain, in the
// order they were made.
func RunExplained(ctx context.Context, s *Scenario, opts Options) (*Result, []*Explained, error) {
	if s == nil || s.doc == nil || s.Cluster.StatefulSet.Capacity == nil {
		return nil, nil, errors.New("sim: the scenario was not read by ParseScenario")
	}
	quiet()
	ctx = logging.WithLogger(ctx, zap.NewNop().Sugar())
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	cfg, err := buildConfig(ctx, s, opts)
	if err != nil {
		return nil, nil, err
	}
	ac, origins := cfg.autoscaler, cfg.origins

	sim := &simulation{s: s, opts: opts, sources: memcluster.NewSources(), nodes: s.Cluster.nodeList(), total: Operations(s), byStep: map[int]map[string]*Explained{}}
	sim.live = newLiveConfig(cfg, registryOrInTree(opts.Registry))
	ss := s.Cluster.StatefulSet
	ns, name := s.statefulSetName()
	if sim.cluster, err = newCluster(ctx, s, sim.nodes, ns, name); err != nil {
		return nil, nil, err
	}
	defer sim.cluster.Shutdown()
	defer cancel() // informers stop before Shutdown waits for them
	sim.start = sim.cluster.Clock().Now()
	if sim.sched, err = sim.newScheduler(ctx, ns, name); err != nil {
		return nil, nil, err
	}
	if sim.auto, err = newAutoscaling(ctx, sim, sim.live.currentAutoscaler); err != nil {
		return nil, nil, err
	}
	if err := sim.cluster.Start(ctx); err != nil {
		return nil, nil, err
	}
	if err := sim.setUp(ctx); err != nil {
		return nil, nil, err
	}
	res := &Result{
		Version:       FormatVersion,
		Scenario:      s.Name,
		StatefulSet:   ns + "/" + name,
		Capacity:      *ss.Capacity,
		Configuration: origins,
		Warnings:      warnings(s, ac, origins),
	}
	if err := sim.run(ctx, res); err != nil {
		return nil, nil, err
	}
	return res, sim.explained, nil
}

// newScheduler builds the scheduler on the simulation's cluster, with the
// profiles and move limit in force.
func (sim *simulation) newScheduler(ctx context.Context, ns, name string) (*statefulset.Scheduler, error) {
	return statefulset.New(ctx, statefulset.Config{
		Namespace:    ns,
		Name:         name,
		Capacity:     *sim.s.Cluster.StatefulSet.Capacity,
		Lister:       sim.sources.List,
		ListerSynced: sim.sources.HasSynced,
		Informers:    statefulset.InformersFromFactory(sim.cluster.InformerFactory()),
		Profiles:     sim.live.currentProfiles,
		AlwaysLeader: true,
		Clock:        sim.cluster.Clock(),
		// The autoscaler's move limit, as embed wires it.
		DrainMoveLimit: config.AutoscalerSource(sim.live.currentAutoscaler).DrainMoveLimit,
	})
}

// statefulSetName is the StatefulSet's namespace and name, defaulted.
func (s *Scenario) statefulSetName() (ns, name string) {
	ns, name = s.Cluster.StatefulSet.Namespace, s.Cluster.StatefulSet.Name
	if ns == "" {
		ns = DefaultNamespace
	}
	if name == "" {
		name = DefaultStatefulSet
	}
	return ns, name
}

// newCluster builds the in-memory cluster the scenario describes.
func newCluster(ctx context.Context, s *Scenario, nodes []Node, ns, name string) (*memcluster.Cluster, error) {
	specs := make([]memcluster.NodeSpec, len(nodes))
	for i, n := range nodes {
		specs[i] = memcluster.NodeSpec{Name: n.Name, Zone: n.Zone}
	}
	return memcluster.New(ctx, memcluster.Options{
		Namespace:       ns,
		StatefulSetName: name,
		Nodes:           specs,
		PodNodes:        s.Cluster.StatefulSet.PodNodes,
		Capacity:        *s.Cluster.StatefulSet.Capacity,
	})
}

// run loads the initial sources and runs the steps, recording them in res.
func (sim *simulation) run(ctx context.Context, res *Result) error {
	if len(sim.s.Sources) > 0 {
		sim.step, sim.stepTitle = -1, InitialStepName
		var err error
		if res.Initial, err = sim.loadSources(ctx); err != nil {
			return err
		}
	}
	for i := range sim.s.Steps {
		sim.step, sim.stepTitle = i, sim.s.Steps[i].Title()
		sr, err := sim.runStep(ctx, &sim.s.Steps[i])
		if err != nil {
			return sim.stepError(i, err)
		}
		res.Steps = append(res.Steps, *sr)
	}
	if sim.opts.ExplainAll {
		res.Explanations = sim.byStep
	}
	return nil
}

// simConfig is the configuration a run uses, and where it came from.
type simConfig struct {
	cms        [numConfigKinds]*corev1.ConfigMap
	profiles   *config.Profiles
	autoscaler *config.AutoscalerConfig
	origins    []ConfigOrigin
}

// buildConfig parses the scenario's configuration, each kind replaced by
// the ConfigMap given for it.
func buildConfig(ctx context.Context, s *Scenario, opts Options) (*simConfig, error) {
	cms := [numConfigKinds]*corev1.ConfigMap{
		scenarioConfigMap(SchedulerConfig, s.Scheduler),
		scenarioConfigMap(DeschedulerConfig, s.Descheduler),
		scenarioConfigMap(AutoscalerConfig, s.Autoscaler),
	}
	out := &simConfig{origins: configOrigins(cms, opts.ConfigMaps)}
	for _, f := range opts.ConfigMaps {
		if f.Kind < numConfigKinds { // the simulator does not run the source autoscaler's
			cms[f.Kind] = f.ConfigMap
		}
	}
	out.cms = cms
	var err error
	if out.profiles, err = buildProfiles(ctx, registryOrInTree(opts.Registry), cms); err != nil {
		return nil, err
	}
	if out.autoscaler, err = config.ParseAutoscalerConfigMap(cms[AutoscalerConfig]); err != nil {
		return nil, err
	}
	return out, nil
}

// configOrigins says where each ConfigMap's data comes from: a
// --configmap file, the scenario, or nowhere (the defaults).
func configOrigins(inline [numConfigKinds]*corev1.ConfigMap, files []*ConfigMapFile) []ConfigOrigin {
	out := make([]ConfigOrigin, numConfigKinds)
	for k := range numConfigKinds {
		out[k] = ConfigOrigin{ConfigMap: configNames[k], From: FromDefault}
		if inline[k] != nil {
			out[k].From = FromScenario
		}
	}
	for _, f := range files {
		if f.Kind < numConfigKinds {
			out[f.Kind] = ConfigOrigin{ConfigMap: f.ConfigMap.Name, From: f.doc.file}
		}
	}
	return out
}

// warnings are what the scenario and its configuration disagree on.
func warnings(s *Scenario, ac *config.AutoscalerConfig, origins []ConfigOrigin) []string {
	var out []string
	if r := s.Cluster.StatefulSet.Replicas; r != nil && *r > ac.MaxReplicas {
		o := origins[AutoscalerConfig]
		from := "its default"
		if o.From != FromDefault {
			from = o.ConfigMap + " from " + o.From
		}
		out = append(out, fmt.Sprintf("the StatefulSet starts with %d replicas, more than the autoscaler's max-replicas %d (%s)", *r, ac.MaxReplicas, from))
	}
	return out
}

// loadSources creates the scenario's initial sources with their placements,
// then lets the controller's first resync reconcile each (in key order),
// as a controller starting against a live cluster does. It returns the
// cluster as it then stands.
func (sim *simulation) loadSources(ctx context.Context) (*StepResult, error) {
	for _, src := range sim.s.Sources {
		key, _ := SourceKey(src.Source)
		var parts []int32
		if src.Partitions != nil {
			parts = append(parts, *src.Partitions)
		}
		v, err := sim.sources.Create(key, *src.VReplicas, parts...)
		if err != nil {
			return nil, err
		}
		ps := make([]vsched.Placement, len(src.Placements))
		for i, p := range src.Placements {
			ps[i] = vsched.Placement{PodName: p.PodName, VReplicas: p.VReplicas}
		}
		if err := sim.sources.CommitPlacements(key, v.GetResourceVersion(), ps); err != nil {
			return nil, err
		}
		if nv, err := sim.sources.Get(key); err == nil {
			sim.sched.Observe(nv)
		}
	}
	list, err := sim.sources.List()
	if err != nil {
		return nil, err
	}
	for _, v := range list {
		if err := sim.reconcile(ctx, v.GetKey()); err != nil {
			return nil, fmt.Errorf("%s: %w", v.GetKey(), err)
		}
	}
	if err := sim.cluster.Sync(ctx); err != nil {
		return nil, err
	}
	sr, err := sim.record(&Step{Name: InitialStepName}, nil, nil)
	if sr != nil {
		sr.Action = "the sources as the scenario gives them, reconciled once"
	}
	return sr, err
}

// InitialStepName titles the cluster before the first step.
const InitialStepName = "initial state"

// stepError names the step a failure happened in.
func (sim *simulation) stepError(i int, err error) error {
	var ps Problems
	if errors.As(err, &ps) {
		return ps
	}
	st := &sim.s.Steps[i]
	return Problems{{
		File: sim.s.File, Line: sim.s.doc.line(path{"steps", i, string(st.Kind)}),
		Step: i, StepName: st.Name, Field: string(st.Kind), Message: oneLine(err.Error()),
	}}
}

// setUp puts the nodes in their initial state and creates the
// StatefulSet's initial pods, which therefore avoid the nodes that start
// cordoned or failed, as the StatefulSet controller's pods would.
func (sim *simulation) setUp(ctx context.Context) error {
	for _, n := range sim.nodes {
		if n.Cordoned {
			if err := sim.cluster.Cordon(n.Name); err != nil {
				return err
			}
		}
		if n.Ready != nil && !*n.Ready {
			if err := sim.cluster.FailNode(n.Name); err != nil {
				return err
			}
		}
	}
	if r := sim.s.Cluster.StatefulSet.Replicas; r != nil && *r > 0 {
		if err := sim.cluster.ScaleTo(*r); err != nil {
			return err
		}
	}
	return sim.cluster.Sync(ctx)
}

func (sim *simulation) progress() {
	sim.done++
	if sim.opts.Progress != nil {
		sim.opts.Progress(sim.done, sim.total)
	}
}

// runStep applies one step, lets the requeue schedule what is pending, and
// records the result.
func (sim *simulation) runStep(ctx context.Context, st *Step) (*StepResult, error) {
	before, err := sim.sourcesNow()
	if err != nil {
		return nil, err
	}
	notes, cycles, err := sim.apply(ctx, st)
	if err != nil {
		return nil, err
	}
	if st.Kind != StepSchedule {
		sim.progress()
	}
	if err := sim.cluster.Sync(ctx); err != nil {
		return nil, err
	}
	if err := sim.requeue(ctx); err != nil {
		return nil, err
	}
	sr, err := sim.record(st, before, notes)
	if sr != nil {
		sr.Cycles = cycles
		sr.Traffic = sim.takeTicks()
		sr.VReplicas = sim.vreplicaDecisions(st)
	}
	return sr, err
}

// apply does what the step says to the cluster or the sources, and
// returns the notes and autoscaler cycles it gave.
func (sim *simulation) apply(ctx context.Context, st *Step) (notes []string, cycles []CycleResult, err error) {
	switch st.Kind {
	case StepSchedule:
		for _, sp := range st.Schedule {
			if err := sim.schedule(ctx, sp); err != nil {
				return nil, nil, fmt.Errorf("%s: %w", sp.Source, err)
			}
			sim.progress()
		}
	case StepDelete:
		for _, src := range st.Delete {
			key, _ := SourceKey(src)
			if err := sim.sources.Delete(key); err != nil {
				return nil, nil, fmt.Errorf("%s: %w", src, err)
			}
			sim.sched.Forget(key)
		}
	case StepCordon:
		err = sim.eachNode(st, sim.cluster.Cordon)
	case StepUncordon:
		if err = sim.eachNode(st, sim.cluster.Uncordon); err == nil {
			err = sim.cluster.BindPending()
		}
	case StepFail:
		if st.Zone != "" {
			err = sim.cluster.FailZone(st.Zone)
		} else {
			err = sim.cluster.FailNode(st.Node)
		}
	case StepRecover:
		if st.Zone != "" {
			err = sim.cluster.RecoverZone(st.Zone)
		} else {
			err = sim.cluster.RecoverNode(st.Node)
		}
		if err == nil {
			err = sim.cluster.BindPending()
		}
	case StepAdvance:
		sim.cluster.Clock().Step(st.Duration)
	case StepAutoscale:
		notes, err = sim.auto.autoscale(ctx)
	case StepCompact:
		notes, cycles, err = sim.auto.compact(ctx)
	case StepConfigMap:
		notes = sim.live.apply(ctx, st.ConfigMap)
	case StepSignal:
		err = sim.setSignal(ctx, st.Signal)
	case StepTraffic:
		notes, err = sim.traffic(ctx, st.Traffic)
	default:
		err = fmt.Errorf("unknown step %q", st.Kind)
	}
	return notes, cycles, err
}

// eachNode applies f to the step's node, or to every node of its zone.
func (sim *simulation) eachNode(st *Step, f func(node string) error) error {
	if st.Zone == "" {
		return f(st.Node)
	}
	for _, n := range sim.nodes {
		if n.Zone == st.Zone {
			if err := f(n.Name); err != nil {
				return err
			}
		}
	}
	return nil
}

// schedule creates or updates a source and reconciles it, as its
// controller would on seeing the change.
func (sim *simulation) schedule(ctx context.Context, sp SourceSpec) error {
	key, _ := SourceKey(sp.Source)
	if _, err := sim.sources.Get(key); err != nil {
		var parts []int32
		if sp.Partitions != nil {
			parts = append(parts, *sp.Partitions)
		}
		if _, err := sim.sources.Create(key, *sp.VReplicas, parts...); err != nil {
			return err
		}
	} else {
		if _, err := sim.sources.Update(key, *sp.VReplicas); err != nil {
			return err
		}
		if sp.Partitions != nil {
			if _, err := sim.sources.SetResourceCount(key, *sp.Partitions); err != nil {
				return err
			}
		}
	}
	return sim.reconcile(ctx, key)
}

// reconcile schedules one source and commits its placements. Vreplicas
// left pending are not an error: the requeue after the step retries them.
func (sim *simulation) reconcile(ctx context.Context, key types.NamespacedName) error {
	var ex *framework.Explanation
	explainThis := sim.opts.Explain != nil && *sim.opts.Explain == key
	if explainThis || sim.opts.ExplainAll {
		ex = &framework.Explanation{}
		ctx = statefulset.WithExplanation(ctx, ex)
	}
	_, err := sim.sources.Reconcile(ctx, sim.sched, key)
	// The source controller's informer would deliver the status write to
	// the scheduler; it commits the scheduler's reservation.
	after, gerr := sim.sources.Get(key)
	if gerr == nil {
		sim.sched.Observe(after)
	}
	if ex != nil && len(ex.Steps) > 0 && gerr == nil {
		e := sim.explain(ex, after)
		if explainThis {
			sim.explained = append(sim.explained, e)
		}
		if sim.opts.ExplainAll {
			if sim.byStep[sim.step] == nil {
				sim.byStep[sim.step] = map[string]*Explained{}
			}
			sim.byStep[sim.step][key.String()] = e
		}
	}
	if err != nil && !errors.Is(err, vsched.ErrNotEnoughReplicas) {
		return err
	}
	return nil
}

// explain records a decision with its counts and where its candidates
// are. What it was asked is what it did plus what is left to do after it:
// the source's total does not say, as a move (compaction, eviction) places
// vreplicas without changing it.
func (sim *simulation) explain(ex *framework.Explanation, after vsched.VPod) *Explained {
	e := &Explained{Step: sim.step, StepTitle: sim.stepTitle, Explanation: ex, Pods: map[int32]PodPlace{}}
	for _, st := range ex.Steps {
		if st.Winner >= 0 {
			e.Changed++
		}
	}
	want, is := after.GetVReplicas(), vsched.TotalVReplicas(after.GetPlacements())
	e.Pending = max(want-is, 0)
	left := e.Pending
	if ex.Mode == framework.Remove {
		left = max(is-want, 0)
	}
	e.Asked = e.Changed + left
	s := sim.sched.Snapshot()
	for _, st := range ex.Steps {
		for _, c := range st.Candidates {
			if info, ok := s.Pod(c.Ordinal); ok {
				e.Pods[c.Ordinal] = PodPlace{Node: info.Node, Zone: info.Zone}
			}
		}
	}
	return e
}

// requeue schedules again, in key order, every source with pending
// vreplicas, as a controller does for the sources the scheduler requeues.
func (sim *simulation) requeue(ctx context.Context) error {
	list, err := sim.sources.List()
	if err != nil {
		return err
	}
	for _, v := range list {
		if vsched.TotalVReplicas(v.GetPlacements()) < v.GetVReplicas() {
			if err := sim.reconcile(ctx, v.GetKey()); err != nil {
				return fmt.Errorf("%s: %w", v.GetKey(), err)
			}
		}
	}
	return nil
}

// sourcesNow returns every source's current version, by key.
func (sim *simulation) sourcesNow() (map[string]vsched.VPod, error) {
	list, err := sim.sources.List()
	if err != nil {
		return nil, err
	}
	out := make(map[string]vsched.VPod, len(list))
	for _, v := range list {
		out[v.GetKey().String()] = v
	}
	return out, nil
}

type podInfo struct {
	exists   bool
	name     string
	node     string
	zone     string
	draining bool
	beyond   bool
}

// record builds the step's result.
func (sim *simulation) record(st *Step, before map[string]vsched.VPod, notes []string) (*StepResult, error) {
	after, err := sim.sourcesNow()
	if err != nil {
		return nil, err
	}
	sr := &StepResult{
		Name:       st.Title(),
		Action:     st.Describe(),
		Clock:      sim.cluster.Clock().Since(sim.start).String(),
		Replicas:   sim.cluster.Replicas(),
		Placements: map[string][]vsched.Placement{},
		Pending:    map[string]int32{},
		Notes:      notes,
		Metrics:    Metrics{Sources: map[string]SourceMetrics{}},
	}
	nodeStatus, err := sim.recordNodes(sr)
	if err != nil {
		return nil, err
	}
	keys := slices.Sorted(maps.Keys(after))
	used := map[int32]int32{}
	for _, k := range keys {
		for _, p := range after[k].GetPlacements() {
			if ord, err := vsched.OrdinalFromPodName(p.PodName); err == nil && p.VReplicas > 0 {
				used[ord] += p.VReplicas
			}
		}
	}
	podAt, dom := sim.recordPods(sr, used, nodeStatus)
	for _, k := range keys {
		recordSource(sr, k, after[k], before, podAt, dom)
	}
	capacity := sim.cluster.Capacity()
	sr.Metrics.LowerBound = int((sr.Metrics.VReplicas + int64(capacity) - 1) / int64(capacity))
	return sr, nil
}

// recordNodes records the nodes and returns each one's status.
func (sim *simulation) recordNodes(sr *StepResult) (map[string]string, error) {
	nodeStatus := map[string]string{}
	for _, n := range sim.cluster.Nodes() {
		node, err := sim.cluster.Node(n.Name)
		if err != nil {
			return nil, err
		}
		status := NodeReady
		switch schedulable, unavailable, _ := state.NodeAvailability(node); {
		case unavailable:
			status = NodeNotReady
		case !schedulable:
			status = NodeCordoned
		}
		nodeStatus[n.Name] = status
		sr.Nodes = append(sr.Nodes, NodeState{Name: n.Name, Zone: n.Zone, Status: status})
	}
	return nodeStatus, nil
}

// domains are the nodes and zones a source's skews are measured over.
type domains struct {
	healthyNode, healthyZone map[string]bool
	// roomZone: healthy zones with a candidate pod that has room;
	// anyZone: every zone with a node, failed or not.
	roomZone, anyZone map[string]bool
}

// podsNow returns the pods as the scheduler sees them, by ordinal.
func (sim *simulation) podsNow(replicas int32) []podInfo {
	s := sim.sched.Snapshot()
	pods := make([]podInfo, s.NumPods())
	for ord := range s.NumPods() {
		p := podInfo{name: vsched.PodName(sim.cluster.StatefulSetName(), ord), beyond: ord >= replicas, draining: s.Draining(ord)}
		if info, ok := s.Pod(ord); ok {
			p.exists, p.node, p.zone = true, info.Node, info.Zone
		}
		pods[ord] = p
	}
	return pods
}

// recordPods records every pod that exists or holds vreplicas (used, by
// ordinal) with its status, and returns where a pod is and the domains.
func (sim *simulation) recordPods(sr *StepResult, used map[int32]int32, nodeStatus map[string]string) (func(int32) podInfo, domains) {
	pods := sim.podsNow(sr.Replicas)
	capacity := sim.cluster.Capacity()
	ords := make([]int32, 0, len(pods))
	for ord := range pods {
		if pods[ord].exists || used[int32(ord)] > 0 {
			ords = append(ords, int32(ord))
		}
	}
	for ord := range used {
		if int(ord) >= len(pods) {
			ords = append(ords, ord)
		}
	}
	sort.Slice(ords, func(i, j int) bool { return ords[i] < ords[j] })
	podAt := func(ord int32) podInfo {
		if int(ord) < len(pods) {
			return pods[ord]
		}
		return podInfo{name: vsched.PodName(sim.cluster.StatefulSetName(), ord), beyond: true}
	}
	dom := domains{healthyNode: map[string]bool{}, healthyZone: map[string]bool{}, roomZone: map[string]bool{}, anyZone: map[string]bool{}}
	for _, n := range sr.Nodes {
		if n.Zone != "" {
			dom.anyZone[n.Zone] = true
		}
	}
	for _, ord := range ords {
		p := podAt(ord)
		status := podStatus(p, nodeStatus)
		if p.exists && !p.beyond && p.node != "" && nodeStatus[p.node] == NodeReady {
			dom.healthyNode[p.node] = true
			if p.zone != "" {
				dom.healthyZone[p.zone] = true
			}
		}
		if status == PodOK && p.zone != "" && capacity-used[ord] > 0 {
			dom.roomZone[p.zone] = true
		}
		sr.Pods = append(sr.Pods, PodState{Name: p.name, Node: p.node, Zone: p.zone, Status: status, Used: used[ord], Free: capacity - used[ord]})
		if used[ord] > 0 {
			sr.Metrics.PodsUsed++
		}
		if !p.beyond && (!p.exists || p.node == "" || nodeStatus[p.node] == NodeNotReady) {
			sr.Metrics.Unavailable += int64(used[ord])
		}
	}
	return podAt, dom
}

func podStatus(p podInfo, nodeStatus map[string]string) string {
	switch {
	case !p.exists:
		return PodGone
	case p.beyond:
		return PodScaledOut
	case p.node == "":
		return PodUnbound
	case nodeStatus[p.node] == NodeNotReady:
		return PodNotReady
	case nodeStatus[p.node] == NodeCordoned:
		return PodCordoned
	case p.draining:
		return PodDraining
	}
	return PodOK
}

// recordSource records a source's placements, pending vreplicas and
// metrics.
func recordSource(sr *StepResult, k string, v vsched.VPod, before map[string]vsched.VPod, podAt func(int32) podInfo, dom domains) {
	ps := make([]vsched.Placement, 0, len(v.GetPlacements()))
	onNode := map[string]int32{}
	onZone := map[string]int32{}
	for _, p := range v.GetPlacements() {
		if p.VReplicas <= 0 {
			continue
		}
		out := vsched.Placement{PodName: p.PodName, VReplicas: p.VReplicas}
		if ord, err := vsched.OrdinalFromPodName(p.PodName); err == nil {
			info := podAt(ord)
			out.NodeName, out.ZoneName = info.node, info.zone
		}
		ps = append(ps, out)
		if dom.healthyNode[out.NodeName] {
			onNode[out.NodeName] += p.VReplicas
			onZone[out.ZoneName] += p.VReplicas
		}
	}
	vsched.SortPlacements(ps)
	sr.Placements[k] = ps
	want := v.GetVReplicas()
	pending := max(want-vsched.TotalVReplicas(ps), 0)
	sr.Pending[k] = pending
	m := SourceMetrics{
		VReplicas: want,
		ZoneSkew:  skew(onZone, dom.healthyZone),
		NodeSkew:  skew(onNode, dom.healthyNode),
		// A failed zone runs none of the source: counted, it shows
		// what the failure took.
		ZoneSkewAll:  skew(onZone, dom.anyZone),
		ZoneSkewRoom: skew(onZone, dom.roomZone),
	}
	if b, ok := before[k]; ok {
		m.Moved = moved(b.GetPlacements(), v.GetPlacements())
	}
	sr.Metrics.Sources[k] = m
	sr.Metrics.Moved += m.Moved
	sr.Metrics.VReplicas += int64(want)
	sr.Metrics.Pending += int64(pending)
}

// skew is max - min of counts over domains (0 for none).
func skew(counts map[string]int32, domains map[string]bool) int32 {
	first := true
	var lo, hi int32
	for d := range domains {
		n := counts[d]
		if first {
			lo, hi, first = n, n, false
			continue
		}
		lo, hi = min(lo, n), max(hi, n)
	}
	return hi - lo
}

// moved is how many vreplicas changed pod between two placements of one
// source: the smaller of what left pods and what arrived.
func moved(before, after []vsched.Placement) int32 {
	delta := map[string]int32{}
	for _, p := range before {
		delta[p.PodName] -= p.VReplicas
	}
	for _, p := range after {
		delta[p.PodName] += p.VReplicas
	}
	var left, arrived int32
	for _, d := range delta {
		if d < 0 {
			left -= d
		} else {
			arrived += d
		}
	}
	return min(left, arrived)
}
