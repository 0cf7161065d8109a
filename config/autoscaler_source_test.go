package config_test

import (
	"context"
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

// A store's limit follows its live configuration, as the copy it hands out
// would give it, and a rejected edit leaves it as it was.
func TestAutoscalerStoreDrainMoveLimit(t *testing.T) {
	s := config.NewAutoscalerStore(context.Background(), "", nil)
	check := func(when string) {
		t.Helper()
		if got, want := s.DrainMoveLimit(), config.AutoscalerSource(s.Config).DrainMoveLimit(); got != want {
			t.Errorf("%s: DrainMoveLimit() = %d; the config's is %d", when, got, want)
		}
	}
	check("defaults")
	for _, step := range []struct {
		data map[string]string
		want int32
	}{
		{map[string]string{"max-moves-per-source": "3"}, 3},
		{map[string]string{"max-moves-per-source": "50", "max-moves-per-cycle": "20"}, 20},
		{map[string]string{"max-moves-per-source": "0"}, 20}, // rejected
	} {
		s.OnConfigChanged(cm(autoscalerCM, step.data))
		if got := s.DrainMoveLimit(); got != step.want {
			t.Errorf("after %v: DrainMoveLimit() = %d; want %d", step.data, got, step.want)
		}
		check(fmt.Sprint(step.data))
	}
}
