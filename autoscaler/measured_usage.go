package autoscaler

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/go-logr/logr"
	"go.uber.org/zap"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/record"
	"k8s.io/utils/clock"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/internal/lib/bounded"
	"github.com/vsched/vsched/internal/lib/vlog"
	"github.com/vsched/vsched/usage"
)

// Event reasons and log lines of MeasuredUsage, once per transition.
const (
	// ReasonUsageUnavailable (Warning): the adapter pods' usage cannot be
	// read, or no pod has a fresh sample; cpu and memory triggers wait.
	ReasonUsageUnavailable = "UsageUnavailable"
	// ReasonUsageAvailable (Normal): it is measured again.
	ReasonUsageAvailable = "UsageAvailable"
	// LogUsageUnavailable is the Warn line (fields statefulset, why).
	LogUsageUnavailable = "vsched autoscaler: the adapter pods' usage is unknown; cpu and memory triggers wait, the fit keeps the size"
	// LogUsageAvailable is the Info line (fields statefulset, pods).
	LogUsageAvailable = "vsched autoscaler: the adapter pods' usage is measured again"
)

// DefaultUsageMaxAge is how old a sample may be and still count: four of
// metrics-server's default 15s resolution and then some.
const DefaultUsageMaxAge = 2 * time.Minute

// usageReuse is how long one Read serves: the cpu and memory triggers of
// one cycle share it.
const usageReuse = time.Second

// MeasuredUsageOptions configure NewMeasuredUsage.
type MeasuredUsageOptions struct {
	// Reader reads the pods' usage (usage/metricsapi in a cluster).
	// Required.
	Reader usage.Reader
	// Namespace and StatefulSet name the adapter's StatefulSet. Required.
	Namespace, StatefulSet string
	// Cache reads the pods (for their requests) and the StatefulSet (its
	// size, its template's requests, the Events' object) from informers;
	// a nil read goes through Client.
	Cache  Cache
	Client kubernetes.Interface
	// MaxAge: a sample older than this counts as none (usage.Stale).
	// 0 means DefaultUsageMaxAge.
	MaxAge time.Duration
	// Recorder receives the UsageUnavailable and UsageAvailable Events on
	// the StatefulSet. Optional.
	Recorder record.EventRecorder
	Logger   logr.Logger
	// Clock defaults to the real clock.
	Clock clock.Clock
}

// MeasuredUsage is the triggers policy's UsageReader over a usage.Reader
// (Options.Usage): the usage and the requests of a resource summed over
// the adapter pods (ordinals below spec.replicas) that have a fresh
// sample. A pod's requests come from its spec, or from the StatefulSet's
// template while the pod is not in the cache. When the usage becomes
// unknown (the Reader fails, or no pod has a fresh sample although one
// has existed for longer than MaxAge) it logs
// LogUsageUnavailable and records a ReasonUsageUnavailable Warning Event,
// once, and LogUsageAvailable with a Normal Event when it comes back;
// meanwhile Usage answers ok == false, so the cpu and memory triggers wait
// and the fit keeps the size. It is safe for concurrent use.
type MeasuredUsage struct {
	o   MeasuredUsageOptions
	log *zap.SugaredLogger

	mu      sync.Mutex
	readAt  time.Time
	samples []usage.Sample
	readErr error
	// state is the last availability reported: 0 none yet, 1 known,
	// 2 unknown.
	state int
}

var _ UsageReader = (*MeasuredUsage)(nil)

// NewMeasuredUsage validates o and returns the adapter.
func NewMeasuredUsage(o MeasuredUsageOptions) (*MeasuredUsage, error) {
	switch {
	case o.Reader == nil:
		return nil, errors.New("autoscaler: MeasuredUsageOptions.Reader: required (usage/metricsapi.New)")
	case o.Namespace == "" || o.StatefulSet == "":
		return nil, errors.New("autoscaler: MeasuredUsageOptions.Namespace and StatefulSet: required (the adapter's StatefulSet)")
	case o.Client == nil && (o.Cache.ListPods == nil || o.Cache.GetStatefulSet == nil):
		return nil, errors.New("autoscaler: MeasuredUsageOptions.Client: required unless Cache reads both the pods and the StatefulSet")
	case o.MaxAge < 0:
		return nil, fmt.Errorf("autoscaler: MeasuredUsageOptions.MaxAge: must not be negative, got %v", o.MaxAge)
	}
	if o.MaxAge == 0 {
		o.MaxAge = DefaultUsageMaxAge
	}
	if o.Clock == nil {
		o.Clock = clock.RealClock{}
	}
	return &MeasuredUsage{o: o, log: vlog.Explicit(o.Logger)}, nil
}

// Usage implements UsageReader.
func (m *MeasuredUsage) Usage(ctx context.Context, res corev1.ResourceName) (used, requested int64, ok bool) {
	now := m.o.Clock.Now()
	samples, err := m.read(ctx, now)
	set, pods, perr := m.adapterPods(ctx)
	if err == nil {
		err = perr
	}
	var fresh int
	if err == nil {
		used, requested, fresh = m.sum(samples, set, pods, res, now)
	}
	why := ""
	switch {
	case err != nil:
		why = err.Error()
	case fresh == 0 && !m.measurable(pods, now):
		// No pod yet, or none up long enough to have been scraped: no
		// news either way.
		return 0, 0, false
	case fresh == 0:
		why = fmt.Sprintf("no adapter pod has a sample newer than %v", m.o.MaxAge)
	}
	m.report(ctx, set, why, fresh)
	return used, requested, why == "" && requested > 0
}

// Read implements usage.Reader with the reads Usage shares: one read
// serves, for usageReuse, the cpu and memory triggers and the cycle's
// cost estimates and hot pods (Options.PodUsage), so a cycle asks the
// metrics API once.
func (m *MeasuredUsage) Read(ctx context.Context) ([]usage.Sample, error) {
	return m.read(ctx, m.o.Clock.Now())
}

// read returns the samples, reading them at most once per usageReuse.
func (m *MeasuredUsage) read(ctx context.Context, now time.Time) ([]usage.Sample, error) {
	m.mu.Lock()
	if !m.readAt.IsZero() && now.Sub(m.readAt) < usageReuse && now.Sub(m.readAt) >= 0 {
		s, err := m.samples, m.readErr
		m.mu.Unlock()
		return s, err
	}
	m.mu.Unlock()
	s, err := m.o.Reader.Read(ctx)
	m.mu.Lock()
	m.readAt, m.samples, m.readErr = now, s, err
	m.mu.Unlock()
	return s, err
}

// adapterPods returns the StatefulSet and its pods below spec.replicas by
// name.
func (m *MeasuredUsage) adapterPods(ctx context.Context) (*appsv1.StatefulSet, map[string]*corev1.Pod, error) {
	set, err := m.statefulSet(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("reading StatefulSet %s/%s: %w", m.o.Namespace, m.o.StatefulSet, err)
	}
	all, err := m.listPods(ctx)
	if err != nil {
		return set, nil, fmt.Errorf("listing the pods of %s: %w", m.o.Namespace, err)
	}
	pods := map[string]*corev1.Pod{}
	for _, p := range all {
		if m.ordinalBelow(p.Name, set) {
			pods[p.Name] = p
		}
	}
	return set, pods, nil
}

// ordinalBelow reports whether name is <statefulset>-<n> with n below
// spec.replicas.
func (m *MeasuredUsage) ordinalBelow(name string, set *appsv1.StatefulSet) bool {
	ord, ok := vsched.OrdinalOf(m.o.StatefulSet, name)
	replicas := int32(1)
	if set.Spec.Replicas != nil {
		replicas = *set.Spec.Replicas
	}
	return ok && ord < replicas
}

// measurable reports whether some adapter pod has existed for longer than
// MaxAge, so that the metrics pipeline should have a fresh sample of it.
func (m *MeasuredUsage) measurable(pods map[string]*corev1.Pod, now time.Time) bool {
	for _, p := range pods {
		if now.Sub(p.CreationTimestamp.Time) > m.o.MaxAge {
			return true
		}
	}
	return false
}

// sum adds up, over the fresh samples of adapter pods that request res,
// their usage and their requests, in milli-units.
func (m *MeasuredUsage) sum(samples []usage.Sample, set *appsv1.StatefulSet, pods map[string]*corev1.Pod, res corev1.ResourceName, now time.Time) (used, requested int64, fresh int) {
	for _, s := range samples {
		if usage.Stale(s, now, m.o.MaxAge) || !m.ordinalBelow(s.Pod, set) {
			continue
		}
		fresh++
		q, ok := s.Usage[res]
		if !ok {
			continue
		}
		spec := &set.Spec.Template.Spec
		if p := pods[s.Pod]; p != nil {
			spec = &p.Spec
		}
		req := podRequest(spec, res)
		if req <= 0 {
			continue
		}
		used += q.MilliValue()
		requested += req
	}
	return used, requested, fresh
}

// podRequest is what a pod spec requests of res, in milli-units: its
// containers and its restartable (sidecar) init containers, which run
// beside them.
func podRequest(spec *corev1.PodSpec, res corev1.ResourceName) int64 {
	var milli int64
	for _, c := range spec.Containers {
		if q, ok := c.Resources.Requests[res]; ok {
			milli += q.MilliValue()
		}
	}
	for _, c := range spec.InitContainers {
		if c.RestartPolicy == nil || *c.RestartPolicy != corev1.ContainerRestartPolicyAlways {
			continue
		}
		if q, ok := c.Resources.Requests[res]; ok {
			milli += q.MilliValue()
		}
	}
	return milli
}

// report logs and records an Event when the availability changes: why is
// empty when the usage is known.
func (m *MeasuredUsage) report(ctx context.Context, set *appsv1.StatefulSet, why string, fresh int) {
	state := 1
	if why != "" {
		state = 2
	}
	m.mu.Lock()
	prev := m.state
	m.state = state
	m.mu.Unlock()
	if prev == state || (prev == 0 && state == 1) {
		return
	}
	key := m.o.Namespace + "/" + m.o.StatefulSet
	log := vlog.Pick(ctx, m.log)
	if state == 2 {
		log.Warnw(LogUsageUnavailable, "statefulset", key, "why", why)
		m.event(set, corev1.EventTypeWarning, ReasonUsageUnavailable,
			"usage of the adapter pods unknown (%s): cpu and memory triggers wait, the fit keeps the size", why)
		return
	}
	log.Infow(LogUsageAvailable, "statefulset", key, "pods", fresh)
	m.event(set, corev1.EventTypeNormal, ReasonUsageAvailable,
		"usage of the adapter pods measured again (%d pod(s) with a fresh sample)", fresh)
}

func (m *MeasuredUsage) event(set *appsv1.StatefulSet, typ, reason, format string, args ...any) {
	if m.o.Recorder == nil {
		return
	}
	var obj runtime.Object = set
	if set == nil {
		obj = &corev1.ObjectReference{Kind: "StatefulSet", APIVersion: "apps/v1", Namespace: m.o.Namespace, Name: m.o.StatefulSet}
	}
	m.o.Recorder.Event(obj, typ, reason, bounded.Cut(fmt.Sprintf(format, args...), bounded.EventLen))
}

func (m *MeasuredUsage) statefulSet(ctx context.Context) (*appsv1.StatefulSet, error) {
	if get := m.o.Cache.GetStatefulSet; get != nil {
		return get(m.o.Namespace, m.o.StatefulSet)
	}
	return m.o.Client.AppsV1().StatefulSets(m.o.Namespace).Get(ctx, m.o.StatefulSet, metav1.GetOptions{})
}

func (m *MeasuredUsage) listPods(ctx context.Context) ([]*corev1.Pod, error) {
	if list := m.o.Cache.ListPods; list != nil {
		return list(m.o.Namespace)
	}
	l, err := m.o.Client.CoreV1().Pods(m.o.Namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	out := make([]*corev1.Pod, len(l.Items))
	for i := range l.Items {
		out[i] = &l.Items[i]
	}
	return out, nil
}
