package kafka

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/vsched/vsched/sourceautoscaler/signal"
)

// lagRound is what one round learned from the brokers.
type lagRound struct {
	described kadm.DescribedGroups
	fetched   kadm.FetchOffsetsResponses
	start     kadm.ListedOffsets // nil unless InitialOffset is Earliest
	end       kadm.ListedOffsets
	earliest  bool
	// unknownIsNew measures a group the brokers do not know as one that
	// has committed nothing (Config.UnknownGroupIsNew).
	unknownIsNew bool
}

// round asks the brokers about every target's group at once: one
// DescribeGroups and one OffsetFetch per coordinator, then one Metadata and
// one ListOffsets per partition leader for the union of the topics (twice
// with Earliest, for the start offsets too).
func (p *LagProvider) round(ctx context.Context, targets []signal.Target) (*lagRound, error) {
	groups := make([]string, 0, len(targets))
	for _, t := range targets {
		groups = append(groups, groupOf(t))
	}
	slices.Sort(groups)
	groups = slices.Compact(groups)

	r := &lagRound{earliest: p.earliest, unknownIsNew: p.unknownIsNew}
	var err error
	if r.described, err = p.adm.DescribeGroups(ctx, groups...); roundFailed(err) {
		return nil, fmt.Errorf("kafka: describing %d groups: %w", len(groups), err)
	}
	r.fetched = p.adm.FetchManyOffsets(ctx, groups...)
	if err := fetchFailed(r.fetched); err != nil {
		return nil, fmt.Errorf("kafka: fetching the offsets of %d groups: %w", len(groups), err)
	}
	topics := r.topics(targets)
	if len(topics) == 0 {
		return r, nil
	}
	if r.end, err = p.adm.ListEndOffsets(ctx, topics...); roundFailed(err) {
		return nil, fmt.Errorf("kafka: listing the end offsets of %d topics: %w", len(topics), err)
	}
	if p.earliest {
		if r.start, err = p.adm.ListStartOffsets(ctx, topics...); roundFailed(err) {
			return nil, fmt.Errorf("kafka: listing the start offsets of %d topics: %w", len(topics), err)
		}
	}
	return r, nil
}

// roundFailed says whether err fails the whole round: shard errors that
// left some brokers answering only make their groups or topics unknown.
func roundFailed(err error) bool {
	var se *kadm.ShardErrors
	if errors.As(err, &se) {
		return se.AllFailed
	}
	return err != nil
}

// fetchFailed returns an error when no group's offsets could be fetched for
// a reason other than the group itself (a broker down, the context done).
func fetchFailed(fetched kadm.FetchOffsetsResponses) error {
	var first error
	for _, g := range fetched {
		if g.Err == nil || errors.Is(g.Err, kerr.GroupIDNotFound) {
			return nil
		}
		if first == nil {
			first = g.Err
		}
	}
	return first
}

// topics is the sorted union of the topics every target reads.
func (r *lagRound) topics(targets []signal.Target) []string {
	var all []string
	for _, t := range targets {
		all = append(all, r.groupTopics(groupOf(t), t.Topics)...)
	}
	slices.Sort(all)
	return slices.Compact(all)
}

// groupTopics is what a group reads: the target's topics when it names
// them, otherwise those its members are assigned and those it committed on.
func (r *lagRound) groupTopics(group string, named []string) []string {
	if len(named) > 0 {
		return named
	}
	set := kadm.TopicsSet{}
	if d, ok := r.described[group]; ok && d.Err == nil {
		set.Merge(d.AssignedPartitions())
	}
	if f, ok := r.fetched[group]; ok && f.Err == nil {
		set.Merge(f.CommittedPartitions())
	}
	topics := set.Topics()
	slices.Sort(topics)
	return topics
}

// known says whether the brokers know the group: it has committed offsets,
// or it has a live state. A group whose offsets could not be fetched is not
// known this round.
func (r *lagRound) known(group string) bool {
	f, ok := r.fetched[group]
	switch {
	case ok && f.Err == nil && len(f.Fetched) > 0:
		return true
	case ok && f.Err != nil && !errors.Is(f.Err, kerr.GroupIDNotFound):
		return false
	}
	d, ok := r.described[group]
	return ok && d.Err == nil && d.State != "Dead" && d.State != ""
}

// fetchFailed says whether the group's offsets could not be fetched for a
// reason other than the group being unknown.
func (r *lagRound) fetchFailed(group string) bool {
	f, ok := r.fetched[group]
	return !ok || f.Err != nil && !errors.Is(f.Err, kerr.GroupIDNotFound)
}

// addSat adds two non-negative lags, saturating at math.MaxInt64.
func addSat(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}
