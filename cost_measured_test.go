package vsched

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/types"
)

// fixedEstimates estimates every source at the same cost.
type fixedEstimates corev1.ResourceList

func (f fixedEstimates) EstimatedCost(types.NamespacedName) corev1.ResourceList {
	return corev1.ResourceList(f)
}

func TestEffectiveVReplicaCost(t *testing.T) {
	list := func(kv ...string) corev1.ResourceList {
		out := corev1.ResourceList{}
		for i := 0; i < len(kv); i += 2 {
			out[corev1.ResourceName(kv[i])] = resource.MustParse(kv[i+1])
		}
		return out
	}
	est := fixedEstimates(list("memory", "300Mi", "cpu", "100m"))
	for _, tc := range []struct {
		name string
		vpod *PlainVPod
		est  CostEstimates
		want corev1.ResourceList
	}{
		{"declares, does not measure", &PlainVPod{Cost: list("memory", "1Gi")}, est, list("memory", "1Gi")},
		{"measures, declares nothing", &PlainVPod{MeasureCost: true}, est, list("memory", "300Mi", "cpu", "100m")},
		{"a declared resource wins", &PlainVPod{MeasureCost: true, Cost: list("cpu", "250m")}, est, list("memory", "300Mi", "cpu", "250m")},
		{"no estimate: the declaration", &PlainVPod{MeasureCost: true, Cost: list("cpu", "250m")}, fixedEstimates(nil), list("cpu", "250m")},
		{"no estimates at all", &PlainVPod{MeasureCost: true}, nil, nil},
		{"neither", &PlainVPod{}, est, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := EffectiveVReplicaCost(tc.vpod, tc.est)
			if diff := cmp.Diff(tc.want, got, cmp.Comparer(func(a, b resource.Quantity) bool { return a.Cmp(b) == 0 })); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestCostDeclaresMeasured(t *testing.T) {
	for in, want := range map[string]bool{
		"measured": true, " measured , cpu=250m": true, "cpu=250m,measured": true,
		"": false, "memory=1Gi": false, "measure": false, "measured=true": false,
	} {
		if got := CostDeclaresMeasured(in); got != want {
			t.Errorf("CostDeclaresMeasured(%q) = %v, want %v", in, got, want)
		}
	}
	got, err := ParseVReplicaCost("measured, cpu=250m")
	if err != nil || len(got) != 1 || got.Cpu().MilliValue() != 250 {
		t.Errorf(`ParseVReplicaCost("measured, cpu=250m") = %v, %v; want cpu 250m alone`, got, err)
	}
}
