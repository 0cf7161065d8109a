package ekbtest

import (
	"slices"
	"strconv"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	eventingduckv1alpha1 "knative.dev/eventing/pkg/apis/duck/v1alpha1"
	"knative.dev/eventing/pkg/scheduler"

	kafkainternals "knative.dev/eventing-kafka-broker/control-plane/pkg/apis/internalskafkaeventing/v1alpha1"
	"knative.dev/eventing-kafka-broker/control-plane/pkg/reconciler/consumergroup"
)

// groups stands in for the ConsumerGroup informer and the API server: each
// write stores a copy at a new resource version.
type groups struct {
	mu    sync.Mutex
	byKey map[types.NamespacedName]*kafkainternals.ConsumerGroup
	rv    int
}

func newGroups() *groups {
	return &groups{byKey: map[types.NamespacedName]*kafkainternals.ConsumerGroup{}}
}

func (g *groups) write(key types.NamespacedName, change func(*kafkainternals.ConsumerGroup)) *kafkainternals.ConsumerGroup {
	g.mu.Lock()
	defer g.mu.Unlock()
	next := &kafkainternals.ConsumerGroup{ObjectMeta: metav1.ObjectMeta{
		Namespace: key.Namespace, Name: key.Name,
		Labels: map[string]string{kafkainternals.UserFacingResourceLabelSelector: consumergroup.KafkaSourceScheduler},
	}}
	if old := g.byKey[key]; old != nil {
		next = old.DeepCopy()
	}
	change(next)
	g.rv++
	next.ResourceVersion = strconv.Itoa(g.rv)
	g.byKey[key] = next
	return next
}

func (g *groups) get(key types.NamespacedName) *kafkainternals.ConsumerGroup {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.byKey[key]
}

// list is the VPodLister createKafkaScheduler builds: the groups as VPods.
func (g *groups) list() ([]scheduler.VPod, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	out := make([]scheduler.VPod, 0, len(g.byKey))
	for _, cg := range g.byKey {
		out = append(out, cg)
	}
	slices.SortFunc(out, func(a, b scheduler.VPod) int { return strings.Compare(a.GetKey().String(), b.GetKey().String()) })
	return out, nil
}

// evict does what eventing-kafka-broker's evictor does (its evict method is
// unexported): nothing for a group that is gone or not scheduled yet,
// otherwise the placement on the pod leaves the group's status.
func (g *groups) evict(calls *[]string) scheduler.Evictor {
	return func(pod *corev1.Pod, vpod scheduler.VPod, from *eventingduckv1alpha1.Placement) error {
		*calls = append(*calls, pod.Name+" "+vpod.GetKey().String()+" "+from.PodName+"="+strconv.Itoa(int(from.VReplicas)))
		cg := g.get(vpod.GetKey())
		if cg == nil || cg.IsNotScheduled() {
			return nil
		}
		g.write(vpod.GetKey(), func(cg *kafkainternals.ConsumerGroup) {
			cg.Status.Placements = slices.DeleteFunc(cg.Status.Placements, func(p eventingduckv1alpha1.Placement) bool {
				return p.PodName == from.PodName
			})
		})
		return nil
	}
}
