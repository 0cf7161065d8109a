package embedkit

import (
	"context"

	"k8s.io/client-go/tools/record"
	"knative.dev/pkg/configmap"

	"github.com/vsched/vsched/config"
	"github.com/vsched/vsched/framework"
	"github.com/vsched/vsched/plugins"
)

// LiveConfig is the configuration WatchConfigMaps keeps current.
type LiveConfig struct {
	// Profiles are for Options.Profiles.
	Profiles config.ProfilesSource
	// AutoscalerConfig is for Options.AutoscalerConfig.
	AutoscalerConfig config.AutoscalerSource
	// DrainMoveLimit is for Options.DrainMoveLimit: AutoscalerConfig's
	// move limit, read without copying the configuration.
	DrainMoveLimit func() int32
}

// WatchConfigMaps watches config-scheduler, config-descheduler and
// config-autoscaler in namespace through w (knative's
// informer.NewInformedWatcher(kube, namespace); start it before the
// scheduler decides). reg is the plugin registry (nil: the in-tree
// plugins). A rejected edit is logged and, with a recorder, reported as a
// Warning Event on the ConfigMap; the last good configuration stays in
// force.
func WatchConfigMaps(ctx context.Context, w configmap.Watcher, namespace string, reg *framework.Registry, recorder record.EventRecorder) (LiveConfig, error) {
	var reject config.RejectFunc
	if recorder != nil {
		reject = config.RecordRejections(recorder)
	}
	if reg == nil {
		// config links no plugin; embedkit stands in the in-tree ones.
		var err error
		if reg, err = plugins.NewInTreeRegistry(); err != nil {
			return LiveConfig{}, err
		}
	}
	store, err := config.NewProfilesStore(ctx, reg, config.Names{}, reject)
	if err != nil {
		return LiveConfig{}, err
	}
	store.WatchConfigs(w, namespace)
	astore := config.NewAutoscalerStore(ctx, "", reject)
	astore.WatchConfigs(w, namespace)
	return LiveConfig{Profiles: config.ProfilesFromStore(store), AutoscalerConfig: astore.Config, DrainMoveLimit: astore.DrainMoveLimit}, nil
}
