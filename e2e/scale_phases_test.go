//go:build e2e

package e2e

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/vsched/vsched"
)

// The phases of TestScale, and what they measure from the status watch's
// history (every version of every source the API server sent, in arrival
// order), the API server and the controller's log and /proc.

// historyLen marks the watch's history: versions after it are newer.
func (w *statusWatch) historyLen() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.history)
}

// sourceWrites counts the versions of sources the watch received after
// mark, of sources named src-*: every one is a status write of the
// controller, since the test changes no spec after creating them.
func (w *statusWatch) sourceWrites(mark int) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := 0
	for _, v := range w.history[mark:] {
		if strings.HasPrefix(v.source, "src-") { // not the probes
			n++
		}
	}
	return n
}

// waitQuiet waits until the watch has received nothing for quiet.
func (e *env) waitQuiet(w *statusWatch, quiet time.Duration, what string) {
	e.t.Helper()
	last, since := -1, time.Now()
	err := wait.PollUntilContextCancel(e.ctx, 250*time.Millisecond, true, func(context.Context) (bool, error) {
		if n := w.historyLen(); n != last {
			last, since = n, time.Now()
		}
		return time.Since(since) >= quiet, nil
	})
	if err != nil {
		e.t.Fatalf("waiting for %s: %v", what, err)
	}
	e.mark(what)
}

// peakMemory is the process's VmHWM from /proc.
func peakMemory(pid int) string {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return err.Error()
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			return strings.TrimSpace(v)
		}
	}
	return "VmHWM not found"
}

func scaleFlags(cfg scaleConfig) []string {
	return []string{
		fmt.Sprintf("--capacity=%d", cfg.capacity),
		fmt.Sprintf("--kube-api-qps=%g", cfg.qps),
		fmt.Sprintf("--kube-api-burst=%d", cfg.burst),
		fmt.Sprintf("--threadiness=%d", cfg.threads),
		"--source-namespace=" + sourcesNS,
		"--resync=5m", // the default; the suite's 30s would re-enqueue every source twice a minute
	}
}

// scalePlace starts the controller on the sources created while it was
// down and times it until every vreplica is placed on a Running pod.
func (e *env) scalePlace(cfg scaleConfig, w *statusWatch, rep *scaleReport) time.Duration {
	e.t.Helper()
	e.waitCaughtUp(w)
	mark := w.historyLen()
	gen0 := e.statefulSetGeneration()
	start := time.Now()
	c := e.startController("ctrl-0", scaleFlags(cfg)...)
	s := e.waitScale(w, "every vreplica placed on a Running pod", placedCheck(true, nil))
	placing := s.at.Sub(start)
	writes := w.sourceWrites(mark)
	e.waitQuiet(w, 10*time.Second, "placing settled (no write for 10s)")
	settledWrites := w.sourceWrites(mark)
	s = e.waitScale(w, "placed after settling", placedCheck(true, nil))
	rep.add("controller start to every vreplica placed on a Running pod", secs(placing), "")
	rep.add("status writes per source while placing (writes)", fmt.Sprintf("%.3f (%d)", float64(writes)/float64(cfg.sources), writes), "<= 1.1")
	rep.add("status writes per source until quiet (writes)", fmt.Sprintf("%.3f (%d)", float64(settledWrites)/float64(cfg.sources), settledWrites), "")
	rep.add("StatefulSet spec updates (replicas 0 -> final)", fmt.Sprintf("%d (0 -> %d)", s.sts.Generation-gen0, s.replicas()), "")
	rep.add("sources over MaxSkew across zones once settled", fmt.Sprint(len(s.zoneSkewViolations())), "0")
	rep.add("controller peak memory (VmHWM) after placing", peakMemory(c.Pid()), "")
	return placing
}

// sourcePlaced: the named source has every vreplica placed.
func sourcePlaced(name string) func(*snapshot) (bool, string) {
	return func(s *snapshot) (bool, string) {
		for _, src := range s.sources {
			if src.Name == name {
				placed := vsched.TotalVReplicas(src.Status.Placements)
				return placed == src.Spec.VReplicas && src.Status.ObservedGeneration == src.Generation,
					fmt.Sprintf("%s: %d of %d placed", name, placed, src.Spec.VReplicas)
			}
		}
		return false, name + " not seen yet"
	}
}

// placementsOf maps each source to its placements by pod.
func placementsOf(s *snapshot) map[string]map[string]int32 {
	out := map[string]map[string]int32{}
	for _, src := range s.sources {
		m := map[string]int32{}
		for _, p := range src.Status.Placements {
			if p.VReplicas > 0 {
				m[p.PodName] += p.VReplicas
			}
		}
		out[src.Name] = m
	}
	return out
}

// moved counts the sources whose placements differ and the vreplicas that
// left a pod.
func moved(before, after map[string]map[string]int32) (sources int, vreplicas int32) {
	for name, b := range before {
		a := after[name]
		changed := false
		for pod, n := range b {
			if a[pod] < n {
				vreplicas += n - a[pod]
				changed = true
			}
		}
		for pod, n := range a {
			if b[pod] != n {
				changed = true
			}
		}
		if changed {
			sources++
		}
	}
	return sources, vreplicas
}

// scaleRestart kills the controller and starts another: how long until it
// leads and until it places a source created meanwhile, and what its resync
// of every source writes and moves.
func (e *env) scaleRestart(cfg scaleConfig, w *statusWatch, rep *scaleReport) {
	e.t.Helper()
	before, err := e.scaleSnapshot(w)
	if err != nil {
		e.t.Fatal(err)
	}
	mark := w.historyLen()
	e.ctrls[0].Kill()
	e.mark("controller killed")
	start := time.Now()
	c := e.startController("ctrl-restarted", scaleFlags(cfg)...)
	e.createSource("probe-restart", 3)
	e.waitLogged("its promotion after the restart", sinceStart(c), startedLeading)
	rep.add("restart: process start to leading (the killed one's 4s lease)", secs(time.Since(start)), "")
	// On promotion the controller enqueues every source; a source created
	// now is queued behind them (knative's work queue is first in, first
	// out), so once it is placed the resync has reached every source.
	e.createSource("probe-resync", 3)
	s := e.waitScale(w, "a source created during the restart placed", sourcePlaced("probe-restart"))
	rep.add("restart: process start to a source created meanwhile placed", secs(s.at.Sub(start)), "< 30s")
	s = e.waitScale(w, "a source queued behind the resync placed", placedCheck(false, nil))
	rep.add("restart: process start to the resync done (a source queued after it placed)", secs(s.at.Sub(start)), "")
	e.waitQuiet(w, 10*time.Second, "resync settled (no write for 10s)")
	after, err := e.scaleSnapshot(w)
	if err != nil {
		e.t.Fatal(err)
	}
	srcs, vrs := moved(placementsOf(before), placementsOf(after))
	rep.add("restart: resync status writes (probe excluded)", fmt.Sprint(w.sourceWrites(mark)), "0")
	rep.add("restart: resync moves (sources / vreplicas)", fmt.Sprintf("%d / %d", srcs, vrs), "0")
	rep.add("controller peak memory (VmHWM), restarted, after the resync", peakMemory(c.Pid()), "")
}

// scaleZoneFailure fails zone-c's nodes and times until every vreplica
// runs outside the zone.
func (e *env) scaleZoneFailure(cfg scaleConfig, w *statusWatch, rep *scaleReport) {
	e.t.Helper()
	nodes := []string{"zone-c-node-0", "zone-c-node-1"}
	before, err := e.scaleSnapshot(w)
	if err != nil {
		e.t.Fatal(err)
	}
	inZone := before.placedOn(nodes[0]) + before.placedOn(nodes[1])
	mark := w.historyLen()
	gen0 := before.sts.Generation
	e.failNodes(nodes...)
	down := time.Now()
	s := e.waitScale(w, "every vreplica placed outside zone-c", placedCheck(false, func(s *snapshot) string {
		if n := s.placedOn(nodes[0]) + s.placedOn(nodes[1]); n > 0 {
			return fmt.Sprintf("%d vreplicas still in zone-c", n)
		}
		return ""
	}))
	rep.add(fmt.Sprintf("zone failure: NotReady seen to all %d vreplicas out of zone-c", inZone), secs(s.at.Sub(down)), "")
	rep.add("zone failure: status writes, StatefulSet updates", fmt.Sprintf("%d, %d (-> %d replicas)", w.sourceWrites(mark), s.sts.Generation-gen0, s.replicas()), "")
	rep.add("controller peak memory (VmHWM), restarted, after the zone failure", peakMemory(e.ctrls[len(e.ctrls)-1].Pid()), "")
}
