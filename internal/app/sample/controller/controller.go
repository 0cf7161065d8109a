package controller

import (
	"context"
	"fmt"
	"os"
	"slices"
	"time"

	"go.uber.org/zap"
	corev1 "k8s.io/api/core/v1"
	apierrs "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"knative.dev/pkg/configmap/informer"
	kcontroller "knative.dev/pkg/controller"
	kle "knative.dev/pkg/leaderelection"
	"knative.dev/pkg/logging"
	"knative.dev/pkg/system"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/autoscaler"
	"github.com/vsched/vsched/config"
	"github.com/vsched/vsched/embedkit"
	"github.com/vsched/vsched/internal/app/sample/apis/v1alpha1"

	"github.com/vsched/vsched/sourceautoscaler/signal"
	"github.com/vsched/vsched/statefulset"
	"github.com/vsched/vsched/usage"
)

// Component names the controller in leases, events and logs.
const Component = "sample-controller"

// Options configure Run.
type Options struct {
	// Namespace holds the StatefulSet, the ConfigMaps and the leases.
	Namespace string
	// StatefulSet is the adapter's StatefulSet (default "sample-adapter").
	StatefulSet string
	// Capacity is the most vreplicas one adapter pod holds (default 10).
	Capacity int32
	// SourceNamespace limits the sources watched; "" means all namespaces.
	SourceNamespace string
	// ResyncPeriod is the scheduler's and the informers' resync (default 5m).
	ResyncPeriod time.Duration
	// LeaderElect enables leader election through leases
	// (knative.dev/pkg/leaderelection, configured by config-leader-election).
	LeaderElect bool
	// Identity is this replica's identity in leader election (default:
	// POD_NAME, else hostname plus a random suffix).
	Identity string
	// Threadiness is the number of workers (default 2).
	Threadiness int
	// BindWait bounds how long a source needing new vreplicas waits for
	// the StatefulSet's new pods to be bound, so it spreads over all of
	// them (default 10s; negative: never wait).
	BindWait time.Duration
	// SourceSyncDelay is a testing aid: the source informer starts this
	// long after everything else, and Run does not wait for it to sync
	// before leader election, the scheduler and the autoscaler start, as
	// with a source informer whose first list is slow. Whatever runs in
	// that window must not act on the empty source list. 0 (the default)
	// starts it with the others and waits for it.
	SourceSyncDelay time.Duration
	// MetricsAddr is where the Prometheus endpoint (/metrics) and the
	// probes (/healthz, /readyz) listen; "" means nowhere.
	MetricsAddr string
	// SignalProviders, when given, turn on the source autoscaler: each
	// source's vreplicas follow its demand as the first provider measures
	// it (by the source's namespace/name), tuned by
	// config-source-autoscaler and the source's annotations, written
	// through the scale subresource (docs/source-autoscaler.md).
	SignalProviders []signal.Provider
	// Usage, when given, is the adapter pods' measured usage
	// (usage/metricsapi, --metrics-api): it feeds config-autoscaler's cpu
	// and memory triggers (policy: triggers).
	Usage usage.Reader

	Kube    kubernetes.Interface
	Dynamic dynamic.Interface
}

// The defaults of Options, which are also the command's flag defaults.
const (
	DefaultStatefulSet  = "sample-adapter"
	DefaultCapacity     = 10
	DefaultResyncPeriod = 5 * time.Minute
	DefaultBindWait     = 10 * time.Second
	DefaultThreadiness  = 2
)

func (o *Options) defaults() error {
	if o.Namespace == "" {
		return fmt.Errorf("a namespace is required")
	}
	if o.StatefulSet == "" {
		o.StatefulSet = DefaultStatefulSet
	}
	if o.Capacity == 0 {
		o.Capacity = DefaultCapacity
	}
	if o.ResyncPeriod == 0 {
		o.ResyncPeriod = DefaultResyncPeriod
	}
	if o.BindWait == 0 {
		o.BindWait = DefaultBindWait
	}
	if o.Threadiness == 0 {
		o.Threadiness = DefaultThreadiness
	}
	if o.Identity == "" {
		o.Identity = os.Getenv("POD_NAME")
	}
	if o.Kube == nil || o.Dynamic == nil {
		return fmt.Errorf("Kube and Dynamic clients are required")
	}
	return nil
}

// Run runs the controller until ctx is done.
func Run(ctx context.Context, o Options) error {
	if err := o.defaults(); err != nil {
		return err
	}
	// knative.dev/pkg's leader election and InformedWatcher read the system
	// namespace from the environment.
	if os.Getenv(system.NamespaceEnvKey) == "" {
		os.Setenv(system.NamespaceEnvKey, o.Namespace)
	}
	log := logging.FromContext(ctx).With(zap.String("statefulset", o.Namespace+"/"+o.StatefulSet))
	ctx = logging.WithLogger(ctx, log)

	// Events: rejected ConfigMaps, autoscaler decisions, moved sources.
	// The sink is not bound to a namespace: each Event goes to its
	// object's (a source's Events to the sources' namespace), which a sink
	// of o.Namespace would refuse.
	broadcaster := record.NewBroadcaster()
	broadcaster.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: o.Kube.CoreV1().Events(metav1.NamespaceAll)})
	defer broadcaster.Shutdown()
	w := &wiring{log: log, recorder: broadcaster.NewRecorder(scheme.Scheme, corev1.EventSource{Component: Component})}
	if err := w.observability(ctx, o); err != nil {
		return err
	}
	w.controller(ctx, o)
	if err := w.scheduler(ctx, o); err != nil {
		return err
	}
	defer w.sched.Close()
	ctx, err := w.leaderElection(ctx, o)
	if err != nil {
		return err
	}
	if err := w.start(ctx, o); err != nil {
		return err
	}
	go w.sched.Run(ctx)
	return w.impl.RunContext(ctx, o.Threadiness)
}

// wiring is what Run builds before it starts anything.
type wiring struct {
	log         *zap.SugaredLogger
	recorder    record.EventRecorder
	metrics     *metricsServer
	cmw         *informer.InformedWatcher
	live        embedkit.LiveConfig
	dynFactory  dynamicinformer.DynamicSharedInformerFactory
	srcInformer informers.GenericInformer
	kubeFactory informers.SharedInformerFactory
	r           *Reconciler
	impl        *kcontroller.Impl
	sched       *embedkit.Scheduler
	// sourceConfig is config-source-autoscaler, with SignalProviders.
	sourceConfig config.SourceAutoscalerSource
}

// observability starts the metrics listener and watches the live
// configuration: config-scheduler, config-descheduler, config-autoscaler (a
// rejected edit is an Event; the last good stays).
func (w *wiring) observability(ctx context.Context, o Options) error {
	var err error
	if w.metrics, err = newMetricsServer(); err != nil {
		return err
	}
	if o.MetricsAddr != "" {
		if err := w.metrics.serve(ctx, o.MetricsAddr); err != nil {
			return fmt.Errorf("metrics listener: %w", err)
		}
	}
	w.cmw = informer.NewInformedWatcher(o.Kube, o.Namespace)
	w.live, err = embedkit.WatchConfigMaps(ctx, w.cmw, o.Namespace, nil, w.recorder)
	w.watchSourceAutoscalerConfig(ctx, o)
	return err
}

// controller builds the sources' informer, through the dynamic client, and
// the reconciler's controller.
func (w *wiring) controller(ctx context.Context, o Options) {
	w.dynFactory = dynamicinformer.NewFilteredDynamicSharedInformerFactory(o.Dynamic, o.ResyncPeriod, o.SourceNamespace, nil)
	w.srcInformer = w.dynFactory.ForResource(v1alpha1.GroupVersionResource)
	// Set before the informer starts, which cannot fail then.
	_ = w.srcInformer.Informer().SetTransform(dropManagedFields)
	lister := w.srcInformer.Lister()
	w.r = &Reconciler{lister: lister, client: o.Dynamic.Resource(v1alpha1.GroupVersionResource), recorder: w.recorder}
	w.impl = kcontroller.NewContext(ctx, w.r, kcontroller.ControllerOptions{
		WorkQueueName: "SampleSources", Logger: w.log, Concurrency: o.Threadiness,
	})
	w.r.enqueueAll = func() {
		objs, err := lister.List(labels.Everything())
		if err != nil {
			return
		}
		for _, obj := range objs {
			w.impl.Enqueue(obj)
		}
	}
}

// scheduler builds the scheduler and its autoscaler and hands it to the
// reconciler.
func (w *wiring) scheduler(ctx context.Context, o Options) error {
	w.kubeFactory = informers.NewSharedInformerFactoryWithOptions(o.Kube, o.ResyncPeriod, informers.WithNamespace(o.Namespace))
	sched, err := embedkit.New(ctx, embedkit.Options{
		Namespace:   o.Namespace,
		StatefulSet: o.StatefulSet,
		Capacity:    o.Capacity,
		Informers:   statefulset.InformersFromFactory(w.kubeFactory),
		// The autoscaler reads the same caches.
		AutoscalerCache: autoscaler.CacheFromFactory(w.kubeFactory),
		Lister:          listSources(w.srcInformer.Lister()),
		ListerSynced:    w.srcInformer.Informer().HasSynced,
		FreshLister:     freshSources(ctx, o.Dynamic.Resource(v1alpha1.GroupVersionResource).Namespace(o.SourceNamespace)),
		Profiles:        w.live.Profiles,
		// Compaction: a source that must leave a draining pod is
		// requeued; its next Schedule moves it and the reconciler writes
		// the result in one status update.
		Requeue:          w.impl.EnqueueKey,
		Client:           o.Kube,
		AutoscalerConfig: w.live.AutoscalerConfig,
		DrainMoveLimit:   w.live.DrainMoveLimit,
		Recorder:         w.recorder,
		ResyncPeriod:     o.ResyncPeriod,
		MeterProvider:    w.metrics.meterProvider(),
		SourceAutoscaler: w.sourceAutoscaler(o),
		Usage:            o.Usage,
	})
	if err != nil {
		return err
	}
	w.sched, w.r.sched = sched, sched
	notReady := func() string { return readiness(sched.StatefulSet(), sched.HasSynced(), sched.StatefulSetMissing()) }
	w.metrics.notReady.Store(&notReady)
	w.r.bindWait, w.r.now = o.BindWait, time.Now
	// Read from the scheduler's own state, not the listers: a lister is
	// updated before the scheduler's handlers run, so it could show a pod
	// bound that Schedule does not know about yet.
	w.r.podsStarting = func() bool {
		return slices.ContainsFunc(sched.Pods(), func(p statefulset.PodView) bool { return !p.Exists || p.Node == "" })
	}
	if _, err := w.srcInformer.Informer().AddEventHandler(sched.SourceHandler(toVPod, w.impl.Enqueue)); err != nil {
		sched.Close()
		return err
	}
	if _, err := w.srcInformer.Informer().AddEventHandler(sched.SourceAutoscalerHandler(toAutoscaledSource)); err != nil {
		sched.Close()
		return err
	}
	return nil
}

// leaderElection returns ctx with knative's leader elector when
// Options.LeaderElect is set.
func (w *wiring) leaderElection(ctx context.Context, o Options) (context.Context, error) {
	if !o.LeaderElect {
		return ctx, nil
	}
	lecfg, err := leaderElectionConfig(ctx, o.Kube, o.Namespace)
	if err != nil {
		return nil, err
	}
	cc := lecfg.GetComponentConfig(Component)
	cc.Identity = o.Identity
	w.log.Infow("leader election enabled", "leaseDuration", cc.LeaseDuration.String(),
		"renewDeadline", cc.RenewDeadline.String(), "retryPeriod", cc.RetryPeriod.String(), "buckets", cc.Buckets)
	return kle.WithStandardLeaderElectorBuilder(ctx, o.Kube, cc), nil
}

// start starts the ConfigMap watcher and the informers, and waits for them
// (for the sources' unless Options.SourceSyncDelay holds them back).
func (w *wiring) start(ctx context.Context, o Options) error {
	if err := w.cmw.Start(ctx.Done()); err != nil {
		return fmt.Errorf("watching ConfigMaps: %w", err)
	}
	w.kubeFactory.Start(ctx.Done())
	for typ, ok := range w.kubeFactory.WaitForCacheSync(ctx.Done()) {
		if !ok {
			return fmt.Errorf("informer for %v did not sync", typ)
		}
	}
	if o.SourceSyncDelay > 0 {
		go startSourcesLate(ctx, w.dynFactory, o.SourceSyncDelay)
		w.log.Info("pod, node and StatefulSet informers synced; starting before the sources")
		return nil
	}
	if err := startSources(ctx, w.dynFactory); err != nil {
		return err
	}
	w.log.Info("informers synced; starting")
	return nil
}

// Log messages of the source informer's start.
const (
	LogSourcesHeldBack = "source informer held back (--source-sync-delay, a testing aid)"
	LogSourcesStarting = "source informer starting"
	LogSourcesSynced   = "source informer synced"
)

func startSources(ctx context.Context, f dynamicinformer.DynamicSharedInformerFactory) error {
	log := logging.FromContext(ctx)
	log.Info(LogSourcesStarting)
	f.Start(ctx.Done())
	for gvr, ok := range f.WaitForCacheSync(ctx.Done()) {
		if !ok {
			return fmt.Errorf("informer for %v did not sync", gvr)
		}
	}
	log.Info(LogSourcesSynced)
	return nil
}

// startSourcesLate starts the source informer after delay (Options.SourceSyncDelay).
func startSourcesLate(ctx context.Context, f dynamicinformer.DynamicSharedInformerFactory, delay time.Duration) {
	logging.FromContext(ctx).Infow(LogSourcesHeldBack, "delay", delay.String())
	select {
	case <-ctx.Done():
		return
	case <-time.After(delay):
	}
	if err := startSources(ctx, f); err != nil {
		logging.FromContext(ctx).Errorw("source informer", "error", err)
	}
}

// toVPod converts a source informer's object for the scheduler.
func toVPod(obj any) (vsched.VPod, bool) {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return nil, false
	}
	s, err := v1alpha1.FromUnstructured(u)
	return s, err == nil
}

// dropManagedFields is the source informer's transform: the controller
// never reads a source's managedFields, and they are a large share of each
// object the cache holds. A status written back from such a copy carries
// none, which the API server takes as unchanged.
func dropManagedFields(obj any) (any, error) {
	if u, ok := obj.(*unstructured.Unstructured); ok {
		u.SetManagedFields(nil)
	}
	return obj, nil
}

// listSources lists the sources the informer holds, for the scheduler.
func listSources(l cache.GenericLister) vsched.VPodLister {
	return embedkit.Lister(func() ([]runtime.Object, error) { return l.List(labels.Everything()) },
		func(obj runtime.Object) (vsched.VPod, error) {
			return v1alpha1.FromUnstructured(obj.(*unstructured.Unstructured))
		})
}

// freshSources lists the sources from the API server, a page at a time, for
// the first load of a leadership term: the informer's cache may not show yet
// what the previous leader wrote last.
func freshSources(ctx context.Context, client dynamic.ResourceInterface) vsched.VPodLister {
	return func() ([]vsched.VPod, error) {
		ctx, cancel := context.WithTimeout(ctx, time.Minute)
		defer cancel()
		var out []vsched.VPod
		opts := metav1.ListOptions{Limit: 500}
		for {
			list, err := client.List(ctx, opts)
			if err != nil {
				return nil, err
			}
			for i := range list.Items {
				list.Items[i].SetManagedFields(nil) // not read, and costly to convert
				s, err := v1alpha1.FromUnstructured(&list.Items[i])
				if err != nil {
					return nil, err
				}
				out = append(out, s)
			}
			if opts.Continue = list.GetContinue(); opts.Continue == "" {
				return out, nil
			}
		}
	}
}

// leaderElectionConfig reads config-leader-election (knative's format:
// lease-duration, renew-deadline, retry-period, buckets); absent means
// knative's defaults.
func leaderElectionConfig(ctx context.Context, kube kubernetes.Interface, ns string) (*kle.Config, error) {
	cm, err := kube.CoreV1().ConfigMaps(ns).Get(ctx, kle.ConfigMapName(), metav1.GetOptions{})
	if apierrs.IsNotFound(err) {
		cm = &corev1.ConfigMap{}
	} else if err != nil {
		return nil, fmt.Errorf("reading %s: %w", kle.ConfigMapName(), err)
	}
	c, err := kle.NewConfigFromConfigMap(cm)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", kle.ConfigMapName(), err)
	}
	return c, nil
}
