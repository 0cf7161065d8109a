package config_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/record"
	"knative.dev/pkg/configmap/informer"

	"github.com/vsched/vsched/config"
)

func cm(name string, data map[string]string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "vsched"}, Data: data}
}

func TestStoreKeepsLastGood(t *testing.T) {
	ctx := context.Background()
	rec := record.NewFakeRecorder(10)
	s, err := config.NewProfilesStore(ctx, inTree, config.Names{}, config.RecordRejections(rec))
	if err != nil {
		t.Fatal(err)
	}
	def := s.Profiles()
	if got := def.Place.ScoreNames(); len(got) != 4 {
		t.Fatalf("default priorities = %v, want the 4 of the default policy", got)
	}

	// A valid change takes effect at once.
	s.OnConfigChanged(cm("config-scheduler", map[string]string{"priorities": `[{"Name":"LowestOrdinalPriority","Weight":2}]`}))
	if diff := cmp.Diff([]string{"LowestOrdinalPriority(weight 2)"}, s.Profiles().Place.ScoreNames()); diff != "" {
		t.Errorf("after valid update (-want +got):\n%s", diff)
	}
	good := s.Profiles()

	// An invalid one is rejected with an Event and changes nothing.
	s.OnConfigChanged(cm("config-scheduler", map[string]string{"priorities": `[{"Name":"EvenPodSpread","Args":{"MaxSkew":0}}]`}))
	if s.Profiles() != good {
		t.Error("invalid update replaced the profiles")
	}
	select {
	case ev := <-rec.Events:
		if !strings.Contains(ev, "Warning "+config.ReasonInvalidConfiguration) || !strings.Contains(ev, "data.priorities[0].Args.MaxSkew") {
			t.Errorf("event = %q, want a warning naming the field", ev)
		}
	default:
		t.Error("no event for the rejected ConfigMap")
	}

	// The descheduler ConfigMap changes independently, on top of the last
	// good scheduler config.
	s.OnConfigChanged(cm("config-descheduler", map[string]string{"priorities": `[{"Name":"HighestOrdinalPriority"}]`}))
	if diff := cmp.Diff([]string{"RemoveWithHighestOrdinalPriority(weight 1)"}, s.Profiles().Remove.ScoreNames()); diff != "" {
		t.Errorf("descheduler (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"LowestOrdinalPriority(weight 2)"}, s.Profiles().Place.ScoreNames()); diff != "" {
		t.Errorf("scheduler kept (-want +got):\n%s", diff)
	}

	// Other ConfigMaps are ignored.
	before := s.Profiles()
	s.OnConfigChanged(cm("config-logging", map[string]string{"x": "y"}))
	s.OnConfigChanged(nil)
	if s.Profiles() != before {
		t.Error("an unrelated ConfigMap changed the profiles")
	}
}

func TestStoreWatchesWithInformer(t *testing.T) {
	ctx := context.Background()
	client := fake.NewSimpleClientset()
	w := informer.NewInformedWatcher(client, "vsched")
	s, err := config.NewProfilesStore(ctx, inTree, config.Names{Scheduler: "my-scheduler"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	s.WatchConfigs(w, "vsched")
	stop := make(chan struct{})
	defer close(stop)
	// Neither ConfigMap exists: the watcher starts anyway, on the defaults.
	if err := w.Start(stop); err != nil {
		t.Fatalf("start with absent ConfigMaps: %v", err)
	}
	if got := len(s.Profiles().Place.ScoreNames()); got != 4 {
		t.Fatalf("default priorities = %d, want 4", got)
	}
	if _, err := client.CoreV1().ConfigMaps("vsched").Create(ctx, cm("my-scheduler", map[string]string{"priorities": "[]"}), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for len(s.Profiles().Place.ScoreNames()) != 0 {
		if time.Now().After(deadline) {
			t.Fatal("the created ConfigMap never took effect")
		}
		time.Sleep(10 * time.Millisecond)
	}
}
