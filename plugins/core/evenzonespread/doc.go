// Package evenzonespread implements EvenZoneSpread, a scheduler filter that
// makes zone spread a hard rule: a vreplica is never placed where it would
// leave the source's vreplicas more uneven across zones than MaxSkew. It is
// the vsched counterpart of a topology spread constraint on
// topology.kubernetes.io/zone with whenUnsatisfiable: DoNotSchedule;
// AvailabilityZonePriority is the soft (ScheduleAnyway) one, and the two go
// well together.
//
// The zones counted are framework.Decision.ZoneSpreadStats': those hosting a
// candidate pod, and, while a scale-up is in flight (an ordinal below the
// StatefulSet's replicas has no bound pod yet), every zone with a schedulable
// node, where the new pods may land. Without the second set a source created
// as the StatefulSet grows from 0 would be placed on the first pods bound,
// all in one zone, and stay there. With it, the source takes what the spread
// allows and the rest stays pending until the new pods are bound; the
// autoscaler, which simulates the new pods in their zones, does not scale
// further for it. A zone whose nodes are all cordoned or NotReady is not
// counted, so a failed zone never blocks the others.
//
// One more vreplica on pod p, in zone z holding c of the source's vreplicas,
// is rejected when the skew (the most minus the fewest in a counted zone)
// would then exceed MaxSkew, unless z holds the fewest: adding to a
// least-loaded zone never widens the skew, and allowing it lets a source that
// is already uneven (it was placed while a zone was down) even out instead of
// being stuck.
//
// A pod whose node has no zone label is rejected while any zone is counted:
// a vreplica there cannot be accounted to a zone, as Kubernetes treats nodes
// without the topology key under DoNotSchedule. With no zone counted (no node
// carries the label) every pod passes.
//
// The rule is judged against the zones as they are now, so a source placed
// while a zone was down is uneven once the zone is back. The plugin is a
// framework.Rebalancer: its Misplaced names the highest ordinal holding the
// source in a most-loaded counted zone, and the scheduler moves vreplicas
// from there, through the profile, until the skew is within MaxSkew again
// or no pod takes them.
//
// Being hard, the rule keeps vreplicas pending when a counted zone cannot get
// pods: use it where the StatefulSet's pods can run in every zone that has
// schedulable nodes.
//
// A Run that keeps filter verdicts (framework.FilterInputs) filters a
// candidate again when its zone changed or when the highest count a zone
// may hold and still take one (spread.Bound; with MaxSkew 1 the zones'
// Min) moved, and then decides from that bound (framework.SummaryFilter)
// without reading the zone spread's summary again. Placing 1,000
// vreplicas on the bounds cluster with the zone-hard profile, the filter
// runs 13.0 times a step at about 83 instructions (issue 21; 18.2 times at
// about 149 before).
package evenzonespread
