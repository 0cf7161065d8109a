package metricsapi_test

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	metricsv1beta1 "k8s.io/metrics/pkg/apis/metrics/v1beta1"
	"k8s.io/metrics/pkg/client/clientset/versioned/fake"

	"github.com/vsched/vsched/usage/metricsapi"
)

// A Reader over the adapter StatefulSet's pods. In a cluster the client is
// versioned.NewForConfig(restConfig).MetricsV1beta1(), and the selector
// the StatefulSet's spec.selector.
func Example() {
	client := fake.NewSimpleClientset()
	_ = client.Tracker().Create(podMetrics, &metricsv1beta1.PodMetrics{
		ObjectMeta: metav1.ObjectMeta{Namespace: "adapters", Name: "adapter-0", Labels: map[string]string{"app": "adapter"}},
		Timestamp:  metav1.NewTime(time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)),
		Window:     metav1.Duration{Duration: 15 * time.Second},
		Containers: []metricsv1beta1.ContainerMetrics{
			{Name: "adapter", Usage: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("300m"), corev1.ResourceMemory: resource.MustParse("200Mi")}},
			{Name: "sidecar", Usage: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("20m"), corev1.ResourceMemory: resource.MustParse("56Mi")}},
		},
	}, "adapters")
	r, err := metricsapi.New(metricsapi.Config{
		Client:    client.MetricsV1beta1(),
		Namespace: "adapters",
		Selector:  labels.SelectorFromSet(labels.Set{"app": "adapter"}),
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	samples, err := r.Read(context.Background())
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range samples {
		cpu, mem := s.Usage[corev1.ResourceCPU], s.Usage[corev1.ResourceMemory]
		fmt.Printf("%s: cpu %s, memory %s, over %v at %s\n", s.Pod, cpu.String(), mem.String(), s.Window, s.Time.Format(time.RFC3339))
	}
	// Output:
	// adapter-0: cpu 320m, memory 256Mi, over 15s at 2026-11-27T12:00:00Z
}
