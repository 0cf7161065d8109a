package config

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/sourceautoscaler/decision"
)

// sourceAutoscalerKeys are the data keys of config-source-autoscaler, in
// the order problems are reported.
var sourceAutoscalerKeys = []string{
	KeyMinScale, KeyMaxScale, KeyLagThreshold, KeyActivationLagThreshold,
	KeyPollingInterval, KeyCooldownPeriod,
	KeyStableWindow, KeyPanicWindow, KeyPanicThreshold,
	KeySourceMaxScaleUpRate, KeySourceMaxScaleDownRate, KeyScaleDownDelay,
	KeyAllowIdleConsumers, KeyLimitToPartitionsLag, KeyEvenDistribution, KeyExcludePersistentLag,
	KeyStaleAfter, KeyFallbackAfter, KeyFallbackReplicas, KeyFetchTimeout,
}

// maxWindow bounds every duration of config-source-autoscaler.
const maxWindow = time.Hour

// ParseSourceAutoscalerConfigMap parses and validates a
// config-source-autoscaler ConfigMap. As ParseAutoscalerConfigMap: a nil
// ConfigMap, no data, an absent or blank key mean the defaults
// (DefaultSourceAutoscalerConfig); values are trimmed; integers for
// min-scale, max-scale, fallback-after-failures and fallback-replicas;
// numbers for lag-threshold, activation-lag-threshold, panic-threshold and
// the two rates; booleans for the four partition switches; Go durations
// for the rest, where polling-interval and cooldown-period also take a
// whole number of seconds ("10"), as eventing-kafka-broker writes them.
// The error, if any, is a *Error listing every problem, unknown keys first.
func ParseSourceAutoscalerConfigMap(cm *corev1.ConfigMap) (*SourceAutoscalerConfig, error) {
	name, data, binary := unpack(cm, DefaultSourceAutoscalerConfigMapName)
	if errs := checkSize(data, binary); errs != nil {
		return nil, asError(problems(name, errs))
	}
	cfg := DefaultSourceAutoscalerConfig()
	cfg.ConfigMap = name
	keyErrs := checkKeys(name, data, binary, sourceAutoscalerKeys...)
	p := valueParser{data: data, given: map[string]bool{}, malformed: map[string]bool{}}
	readPolicy(&p, &cfg.Policy)
	p.duration(KeyFetchTimeout, &cfg.FetchTimeout)
	errs := append(p.errs, checkPolicy(&cfg.Policy, &p)...)
	if cfg.FetchTimeout <= 0 || cfg.FetchTimeout > maxWindow {
		errs = append(errs, field.Invalid(p.path(KeyFetchTimeout), cfg.FetchTimeout.String(), "must be greater than 0 and at most 1h"))
	}
	sortByKeys(errs, sourceAutoscalerKeys)
	if all := append(keyErrs, errs...); len(all) > 0 {
		return nil, asError(problems(name, all))
	}
	return cfg, nil
}

// readPolicy reads the policy's keys present in p's data over pol.
func readPolicy(p *valueParser, pol *decision.Policy) {
	p.int32(KeyMinScale, &pol.Min, 0)
	p.int32(KeyMaxScale, &pol.Max, 1)
	p.float(KeyLagThreshold, &pol.Target, "100", "")
	p.float(KeyActivationLagThreshold, &pol.ActivationThreshold, "0", "")
	p.seconds(KeyPollingInterval, &pol.PollingInterval)
	p.seconds(KeyCooldownPeriod, &pol.ScaleToZeroGrace)
	p.duration(KeyStableWindow, &pol.StableWindow)
	p.duration(KeyPanicWindow, &pol.PanicWindow)
	p.float(KeyPanicThreshold, &pol.PanicThreshold, "2", "200%")
	p.float(KeySourceMaxScaleUpRate, &pol.MaxScaleUpRate, "1000", "")
	p.float(KeySourceMaxScaleDownRate, &pol.MaxScaleDownRate, "2", "")
	p.duration(KeyScaleDownDelay, &pol.ScaleDownDelay)
	p.bool(KeyAllowIdleConsumers, &pol.AllowIdleConsumers)
	p.bool(KeyLimitToPartitionsLag, &pol.LimitToPartitionsWithLag)
	p.bool(KeyEvenDistribution, &pol.EvenDistribution)
	p.bool(KeyExcludePersistentLag, &pol.ExcludePersistentLag)
	p.duration(KeyStaleAfter, &pol.StaleAfter)
	p.int32(KeyFallbackAfter, &pol.FallbackAfter, 1)
	p.int32(KeyFallbackReplicas, &pol.FallbackReplicas, 0)
}

// seconds reads a duration, or a whole number of seconds.
func (p *valueParser) seconds(key string, dst *time.Duration) {
	v, ok := p.value(key)
	if !ok {
		return
	}
	if n, err := strconv.ParseInt(v, 10, 32); err == nil {
		*dst = time.Duration(n) * time.Second
		p.given[key] = true
		return
	}
	if _, err := time.ParseDuration(v); err != nil {
		p.fail(key, v, `must be a whole number of seconds such as "10", or a duration such as "30s" or "5m"`)
		return
	}
	p.duration(key, dst)
}

// checkPolicy checks the rules of a policy; a key whose value could not be
// read is not checked again.
func checkPolicy(pol *decision.Policy, p *valueParser) field.ErrorList {
	c := &policyCheck{p: p, pol: pol}
	c.counts()
	c.thresholds()
	c.durations()
	c.fallback()
	return c.errs
}

type policyCheck struct {
	p    *valueParser
	pol  *decision.Policy
	errs field.ErrorList
}

func (c *policyCheck) invalid(key string, value any, detail string) {
	if c.p.malformed[key] {
		return
	}
	c.p.malformed[key] = true
	c.errs = append(c.errs, field.Invalid(c.p.path(key), value, detail))
}

var atMostMaxVReplicas = fmt.Sprintf("must be at most %d (vsched.MaxVReplicas)", vsched.MaxVReplicas)

func (c *policyCheck) counts() {
	pol := c.pol
	switch {
	case pol.Min < 0:
		c.invalid(KeyMinScale, pol.Min, "must be at least 0")
	case pol.Min > vsched.MaxVReplicas:
		c.invalid(KeyMinScale, pol.Min, atMostMaxVReplicas)
	}
	switch {
	case pol.Max < 1:
		c.invalid(KeyMaxScale, pol.Max, "must be at least 1")
	case pol.Max > vsched.MaxVReplicas:
		c.invalid(KeyMaxScale, pol.Max, atMostMaxVReplicas)
	}
	if !c.p.malformed[KeyMinScale] && !c.p.malformed[KeyMaxScale] && pol.Max < pol.Min {
		if c.p.given[KeyMaxScale] {
			c.invalid(KeyMaxScale, pol.Max, fmt.Sprintf("must be at least %s (%d)", KeyMinScale, pol.Min))
		} else {
			c.invalid(KeyMinScale, pol.Min, fmt.Sprintf("must not be greater than %s (%d, the default)", KeyMaxScale, pol.Max))
		}
	}
}

func finite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }

func (c *policyCheck) thresholds() {
	pol := c.pol
	if !(pol.Target > 0 && finite(pol.Target)) {
		c.invalid(KeyLagThreshold, pol.Target, "must be greater than 0: the demand one vreplica serves")
	}
	if !(pol.ActivationThreshold >= 0 && finite(pol.ActivationThreshold)) {
		c.invalid(KeyActivationLagThreshold, pol.ActivationThreshold, "must be at least 0")
	}
	if !(pol.PanicThreshold >= 1 && finite(pol.PanicThreshold)) {
		c.invalid(KeyPanicThreshold, pol.PanicThreshold, "must be at least 1 (a factor: 2 is twice what the current vreplicas serve)")
	}
	for _, r := range []struct {
		key  string
		rate float64
	}{{KeySourceMaxScaleUpRate, pol.MaxScaleUpRate}, {KeySourceMaxScaleDownRate, pol.MaxScaleDownRate}} {
		if !(r.rate > 1 && finite(r.rate)) {
			c.invalid(r.key, r.rate, "must be a finite number greater than 1 (a factor of the current count)")
		}
	}
}

func (c *policyCheck) durations() {
	pol := c.pol
	type bound struct {
		key      string
		value    time.Duration
		least    time.Duration
		positive bool
	}
	for _, d := range []bound{
		{KeyPollingInterval, pol.PollingInterval, time.Second, true},
		{KeyCooldownPeriod, pol.ScaleToZeroGrace, 0, false},
		{KeyStableWindow, pol.StableWindow, time.Second, true},
		{KeyPanicWindow, pol.PanicWindow, time.Second, true},
		{KeyScaleDownDelay, pol.ScaleDownDelay, 0, false},
		{KeyStaleAfter, pol.StaleAfter, time.Second, true},
	} {
		if d.value < d.least || d.value > maxWindow {
			c.invalid(d.key, d.value.String(), fmt.Sprintf("must be from %v to %v", d.least, maxWindow))
		}
	}
	if !c.p.malformed[KeyPanicWindow] && !c.p.malformed[KeyStableWindow] && pol.PanicWindow > pol.StableWindow {
		// Reported on the key that was set: a default is never the problem.
		if c.p.given[KeyPanicWindow] {
			c.invalid(KeyPanicWindow, pol.PanicWindow.String(), fmt.Sprintf("must not be longer than %s (%v)", KeyStableWindow, pol.StableWindow))
		} else {
			c.invalid(KeyStableWindow, pol.StableWindow.String(), fmt.Sprintf("must not be shorter than %s (%v, the default)", KeyPanicWindow, pol.PanicWindow))
		}
	}
}

func (c *policyCheck) fallback() {
	pol := c.pol
	if pol.FallbackAfter < 1 {
		c.invalid(KeyFallbackAfter, pol.FallbackAfter, "must be at least 1")
	}
	switch {
	case pol.FallbackReplicas < 0:
		c.invalid(KeyFallbackReplicas, pol.FallbackReplicas, "must be at least 0 (0 keeps the current count)")
	case !c.p.malformed[KeyMaxScale] && pol.FallbackReplicas > pol.Max:
		c.invalid(KeyFallbackReplicas, pol.FallbackReplicas, fmt.Sprintf("must not be greater than %s (%d): a missing value is no reason for the maximum", KeyMaxScale, pol.Max))
	}
}

// sortByKeys orders problems by their key in keys (problems without one
// keep their place first), keeping the order of the problems of one key.
func sortByKeys(errs field.ErrorList, keys []string) {
	order := func(e *field.Error) int {
		for i, k := range keys {
			if strings.HasSuffix(e.Field, "."+k) || strings.HasSuffix(e.Field, k+"]") {
				return i
			}
		}
		return -1
	}
	for i := 1; i < len(errs); i++ {
		for j := i; j > 0 && order(errs[j]) < order(errs[j-1]); j-- {
			errs[j], errs[j-1] = errs[j-1], errs[j]
		}
	}
}
