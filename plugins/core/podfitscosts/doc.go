// Package podfitscosts implements PodFitsCosts, the scheduler filter that
// keeps every pod within its resources (memory, CPU, any named resource)
// for a source whose vreplicas have a cost (vsched.VReplicaCoster).
//
// A pod passes when, in every resource the source costs something in, what
// the pod has left (framework.Decision.ResourceFree: its capacity minus
// every source's use, committed or reserved, minus what this decision
// already placed there) is at least one vreplica's cost. A source without
// a cost passes everywhere: it adds nothing to any resource.
//
// The plugin is not registered and no ConfigMap names it: the in-tree
// registry's default policy carries it (framework.Defaults.CostFilter) and
// config.BuildProfiles adds it to the variant of the scheduler profile that
// a source with a cost runs (framework.Profile.WithCosts). A source without
// a cost runs the configured profile, and its fast path, exactly as before;
// the costed variant evaluates every candidate pod, since pods with the same
// free slots may differ in free memory.
package podfitscosts
