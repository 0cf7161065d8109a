package vsched

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/types"
)

func TestParseVReplicaCost(t *testing.T) {
	cases := []struct {
		in      string
		want    map[string]string
		wantErr string
	}{
		{in: ""},
		{in: "  "},
		{in: "memory=512Mi", want: map[string]string{"memory": "512Mi"}},
		{in: " memory = 512Mi , cpu=250m,example.com/gpu=1", want: map[string]string{"memory": "512Mi", "cpu": "250m", "example.com/gpu": "1"}},
		{in: "memory", wantErr: `cost item 0 ("memory"): want name=quantity, such as memory=512Mi`},
		{in: "=1", wantErr: `cost item 0 ("=1"): want name=quantity, such as memory=512Mi`},
		{in: "memory=lots", wantErr: `cost item 0 ("memory=lots"): quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'`},
		{in: "cpu=1,cpu=2", wantErr: `cost item 1: resource "cpu" is given twice`},
		{in: "cpu=-1", wantErr: "cost of cpu: -1 is negative"},
		{in: "memory=2Pi", wantErr: "cost of memory: 2Pi is more than the most one vreplica may cost (vsched.MaxCost: 2^50 milli-units, about 1Ti of memory)"},
	}
	for _, tc := range cases {
		got, err := ParseVReplicaCost(tc.in)
		if tc.wantErr != "" {
			if err == nil || err.Error() != tc.wantErr {
				t.Errorf("ParseVReplicaCost(%q) error = %v, want %q", tc.in, err, tc.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseVReplicaCost(%q): %v", tc.in, err)
			continue
		}
		var gotS map[string]string
		for k, q := range got {
			if gotS == nil {
				gotS = map[string]string{}
			}
			gotS[string(k)] = q.String()
		}
		if diff := cmp.Diff(tc.want, gotS); diff != "" {
			t.Errorf("ParseVReplicaCost(%q) (-want +got):\n%s", tc.in, diff)
		}
	}
}

func TestCostArithmetic(t *testing.T) {
	times := []struct {
		n    int32
		c    int64
		want int64
	}{
		{0, MaxCost, 0}, {3, 7, 21}, {-3, 7, -21}, {100, MaxCost, 100 * MaxCost},
		{math.MaxInt32, math.MaxInt64 / 2, math.MaxInt64}, {-2, math.MaxInt64, math.MinInt64},
	}
	for _, tc := range times {
		if got := CostTimes(tc.n, tc.c); got != tc.want {
			t.Errorf("CostTimes(%d, %d) = %d, want %d", tc.n, tc.c, got, tc.want)
		}
	}
	sums := []struct{ a, b, want int64 }{
		{1, 2, 3}, {math.MaxInt64, 1, math.MaxInt64}, {math.MinInt64, -1, math.MinInt64}, {math.MaxInt64, -1, math.MaxInt64 - 1},
	}
	for _, tc := range sums {
		if got := CostSum(tc.a, tc.b); got != tc.want {
			t.Errorf("CostSum(%d, %d) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}

func TestVReplicaCost(t *testing.T) {
	v := &PlainVPod{Key: types.NamespacedName{Name: "a"}}
	if VReplicaCost(v) != nil {
		t.Error("no cost declared must read nil")
	}
	v.Cost = corev1.ResourceList{}
	if VReplicaCost(v) != nil {
		t.Error("an empty cost must read nil")
	}
	v.Cost = corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("1Gi")}
	if got := VReplicaCost(v); got.Memory().String() != "1Gi" {
		t.Errorf("VReplicaCost = %v", got)
	}
}
