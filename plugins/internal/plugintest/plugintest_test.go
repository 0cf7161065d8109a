package plugintest

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/framework"
	"github.com/vsched/vsched/framework/frameworktest"
)

// fits is a minimal capacity filter scoring lower ordinals higher, so that
// the helpers can be tested without importing a real plugin.
type fits struct{}

func (fits) Name() string                { return "Fits" }
func (fits) EnforcesCapacity() bool      { return true }
func (fits) EquivalentWithinClass() bool { return true }
func (fits) Filter(_ context.Context, d *framework.Decision, ord int32) *framework.Status {
	if d.Free(ord) > 0 {
		return nil
	}
	return framework.NewStatus(framework.Unschedulable, "full")
}
func (fits) Score(_ context.Context, _ *framework.Decision, ord int32) (int64, *framework.Status) {
	return framework.MaxScore - int64(ord), nil
}

func TestHelpers(t *testing.T) {
	newCluster := func() *frameworktest.Cluster {
		return frameworktest.NewCluster(2).Node("n0", "za").Pods("n0", "n0").Use(0, 2)
	}
	src := Source(7, frameworktest.P(1, 1))
	if src.GetVReplicas() != 1 || src.GetResourceCount() != 7 {
		t.Errorf("Source = %+v", src)
	}

	d := Decide(t, newCluster(), src)
	if got := Filter(fits{}, d, 0); got != (Outcome{Code: "Unschedulable", Message: "full"}) {
		t.Errorf("Filter(0) = %+v", got)
	}
	if got := Filter(fits{}, d, 1); got != Pass {
		t.Errorf("Filter(1) = %+v", got)
	}
	if diff := cmp.Diff(map[int32]int64{0: 100, 1: 99}, Scores(t, fits{}, d)); diff != "" {
		t.Errorf("Scores (-want +got):\n%s", diff)
	}

	prof, err := framework.NewProfile(framework.Place, []framework.FilterPlugin{fits{}}, []framework.WeightedScore{{Plugin: fits{}, Weight: 1}})
	if err != nil {
		t.Fatal(err)
	}
	res, got := Run(t, newCluster, src, prof, 2)
	if res.Changed != 1 {
		t.Errorf("Run changed %d, want 1 (pod 1 has one slot)", res.Changed)
	}
	if diff := cmp.Diff([]vsched.Placement{At(1, 2, "n0", "za")}, got); diff != "" {
		t.Errorf("Run placements (-want +got):\n%s", diff)
	}

	errs := field.ErrorList{field.Invalid(field.NewPath("a"), 1, "bad")}
	if diff := cmp.Diff([]string{"a: Invalid value: 1: bad"}, Errors(errs)); diff != "" {
		t.Errorf("Errors (-want +got):\n%s", diff)
	}
	if Errors(nil) != nil {
		t.Error("Errors(nil) is not nil")
	}
}
