// Package podfitsresources implements PodFitsResources, the scheduler filter
// that rejects pods with no room for one more vreplica.
//
// A pod's free capacity is its capacity minus every source's vreplicas on it,
// committed or reserved, minus what the running decision has already placed
// there (framework.Decision.Free). A pod passes when that is at least 1.
//
// Every scheduler profile must contain this filter: the runtime's fast path
// skips full pods on the strength of it (framework.CapacityEnforcer).
package podfitsresources
