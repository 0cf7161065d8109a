package statefulset

import (
	"context"
	"errors"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/record"

	"github.com/vsched/vsched/config"
)

func TestProfilesFromAndDefaults(t *testing.T) {
	ctx := context.Background()
	def, err := config.ProfilesFromConfigMaps(ctx, inTree, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	p := def()
	if p.Place == nil || p.Remove == nil {
		t.Fatalf("DefaultProfiles = %+v", p)
	}
	if got := strings.Join(p.Place.ScoreNames(), ","); !strings.Contains(got, "AvailabilityZonePriority(weight 10)") {
		t.Fatalf("default scheduler priorities = %s", got)
	}

	built, err := config.BuildProfiles(ctx, inTree, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := config.ProfilesFrom(built)(); got.Place != built.Place || got.Remove != built.Remove {
		t.Fatal("ProfilesFrom does not return the profiles it was given")
	}

	// A missing profile is an error from Schedule, not a panic.
	c := zones3(t, 3)
	s := c.start(func(cfg *Config) { cfg.Profiles = config.ProfilesFrom(nil) })
	c.store.create("a", 1)
	if ps, err := s.Schedule(quietCtx(), c.store.get("a")); err == nil || ps != nil {
		t.Fatalf("Schedule without profiles = %v, %v", ps, err)
	}
}

func TestProfilesFromConfigMapsReportsBothConfigMaps(t *testing.T) {
	sched := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "config-scheduler"}, Data: map[string]string{
		"priorities": `[{"Name": "NoSuchPlugin"}]`,
	}}
	desched := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "config-descheduler"}, Data: map[string]string{
		"priorities": `not json`,
	}}
	_, err := config.ProfilesFromConfigMaps(context.Background(), inTree, sched, desched)
	var ce *config.Error
	if !errors.As(err, &ce) {
		t.Fatalf("err = %v, want a *config.Error", err)
	}
	// The descheduler's format error is found while parsing; the
	// scheduler's unknown plugin only when building, which a parse error
	// prevents. Both ConfigMaps still surface when both fail to parse.
	if !strings.Contains(err.Error(), "config-descheduler") {
		t.Fatalf("err = %v, want the descheduler's problem", err)
	}
	sched.Data["priorities"] = `{`
	_, err = config.ProfilesFromConfigMaps(context.Background(), inTree, sched, desched)
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "config-scheduler") || !strings.Contains(err.Error(), "config-descheduler") {
		t.Fatalf("err = %v, want both ConfigMaps' problems in one *config.Error", err)
	}
}

func TestLiveReloadThroughConfigStore(t *testing.T) {
	rec := record.NewFakeRecorder(4)
	store, err := config.NewProfilesStore(quietCtx(), inTree, config.Names{}, config.RecordRejections(rec))
	if err != nil {
		t.Fatal(err)
	}
	c := zones3(t, 6)
	s := c.start(func(cfg *Config) { cfg.Profiles = config.ProfilesFromStore(store) })

	// The default policy spreads a over zones.
	c.store.create("a", 3)
	wantPlacements(t, scheduleOK(t, s, c, "a"), 0, 1, 1, 1, 2, 1)

	// Reloaded to lowest-ordinal only, the next decision packs.
	store.OnConfigChanged(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "config-scheduler"}, Data: map[string]string{
		"priorities": `[{"Name": "LowestOrdinalPriority"}]`,
	}})
	c.store.create("b", 3)
	wantPlacements(t, scheduleOK(t, s, c, "b"), 0, 3)

	// A bad edit is rejected with an Event and keeps the profiles in force.
	store.OnConfigChanged(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "config-scheduler"}, Data: map[string]string{
		"priorities": `[{"Name": "LowestOrdinalPriority", "Weight": 99}]`,
	}})
	if len(rec.Events) != 1 {
		t.Fatalf("%d events for the rejected ConfigMap, want 1", len(rec.Events))
	}
	c.store.create("c", 3)
	wantPlacements(t, scheduleOK(t, s, c, "c"), 0, 3)
}
