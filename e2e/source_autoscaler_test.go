//go:build e2e

package e2e

import (
	"fmt"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/vsched/vsched/e2e/harness"
	"github.com/vsched/vsched/internal/testkit/promtest"
	"github.com/vsched/vsched/sourceautoscaler"
)

// The source autoscaler end to end (issue 22 item 8): the sample
// controller, started with --prometheus-url, sizes the sources from a real
// Prometheus scraping the test exporter of per-source lag. The windows are
// seconds long (saConfig) so that each scenario takes seconds.
const (
	saPolling    = time.Second     // polling-interval
	saStable     = 6 * time.Second // stable-window
	saDownDelay  = 3 * time.Second // scale-down-delay
	saGrace      = 5 * time.Second // cooldown-period, the scale-to-zero grace
	saThreshold  = 100             // lag-threshold: lag one vreplica serves
	saActivation = 50              // activation-lag-threshold
	saMax        = 60              // max-scale
	// saLatency bounds how long a write the controller decided takes to
	// reach the test's watch (an API round trip and a watch event); the
	// "not before" checks that compare two watched writes allow for it.
	saLatency = 500 * time.Millisecond
)

var saConfig = map[string]string{
	"min-scale":                "0",
	"max-scale":                fmt.Sprint(saMax),
	"lag-threshold":            fmt.Sprint(saThreshold),
	"activation-lag-threshold": fmt.Sprint(saActivation),
	"polling-interval":         "1",
	"cooldown-period":          "5",
	"stable-window":            "6s",
	"panic-window":             "2s",
	"scale-down-delay":         "3s",
	"fallback-after-failures":  "2",
	"fetch-timeout":            "1s",
	"stale-after":              "5s",
}

// saEnv is a scenario's control plane, Prometheus, exporter and the one
// sample controller running the source autoscaler.
type saEnv struct {
	*env
	exp  *promtest.Exporter
	prom *promtest.Server
	ctrl *harness.Controller
}

// newSourceAutoscalerEnv starts the control plane and Prometheus, writes
// saConfig into config-source-autoscaler, creates the sources (name:
// vreplicas) with their lag (name: lag) and starts the controller once
// Prometheus has every lag, so that its first cycles see them.
func newSourceAutoscalerEnv(t *testing.T, vreplicas map[string]int32, lag map[string]float64) *saEnv {
	t.Helper()
	exp := promtest.NewExporter(sourceLagMetric, "source")
	t.Cleanup(exp.Close)
	for name, v := range lag {
		exp.Set(sourcesNS+"/"+name, v)
	}
	prom := promtest.Run(t, promtest.Options{Targets: []string{exp.Addr()}, ScrapeInterval: 250 * time.Millisecond, LookbackDelta: 2 * time.Second})
	e := &saEnv{env: newEnv(t, 4*time.Minute, 0), exp: exp, prom: prom}
	cms := e.cp.Kube.CoreV1().ConfigMaps(systemNS)
	cm, err := cms.Get(e.ctx, "config-source-autoscaler", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cm.Data = saConfig
	if _, err := cms.Update(e.ctx, cm, metav1.UpdateOptions{FieldValidation: "Strict"}); err != nil {
		t.Fatal(err)
	}
	for name, v := range vreplicas {
		e.createSource(name, v)
	}
	for name, v := range lag {
		e.waitLag(name, v)
	}
	e.mark("Prometheus has every lag")
	e.ctrl = e.startController("ctrl-0",
		"--prometheus-url="+prom.URL,
		"--signal-query=max by (source) ("+sourceLagMetric+")",
		"--signal-label=source")
	e.waitLogged("its promotion", sinceStart(e.ctrl), startedLeading)
	return e
}

// waitLag waits until Prometheus answers lag v for the source.
func (e *saEnv) waitLag(name string, v float64) {
	e.t.Helper()
	if err := e.prom.WaitValue(e.ctx, sourceLagMetric, "source", sourcesNS+"/"+name, v); err != nil {
		e.t.Fatalf("waiting for Prometheus to have %s's lag %v: %v", name, v, err)
	}
}

// setLag sets a source's lag at the exporter and returns when it did.
func (e *saEnv) setLag(name string, v float64) time.Time {
	at := time.Now()
	e.exp.Set(sourcesNS+"/"+name, v)
	return at
}

// waitScaled waits for the controller's log line, after mark, saying it
// wrote the source's vreplicas to one that ok accepts, and returns it.
func (e *saEnv) waitScaled(what string, mark int64, name string, ok func(from, to int, mode string) bool) harness.LogEntry {
	e.t.Helper()
	got := e.waitLogged(what, logMarks{e.ctrl: mark}, func(l harness.LogEntry) bool {
		if l.Msg != sourceautoscaler.LogVReplicasWritten || l.Fields["source"] != sourcesNS+"/"+name {
			return false
		}
		from, _ := l.Fields["from"].(float64)
		to, _ := l.Fields["to"].(float64)
		mode, _ := l.Fields["mode"].(string)
		return ok(int(from), int(to), mode)
	})
	return got[e.ctrl]
}

// write is a change of a source's spec.vreplicas as the test's watch saw it.
type write struct {
	at time.Time
	v  int64
}

// writes records every change of a source's spec.vreplicas from its watch.
type writes struct {
	mu  sync.Mutex
	all []write
}

// recordWrites watches the source and records its vreplicas (the first
// entry is the value when the watch started) until the scenario ends.
func (e *saEnv) recordWrites(name string) *writes {
	e.t.Helper()
	w, err := e.sources().Watch(e.ctx, metav1.ListOptions{FieldSelector: "metadata.name=" + name})
	if err != nil {
		e.t.Fatal(err)
	}
	rec := &writes{}
	ready := make(chan struct{})
	go func() {
		defer w.Stop()
		first := true
		for ev := range w.ResultChan() {
			u, ok := ev.Object.(*unstructured.Unstructured)
			if !ok || ev.Type == watch.Deleted {
				continue
			}
			v, _, _ := unstructured.NestedInt64(u.Object, "spec", "vreplicas")
			rec.mu.Lock()
			if n := len(rec.all); n == 0 || rec.all[n-1].v != v {
				rec.all = append(rec.all, write{at: time.Now(), v: v})
			}
			rec.mu.Unlock()
			if first {
				first = false
				close(ready)
			}
		}
	}()
	select {
	case <-ready:
	case <-e.ctx.Done():
		e.t.Fatalf("watching %s: %v", name, e.ctx.Err())
	}
	return rec
}

// since returns the writes at or after t.
func (r *writes) since(t time.Time) []write {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []write
	for _, w := range r.all {
		if !w.at.Before(t) {
			out = append(out, w)
		}
	}
	return out
}

// last is the last recorded value.
func (r *writes) last() write {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.all[len(r.all)-1]
}

// waitValue waits until the watch has seen the source at v.
func (e *saEnv) waitValue(r *writes, name string, v int64) write {
	e.t.Helper()
	for {
		if w := r.last(); w.v == v {
			return w
		}
		select {
		case <-e.ctx.Done():
			e.t.Fatalf("waiting for %s's watch to show %d vreplicas (last %d)", name, v, r.last().v)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// TestSourceAutoscalerBurst: a burst of lag takes a source up in panic mode
// and its new vreplicas reach Running pods (the StatefulSet grows); after
// the burst it shrinks only once the stable window has passed since its
// last increase and the lower count has been wanted for the scale-down
// delay, one rate-limited step per delay.
func TestSourceAutoscalerBurst(t *testing.T) {
	e := newSourceAutoscalerEnv(t, map[string]int32{"burst": 1}, map[string]float64{"burst": 50})
	rec := e.recordWrites("burst")
	before := e.settle("the source before the burst", fitFor(map[string]int32{"burst": 1}), 0, nil).replicas()

	mark := e.ctrl.LogOffset()
	burstAt := e.setLag("burst", 4500)
	up := e.waitScaled("the burst", mark, "burst", func(from, to int, mode string) bool { return to > from })
	if up.Fields["mode"] != "panic" {
		t.Errorf("the burst's first write: mode %v (%v); want panic", up.Fields["mode"], up.Fields["why"])
	}
	e.waitScaled("the burst's full count", mark, "burst", func(_, to int, _ string) bool { return to == 45 })
	e.figure("burst to 45 vreplicas written", fmt.Sprintf("%v", e.waitValue(rec, "burst", 45).at.Sub(burstAt).Round(time.Millisecond)))
	s := e.settle("the burst's vreplicas", fitFor(map[string]int32{"burst": 45}), 0, nil)
	if s.replicas() <= before {
		t.Errorf("StatefulSet replicas %d after the burst; want more than %d", s.replicas(), before)
	}
	e.figure("burst to every vreplica on a Running pod", fmt.Sprintf("%v", time.Since(burstAt).Round(time.Millisecond)))

	lastUp := rec.last()
	mark = e.ctrl.LogOffset()
	endAt := e.setLag("burst", 300)
	e.waitScaled("the end of the burst", mark, "burst", func(_, to int, _ string) bool { return to == 3 })
	downs := rec.since(endAt)
	if len(downs) == 0 || downs[len(downs)-1].v != 3 {
		t.Fatalf("writes after the burst: %v; want a shrink to 3", downs)
	}
	first := downs[0]
	if d := first.at.Sub(endAt); d < saDownDelay {
		t.Errorf("first decrease %v after the burst ended; want at least the scale-down delay %v", d, saDownDelay)
	}
	// Panic holds the count a stable window after the last increase; only
	// then does a lower count start its scale-down delay.
	if d := first.at.Sub(lastUp.at); d < saStable+saDownDelay-saLatency {
		t.Errorf("first decrease %v after the last increase; want at least the stable window %v and the scale-down delay %v (less %v of write latency)", d, saStable, saDownDelay, saLatency)
	}
	prev := lastUp
	for _, w := range downs {
		if w.v >= prev.v || w.v < (prev.v)/2 {
			t.Errorf("step %d -> %d: want a decrease by at most max-scale-down-rate 2", prev.v, w.v)
		}
		if prev != lastUp && w.at.Sub(prev.at) < saDownDelay-saLatency {
			t.Errorf("step %d -> %d came %v after the previous; want at least the scale-down delay %v", prev.v, w.v, w.at.Sub(prev.at), saDownDelay)
		}
		prev = w
	}
	steps := ""
	for _, w := range downs {
		steps += fmt.Sprintf(" %d@+%v", w.v, w.at.Sub(endAt).Round(100*time.Millisecond))
	}
	e.figure("shrink steps after the burst ended", steps)
	e.figure("first decrease after the burst ended / after the last increase", fmt.Sprintf("%v / %v",
		first.at.Sub(endAt).Round(time.Millisecond), first.at.Sub(lastUp.at).Round(time.Millisecond)))
}

// TestSourceAutoscalerScaleToZero: a source whose lag falls to zero goes to
// zero only after the scale-to-zero grace; lag at or below the activation
// threshold leaves it at zero (the controller measured it, its metrics
// say); lag above it brings it back.
func TestSourceAutoscalerScaleToZero(t *testing.T) {
	e := newSourceAutoscalerEnv(t, map[string]int32{"idle": 1}, map[string]float64{"idle": 80})
	rec := e.recordWrites("idle")
	// The source is active: the controller has measured its 80.
	e.waitSignal("idle", 80)

	mark := e.ctrl.LogOffset()
	zeroAt := e.setLag("idle", 0)
	e.waitScaled("the lag gone", mark, "idle", func(_, to int, _ string) bool { return to == 0 })
	downs := rec.since(zeroAt)
	if len(downs) != 1 || downs[0].v != 0 {
		t.Fatalf("writes after the lag fell to zero: %v; want one, to 0", downs)
	}
	// The last cycle that saw 80 was at most a polling interval before
	// the lag fell: the grace counts from then.
	if d := downs[0].at.Sub(zeroAt); d < saGrace-saPolling || d < saDownDelay {
		t.Errorf("to zero %v after the lag fell; want at least the grace %v (less a polling interval) and the scale-down delay %v", d, saGrace, saDownDelay)
	}
	e.figure("to zero after the lag fell", fmt.Sprintf("%v", downs[0].at.Sub(zeroAt).Round(time.Millisecond)))

	// Lag at or below the activation threshold: once the controller has
	// measured the next value, the cycle that measured it is over and
	// wrote nothing.
	mark = e.ctrl.LogOffset()
	for _, v := range []float64{saActivation - 20, saActivation} {
		e.setLag("idle", v)
		e.waitSignal("idle", v)
	}
	entries, err := e.ctrl.LogEntries(mark)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range entries {
		if l.Msg == sourceautoscaler.LogVReplicasWritten && l.Fields["source"] == sourcesNS+"/idle" {
			t.Errorf("lag at most the activation threshold %d activated the source: %v", saActivation, l.Fields["why"])
		}
	}

	mark = e.ctrl.LogOffset()
	wakeAt := e.setLag("idle", 400)
	l := e.waitScaled("the activation", mark, "idle", func(from, to int, _ string) bool { return from == 0 && to > 0 })
	e.figure("activation written after the lag rose", fmt.Sprintf("%v", e.waitValue(rec, "idle", int64(l.Fields["to"].(float64))).at.Sub(wakeAt).Round(time.Millisecond)))
	e.settle("the activated source", checks{allPlaced: true, running: true, wantReplicas: -1}, 0, nil)
}

// waitSignal waits until the controller's metrics say its last decision
// for the source measured v.
func (e *saEnv) waitSignal(name string, v float64) {
	e.t.Helper()
	mark := time.Now()
	for {
		got, ok := e.scrape(e.ctrl, "vsched_source_autoscaler_signal", `vsched_source_name="`+name+`"`)
		if ok && got == v {
			return
		}
		select {
		case <-e.ctx.Done():
			e.t.Fatalf("waiting %v for the controller to measure %s's lag %v (last %v, %v)", time.Since(mark), name, v, got, ok)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// TestSourceAutoscalerPrometheusOutage: with Prometheus down, every round
// fails; the sources go to the fallback (keep their count: fallback-replicas
// is 0) and none drops to zero or jumps to max-scale. When Prometheus comes
// back, the sources follow their lag again.
func TestSourceAutoscalerPrometheusOutage(t *testing.T) {
	e := newSourceAutoscalerEnv(t, map[string]int32{"a": 1, "b": 1}, map[string]float64{"a": 300, "b": 700})
	recA, recB := e.recordWrites("a"), e.recordWrites("b")
	e.waitValue(recA, "a", 3)
	e.waitValue(recB, "b", 7)

	mark := e.ctrl.LogOffset()
	outage := time.Now()
	e.prom.Stop()
	e.setLag("a", 1200) // unseen until Prometheus is back
	for _, name := range []string{"a", "b"} {
		l := e.waitLogged(name+"'s missing signal", logMarks{e.ctrl: mark}, func(l harness.LogEntry) bool {
			return l.Msg == sourceautoscaler.LogSignalMissing && l.Fields["source"] == sourcesNS+"/"+name
		})[e.ctrl]
		if l.Fields["mode"] != "fallback" {
			t.Errorf("%s's first cycle without a signal: mode %v; want fallback", name, l.Fields["mode"])
		}
	}
	// Past fallback-after-failures (2): five failed rounds.
	failed := e.waitRounds(mark, 5)
	for name, rec := range map[string]*writes{"a": recA, "b": recB} {
		if w := rec.since(outage); len(w) != 0 {
			t.Errorf("%s written during the outage: %v; want its count kept", name, w)
		}
	}
	if a, b := recA.last().v, recB.last().v; a != 3 || b != 7 {
		t.Errorf("during the outage a=%d b=%d; want 3 and 7 (never 0, never %d)", a, b, saMax)
	}
	e.figure("outage", fmt.Sprintf("%d failed rounds in %v, no write", failed, time.Since(outage).Round(time.Millisecond)))

	mark = e.ctrl.LogOffset()
	if err := e.prom.Start(e.ctx); err != nil {
		t.Fatal(err)
	}
	back := time.Now()
	e.waitLag("a", 1200)
	scraped := time.Now()
	e.waitScaled("Prometheus back", mark, "a", func(_, to int, _ string) bool { return to == 12 })
	e.figure("after Prometheus came back: a's lag 1200 scraped / followed (3 to 12)", fmt.Sprintf("%v / %v",
		scraped.Sub(back).Round(time.Millisecond), time.Since(back).Round(time.Millisecond)))
	if w := recB.since(outage); len(w) != 0 {
		t.Errorf("b written after the outage, its lag unchanged: %v", w)
	}
}

// waitRounds waits until the controller has logged n failed signal rounds
// after mark, and returns how many it had.
func (e *saEnv) waitRounds(mark int64, n int) int {
	e.t.Helper()
	for {
		entries, err := e.ctrl.LogEntries(mark)
		if err != nil {
			e.t.Fatal(err)
		}
		failed := 0
		for _, l := range entries {
			if l.Msg == "signal round failed" {
				failed++
			}
		}
		if failed >= n {
			return failed
		}
		select {
		case <-e.ctx.Done():
			e.t.Fatalf("waiting for %d failed signal rounds: %d so far", n, failed)
		case <-time.After(100 * time.Millisecond):
		}
	}
}
