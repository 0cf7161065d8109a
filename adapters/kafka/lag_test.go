package kafka

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/twmb/franz-go/pkg/kgo"
	"k8s.io/apimachinery/pkg/types"

	"github.com/vsched/vsched/internal/testkit/nettest"
	"github.com/vsched/vsched/sourceautoscaler/signal"
	"github.com/vsched/vsched/sourceautoscaler/signal/providertest"
)

var epoch = time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)

// steppingClock returns epoch, then a second later at every call.
func steppingClock() func() time.Time {
	n := 0
	return func() time.Time {
		n++
		return epoch.Add(time.Duration(n-1) * time.Second)
	}
}

func provider(t *testing.T, cfg Config) *LagProvider {
	t.Helper()
	p, err := NewLagProvider(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func target(group string, topics ...string) signal.Target {
	return signal.Target{Key: types.NamespacedName{Namespace: "ns", Name: group}, ID: group, Topics: topics}
}

// TestLagOverRounds drives real producers and consumer groups against the
// in-process broker and checks each round's exact lag, partitions,
// partitions with lag and persistent lag.
func TestLagOverRounds(t *testing.T) {
	c := broker(t, map[string]int32{"orders": 3, "payments": 2})
	produce(t, c, "orders", map[int32]int{0: 10, 1: 6, 2: 4})
	produce(t, c, "payments", map[int32]int{0: 5, 1: 5})
	member := consumer(t, c, "g-orders", "orders", 20)
	commitAsMember(t, member, "orders", map[int32]int64{0: 7, 1: 6, 2: 1})
	commitAsAdmin(t, c, "g-pay", "payments", map[int32]int64{0: 2})

	p := provider(t, Config{Client: client(t, c), Now: steppingClock()})
	targets := []signal.Target{target("g-orders"), target("g-pay"), target("nobody", "orders"), target("g-pay", "missing")}
	rounds := []struct {
		name   string
		before func()
		want   []signal.Sample
	}{{
		name: "first round: lag, nothing persistent yet",
		want: []signal.Sample{
			{Known: true, Value: 6, At: epoch, Partitions: 3, PartitionsWithLag: 2},
			{Known: true, Value: 3, At: epoch, Partitions: 2, PartitionsWithLag: 1},
			{}, {},
		},
	}, {
		name: "partition 0 moves on, 1 gets new records, 2 is stuck",
		before: func() {
			commitAsMember(t, member, "orders", map[int32]int64{0: 10, 1: 6, 2: 1})
			produce(t, c, "orders", map[int32]int{1: 2})
		},
		want: []signal.Sample{
			{Known: true, Value: 5, At: epoch.Add(time.Second), Partitions: 3, PartitionsWithLag: 2, PersistentLag: 3, PersistentPartitions: 1},
			{Known: true, Value: 3, At: epoch.Add(time.Second), Partitions: 2, PartitionsWithLag: 1},
			{}, {},
		},
	}, {
		name: "partition 1 now lags a second round without moving",
		want: []signal.Sample{
			{Known: true, Value: 5, At: epoch.Add(2 * time.Second), Partitions: 3, PartitionsWithLag: 2, PersistentLag: 5, PersistentPartitions: 2},
			{Known: true, Value: 3, At: epoch.Add(2 * time.Second), Partitions: 2, PartitionsWithLag: 1},
			{}, {},
		},
	}}
	for _, r := range rounds {
		if r.before != nil {
			r.before()
		}
		if diff := cmp.Diff(r.want, providertest.Fetch(t, p, targets)); diff != "" {
			t.Fatalf("%s: samples (-want +got):\n%s", r.name, diff)
		}
	}
}

// TestLagInitialOffset checks what a partition the group never committed
// on lags by: nothing with Latest, every record with Earliest; that named
// topics replace the group's own; and that a group the broker does not
// know is unknown, or with UnknownGroupIsNew and named topics, measured as
// a group that committed nothing.
func TestLagInitialOffset(t *testing.T) {
	c := broker(t, map[string]int32{"payments": 2, "refunds": 1})
	produce(t, c, "payments", map[int32]int{0: 5, 1: 5})
	produce(t, c, "refunds", map[int32]int{0: 4})
	commitAsAdmin(t, c, "g-pay", "payments", map[int32]int64{0: 2})
	targets := []signal.Target{target("g-pay"), target("g-pay", "payments", "refunds"), target("new", "refunds"), target("new")}
	cases := []struct {
		initial      string
		unknownIsNew bool
		want         []signal.Sample
	}{
		{Latest, false, []signal.Sample{
			{Known: true, Value: 3, At: epoch, Partitions: 2, PartitionsWithLag: 1},
			{Known: true, Value: 3, At: epoch, Partitions: 3, PartitionsWithLag: 1},
			{}, {},
		}},
		{Earliest, false, []signal.Sample{
			{Known: true, Value: 8, At: epoch, Partitions: 2, PartitionsWithLag: 2},
			{Known: true, Value: 12, At: epoch, Partitions: 3, PartitionsWithLag: 3},
			{}, {},
		}},
		{Latest, true, []signal.Sample{
			{Known: true, Value: 3, At: epoch, Partitions: 2, PartitionsWithLag: 1},
			{Known: true, Value: 3, At: epoch, Partitions: 3, PartitionsWithLag: 1},
			{Known: true, Value: 0, At: epoch, Partitions: 1}, {},
		}},
		{Earliest, true, []signal.Sample{
			{Known: true, Value: 8, At: epoch, Partitions: 2, PartitionsWithLag: 2},
			{Known: true, Value: 12, At: epoch, Partitions: 3, PartitionsWithLag: 3},
			{Known: true, Value: 4, At: epoch, Partitions: 1, PartitionsWithLag: 1}, {},
		}},
	}
	for _, tc := range cases {
		p := provider(t, Config{Client: client(t, c), InitialOffset: tc.initial, UnknownGroupIsNew: tc.unknownIsNew, Now: steppingClock()})
		if diff := cmp.Diff(tc.want, providertest.Fetch(t, p, targets)); diff != "" {
			t.Errorf("InitialOffset %s, UnknownGroupIsNew %t: samples (-want +got):\n%s", tc.initial, tc.unknownIsNew, diff)
		}
	}
}

// TestOneRoundPerFetch counts the requests of one Fetch for 30 sources and
// for one, and what asking once per source (as KEDA asks once per
// ScaledObject) makes.
func TestOneRoundPerFetch(t *testing.T) {
	const sources = 30
	c := broker(t, map[string]int32{"orders": 3})
	produce(t, c, "orders", map[int32]int{0: 10, 1: 10, 2: 10})
	var targets []signal.Target
	for i := range sources {
		group := fmt.Sprintf("g-%02d", i)
		commitAsAdmin(t, c, group, "orders", map[int32]int64{0: int64(i % 10)})
		targets = append(targets, target(group))
	}
	counter := &requestCounter{}
	p := provider(t, Config{Client: client(t, c, kgo.WithHooks(counter))})
	providertest.Fetch(t, p, targets) // finds the coordinators and the brokers once
	counter.take()

	got := providertest.Fetch(t, p, targets)
	batched := counter.take()
	for i, s := range got {
		if want := float64(10 - i%10); s.Value != want {
			t.Fatalf("target %d: lag %v, want %v", i, s.Value, want)
		}
	}
	for i := range targets {
		providertest.Fetch(t, p, targets[i:i+1])
	}
	perSource := counter.take()

	want := map[string]int{"ListOffsets": 1, "DescribeGroups": 1, "OffsetFetch": 1}
	if diff := cmp.Diff(want, batched); diff != "" {
		t.Errorf("requests of one Fetch for %d sources (-want +got):\n%s", sources, diff)
	}
	wantPerSource := map[string]int{}
	for k, n := range want {
		wantPerSource[k] = n * sources
	}
	if diff := cmp.Diff(wantPerSource, perSource); diff != "" {
		t.Errorf("requests of one Fetch per source (-want +got):\n%s", diff)
	}
	t.Logf("%d sources: one Fetch made %v requests; one query per source made %v", sources, batched, perSource)
}

// TestLagBrokerDown checks that a round against a broker that is gone, or
// one that accepts connections and never answers, fails as a whole, every
// sample unknown, and returns when ctx is done.
func TestLagBrokerDown(t *testing.T) {
	gone := broker(t, map[string]int32{"orders": 1})
	goneAddr := gone.ListenAddrs()
	gone.Close()
	cases := []struct {
		name  string
		addrs []string
		want  string
	}{
		{"closed", goneAddr, "connection refused"},
		{"silent", []string{nettest.Silent(t)}, "context deadline exceeded"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cl, err := kgo.NewClient(kgo.SeedBrokers(tc.addrs...), kgo.RetryTimeout(time.Minute))
			if err != nil {
				t.Fatal(err)
			}
			defer cl.Close()
			p := provider(t, Config{Client: cl})
			providertest.FailedRound(t, p, target("g-orders"), 300*time.Millisecond, 5*time.Second, tc.want)
		})
	}
}

func TestNewLagProviderErrors(t *testing.T) {
	cl, err := kgo.NewClient(kgo.SeedBrokers("127.0.0.1:1"))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	cases := []struct {
		cfg  Config
		want string
	}{
		{Config{}, "Config.Client: required"},
		{Config{Client: cl, InitialOffset: "oldest"}, `Config.InitialOffset: "oldest" is not one of "latest", "earliest"`},
	}
	for _, tc := range cases {
		_, err := NewLagProvider(tc.cfg)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("NewLagProvider(%+v) = %v, want an error containing %q", tc.cfg, err, tc.want)
		}
	}
	p, _ := NewLagProvider(Config{Client: cl})
	if err := p.Fetch(context.Background(), []signal.Target{target("g")}, nil); err == nil {
		t.Error("Fetch with fewer samples than targets returned no error")
	}
}
