package kafka

import (
	"github.com/twmb/franz-go/pkg/kadm"

	"github.com/vsched/vsched/sourceautoscaler/signal"
)

// measure works out one group's sample from the round, reading each
// partition's state at the previous round from prev and writing this
// round's to next. A partition's lag is persistent when it lagged at the
// previous round too, its committed offset has not moved since, and a
// member of the group is assigned it: a group without members (scaled to
// zero) commits nothing, and its lag is demand, not a stuck message.
// At is left to the caller.
func (r *lagRound) measure(group string, named []string, prev, next map[partKey]partState) signal.Sample {
	if !r.known(group) && (!r.unknownIsNew || len(named) == 0 || r.fetchFailed(group)) {
		return signal.Sample{}
	}
	topics := r.groupTopics(group, named)
	if len(topics) == 0 {
		return signal.Sample{}
	}
	var assigned kadm.TopicsSet
	if d, ok := r.described[group]; ok && d.Err == nil {
		assigned = d.AssignedPartitions()
	}
	var s signal.Sample
	var total, persistent int64
	for _, topic := range topics {
		ends, ok := r.end[topic]
		if !ok || len(ends) == 0 {
			return signal.Sample{}
		}
		for part, end := range ends {
			if end.Err != nil || part < 0 {
				return signal.Sample{}
			}
			key := partKey{group, topic, part}
			commit := r.committed(group, topic, part)
			lag, ok := r.partitionLag(topic, part, commit, end.Offset)
			if !ok {
				return signal.Sample{}
			}
			next[key] = partState{commit: commit, lagged: lag > 0}
			s.Partitions++
			if lag == 0 {
				continue
			}
			s.PartitionsWithLag++
			total = addSat(total, lag)
			if was, seen := prev[key]; seen && was.lagged && was.commit == commit && assigned.Lookup(topic, part) {
				s.PersistentPartitions++
				persistent = addSat(persistent, lag)
			}
		}
	}
	s.Known = true
	s.Value = float64(total)
	s.PersistentLag = float64(persistent)
	return s
}

// committed is the group's committed offset on a partition, -1 for none.
func (r *lagRound) committed(group, topic string, part int32) int64 {
	if o, ok := r.fetched[group].Fetched.Lookup(topic, part); ok && o.Err == nil && o.At >= 0 {
		return o.At
	}
	return -1
}

// partitionLag is a partition's lag, given its committed offset (-1 for
// none) and end offset; false when the start offset it needs is missing.
func (r *lagRound) partitionLag(topic string, part int32, commit, end int64) (int64, bool) {
	from := commit
	if commit < 0 {
		if !r.earliest {
			return 0, true
		}
		start, ok := r.start[topic][part]
		if !ok || start.Err != nil {
			return 0, false
		}
		from = start.Offset
	}
	if from >= end {
		return 0, true
	}
	return end - from, true
}
