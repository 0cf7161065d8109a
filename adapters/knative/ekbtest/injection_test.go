package ekbtest

import (
	"context"

	"go.uber.org/zap"
	v1 "k8s.io/client-go/informers/core/v1"
	"knative.dev/eventing/pkg/scheduler"
	kubeclient "knative.dev/pkg/client/injection/kube/client"
	"knative.dev/pkg/client/injection/kube/informers/apps/v1/statefulset"
	"knative.dev/pkg/client/injection/kube/informers/core/v1/node"
	"knative.dev/pkg/logging"
	"knative.dev/pkg/system"

	"knative.dev/eventing-kafka-broker/control-plane/pkg/client/injection/informers/internalskafkaeventing/v1alpha1/consumergroup"
	cgreconciler "knative.dev/eventing-kafka-broker/control-plane/pkg/reconciler/consumergroup"

	kadapter "github.com/vsched/vsched/adapters/knative"
	vschedsts "github.com/vsched/vsched/statefulset"
)

// injectedScheduler is createStatefulSetScheduler as
// docs/eventing-kafka-broker.md writes it, with knative.dev/pkg's injected
// informers and client, so that the guide's code is compiled against the
// same packages the controller uses. evict stands for the controller's
// unexported newEvictor(...).evict. The tests run the same configuration
// through createStatefulSetScheduler on the in-memory cluster, as injection
// needs a running controller context.
var _ = injectedScheduler

func injectedScheduler(ctx context.Context, c cgreconciler.SchedulerConfig, lister scheduler.VPodLister, dispatcherPodInformer v1.PodInformer, evict scheduler.Evictor) cgreconciler.Scheduler {
	ss, err := kadapter.NewStatefulSet(ctx, kadapter.StatefulSetConfig{
		StatefulSetNamespace: system.Namespace(),
		StatefulSetName:      c.StatefulSetName,
		PodCapacity:          c.Capacity,
		RefreshPeriod:        c.RefreshPeriod,
		Evictor:              evict,
		VPodLister:           lister,
		PodLister:            dispatcherPodInformer.Lister().Pods(system.Namespace()),
		MinReplicas:          c.MinReplicas,
		// what vsched needs in addition:
		ListerSynced: consumergroup.Get(ctx).Informer().HasSynced,
		Informers: vschedsts.Informers{
			Pods:         dispatcherPodInformer.Informer(),
			Nodes:        node.Get(ctx).Informer(),
			StatefulSets: statefulset.Get(ctx).Informer(),
		},
		Client: kubeclient.Get(ctx),
	})
	if err != nil {
		logging.FromContext(ctx).Panicw("building the vsched scheduler", zap.Error(err))
	}
	go ss.Run(ctx)
	return cgreconciler.Scheduler{Scheduler: ss, SchedulerConfig: c}
}
