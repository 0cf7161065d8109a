package controllerruntime

import (
	"context"
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/record"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/source"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/autoscaler"
	"github.com/vsched/vsched/config"
	"github.com/vsched/vsched/embedkit"
	"github.com/vsched/vsched/plugins"
	"github.com/vsched/vsched/statefulset"
)

// Options configure Setup.
type Options struct {
	// Namespace and StatefulSet name the adapter's StatefulSet; Capacity
	// is the most vreplicas one of its pods holds.
	Namespace, StatefulSet string
	Capacity               int32
	// Kube enables the autoscaler, which writes the StatefulSet's scale
	// subresource (kubernetes.NewForConfig(mgr.GetConfig())). nil: none.
	Kube kubernetes.Interface
	// Profiles default to the in-tree default policy; AutoscalerConfig
	// to config-autoscaler's defaults (embedkit.WatchConfigMaps gives both
	// live from the ConfigMaps).
	Profiles         config.ProfilesSource
	AutoscalerConfig config.AutoscalerSource
	// Recorder receives the autoscaler's Events (mgr.GetEventRecorderFor).
	Recorder record.EventRecorder
	// APIReader lists the sources for a leadership term's first load,
	// past the cache; nil means mgr.GetAPIReader().
	APIReader client.Reader
}

// Setup embeds the scheduler and its autoscaler in mgr, on mgr's cache, and
// registers the Source controller. Start mgr afterwards.
func Setup(ctx context.Context, mgr manager.Manager, o Options) (*embedkit.Scheduler, error) {
	c := mgr.GetCache()
	inf, err := informers(ctx, c)
	if err != nil {
		return nil, err
	}
	sources, err := c.GetInformer(ctx, &Source{})
	if err != nil {
		return nil, err
	}
	if err := o.defaults(ctx, mgr); err != nil {
		return nil, err
	}
	requeue := make(chan event.GenericEvent)
	sched, err := embedkit.New(ctx, embedkit.Options{
		Namespace: o.Namespace, StatefulSet: o.StatefulSet, Capacity: o.Capacity,
		Informers:       inf,
		AutoscalerCache: autoscalerCache(ctx, c),
		Lister:          listSources(c),
		ListerSynced:    sources.HasSynced,
		// A term's first load reads the API server, not the cache.
		FreshLister: listSources(o.APIReader),
		Profiles:    o.Profiles, AutoscalerConfig: o.AutoscalerConfig,
		Requeue: requeueTo(ctx, requeue),
		Client:  o.Kube, Recorder: o.Recorder,
		Logger: mgr.GetLogger().WithName("vsched"),
		// The manager runs the controller and the runnable below only on
		// the elected replica, and exits when it loses the election.
		AlwaysLeader: true,
	})
	if err != nil {
		return nil, err
	}
	if _, err := sources.AddEventHandler(sched.SourceHandler(asVPod, nil)); err != nil {
		return nil, err
	}
	if err := mgr.Add(manager.RunnableFunc(func(ctx context.Context) error {
		sched.Run(ctx)
		return nil
	})); err != nil {
		return nil, err
	}
	err = ctrl.NewControllerManagedBy(mgr).For(&Source{}).
		WatchesRawSource(source.Channel(requeue, &handler.EnqueueRequestForObject{})).
		Complete(&reconciler{client: mgr.GetClient(), sched: sched})
	return sched, err
}

// defaults fills in the options left unset: the in-tree default policy and
// the manager's API reader.
func (o *Options) defaults(ctx context.Context, mgr manager.Manager) error {
	if o.Profiles == nil {
		reg, err := plugins.NewInTreeRegistry()
		if err != nil {
			return err
		}
		if o.Profiles, err = config.ProfilesFromConfigMaps(ctx, reg, nil, nil); err != nil {
			return err
		}
	}
	if o.APIReader == nil {
		o.APIReader = mgr.GetAPIReader()
	}
	return nil
}

// requeueTo is the scheduler's Requeue: it sends the source to the
// controller through ch. Requeue must not block, and the channel's reader
// is the controller, which runs only on the leader: each send waits in a
// goroutine of its own, until ctx ends.
func requeueTo(ctx context.Context, ch chan<- event.GenericEvent) statefulset.EnqueueFunc {
	return func(k types.NamespacedName) {
		go func() {
			select {
			case ch <- event.GenericEvent{Object: &Source{ObjectMeta: objectMeta(k)}}:
			case <-ctx.Done():
			}
		}()
	}
}

// informers are the scheduler's pods, nodes and StatefulSet from the
// manager's cache: controller-runtime's cache.Informer implements
// statefulset.Informer.
func informers(ctx context.Context, c cache.Cache) (statefulset.Informers, error) {
	var inf statefulset.Informers
	for _, f := range []struct {
		obj client.Object
		to  *statefulset.Informer
	}{{&corev1.Pod{}, &inf.Pods}, {&corev1.Node{}, &inf.Nodes}, {&appsv1.StatefulSet{}, &inf.StatefulSets}} {
		i, err := c.GetInformer(ctx, f.obj)
		if err != nil {
			return inf, fmt.Errorf("informer for %T: %w", f.obj, err)
		}
		*f.to = i
	}
	return inf, nil
}

// autoscalerCache is the autoscaler's reads of the pods and the StatefulSet,
// from the manager's cache.
func autoscalerCache(ctx context.Context, c cache.Cache) autoscaler.Cache {
	return autoscaler.Cache{
		ListPods: func(ns string) ([]*corev1.Pod, error) {
			var l corev1.PodList
			if err := c.List(ctx, &l, client.InNamespace(ns)); err != nil {
				return nil, err
			}
			out := make([]*corev1.Pod, len(l.Items))
			for i := range l.Items {
				out[i] = &l.Items[i]
			}
			return out, nil
		},
		GetStatefulSet: func(ns, name string) (*appsv1.StatefulSet, error) {
			var set appsv1.StatefulSet
			err := c.Get(ctx, types.NamespacedName{Namespace: ns, Name: name}, &set)
			return &set, err
		},
	}
}

// listSources lists every Source through r (the cache, or the API reader).
func listSources(r client.Reader) vsched.VPodLister {
	return embedkit.Lister(func() ([]Source, error) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		var l SourceList
		err := r.List(ctx, &l)
		return l.Items, err
	}, func(s Source) (vsched.VPod, error) { return &s, nil })
}

func asVPod(obj any) (vsched.VPod, bool) {
	s, ok := obj.(*Source)
	return s, ok
}
