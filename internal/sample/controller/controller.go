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
	"k8s.io/apimachinery/pkg/types"
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
	"github.com/vsched/vsched/config"
	"github.com/vsched/vsched/internal/sample/apis/v1alpha1"
	"github.com/vsched/vsched/plugins"

	"github.com/vsched/vsched/statefulset"
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

	// Events: rejected ConfigMaps, autoscaler decisions.
	broadcaster := record.NewBroadcaster()
	broadcaster.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: o.Kube.CoreV1().Events(o.Namespace)})
	defer broadcaster.Shutdown()
	recorder := broadcaster.NewRecorder(scheme.Scheme, corev1.EventSource{Component: Component})

	// Live configuration: config-scheduler, config-descheduler,
	// config-autoscaler (a rejected edit is an Event; the last good stays).
	cmw := informer.NewInformedWatcher(o.Kube, o.Namespace)
	reg, err := plugins.NewInTreeRegistry()
	if err != nil {
		return err
	}
	store, err := config.NewStore(ctx, reg, config.Names{}, config.RecordRejections(recorder))
	if err != nil {
		return err
	}
	store.WatchConfigs(cmw, o.Namespace)
	astore := config.NewAutoscalerStore(ctx, "", config.RecordRejections(recorder))
	astore.WatchConfigs(cmw, o.Namespace)

	// Sources, through the dynamic client.
	dynFactory := dynamicinformer.NewFilteredDynamicSharedInformerFactory(o.Dynamic, o.ResyncPeriod, o.SourceNamespace, nil)
	srcInformer := dynFactory.ForResource(v1alpha1.GroupVersionResource)
	lister := srcInformer.Lister()
	r := &Reconciler{lister: lister, client: o.Dynamic.Resource(v1alpha1.GroupVersionResource)}
	impl := kcontroller.NewContext(ctx, r, kcontroller.ControllerOptions{
		WorkQueueName: "SampleSources", Logger: log, Concurrency: o.Threadiness,
	})
	r.enqueueAll = func() {
		objs, err := lister.List(labels.Everything())
		if err != nil {
			return
		}
		for _, obj := range objs {
			impl.Enqueue(obj)
		}
	}

	kubeFactory := informers.NewSharedInformerFactoryWithOptions(o.Kube, o.ResyncPeriod, informers.WithNamespace(o.Namespace))
	sched, err := statefulset.New(ctx, statefulset.Config{
		Namespace:       o.Namespace,
		Name:            o.StatefulSet,
		Capacity:        o.Capacity,
		Lister:          listSources(lister),
		ListerSynced:    srcInformer.Informer().HasSynced,
		FreshLister:     freshSources(ctx, o.Dynamic.Resource(v1alpha1.GroupVersionResource).Namespace(o.SourceNamespace)),
		InformerFactory: kubeFactory,
		Profiles:        statefulset.ProfilesFromStore(store),
		Requeue:         impl.EnqueueKey,
		ResyncPeriod:    o.ResyncPeriod,
	})
	if err != nil {
		return err
	}
	defer sched.Close()
	r.sched = sched
	r.bindWait, r.now = o.BindWait, time.Now
	// Read from the scheduler's own state, not the listers: a lister is
	// updated before the scheduler's handlers run, so it could show a pod
	// bound that Schedule does not know about yet.
	r.podsStarting = func() bool {
		return slices.ContainsFunc(sched.Pods(), func(p statefulset.PodView) bool { return !p.Exists || p.Node == "" })
	}

	auto, err := statefulset.NewAutoscaler(ctx, statefulset.AutoscalerConfig{
		Scheduler: sched,
		Client:    o.Kube,
		Recorder:  recorder,
		Config:    astore.Config,
		// The drain protocol: requeue the source and return; its next
		// Schedule moves its vreplicas off the draining pods and the
		// reconciler writes the result in one status update.
		Requeue: func(_ context.Context, src types.NamespacedName) error {
			impl.EnqueueKey(src)
			return nil
		},
	})
	if err != nil {
		return err
	}

	if _, err := srcInformer.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) { observe(sched, obj); impl.Enqueue(obj) },
		UpdateFunc: func(_, obj any) {
			observe(sched, obj)
			impl.Enqueue(obj)
		},
		DeleteFunc: func(obj any) {
			if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = t.Obj
			}
			if u, ok := obj.(*unstructured.Unstructured); ok {
				sched.Forget(types.NamespacedName{Namespace: u.GetNamespace(), Name: u.GetName()})
			}
		},
	}); err != nil {
		return err
	}

	if o.LeaderElect {
		lecfg, err := leaderElectionConfig(ctx, o.Kube, o.Namespace)
		if err != nil {
			return err
		}
		cc := lecfg.GetComponentConfig(Component)
		cc.Identity = o.Identity
		ctx = kle.WithStandardLeaderElectorBuilder(ctx, o.Kube, cc)
		log.Infow("leader election enabled", "leaseDuration", cc.LeaseDuration.String(),
			"renewDeadline", cc.RenewDeadline.String(), "retryPeriod", cc.RetryPeriod.String(), "buckets", cc.Buckets)
	}

	if err := cmw.Start(ctx.Done()); err != nil {
		return fmt.Errorf("watching ConfigMaps: %w", err)
	}
	kubeFactory.Start(ctx.Done())
	for typ, ok := range kubeFactory.WaitForCacheSync(ctx.Done()) {
		if !ok {
			return fmt.Errorf("informer for %v did not sync", typ)
		}
	}
	if o.SourceSyncDelay > 0 {
		go startSourcesLate(ctx, dynFactory, o.SourceSyncDelay)
		log.Info("pod, node and StatefulSet informers synced; starting before the sources")
	} else if err := startSources(ctx, dynFactory); err != nil {
		return err
	} else {
		log.Info("informers synced; starting")
	}
	go sched.Run(ctx)
	go auto.Run(ctx)
	return impl.RunContext(ctx, o.Threadiness)
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

func observe(sched *statefulset.Scheduler, obj any) {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return
	}
	if s, err := v1alpha1.FromUnstructured(u); err == nil {
		sched.Observe(s)
	}
}

// listSources lists the sources the informer holds, for the scheduler.
func listSources(l cache.GenericLister) vsched.VPodLister {
	return func() ([]vsched.VPod, error) {
		objs, err := l.List(labels.Everything())
		if err != nil {
			return nil, err
		}
		out := make([]vsched.VPod, 0, len(objs))
		for _, obj := range objs {
			s, err := v1alpha1.FromUnstructured(obj.(*unstructured.Unstructured))
			if err != nil {
				return nil, err
			}
			out = append(out, s)
		}
		return out, nil
	}
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
