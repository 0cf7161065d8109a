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
//		Informers: statefulset.InformersFromFactory(c.InformerFactory()), Lister: sources.List, ListerSynced: sources.HasSynced,
//		Clock: c.Clock(), ...})
//	err = c.Start(ctx)  // informers listed, watching, handlers synced
//	err = c.FailZone("a")
//	err = c.Sync(ctx)   // every handler has seen the failure
//
// Every mutator writes through the fake clientset and stamps a fresh,
// increasing resourceVersion, which the fake does not do itself. Sync uses
// those versions to wait, without sleeping, until every event handler
// registered through InformerFactory has processed the latest write of every
// object, and until every such registration's HasSynced holds: a scheduler
// built after Start is ready once Sync returns. Writes made directly
// through Client() are not tracked, except through the StatefulSet's scale
// subresource.
//
// A test that arranges the cluster by hand starts it with NoNodes and adds
// nodes with AddNode, creates single pods with CreatePod (bound to a named
// node or to none, at any ordinal), and writes spec.replicas with
// SetReplicas without the pods following, as before the StatefulSet
// controller acts; Options.PodResources gives the pod template, and so
// statefulset.TemplateResources, its resources.
//
// # The scale subresource
//
// The fake clientset does not serve subresources; the cluster serves
// statefulsets/scale itself. GetScale reads spec.replicas as an
// autoscaling/v1 Scale; UpdateScale writes it (a conflict when the Scale
// was read at an older resourceVersion), stamping a fresh version that Sync
// waits for, as for the cluster's own writes. The pods do not follow until
// Settle (or ScaleTo), as they would not until the StatefulSet controller
// acts; Replicas reports the size the pods last followed.
//
// # Lag and failures, for tests
//
// Hold(kind) holds back the watch events of pods, nodes or the StatefulSet
// from every informer until Release(kind) (ReleaseN lets the oldest few
// through): the clientset moves on, the informers' listers and handlers do
// not. While a kind is held, Sync waits only for the other kinds; after
// Release it waits for the held events too. Holding never overflows the
// fake watch: the cluster queues the events itself.
//
// Sources is the VPod store. It is independent of the cluster: a source's
// status lives beside the cluster, as custom resources would. Its lister
// (List) can lag: FreezeList keeps it at a snapshot until ThawList,
// FailList makes it fail, and SetSynced(false) makes it list nothing,
// without an error, as a lister does before its informer has synced
// (HasSynced reports it; Get, a read from the API server, never lags).
// Status writes (CommitPlacements) can fail on request: FailCommits(n,
// err) fails the next n with err, ConflictCommits(n) has another writer win
// the next n (the source moves to a new version and the write conflicts),
// and SetCommitHook sees, and may fail, every write. Put stores a source
// whole, spec and status at once, to arrange a state no controller's writes
// reach in one step. Each source version is a *vsched.PlainVPod.
//
// # Why it is public
//
// memcluster is part of vsched's API on purpose, not a test helper kept in
// internal/:
//
//   - the vsched command's simulate and explain, and a team's own vsched
//     built with cmd/vsched/app, run the scheduler and the autoscaler on it,
//     so it ships in those binaries;
//   - embedders test their controller's wiring (reconcile, status writes,
//     requeues, leader changes, lagging informers) against the real
//     scheduler with it, without a control plane, as the sample
//     controller's tests do;
//   - it imports only vsched, state and client-go's fake clientset and
//     informers (never the testing package), so linking it costs a program
//     nothing it does not link already.
//
// vsched's own fixtures do not belong here: they stay in _test.go files and
// framework/frameworktest.
package memcluster
