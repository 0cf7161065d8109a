package config_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/vsched/vsched/config"
	"github.com/vsched/vsched/sourceautoscaler/decision"
	"github.com/vsched/vsched/sourceautoscaler/signal"
)

// sourceFuzzKeys are the keys the fuzzed values go to, in order.
var sourceFuzzKeys = []string{
	"min-scale", "max-scale", "lag-threshold", "activation-lag-threshold", "polling-interval", "cooldown-period",
	"stable-window", "panic-window", "panic-threshold", "max-scale-up-rate", "max-scale-down-rate", "scale-down-delay",
	"allow-idle-consumers", "stale-after", "fallback-after-failures", "fallback-replicas", "fetch-timeout", "min-scal",
}

// FuzzParseSourceAutoscalerConfigMap checks, for any data: parsing never
// panics; a rejection is a *config.Error whose every problem names a key
// of the data (or "data" for an unknown one); an acceptance gives a policy
// within every documented bound, that the same values as a source's
// annotations accept too, and on which the decision runs within min and
// max.
func FuzzParseSourceAutoscalerConfigMap(f *testing.F) {
	f.Add("1\x0020\x0050\x000\x0010\x0030\x0060s\x006s\x002\x001000\x002\x000s\x00true\x0030s\x003\x001\x005s\x00", uint32(0x1ffff))
	f.Add("9\x004\x00-1\x00x\x000\x00-1s\x001h1s\x002m\x00NaN\x001\x00Inf\x00-5s\x00yes\x000s\x000\x0099\x000s\x00", uint32(0x1ffff))
	f.Add("\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00x", uint32(1<<17))
	f.Fuzz(func(t *testing.T, joined string, mask uint32) {
		values := strings.Split(joined, "\x00")
		data := map[string]string{}
		for i, k := range sourceFuzzKeys {
			if mask&(1<<i) != 0 && i < len(values) {
				data[k] = values[i]
			}
		}
		cfg, err := config.ParseSourceAutoscalerConfigMap(sourceCM(data))
		if err != nil {
			checkSourceRejection(t, data, cfg, err)
			return
		}
		checkSourcePolicy(t, data, cfg.Policy)
		if cfg.FetchTimeout <= 0 {
			t.Fatalf("accepted fetch-timeout %v", cfg.FetchTimeout)
		}
		annotations := map[string]string{}
		for _, k := range []string{"min-scale", "max-scale", "lag-threshold", "activation-lag-threshold", "polling-interval", "cooldown-period"} {
			if v, ok := data[k]; ok {
				annotations[config.AnnotationPrefix+k] = v
			}
		}
		if _, err := config.DefaultSourceAutoscalerConfig().PolicyFor(annotations); err != nil {
			t.Fatalf("the ConfigMap accepts %v, the annotations do not: %v", annotations, err)
		}
	})
}

func checkSourceRejection(t *testing.T, data map[string]string, cfg *config.SourceAutoscalerConfig, err error) {
	var ce *config.Error
	if cfg != nil || !errors.As(err, &ce) || len(ce.Problems) == 0 {
		t.Fatalf("rejection: config %v, error %v", cfg, err)
	}
	for _, p := range ce.Problems {
		key, ok := strings.CutPrefix(p.Err.Field, "data.")
		if p.Err.Field == "data" {
			key, ok = "min-scal", true
		}
		if _, set := data[key]; !ok || !set {
			t.Fatalf("a problem about %q, which the data %v does not set: %v", p.Err.Field, data, p)
		}
	}
}

func checkSourcePolicy(t *testing.T, data map[string]string, p decision.Policy) {
	ok := p.Min >= 0 && p.Max >= 1 && p.Max <= 100 && p.Min <= p.Max && p.Target > 0 && p.ActivationThreshold >= 0 &&
		p.PollingInterval >= time.Second && p.StableWindow >= time.Second && p.PanicWindow >= time.Second &&
		p.PanicWindow <= p.StableWindow && p.StableWindow <= time.Hour && p.PanicThreshold >= 1 &&
		p.MaxScaleUpRate > 1 && p.MaxScaleDownRate > 1 && p.ScaleDownDelay >= 0 && p.ScaleToZeroGrace >= 0 &&
		p.StaleAfter >= time.Second && p.FallbackAfter >= 1 && p.FallbackReplicas >= 0 && p.FallbackReplicas <= p.Max
	if !ok {
		t.Fatalf("accepted %v as %+v, out of bounds", data, p)
	}
	var s decision.State
	now := time.Unix(1_000_000, 0)
	cur := int32(0)
	for i, v := range []float64{0, 5000, 1e12, 0, 3} {
		now = now.Add(p.PollingInterval)
		d := s.Decide(now, &p, cur, signal.Sample{Known: i != 3, Value: v, At: now, Partitions: 7}, true)
		if d.Desired < p.Min || d.Desired > p.Max {
			t.Fatalf("policy %+v: decided %d outside [%d, %d]", p, d.Desired, p.Min, p.Max)
		}
		cur = d.Desired
	}
}
