package sourceautoscaler_test

import (
	"context"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/types"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/vsched/vsched/sourceautoscaler"
	"github.com/vsched/vsched/sourceautoscaler/signal"
	"github.com/vsched/vsched/sourceautoscaler/signal/scripted"
)

// One provider measures two sources in one request per cycle; the counts
// that change are written through the embedder's callback.
func Example() {
	clk := clocktesting.NewFakeClock(time.Unix(1_000_000, 0))
	lag := scripted.New("lag", clk.Now)
	a, err := sourceautoscaler.New(sourceautoscaler.Options{
		Providers: []signal.Provider{lag},
		Writer: sourceautoscaler.WriterFunc(func(_ context.Context, key types.NamespacedName, n int32) error {
			fmt.Printf("write %s: %d vreplicas\n", key, n)
			return nil
		}),
		Clock: clk,
	})
	if err != nil {
		panic(err)
	}
	for _, src := range []struct {
		name string
		lag  float64
	}{{"orders", 450}, {"payments", 90}} {
		key := types.NamespacedName{Namespace: "shop", Name: src.name}
		lag.SetSeries(key.String(), scripted.Constant(src.lag))
		_ = a.Upsert(sourceautoscaler.Source{Key: key, VReplicas: 1})
	}
	st := a.Cycle(context.Background())
	rounds, _ := lag.Calls()
	fmt.Printf("%d sources decided, %d written, %d request\n", st.Due, st.Written, rounds)
	e, _ := a.Explain(types.NamespacedName{Namespace: "shop", Name: "orders"})
	fmt.Println(e.Decision.Explain())
	// Output:
	// write shop/orders: 5 vreplicas
	// 2 sources decided, 1 written, 1 request
	// 1 -> 5 vreplicas (panic): signal 450, stable average 450 asks 5, panic average 450 asks 5
}
