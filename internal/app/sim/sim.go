package sim

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/go-logr/logr"
	"go.uber.org/zap"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
	"knative.dev/pkg/logging"

	"github.com/vsched/vsched/config"
	"github.com/vsched/vsched/framework"
	"github.com/vsched/vsched/memcluster"
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
		PodResources: sim.s.podResources(),
		// The autoscaler's move limit, as embedkit wires it.
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
