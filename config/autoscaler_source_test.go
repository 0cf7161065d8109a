package config_test

import (
	"fmt"
	"testing"

	"github.com/vsched/vsched/config"
)

func TestAutoscalerSourceDrainMoveLimit(t *testing.T) {
	limits := func(perSource, perCycle int32) config.AutoscalerSource {
		return func() *config.AutoscalerConfig {
			c := config.DefaultAutoscalerConfig()
			c.MaxMovesPerSource, c.MaxMovesPerCycle = perSource, perCycle
			return c
		}
	}
	for _, tc := range []struct {
		name string
		src  config.AutoscalerSource
		want int32
	}{
		{"nil source: the defaults", nil, 10},
		{"nil result: the defaults", func() *config.AutoscalerConfig { return nil }, 10},
		{"per source", limits(3, 100), 3},
		{"never more than per cycle", limits(50, 20), 20},
		{"below 1: the defaults", limits(0, 100), 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.src.DrainMoveLimit(); got != tc.want {
				t.Errorf("DrainMoveLimit() = %d; want %d", got, tc.want)
			}
		})
	}
}

// The scheduler reads its drain move limit from the live config-autoscaler
// at each Schedule call (statefulset.Config.DrainMoveLimit).
func ExampleAutoscalerSource_DrainMoveLimit() {
	live := config.DefaultAutoscalerConfig()
	live.MaxMovesPerSource = 4
	src := config.AutoscalerSource(func() *config.AutoscalerConfig { return live })
	fmt.Println(src.DrainMoveLimit())
	// Output: 4
}
