package autoscaler

import (
	"context"
	"fmt"
	"math/big"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/vsched/vsched/config"
)

// UsageReader reads the adapter pods' usage of a resource, summed over the
// pods, with their requests of it summed the same way, in milli-units.
// The trigger policy's cpu and memory triggers read it; metrics.k8s.io
// (metrics-server) feeds it in a cluster, a test feeds it numbers. ok is
// false when the usage is not known (no metrics API, no requests): those
// triggers then record no point and stay quiet, and the fit stays in
// charge.
type UsageReader interface {
	Usage(ctx context.Context, resource corev1.ResourceName) (used, requested int64, ok bool)
}

// TriggerPolicy is config.PolicyTriggers: Maestro's ordered up and down
// trigger lists. Every Recommend records a point per trigger type (the
// usage at obs.Now); a trigger matches when it has watched a whole window
// (its time) and more than its threshold percent of the window's points
// are above (up) or below (down) its usage; the first matching trigger of
// the up list, else of the down list, sets the size by Maestro's delta
// formulas (roomDelta, resourceTarget). An up trigger's limit acts at once
// on the latest point, cooldown or not; otherwise a list waits its
// cooldown after the StatefulSet's size last changed. A trigger acts only
// on a point taken now: with usage unknown (no metrics API) its type's
// triggers stay quiet and the fit keeps the size. The answer is never
// below Observation.Fit: no trigger leaves a placeable vreplica pending,
// and no down trigger shrinks below what the fit needs.
//
// Unlike the other policies it keeps state (its points and when the size
// last changed), so the autoscaler keeps one instance; a new leader starts
// with no points and waits a whole window before a trigger acts. It is
// safe for concurrent use.
type TriggerPolicy struct {
	// Usage reads cpu and memory usage; nil: those triggers never act.
	Usage UsageReader

	mu     sync.Mutex
	points map[string][]point
	since  time.Time // first point
	// sized is when the StatefulSet's size was last seen to change, and
	// size that size.
	sized time.Time
	size  int32
}

// point is one usage, used over total, at a time.
type point struct {
	at          time.Time
	used, total int64
}

var _ Policy = (*TriggerPolicy)(nil)

// Name implements Policy.
func (*TriggerPolicy) Name() string { return config.PolicyTriggers }

// Recommend implements Policy.
func (p *TriggerPolicy) Recommend(ctx context.Context, obs Observation) Recommendation {
	p.mu.Lock()
	defer p.mu.Unlock()
	var t config.Triggers
	if obs.Config != nil && obs.Config.Triggers != nil {
		t = *obs.Config.Triggers
	}
	p.record(ctx, obs, t)
	r := Recommendation{Replicas: obs.Current, Reason: "no trigger matches"}
	if want, why, ok := p.first(obs, t.Up, true); ok {
		r = Recommendation{Replicas: max(want, obs.Current), Reason: why}
	} else if want, why, ok := p.first(obs, t.Down, false); ok {
		r = Recommendation{Replicas: min(want, obs.Current), Reason: why}
	}
	if r.Replicas < obs.Fit {
		r.Replicas = obs.Fit
		r.Reason += fmt.Sprintf("; %d pod(s) needed to fit every vreplica", obs.Fit)
	}
	return r
}

// record notes the size and adds a point per type the triggers use,
// dropping the points older than the longest window.
func (p *TriggerPolicy) record(ctx context.Context, obs Observation, t config.Triggers) {
	if p.points == nil {
		// No size change seen yet: no cooldown runs.
		p.points, p.since, p.size, p.sized = map[string][]point{}, obs.Now, obs.Current, time.Time{}
	}
	if obs.Current != p.size {
		p.size, p.sized = obs.Current, obs.Now
	}
	windows := map[string]time.Duration{}
	for _, tr := range append(listOf(t.Up), listOf(t.Down)...) {
		windows[tr.Type] = max(windows[tr.Type], tr.Time.Duration)
	}
	for _, typ := range []string{config.TriggerRoom, config.TriggerCPU, config.TriggerMemory} {
		w, used := windows[typ]
		if !used {
			delete(p.points, typ)
			continue
		}
		if pt, ok := p.usage(ctx, obs, typ); ok {
			p.points[typ] = append(p.points[typ], pt)
		}
		pts := p.points[typ]
		i := 0
		for i < len(pts) && pts[i].at.Before(obs.Now.Add(-w)) {
			i++
		}
		p.points[typ] = pts[i:]
	}
}

func listOf(l config.TriggerList) []config.Trigger { return l.Triggers }

// usage is the point of a type at obs.Now: room is the demand over the
// slots; cpu and memory come from the UsageReader.
func (p *TriggerPolicy) usage(ctx context.Context, obs Observation, typ string) (point, bool) {
	if typ == config.TriggerRoom {
		total := int64(obs.Current) * int64(obs.Capacity)
		return point{at: obs.Now, used: obs.Demand(), total: total}, total > 0
	}
	if p.Usage == nil {
		return point{}, false
	}
	used, requested, ok := p.Usage.Usage(ctx, corev1.ResourceName(typ))
	return point{at: obs.Now, used: used, total: requested}, ok && requested > 0
}

// first returns the size the first matching trigger of the list wants.
func (p *TriggerPolicy) first(obs Observation, l config.TriggerList, up bool) (int32, string, bool) {
	cooling := obs.Now.Sub(p.sized) < l.Cooldown.Duration
	for _, tr := range l.Triggers {
		pts := p.points[tr.Type]
		// No point now (usage unknown): no trigger acts on older ones.
		if len(pts) == 0 || !pts[len(pts)-1].at.Equal(obs.Now) {
			continue
		}
		last := pts[len(pts)-1]
		limited := up && tr.Limit > 0 && cmpPercent(last.used, last.total, tr.Limit) >= 0
		if !limited && (cooling || !p.matches(obs.Now, pts, tr, up)) {
			continue
		}
		want := targetSize(obs, tr, last)
		why := fmt.Sprintf("%s trigger (usage %d%%): %s; %d pod(s)", tr.Type, tr.Usage, describe(pts, tr, up), want)
		if limited {
			why = fmt.Sprintf("%s at %s reached the limit %d%%; %d pod(s)", tr.Type, percent(last), tr.Limit, want)
		}
		return want, why, true
	}
	return 0, "", false
}

// matches reports whether the trigger has watched a whole window and more
// than its threshold of the window's points are above (below) its usage.
func (p *TriggerPolicy) matches(now time.Time, pts []point, tr config.Trigger, up bool) bool {
	if now.Sub(p.since) < tr.Time.Duration {
		return false
	}
	n, hits := countHits(now, pts, tr, up)
	return n > 0 && 100*hits > int64(tr.Threshold)*n
}

// countHits counts the points of the trigger's window, and those above
// (below) its usage.
func countHits(now time.Time, pts []point, tr config.Trigger, up bool) (n, hits int64) {
	from := now.Add(-tr.Time.Duration)
	for _, pt := range pts {
		if pt.at.Before(from) {
			continue
		}
		n++
		c := cmpPercent(pt.used, pt.total, tr.Usage)
		if (up && c > 0) || (!up && c < 0) {
			hits++
		}
	}
	return n, hits
}

func describe(pts []point, tr config.Trigger, up bool) string {
	n, hits := countHits(pts[len(pts)-1].at, pts, tr, up)
	side := "above"
	if !up {
		side = "below"
	}
	return fmt.Sprintf("%d of %d point(s) in %v %s it, more than %d%%", hits, n, tr.Time.Duration, side, tr.Threshold)
}

func percent(pt point) string {
	if pt.total <= 0 {
		return "?"
	}
	r := new(big.Rat).SetFrac(big.NewInt(pt.used*100), big.NewInt(pt.total))
	return r.FloatString(1) + "%"
}

// cmpPercent compares used/total with pct percent: -1, 0 or +1. total > 0.
func cmpPercent(used, total int64, pct int32) int {
	a := new(big.Int).Mul(big.NewInt(used), big.NewInt(100))
	b := new(big.Int).Mul(big.NewInt(int64(pct)), big.NewInt(total))
	return a.Cmp(b)
}

// targetSize is the size the trigger wants from the latest point.
func targetSize(obs Observation, tr config.Trigger, last point) int32 {
	if tr.Type == config.TriggerRoom {
		return roomTarget(obs.Demand(), obs.Current, obs.Capacity, tr.Usage)
	}
	return resourceTarget(last.used, last.total, obs.Current, tr.Usage)
}

// triggerPolicy is the autoscaler's one triggers policy, made on first use.
// Called from a cycle, which a.mu serialises.
func (a *Autoscaler) triggerPolicy() *TriggerPolicy {
	if a.triggers == nil {
		a.triggers = &TriggerPolicy{Usage: a.cfg.Usage}
	}
	return a.triggers
}

// reset forgets the points and the last size change, as a new leader
// would start; nil is a no-op.
func (p *TriggerPolicy) reset() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.points = nil
}
