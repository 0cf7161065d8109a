package statefulset

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/framework"
	"github.com/vsched/vsched/framework/frameworktest"
	"github.com/vsched/vsched/memcluster"
)

// memoryPods gives every pod 1Gi of memory.
func memoryPods(cfg *Config) { cfg.PodResources = frameworktest.Resources("memory", "1Gi") }

// oneNode is one node with three pods of capacity 10.
func oneNode(t *testing.T, opts ...func(*memcluster.Options)) *kubeCluster {
	c := newKubeCluster(t, opts...).addNode("n0", "za")
	for ord := int32(0); ord < 3; ord++ {
		c.addPod(ord, "n0")
	}
	return c.scale(3)
}

// costed creates a source wanting vreplicas, each costing cost ("" for
// none).
func costed(t *testing.T, c *kubeCluster, name string, vreplicas int32, cost string) {
	t.Helper()
	c.store.create(name, vreplicas)
	if cost == "" {
		return
	}
	l, err := vsched.ParseVReplicaCost(cost)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.store.SetCost(srcKey(name), l); err != nil {
		t.Fatal(err)
	}
}

// TestWeightedPlacement checks exact placements of sources with and
// without a memory cost on pods of 10 slots and 1Gi. Under the default
// policy a pod in use fills before an empty one opens; a cost bounds how
// far.
func TestWeightedPlacement(t *testing.T) {
	c := oneNode(t)
	s := c.start(memoryPods)
	// heavy: 3 x 400Mi. Pod 0 takes two (800Mi); the third would need
	// 1200Mi there, so it opens pod 1. Without a cost all three fit pod 0.
	costed(t, c, "heavy", 3, "memory=400Mi")
	wantPlacements(t, scheduleOK(t, s, c, "heavy"), 0, 2, 1, 1)
	// light costs nothing but slots: it goes to the pods in use, the pod
	// spread alternating between them from the fuller (best fit),
	// whatever their memory, as before costs existed.
	costed(t, c, "light", 5, "")
	wantPlacements(t, scheduleOK(t, s, c, "light"), 0, 3, 1, 2)
	// Pod 0 holds 5 slots and 800Mi, pod 1 3 slots and 400Mi. mid (300Mi)
	// cannot go to pod 0 (224Mi left) and takes pod 1 (624Mi left) twice,
	// then pod 2.
	costed(t, c, "mid", 3, "memory=300Mi")
	wantPlacements(t, scheduleOK(t, s, c, "mid"), 1, 2, 2, 1)
	if diff := cmp.Diff(map[int32]int32{0: 5, 1: 5, 2: 1}, used(s)); diff != "" {
		t.Errorf("slots used (-want +got):\n%s", diff)
	}
}

// TestWeightedPlacementBalances checks BalancedCostPriority: of two pods
// in use that the spread rules rank alike, a source with a cost goes to
// the one whose slots and memory end up used more alike, even when the
// other is fuller (best fit would take it).
func TestWeightedPlacementBalances(t *testing.T) {
	c := oneNode(t)
	s := c.start(memoryPods)
	costed(t, c, "slots", 2, "")
	c.store.writeStatus("slots", placements(0, 2))
	costed(t, c, "memory", 3, "memory=200Mi")
	c.store.writeStatus("memory", placements(1, 3))
	c.syncAll()
	// Pod 0 after one more: slots 3/10 (300), memory 100Mi/1Gi (97):
	// 100 - (300-97)/10 = 80. Pod 1: slots 4/10 (400), memory 700Mi/1Gi
	// (683): 100 - 283/10 = 72. Pod 1 is fuller (7 free to 8).
	costed(t, c, "new", 1, "memory=100Mi")
	wantPlacements(t, scheduleOK(t, s, c, "new"), 0, 1)
}

// TestWeightedExplanation checks that an explanation shows each
// dimension, and why a pod short of memory was rejected.
func TestWeightedExplanation(t *testing.T) {
	c := oneNode(t)
	s := c.start(memoryPods)
	costed(t, c, "heavy", 3, "memory=400Mi")
	var ex framework.Explanation
	if _, err := s.Schedule(WithExplanation(quietCtx(), &ex), c.store.get("heavy")); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := ex.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	want := "adapter-0                rejected by PodFitsCosts: pod adapter-0 has 224Mi of memory left, a vreplica costs 400Mi " +
		"(slots 2/10, memory 800Mi/1Gi) [slots 2/10, memory 800Mi/1Gi]"
	if !strings.Contains(b.String(), want) {
		t.Errorf("explanation lacks %q:\n%s", want, b.String())
	}
	if !strings.Contains(b.String(), "BalancedCostPriority") {
		t.Errorf("explanation lacks the balance score:\n%s", b.String())
	}
}

// TestWeightedPending checks that a source whose cost no pod can take is
// left pending, with a reason naming the filter, and that a pod's slots
// still bound a cheap source.
func TestWeightedPending(t *testing.T) {
	c := oneNode(t)
	s := c.start(memoryPods)
	costed(t, c, "huge", 4, "memory=600Mi")
	ps, err := s.Schedule(quietCtx(), c.store.get("huge"))
	var pe *vsched.PendingError
	if !errors.As(err, &pe) || pe.Pending != 1 || !strings.Contains(pe.Reason, "PodFitsCosts") {
		t.Fatalf("Schedule = %v, %v; want 1 pending because of PodFitsCosts", short(ps), err)
	}
	wantPlacements(t, ps, 0, 1, 1, 1, 2, 1)
}

// TestWeightedWithoutPodResources checks that without pod resources a
// cost is not counted: placements are count-only.
func TestWeightedWithoutPodResources(t *testing.T) {
	c := oneNode(t)
	s := c.start()
	costed(t, c, "heavy", 3, "memory=400Mi")
	wantPlacements(t, scheduleOK(t, s, c, "heavy"), 0, 3)
}

// TestWeightedCostOutOfBounds checks that Schedule refuses a cost beyond
// vsched.MaxCost or below 0, naming the source and the resource.
func TestWeightedCostOutOfBounds(t *testing.T) {
	c := oneNode(t)
	s := c.start(memoryPods)
	c.store.create("bad", 1)
	if _, err := c.store.SetCost(srcKey("bad"), corev1.ResourceList{"memory": resource.MustParse("-1")}); err != nil {
		t.Fatal(err)
	}
	_, err := s.Schedule(quietCtx(), c.store.get("bad"))
	if want := "sources/bad: cost of memory: -1 is negative"; err == nil || err.Error() != want {
		t.Errorf("Schedule = %v, want %q", err, want)
	}
}

// TestWeightedFromTemplate checks that without Config.PodResources the
// pods' resources come from the StatefulSet's template.
func TestWeightedFromTemplate(t *testing.T) {
	c := oneNode(t, func(o *memcluster.Options) {
		o.PodResources = corev1.ResourceRequirements{Limits: frameworktest.Resources("memory", "1Gi")}
	})
	s := c.start()
	costed(t, c, "heavy", 3, "memory=400Mi")
	wantPlacements(t, scheduleOK(t, s, c, "heavy"), 0, 2, 1, 1)
}

func TestTemplateResources(t *testing.T) {
	set := &appsv1.StatefulSet{}
	set.Spec.Template.Spec.InitContainers = []corev1.Container{{Resources: corev1.ResourceRequirements{
		Limits: frameworktest.Resources("memory", "8Gi")}}}
	set.Spec.Template.Spec.Containers = []corev1.Container{
		// The limit counts where there is one, else the request.
		{Resources: corev1.ResourceRequirements{
			Requests: frameworktest.Resources("memory", "512Mi", "cpu", "500m"),
			Limits:   frameworktest.Resources("memory", "1Gi")}},
		{Resources: corev1.ResourceRequirements{Requests: frameworktest.Resources("cpu", "250m", "memory", "256Mi")}},
	}
	got := TemplateResources(set)
	want := frameworktest.Resources("memory", "1280Mi", "cpu", "750m")
	if len(got) != len(want) {
		t.Fatalf("TemplateResources = %v, want %v", got, want)
	}
	for name, q := range want {
		if g := got[name]; g.Cmp(q) != 0 {
			t.Errorf("%s = %s, want %s", name, g.String(), q.String())
		}
	}
	if TemplateResources(&appsv1.StatefulSet{}) != nil || TemplateResources(nil) != nil {
		t.Error("a template without resources must give nil")
	}
}

// badCost is a source whose cost declaration is malformed.
type badCost struct{ *vsched.PlainVPod }

func (badCost) VReplicaCostError() error { return errors.New("annotation x: malformed") }

// TestWeightedMalformedCost checks that Schedule refuses a source whose
// declaration is malformed (vsched.VReplicaCostChecker).
func TestWeightedMalformedCost(t *testing.T) {
	c := oneNode(t)
	s := c.start(memoryPods)
	c.store.create("bad", 1)
	_, err := s.Schedule(quietCtx(), badCost{c.store.get("bad")})
	if want := "sources/bad: annotation x: malformed"; err == nil || err.Error() != want {
		t.Errorf("Schedule = %v, want %q", err, want)
	}
}
