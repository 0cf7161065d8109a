package plugins

import (
	"github.com/vsched/vsched/framework"
	"github.com/vsched/vsched/plugins/core/availabilitynodepriority"
	"github.com/vsched/vsched/plugins/core/availabilityzonepriority"
	"github.com/vsched/vsched/plugins/core/balancedcostpriority"
	"github.com/vsched/vsched/plugins/core/balancedzonepriority"
	"github.com/vsched/vsched/plugins/core/evenpodspread"
	"github.com/vsched/vsched/plugins/core/evenzonespread"
	"github.com/vsched/vsched/plugins/core/inusepodpriority"
	"github.com/vsched/vsched/plugins/core/lowestordinalpriority"
	"github.com/vsched/vsched/plugins/core/podfitscosts"
	"github.com/vsched/vsched/plugins/core/podfitsresources"
	"github.com/vsched/vsched/plugins/core/removewithavailabilitynodepriority"
	"github.com/vsched/vsched/plugins/core/removewithavailabilityzonepriority"
	"github.com/vsched/vsched/plugins/core/removewithevenpodspreadpriority"
	"github.com/vsched/vsched/plugins/core/removewithhighestordinalpriority"
	"github.com/vsched/vsched/plugins/kafka/nomaxresourcecount"
)

// InTreeRegistrations returns the registration of every in-tree plugin.
func InTreeRegistrations() []framework.Registration {
	return []framework.Registration{
		// Scheduler (Place) plugins.
		podfitsresources.Spec.Registration(),
		evenpodspread.Spec.Registration(),
		evenzonespread.Spec.Registration(),
		availabilityzonepriority.Spec.Registration(),
		availabilitynodepriority.Spec.Registration(),
		balancedzonepriority.Spec.Registration(),
		inusepodpriority.Spec.Registration(),
		lowestordinalpriority.Spec.Registration(),
		nomaxresourcecount.Spec.Registration(),
		// Descheduler (Remove) plugins.
		removewithevenpodspreadpriority.Spec.Registration(),
		removewithavailabilitynodepriority.Spec.Registration(),
		removewithavailabilityzonepriority.Spec.Registration(),
		removewithhighestordinalpriority.Spec.Registration(),
	}
}

// NewInTreeRegistry returns a new registry holding every in-tree plugin and
// carrying vsched's default policy (InTreeDefaults). Each call returns an
// independent registry, which callers may extend with out-of-tree plugins
// (Registry.Merge keeps the default policy). The error reports two in-tree
// plugins sharing a name or alias, a programming error the package's tests
// rule out.
func NewInTreeRegistry() (*framework.Registry, error) {
	reg, err := framework.NewRegistry(InTreeRegistrations()...)
	if err != nil {
		return nil, err
	}
	reg.SetDefaults(InTreeDefaults())
	return reg, nil
}

// InTreeDefaults is vsched's default policy in a registry's terms:
// DefaultPlaceConfig and DefaultRemoveConfig, with PodFitsResources
// as the filter that keeps a scheduler profile within pod capacity, and
// PodFitsCosts and BalancedCostPriority as what a source with a cost per
// vreplica runs in addition (framework.Profile.WithCosts).
func InTreeDefaults() framework.Defaults {
	sched, desched := DefaultPlaceConfig(), DefaultRemoveConfig()
	return framework.Defaults{
		Filters:        sched.Predicates,
		Scores:         sched.Priorities,
		RemoveScores:   desched.Priorities,
		CapacityFilter: podfitsresources.Name,
		CostFilter:     podfitscosts.New(),
		CostScore:      balancedcostpriority.New(),
	}
}

// MustInTreeRegistry is NewInTreeRegistry for tests and program start-up,
// where a broken in-tree registry can only be a bug: it panics on error.
func MustInTreeRegistry() *framework.Registry {
	return must(NewInTreeRegistry())
}

func must(r *framework.Registry, err error) *framework.Registry {
	if err != nil {
		panic("plugins: in-tree registry: " + err.Error())
	}
	return r
}
