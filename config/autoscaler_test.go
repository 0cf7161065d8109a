package config_test

import (
	"context"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/record"
	"knative.dev/pkg/configmap"
	"knative.dev/pkg/configmap/informer"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/config"
)

const autoscalerCM = config.DefaultAutoscalerConfigMapName

// autoscalerWith returns the defaults changed by f.
func autoscalerWith(f func(*config.AutoscalerConfig)) *config.AutoscalerConfig {
	c := config.DefaultAutoscalerConfig()
	if f != nil {
		f(c)
	}
	return c
}

// invalidAt is one expected Invalid problem of config-autoscaler.
func invalidAt(key string, contains ...string) wantProblem {
	return wantProblem{configMap: autoscalerCM, field: "data." + key, typ: field.ErrorTypeInvalid, contains: contains}
}

func TestAutoscalerDefaults(t *testing.T) {
	want := config.DefaultAutoscalerConfig()
	if want.ConfigMap != autoscalerCM || want.MaxReplicas != 100 || want.RefreshPeriod != 30*time.Second || want.Policy != config.PolicyFit {
		t.Fatalf("DefaultAutoscalerConfig() = %+v, not the documented defaults", want)
	}
	if err := config.ValidateAutoscalerConfig(want); err != nil {
		t.Fatalf("the defaults are invalid: %v", err)
	}
	if err := config.ValidateAutoscalerConfig(nil); err != nil {
		t.Fatalf("nil is invalid: %v", err)
	}
	blank := map[string]string{}
	for _, k := range []string{
		config.KeyMinReplicas, config.KeyMaxReplicas, config.KeyStabilizationWindow, config.KeyScaleDownCooldown,
		config.KeyRefreshPeriod, config.KeyMaxScaleUpRate, config.KeyPolicy, config.KeyUtilizationUpper,
		config.KeyUtilizationLower, config.KeyCompaction, config.KeyMaxMovesPerCycle, config.KeyMaxMovesPerSource,
		config.KeyUnavailablePodGrace, config.KeyRecommendOnly,
	} {
		blank[k] = " \n\t "
	}
	for _, tc := range []struct {
		name string
		cm   *corev1.ConfigMap
	}{
		{name: "nil ConfigMap", cm: nil},
		{name: "no data", cm: &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: autoscalerCM}}},
		{name: "empty data", cm: namedConfigMap(autoscalerCM, map[string]string{})},
		{name: "unnamed ConfigMap", cm: &corev1.ConfigMap{Data: map[string]string{}}},
		{name: "every key blank", cm: namedConfigMap(autoscalerCM, blank)},
		{name: "only _example", cm: namedConfigMap(autoscalerCM, map[string]string{config.KeyExample: "min-replicas: -1\nwhatever: 0"})},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := config.ParseAutoscalerConfigMap(tc.cm)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	for _, data := range []map[string]string{nil, {}, blank} {
		got, err := config.ParseAutoscalerConfigMapFromData(data)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("FromData(%v) (-want +got):\n%s", data, diff)
		}
	}
	// Each call returns its own config.
	a, _ := config.ParseAutoscalerConfigMap(nil)
	a.MaxReplicas = 1
	if b, _ := config.ParseAutoscalerConfigMap(nil); b.MaxReplicas != 100 {
		t.Error("changing a parsed config changed the defaults")
	}
}

func TestParseAutoscalerValues(t *testing.T) {
	for _, tc := range []struct {
		name string
		data map[string]string
		want func(*config.AutoscalerConfig)
	}{
		// Integers.
		{"min-replicas", map[string]string{"min-replicas": "3"}, func(c *config.AutoscalerConfig) { c.MinReplicas = 3 }},
		{"min-replicas zero", map[string]string{"min-replicas": "0"}, func(c *config.AutoscalerConfig) { c.MinReplicas = 0 }},
		{"min-replicas with sign and spaces", map[string]string{"min-replicas": "  +7\n"}, func(c *config.AutoscalerConfig) { c.MinReplicas = 7 }},
		{"max-replicas", map[string]string{"max-replicas": "1"}, func(c *config.AutoscalerConfig) { c.MaxReplicas = 1 }},
		{"max-replicas largest", map[string]string{"max-replicas": "65536"}, func(c *config.AutoscalerConfig) { c.MaxReplicas = vsched.MaxReplicas }},
		{"min equals max", map[string]string{"min-replicas": "4", "max-replicas": "4"}, func(c *config.AutoscalerConfig) { c.MinReplicas, c.MaxReplicas = 4, 4 }},
		{"min-replicas up to the default max", map[string]string{"min-replicas": "100"}, func(c *config.AutoscalerConfig) { c.MinReplicas = 100 }},
		{"max-moves-per-cycle", map[string]string{"max-moves-per-cycle": "1"}, func(c *config.AutoscalerConfig) { c.MaxMovesPerCycle = 1 }},
		{"max-moves-per-source", map[string]string{"max-moves-per-source": "250"}, func(c *config.AutoscalerConfig) { c.MaxMovesPerSource = 250 }},
		// Durations.
		{"stabilization-window", map[string]string{"stabilization-window": "1h30m"}, func(c *config.AutoscalerConfig) { c.StabilizationWindow = 90 * time.Minute }},
		{"stabilization-window zero", map[string]string{"stabilization-window": "0"}, func(c *config.AutoscalerConfig) { c.StabilizationWindow = 0 }},
		{"scale-down-cooldown", map[string]string{"scale-down-cooldown": "45s"}, func(c *config.AutoscalerConfig) { c.ScaleDownCooldown = 45 * time.Second }},
		{"scale-down-cooldown zero", map[string]string{"scale-down-cooldown": "0s"}, func(c *config.AutoscalerConfig) { c.ScaleDownCooldown = 0 }},
		{"refresh-period", map[string]string{"refresh-period": "500ms"}, func(c *config.AutoscalerConfig) { c.RefreshPeriod = 500 * time.Millisecond }},
		{"refresh-period smallest", map[string]string{"refresh-period": "1ns"}, func(c *config.AutoscalerConfig) { c.RefreshPeriod = 1 }},
		{"unavailable-pod-grace", map[string]string{"unavailable-pod-grace": "\t2m\n"}, func(c *config.AutoscalerConfig) { c.UnavailablePodGrace = 2 * time.Minute }},
		{"unavailable-pod-grace zero", map[string]string{"unavailable-pod-grace": "0m"}, func(c *config.AutoscalerConfig) { c.UnavailablePodGrace = 0 }},
		// Numbers.
		{"max-scale-up-rate", map[string]string{"max-scale-up-rate": "2"}, func(c *config.AutoscalerConfig) { c.MaxScaleUpRate = 2 }},
		{"max-scale-up-rate just above 1", map[string]string{"max-scale-up-rate": "1.01"}, func(c *config.AutoscalerConfig) { c.MaxScaleUpRate = 1.01 }},
		{"max-scale-up-rate zero", map[string]string{"max-scale-up-rate": "0.0"}, func(c *config.AutoscalerConfig) { c.MaxScaleUpRate = 0 }},
		{"max-scale-up-rate exponent", map[string]string{"max-scale-up-rate": "1e1"}, func(c *config.AutoscalerConfig) { c.MaxScaleUpRate = 10 }},
		{"utilization-upper-threshold", map[string]string{"utilization-upper-threshold": "0.9"}, func(c *config.AutoscalerConfig) { c.UtilizationUpper = 0.9 }},
		{"utilization-upper-threshold one", map[string]string{"utilization-upper-threshold": "1"}, func(c *config.AutoscalerConfig) { c.UtilizationUpper = 1 }},
		{"utilization-lower-threshold", map[string]string{"utilization-lower-threshold": ".25"}, func(c *config.AutoscalerConfig) { c.UtilizationLower = 0.25 }},
		{"both thresholds", map[string]string{"utilization-upper-threshold": "0.4", "utilization-lower-threshold": "0.3"}, func(c *config.AutoscalerConfig) { c.UtilizationUpper, c.UtilizationLower = 0.4, 0.3 }},
		// Policy.
		{"policy fit", map[string]string{"policy": "fit"}, nil},
		{"policy utilization", map[string]string{"policy": " utilization\n"}, func(c *config.AutoscalerConfig) { c.Policy = config.PolicyUtilization }},
		// Booleans.
		{"compaction false", map[string]string{"compaction": "false"}, func(c *config.AutoscalerConfig) { c.Compaction = false }},
		{"compaction 0", map[string]string{"compaction": "0"}, func(c *config.AutoscalerConfig) { c.Compaction = false }},
		{"compaction TRUE", map[string]string{"compaction": "TRUE"}, nil},
		{"recommend-only true", map[string]string{"recommend-only": "true"}, func(c *config.AutoscalerConfig) { c.RecommendOnly = true }},
		{"recommend-only t", map[string]string{"recommend-only": "t"}, func(c *config.AutoscalerConfig) { c.RecommendOnly = true }},
		{"recommend-only False", map[string]string{"recommend-only": "False"}, nil},
		// Others keep their defaults, and _example is ignored.
		{"with _example", map[string]string{"max-replicas": "8", config.KeyExample: "max-replicas: nonsense"}, func(c *config.AutoscalerConfig) { c.MaxReplicas = 8 }},
		{"every key", map[string]string{
			"min-replicas": "2", "max-replicas": "30", "stabilization-window": "1m", "scale-down-cooldown": "2m",
			"refresh-period": "10s", "max-scale-up-rate": "1.5", "policy": "utilization", "utilization-upper-threshold": "0.75",
			"utilization-lower-threshold": "0.4", "compaction": "false", "max-moves-per-cycle": "20", "max-moves-per-source": "3",
			"unavailable-pod-grace": "90s", "hot-pod-memory": "0.8", "hot-pod-cpu": "1", "hot-pod-grace": "0s",
			"usage-max-age": "45s", "recommend-only": "true",
		}, func(c *config.AutoscalerConfig) {
			*c = config.AutoscalerConfig{
				ConfigMap: autoscalerCM, MinReplicas: 2, MaxReplicas: 30, StabilizationWindow: time.Minute, ScaleDownCooldown: 2 * time.Minute,
				RefreshPeriod: 10 * time.Second, MaxScaleUpRate: 1.5, Policy: config.PolicyUtilization, UtilizationUpper: 0.75,
				UtilizationLower: 0.4, Compaction: false, MaxMovesPerCycle: 20, MaxMovesPerSource: 3,
				UnavailablePodGrace: 90 * time.Second, HotPodMemory: 0.8, HotPodCPU: 1, UsageMaxAge: 45 * time.Second, RecommendOnly: true,
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := config.ParseAutoscalerConfigMapFromData(tc.data)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(autoscalerWith(tc.want), got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if err := config.ValidateAutoscalerConfig(got); err != nil {
				t.Errorf("ValidateAutoscalerConfig of an accepted config: %v", err)
			}
		})
	}
}

func TestParseAutoscalerErrors(t *testing.T) {
	const keyList = `the keys of config-autoscaler are "min-replicas", "max-replicas", "stabilization-window", "scale-down-cooldown", ` +
		`"refresh-period", "max-scale-up-rate", "policy", "utilization-upper-threshold", "utilization-lower-threshold", ` +
		`"triggers", "headroom-slots", "headroom-share", "headroom-down-threshold", "compaction", "max-moves-per-cycle", "max-moves-per-source", "unavailable-pod-grace", "hot-pod-memory", "hot-pod-cpu", "hot-pod-grace", "usage-max-age" and "recommend-only" ("_example" is ignored)`
	for _, tc := range []struct {
		name string
		data map[string]string
		want []wantProblem
	}{
		// Keys.
		{"unknown key, snake case", map[string]string{"min_replicas": "1"}, []wantProblem{{configMap: autoscalerCM, field: "data", contains: []string{
			`data: Invalid value: "min_replicas": unknown key (did you mean "min-replicas"?); ` + keyList}}}},
		{"unknown key, camel case", map[string]string{"maxReplicas": "1"}, []wantProblem{{configMap: autoscalerCM, field: "data", contains: []string{
			`"maxReplicas": unknown key (did you mean "max-replicas"?)`}}}},
		{"unknown key, typo", map[string]string{"refresh-perod": "1s"}, []wantProblem{{configMap: autoscalerCM, field: "data", contains: []string{
			`"refresh-perod": unknown key (did you mean "refresh-period"?)`}}}},
		{"unknown key, nothing close", map[string]string{"target-utilization": "0.7"}, []wantProblem{{configMap: autoscalerCM, field: "data", contains: []string{
			`"target-utilization": unknown key; ` + keyList}}}},
		{"a scheduler key", map[string]string{"priorities": "[]", "max-replicas": "5"}, []wantProblem{{configMap: autoscalerCM, field: "data", contains: []string{
			`"priorities": unknown key; `}}}},

		// Malformed values name the key and the value.
		{"integer", map[string]string{"min-replicas": "ten"}, []wantProblem{invalidAt("min-replicas", `Invalid value: "ten": must be an integer, for example "10"`)}},
		{"integer fraction", map[string]string{"max-replicas": "1.5"}, []wantProblem{invalidAt("max-replicas", `Invalid value: "1.5": must be an integer`)}},
		{"integer too large", map[string]string{"max-replicas": "99999999999"}, []wantProblem{invalidAt("max-replicas", `Invalid value: "99999999999": out of range: must be an integer from 1 to 2147483647`)}},
		{"integer too small", map[string]string{"min-replicas": "-99999999999"}, []wantProblem{invalidAt("min-replicas", `out of range: must be an integer from 0 to 2147483647`)}},
		{"moves not an integer", map[string]string{"max-moves-per-cycle": "many", "max-moves-per-source": "0x10"}, []wantProblem{
			invalidAt("max-moves-per-cycle", `Invalid value: "many": must be an integer`),
			invalidAt("max-moves-per-source", `Invalid value: "0x10": must be an integer`)}},
		{"duration without unit", map[string]string{"refresh-period": "30"}, []wantProblem{invalidAt("refresh-period",
			`Invalid value: "30": must be a duration such as "30s", "5m" or "1h30m" (the unit is required)`)}},
		{"duration in words", map[string]string{"scale-down-cooldown": "5 minutes"}, []wantProblem{invalidAt("scale-down-cooldown",
			`Invalid value: "5 minutes": must be a duration such as "30s", "5m" or "1h30m"`)}},
		{"duration in days", map[string]string{"stabilization-window": "1d", "unavailable-pod-grace": "PT5M"}, []wantProblem{
			invalidAt("stabilization-window", `Invalid value: "1d": must be a duration`),
			invalidAt("unavailable-pod-grace", `Invalid value: "PT5M": must be a duration`)}},
		{"hot pods", map[string]string{"hot-pod-memory": "90%", "hot-pod-cpu": "1.5", "hot-pod-grace": "-1m", "usage-max-age": "48h"}, []wantProblem{
			invalidAt("hot-pod-memory", `Invalid value: "90%": must be a number, not a percentage: write "0.9" for 90%`),
			invalidAt("hot-pod-cpu", `Invalid value: 1.5: must be at least 0 (off) and at most 1`),
			invalidAt("hot-pod-grace", `Invalid value: "-1m0s": must be at least 0 and at most 24h`),
			invalidAt("usage-max-age", `Invalid value: "48h0m0s": must be at least 0 (the default, 2m) and at most 24h`)}},
		{"number", map[string]string{"max-scale-up-rate": "double"}, []wantProblem{invalidAt("max-scale-up-rate", `Invalid value: "double": must be a number, for example "2"`)}},
		{"NaN", map[string]string{"max-scale-up-rate": "NaN"}, []wantProblem{invalidAt("max-scale-up-rate", `Invalid value: "NaN": must be a finite number`)}},
		{"infinity", map[string]string{"utilization-upper-threshold": "+Inf", "utilization-lower-threshold": "1e999"}, []wantProblem{
			invalidAt("utilization-upper-threshold", `Invalid value: "+Inf": must be a finite number`),
			invalidAt("utilization-lower-threshold", `Invalid value: "1e999": must be a finite number`)}},
		{"percentage", map[string]string{"utilization-upper-threshold": "90%", "max-scale-up-rate": "150%"}, []wantProblem{
			invalidAt("max-scale-up-rate", `Invalid value: "150%": must be a number, not a percentage: write "2" for 200%`),
			invalidAt("utilization-upper-threshold", `Invalid value: "90%": must be a number, not a percentage: write "0.8" for 80%`)}},
		{"threshold not a number", map[string]string{"utilization-lower-threshold": "half"}, []wantProblem{invalidAt("utilization-lower-threshold", `Invalid value: "half": must be a number, for example "0.5"`)}},
		{"boolean", map[string]string{"compaction": "yes", "recommend-only": "on"}, []wantProblem{
			invalidAt("compaction", `Invalid value: "yes": must be "true" or "false"`),
			invalidAt("recommend-only", `Invalid value: "on": must be "true" or "false"`)}},
		{"policy, case", map[string]string{"policy": "Fit"}, []wantProblem{{configMap: autoscalerCM, field: "data.policy", typ: field.ErrorTypeNotSupported, contains: []string{
			`data.policy: Unsupported value: "Fit": supported values: "fit", "utilization", "triggers" (did you mean "fit"?)`}}}},
		{"policy, typo", map[string]string{"policy": "utilisation"}, []wantProblem{{configMap: autoscalerCM, field: "data.policy", typ: field.ErrorTypeNotSupported, contains: []string{
			`Unsupported value: "utilisation": supported values: "fit", "utilization", "triggers" (did you mean "utilization"?)`}}}},
		{"policy, unknown", map[string]string{"policy": "binpack"}, []wantProblem{{configMap: autoscalerCM, field: "data.policy", typ: field.ErrorTypeNotSupported, contains: []string{
			`Unsupported value: "binpack": supported values: "fit", "utilization"`}}}},

		// Rules.
		{"min-replicas negative", map[string]string{"min-replicas": "-1"}, []wantProblem{invalidAt("min-replicas", `Invalid value: -1: must be at least 0`)}},
		{"max-replicas zero", map[string]string{"max-replicas": "0"}, []wantProblem{invalidAt("max-replicas", `Invalid value: 0: must be at least 1`)}},
		{"max-replicas above vsched.MaxReplicas", map[string]string{"max-replicas": "65537"},
			[]wantProblem{invalidAt("max-replicas", `Invalid value: 65537: must be at most 65536 (vsched.MaxReplicas)`)}},
		{"max-replicas MaxInt32", map[string]string{"max-replicas": "2147483647"},
			[]wantProblem{invalidAt("max-replicas", `Invalid value: 2147483647: must be at most 65536 (vsched.MaxReplicas)`)}},
		{"max-replicas negative, min 0", map[string]string{"max-replicas": "-3", "min-replicas": "0"}, []wantProblem{invalidAt("max-replicas", `Invalid value: -3: must be at least 1`)}},
		{"max below min", map[string]string{"min-replicas": "5", "max-replicas": "3"}, []wantProblem{invalidAt("max-replicas", `Invalid value: 3: must be at least min-replicas (5)`)}},
		{"max below the default min", map[string]string{"max-replicas": "1", "min-replicas": ""}, nil},
		{"min above the default max", map[string]string{"min-replicas": "200"}, []wantProblem{invalidAt("min-replicas", `Invalid value: 200: must not be greater than max-replicas (100, the default)`)}},
		{"min above a malformed max", map[string]string{"min-replicas": "200", "max-replicas": "lots"}, []wantProblem{invalidAt("max-replicas", `Invalid value: "lots": must be an integer`)}},
		{"max below a negative min", map[string]string{"min-replicas": "-5", "max-replicas": "-6"}, []wantProblem{
			invalidAt("min-replicas", "must be at least 0"), invalidAt("max-replicas", "Invalid value: -6: must be at least 1")}},
		{"stabilization-window negative", map[string]string{"stabilization-window": "-1m"}, []wantProblem{invalidAt("stabilization-window", `Invalid value: "-1m0s": must not be negative`)}},
		{"scale-down-cooldown negative", map[string]string{"scale-down-cooldown": "-1ns"}, []wantProblem{invalidAt("scale-down-cooldown", `Invalid value: "-1ns": must not be negative`)}},
		{"unavailable-pod-grace negative", map[string]string{"unavailable-pod-grace": "-30s"}, []wantProblem{invalidAt("unavailable-pod-grace", `Invalid value: "-30s": must not be negative`)}},
		{"refresh-period zero", map[string]string{"refresh-period": "0"}, []wantProblem{invalidAt("refresh-period",
			`config-autoscaler: data.refresh-period: Invalid value: "0s": must be greater than 0 (a zero period would re-evaluate in a busy loop)`)}},
		{"refresh-period negative", map[string]string{"refresh-period": "-5s"}, []wantProblem{invalidAt("refresh-period",
			`Invalid value: "-5s": must be greater than 0 (a zero period would re-evaluate in a busy loop)`)}},
		{"max-scale-up-rate one", map[string]string{"max-scale-up-rate": "1"}, []wantProblem{invalidAt("max-scale-up-rate", `Invalid value: 1: must be 0 (no limit) or a finite number greater than 1`)}},
		{"max-scale-up-rate below one", map[string]string{"max-scale-up-rate": "0.5"}, []wantProblem{invalidAt("max-scale-up-rate", `Invalid value: 0.5: must be 0 (no limit)`)}},
		{"max-scale-up-rate negative", map[string]string{"max-scale-up-rate": "-2"}, []wantProblem{invalidAt("max-scale-up-rate", `Invalid value: -2: must be 0 (no limit)`)}},
		{"upper zero", map[string]string{"utilization-upper-threshold": "0"}, []wantProblem{invalidAt("utilization-upper-threshold",
			`Invalid value: 0: must be greater than 0 and at most 1 (a fraction of the capacity: 0.8 is 80%)`)}},
		{"upper above one", map[string]string{"utilization-upper-threshold": "1.5"}, []wantProblem{invalidAt("utilization-upper-threshold", `Invalid value: 1.5: must be greater than 0 and at most 1`)}},
		{"upper as a percentage number", map[string]string{"utilization-upper-threshold": "80", "utilization-lower-threshold": "50"}, []wantProblem{
			invalidAt("utilization-upper-threshold", `Invalid value: 80: must be greater than 0 and at most 1`),
			invalidAt("utilization-lower-threshold", `Invalid value: 50: must be greater than 0 and less than 1`)}},
		{"lower zero", map[string]string{"utilization-lower-threshold": "0"}, []wantProblem{invalidAt("utilization-lower-threshold",
			`Invalid value: 0: must be greater than 0 and less than 1 (a fraction of the capacity: 0.8 is 80%)`)}},
		{"lower negative", map[string]string{"utilization-lower-threshold": "-0.1"}, []wantProblem{invalidAt("utilization-lower-threshold", `Invalid value: -0.1: must be greater than 0`)}},
		{"lower one", map[string]string{"utilization-lower-threshold": "1", "utilization-upper-threshold": "1"}, []wantProblem{invalidAt("utilization-lower-threshold", `Invalid value: 1: must be greater than 0 and less than 1`)}},
		{"lower equals upper", map[string]string{"utilization-upper-threshold": "0.6", "utilization-lower-threshold": "0.6"}, []wantProblem{invalidAt("utilization-upper-threshold",
			`Invalid value: 0.6: must be greater than utilization-lower-threshold (0.6)`)}},
		{"lower above upper", map[string]string{"utilization-upper-threshold": "0.5", "utilization-lower-threshold": "0.7"}, []wantProblem{invalidAt("utilization-upper-threshold",
			`Invalid value: 0.5: must be greater than utilization-lower-threshold (0.7)`)}},
		{"lower above the default upper", map[string]string{"utilization-lower-threshold": "0.9"}, []wantProblem{invalidAt("utilization-lower-threshold",
			`Invalid value: 0.9: must be less than utilization-upper-threshold (0.8, the default)`)}},
		{"upper below the default lower", map[string]string{"utilization-upper-threshold": "0.4"}, []wantProblem{invalidAt("utilization-upper-threshold",
			`Invalid value: 0.4: must be greater than utilization-lower-threshold (0.5, the default)`)}},
		{"thresholds checked under fit too", map[string]string{"policy": "fit", "utilization-upper-threshold": "0.3"}, []wantProblem{invalidAt("utilization-upper-threshold", "must be greater than utilization-lower-threshold")}},
		{"upper invalid, lower not compared", map[string]string{"utilization-upper-threshold": "2", "utilization-lower-threshold": "0.9"}, []wantProblem{invalidAt("utilization-upper-threshold", "at most 1")}},
		{"max-moves-per-cycle zero", map[string]string{"max-moves-per-cycle": "0"}, []wantProblem{invalidAt("max-moves-per-cycle", `Invalid value: 0: must be at least 1`)}},
		{"max-moves-per-source negative", map[string]string{"max-moves-per-source": "-1"}, []wantProblem{invalidAt("max-moves-per-source", `Invalid value: -1: must be at least 1`)}},

		// Every problem, in key order, unknown keys first.
		{"every problem", map[string]string{
			"zeta": "1", "max-replicas": "0", "min-replicas": "-2", "stabilization-window": "-1s", "scale-down-cooldown": "soon",
			"refresh-period": "0s", "max-scale-up-rate": "1", "policy": "best", "utilization-upper-threshold": "0.2",
			"utilization-lower-threshold": "0.3", "compaction": "maybe", "max-moves-per-cycle": "0", "max-moves-per-source": "0",
			"unavailable-pod-grace": "-1h", "recommend-only": "2", "Policy": "fit",
		}, []wantProblem{
			{configMap: autoscalerCM, field: "data", contains: []string{`"Policy": unknown key (did you mean "policy"?)`}},
			{configMap: autoscalerCM, field: "data", contains: []string{`"zeta": unknown key`}},
			invalidAt("min-replicas", "must be at least 0"),
			invalidAt("max-replicas", "must be at least 1"),
			invalidAt("stabilization-window", "must not be negative"),
			invalidAt("scale-down-cooldown", `"soon": must be a duration`),
			invalidAt("refresh-period", "busy loop"),
			invalidAt("max-scale-up-rate", "greater than 1"),
			{configMap: autoscalerCM, field: "data.policy", typ: field.ErrorTypeNotSupported, contains: []string{`"best"`}},
			invalidAt("utilization-upper-threshold", "Invalid value: 0.2: must be greater than utilization-lower-threshold (0.3)"),
			invalidAt("compaction", `"maybe"`),
			invalidAt("max-moves-per-cycle", "must be at least 1"),
			invalidAt("max-moves-per-source", "must be at least 1"),
			invalidAt("unavailable-pod-grace", `"-1h0m0s": must not be negative`),
			invalidAt("recommend-only", `"2"`),
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := config.ParseAutoscalerConfigMapFromData(tc.data)
			checkProblems(t, err, tc.want)
			if err != nil && got != nil {
				t.Errorf("a config (%+v) alongside the error", got)
			}
		})
	}
}

func TestParseAutoscalerExampleError(t *testing.T) {
	_, err := config.ParseAutoscalerConfigMapFromData(map[string]string{"refresh-period": "0s"})
	const want = `config-autoscaler: data.refresh-period: Invalid value: "0s": must be greater than 0 (a zero period would re-evaluate in a busy loop)`
	if err == nil || err.Error() != want {
		t.Errorf("error = %v\nwant    %s", err, want)
	}
}

func TestParseAutoscalerNamesTheConfigMap(t *testing.T) {
	c := namedConfigMap("my-autoscaler", map[string]string{"max-replicas": "0", "maxreplicas": "3"})
	c.BinaryData = map[string][]byte{"policy": []byte("fit")}
	_, err := config.ParseAutoscalerConfigMap(c)
	checkProblems(t, err, []wantProblem{
		{configMap: "my-autoscaler", field: "data", contains: []string{`"maxreplicas": unknown key (did you mean "max-replicas"?); the keys of my-autoscaler are`}},
		{configMap: "my-autoscaler", field: "binaryData", contains: []string{`Invalid value: "policy": move "policy" to data; the configuration is read from data only`}},
		{configMap: "my-autoscaler", field: "data.max-replicas", contains: []string{"must be at least 1"}},
	})

	cfg, err := config.ParseAutoscalerConfigMap(namedConfigMap("my-autoscaler", map[string]string{"max-replicas": "7"}))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(autoscalerWith(func(c *config.AutoscalerConfig) { c.ConfigMap, c.MaxReplicas = "my-autoscaler", 7 }), cfg); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestValidateAutoscalerConfig(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  *config.AutoscalerConfig
		want []wantProblem
	}{
		{"defaults", config.DefaultAutoscalerConfig(), nil},
		{"no name", autoscalerWith(func(c *config.AutoscalerConfig) { c.ConfigMap = "" }), nil},
		{"empty policy", autoscalerWith(func(c *config.AutoscalerConfig) { c.Policy = "" }), []wantProblem{
			{configMap: autoscalerCM, field: "data.policy", typ: field.ErrorTypeNotSupported, contains: []string{`Unsupported value: "": supported values: "fit", "utilization"`}}}},
		{"min above max, both set", autoscalerWith(func(c *config.AutoscalerConfig) { c.MinReplicas = 101 }), []wantProblem{
			invalidAt("max-replicas", "Invalid value: 100: must be at least min-replicas (101)")}},
		{"thresholds crossed", autoscalerWith(func(c *config.AutoscalerConfig) { c.UtilizationLower = 0.9 }), []wantProblem{
			invalidAt("utilization-upper-threshold", "Invalid value: 0.8: must be greater than utilization-lower-threshold (0.9)")}},
		{"zero value", &config.AutoscalerConfig{ConfigMap: "mine"}, []wantProblem{
			{configMap: "mine", field: "data.max-replicas", contains: []string{"must be at least 1"}},
			{configMap: "mine", field: "data.refresh-period", contains: []string{`"0s": must be greater than 0`}},
			{configMap: "mine", field: "data.policy", typ: field.ErrorTypeNotSupported},
			{configMap: "mine", field: "data.utilization-upper-threshold", contains: []string{"must be greater than 0 and at most 1"}},
			{configMap: "mine", field: "data.utilization-lower-threshold", contains: []string{"must be greater than 0 and less than 1"}},
			{configMap: "mine", field: "data.max-moves-per-cycle", contains: []string{"must be at least 1"}},
			{configMap: "mine", field: "data.max-moves-per-source", contains: []string{"must be at least 1"}},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkProblems(t, config.ValidateAutoscalerConfig(tc.cfg), tc.want)
		})
	}
}

// TestAutoscalerReadmeExample parses the full example of README.md's
// config-autoscaler section, so the documentation cannot drift.
func TestAutoscalerReadmeExample(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(readme), "\n### config-autoscaler\n")
	if !ok {
		t.Fatal("README.md has no config-autoscaler section")
	}
	_, block, ok := strings.Cut(section, "```yaml\n")
	if !ok {
		t.Fatal("the config-autoscaler section has no YAML example")
	}
	block, _, _ = strings.Cut(block, "```")
	c := configMapFromYAML(t, block)
	got, err := config.ParseAutoscalerConfigMap(c)
	if err != nil {
		t.Fatal(err)
	}
	want := &config.AutoscalerConfig{
		ConfigMap: autoscalerCM, MinReplicas: 1, MaxReplicas: 20, StabilizationWindow: 10 * time.Minute,
		ScaleDownCooldown: 3 * time.Minute, RefreshPeriod: 15 * time.Second, MaxScaleUpRate: 2,
		Policy: config.PolicyUtilization, UtilizationUpper: 0.85, UtilizationLower: 0.6, Compaction: true,
		MaxMovesPerCycle: 50, MaxMovesPerSource: 5, UnavailablePodGrace: 2 * time.Minute, RecommendOnly: false,
		HotPodMemory: 0.85, HotPodCPU: 0.95, HotPodGrace: 3 * time.Minute, UsageMaxAge: time.Minute,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if len(c.Data) != 18 {
		t.Errorf("the example sets %d keys, want all 18", len(c.Data))
	}
}

func TestAutoscalerStoreKeepsLastGood(t *testing.T) {
	rec := record.NewFakeRecorder(10)
	s := config.NewAutoscalerStore(context.Background(), "", config.RecordRejections(rec))
	if s.Name() != autoscalerCM {
		t.Errorf("Name() = %q", s.Name())
	}
	if diff := cmp.Diff(config.DefaultAutoscalerConfig(), s.Config()); diff != "" {
		t.Fatalf("initial config (-want +got):\n%s", diff)
	}

	// A valid change takes effect at once.
	s.OnConfigChanged(cm(autoscalerCM, map[string]string{"max-replicas": "12", "policy": "utilization"}))
	good := autoscalerWith(func(c *config.AutoscalerConfig) { c.MaxReplicas, c.Policy = 12, config.PolicyUtilization })
	if diff := cmp.Diff(good, s.Config()); diff != "" {
		t.Fatalf("after a valid update (-want +got):\n%s", diff)
	}

	// Config returns a copy.
	s.Config().MaxReplicas = 1
	if s.Config().MaxReplicas != 12 {
		t.Fatal("changing the returned config changed the store")
	}

	// An invalid one is rejected with an Event and changes nothing.
	s.OnConfigChanged(cm(autoscalerCM, map[string]string{"max-replicas": "12", "refresh-period": "0s", "min-replicas": "-1"}))
	if diff := cmp.Diff(good, s.Config()); diff != "" {
		t.Errorf("after an invalid update (-want +got):\n%s", diff)
	}
	select {
	case ev := <-rec.Events:
		for _, want := range []string{
			"Warning " + config.ReasonInvalidConfiguration,
			"config-autoscaler: data.min-replicas: Invalid value: -1: must be at least 0",
			"data.refresh-period: Invalid value: \"0s\": must be greater than 0",
			"the last good configuration stays in force",
		} {
			if !strings.Contains(ev, want) {
				t.Errorf("event %q does not contain %q", ev, want)
			}
		}
	default:
		t.Error("no event for the rejected ConfigMap")
	}

	// Other ConfigMaps and nil are ignored, without events.
	s.OnConfigChanged(cm(config.DefaultSchedulerConfigMapName, map[string]string{"priorities": "[]"}))
	s.OnConfigChanged(cm("config-logging", map[string]string{"zap-logger-config": "{}"}))
	s.OnConfigChanged(nil)
	if diff := cmp.Diff(good, s.Config()); diff != "" {
		t.Errorf("after unrelated ConfigMaps (-want +got):\n%s", diff)
	}
	select {
	case ev := <-rec.Events:
		t.Errorf("unexpected event %q", ev)
	default:
	}

	// An empty ConfigMap means the defaults again.
	s.OnConfigChanged(cm(autoscalerCM, nil))
	if diff := cmp.Diff(config.DefaultAutoscalerConfig(), s.Config()); diff != "" {
		t.Errorf("after an empty ConfigMap (-want +got):\n%s", diff)
	}

	// A nil RejectFunc is allowed.
	quiet := config.NewAutoscalerStore(context.Background(), "", nil)
	quiet.OnConfigChanged(cm(autoscalerCM, map[string]string{"policy": "none"}))
	if quiet.Config().Policy != config.PolicyFit {
		t.Error("an invalid update was applied")
	}
}

func TestAutoscalerStoreCustomName(t *testing.T) {
	s := config.NewAutoscalerStore(context.Background(), "my-autoscaler", nil)
	if got := s.Config().ConfigMap; got != "my-autoscaler" {
		t.Errorf("initial ConfigMap = %q, want my-autoscaler", got)
	}
	s.OnConfigChanged(cm(autoscalerCM, map[string]string{"max-replicas": "3"}))
	if s.Config().MaxReplicas != 100 {
		t.Error("a ConfigMap with the default name was applied to a store for another name")
	}
	s.OnConfigChanged(cm("my-autoscaler", map[string]string{"max-replicas": "3"}))
	if diff := cmp.Diff(autoscalerWith(func(c *config.AutoscalerConfig) { c.ConfigMap, c.MaxReplicas = "my-autoscaler", 3 }), s.Config()); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestAutoscalerStoreConcurrent is for the race detector: readers see only
// whole configs while updates are applied.
func TestAutoscalerStoreConcurrent(t *testing.T) {
	s := config.NewAutoscalerStore(context.Background(), "", nil)
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				c := s.Config()
				// Updates set max-replicas and min-replicas together.
				if c.MinReplicas != 0 && c.MaxReplicas != 2*c.MinReplicas {
					t.Errorf("torn config: min %d, max %d", c.MinReplicas, c.MaxReplicas)
					return
				}
			}
		}()
	}
	for i := int32(1); i <= 200; i++ {
		s.OnConfigChanged(cm(autoscalerCM, map[string]string{
			"min-replicas": strconv.Itoa(int(i)), "max-replicas": strconv.Itoa(int(2 * i)),
		}))
	}
	close(stop)
	wg.Wait()
	if got := s.Config(); got.MinReplicas != 200 || got.MaxReplicas != 400 {
		t.Errorf("final config min %d max %d, want 200 and 400", got.MinReplicas, got.MaxReplicas)
	}
}

func TestAutoscalerStoreWatchesWithInformer(t *testing.T) {
	ctx := context.Background()
	client := fake.NewSimpleClientset()
	rec := record.NewFakeRecorder(10)
	w := informer.NewInformedWatcher(client, "vsched")
	s := config.NewAutoscalerStore(ctx, "", config.RecordRejections(rec))
	s.WatchConfigs(w, "vsched")
	stop := make(chan struct{})
	defer close(stop)
	// The ConfigMap does not exist: the watcher starts anyway, on the
	// defaults.
	if err := w.Start(stop); err != nil {
		t.Fatalf("start with an absent ConfigMap: %v", err)
	}
	if diff := cmp.Diff(config.DefaultAutoscalerConfig(), s.Config()); diff != "" {
		t.Fatalf("absent ConfigMap (-want +got):\n%s", diff)
	}
	eventually := func(what string, ok func(*config.AutoscalerConfig) bool) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for !ok(s.Config()) {
			if time.Now().After(deadline) {
				t.Fatalf("%s: never happened; config is %+v", what, s.Config())
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	cms := client.CoreV1().ConfigMaps("vsched")

	// Created: applied.
	created, err := cms.Create(ctx, cm(autoscalerCM, map[string]string{"max-replicas": "7", "recommend-only": "true"}), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	eventually("the created ConfigMap applied", func(c *config.AutoscalerConfig) bool { return c.MaxReplicas == 7 && c.RecommendOnly })

	// Updated to something invalid: rejected with an Event, kept.
	bad := created.DeepCopy()
	bad.Data = map[string]string{"max-replicas": "7", "refresh-period": "0"}
	if _, err := cms.Update(ctx, bad, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	select {
	case ev := <-rec.Events:
		if !strings.Contains(ev, "data.refresh-period") || !strings.Contains(ev, config.ReasonInvalidConfiguration) {
			t.Errorf("event = %q", ev)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no event for the invalid update")
	}
	if c := s.Config(); c.MaxReplicas != 7 || !c.RecommendOnly {
		t.Errorf("the last good config was not kept: %+v", c)
	}

	// Deleted: the defaults again.
	if err := cms.Delete(ctx, autoscalerCM, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually("the defaults after deletion", func(c *config.AutoscalerConfig) bool { return cmp.Equal(c, config.DefaultAutoscalerConfig()) })
}

func TestAutoscalerStoreWatchesWithoutDefault(t *testing.T) {
	// StaticWatcher has no WatchWithDefault: the store watches the name.
	w := configmap.NewStaticWatcher(cm(autoscalerCM, map[string]string{"min-replicas": "2"}))
	s := config.NewAutoscalerStore(context.Background(), "", nil)
	s.WatchConfigs(w, "vsched")
	if err := w.Start(nil); err != nil {
		t.Fatal(err)
	}
	if got := s.Config().MinReplicas; got != 2 {
		t.Errorf("MinReplicas = %d, want 2", got)
	}
}
