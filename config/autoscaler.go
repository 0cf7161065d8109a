package config

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/vsched/vsched"

	"github.com/vsched/vsched/internal/lib/suggest"
)

// autoscalerKeys are the data keys of config-autoscaler, in the order
// problems are reported.
var autoscalerKeys = []string{
	KeyMinReplicas,
	KeyMaxReplicas,
	KeyStabilizationWindow,
	KeyScaleDownCooldown,
	KeyRefreshPeriod,
	KeyMaxScaleUpRate,
	KeyPolicy,
	KeyUtilizationUpper,
	KeyUtilizationLower,
	KeyTriggers,
	KeyHeadroomSlots,
	KeyHeadroomShare,
	KeyHeadroomDownThreshold,
	KeyCompaction,
	KeyMaxMovesPerCycle,
	KeyMaxMovesPerSource,
	KeyUnavailablePodGrace,
	KeyHotPodMemory,
	KeyHotPodCPU,
	KeyHotPodGrace,
	KeyUsageMaxAge,
	KeyRecommendOnly,
}

// autoscalerPolicies are the values of the "policy" key.
var autoscalerPolicies = []string{PolicyFit, PolicyUtilization, PolicyTriggers}

// ParseAutoscalerConfigMap parses and validates a config-autoscaler
// ConfigMap. Errors name the ConfigMap by cm.Name
// (DefaultAutoscalerConfigMapName when cm has no name) and the parsed config
// remembers it.
//
// A nil ConfigMap, one without data, and a key that is absent or blank all
// mean the default (DefaultAutoscalerConfig) for what is missing. Values are
// trimmed of surrounding white space and read as:
//
//   - integers (strconv.ParseInt) for min-replicas, max-replicas,
//     headroom-slots, max-moves-per-cycle and max-moves-per-source;
//   - Go durations (time.ParseDuration: "30s", "5m", "1h30m") for
//     stabilization-window, scale-down-cooldown, refresh-period,
//     unavailable-pod-grace, hot-pod-grace and usage-max-age;
//   - finite numbers (strconv.ParseFloat) for max-scale-up-rate and the
//     utilization thresholds, headroom-share, headroom-down-threshold,
//     hot-pod-memory and hot-pod-cpu, which are fractions ("0.8", not
//     "80%");
//   - booleans (strconv.ParseBool: "true", "false", "1", "0", ...) for
//     compaction and recommend-only;
//   - "fit", "utilization" or "triggers" for policy;
//   - a JSON object (Triggers) for triggers.
//
// Unlike the scheduler ConfigMaps, config-autoscaler is validated as it is
// parsed (ValidateAutoscalerConfig's rules): a returned config is ready to
// use. The returned error, if any, is a *Error listing every problem found,
// in the order of the keys: unknown keys first, then each key's malformed
// value or broken rule.
func ParseAutoscalerConfigMap(cm *corev1.ConfigMap) (*AutoscalerConfig, error) {
	name, data, binary := unpack(cm, DefaultAutoscalerConfigMapName)
	return parseAutoscaler(name, data, binary)
}

// ParseAutoscalerConfigMapFromData is ParseAutoscalerConfigMap for the data
// of a ConfigMap named DefaultAutoscalerConfigMapName.
func ParseAutoscalerConfigMapFromData(data map[string]string) (*AutoscalerConfig, error) {
	return parseAutoscaler(DefaultAutoscalerConfigMapName, data, nil)
}

// ValidateAutoscalerConfig checks the rules of every field of cfg, for a
// config built in code rather than parsed: the same rules as
// ParseAutoscalerConfigMap, with problems named by the keys the fields are
// read from. A rule between two fields is reported on the upper bound
// (max-replicas, utilization-upper-threshold). A nil cfg stands for the
// defaults and is valid. The error, if
// any, is a *Error listing every problem.
func ValidateAutoscalerConfig(cfg *AutoscalerConfig) error {
	if cfg == nil {
		return nil
	}
	name := cfg.ConfigMap
	if name == "" {
		name = DefaultAutoscalerConfigMapName
	}
	everyKey := func(string) bool { return true }
	noKey := func(string) bool { return false }
	errs := validateAutoscaler(cfg, everyKey, noKey)
	sortByKey(errs)
	return asError(problems(name, errs))
}

func parseAutoscaler(name string, data map[string]string, binary map[string][]byte) (*AutoscalerConfig, error) {
	if errs := checkSize(data, binary); errs != nil {
		return nil, asError(problems(name, errs))
	}
	cfg := DefaultAutoscalerConfig()
	cfg.ConfigMap = name
	keyErrs := checkKeys(name, data, binary, autoscalerKeys...)

	p := valueParser{data: data, given: map[string]bool{}, malformed: map[string]bool{}}
	p.int32(KeyMinReplicas, &cfg.MinReplicas, 0)
	p.int32(KeyMaxReplicas, &cfg.MaxReplicas, 1)
	p.duration(KeyStabilizationWindow, &cfg.StabilizationWindow)
	p.duration(KeyScaleDownCooldown, &cfg.ScaleDownCooldown)
	p.duration(KeyRefreshPeriod, &cfg.RefreshPeriod)
	p.float(KeyMaxScaleUpRate, &cfg.MaxScaleUpRate, "2", "200%")
	p.oneOf(KeyPolicy, &cfg.Policy, autoscalerPolicies)
	p.float(KeyUtilizationUpper, &cfg.UtilizationUpper, "0.8", "80%")
	p.float(KeyUtilizationLower, &cfg.UtilizationLower, "0.5", "50%")
	p.triggers(KeyTriggers, &cfg.Triggers)
	p.int32(KeyHeadroomSlots, &cfg.HeadroomSlots, 0)
	p.float(KeyHeadroomShare, &cfg.HeadroomShare, "0.2", "20%")
	p.float(KeyHeadroomDownThreshold, &cfg.HeadroomDownThreshold, "0.99", "99%")
	p.bool(KeyCompaction, &cfg.Compaction)
	p.int32(KeyMaxMovesPerCycle, &cfg.MaxMovesPerCycle, 1)
	p.int32(KeyMaxMovesPerSource, &cfg.MaxMovesPerSource, 1)
	p.duration(KeyUnavailablePodGrace, &cfg.UnavailablePodGrace)
	p.float(KeyHotPodMemory, &cfg.HotPodMemory, "0.9", "90%")
	p.float(KeyHotPodCPU, &cfg.HotPodCPU, "0.9", "90%")
	p.duration(KeyHotPodGrace, &cfg.HotPodGrace)
	p.duration(KeyUsageMaxAge, &cfg.UsageMaxAge)
	p.bool(KeyRecommendOnly, &cfg.RecommendOnly)

	errs := append(p.errs, validateAutoscaler(cfg,
		func(k string) bool { return p.given[k] },
		func(k string) bool { return p.malformed[k] })...)
	sortByKey(errs)
	if all := append(keyErrs, errs...); len(all) > 0 {
		return nil, asError(problems(name, all))
	}
	return cfg, nil
}

// valueParser reads the values of a config-autoscaler's data into a config
// holding the defaults, collecting a problem per malformed value.
type valueParser struct {
	data map[string]string
	errs field.ErrorList
	// given are the keys whose value was read; malformed are those whose
	// value could not be (the field keeps its default).
	given, malformed map[string]bool
	// base is the path of the keys: nil means data (a ConfigMap's);
	// annotations give metadata.annotations.
	base *field.Path
}

// path is where key is reported.
func (p *valueParser) path(key string) *field.Path {
	if p.base == nil {
		return dataPath.Child(key)
	}
	return p.base.Key(key)
}

// value returns the trimmed value of key, and whether there is one.
func (p *valueParser) value(key string) (string, bool) {
	v := strings.TrimSpace(p.data[key])
	return v, v != ""
}

func (p *valueParser) fail(key, value, detail string) {
	p.malformed[key] = true
	p.errs = append(p.errs, field.Invalid(p.path(key), value, detail))
}

// int32 reads an integer; least is the smallest the key allows, for the
// message of an integer out of range.
func (p *valueParser) int32(key string, dst *int32, least int32) {
	v, ok := p.value(key)
	if !ok {
		return
	}
	n, err := strconv.ParseInt(v, 10, 32)
	if errors.Is(err, strconv.ErrRange) {
		p.fail(key, v, fmt.Sprintf("out of range: must be an integer from %d to %d", least, math.MaxInt32))
		return
	}
	if err != nil {
		p.fail(key, v, `must be an integer, for example "10"`)
		return
	}
	*dst = int32(n)
	p.given[key] = true
}

func (p *valueParser) duration(key string, dst *time.Duration) {
	v, ok := p.value(key)
	if !ok {
		return
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		detail := `must be a duration such as "30s", "5m" or "1h30m"`
		if _, ferr := strconv.ParseFloat(v, 64); ferr == nil {
			detail += " (the unit is required)"
		}
		p.fail(key, v, detail)
		return
	}
	*dst = d
	p.given[key] = true
}

// float reads a finite number; example (and the same as a percentage) is
// shown when the value is not a number.
func (p *valueParser) float(key string, dst *float64, example, percent string) {
	v, ok := p.value(key)
	if !ok {
		return
	}
	f, err := strconv.ParseFloat(v, 64)
	switch {
	case errors.Is(err, strconv.ErrRange) || (err == nil && (math.IsNaN(f) || math.IsInf(f, 0))):
		p.fail(key, v, "must be a finite number")
		return
	case err != nil && strings.HasSuffix(v, "%"):
		p.fail(key, v, fmt.Sprintf("must be a number, not a percentage: write %q for %s", example, percent))
		return
	case err != nil:
		p.fail(key, v, "must be a number, for example "+strconv.Quote(example))
		return
	}
	if f == 0 {
		f = 0 // not -0
	}
	*dst = f
	p.given[key] = true
}

func (p *valueParser) bool(key string, dst *bool) {
	v, ok := p.value(key)
	if !ok {
		return
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		p.fail(key, v, `must be "true" or "false"`)
		return
	}
	*dst = b
	p.given[key] = true
}

func (p *valueParser) oneOf(key string, dst *string, options []string) {
	v, ok := p.value(key)
	if !ok {
		return
	}
	if !slices.Contains(options, v) {
		p.malformed[key] = true
		p.errs = append(p.errs, notSupported(p.path(key), v, options))
		return
	}
	*dst = v
	p.given[key] = true
}

// notSupported is field.NotSupported with a suggestion when value is close
// to an option.
func notSupported(path *field.Path, value string, options []string) *field.Error {
	e := field.NotSupported(path, value, options)
	e.Detail += suggest.DidYouMean(value, options, false)
	return e
}

// atMostMaxReplicas is the detail for a replica count above the bound.
var atMostMaxReplicas = fmt.Sprintf("must be at most %d (vsched.MaxReplicas)", vsched.MaxReplicas)

// validateAutoscaler checks the rules of every field of cfg. given says
// whether the user set a key (rather than leaving the default); a rule
// between two keys is reported on the key that was set, on the upper bound
// when both were, and with "the default" when the other was not. A rule
// between two keys is not checked when skip says one of them is already
// reported (its value could not be read, or breaks its own rule).
func validateAutoscaler(cfg *AutoscalerConfig, given, skip func(key string) bool) field.ErrorList {
	v := &autoscalerCheck{cfg: cfg, given: given, skip: skip, bad: map[string]bool{}}
	v.replicas()
	v.durations()
	v.policy()
	v.utilization()
	v.triggers()
	v.headroom()
	v.moveLimits()
	v.hotPods()
	return v.errs
}

// autoscalerCheck collects the problems of one configuration; a key found
// bad is not compared with another key, so one mistake gives one error.
type autoscalerCheck struct {
	cfg         *AutoscalerConfig
	given, skip func(key string) bool
	bad         map[string]bool
	errs        field.ErrorList
}

func (v *autoscalerCheck) invalid(key string, value any, detail string) {
	v.bad[key] = true
	v.errs = append(v.errs, field.Invalid(dataPath.Child(key), value, detail))
}

func (v *autoscalerCheck) check(key string) bool { return !v.skip(key) && !v.bad[key] }

func (v *autoscalerCheck) replicas() {
	cfg, given := v.cfg, v.given
	if cfg.MinReplicas < 0 {
		v.invalid(KeyMinReplicas, cfg.MinReplicas, "must be at least 0")
	}
	if cfg.MinReplicas > vsched.MaxReplicas {
		v.invalid(KeyMinReplicas, cfg.MinReplicas, atMostMaxReplicas)
	}
	if cfg.MaxReplicas < 1 {
		v.invalid(KeyMaxReplicas, cfg.MaxReplicas, "must be at least 1")
	}
	if cfg.MaxReplicas > vsched.MaxReplicas {
		v.invalid(KeyMaxReplicas, cfg.MaxReplicas, atMostMaxReplicas)
	}
	if v.check(KeyMinReplicas) && v.check(KeyMaxReplicas) && cfg.MaxReplicas < cfg.MinReplicas {
		if given(KeyMaxReplicas) {
			v.invalid(KeyMaxReplicas, cfg.MaxReplicas, fmt.Sprintf("must be at least %s (%d%s)", KeyMinReplicas, cfg.MinReplicas, defaultNote(given, KeyMinReplicas)))
		} else {
			v.invalid(KeyMinReplicas, cfg.MinReplicas, fmt.Sprintf("must not be greater than %s (%d%s)", KeyMaxReplicas, cfg.MaxReplicas, defaultNote(given, KeyMaxReplicas)))
		}
	}
}

func (v *autoscalerCheck) durations() {
	cfg := v.cfg
	for _, d := range []struct {
		key   string
		value time.Duration
	}{
		{KeyStabilizationWindow, cfg.StabilizationWindow},
		{KeyScaleDownCooldown, cfg.ScaleDownCooldown},
		{KeyUnavailablePodGrace, cfg.UnavailablePodGrace},
	} {
		if d.value < 0 {
			v.invalid(d.key, d.value.String(), "must not be negative")
		}
	}
	if cfg.RefreshPeriod <= 0 {
		v.invalid(KeyRefreshPeriod, cfg.RefreshPeriod.String(), "must be greater than 0 (a zero period would re-evaluate in a busy loop)")
	}
}

func (v *autoscalerCheck) policy() {
	cfg := v.cfg
	// Scale-up rate: NaN fails every comparison, so test for the good values.
	if !(cfg.MaxScaleUpRate == 0 || (cfg.MaxScaleUpRate > 1 && !math.IsInf(cfg.MaxScaleUpRate, 1))) {
		v.invalid(KeyMaxScaleUpRate, cfg.MaxScaleUpRate, "must be 0 (no limit) or a finite number greater than 1")
	}
	// A parsed policy is already checked.
	if v.check(KeyPolicy) && !slices.Contains(autoscalerPolicies, cfg.Policy) {
		v.bad[KeyPolicy] = true
		v.errs = append(v.errs, notSupported(dataPath.Child(KeyPolicy), cfg.Policy, autoscalerPolicies))
	}
}

// utilization: 0 < lower < upper <= 1, whichever the policy.
func (v *autoscalerCheck) utilization() {
	cfg, given := v.cfg, v.given
	const fraction = " (a fraction of the capacity: 0.8 is 80%)"
	if !(cfg.UtilizationUpper > 0 && cfg.UtilizationUpper <= 1) {
		v.invalid(KeyUtilizationUpper, cfg.UtilizationUpper, "must be greater than 0 and at most 1"+fraction)
	}
	if !(cfg.UtilizationLower > 0 && cfg.UtilizationLower < 1) {
		v.invalid(KeyUtilizationLower, cfg.UtilizationLower, "must be greater than 0 and less than 1"+fraction)
	}
	if v.check(KeyUtilizationUpper) && v.check(KeyUtilizationLower) && !(cfg.UtilizationLower < cfg.UtilizationUpper) {
		if given(KeyUtilizationUpper) {
			v.invalid(KeyUtilizationUpper, cfg.UtilizationUpper, fmt.Sprintf("must be greater than %s (%v%s)", KeyUtilizationLower, cfg.UtilizationLower, defaultNote(given, KeyUtilizationLower)))
		} else {
			v.invalid(KeyUtilizationLower, cfg.UtilizationLower, fmt.Sprintf("must be less than %s (%v%s)", KeyUtilizationUpper, cfg.UtilizationUpper, defaultNote(given, KeyUtilizationUpper)))
		}
	}
}

func (v *autoscalerCheck) moveLimits() {
	if v.cfg.MaxMovesPerCycle < 1 {
		v.invalid(KeyMaxMovesPerCycle, v.cfg.MaxMovesPerCycle, "must be at least 1")
	}
	if v.cfg.MaxMovesPerSource < 1 {
		v.invalid(KeyMaxMovesPerSource, v.cfg.MaxMovesPerSource, "must be at least 1")
	}
}

func defaultNote(given func(string) bool, key string) string {
	if given(key) {
		return ""
	}
	return ", the default"
}

// sortByKey orders problems, all about a key, by their key (in
// autoscalerKeys order), keeping the order of the problems of one key.
func sortByKey(errs field.ErrorList) {
	order := make(map[string]int, len(autoscalerKeys))
	for i, k := range autoscalerKeys {
		order[dataPath.Child(k).String()] = i
	}
	sort.SliceStable(errs, func(i, j int) bool { return order[errs[i].Field] < order[errs[j].Field] })
}
