package usage_test

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/vsched/vsched/usage"
)

func TestSumSkipsStaleAndMissing(t *testing.T) {
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	samples := []usage.Sample{
		{Pod: "a-0", Time: now.Add(-10 * time.Second), Usage: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("250m")}},
		{Pod: "a-1", Time: now.Add(-2 * time.Minute), Usage: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}},
		{Pod: "a-2", Time: now, Usage: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("1Gi")}},
		{Pod: "a-3", Time: now.Add(time.Second), Usage: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("500m")}},
	}
	milli, pods := usage.Sum(samples, corev1.ResourceCPU, now, time.Minute)
	if milli != 750 || pods != 2 {
		t.Errorf("Sum(cpu) = %d milli over %d pods; want 750 over 2 (a-1 stale, a-2 has no cpu)", milli, pods)
	}
}
