package config_test

import (
	"errors"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/config"
)

// FuzzParseAutoscalerConfigMap checks, for any config-autoscaler data:
//
//  1. Parsing never panics.
//  2. A rejection returns no config and a *config.Error with at least one
//     problem, each naming config-autoscaler and either "data" (an unknown
//     key, which must be one of the data's keys) or "data.<key>" for a key
//     the data sets: a default never causes a problem.
//  3. Every problem is reported: each unknown key, and each key whose value
//     is malformed or breaks its own rule (judged here independently of
//     the parser), has a problem of its own.
//  4. Acceptance is exactly right: the data is accepted if and only if no
//     key is unknown, every value is well formed and within its own rule,
//     and min-replicas <= max-replicas and lower < upper threshold hold
//     for the effective values (defaults for what is not set).
//  5. An accepted config satisfies every validation invariant, holds the
//     values the data sets and the defaults for the rest, passes
//     ValidateAutoscalerConfig, and survives a round trip: written back as
//     data it parses to the identical config.

// autoscalerFuzzKeys are the keys, in the order of the fuzzed values.
var autoscalerFuzzKeys = []string{
	config.KeyMinReplicas, config.KeyMaxReplicas, config.KeyStabilizationWindow, config.KeyScaleDownCooldown,
	config.KeyRefreshPeriod, config.KeyMaxScaleUpRate, config.KeyPolicy, config.KeyUtilizationUpper,
	config.KeyUtilizationLower, config.KeyCompaction, config.KeyMaxMovesPerCycle, config.KeyMaxMovesPerSource,
	config.KeyUnavailablePodGrace, config.KeyRecommendOnly,
}

// Bits of the fuzzed key mask beyond one per key.
const (
	autoscalerWithExample = 1 << 14
	autoscalerWithOddKey  = 1 << 15
)

// autoscalerSeed encodes data as the fuzz inputs: values separated by NUL
// in key order, and the mask of the keys set.
func autoscalerSeed(data map[string]string) (string, uint16) {
	values := make([]string, len(autoscalerFuzzKeys))
	var mask uint16
	for i, k := range autoscalerFuzzKeys {
		if v, ok := data[k]; ok {
			values[i] = v
			mask |= 1 << i
		}
	}
	return strings.Join(values, "\x00"), mask
}

func FuzzParseAutoscalerConfigMap(f *testing.F) {
	seeds := []map[string]string{
		{},
		// The defaults, written out.
		{"min-replicas": "0", "max-replicas": "100", "stabilization-window": "5m", "scale-down-cooldown": "5m",
			"refresh-period": "30s", "max-scale-up-rate": "0", "policy": "fit", "utilization-upper-threshold": "0.8",
			"utilization-lower-threshold": "0.5", "compaction": "true", "max-moves-per-cycle": "100",
			"max-moves-per-source": "10", "unavailable-pod-grace": "5m", "recommend-only": "false"},
		// README.md's example.
		{"min-replicas": "1", "max-replicas": "20", "stabilization-window": "10m", "scale-down-cooldown": "3m",
			"refresh-period": "15s", "max-scale-up-rate": "2", "policy": "utilization", "utilization-upper-threshold": "0.85",
			"utilization-lower-threshold": "0.6", "compaction": "true", "max-moves-per-cycle": "50",
			"max-moves-per-source": "5", "unavailable-pod-grace": "2m", "recommend-only": "false"},
		// Boundaries and near misses.
		{"min-replicas": "5", "max-replicas": "5", "refresh-period": "1ns", "max-scale-up-rate": "1.0000001"},
		{"min-replicas": "6", "max-replicas": "5", "refresh-period": "0", "max-scale-up-rate": "1"},
		{"min-replicas": "200", "utilization-lower-threshold": "0.9"},
		{"utilization-upper-threshold": "1", "utilization-lower-threshold": "0.99999"},
		{"utilization-upper-threshold": "0.5", "utilization-lower-threshold": "0.5", "policy": "Utilization"},
		{"max-replicas": "2147483647", "min-replicas": "-2147483648", "max-moves-per-cycle": "0"},
		{"max-replicas": "2147483648", "stabilization-window": "-1s", "unavailable-pod-grace": "9223372036854775807ns"},
		{"max-scale-up-rate": "NaN", "utilization-upper-threshold": "80%", "compaction": "yes", "recommend-only": "T"},
		{"max-scale-up-rate": "1e308", "utilization-lower-threshold": "-0", "scale-down-cooldown": " 1h30m \n"},
		{"refresh-period": "30", "policy": " fit\n", "max-moves-per-source": "+1", "max-replicas": "0x10"},
	}
	for _, s := range seeds {
		values, mask := autoscalerSeed(s)
		f.Add(values, mask, "", "")
	}
	values, mask := autoscalerSeed(seeds[2])
	f.Add(values, mask|autoscalerWithExample|autoscalerWithOddKey, "maxReplicas", "3")
	f.Add("", uint16(autoscalerWithOddKey), "policy", "fit")
	f.Add("", uint16(autoscalerWithOddKey|autoscalerWithExample), "refresh_period", "0s")

	f.Fuzz(func(t *testing.T, values string, mask uint16, oddKey, oddValue string) {
		parts := strings.Split(values, "\x00")
		data := map[string]string{}
		for i, k := range autoscalerFuzzKeys {
			if mask&(1<<i) != 0 {
				if i < len(parts) {
					data[k] = parts[i]
				} else {
					data[k] = ""
				}
			}
		}
		if mask&autoscalerWithExample != 0 {
			data[config.KeyExample] = values
		}
		if mask&autoscalerWithOddKey != 0 {
			data[oddKey] = oddValue // any key, possibly a known one
		}

		cfg, err := config.ParseAutoscalerConfigMapFromData(data)
		want, broken := autoscalerOracle(data)

		if err != nil {
			if cfg != nil {
				t.Fatal("a config alongside the error")
			}
			var cerr *config.Error
			if !errors.As(err, &cerr) || len(cerr.Problems) == 0 || err.Error() == "" {
				t.Fatalf("rejection %v (%T) is not a *config.Error with problems", err, err)
			}
			reported := map[string]bool{}
			for _, p := range cerr.Problems {
				if p.ConfigMap != config.DefaultAutoscalerConfigMapName || p.Err == nil {
					t.Fatalf("problem %+v does not name config-autoscaler", p)
				}
				if p.Err.Field == "data" {
					k, ok := p.Err.BadValue.(string)
					if _, set := data[k]; !ok || !set || k == config.KeyExample {
						t.Fatalf("problem %s names no unknown key of the data", p)
					}
					reported[k] = true
					continue
				}
				k, ok := strings.CutPrefix(p.Err.Field, "data.")
				if _, set := data[k]; !ok || !set || strings.TrimSpace(data[k]) == "" {
					t.Fatalf("problem %s is not about a key the data sets", p)
				}
				reported[k] = true
			}
			for k := range broken {
				if !reported[k] {
					t.Fatalf("key %q (%q) breaks a rule but has no problem; error: %v", k, data[k], err)
				}
			}
			if len(broken) == 0 && !want.relationsBroken {
				t.Fatalf("rejected data the oracle accepts (%q): %v", data, err)
			}
			return
		}

		if cfg == nil {
			t.Fatal("nil config without an error")
		}
		if len(broken) > 0 || want.relationsBroken {
			t.Fatalf("accepted data the oracle rejects (broken %v, relations broken %v): %q", broken, want.relationsBroken, data)
		}
		checkAutoscalerInvariants(t, cfg)
		if diff := cmp.Diff(want.cfg, cfg); diff != "" {
			t.Fatalf("config differs from the oracle's (-oracle +parsed):\n%s", diff)
		}
		if err := config.ValidateAutoscalerConfig(cfg); err != nil {
			t.Fatalf("ValidateAutoscalerConfig of an accepted config: %v", err)
		}
		again, err := config.ParseAutoscalerConfigMapFromData(encodeAutoscaler(cfg))
		if err != nil {
			t.Fatalf("the re-encoded config does not parse: %v", err)
		}
		if diff := cmp.Diff(cfg, again); diff != "" {
			t.Fatalf("round trip changed the config (-first +again):\n%s", diff)
		}
	})
}

// checkAutoscalerInvariants asserts every validation rule on an accepted
// config.
func checkAutoscalerInvariants(t *testing.T, c *config.AutoscalerConfig) {
	t.Helper()
	finite := func(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }
	for _, inv := range []struct {
		ok   bool
		rule string
	}{
		{c.ConfigMap == config.DefaultAutoscalerConfigMapName, "named config-autoscaler"},
		{c.MinReplicas >= 0, "min-replicas >= 0"},
		{c.MaxReplicas >= 1, "max-replicas >= 1"},
		{c.MaxReplicas >= c.MinReplicas, "max-replicas >= min-replicas"},
		{c.StabilizationWindow >= 0, "stabilization-window >= 0"},
		{c.ScaleDownCooldown >= 0, "scale-down-cooldown >= 0"},
		{c.UnavailablePodGrace >= 0, "unavailable-pod-grace >= 0"},
		{c.RefreshPeriod > 0, "refresh-period > 0"},
		{finite(c.MaxScaleUpRate) && (c.MaxScaleUpRate == 0 || c.MaxScaleUpRate > 1), "max-scale-up-rate 0 or > 1"},
		{c.Policy == config.PolicyFit || c.Policy == config.PolicyUtilization, "policy fit or utilization"},
		{finite(c.UtilizationLower) && finite(c.UtilizationUpper), "finite thresholds"},
		{0 < c.UtilizationLower && c.UtilizationLower < c.UtilizationUpper && c.UtilizationUpper <= 1, "0 < lower < upper <= 1"},
		{c.MaxMovesPerCycle >= 1, "max-moves-per-cycle >= 1"},
		{c.MaxMovesPerSource >= 1, "max-moves-per-source >= 1"},
	} {
		if !inv.ok {
			t.Fatalf("accepted config breaks %s: %+v", inv.rule, c)
		}
	}
}

// autoscalerVerdict is what the oracle expects of some data.
type autoscalerVerdict struct {
	// cfg holds the values read, defaults for the rest.
	cfg *config.AutoscalerConfig
	// relationsBroken: min > max, or lower >= upper, for the effective
	// values, both of which are valid on their own.
	relationsBroken bool
}

// autoscalerOracle judges data independently of the parser: broken are the
// keys that are unknown, malformed or break their own rule.
func autoscalerOracle(data map[string]string) (autoscalerVerdict, map[string]bool) {
	c := config.DefaultAutoscalerConfig()
	broken := map[string]bool{}
	known := map[string]bool{config.KeyExample: true}
	for _, k := range autoscalerFuzzKeys {
		known[k] = true
	}
	for k := range data {
		if !known[k] {
			broken[k] = true
		}
	}
	get := func(k string) (string, bool) {
		v, ok := data[k]
		v = strings.TrimSpace(v)
		return v, ok && v != ""
	}
	integer := func(k string, dst *int32, least, most int64) {
		if v, ok := get(k); ok {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n < least || n > most {
				broken[k] = true
				return
			}
			*dst = int32(n)
		}
	}
	duration := func(k string, dst *time.Duration, positive bool) {
		if v, ok := get(k); ok {
			d, err := time.ParseDuration(v)
			if err != nil || d < 0 || (positive && d == 0) {
				broken[k] = true
				return
			}
			*dst = d
		}
	}
	number := func(k string, dst *float64, ok func(float64) bool) {
		if v, set := get(k); set {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || !ok(f) {
				broken[k] = true
				return
			}
			*dst = f
		}
	}
	boolean := func(k string, dst *bool) {
		if v, ok := get(k); ok {
			switch v {
			case "1", "t", "T", "true", "TRUE", "True":
				*dst = true
			case "0", "f", "F", "false", "FALSE", "False":
				*dst = false
			default:
				broken[k] = true
			}
		}
	}
	integer(config.KeyMinReplicas, &c.MinReplicas, 0, vsched.MaxReplicas)
	integer(config.KeyMaxReplicas, &c.MaxReplicas, 1, vsched.MaxReplicas)
	duration(config.KeyStabilizationWindow, &c.StabilizationWindow, false)
	duration(config.KeyScaleDownCooldown, &c.ScaleDownCooldown, false)
	duration(config.KeyRefreshPeriod, &c.RefreshPeriod, true)
	number(config.KeyMaxScaleUpRate, &c.MaxScaleUpRate, func(f float64) bool { return f == 0 || f > 1 })
	if v, ok := get(config.KeyPolicy); ok {
		if v == config.PolicyFit || v == config.PolicyUtilization {
			c.Policy = v
		} else {
			broken[config.KeyPolicy] = true
		}
	}
	number(config.KeyUtilizationUpper, &c.UtilizationUpper, func(f float64) bool { return f > 0 && f <= 1 })
	number(config.KeyUtilizationLower, &c.UtilizationLower, func(f float64) bool { return f > 0 && f < 1 })
	boolean(config.KeyCompaction, &c.Compaction)
	integer(config.KeyMaxMovesPerCycle, &c.MaxMovesPerCycle, 1, math.MaxInt32)
	integer(config.KeyMaxMovesPerSource, &c.MaxMovesPerSource, 1, math.MaxInt32)
	duration(config.KeyUnavailablePodGrace, &c.UnavailablePodGrace, false)
	boolean(config.KeyRecommendOnly, &c.RecommendOnly)

	v := autoscalerVerdict{cfg: c}
	if !broken[config.KeyMinReplicas] && !broken[config.KeyMaxReplicas] && c.MinReplicas > c.MaxReplicas {
		v.relationsBroken = true
	}
	if !broken[config.KeyUtilizationLower] && !broken[config.KeyUtilizationUpper] && c.UtilizationLower >= c.UtilizationUpper {
		v.relationsBroken = true
	}
	return v, broken
}

// encodeAutoscaler writes a config back as ConfigMap data.
func encodeAutoscaler(c *config.AutoscalerConfig) map[string]string {
	i := func(n int32) string { return strconv.FormatInt(int64(n), 10) }
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	return map[string]string{
		config.KeyMinReplicas:         i(c.MinReplicas),
		config.KeyMaxReplicas:         i(c.MaxReplicas),
		config.KeyStabilizationWindow: c.StabilizationWindow.String(),
		config.KeyScaleDownCooldown:   c.ScaleDownCooldown.String(),
		config.KeyRefreshPeriod:       c.RefreshPeriod.String(),
		config.KeyMaxScaleUpRate:      f(c.MaxScaleUpRate),
		config.KeyPolicy:              c.Policy,
		config.KeyUtilizationUpper:    f(c.UtilizationUpper),
		config.KeyUtilizationLower:    f(c.UtilizationLower),
		config.KeyCompaction:          strconv.FormatBool(c.Compaction),
		config.KeyMaxMovesPerCycle:    i(c.MaxMovesPerCycle),
		config.KeyMaxMovesPerSource:   i(c.MaxMovesPerSource),
		config.KeyUnavailablePodGrace: c.UnavailablePodGrace.String(),
		config.KeyRecommendOnly:       strconv.FormatBool(c.RecommendOnly),
	}
}
