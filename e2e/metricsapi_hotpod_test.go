//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/autoscaler"
	"github.com/vsched/vsched/e2e/harness"
)

// The hot-pod scenario: the adapter's pods request 16Mi of memory
// (deploy/sample), their capacity in memory (docs/costs.md); a pod is hot
// above hot-pod-memory's default 0.9 of it. The heavy source declares
// 7.5Mi a vreplica, so a pod takes two of it (15Mi, hot) and not three; a
// light vreplica measures 256Ki and declares nothing.
const (
	hotGrace       = 20 * time.Second
	heavySource    = "heavy"
	heavyVReplicas = 6
	adapterMemory  = 16 << 20
	hotShare       = 0.9
	// usageLag is the least wait, after annotations that cool the pods,
	// before the controller's count must show them cool: two scrapes of
	// metrics-server (10s) and two cycles (2s), or, if longer, what the
	// rise took to be counted in the same run plus two cycles.
	usageLag = 2*10*time.Second + 2*2*time.Second
	// shedLine is the autoscaler's line when a hot pod sheds.
	shedLine = "vsched autoscaler: hot pod sheds vreplicas"
)

var (
	heavyCost = resource.MustParse("7680Ki")
	lightCost = resource.MustParse("256Ki")
	// hotLimit is the autoscaler's limit in milli-bytes, as it computes it.
	hotLimit = int64(hotShare * float64(adapterMemory*1000))
)

// createSourceWithCost creates a source as createSource does, declaring
// its vreplicas' cost (vsched.CostAnnotation).
func (e *env) createSourceWithCost(name string, v int32, cost string) {
	e.t.Helper()
	u := e.sourceObject(name, v)
	u.SetAnnotations(map[string]string{vsched.CostAnnotation: cost})
	e.createSourceObject(u)
}

// holdings is what each source holds on each pod in s: pod → source → n.
func holdings(s *snapshot) map[string]map[string]int32 {
	out := map[string]map[string]int32{}
	for _, src := range s.sources {
		for _, p := range src.Status.Placements {
			if out[p.PodName] == nil {
				out[p.PodName] = map[string]int32{}
			}
			out[p.PodName][src.Name] += p.VReplicas
		}
	}
	return out
}

// hotPods are the pods whose memory is over the limit, sorted.
func hotPods(mem map[string]resource.Quantity) []string {
	var out []string
	for pod, q := range mem {
		if q.MilliValue() > hotLimit {
			out = append(out, pod)
		}
	}
	slices.Sort(out)
	return out
}

// memText is each pod's memory, sorted by pod.
func memText(mem map[string]resource.Quantity) string {
	var parts []string
	for _, pod := range slices.Sorted(maps.Keys(mem)) {
		q := mem[pod]
		parts = append(parts, pod+"="+q.String())
	}
	return strings.Join(parts, " ")
}

// fewestHeavy is how many heavy vreplicas must leave a pod using mem so
// that it is no longer over the limit: they are the heaviest there (a
// light vreplica weighs its equal share of what the declared costs do not
// explain, 256Ki), so the fewest moves take them first.
func fewestHeavy(mem resource.Quantity, held int32) int32 {
	left := mem.MilliValue()
	for n := int32(0); n <= held; n++ {
		if left <= hotLimit {
			return n
		}
		left -= heavyCost.MilliValue()
	}
	return -1
}

// waitHotPods waits until the controller's vsched_autoscaler_hot_pods
// shows n at a scrape no sooner than after, and returns when.
func (e *env) waitHotPods(what string, c *harness.Controller, n float64, after time.Time) time.Time {
	e.t.Helper()
	var got float64
	var at time.Time
	err := wait.PollUntilContextCancel(e.ctx, 500*time.Millisecond, true, func(context.Context) (bool, error) {
		at = time.Now()
		got, _ = e.scrape(c, "vsched_autoscaler_hot_pods")
		return got == n && !at.Before(after), nil
	})
	if err != nil {
		e.t.Fatalf("waiting for %s (vsched_autoscaler_hot_pods %v): %v; last %v", what, n, err, got)
	}
	e.mark("controller counts " + what)
	return at
}

// podHotEvents are the PodHot Warning Events on pod.
func (e *env) podHotEvents(pod string) []corev1.Event {
	e.t.Helper()
	evs, err := e.cp.Kube.CoreV1().Events(systemNS).List(e.ctx, metav1.ListOptions{
		FieldSelector: "involvedObject.kind=Pod,involvedObject.name=" + pod + ",reason=" + autoscaler.ReasonPodHot})
	if err != nil {
		e.t.Fatal(err)
	}
	var out []corev1.Event
	for _, ev := range evs.Items {
		if ev.Type == corev1.EventTypeWarning {
			out = append(out, ev)
		}
	}
	return out
}

// placeHeavyThenLight places the heavy source alone (the fit: 3 pods, one
// per zone, two heavy vreplicas on each), then 30 light vreplicas, which
// grow the StatefulSet to 6 pods and leave the heavy ones where they are.
func placeHeavyThenLight(e *env) (map[string]int32, *snapshot) {
	e.createSourceWithCost(heavySource, heavyVReplicas, "memory="+heavyCost.String())
	want := map[string]int32{heavySource: heavyVReplicas}
	e.settle("the heavy source", fitFor(want), 2*time.Second, nil)
	maps.Copy(want, e.createSourcesTotal(6, 30, 23))
	return want, e.settle("36 vreplicas", fitFor(want), 2*time.Second, nil)
}

// TestMetricsAPIHotPod: a heavy source makes its pods hot and is spread
// off them. The heavy source (declared 7.5Mi a vreplica) is placed two to
// a pod on three pods, then light sources grow the StatefulSet to six.
// Each pod's memory is set from its placements: the three pods with two
// heavy vreplicas measure 15Mi and more of their 16Mi, over 0.9 of it.
// The controller counts them hot and moves nothing before hot-pod-grace
// (20s); after it each records a PodHot Event and sheds exactly the fewest
// vreplicas (one heavy one) to other pods, no status ever lacking a
// vreplica; with the usage set from the new placements no pod is hot, and
// nothing sheds again.
func TestMetricsAPIHotPod(t *testing.T) {
	e := newEnv(t, 6*time.Minute, 0)
	// Before the controller starts: its first read of config-autoscaler
	// has the grace.
	e.applyAutoscaler(fmt.Sprintf("hot-pod-grace: %q", hotGrace.String()))
	c := e.startController("ctrl-0", "--metrics-api")
	e.waitLogged("its promotion", sinceStart(c), startedLeading)
	want, before := placeHeavyThenLight(e)
	costs := map[string]resource.Quantity{heavySource: heavyCost}
	for name := range want {
		if name != heavySource {
			costs[name] = lightCost
		}
	}
	w := e.watchStatuses()

	marks := e.logMarks()
	set := time.Now()
	mem := e.setUsageFromPlacements(before, costs)
	hot := hotPods(mem)
	e.mark(fmt.Sprintf("memory from the placements %s: hot %v", memText(mem), hot))
	held := holdings(before)
	expect := map[string]int32{}
	for _, pod := range hot {
		if expect[pod] = fewestHeavy(mem[pod], held[pod][heavySource]); expect[pod] <= 0 {
			q := mem[pod]
			t.Fatalf("pod %s at %s holds %v: shedding its heavy vreplicas does not cool it", pod, q.String(), held[pod])
		}
	}
	if len(hot) == 0 || len(hot) == len(before.pods) {
		t.Fatalf("memory %s: want some pods hot and some not (holdings %v)", memText(mem), held)
	}

	// Counting them hot moves nothing: the placements are as they were
	// when the memory rose (the shed lines below come no sooner than the
	// grace after it).
	seen := e.waitHotPods(fmt.Sprintf("%d hot pods", len(hot)), c, float64(len(hot)), set)
	e.figure("%s", seen.Sub(set).Round(time.Second).String(), "hot pods counted after the memory rose (metrics-server's scrapes)")
	if now, err := e.snapshot(); err != nil {
		t.Fatal(err)
	} else if got := now.fingerprint(); got != before.fingerprint() {
		t.Errorf("placements changed by the time the controller counted the pods hot (%v after the rise):\n%s\nwas\n%s", seen.Sub(set), got, before.fingerprint())
	}
	for _, pod := range hot {
		l := e.waitLogged("pod "+pod+" shedding", marks, func(l harness.LogEntry) bool {
			return l.Msg == shedLine && l.Fields["pod"] == pod
		})[c]
		at := e.loggedAt(l)
		e.figure("%s", at.Sub(set).Round(time.Second).String(), "pod "+pod+" shed after the memory rose (the grace)")
		if at.Sub(set) < hotGrace {
			t.Errorf("pod %s shed %v after its memory rose; no sooner than the grace (%v)", pod, at.Sub(set), hotGrace)
		}
		if n := l.Fields["vreplicas"]; n != float64(expect[pod]) {
			t.Errorf("pod %s sheds %v vreplicas (%v); want the fewest, %d", pod, n, l.Fields["moves"], expect[pod])
		}
	}
	for _, pod := range hot {
		checkPodHotEvent(e, pod, expect[pod])
	}

	// The sheds of one source go one pod at a time: wait for the last
	// one's moves before the quiet.
	e.waitFor("the planned moves off the hot pods", func(s *snapshot) bool {
		now := holdings(s)
		for _, pod := range hot {
			if now[pod][heavySource] > held[pod][heavySource]-expect[pod] {
				return false
			}
		}
		return true
	})
	after := e.settle("the hot pods shed", fitFor(want), 2*time.Second, nil)
	w.check(e)
	checkShed(t, held, holdings(after), expect)

	marks = e.logMarks()
	cooled := time.Now()
	mem = e.setUsageFromPlacements(after, costs)
	if still := hotPods(mem); len(still) > 0 {
		t.Errorf("after the shed, memory %s: pods %v still hot", memText(mem), still)
	}
	e.waitHotPods("no hot pod", c, 0, cooled.Add(max(usageLag, seen.Sub(set)+2*2*time.Second)))
	if lines, err := c.LogEntries(marks[c]); err != nil {
		t.Fatal(err)
	} else if i := slices.IndexFunc(lines, func(l harness.LogEntry) bool { return l.Msg == shedLine }); i >= 0 {
		t.Errorf("a pod shed again after the usage followed the new placements: %v", lines[i].Fields)
	}
}

// checkPodHotEvent waits for the PodHot Warning Event on pod and checks
// that it names the heavy source and the number of vreplicas moved.
func checkPodHotEvent(e *env, pod string, n int32) {
	e.t.Helper()
	var evs []corev1.Event
	e.waitFor("the PodHot Event on "+pod, func(*snapshot) bool {
		evs = e.podHotEvents(pod)
		return len(evs) > 0
	})
	msg := evs[0].Message
	for _, part := range []string{fmt.Sprintf("moving %d vreplica(s)", n), fmt.Sprintf("%d of %s/%s", n, sourcesNS, heavySource)} {
		if !strings.Contains(msg, part) {
			e.t.Errorf("PodHot on %s: %q; want it to say %q", pod, msg, part)
		}
	}
}

// checkShed checks that each hot pod lost exactly its expected heavy
// vreplicas and nothing else, and that nothing left any other pod.
func checkShed(t *testing.T, before, after map[string]map[string]int32, expect map[string]int32) {
	t.Helper()
	for pod, srcs := range before {
		for src, n := range srcs {
			want := n
			if src == heavySource {
				want -= expect[pod]
			}
			if got := after[pod][src]; got != want {
				t.Errorf("pod %s holds %d of %s after the shed, %d before; want %d", pod, got, src, n, want)
			}
		}
	}
}
