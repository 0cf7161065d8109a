// Package nomaxresourcecount implements NoMaxResourceCount, a scheduler filter
// for sources that cannot use more pods than they have resources, such as a
// Kafka consumer group, which leaves every consumer beyond the topic's
// partition count idle.
//
// The limit on the number of pods holding the source is the source's own
// resource count (vsched.ResourceCounter) when it reports one, and otherwise
// the NumPartitions argument. A source's own count wins because it is the
// truth about that source; NumPartitions is a cluster-wide guess. With neither
// the plugin has nothing to say and leaves itself out of the decision.
//
// Once the source spans as many pods as the limit, pods not holding it are
// rejected; pods already holding it always pass, so the source keeps growing
// on the pods it has. The plugin tells EvenPodSpread about the limit (package
// plugins/internal/podlimit), which then spreads the source over the pods it
// holds instead of counting pods it may never use as empty.
package nomaxresourcecount
