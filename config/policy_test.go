package config_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	"github.com/vsched/vsched/config"
	"github.com/vsched/vsched/framework"
	"github.com/vsched/vsched/plugins"
	"github.com/vsched/vsched/plugins/core/lowestordinalpriority"
	"github.com/vsched/vsched/plugins/core/podfitsresources"
)

// config links no plugin: what an absent ConfigMap or key means is the
// registry's default policy, and without a registry nothing is built.
func TestDefaultPolicyComesFromTheRegistry(t *testing.T) {
	ctx := context.Background()
	for name, err := range map[string]error{
		"BuildProfiles":             func() error { _, err := config.BuildProfiles(ctx, nil, nil, nil); return err }(),
		"ValidateSchedulerConfig":   config.ValidatePlaceConfig(nil, nil),
		"ValidateDeschedulerConfig": config.ValidateRemoveConfig(nil, nil),
		"NewStore":                  func() error { _, err := config.NewProfilesStore(ctx, nil, config.Names{}, nil); return err }(),
	} {
		if err == nil || !strings.Contains(err.Error(), "plugins.NewInTreeRegistry") {
			t.Errorf("%s without a registry: err = %v, want one naming plugins.NewInTreeRegistry", name, err)
		}
	}

	// The in-tree registry carries plugins.DefaultPlaceConfig.
	got, err := config.ParsePlaceConfigMap(nil, inTree)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(plugins.DefaultPlaceConfig(), got); d != "" {
		t.Errorf("in-tree default (-want +got):\n%s", d)
	}

	// A registry of one's own carries its own policy, or none.
	reg, err := framework.NewRegistry(podfitsresources.Spec.Registration(), lowestordinalpriority.Spec.Registration())
	if err != nil {
		t.Fatal(err)
	}
	cm := &corev1.ConfigMap{Data: map[string]string{"predicates": "[]"}}
	got, err = config.ParsePlaceConfigMap(cm, reg)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(&config.PlaceConfig{ConfigMap: "config-scheduler"}, got); d != "" {
		t.Errorf("no default policy (-want +got):\n%s", d)
	}
	reg.SetDefaults(framework.Defaults{Scores: []framework.PluginConfig{{Name: lowestordinalpriority.Name}}, CapacityFilter: podfitsresources.Name})
	if got, err = config.ParsePlaceConfigMap(cm, reg); err != nil {
		t.Fatal(err)
	}
	ps, err := config.BuildProfiles(ctx, reg, got, &config.RemoveConfig{})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([][]string{{"PodFitsResources"}, {"LowestOrdinalPriority(weight 1)"}}, [][]string{ps.Place.FilterNames(), ps.Place.ScoreNames()}); d != "" {
		t.Errorf("profile from the registry's policy, capacity filter added (-want +got):\n%s", d)
	}
}
