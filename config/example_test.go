package config_test

import (
	"context"
	"fmt"

	"go.uber.org/zap"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"knative.dev/pkg/configmap"
	"knative.dev/pkg/logging"

	"github.com/vsched/vsched/config"
	"github.com/vsched/vsched/plugins"
)

func configMap(name string, data map[string]string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "knative-eventing", Name: name}, Data: data}
}

// ExampleNewStore wires the three ConfigMap stores to a configmap.Watcher
// (a controller passes its informed watcher; a static one serves here) and
// shows a bad edit rejected while the last good configuration stays.
func ExampleNewProfilesStore() {
	ctx := logging.WithLogger(context.Background(), zap.NewNop().Sugar())
	rejected := func(cm *corev1.ConfigMap, err error) { fmt.Println("rejected:", err) }

	profiles, err := config.NewProfilesStore(ctx, plugins.MustInTreeRegistry(), config.Names{}, rejected)
	if err != nil {
		panic(err)
	}
	autoscaling := config.NewAutoscalerStore(ctx, "", rejected)

	watcher := configmap.NewStaticWatcher(
		configMap(config.DefaultSchedulerConfigMapName, map[string]string{
			"predicates": `[{"Name": "PodFitsResources"}, {"Name": "EvenPodSpread", "Args": {"MaxSkew": 2}}]`,
			"priorities": `[{"Name": "LowestOrdinalPriority", "Weight": 2}]`,
		}),
		configMap(config.DefaultDeschedulerConfigMapName, map[string]string{
			"priorities": `[{"Name": "RemoveWithHighestOrdinalPriority"}]`,
		}),
		configMap("config-autoscaler", map[string]string{"min-replicas": "1", "max-replicas": "8"}),
	)
	profiles.WatchConfigs(watcher, "knative-eventing")
	autoscaling.WatchConfigs(watcher, "knative-eventing")
	if err := watcher.Start(ctx.Done()); err != nil {
		panic(err)
	}
	fmt.Println("predicates:", profiles.Profiles().Place.FilterNames())
	fmt.Println("autoscaler:", autoscaling.Config().MinReplicas, "to", autoscaling.Config().MaxReplicas, "pods")

	// A live edit with a misspelt plugin is rejected as a whole.
	profiles.OnConfigChanged(configMap(config.DefaultSchedulerConfigMapName, map[string]string{
		"predicates": `[{"Name": "PodFitsResources"}, {"Name": "EvenPodSpred"}]`,
	}))
	fmt.Println("predicates:", profiles.Profiles().Place.FilterNames())
	// Output:
	// predicates: [PodFitsResources EvenPodSpread]
	// autoscaler: 1 to 8 pods
	// rejected: config-scheduler: data.predicates[1].Name: Unsupported value: "EvenPodSpred": supported values: "EvenPodSpread", "EvenZoneSpread", "NoMaxResourceCount", "PodFitsResources" (did you mean "EvenPodSpread"?)
	// predicates: [PodFitsResources EvenPodSpread]
}
