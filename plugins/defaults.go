package plugins

import (
	"github.com/vsched/vsched/config"
	"github.com/vsched/vsched/framework"
	"github.com/vsched/vsched/plugins/core/availabilitynodepriority"
	"github.com/vsched/vsched/plugins/core/availabilityzonepriority"
	"github.com/vsched/vsched/plugins/core/evenpodspread"
	"github.com/vsched/vsched/plugins/core/inusepodpriority"
	"github.com/vsched/vsched/plugins/core/podfitsresources"
	"github.com/vsched/vsched/plugins/core/removewithavailabilitynodepriority"
	"github.com/vsched/vsched/plugins/core/removewithavailabilityzonepriority"
	"github.com/vsched/vsched/plugins/core/removewithevenpodspreadpriority"
	"github.com/vsched/vsched/plugins/core/removewithhighestordinalpriority"
)

// DefaultPlaceConfig returns the scheduler policy used when
// config-scheduler is absent or empty (and, key by key, for a key it does
// not set):
//
//	predicates: [{"Name": "PodFitsResources"}]
//	priorities: [{"Name": "AvailabilityZonePriority", "Weight": 10, "Args": {"MaxSkew": 1}},
//	             {"Name": "AvailabilityNodePriority", "Weight": 4, "Args": {"MaxSkew": 1}},
//	             {"Name": "InUsePodPriority", "Weight": 2},
//	             {"Name": "EvenPodSpread", "Weight": 1, "Args": {"MaxSkew": 1}}]
//
// The only hard rule is capacity, so a source is never left pending while
// any pod has room. Among the pods with room the weights rank, strictly in
// this order: spreading over zones, then over nodes, then a pod in use
// before an empty one, then spreading over the pods in use; the runtime's
// tie-break then takes the fullest pod (best fit), then the lowest ordinal.
// With MaxSkew 1 a spread priority scores 100 on a least-loaded domain and
// at most 9 elsewhere (package spread), a gap of 91; InUsePodPriority scores
// 100 or 0, a gap of 100; and each weight times its gap exceeds the weights
// below it times 100 together:
//
//	zones  10*91 = 910 > (4+2+1)*100 = 700
//	nodes   4*91 = 364 > (2+1)*100   = 300
//	in use 2*100 = 200 > 1*100       = 100
//
// whatever the counts and the cluster's shape. EvenPodSpread scores every
// empty pod 100 (it holds none of the source), so it only ranks pods in
// use. A node therefore opens a pod only when its pods in use are full:
// while vreplicas are only added, every node has at most one partly filled
// pod, and the pods used are at most ceil(vreplicas / capacity) plus the
// nodes. Empty pods open lowest ordinal first, so the highest ordinals stay
// free for the autoscaler to remove. docs/scheduling.md explains the choice.
//
// Each call returns a new value the caller may modify.
func DefaultPlaceConfig() *config.PlaceConfig {
	return &config.PlaceConfig{
		ConfigMap: config.DefaultSchedulerConfigMapName,
		Predicates: []framework.PluginConfig{
			{Name: podfitsresources.Name},
		},
		Priorities: []framework.PluginConfig{
			weighted(availabilityzonepriority.Name, 10, maxSkew1),
			weighted(availabilitynodepriority.Name, 4, maxSkew1),
			weighted(inusepodpriority.Name, 2, ""),
			weighted(evenpodspread.Name, 1, maxSkew1),
		},
	}
}

// DefaultRemoveConfig returns the descheduler policy used when
// config-descheduler is absent or empty, the mirror image of the scheduler's:
//
//	priorities: [{"Name": "RemoveWithAvailabilityZonePriority", "Weight": 10, "Args": {"MaxSkew": 1}},
//	             {"Name": "RemoveWithAvailabilityNodePriority", "Weight": 4, "Args": {"MaxSkew": 1}},
//	             {"Name": "RemoveWithEvenPodSpreadPriority", "Weight": 2, "Args": {"MaxSkew": 1}},
//	             {"Name": "RemoveWithHighestOrdinalPriority", "Weight": 1}]
//
// A scale-down takes vreplicas from the most loaded zone, node and pod
// first, in the same strict order (package removal's bands), so the spread
// placing built survives it, and otherwise from the highest ordinals, which
// the autoscaler removes first.
//
// Each call returns a new value the caller may modify.
func DefaultRemoveConfig() *config.RemoveConfig {
	return &config.RemoveConfig{
		ConfigMap: config.DefaultDeschedulerConfigMapName,
		Priorities: []framework.PluginConfig{
			weighted(removewithavailabilityzonepriority.Name, 10, maxSkew1),
			weighted(removewithavailabilitynodepriority.Name, 4, maxSkew1),
			weighted(removewithevenpodspreadpriority.Name, 2, maxSkew1),
			weighted(removewithhighestordinalpriority.Name, 1, ""),
		},
	}
}

// maxSkew1 is the Args of every spread plugin in the defaults, compacted as
// the parser stores Args.
const maxSkew1 = `{"MaxSkew":1}`

func weighted(name string, weight int32, args string) framework.PluginConfig {
	pc := framework.PluginConfig{Name: name, Weight: &weight}
	if args != "" {
		pc.Args = []byte(args)
	}
	return pc
}
