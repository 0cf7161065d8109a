// Package availabilityzonepriority implements AvailabilityZonePriority, a
// scheduler score plugin that spreads a source's vreplicas evenly over
// availability zones, so that losing a zone loses as small a share of the
// source as possible.
//
// Zones are counted only when they host at least one candidate pod
// (framework.Cluster.SchedulableZones): a zone without pods of the
// StatefulSet, or with only cordoned nodes, cannot take a vreplica and must not
// make the source look uneven. Such zones never cause an error.
//
// With c the source's vreplicas in the pod's zone and Max the most in any
// counted zone, a pod scores
//
//	MaxScore * (Max + 1 - c) / (Max + 1)
//
// so pods in emptier zones score higher, and 0 when one more vreplica in its
// zone would make the skew between zones exceed MaxSkew (unless the zone holds
// the fewest, which never widens the skew).
//
// Two cases are settled without arithmetic:
//   - No counted zones (no node carries a zone label, or none hosting a
//     candidate does): every pod scores MaxScore. There is nothing to spread
//     over, and a constant score leaves the other plugins to decide.
//   - A pod whose node has no zone label while counted zones exist scores 0:
//     a vreplica there does nothing for zone availability, so zoned pods are
//     preferred.
package availabilityzonepriority
