package config

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/vsched/vsched/sourceautoscaler/decision"
)

// annotationsPath is where a source's annotation problems are reported.
var annotationsPath = field.NewPath("metadata", "annotations")

// annotationKeys are the config-source-autoscaler keys a source's
// annotations override, under AnnotationPrefix.
var annotationKeys = []string{KeyMinScale, KeyMaxScale, KeyLagThreshold, KeyActivationLagThreshold, KeyPollingInterval, KeyCooldownPeriod}

// PolicyFor is the policy of a source with the given annotations: c's
// defaults (nil c: DefaultSourceAutoscalerConfig's), overridden by
// AnnotationPrefix + min-scale, max-scale, lag-threshold,
// activation-lag-threshold, polling-interval and cooldown-period (read as
// in the ConfigMap), and paused by AnnotationPaused ("true") or pinned by
// AnnotationPausedReplicas (an integer >= 0). Other annotations are
// ignored. The result is validated as the ConfigMap is: a broken
// annotation gives a *Error naming metadata.annotations[key], and the
// caller keeps the source's previous policy.
func (c *SourceAutoscalerConfig) PolicyFor(annotations map[string]string) (decision.Policy, error) {
	if c == nil {
		c = DefaultSourceAutoscalerConfig()
	}
	pol := c.Policy
	if len(annotations) == 0 {
		return pol, nil
	}
	data := map[string]string{}
	for _, k := range annotationKeys {
		if v, ok := annotations[AnnotationPrefix+k]; ok {
			data[k] = v
		}
	}
	p := valueParser{data: data, given: map[string]bool{}, malformed: map[string]bool{}, base: annotationsPath}
	readPolicy(&p, &pol)
	errs := p.errs
	if len(data) > 0 {
		errs = append(errs, checkPolicy(&pol, &p)...)
	}
	errs = append(errs, readPause(annotations, &pol)...)
	if len(errs) > 0 {
		for _, e := range errs {
			e.Field = rebase(e.Field)
		}
		sortByKeys(errs, annotationKeys)
		return c.Policy, asError(problems("the source's annotations", errs))
	}
	return pol, nil
}

// rebase names a problem by the annotation rather than by the key.
func rebase(f string) string {
	for _, k := range annotationKeys {
		if f == dataPath.Child(k).String() || f == annotationsPath.Key(k).String() {
			return annotationsPath.Key(AnnotationPrefix + k).String()
		}
	}
	return f
}

func readPause(annotations map[string]string, pol *decision.Policy) field.ErrorList {
	p := valueParser{data: map[string]string{
		AnnotationPaused:         annotations[AnnotationPaused],
		AnnotationPausedReplicas: annotations[AnnotationPausedReplicas],
	}, given: map[string]bool{}, malformed: map[string]bool{}, base: annotationsPath}
	p.bool(AnnotationPaused, &pol.Paused)
	pinned := int32(-1)
	p.int32(AnnotationPausedReplicas, &pinned, 0)
	if p.given[AnnotationPausedReplicas] {
		if pinned < 0 || pinned > pol.Max {
			p.fail(AnnotationPausedReplicas, annotations[AnnotationPausedReplicas], "must be from 0 to the source's max-scale")
		} else {
			pol.Paused, pol.PausedReplicas = true, pinned
		}
	}
	return p.errs
}
