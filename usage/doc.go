// Package usage is the contract between what measures the adapter pods'
// resource usage and what acts on it.
//
// A Reader answers with one Sample per pod it has a measurement for:
// metrics.k8s.io (metrics-server) in a cluster, memcluster in tests, the
// simulator's scenarios. The consumers are the autoscaler's cpu and memory
// triggers (through Sum), the cost estimator (costestimate), which shares a
// pod's usage among the sources on it, and the hot-pod detector, which moves
// vreplicas off a pod that stays over a limit.
//
// A measurement is a point in time: a consumer compares Sample.Time with
// its clock and treats an old sample as unknown (Stale), as it does a pod
// missing from the answer and a Reader that fails. Unknown usage never
// moves a vreplica or resizes the StatefulSet; the fit stays in charge.
package usage
