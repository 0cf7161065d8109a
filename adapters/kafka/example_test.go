package kafka_test

import (
	"context"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"k8s.io/apimachinery/pkg/types"

	"github.com/vsched/vsched/adapters/kafka"
	"github.com/vsched/vsched/sourceautoscaler/signal"
)

// An in-process broker stands in for Kafka: a topic of two partitions with
// 5 records each, and a group that committed 2 on partition 0 and nothing
// on partition 1.
func ExampleLagProvider() {
	cluster, _ := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(2, "orders"))
	defer cluster.Close()
	cl, _ := kgo.NewClient(kgo.SeedBrokers(cluster.ListenAddrs()...), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for i := range 10 {
		cl.ProduceSync(ctx, &kgo.Record{Topic: "orders", Partition: int32(i % 2), Value: []byte("x")})
	}
	var committed kadm.Offsets
	committed.AddOffset("orders", 0, 2, -1)
	_ = kadm.NewClient(cl).CommitAllOffsets(ctx, "orders-consumer", committed)

	p, err := kafka.NewLagProvider(kafka.Config{Client: cl, InitialOffset: kafka.Earliest})
	if err != nil {
		fmt.Println(err)
		return
	}
	targets := []signal.Target{
		{Key: types.NamespacedName{Namespace: "shop", Name: "orders"}, ID: "orders-consumer"},
		{Key: types.NamespacedName{Namespace: "shop", Name: "new"}, ID: "never-seen"},
	}
	out := make([]signal.Sample, len(targets))
	if err := p.Fetch(ctx, targets, out); err != nil {
		fmt.Println(err)
		return
	}
	for i, s := range out {
		fmt.Printf("%s: known=%t lag=%v partitions=%d with lag=%d\n", targets[i].Key, s.Known, s.Value, s.Partitions, s.PartitionsWithLag)
	}
	// Output:
	// shop/orders: known=true lag=8 partitions=2 with lag=2
	// shop/new: known=false lag=0 partitions=0 with lag=0
}
