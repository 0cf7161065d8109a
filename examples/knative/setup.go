package knative

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"knative.dev/pkg/controller"
	"knative.dev/pkg/logging"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/config"
	"github.com/vsched/vsched/embedkit"
	"github.com/vsched/vsched/plugins"
	"github.com/vsched/vsched/statefulset"
)

// Options configure Setup.
type Options struct {
	// Kube writes the sources' ConfigMaps (their status keys).
	Kube kubernetes.Interface
	// The adapter StatefulSet Namespace/StatefulSet, whose pods hold up
	// to Capacity vreplicas each.
	Namespace, StatefulSet string
	Capacity               int32
	// Cluster watches the StatefulSet's namespace (pods, StatefulSets) and
	// the nodes; Sources watches the sources' ConfigMaps. Start both after
	// Setup.
	Cluster, Sources informers.SharedInformerFactory
	// Profiles default to the in-tree default policy
	// (embedkit.WatchConfigMaps gives them live from config-scheduler).
	Profiles config.ProfilesSource
}

// Setup builds the scheduler and the controller that schedules the
// sources. Start the factories, then run the scheduler (sched.Run) and the
// controller (impl.Run), which promotes the reconciler.
func Setup(ctx context.Context, o Options) (*controller.Impl, *embedkit.Scheduler, error) {
	if o.Profiles == nil {
		reg, err := plugins.NewInTreeRegistry()
		if err != nil {
			return nil, nil, err
		}
		if o.Profiles, err = config.ProfilesFromConfigMaps(ctx, reg, nil, nil); err != nil {
			return nil, nil, err
		}
	}
	cms := o.Sources.Core().V1().ConfigMaps()
	r := &sourceReconciler{kube: o.Kube, lister: cms.Lister()}
	impl := controller.NewContext(ctx, r, controller.ControllerOptions{
		WorkQueueName: "vsched-sources", Logger: logging.FromContext(ctx),
	})
	list := embedkit.Lister(func() ([]*corev1.ConfigMap, error) { return cms.Lister().List(labels.Everything()) },
		func(cm *corev1.ConfigMap) (vsched.VPod, error) { return source{cm}, nil })
	sched, err := embedkit.New(ctx, embedkit.Options{
		Namespace: o.Namespace, StatefulSet: o.StatefulSet, Capacity: o.Capacity,
		Informers:    statefulset.InformersFromFactory(o.Cluster),
		Lister:       list,
		ListerSynced: cms.Informer().HasSynced,
		Profiles:     o.Profiles,
		Requeue:      impl.EnqueueKey,
	})
	if err != nil {
		return nil, nil, err
	}
	r.sched, r.enqueue = sched, impl.EnqueueKey
	if _, err := cms.Informer().AddEventHandler(sched.SourceHandler(asVPod, impl.Enqueue)); err != nil {
		return nil, nil, err
	}
	return impl, sched, nil
}
