package kustomizetest

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
)

// TestBase: kubectl apply -k deploy/sample installs exactly what kubectl apply
// -f deploy/sample/ does, and every object is well typed.
func TestBase(t *testing.T) {
	got := objects(t, render(t, "sample"))
	want := sampleObjects(t)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("kustomize build deploy/sample differs from deploy/sample (-sample +kustomize):\n%s", diff)
	}
	checkTyped(t, "base", got)
	checkPolicies(t, "base", got)
}

// TestOverlays: each profile renders, holds the base's objects plus its
// own, decodes strictly into its types, its policies parse as the
// controller would parse them, and it changes what it says it changes.
func TestOverlays(t *testing.T) {
	base := objects(t, render(t, "sample"))
	for _, tc := range []struct {
		overlay string
		extra   []string // objects beyond the base's
		check   func(t *testing.T, objs map[string]map[string]any)
	}{
		{"overlays/spread", []string{"ConfigMap/vsched-sample/vsched-dashboard", "PrometheusRule/vsched-sample/vsched"}, checkSpread},
		{"overlays/pack", nil, checkPack},
		{"overlays/dev", nil, checkDev},
	} {
		t.Run(tc.overlay, func(t *testing.T) {
			objs := objects(t, render(t, tc.overlay))
			var extra []string
			for _, k := range keys(objs) {
				if _, ok := base[k]; !ok {
					extra = append(extra, k)
				}
			}
			for _, k := range keys(base) {
				if _, ok := objs[k]; !ok {
					t.Errorf("%s lacks the base's %s", tc.overlay, k)
				}
			}
			if diff := cmp.Diff(tc.extra, extra); diff != "" {
				t.Errorf("objects beyond the base's (-want +got):\n%s", diff)
			}
			checkTyped(t, tc.overlay, objs)
			checkPolicies(t, tc.overlay, objs)
			tc.check(t, objs)
		})
	}
}

// checkSpread: the dashboard's ConfigMap holds the dashboard file as it is,
// labelled for Grafana's sidecar.
func checkSpread(t *testing.T, objs map[string]map[string]any) {
	cm := configMap(t, objs, "vsched-dashboard")
	want, err := os.ReadFile(filepath.Join(deploy, "monitoring", "vsched-dashboard.json"))
	if err != nil {
		t.Fatal(err)
	}
	if cm.Data["vsched-dashboard.json"] != string(want) || cm.Labels["grafana_dashboard"] != "1" {
		t.Errorf("vsched-dashboard: label %q, data equal to the file: %v", cm.Labels["grafana_dashboard"], cm.Data["vsched-dashboard.json"] == string(want))
	}
}

// checkPack: the scheduler policy has no spread rule.
func checkPack(t *testing.T, objs map[string]map[string]any) {
	cm := configMap(t, objs, "config-scheduler")
	want := map[string]string{
		"predicates": "[{\"Name\": \"PodFitsResources\"}]\n",
		"priorities": "[{\"Name\": \"InUsePodPriority\", \"Weight\": 2},\n {\"Name\": \"LowestOrdinalPriority\", \"Weight\": 1}]\n",
	}
	if diff := cmp.Diff(want, cm.Data); diff != "" {
		t.Errorf("config-scheduler (-want +got):\n%s", diff)
	}
}

// checkDev: one controller replica, no leader election, short windows.
func checkDev(t *testing.T, objs map[string]map[string]any) {
	var d appsv1.Deployment
	convert(t, objs["Deployment/vsched-sample/sample-controller"], &d)
	args := d.Spec.Template.Spec.Containers[0].Args
	if *d.Spec.Replicas != 1 || !slices.Contains(args, "--leader-elect=false") || !slices.Contains(args, "--capacity=10") {
		t.Errorf("sample-controller: %d replicas, args %q; want 1, --leader-elect=false and the base's --capacity=10", *d.Spec.Replicas, args)
	}
	if got := configMap(t, objs, "config-autoscaler").Data; got["refresh-period"] != "10s" || got["max-replicas"] != "30" {
		t.Errorf("config-autoscaler: %v; want refresh-period 10s and the base's max-replicas 30", got)
	}
}
