package metricsapi_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrs "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	k8stesting "k8s.io/client-go/testing"
	metricsv1beta1 "k8s.io/metrics/pkg/apis/metrics/v1beta1"
	"k8s.io/metrics/pkg/client/clientset/versioned/fake"

	"github.com/vsched/vsched/usage"
	"github.com/vsched/vsched/usage/metricsapi"
)

var (
	at       = time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	selector = labels.SelectorFromSet(labels.Set{"app": "adapter"})
	// The fake tracker files PodMetrics under the API's resource name.
	podMetrics = schema.GroupVersionResource{Group: "metrics.k8s.io", Version: "v1beta1", Resource: "pods"}
)

func podMetric(ns, name, app string, containers ...metricsv1beta1.ContainerMetrics) *metricsv1beta1.PodMetrics {
	return &metricsv1beta1.PodMetrics{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{"app": app}},
		Timestamp:  metav1.NewTime(at),
		Window:     metav1.Duration{Duration: 15 * time.Second},
		Containers: containers,
	}
}

func container(name, cpu, mem string) metricsv1beta1.ContainerMetrics {
	return metricsv1beta1.ContainerMetrics{Name: name, Usage: corev1.ResourceList{
		corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(mem),
	}}
}

func newReader(t *testing.T, objs ...*metricsv1beta1.PodMetrics) (*metricsapi.Reader, *fake.Clientset) {
	t.Helper()
	c := fake.NewSimpleClientset()
	for _, o := range objs {
		if err := c.Tracker().Create(podMetrics, o, o.Namespace); err != nil {
			t.Fatal(err)
		}
	}
	r, err := metricsapi.New(metricsapi.Config{Client: c.MetricsV1beta1(), Namespace: "ns", Selector: selector})
	if err != nil {
		t.Fatal(err)
	}
	return r, c
}

func TestReadSumsContainersOfSelectedPods(t *testing.T) {
	r, _ := newReader(t,
		podMetric("ns", "adapter-1", "adapter", container("main", "250m", "100Mi")),
		podMetric("ns", "adapter-0", "adapter", container("main", "500m", "200Mi"), container("sidecar", "20m", "10Mi")),
		podMetric("ns", "adapter-2", "adapter"), // just started: no container yet
		podMetric("ns", "other-0", "other", container("main", "4", "1Gi")),
		podMetric("elsewhere", "adapter-0", "adapter", container("main", "4", "1Gi")),
	)
	got, err := r.Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := []usage.Sample{
		{Pod: "adapter-0", Time: at, Window: 15 * time.Second, Usage: corev1.ResourceList{
			corev1.ResourceCPU: resource.MustParse("520m"), corev1.ResourceMemory: resource.MustParse("210Mi")}},
		{Pod: "adapter-1", Time: at, Window: 15 * time.Second, Usage: corev1.ResourceList{
			corev1.ResourceCPU: resource.MustParse("250m"), corev1.ResourceMemory: resource.MustParse("100Mi")}},
	}
	if diff := cmp.Diff(want, got, cmp.Comparer(func(a, b resource.Quantity) bool { return a.Cmp(b) == 0 })); diff != "" {
		t.Errorf("Read (-want +got):\n%s", diff)
	}
}

func TestReadErrors(t *testing.T) {
	gr := schema.GroupResource{Group: "metrics.k8s.io", Resource: "pods"}
	for _, tc := range []struct {
		name        string
		err         error
		unavailable bool
	}{
		{"metrics-server down", apierrs.NewServiceUnavailable("the server is currently unable to handle the request"), true},
		{"API not served", apierrs.NewNotFound(gr, ""), true},
		{"timeout", apierrs.NewTimeoutError("slow", 1), true},
		{"connection refused", errors.New("dial tcp 127.0.0.1:1: connect: connection refused"), true},
		{"forbidden", apierrs.NewForbidden(gr, "", errors.New("RBAC")), false},
		{"unauthorized", apierrs.NewUnauthorized("token"), false},
		{"bad selector", apierrs.NewBadRequest("unable to parse requirement"), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, c := newReader(t, podMetric("ns", "adapter-0", "adapter", container("main", "1", "1Gi")))
			c.PrependReactor("list", "pods", func(k8stesting.Action) (bool, runtime.Object, error) { return true, nil, tc.err })
			got, err := r.Read(context.Background())
			if err == nil || got != nil {
				t.Fatalf("Read = %v, %v; want no samples and an error", got, err)
			}
			if errors.Is(err, usage.ErrUnavailable) != tc.unavailable {
				t.Errorf("errors.Is(%v, usage.ErrUnavailable) = %v; want %v", err, !tc.unavailable, tc.unavailable)
			}
		})
	}
}

func TestNewRejectsMissingFields(t *testing.T) {
	c := fake.NewSimpleClientset().MetricsV1beta1()
	for name, cfg := range map[string]metricsapi.Config{
		"Client":         {Namespace: "ns", Selector: selector},
		"Namespace":      {Client: c, Selector: selector},
		"nil Selector":   {Client: c, Namespace: "ns"},
		"empty Selector": {Client: c, Namespace: "ns", Selector: labels.Everything()},
	} {
		if _, err := metricsapi.New(cfg); err == nil {
			t.Errorf("%s missing: New succeeded; want an error", name)
		}
	}
}
