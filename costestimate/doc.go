// Package costestimate estimates what one vreplica of each source costs
// in memory, CPU or any resource, from what the pods use (issue 23, item
// 2): a pod's measured usage, as metrics.k8s.io reports it, is shared among
// the sources on it, and each source's estimate is smoothed over rounds
// and bounded. An estimate can stand in for a declared cost
// (vsched.VReplicaCoster) where a source declares none.
//
// The estimator knows nothing of Kubernetes clients: the caller feeds it,
// per round, each pod's usage and the vreplicas of each source on it (the
// scheduler's placements). It imports only the root package.
package costestimate
