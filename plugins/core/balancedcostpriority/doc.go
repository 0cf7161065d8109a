// Package balancedcostpriority implements BalancedCostPriority, a scheduler
// score plugin that, for a source whose vreplicas have a cost
// (vsched.VReplicaCoster), prefers the pod whose slots and resources would
// be used most alike once the vreplica is there: a memory-heavy source goes
// to a pod with memory to spare and slots taken by light sources, rather
// than filling a pod's memory while its slots stay empty.
//
// With u the share used after the vreplica, in thousandths (0 to 1000,
// capped), of the pod's slots and of each resource the source costs
// something in, a pod scores
//
//	100 - (max u - min u) / 10     (rounded down; 0 at worst)
//
// so a pod used alike in every dimension scores 100 and one full in a
// dimension and empty in another scores 0. A source without a cost scores
// 100 everywhere. Like kube-scheduler's NodeResourcesBalancedAllocation,
// it weighs evenness, not fullness; packing is left to InUsePodPriority
// and best fit.
//
// It is not registered: config.BuildProfiles adds it with weight 1
// (framework.Defaults.CostScore) to the profile a source with a cost runs;
// see package podfitscosts. Weight 1 ranks it with pod spread, below the
// zone and node spread and InUsePodPriority of the default policy.
package balancedcostpriority
