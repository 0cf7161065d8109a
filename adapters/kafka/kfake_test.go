package kafka

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// broker starts an in-process Kafka broker with the given topics
// (name -> partitions) and closes it when the test ends.
func broker(t *testing.T, topics map[string]int32) *kfake.Cluster {
	t.Helper()
	opts := []kfake.Opt{kfake.NumBrokers(1)}
	for name, parts := range topics {
		opts = append(opts, kfake.SeedTopics(parts, name))
	}
	c, err := kfake.NewCluster(opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// client returns a franz-go client of the broker, closed when the test ends.
func client(t *testing.T, c *kfake.Cluster, opts ...kgo.Opt) *kgo.Client {
	t.Helper()
	cl, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(c.ListenAddrs()...)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return cl
}

// produce writes n records to each given partition of a topic through a
// real producer.
func produce(t *testing.T, c *kfake.Cluster, topic string, perPartition map[int32]int) {
	t.Helper()
	cl := client(t, c, kgo.RecordPartitioner(kgo.ManualPartitioner()))
	var rs []*kgo.Record
	for part, n := range perPartition {
		for range n {
			rs = append(rs, &kgo.Record{Topic: topic, Partition: part, Value: []byte("x")})
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := cl.ProduceSync(ctx, rs...).FirstErr(); err != nil {
		t.Fatal(err)
	}
}

// consumer joins group on topic as a real member, reads want records, and
// stays in the group (assigned every partition, committing nothing by
// itself) until the test ends.
func consumer(t *testing.T, c *kfake.Cluster, group, topic string, want int) *kgo.Client {
	t.Helper()
	cl := client(t, c, kgo.ConsumerGroup(group), kgo.ConsumeTopics(topic), kgo.DisableAutoCommit(),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.FetchMaxWait(100*time.Millisecond))
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for got := 0; got < want; {
		fs := cl.PollFetches(ctx)
		if err := ctx.Err(); err != nil {
			t.Fatalf("group %s read %d of %d records: %v", group, got, want, err)
		}
		got += fs.NumRecords()
	}
	return cl
}

// commitAsMember commits offsets through a group member.
func commitAsMember(t *testing.T, cl *kgo.Client, topic string, at map[int32]int64) {
	t.Helper()
	offsets := map[string]map[int32]kgo.EpochOffset{topic: {}}
	for part, o := range at {
		offsets[topic][part] = kgo.EpochOffset{Epoch: -1, Offset: o}
	}
	var commitErr error
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cl.CommitOffsetsSync(ctx, offsets, func(_ *kgo.Client, _ *kmsg.OffsetCommitRequest, resp *kmsg.OffsetCommitResponse, err error) {
		if err != nil {
			commitErr = err
			return
		}
		for _, tp := range resp.Topics {
			for _, p := range tp.Partitions {
				if p.ErrorCode != 0 && commitErr == nil {
					commitErr = kerr.ErrorForCode(p.ErrorCode)
				}
			}
		}
	})
	if commitErr != nil {
		t.Fatal(commitErr)
	}
}

// commitAsAdmin commits offsets for a group that has no members.
func commitAsAdmin(t *testing.T, c *kfake.Cluster, group, topic string, at map[int32]int64) {
	t.Helper()
	var os kadm.Offsets
	for part, o := range at {
		os.AddOffset(topic, part, o, -1)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := kadm.NewClient(client(t, c)).CommitAllOffsets(ctx, group, os); err != nil {
		t.Fatal(err)
	}
}

// requestCounter counts the requests a client writes, by API key.
type requestCounter struct {
	mu sync.Mutex
	n  map[int16]int
}

func (r *requestCounter) OnBrokerWrite(_ kgo.BrokerMetadata, key int16, _ int, _, _ time.Duration, err error) {
	if err != nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.n == nil {
		r.n = map[int16]int{}
	}
	r.n[key]++
}

// take returns the counts of the requests that measure lag, and resets.
// Metadata and FindCoordinator are left out: the client caches what they
// answer and refreshes it by age, whatever the number of groups.
func (r *requestCounter) take() map[string]int {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := map[string]int{}
	for key, n := range r.n {
		switch kmsg.Key(key) {
		case kmsg.ListOffsets, kmsg.DescribeGroups, kmsg.OffsetFetch:
			out[kmsg.NameForKey(key)] = n
		}
	}
	r.n = nil
	return out
}
