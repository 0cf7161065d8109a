package config_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/vsched/vsched/config"
	"github.com/vsched/vsched/sourceautoscaler/decision"
)

func sourceCM(data map[string]string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: config.DefaultSourceAutoscalerConfigMapName, Namespace: "ns"}, Data: data}
}

func TestSourceAutoscalerDefaults(t *testing.T) {
	got, err := config.ParseSourceAutoscalerConfigMap(nil)
	if err != nil {
		t.Fatal(err)
	}
	p := got.Policy
	// eventing-kafka-broker's defaults, Knative's windows.
	if p.Min != 0 || p.Max != 50 || p.PollingInterval != 10*time.Second || p.ScaleToZeroGrace != 30*time.Second ||
		p.Target != 100 || p.StableWindow != time.Minute || p.PanicWindow != 6*time.Second || got.FetchTimeout != 5*time.Second {
		t.Errorf("defaults: %+v", got)
	}
}

func TestParseSourceAutoscalerConfigMap(t *testing.T) {
	got, err := config.ParseSourceAutoscalerConfigMap(sourceCM(map[string]string{
		"min-scale": "1", "max-scale": " 20 ", "lag-threshold": "50", "activation-lag-threshold": "10",
		"polling-interval": "5", "cooldown-period": "2m", "stable-window": "2m", "panic-window": "10s",
		"panic-threshold": "3", "max-scale-up-rate": "10", "max-scale-down-rate": "4", "scale-down-delay": "30s",
		"allow-idle-consumers": "true", "limit-to-partitions-with-lag": "true",
		"ensure-even-distribution-of-partitions": "true", "exclude-persistent-lag": "true",
		"stale-after": "1m", "fallback-after-failures": "5", "fallback-replicas": "3", "fetch-timeout": "2s",
		"_example": "ignored",
	}))
	if err != nil {
		t.Fatal(err)
	}
	want := config.DefaultSourceAutoscalerConfig()
	want.FetchTimeout = 2 * time.Second
	want.Policy = decision.Policy{
		Target: 50, ActivationThreshold: 10, Min: 1, Max: 20,
		PollingInterval: 5 * time.Second, StableWindow: 2 * time.Minute, PanicWindow: 10 * time.Second, PanicThreshold: 3,
		MaxScaleUpRate: 10, MaxScaleDownRate: 4, ScaleDownDelay: 30 * time.Second, ScaleToZeroGrace: 2 * time.Minute,
		AllowIdleConsumers: true, LimitToPartitionsWithLag: true, EvenDistribution: true, ExcludePersistentLag: true,
		StaleAfter: time.Minute, FallbackAfter: 5, FallbackReplicas: 3, PausedReplicas: -1,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestSourceAutoscalerConfigMapErrors(t *testing.T) {
	const cm = "config-source-autoscaler: "
	for _, c := range []struct {
		data map[string]string
		want []string
	}{
		{map[string]string{"min-scal": "1"}, []string{cm + `data: Invalid value: "min-scal": unknown key (did you mean "min-scale"?)`}},
		{map[string]string{"lag-threshold": "0"}, []string{cm + "data.lag-threshold: Invalid value: 0: must be greater than 0"}},
		{map[string]string{"min-scale": "9", "max-scale": "4"}, []string{cm + "data.max-scale: Invalid value: 4: must be at least min-scale (9)"}},
		{map[string]string{"min-scale": "60"}, []string{cm + "data.min-scale: Invalid value: 60: must not be greater than max-scale (50, the default)"}},
		{map[string]string{"max-scale": "10001"}, []string{cm + "data.max-scale: Invalid value: 10001: must be at most 10000 (vsched.MaxVReplicas)"}},
		{map[string]string{"polling-interval": "ten"}, []string{cm + `data.polling-interval: Invalid value: "ten": must be a whole number of seconds`}},
		{map[string]string{"panic-window": "2m"}, []string{cm + `data.panic-window: Invalid value: "2m0s": must not be longer than stable-window (1m0s)`}},
		{map[string]string{"stable-window": "1s"}, []string{cm + `data.stable-window: Invalid value: "1s": must not be shorter than panic-window (6s, the default)`}},
		{map[string]string{"max-scale-down-rate": "1", "fallback-replicas": "51"}, []string{
			cm + "data.max-scale-down-rate: Invalid value: 1: must be a finite number greater than 1",
			cm + "data.fallback-replicas: Invalid value: 51: must not be greater than max-scale (50)",
		}},
		{map[string]string{"fetch-timeout": "0s", "stale-after": "0s"}, []string{
			cm + `data.stale-after: Invalid value: "0s": must be from 1s to 1h0m0s`,
			cm + `data.fetch-timeout: Invalid value: "0s": must be greater than 0 and at most 1h`,
		}},
	} {
		_, err := config.ParseSourceAutoscalerConfigMap(sourceCM(c.data))
		if err == nil {
			t.Errorf("%v: no error", c.data)
			continue
		}
		var ce *config.Error
		if !errors.As(err, &ce) {
			t.Fatalf("%v: not a *config.Error: %v", c.data, err)
		}
		parts := make([]string, len(ce.Problems))
		for i, p := range ce.Problems {
			parts[i] = p.String()
		}
		if len(parts) != len(c.want) {
			t.Errorf("%v: %d problems, want %d: %v", c.data, len(parts), len(c.want), err)
			continue
		}
		for i, w := range c.want {
			if !strings.HasPrefix(parts[i], w) {
				t.Errorf("%v: problem %d is\n  %s\nwant it to begin with\n  %s", c.data, i, parts[i], w)
			}
		}
	}
}

func TestPolicyFor(t *testing.T) {
	cfg := config.DefaultSourceAutoscalerConfig()
	cfg.Policy.ActivationThreshold = 5
	pol, err := cfg.PolicyFor(map[string]string{
		"autoscaling.eventing.knative.dev/min-scale":                "2",
		"autoscaling.eventing.knative.dev/max-scale":                "8",
		"autoscaling.eventing.knative.dev/lag-threshold":            "250",
		"autoscaling.eventing.knative.dev/activation-lag-threshold": "20",
		"autoscaling.eventing.knative.dev/polling-interval":         "15",
		"autoscaling.eventing.knative.dev/cooldown-period":          "60",
		"autoscaling.eventing.knative.dev/class":                    "keda.autoscaling.knative.dev",
		"unrelated":                                                 "x",
	})
	if err != nil {
		t.Fatal(err)
	}
	want := cfg.Policy
	want.Min, want.Max, want.Target, want.ActivationThreshold = 2, 8, 250, 20
	want.PollingInterval, want.ScaleToZeroGrace = 15*time.Second, time.Minute
	if diff := cmp.Diff(want, pol); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}

	pol, err = cfg.PolicyFor(map[string]string{config.AnnotationPaused: "true"})
	if err != nil || !pol.Paused || pol.PausedReplicas != -1 {
		t.Errorf("paused: %+v, %v", pol, err)
	}
	pol, err = cfg.PolicyFor(map[string]string{config.AnnotationPausedReplicas: "4"})
	if err != nil || !pol.Paused || pol.PausedReplicas != 4 {
		t.Errorf("pinned: %+v, %v", pol, err)
	}
}

func TestPolicyForErrors(t *testing.T) {
	cfg := config.DefaultSourceAutoscalerConfig()
	for _, c := range []struct {
		annotations map[string]string
		want        string
	}{
		{map[string]string{"autoscaling.eventing.knative.dev/max-scale": "0"},
			"metadata.annotations[autoscaling.eventing.knative.dev/max-scale]: Invalid value: 0: must be at least 1"},
		{map[string]string{"autoscaling.eventing.knative.dev/min-scale": "x"},
			`metadata.annotations[autoscaling.eventing.knative.dev/min-scale]: Invalid value: "x": must be an integer`},
		{map[string]string{"autoscaling.eventing.knative.dev/lag-threshold": "-1"},
			"metadata.annotations[autoscaling.eventing.knative.dev/lag-threshold]: Invalid value: -1: must be greater than 0"},
		{map[string]string{config.AnnotationPausedReplicas: "99"},
			`metadata.annotations[vsched.dev/source-autoscaler-paused-replicas]: Invalid value: "99": must be from 0 to the source's max-scale`},
		{map[string]string{config.AnnotationPaused: "yes"},
			`metadata.annotations[vsched.dev/source-autoscaler-paused]: Invalid value: "yes": must be "true" or "false"`},
	} {
		pol, err := cfg.PolicyFor(c.annotations)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v; want it to contain %s", c.annotations, err, c.want)
		}
		if diff := cmp.Diff(cfg.Policy, pol); diff != "" {
			t.Errorf("%v: a broken annotation must give the defaults back (-want +got):\n%s", c.annotations, diff)
		}
	}
}

func TestSourceAutoscalerStoreKeepsLastGood(t *testing.T) {
	var rejected []string
	s := config.NewSourceAutoscalerStore(context.Background(), "", func(_ *corev1.ConfigMap, err error) { rejected = append(rejected, err.Error()) })
	first := s.Config()
	s.OnConfigChanged(sourceCM(map[string]string{"max-scale": "20"}))
	good := s.Config()
	if good == first || good.Policy.Max != 20 {
		t.Fatalf("the change did not apply: %+v", good)
	}
	s.OnConfigChanged(sourceCM(map[string]string{"max-scale": "zero"}))
	if s.Config() != good || len(rejected) != 1 {
		t.Errorf("a bad change replaced the last good one or was not reported: %v", rejected)
	}
	s.OnConfigChanged(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "other"}})
	if s.Config() != good {
		t.Error("another ConfigMap changed the configuration")
	}
}
