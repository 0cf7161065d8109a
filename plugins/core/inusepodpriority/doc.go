// Package inusepodpriority implements InUsePodPriority, a scheduler score
// plugin that prefers a pod already in use to an empty one, so that the
// StatefulSet's pods fill up before another is opened and the pods used stay
// close to ceil(vreplicas / capacity).
//
// A pod scores
//
//	MaxScore   when it holds vreplicas of any source, this one included
//	           (this decision's placements count too)
//	MinScore   when it is empty, or when one more vreplica of a source
//	           with a cost would strand slots there (Decision.Strands:
//	           leave more of its free slots where not even the cheapest
//	           source's vreplica fits), or take a place for the
//	           dearest vreplicas that dearer sources' waiting vreplicas
//	           need (Decision.TakesHeavyRoom)
//
// The score says nothing about how full a pod in use is: among pods scoring
// alike the runtime's tie-break takes the fullest (best fit), then the lowest
// ordinal, so empty pods open lowest first and the highest ordinals stay
// free for the autoscaler.
//
// The default policy weighs it below node spread and above pod spread
// (package config): the spread rules choose the node, and on that node a pod
// in use with room comes before an empty one, whatever pod spread prefers.
// A node then opens a pod only when its pods in use are full, so while a
// cluster is only placed onto every node has at most one partly filled pod
// and the pods used are at most ceil(vreplicas / capacity) plus the number
// of nodes. A pod that a vreplica with a cost would strand slots on counts
// as full for that vreplica, so a memory-heavy source does not close a pod
// to the light ones that could fill it: the pod stays for them, and the
// pods used stay within that bound in slots and each resource on a
// workload that fits (issue 23). Where the dearest vreplicas are many
// (about as many as a full pod has places for: a pod of 20 slots and 4Gi
// holds two of 1000Mi beside 100Mi ones), a cheaper vreplica also counts a
// pod as full where it would take such a place while the places left, in
// the pods in use and the pods the known sources will fill, are no more
// than the dearer sources' waiting vreplicas need. That holds as long as no filter rejects a
// node's pod in use while it admits an empty one there: the default policy's only filter is
// capacity, and a zone rule (EvenZoneSpread) treats a node's pods alike;
// a pod rule (EvenPodSpread as a predicate, NoMaxResourceCount) may open
// more. Pod spread still decides among a node's pods in use with room:
// every empty pod holds none of the source and scores the same there.
//
// The plugin is equivalence-aware under the runtime's class order (least
// free first): of two pods of a class, the first is in use whenever the
// other is.
package inusepodpriority
