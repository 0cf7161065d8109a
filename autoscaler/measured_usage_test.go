package autoscaler

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/record"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/vsched/vsched/usage"
)

// scriptedReader is a usage.Reader a test sets.
type scriptedReader struct {
	mu      sync.Mutex
	samples []usage.Sample
	err     error
	reads   int
}

func (f *scriptedReader) set(err error, s ...usage.Sample) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.samples, f.err = s, err
}

func (f *scriptedReader) Read(context.Context) ([]usage.Sample, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reads++
	if f.err != nil {
		return nil, f.err
	}
	return f.samples, nil
}

func cpuReq(cpu string) corev1.PodSpec {
	return corev1.PodSpec{Containers: []corev1.Container{{Name: "main", Resources: corev1.ResourceRequirements{
		Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu)}}}}}
}

func cpuSample(pod, cpu string, at time.Time) usage.Sample {
	return usage.Sample{Pod: pod, Time: at, Usage: corev1.ResourceList{
		corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse("1Gi")}}
}

// measuredUsageEnv: adapter with 3 replicas, a template requesting 500m, pod
// adapter-0 requesting 1 (its spec wins), adapter-1 not yet in the cache
// (the template's), adapter-5 beyond the size.
func measuredUsageEnv(t *testing.T) (*MeasuredUsage, *scriptedReader, *clocktesting.FakeClock, *record.FakeRecorder) {
	t.Helper()
	three := int32(3)
	set := &appsv1.StatefulSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "adapter"},
		Spec:       appsv1.StatefulSetSpec{Replicas: &three, Template: corev1.PodTemplateSpec{Spec: cpuReq("500m")}},
	}
	objs := []runtime.Object{set}
	for _, p := range []struct{ name, cpu string }{{"adapter-0", "1"}, {"adapter-2", "500m"}, {"adapter-5", "500m"}, {"other-0", "4"}} {
		objs = append(objs, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: p.name}, Spec: cpuReq(p.cpu)})
	}
	clk := clocktesting.NewFakeClock(time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC))
	rec := record.NewFakeRecorder(100)
	r := &scriptedReader{}
	m, err := NewMeasuredUsage(MeasuredUsageOptions{
		Reader: r, Namespace: "ns", StatefulSet: "adapter", Client: fake.NewSimpleClientset(objs...),
		MaxAge: time.Minute, Recorder: rec, Clock: clk,
	})
	if err != nil {
		t.Fatal(err)
	}
	return m, r, clk, rec
}

type usageAnswer struct {
	Used, Requested int64
	OK              bool
}

func TestMeasuredUsageSumsFreshAdapterPods(t *testing.T) {
	m, r, clk, rec := measuredUsageEnv(t)
	now := clk.Now()
	r.set(nil,
		cpuSample("adapter-0", "800m", now.Add(-10*time.Second)),
		cpuSample("adapter-1", "300m", now),                  // not in the cache: the template's 500m
		cpuSample("adapter-2", "2", now.Add(-2*time.Minute)), // stale
		cpuSample("adapter-5", "2", now),                     // beyond the size
		cpuSample("other-0", "2", now),                       // not an adapter pod
	)
	var got []usageAnswer
	for _, res := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
		u, q, ok := m.Usage(context.Background(), res)
		got = append(got, usageAnswer{u, q, ok})
	}
	want := []usageAnswer{
		{Used: 1100, Requested: 1500, OK: true},
		{OK: false}, // nothing requests memory
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Usage (-want +got):\n%s", diff)
	}
	if r.reads != 1 {
		t.Errorf("the reader was read %d times in one cycle; want 1 (cpu and memory share a read)", r.reads)
	}
	if len(rec.Events) != 0 {
		t.Errorf("Event %q while usage was known from the start; want none", <-rec.Events)
	}
}

func TestMeasuredUsageEventsOncePerTransition(t *testing.T) {
	m, r, clk, rec := measuredUsageEnv(t)
	down := fmt.Errorf("%w: metrics-server down", usage.ErrUnavailable)
	steps := []struct {
		err   error
		age   time.Duration // of adapter-0's sample
		ok    bool
		event string
	}{
		{nil, 0, true, ""},
		{down, 0, false, "Warning UsageUnavailable usage of the adapter pods unknown (usage: measurements unavailable: metrics-server down)"},
		{down, 0, false, ""},
		{nil, 0, true, "Normal UsageAvailable usage of the adapter pods measured again (1 pod(s) with a fresh sample)"},
		{nil, 61 * time.Second, false, "Warning UsageUnavailable usage of the adapter pods unknown (no adapter pod has a sample newer than 1m0s)"},
		{nil, 0, true, "Normal UsageAvailable"},
	}
	for i, s := range steps {
		clk.Step(5 * time.Second) // past the reuse of the last read
		r.set(s.err, cpuSample("adapter-0", "500m", clk.Now().Add(-s.age)))
		if _, _, ok := m.Usage(context.Background(), corev1.ResourceCPU); ok != s.ok {
			t.Errorf("step %d: ok = %v; want %v", i, ok, s.ok)
		}
		got := ""
		select {
		case got = <-rec.Events:
		default:
		}
		if s.event == "" && got != "" || len(got) < len(s.event) || got[:len(s.event)] != s.event {
			t.Errorf("step %d: Event %q; want one starting %q", i, got, s.event)
		}
	}
}

func TestMeasuredUsageUnknownFromTheStart(t *testing.T) {
	m, r, _, rec := measuredUsageEnv(t)
	r.set(errors.New("the server could not find the requested resource"))
	if u, q, ok := m.Usage(context.Background(), corev1.ResourceCPU); ok || u != 0 || q != 0 {
		t.Errorf("Usage = %d, %d, %v; want 0, 0, false", u, q, ok)
	}
	if got := len(rec.Events); got != 1 {
		t.Fatalf("%d Events; want the UsageUnavailable Warning", got)
	}
}

func TestNewMeasuredUsageRejects(t *testing.T) {
	c := fake.NewSimpleClientset()
	for name, o := range map[string]MeasuredUsageOptions{
		"no Reader":          {Namespace: "ns", StatefulSet: "a", Client: c},
		"no StatefulSet":     {Reader: &scriptedReader{}, Namespace: "ns", Client: c},
		"no Client or Cache": {Reader: &scriptedReader{}, Namespace: "ns", StatefulSet: "a"},
		"negative MaxAge":    {Reader: &scriptedReader{}, Namespace: "ns", StatefulSet: "a", Client: c, MaxAge: -time.Second},
	} {
		if _, err := NewMeasuredUsage(o); err == nil {
			t.Errorf("%s: NewMeasuredUsage succeeded; want an error", name)
		}
	}
}

// Pods younger than MaxAge may not have been scraped yet: no sample of
// them is no news, neither an Event nor a log line.
func TestMeasuredUsageNewPodsAreNoNews(t *testing.T) {
	two := int32(2)
	clk := clocktesting.NewFakeClock(time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC))
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "adapter-0", CreationTimestamp: metav1.NewTime(clk.Now())}, Spec: cpuReq("1")}
	client := fake.NewSimpleClientset(pod, &appsv1.StatefulSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "adapter"},
		Spec:       appsv1.StatefulSetSpec{Replicas: &two, Template: corev1.PodTemplateSpec{Spec: cpuReq("1")}},
	})
	rec := record.NewFakeRecorder(10)
	m, err := NewMeasuredUsage(MeasuredUsageOptions{Reader: &scriptedReader{}, Namespace: "ns", StatefulSet: "adapter", Client: client, MaxAge: time.Minute, Recorder: rec, Clock: clk})
	if err != nil {
		t.Fatal(err)
	}
	for _, step := range []struct {
		after  time.Duration
		events int
	}{{30 * time.Second, 0}, {31 * time.Second, 1}} {
		clk.Step(step.after)
		if _, _, ok := m.Usage(context.Background(), corev1.ResourceCPU); ok {
			t.Fatal("ok without a sample")
		}
		if got := len(rec.Events); got != step.events {
			t.Errorf("pod %v old: %d Events; want %d", clk.Since(pod.CreationTimestamp.Time), got, step.events)
		}
	}
}
