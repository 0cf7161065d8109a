package sim

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/usage"
)

// PodUsage is one pod's measured usage in a usage step: what metrics-server
// would report for it from the step on (cpu: 900m, memory: 700Mi). A pod
// given without any resource is no longer reported, as metrics-server does
// for a pod it has not scraped.
type PodUsage struct {
	// Pod is the pod's name (adapter-0).
	Pod string
	// Usage is the pod's usage per resource.
	Usage Quantities
}

// usageMaxAge is how old a measurement may be: a pod's usage stays as a
// usage step set it until another changes it, as metrics-server goes on
// reporting a steady usage.
const usageMaxAge = time.Duration(math.MaxInt64)

// decodeUsage reads a usage step: {pod: NAME, RESOURCE: QUANTITY...}, or a
// list of them.
func (s *Step) decodeUsage(d *decoder, raw json.RawMessage, ap path) {
	v := bytes.TrimSpace(raw)
	if bytes.HasPrefix(v, []byte("[")) {
		var items []json.RawMessage
		if json.Unmarshal(v, &items) != nil || len(items) == 0 {
			d.problem(ap, "lists no pod")
			return
		}
		s.listed = true
		for i, it := range items {
			s.Usage = append(s.Usage, decodePodUsage(d, it, ap.index(i)))
		}
		return
	}
	s.Usage = []PodUsage{decodePodUsage(d, raw, ap)}
}

func decodePodUsage(d *decoder, raw json.RawMessage, p path) PodUsage {
	var u PodUsage
	ms, ok := d.mapping(raw, p, "a mapping {pod: NAME, cpu: QUANTITY, memory: QUANTITY, ...}")
	if !ok {
		return u
	}
	rest := json.RawMessage("{}")
	var others []string
	for _, m := range ms {
		if m.key == "pod" {
			if json.Unmarshal(m.value, &u.Pod) != nil {
				d.problem(p.key("pod"), "must be a pod's name, not %s", describeValue(m.value))
			}
			continue
		}
		k, _ := json.Marshal(m.key)
		others = append(others, string(k)+":"+string(m.value))
	}
	if len(others) > 0 {
		rest = json.RawMessage("{" + strings.Join(others, ",") + "}")
	}
	u.Usage.decodeAt(d, rest, p)
	return u
}

// usageStep checks a usage step: pods of the StatefulSet, once each, and
// quantities of at least 0.
func (v *validator) usageStep(st *Step, ap path) {
	seen := map[string]bool{}
	for i, u := range st.Usage {
		p := ap
		if st.listed {
			p = ap.index(i)
		}
		v.podName(p.key("pod"), u.Pod)
		if seen[u.Pod] {
			v.problem(p.key("pod"), "pod %s is listed twice in this step", u.Pod)
		}
		seen[u.Pod] = true
		v.quantities(p, u.Usage, true)
	}
}

// list is the pod's usage as a ResourceList. The step was validated.
func (u PodUsage) list() corev1.ResourceList {
	out := corev1.ResourceList{}
	for name, v := range u.Usage {
		out[corev1.ResourceName(name)] = resource.MustParse(strings.TrimSpace(v))
	}
	return out
}

// setUsage sets the pods' measured usage, stamped with the clock now.
func (sim *simulation) setUsage(us []PodUsage) error {
	for _, u := range us {
		ord, err := vsched.OrdinalFromPodName(u.Pod)
		if err != nil {
			return err
		}
		if len(u.Usage) == 0 {
			sim.cluster.ClearPodUsage(ord)
			continue
		}
		sim.cluster.SetPodUsage(ord, u.list())
	}
	return nil
}

// describeUsage says what a usage step sets: "adapter-0 cpu=900m,memory=700Mi".
func describeUsage(us []PodUsage) string {
	parts := make([]string, len(us))
	for i, u := range us {
		parts[i] = u.Pod + " "
		if len(u.Usage) == 0 {
			parts[i] += "unmeasured"
			continue
		}
		parts[i] += quantityList(u.list())
	}
	return shortList(parts)
}

// triggerUsage is the triggers policy's cpu and memory usage
// (autoscaler.UsageReader) read from the pods' measured usage: the usage
// summed over the pods with a measurement, over their capacity in the
// resource (the scenario's StatefulSet resources) times as many pods.
// Without a capacity in the resource, or a measured pod, it is unknown and
// those triggers stay quiet.
type triggerUsage struct {
	reader    usage.Reader
	resources corev1.ResourceList
	now       func() time.Time
}

// Usage implements autoscaler.UsageReader.
func (u triggerUsage) Usage(ctx context.Context, r corev1.ResourceName) (used, requested int64, ok bool) {
	per, has := u.resources[r]
	if !has || per.Sign() <= 0 {
		return 0, 0, false
	}
	samples, err := u.reader.Read(ctx)
	if err != nil {
		return 0, 0, false
	}
	used, pods := usage.Sum(samples, r, u.now(), usageMaxAge)
	if pods == 0 {
		return 0, 0, false
	}
	return used, vsched.CostTimes(int32(min(pods, math.MaxInt32)), per.MilliValue()), true
}
