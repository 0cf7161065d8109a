//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/e2e/harness"
	"github.com/vsched/vsched/internal/app/sample/apis/v1alpha1"
	"github.com/vsched/vsched/statefulset"
)

const maxReplicas = 120 // e2e/testdata config-autoscaler

// TestPlaceFromZero: 3 zones, 6 nodes, 50 sources with random vreplicas
// adding up to 1,000; the StatefulSet grows from 0 and every vreplica lands
// on a Running pod, each source within MaxSkew across zones. Prints how
// long it took and how many StatefulSet updates it made.
func TestPlaceFromZero(t *testing.T) {
	e := newEnv(t, 5*time.Minute, 1)
	gen0 := e.statefulSetGeneration()
	created := time.Now()
	want := e.createSourcesTotal(50, 1000, 1)
	e.mark("50 sources (1,000 vreplicas) created")
	var placedAt time.Time
	s := e.settle("50 sources", fitFor(want), 3*time.Second,
		func(s *snapshot) {
			if placedAt.IsZero() && s.adapterSettled() && len(s.violations(checks{allPlaced: true, running: true, wantReplicas: -1})) == 0 {
				placedAt = s.at
			}
		})
	if len(s.sources) != 50 || s.totalVReplicas() != 1000 {
		t.Fatalf("%d sources with %d vreplicas, want 50 with 1000", len(s.sources), s.totalVReplicas())
	}
	for _, src := range s.sources {
		c := src.Condition(v1alpha1.ConditionScheduled)
		if c == nil || c.Status != metav1.ConditionTrue {
			t.Errorf("%s: Scheduled condition %+v, want True", src.Name, c)
		}
	}
	e.figure("1,000 vreplicas: creation to all placed on Running pods", fmt.Sprintf("%.1fs", placedAt.Sub(created).Seconds()))
	e.figure("1,000 vreplicas: StatefulSet spec updates (0 -> %d replicas)", fmt.Sprint(s.sts.Generation-gen0), s.replicas())
}

// TestScaleAndCompact: sources scale up, then down, then half are deleted;
// the StatefulSet follows, compaction drains the high ordinals, and no
// status ever lacks a vreplica it held.
func TestScaleAndCompact(t *testing.T) {
	e := newEnv(t, 6*time.Minute, 1)
	w := e.watchStatuses()
	want, _ := e.placeSources(30, 6, 2)

	for name, v := range want {
		want[name] = min(v*2, 12)
		e.setVReplicas(name, want[name])
	}
	e.mark("scaled up")
	e.settle("scale-up", fitFor(want), 2*time.Second, nil)

	// 1 to 4 vreplicas by name (73 in all, 8 pods' worth: 9 with the
	// zones), not a multiple of the capacity of 3 pods.
	for i := 0; i < 30; i++ {
		name := fmt.Sprintf("src-%03d", i)
		want[name] = 1 + int32(i%4)
		e.setVReplicas(name, want[name])
	}
	e.mark("scaled down")
	e.settle("scale-down and compaction", compacted, 2*time.Second, nil)

	for i := 0; i < 30; i += 2 {
		name := fmt.Sprintf("src-%03d", i)
		e.deleteSource(name)
		delete(want, name)
	}
	e.mark("half deleted")
	e.settle("delete half and compaction", compacted, 2*time.Second, nil)
	w.check(e)
}

// TestCordonNode: vreplicas on a cordoned node stay (a cordon moves
// nothing), and new ones go elsewhere. The new sources are created only once
// the scheduler has logged that it sees the cordon (e.cordon waits): a
// scheduler cannot honour a cordon its informer has not delivered yet.
func TestCordonNode(t *testing.T) {
	e := newEnv(t, 4*time.Minute, 1)
	want, s := e.placeSources(20, 5, 3)
	const node = "zone-a-node-0"
	before := s.placedOn(node)
	e.cordon(node, true)
	e.mark("node cordoned")
	for i := 20; i < 30; i++ {
		name := fmt.Sprintf("src-%03d", i)
		e.createSource(name, 4)
		want[name] = 4
	}
	s = e.settle("10 more sources", checks{allPlaced: true, zoneSkew: true, running: true, wantReplicas: -1}, 2*time.Second, nil)
	if after := s.placedOn(node); after > before {
		t.Errorf("vreplicas on cordoned %s grew from %d to %d", node, before, after)
	}
	e.cordon(node, false)
	e.mark("node uncordoned")
	e.settle("uncordoned and compacted", compacted, 2*time.Second, nil)
}

// TestNodeFails: a node stops heartbeating; once the node lifecycle
// controller taints it and the unavailable-pod grace passes, its vreplicas
// run elsewhere, and the scheduler's metrics (scraped from the
// controller's Prometheus endpoint) show nothing pending and those
// vreplicas moved for a lost node.
func TestNodeFails(t *testing.T) {
	e := newEnv(t, 5*time.Minute, 1)
	_, s := e.placeSources(30, 6, 4)
	// The node holding the most vreplicas.
	node, most := "", int32(0)
	for name := range s.nodes {
		if n := s.placedOn(name); n > most {
			node, most = name, n
		}
	}
	t.Logf("failing %s, which holds %d vreplicas", node, most)
	e.failNodes(node)
	e.mark("node NotReady and tainted")
	e.waitFor("vreplicas moved off the failed node", func(s *snapshot) bool {
		return s.placedOn(node) == 0 && len(s.violations(checks{allPlaced: true, wantReplicas: -1})) == 0
	})
	// The scheduler's metrics say the same: nothing pending, and at least
	// the failed node's vreplicas moved, for a lost node.
	ctrl := e.ctrls[0]
	if pending, ok := e.scrape(ctrl, "vsched_scheduler_pending_vreplicas"); !ok || pending != 0 {
		t.Errorf("vsched_scheduler_pending_vreplicas = %v (found %v); want 0 once every source is placed", pending, ok)
	}
	lost, _ := e.scrape(ctrl, "vsched_scheduler_moved_vreplicas_total", `reason="lost_node"`)
	moved, _ := e.scrape(ctrl, "vsched_scheduler_moved_vreplicas_total")
	if lost == 0 || moved < float64(most) {
		// A pod of the failed node that compaction had marked already
		// counts its moves as a drain's.
		t.Errorf("vsched_scheduler_moved_vreplicas_total: %v with reason lost_node, %v in all; want some for a lost node, and at least the %d vreplicas the failed node held in all", lost, moved, most)
	}
	e.recoverNodes(node)
	e.mark("node recovered")
	e.settle("node recovered and compacted", compacted, 2*time.Second, nil)
}

// TestZoneFailsAndRecovers: both nodes of a zone fail; the vreplicas there
// move to the other zones (the StatefulSet grows if needed) and new ones go
// to the surviving zones, spread over them; then the zone comes back, the
// sources that moved are evened out over all three, and new sources spread
// over all three.
func TestZoneFailsAndRecovers(t *testing.T) {
	e := newEnv(t, 5*time.Minute, 1)
	want, _ := e.placeSources(30, 6, 5)
	nodes := []string{"zone-c-node-0", "zone-c-node-1"}
	e.failNodes(nodes...)
	down := time.Now()
	e.mark("zone-c NotReady and tainted")
	during := map[string]bool{}
	for i := 0; i < 6; i++ {
		name := fmt.Sprintf("during-%d", i)
		e.createSource(name, 4)
		during[name] = true
		want[name] = 4
	}
	s := e.waitFor("vreplicas moved out of zone-c", func(s *snapshot) bool {
		return s.placedOn(nodes[0])+s.placedOn(nodes[1]) == 0 && len(s.violations(checks{allPlaced: true, wantReplicas: -1})) == 0
	})
	e.figure("zone failure: NotReady (as the controller sees it) to every vreplica placed outside the zone", fmt.Sprintf("%.1fs", s.at.Sub(down).Seconds()))
	s = e.settle("sources created while zone-c is down", checks{allPlaced: true, zoneSkew: true, wantReplicas: -1}, 2*time.Second, nil)
	for _, src := range s.sources {
		if during[src.Name] {
			if z := s.zonesOf(src); z["zone-c"] > 0 || len(z) != 2 {
				t.Errorf("%s, created while zone-c is down, is placed %v; want zone-a and zone-b only", src.Name, z)
			}
		}
	}
	e.recoverNodes(nodes...)
	up := time.Now()
	e.mark("zone-c nodes Ready")
	// The autoscaler lifts its unavailable drain marks on its next cycle;
	// until then zone-c's pods take nothing and do not count as a zone.
	e.waitFor("zone-c pods take vreplicas again", func(s *snapshot) bool {
		n := 0
		for _, p := range s.pods {
			if p.Spec.NodeName == nodes[0] || p.Spec.NodeName == nodes[1] {
				if !s.candidate(p) {
					return false
				}
				n++
			}
		}
		return n > 0
	})
	// The sources moved out of zone-c are uneven over the three zones now;
	// the autoscaler requeues them and they move back.
	s = e.waitFor("every source within MaxSkew over the three zones", func(s *snapshot) bool {
		return len(s.candidateZones()) == 3 && len(s.violations(checks{allPlaced: true, zoneSkew: true, wantReplicas: -1})) == 0
	})
	e.figure("zone recovery: Ready (as the controller sees it) to every source within MaxSkew over all zones", fmt.Sprintf("%.1fs", s.at.Sub(up).Seconds()))
	after := map[string]bool{}
	for i := 0; i < 6; i++ {
		name := fmt.Sprintf("after-%d", i)
		e.createSource(name, 3)
		after[name] = true
		want[name] = 3
	}
	s = e.settle("after recovery", compacted, 2*time.Second, nil)
	for _, src := range s.sources {
		if after[src.Name] {
			if z := s.zonesOf(src); len(z) != 3 {
				t.Errorf("%s, created after zone-c recovered, is placed %v; want one vreplica per zone", src.Name, z)
			}
		}
	}
}

// TestControllerRestart: the controller is killed while it places 50
// sources; a new one loads the committed placements and finishes.
func TestControllerRestart(t *testing.T) {
	e := newEnv(t, 4*time.Minute, 1)
	w := e.watchStatuses()
	want := e.createSources(50, 8, 6)
	e.waitFor("some sources placed", func(s *snapshot) bool { return s.placedTotal() > 0 })
	e.restartController("ctrl-restarted")
	e.settle("after restart", fitFor(want), 3*time.Second, nil)
	w.check(e)
}

// TestControllerRestartSlowSourceSync: the controller is killed and its
// replacement's source informer starts 25s late (--source-sync-delay, a
// testing aid): it leads, and its autoscaler runs, before it has seen a
// single source, and the sources created meanwhile arrive with the rest.
// Nothing may be decided from that empty list: no scale-down of pods that
// hold vreplicas, no new vreplica on room that committed ones use. The
// watch replays every version of the sources and the StatefulSet and checks
// each moment: no pod over capacity, nothing at or beyond the replicas.
func TestControllerRestartSlowSourceSync(t *testing.T) {
	e := newEnv(t, 5*time.Minute, 1)
	w := e.watchStatuses()
	want, _ := e.placeSources(30, 6, 10)
	c, led := e.restartController("ctrl-slow", "--source-sync-delay=25s")
	for i := 30; i < 36; i++ {
		name := fmt.Sprintf("src-%03d", i)
		e.createSource(name, 5)
		want[name] = 5
	}
	e.mark("6 sources created while the source informer waits")
	starting := e.waitLogged("the source informer starting", sinceStart(c), sourcesStarting)[c]
	if starting.Offset < led.Offset {
		t.Fatalf("the source informer started before the controller led: the delay did not cover the window this scenario tests")
	}
	e.waitLogged("the sources synced", sinceStart(c), sourcesSynced)
	e.settle("after the slow restart", fitFor(want), 3*time.Second, nil)
	w.check(e)
}

// TestLeaderFailover: two controller replicas; the leader is killed while
// sources are being placed and the other takes over.
func TestLeaderFailover(t *testing.T) {
	e := newEnv(t, 4*time.Minute, 2)
	w := e.watchStatuses()
	want, _ := e.placeSources(25, 8, 7)
	leader := e.leaseHolder()
	var victim, other = -1, -1
	for i, c := range e.ctrls {
		if strings.HasPrefix(leader, c.Identity) {
			victim = i
		} else {
			other = i
		}
	}
	if victim < 0 {
		t.Fatalf("lease holder %q is none of the controllers", leader)
	}
	for i := 25; i < 50; i++ {
		v := int32(1 + i%8)
		e.createSource(fmt.Sprintf("src-%03d", i), v)
		want[fmt.Sprintf("src-%03d", i)] = v
	}
	marks := logMarks{e.ctrls[other]: e.ctrls[other].LogOffset()}
	e.ctrls[victim].Kill()
	e.mark("leader killed")
	e.waitLogged("the leader change", marks, startedLeading)
	e.settle("after failover", fitFor(want), 2*time.Second, nil)
	if h := e.leaseHolder(); !strings.HasPrefix(h, e.ctrls[other].Identity) {
		t.Errorf("lease held by %q after failover, want %s", h, e.ctrls[other].Identity)
	}
	w.check(e)
}

// TestConfigSchedulerLive: a valid config-scheduler change applies to the
// next decisions; an invalid one is rejected with a Warning Event and the
// last good one stays.
func TestConfigSchedulerLive(t *testing.T) {
	e := newEnv(t, 4*time.Minute, 1)
	e.placeSources(10, 4, 8)

	// Pack onto the lowest ordinals: no spread at all.
	packed := `apiVersion: v1
kind: ConfigMap
metadata:
  name: config-scheduler
  namespace: vsched-sample
data:
  predicates: |
    [{"Name": "PodFitsResources"}]
  priorities: |
    [{"Name": "LowestOrdinalPriority", "Weight": 1}]
`
	marks := e.logMarks()
	if err := e.cp.ApplyYAML(e.ctx, packed); err != nil {
		t.Fatal(err)
	}
	e.mark("config-scheduler changed")
	e.waitLogged("the packing config-scheduler", marks, schedulerConfigApplied("LowestOrdinalPriority"))
	checkPacked(t, e, "packed-a", 3)

	invalid := strings.Replace(packed, `[{"Name": "PodFitsResources"}]`, `[{"Name": "PodFitsResources"}, {"Name": "NoMaxResourceCount", "Args": {"NumPartitions": 0}}]`, 1)
	if err := e.cp.ApplyYAML(e.ctx, invalid); err != nil {
		t.Fatal(err)
	}
	e.mark("invalid config-scheduler applied")
	e.waitFor("Warning Event on config-scheduler", func(*snapshot) bool {
		evs, err := e.cp.Kube.CoreV1().Events(systemNS).List(e.ctx, metav1.ListOptions{FieldSelector: "involvedObject.name=config-scheduler,type=Warning"})
		return err == nil && len(evs.Items) > 0
	})
	checkPacked(t, e, "packed-b", 3)
}

// checkPacked creates a source of v vreplicas and checks it is placed as
// LowestOrdinalPriority alone places it: filling the free room of the
// lowest ordinals first (a pod the autoscaler adds comes last).
func checkPacked(t *testing.T, e *env, name string, v int32) {
	t.Helper()
	before, err := e.snapshot()
	if err != nil {
		t.Fatal(err)
	}
	used := perPod(before.sources...)
	want := map[string]int32{}
	left := v
	for ord := int32(0); left > 0; ord++ {
		pod := vsched.PodName(adapterName, ord)
		free := int32(capacity)
		if ord < before.replicas() {
			free = max(0, capacity-used[pod])
		}
		if n := min(free, left); n > 0 {
			want[pod] = n
			left -= n
		}
	}
	e.createSource(name, v)
	s := e.settle(name+" under the packing policy", checks{allPlaced: true, running: true, wantReplicas: -1}, 2*time.Second, nil)
	for _, src := range s.sources {
		if src.Name == name {
			if d := cmp.Diff(want, perPod(src)); d != "" {
				t.Errorf("%s placements (-want +got), from the free room %v:\n%s", name, used, d)
			}
			return
		}
	}
	t.Errorf("%s not found", name)
}

// TestAPIServerRestart: kube-apiserver restarts while 50 sources are being
// placed; informers and leases recover and everything is placed.
func TestAPIServerRestart(t *testing.T) {
	e := newEnv(t, 5*time.Minute, 1)
	want := e.createSources(50, 8, 9)
	e.waitFor("some sources placed", func(s *snapshot) bool { return s.placedTotal() > 0 })
	if err := e.cp.RestartAPIServer(2 * time.Second); err != nil {
		t.Fatal(err)
	}
	e.mark("kube-apiserver restarted")
	// Sources created now are placed only by a controller whose informers
	// and writes work again: their status is its evidence of the restart
	// (settle checks their observed generation), even if it had placed
	// every earlier source before the API server went down.
	for i := 50; i < 55; i++ {
		name := fmt.Sprintf("src-%03d", i)
		e.createSource(name, 3)
		want[name] = 3
	}
	e.settle("after apiserver restart", fitFor(want), 3*time.Second, nil)
	for _, c := range e.ctrls {
		if !c.Running() {
			t.Errorf("%s exited: %v", c.Name, c.ExitErr())
		}
	}
}

// TestStatefulSetDeletedAndRecreated: the adapter StatefulSet is deleted
// with --cascade=orphan and created again under the same name from its live
// spec, as changing one of its immutable fields (volumeClaimTemplates, the
// selector) without stopping the pods is done: the pods keep running and the
// new StatefulSet adopts them. Only once the controller has logged the
// delete is the StatefulSet created again. No vreplica leaves any status
// (the status watch), and once it is back every source holds the pods it
// held: 0 moves. A source changed while it is missing keeps its placements
// and its Scheduled condition names the StatefulSet.
func TestStatefulSetDeletedAndRecreated(t *testing.T) {
	e := newEnv(t, 6*time.Minute, 1)
	w := e.watchStatuses()
	want, before := e.placeSources(20, 6, 4)
	sets := e.cp.Kube.AppsV1().StatefulSets(systemNS)
	live, err := sets.Get(e.ctx, adapterName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	marks := e.logMarks()
	orphan := metav1.DeletePropagationOrphan
	if err := sets.Delete(e.ctx, adapterName, metav1.DeleteOptions{PropagationPolicy: &orphan}); err != nil {
		t.Fatal(err)
	}
	e.mark("StatefulSet deleted (orphan)")
	e.waitLogged("the StatefulSet's delete", marks, func(l harness.LogEntry) bool { return l.Msg == statefulset.LogStatefulSetDeleted })
	// A source reconciled while the StatefulSet is missing keeps its
	// placements and says why it waits.
	want["src-000"]++
	e.setVReplicas("src-000", want["src-000"])
	// A snapshot needs the StatefulSet: read the source alone.
	err = wait.PollUntilContextCancel(e.ctx, 200*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		u, err := e.sources().Get(ctx, "src-000", metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		src, err := v1alpha1.FromUnstructured(u)
		if err != nil {
			return false, err
		}
		c := src.Condition(v1alpha1.ConditionScheduled)
		return c != nil && c.Reason == v1alpha1.ReasonStatefulSetMissing && strings.Contains(c.Message, adapterName), nil
	})
	if err != nil {
		t.Fatalf("src-000's Scheduled condition never named the missing StatefulSet: %v", err)
	}
	e.mark("src-000 says the StatefulSet is missing")

	again := &appsv1.StatefulSet{
		ObjectMeta: metav1.ObjectMeta{Name: live.Name, Namespace: live.Namespace, Labels: live.Labels, Annotations: live.Annotations},
		Spec:       live.Spec,
	}
	marks = e.logMarks()
	if _, err := sets.Create(e.ctx, again, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	e.mark("StatefulSet created again")
	e.waitLogged("the StatefulSet back", marks, func(l harness.LogEntry) bool { return l.Msg == statefulset.LogStatefulSetBack })
	after := e.settle("after the StatefulSet came back", fitFor(want), 3*time.Second, nil)
	held := func(s *snapshot) map[string]map[string]int32 {
		out := map[string]map[string]int32{}
		for _, src := range s.sources {
			out[src.Name] = map[string]int32{}
			for _, p := range src.Status.Placements {
				out[src.Name][p.PodName] = p.VReplicas
			}
		}
		return out
	}
	// src-000 grew by one meanwhile: that one is new; nothing held before
	// has left its pod.
	was, now := held(before), held(after)
	for name, pods := range was {
		for pod, n := range pods {
			if now[name][pod] < n {
				t.Errorf("%s held %d on %s before the StatefulSet was deleted, %d after it came back", name, n, pod, now[name][pod])
			}
		}
	}
	w.check(e)
}
