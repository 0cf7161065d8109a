// Package memcluster is an in-memory Kubernetes cluster for vsched's tests,
// benchmarks and tools: nodes spread over zones, the StatefulSet whose pods
// hold vreplicas, and a store of sources (VPods) that commits placements the
// way a source controller's status write does.
//
// The cluster lives in client-go's fake clientset and is read through real
// shared informers, so code under test sees the same event stream, with the
// same asynchrony, as in a cluster:
//
//	c, err := memcluster.New(ctx, memcluster.Options{Zones: []string{"a", "b", "c"}, Replicas: 3, Capacity: 10})
//	sched, err := statefulset.New(ctx, statefulset.Config{
//		Namespace: c.Namespace(), Name: c.StatefulSetName(), Capacity: c.Capacity(),
//		InformerFactory: c.InformerFactory(), Lister: sources.List, ListerSynced: sources.HasSynced,
//		Clock: c.Clock(), ...})
//	err = c.Start(ctx)  // informers listed, watching, handlers synced
//	err = c.FailZone("a")
//	err = c.Sync(ctx)   // every handler has seen the failure
//
// Every mutator writes through the fake clientset and stamps a fresh,
// increasing resourceVersion, which the fake does not do itself. Sync uses
// those versions to wait, without sleeping, until every event handler
// registered through InformerFactory has processed the latest write of every
// object. Writes made directly through Client() are not tracked.
//
// Sources is the VPod store. It is independent of the cluster: a source's
// status lives beside the cluster, as custom resources would.
package memcluster
