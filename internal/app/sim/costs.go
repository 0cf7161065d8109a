package sim

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/vsched/vsched"
)

// Quantities are named values given inline: resource quantities (memory:
// 1Gi, cpu: 2) or, for costClasses, costs. A number is taken as its
// literal, as in ConfigData.
type Quantities map[string]string

func (q *Quantities) decodeAt(d *decoder, raw json.RawMessage, p path) {
	var c ConfigData
	c.decodeAt(d, raw, p)
	*q = Quantities(c)
}

// maxPodResource bounds a pod's capacity in one resource, in milli-units,
// as the scheduler's state does.
const maxPodResource int64 = 1 << 62

// podResources is the StatefulSet's resources as a ResourceList; nil when
// the scenario gives none. The scenario was validated.
func (s *Scenario) podResources() corev1.ResourceList {
	if len(s.Cluster.StatefulSet.Resources) == 0 {
		return nil
	}
	out := corev1.ResourceList{}
	for name, v := range s.Cluster.StatefulSet.Resources {
		out[corev1.ResourceName(name)] = resource.MustParse(strings.TrimSpace(v))
	}
	return out
}

// costOf is what a source's cost field declares: a cost, or a cost class
// by name. The scenario was validated.
func (s *Scenario) costOf(cost string) corev1.ResourceList {
	if c, ok := s.CostClasses[cost]; ok && !strings.Contains(cost, "=") {
		cost = c
	}
	out, _ := vsched.ParseVReplicaCost(cost)
	return out
}

// resources checks the StatefulSet's resources: valid names and positive
// quantities within the state's bound.
func (v *validator) resources() {
	p := path{"cluster", "statefulSet", "resources"}
	v.quantities(p, v.s.Cluster.StatefulSet.Resources, false)
}

// quantities checks resource names and their quantities: more than 0 (at
// least 0 with zeroOK), at most maxPodResource milli-units.
func (v *validator) quantities(p path, qs Quantities, zeroOK bool) {
	for _, name := range slices.Sorted(maps.Keys(qs)) {
		rp := p.key(name)
		if msgs := validation.IsQualifiedName(name); len(msgs) > 0 {
			v.problem(rp, "%q is not a resource name: %s", name, strings.Join(msgs, "; "))
			continue
		}
		q, err := resource.ParseQuantity(strings.TrimSpace(qs[name]))
		switch {
		case err != nil:
			v.problem(rp, "%q is not a quantity; write one such as 1Gi, 512Mi, 2 or 500m", qs[name])
		case q.Sign() < 0 && zeroOK:
			v.problem(rp, "must not be negative, not %s", q.String())
		case q.Sign() <= 0 && !zeroOK:
			v.problem(rp, "must be more than 0, not %s", q.String())
		case q.Cmp(*resource.NewMilliQuantity(maxPodResource, q.Format)) > 0:
			v.problem(rp, "%s is more than a pod's resources may be (2^62 milli-units)", q.String())
		}
	}
}

// costClasses checks that each class is a cost.
func (v *validator) costClasses() {
	for _, name := range slices.Sorted(maps.Keys(v.s.CostClasses)) {
		p := path{"costClasses", name}
		if strings.Contains(name, "=") || strings.Contains(name, ",") || name == "" {
			v.problem(p, "%q is not a class name; a name has no '=' or ','", name)
			continue
		}
		if _, err := vsched.ParseVReplicaCost(v.s.CostClasses[name]); err != nil {
			v.problem(p, "%v", err)
		}
	}
}

// cost checks a source's cost: a cost in the annotation's format, or a
// class the scenario names.
func (v *validator) cost(p path, cost *string) {
	if cost == nil {
		return
	}
	c := strings.TrimSpace(*cost)
	if c != "" && !strings.Contains(c, "=") {
		if _, ok := v.s.CostClasses[c]; !ok {
			classes := slices.Sorted(maps.Keys(v.s.CostClasses))
			v.problem(p, "no cost class %q%s; write a cost such as \"memory=512Mi,cpu=250m\" or one of the scenario's costClasses (%s)", c, didYouMean(c, classes), strings.Join(classes, ", "))
		}
		return
	}
	if _, err := vsched.ParseVReplicaCost(c); err != nil {
		v.problem(p, "%v", err)
	}
}

// setCost gives the source the cost its spec declares, when it declares
// one (nil: it keeps its own), and returns the source's new version.
func (sim *simulation) setCost(v *vsched.PlainVPod, cost *string) (*vsched.PlainVPod, error) {
	if cost == nil {
		return v, nil
	}
	return sim.sources.SetCost(v.GetKey(), sim.s.costOf(strings.TrimSpace(*cost)))
}

// quantityList is a cost (or a usage) as the vreplica-cost annotation
// writes it, "cpu=250m,memory=512Mi", names sorted.
func quantityList(cost corev1.ResourceList) string {
	parts := make([]string, 0, len(cost))
	for _, name := range slices.Sorted(maps.Keys(cost)) {
		q := cost[name]
		parts = append(parts, fmt.Sprintf("%s=%s", name, q.String()))
	}
	return strings.Join(parts, ",")
}
