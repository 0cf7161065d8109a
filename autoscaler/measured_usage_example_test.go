package autoscaler_test

import (
	"context"
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/vsched/vsched/autoscaler"
	"github.com/vsched/vsched/usage"
)

// samples is a usage.Reader with fixed answers; in a cluster it is
// usage/metricsapi's Reader.
type samples []usage.Sample

func (s samples) Read(context.Context) ([]usage.Sample, error) { return s, nil }

// MeasuredUsage turns the pods' samples into what the cpu and memory
// triggers compare: used over requested, summed over the adapter pods.
func ExampleMeasuredUsage() {
	three := int32(3)
	request := corev1.PodSpec{Containers: []corev1.Container{{Name: "adapter", Resources: corev1.ResourceRequirements{
		Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("500m")}}}}}
	client := fake.NewSimpleClientset(&appsv1.StatefulSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: "adapters", Name: "adapter"},
		Spec:       appsv1.StatefulSetSpec{Replicas: &three, Template: corev1.PodTemplateSpec{Spec: request}},
	})
	now := time.Now()
	cpu := func(q string) corev1.ResourceList {
		return corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(q)}
	}
	m, err := autoscaler.NewMeasuredUsage(autoscaler.MeasuredUsageOptions{
		Reader: samples{
			{Pod: "adapter-0", Usage: cpu("400m"), Time: now},
			{Pod: "adapter-1", Usage: cpu("350m"), Time: now},
			{Pod: "adapter-2", Usage: cpu("900m"), Time: now.Add(-time.Hour)}, // stale: counts in neither sum
		},
		Namespace: "adapters", StatefulSet: "adapter", Client: client,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	used, requested, ok := m.Usage(context.Background(), corev1.ResourceCPU)
	fmt.Printf("cpu %dm of %dm requested (known: %v)\n", used, requested, ok)
	// Output:
	// cpu 750m of 1000m requested (known: true)
}
