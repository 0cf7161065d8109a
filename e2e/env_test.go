//go:build e2e

// Package e2e runs the sample controller against a local control plane
// (package harness). Run with `make e2e` or
// `go test -tags e2e -v -timeout 30m ./e2e/`.
package e2e

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrs "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/e2e/harness"
	"github.com/vsched/vsched/evictor"
	"github.com/vsched/vsched/internal/app/sample/apis/v1alpha1"
)

const (
	systemNS    = "vsched-sample"
	sourcesNS   = "e2e-sources"
	adapterName = "sample-adapter"
	capacity    = 10 // --capacity of deploy/sample's controller
	maxSkew     = 1  // deploy/sample's config-scheduler
	zones       = 3  // the harness's fake nodes: zone-a, zone-b, zone-c
)

// env is one scenario's control plane, manifests and controllers.
type env struct {
	t          *testing.T
	ctx        context.Context
	cp         *harness.ControlPlane
	kubeconfig string // the controller's ServiceAccount
	start      time.Time
	timings    []harness.Timing
	figures    []string
	ctrls      []*harness.Controller
}

// newEnv starts a control plane, applies deploy/sample and the e2e
// ConfigMaps with server-side validation, and starts controllers sample
// controllers. The scenario's whole run is bounded by timeout.
func newEnv(t *testing.T, timeout time.Duration, controllers int) *env {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	t.Cleanup(cancel)
	e := &env{t: t, ctx: ctx, start: time.Now()}
	e.cp = harness.Start(t, controlPlaneOptions(t))
	e.timings = append(e.timings, e.cp.Timings...)
	if err := e.cp.ApplyDir(ctx, filepath.Join(harness.RepoRoot(), "deploy", "sample")); err != nil {
		t.Fatalf("applying deploy/sample: %v", err)
	}
	if err := e.cp.ApplyDir(ctx, filepath.Join(harness.RepoRoot(), "e2e", "testdata")); err != nil {
		t.Fatalf("applying e2e/testdata: %v", err)
	}
	if _, err := e.cp.Kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: sourcesNS}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	kc, err := e.cp.ServiceAccountKubeconfig(ctx, systemNS, "sample-controller")
	if err != nil {
		t.Fatal(err)
	}
	e.kubeconfig = kc
	e.mark("manifests applied")
	if _, err := harness.BuildSampleController(); err != nil {
		t.Fatal(err)
	}
	e.mark("sample controller built")
	for i := 0; i < controllers; i++ {
		e.startController(fmt.Sprintf("ctrl-%d", i))
	}
	t.Cleanup(e.report)
	return e
}

// restartController kills the leading controller and starts another, id,
// with flags, and waits until it leads; it returns the new controller and
// its log line saying so.
func (e *env) restartController(id string, flags ...string) (*harness.Controller, harness.LogEntry) {
	e.t.Helper()
	e.leader().Kill()
	e.mark("controller killed")
	c := e.startController(id, flags...)
	return c, e.waitLogged("its promotion after the restart", sinceStart(c), startedLeading)[c]
}

// leader is the running controller that holds the lease, else the last
// started of those still running (the lease may name one already killed),
// else the last one started: a second restart kills the controller the
// first started, not the one it killed.
func (e *env) leader() *harness.Controller {
	holder := e.leaseHolder()
	var found, last *harness.Controller
	for _, c := range e.ctrls {
		if !c.Running() {
			continue
		}
		last = c
		// The longest identity the holder starts with: "ctrl-1" is also
		// a prefix of "ctrl-10".
		if strings.HasPrefix(holder, c.Identity) && (found == nil || len(c.Identity) > len(found.Identity)) {
			found = c
		}
	}
	switch {
	case found != nil:
		return found
	case last != nil:
		return last
	}
	return e.ctrls[len(e.ctrls)-1]
}

func (e *env) startController(id string, flags ...string) *harness.Controller {
	c := e.cp.StartController(e.t, e.kubeconfig, systemNS, id, flags...)
	e.ctrls = append(e.ctrls, c)
	return c
}

func (e *env) mark(step string) {
	e.timings = append(e.timings, harness.Timing{Step: step, Took: time.Since(e.start)})
}

// figure records a measured figure for the scenario's report (printed, not
// asserted).
func (e *env) figure(what, value string, args ...any) {
	e.figures = append(e.figures, fmt.Sprintf("FIGURE %s: %s", fmt.Sprintf(what, args...), value))
}

// statefulSetGeneration is the adapter StatefulSet's metadata.generation,
// which every spec change (each resize) increments.
func (e *env) statefulSetGeneration() int64 {
	e.t.Helper()
	sts, err := e.cp.Kube.AppsV1().StatefulSets(systemNS).Get(e.ctx, adapterName, metav1.GetOptions{})
	if err != nil {
		e.t.Fatal(err)
	}
	return sts.Generation
}

func (e *env) report() {
	var b strings.Builder
	for _, f := range e.figures {
		fmt.Fprintf(&b, "%s\n", f)
	}
	fmt.Fprintf(&b, "TIMING %s\n", e.t.Name())
	for _, tm := range e.timings {
		fmt.Fprintf(&b, "  %-55s %8.1fs\n", tm.Step, tm.Took.Seconds())
	}
	fmt.Fprintf(&b, "  %-55s %8.1fs", "total", time.Since(e.start).Seconds())
	e.t.Log(b.String())
}

// perPod sums the sources' placed vreplicas by pod.
func perPod(srcs ...*v1alpha1.SampleSource) map[string]int32 {
	out := map[string]int32{}
	for _, src := range srcs {
		for _, p := range src.Status.Placements {
			out[p.PodName] += p.VReplicas
		}
	}
	return out
}

// createSources creates n sources named src-000... with vreplicas uniform
// in [1, maxV] from seed, and returns their vreplicas by name.
func (e *env) createSources(n int, maxV int32, seed uint64) map[string]int32 {
	e.t.Helper()
	r := sizeRand(seed)
	vs := make([]int32, n)
	for i := range vs {
		vs[i] = 1 + r.Int32N(maxV)
	}
	return e.createAll(vs)
}

// placeSources creates n sources as createSources does and waits until
// they settle with every fitFor check; it returns their vreplicas by name
// and the settled snapshot.
func (e *env) placeSources(n int, maxV int32, seed uint64) (map[string]int32, *snapshot) {
	e.t.Helper()
	want := e.createSources(n, maxV, seed)
	return want, e.settle(fmt.Sprintf("%d sources", n), fitFor(want), 2*time.Second, nil)
}

// sizeRand draws the sources' sizes from seed.
func sizeRand(seed uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
}

// createAll creates sources src-000... with the vreplicas given, in order,
// and returns their vreplicas by name.
func (e *env) createAll(vs []int32) map[string]int32 {
	e.t.Helper()
	out := make(map[string]int32, len(vs))
	for i, v := range vs {
		name := fmt.Sprintf("src-%03d", i)
		e.createSource(name, v)
		out[name] = v
	}
	return out
}

// createSourcesTotal creates n sources named src-000... whose vreplicas,
// each at least 1, add up to total: every unit above n goes to a source
// drawn from seed.
func (e *env) createSourcesTotal(n int, total int32, seed uint64) map[string]int32 {
	e.t.Helper()
	r := sizeRand(seed)
	vs := slices.Repeat([]int32{1}, n)
	for left := total - int32(n); left > 0; left-- {
		vs[r.IntN(n)]++
	}
	return e.createAll(vs)
}

func (e *env) createSource(name string, v int32) {
	e.t.Helper()
	e.createSourceObject(e.sourceObject(name, v))
}

// sourceObject is a new source as the API server takes it.
func (e *env) sourceObject(name string, v int32) *unstructured.Unstructured {
	e.t.Helper()
	u, err := v1alpha1.ToUnstructured(v1alpha1.New(sourcesNS, name, v))
	if err != nil {
		e.t.Fatal(err)
	}
	unstructured.RemoveNestedField(u.Object, "status")
	unstructured.RemoveNestedField(u.Object, "metadata", "creationTimestamp")
	return u
}

func (e *env) createSourceObject(u *unstructured.Unstructured) {
	e.t.Helper()
	name := u.GetName()
	if _, err := e.sources().Create(e.ctx, u, metav1.CreateOptions{FieldValidation: "Strict"}); err != nil {
		e.t.Fatalf("creating source %s: %v", name, err)
	}
}

// setVReplicas changes a source's spec.vreplicas (retrying conflicts).
func (e *env) setVReplicas(name string, v int32) {
	e.t.Helper()
	patch := fmt.Sprintf(`{"spec":{"vreplicas":%d}}`, v)
	if _, err := e.sources().Patch(e.ctx, name, types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
		e.t.Fatalf("scaling %s: %v", name, err)
	}
}

func (e *env) deleteSource(name string) {
	e.t.Helper()
	if err := e.sources().Delete(e.ctx, name, metav1.DeleteOptions{}); err != nil && !apierrs.IsNotFound(err) {
		e.t.Fatal(err)
	}
}

func (e *env) sources() dynamic.ResourceInterface {
	return e.cp.Dynamic.Resource(v1alpha1.GroupVersionResource).Namespace(sourcesNS)
}

// snapshot is what the API server shows at one moment.
type snapshot struct {
	at      time.Time
	sources []*v1alpha1.SampleSource
	sts     *appsv1.StatefulSet
	pods    map[string]*corev1.Pod // the adapter's pods by name
	existed map[string]bool        // pods seen just before or after the sources were read
	nodes   map[string]*corev1.Node
	// podCapacity is the controller's --capacity; 0 means capacity.
	podCapacity int32
}

func (s *snapshot) capacity() int32 {
	if s.podCapacity > 0 {
		return s.podCapacity
	}
	return capacity
}

func (e *env) snapshot() (*snapshot, error) {
	return e.snapshotWith(func() ([]unstructured.Unstructured, error) {
		list, err := e.sources().List(e.ctx, metav1.ListOptions{})
		if err != nil {
			return nil, err
		}
		return list.Items, nil
	})
}

// snapshotWith takes a snapshot with the sources that list returns.
func (e *env) snapshotWith(list func() ([]unstructured.Unstructured, error)) (*snapshot, error) {
	s := &snapshot{at: time.Now(), pods: map[string]*corev1.Pod{}, nodes: map[string]*corev1.Node{}, existed: map[string]bool{}}
	// Pods are listed before and after the sources: a pod a placement
	// names existed while the sources were read if either list has it.
	before, err := e.cp.Kube.CoreV1().Pods(systemNS).List(e.ctx, metav1.ListOptions{LabelSelector: "app.kubernetes.io/name=" + adapterName})
	if err != nil {
		return nil, err
	}
	for i := range before.Items {
		s.existed[before.Items[i].Name] = true
	}
	items, err := list()
	if err != nil {
		return nil, err
	}
	for i := range items {
		src, err := v1alpha1.FromUnstructured(&items[i])
		if err != nil {
			return nil, err
		}
		s.sources = append(s.sources, src)
	}
	sort.Slice(s.sources, func(i, j int) bool { return s.sources[i].Name < s.sources[j].Name })
	if s.sts, err = e.cp.Kube.AppsV1().StatefulSets(systemNS).Get(e.ctx, adapterName, metav1.GetOptions{}); err != nil {
		return nil, err
	}
	pods, err := e.cp.Kube.CoreV1().Pods(systemNS).List(e.ctx, metav1.ListOptions{LabelSelector: "app.kubernetes.io/name=" + adapterName})
	if err != nil {
		return nil, err
	}
	for i := range pods.Items {
		s.pods[pods.Items[i].Name] = &pods.Items[i]
		s.existed[pods.Items[i].Name] = true
	}
	nodes, err := e.cp.Kube.CoreV1().Nodes().List(e.ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	for i := range nodes.Items {
		s.nodes[nodes.Items[i].Name] = &nodes.Items[i]
	}
	return s, nil
}

func (s *snapshot) replicas() int32 {
	if s.sts.Spec.Replicas == nil {
		return 1
	}
	return *s.sts.Spec.Replicas
}

// healthyNode: Ready, schedulable, no unreachable/not-ready taint.
func healthyNode(n *corev1.Node) bool {
	if n == nil || n.Spec.Unschedulable || !harness.NodeReady(n) {
		return false
	}
	for _, t := range n.Spec.Taints {
		if t.Key == corev1.TaintNodeUnreachable || t.Key == corev1.TaintNodeNotReady {
			return false
		}
	}
	return true
}

// candidate: a pod vsched may place on (README, "Candidate pods").
func (s *snapshot) candidate(p *corev1.Pod) bool {
	ord, err := vsched.OrdinalFromPodName(p.Name)
	if err != nil || ord >= s.replicas() || p.Spec.NodeName == "" || p.DeletionTimestamp != nil {
		return false
	}
	if v, ok := p.Annotations[evictor.DefaultAnnotation]; ok && v != "false" {
		return false
	}
	return healthyNode(s.nodes[p.Spec.NodeName])
}

func (s *snapshot) totalVReplicas() int32 {
	var n int32
	for _, src := range s.sources {
		n += src.Spec.VReplicas
	}
	return n
}

// checks selects the invariants to assert.
type checks struct {
	allPlaced    bool  // every source's placements sum to its vreplicas
	zoneSkew     bool  // per source, zone skew <= maxSkew over zones with candidates
	running      bool  // every placement is on a Running pod
	wantReplicas int32 // StatefulSet replicas; < 0: not checked
	// zoneFit checks the replicas against zoneFitReplicas instead of
	// wantReplicas: after compaction, or once pods were recreated while a
	// zone was down, the pods' zones are no longer round-robin by ordinal.
	zoneFit bool
}

// fitFor checks everything settled placing from zero or scaling up ends
// with: all placed, within the zone skew, on Running pods, and the
// StatefulSet at the fit for the sources' vreplicas (want, by name).
func fitFor(want map[string]int32) checks {
	return checks{allPlaced: true, zoneSkew: true, running: true, wantReplicas: fitReplicas(sum(want))}
}

// compacted checks everything settled compaction ends with: fitFor's
// checks, with the replicas against zoneFitReplicas.
var compacted = checks{allPlaced: true, zoneSkew: true, running: true, zoneFit: true}

// violations returns what breaks the invariants. Always checked: no pod over
// capacity, no placement on a pod that does not exist, no placement beyond
// spec.vreplicas.
func (s *snapshot) violations(c checks) []string {
	var out []string
	perPod := map[string]int32{}
	for _, src := range s.sources {
		var sum int32
		for _, p := range src.Status.Placements {
			sum += p.VReplicas
			perPod[p.PodName] += p.VReplicas
			if !s.existed[p.PodName] {
				out = append(out, fmt.Sprintf("%s: %d vreplica(s) on %s, which does not exist", src.Name, p.VReplicas, p.PodName))
				continue
			}
			pod, ok := s.pods[p.PodName]
			if !ok {
				continue
			}
			if c.running && pod.Status.Phase != corev1.PodRunning {
				out = append(out, fmt.Sprintf("%s: placed on %s, which is %s", src.Name, p.PodName, pod.Status.Phase))
			}
		}
		if sum > src.Spec.VReplicas && src.Status.ObservedGeneration == src.Generation {
			out = append(out, fmt.Sprintf("%s: %d placed, more than its %d vreplicas", src.Name, sum, src.Spec.VReplicas))
		}
		if c.allPlaced && (sum != src.Spec.VReplicas || src.Status.ObservedGeneration != src.Generation) {
			out = append(out, fmt.Sprintf("%s: %d of %d vreplicas placed (observed generation %d of %d)", src.Name, sum, src.Spec.VReplicas, src.Status.ObservedGeneration, src.Generation))
		}
	}
	if c.zoneSkew {
		out = append(out, s.zoneSkewViolations()...)
	}
	for pod, n := range perPod {
		if n > s.capacity() {
			out = append(out, fmt.Sprintf("pod %s holds %d vreplicas, over its capacity %d", pod, n, s.capacity()))
		}
	}
	switch r := s.replicas(); {
	case c.zoneFit:
		if want, why := s.zoneFitReplicas(); r != want {
			out = append(out, fmt.Sprintf("StatefulSet replicas %d, want %d (%s)", r, want, why))
		}
	case c.wantReplicas < 0:
	case r != c.wantReplicas:
		out = append(out, fmt.Sprintf("StatefulSet replicas %d, want %d", r, c.wantReplicas))
	}
	sort.Strings(out)
	return out
}

// zoneSkewViolations lists the sources whose zone skew
// exceeds MaxSkew over the zones with candidate pods. deploy/sample's
// EvenZoneSpread makes this a hard rule, so it holds whether or not a zone
// has room.
func (s *snapshot) zoneSkewViolations() []string {
	var out []string
	zones := s.candidateZones()
	for _, src := range s.sources {
		perZone := s.zonesOf(src)
		hi, lo := int32(0), int32(-1)
		for z := range zones {
			hi = max(hi, perZone[z])
			if lo < 0 || perZone[z] < lo {
				lo = perZone[z]
			}
		}
		if len(zones) > 0 && hi-lo > maxSkew {
			out = append(out, fmt.Sprintf("%s: zone skew %d > MaxSkew %d (%v)", src.Name, hi-lo, maxSkew, perZone))
		}
	}
	return out
}

func (s *snapshot) candidateZones() map[string]bool {
	zones := map[string]bool{}
	for _, p := range s.pods {
		if s.candidate(p) {
			zones[s.nodes[p.Spec.NodeName].Labels[harness.ZoneLabel]] = true
		}
	}
	return zones
}

// adapterSettled: every pod below replicas exists, is Running and Ready,
// and none above.
func (s *snapshot) adapterSettled() bool {
	r := s.replicas()
	for i := int32(0); i < r; i++ {
		p, ok := s.pods[vsched.PodName(adapterName, i)]
		if !ok || p.Status.Phase != corev1.PodRunning || p.DeletionTimestamp != nil {
			return false
		}
	}
	return int32(len(s.pods)) == r
}

// fingerprint identifies the placements and size, to tell a settled
// cluster from one still moving.
func (s *snapshot) fingerprint() string {
	var b strings.Builder
	fmt.Fprintf(&b, "r=%d;", s.replicas())
	for _, src := range s.sources {
		fmt.Fprintf(&b, "%s/%d/%d:", src.Name, src.Generation, src.Status.ObservedGeneration)
		for _, p := range src.Status.Placements {
			fmt.Fprintf(&b, "%s=%d,", p.PodName, p.VReplicas)
		}
		b.WriteByte(';')
	}
	return b.String()
}

// settle waits until c holds, the adapter's pods are all Running and
// nothing has changed for `quiet`, then returns the snapshot. observe, when
// set, sees every snapshot taken on the way.
func (e *env) settle(what string, c checks, quiet time.Duration, observe func(*snapshot)) *snapshot {
	e.t.Helper()
	var (
		last     *snapshot
		lastFP   string
		sameFrom time.Time
		problems []string
		// lastSummary is logged when it changes, to show progress.
		lastSummary = "-"
	)
	err := wait.PollUntilContextCancel(e.ctx, 500*time.Millisecond, true, func(context.Context) (bool, error) {
		s, err := e.snapshot()
		if err != nil {
			problems = []string{err.Error()}
			return false, nil
		}
		if observe != nil {
			observe(s)
		}
		last = s
		problems = s.violations(c)
		fp := s.fingerprint()
		if fp != lastFP {
			lastFP, sameFrom = fp, time.Now()
		}
		if !s.adapterSettled() {
			problems = append(problems, "adapter pods not all Running")
		}
		if sum := summary(problems); sum != lastSummary {
			lastSummary = sum
			e.t.Logf("%6.1fs %s: %s", time.Since(e.start).Seconds(), what, sum)
		}
		return len(problems) == 0 && time.Since(sameFrom) >= quiet, nil
	})
	if err != nil {
		if len(problems) > 10 {
			problems = append(problems[:10], fmt.Sprintf("... and %d more", len(problems)-10))
		}
		desc := "no snapshot"
		if last != nil {
			desc = fmt.Sprintf("replicas %d, %d pods, %d vreplicas wanted", last.replicas(), len(last.pods), last.totalVReplicas())
			desc += fmt.Sprintf(" (status: %d ready, %d current)", last.sts.Status.ReadyReplicas, last.sts.Status.CurrentReplicas)
			for _, p := range last.pods {
				if p.Status.Phase != corev1.PodRunning || p.DeletionTimestamp != nil {
					desc += fmt.Sprintf("\n  pod %s on %q: %s deleting=%v %v", p.Name, p.Spec.NodeName, p.Status.Phase, p.DeletionTimestamp != nil, p.Status.Conditions)
				}
			}
		}
		e.t.Fatalf("%s did not settle (%v): %s\n  %s", what, err, desc, strings.Join(problems, "\n  "))
	}
	e.mark(what + " settled")
	e.t.Logf("%s settled: replicas %d, %d vreplicas", what, last.replicas(), last.totalVReplicas())
	return last
}

// fitReplicas is the size the autoscaler's fit policy must choose when the
// only hard rule is capacity: enough pods for every vreplica, rounded up to
// a multiple of the zones (the profile spreads over zones), within
// [min, max].
func fitReplicas(total int32) int32 {
	if total == 0 {
		return 0
	}
	n := (total + capacity - 1) / capacity
	n = (n + zones - 1) / zones * zones
	return min(n, maxReplicas)
}

// zoneFitReplicas is the size the autoscaler must settle at, computed from
// where the vreplicas are: the smallest multiple of the zones that covers
// the vreplicas (fitReplicas) and gives every zone, in its pods below that
// ordinal, room for the vreplicas placed in the zone. Under the hard zone
// spread each zone's share of every source is fixed to within MaxSkew, so a
// zone whose pods sit at high ordinals (recreated while another zone was
// down) keeps those ordinals in the StatefulSet. Where the pods alternate
// zones by ordinal it is fitReplicas. It also says how it got there.
func (s *snapshot) zoneFitReplicas() (int32, string) {
	total := s.totalVReplicas()
	load := map[string]int32{}
	for _, src := range s.sources {
		for z, n := range s.zonesOf(src) {
			load[z] += n
		}
	}
	zoneOf := map[int32]string{}
	var top int32 = -1
	for _, p := range s.pods {
		ord, err := vsched.OrdinalFromPodName(p.Name)
		if err != nil || p.Spec.NodeName == "" || s.nodes[p.Spec.NodeName] == nil {
			continue
		}
		zoneOf[ord] = s.nodes[p.Spec.NodeName].Labels[harness.ZoneLabel]
		top = max(top, ord)
	}
	for n := fitReplicas(total); n <= maxReplicas; n += zones {
		room := map[string]int32{}
		for ord := int32(0); ord < n; ord++ {
			if z, ok := zoneOf[ord]; ok {
				room[z] += capacity
			}
		}
		ok := true
		for z, l := range load {
			if l > room[z] {
				ok = false
			}
		}
		if ok {
			return n, fmt.Sprintf("%d vreplicas, by zone %v", total, load)
		}
		if n > top {
			break
		}
	}
	return -1, fmt.Sprintf("no size up to the %d pods bound fits %d vreplicas by zone %v", top+1, total, load)
}

// failNode freezes the node's kwok: its heartbeats stop, and the node
// lifecycle controller marks it NotReady (Unknown) and taints it.
func (e *env) failNode(name string) {
	e.t.Helper()
	if err := e.cp.FailNode(name); err != nil {
		e.t.Fatal(err)
	}
}

// recoverNode resumes the node's kwok, which makes it Ready again.
func (e *env) recoverNode(name string) {
	e.t.Helper()
	if err := e.cp.RecoverNode(name); err != nil {
		e.t.Fatal(err)
	}
}

// cordon cordons (or uncordons) the node and waits until every
// controller's scheduler has seen it.
func (e *env) cordon(name string, on bool) {
	e.t.Helper()
	marks := e.logMarks()
	patch := fmt.Sprintf(`{"spec":{"unschedulable":%v}}`, on)
	if _, err := e.cp.Kube.CoreV1().Nodes().Patch(e.ctx, name, types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
		e.t.Fatal(err)
	}
	e.waitNodesSeen(marks, !on, name)
}

// waitNode waits until the node's health is as wanted.
func (e *env) waitNode(name string, healthy bool) {
	e.t.Helper()
	err := wait.PollUntilContextCancel(e.ctx, 250*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		n, err := e.cp.Kube.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		return healthyNode(n) == healthy, nil
	})
	if err != nil {
		e.t.Fatalf("node %s never became healthy=%v: %v", name, healthy, err)
	}
}

// waitFor polls cond until it holds.
func (e *env) waitFor(what string, cond func(*snapshot) bool) *snapshot {
	e.t.Helper()
	var last *snapshot
	err := wait.PollUntilContextCancel(e.ctx, 500*time.Millisecond, true, func(context.Context) (bool, error) {
		s, err := e.snapshot()
		if err != nil {
			return false, nil
		}
		last = s
		return cond(s), nil
	})
	if err != nil {
		state := "no snapshot"
		if last != nil {
			// What a failed wait most often needs explained.
			state = fmt.Sprintf("replicas %d, %d pods; every source placed within MaxSkew", last.replicas(), len(last.pods))
			if p := last.violations(checks{allPlaced: true, zoneSkew: true, wantReplicas: -1}); len(p) > 0 {
				state = fmt.Sprintf("replicas %d, %d pods; %s", last.replicas(), len(last.pods), summary(p))
			}
		}
		e.t.Fatalf("waiting for %s: %v (last seen: %s)", what, err, state)
	}
	e.mark(what)
	return last
}

// placedOn returns the vreplicas placed on pods bound to the node.
func (s *snapshot) placedOn(node string) int32 {
	var n int32
	for _, src := range s.sources {
		for _, p := range src.Status.Placements {
			if pod := s.pods[p.PodName]; pod != nil && pod.Spec.NodeName == node {
				n += p.VReplicas
			}
		}
	}
	return n
}

// zonesOf returns the source's vreplicas by zone.
func (s *snapshot) zonesOf(src *v1alpha1.SampleSource) map[string]int32 {
	out := map[string]int32{}
	for _, p := range src.Status.Placements {
		if pod := s.pods[p.PodName]; pod != nil {
			if n := s.nodes[pod.Spec.NodeName]; n != nil {
				out[n.Labels[harness.ZoneLabel]] += p.VReplicas
			}
		}
	}
	return out
}

func (s *snapshot) placedTotal() int32 {
	var n int32
	for _, src := range s.sources {
		n += vsched.TotalVReplicas(src.Status.Placements)
	}
	return n
}

// leaseHolder returns the holder of the sample controller's lease.
func (e *env) leaseHolder() string {
	leases, err := e.cp.Kube.CoordinationV1().Leases(systemNS).List(e.ctx, metav1.ListOptions{})
	if err != nil {
		return ""
	}
	for _, l := range leases.Items {
		if strings.HasPrefix(l.Name, "sample-controller.") && l.Spec.HolderIdentity != nil {
			return *l.Spec.HolderIdentity
		}
	}
	return ""
}

func sum(m map[string]int32) int32 {
	var n int32
	for _, v := range m {
		n += v
	}
	return n
}

// summary shortens a list of problems for a progress line.
func summary(problems []string) string {
	switch {
	case len(problems) == 0:
		return "invariants hold; waiting for quiet"
	case len(problems) <= 2:
		return strings.Join(problems, "; ")
	}
	return fmt.Sprintf("%s; %s; and %d more", problems[0], problems[1], len(problems)-2)
}
