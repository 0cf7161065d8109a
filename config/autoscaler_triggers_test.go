package config

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestParseTriggers(t *testing.T) {
	cfg, err := ParseAutoscalerConfigMapFromData(map[string]string{
		KeyPolicy: "triggers",
		KeyTriggers: `{"up": {"triggers": [{"type": "room", "usage": 70, "threshold": 80, "time": "10m", "limit": 90},
		                                  {"type": "memory", "usage": 70, "threshold": 80, "time": "10m"}], "cooldown": "5m"},
		               "down": {"triggers": [{"type": "cpu", "usage": 50, "threshold": 80, "time": "15m"}], "cooldown": "5m"}}`,
	})
	if err != nil {
		t.Fatal(err)
	}
	want := &Triggers{
		Up: TriggerList{Triggers: []Trigger{
			{Type: TriggerRoom, Usage: 70, Threshold: 80, Time: Duration{10 * time.Minute}, Limit: 90},
			{Type: TriggerMemory, Usage: 70, Threshold: 80, Time: Duration{10 * time.Minute}},
		}, Cooldown: Duration{5 * time.Minute}},
		Down: TriggerList{Triggers: []Trigger{{Type: TriggerCPU, Usage: 50, Threshold: 80, Time: Duration{15 * time.Minute}}}, Cooldown: Duration{5 * time.Minute}},
	}
	if cfg.Policy != PolicyTriggers {
		t.Errorf("policy %q", cfg.Policy)
	}
	if diff := cmp.Diff(want, cfg.Triggers); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestParseTriggersErrors(t *testing.T) {
	cases := []struct {
		name, value string
		want        []string
	}{
		{
			name:  "unknown field",
			value: `{"up": {"triggers": [{"type": "room", "usage": 70, "treshold": 80, "time": "1m"}]}}`,
			want:  []string{`config-autoscaler: data.triggers: Invalid value: `, `json: unknown field "up.triggers[0].treshold" (did you mean "threshold"?)`},
		},
		{
			name:  "bad duration",
			value: `{"up": {"triggers": [{"type": "room", "usage": 70, "threshold": 80, "time": "ten minutes"}]}}`,
			want:  []string{`config-autoscaler: data.triggers: Invalid value: `, `time: invalid duration "ten minutes"`},
		},
		{
			name: "out of bounds",
			value: `{"up": {"triggers": [{"type": "mem", "usage": 0, "threshold": 100, "time": "-1m", "limit": 2000}], "cooldown": "48h"},
			         "down": {"triggers": [{"type": "room", "usage": 150, "threshold": 50, "time": "1m", "limit": 90}]}}`,
			want: []string{
				`data.triggers.up.cooldown: Invalid value: "48h0m0s": must be between 0 and 24h0m0s`,
				`data.triggers.up.triggers[0].type: Unsupported value: "mem": supported values: "room", "cpu", "memory"`,
				`data.triggers.up.triggers[0].usage: Invalid value: 0: must be between 1 and 1000 (percent)`,
				`data.triggers.up.triggers[0].threshold: Invalid value: 100: must be between 0 and 99 (percent of the points)`,
				`data.triggers.up.triggers[0].time: Invalid value: "-1m0s": must be between 0 and 24h0m0s`,
				`data.triggers.up.triggers[0].limit: Invalid value: 2000: must be above usage (0) and at most 1000`,
				`data.triggers.down.triggers[0].usage: Invalid value: 150: must be between 1 and 100 (percent)`,
				`data.triggers.down.triggers[0].limit: Forbidden: a limit is for up triggers only`,
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseAutoscalerConfigMapFromData(map[string]string{KeyPolicy: "triggers", KeyTriggers: tc.value})
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error lacks %q:\n%v", w, err)
				}
			}
		})
	}
}

func TestParseHeadroom(t *testing.T) {
	cfg, err := ParseAutoscalerConfigMapFromData(map[string]string{KeyHeadroomSlots: "20", KeyHeadroomShare: "0.2", KeyHeadroomDownThreshold: "0.9"})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.HeadroomSlots != 20 || cfg.HeadroomShare != 0.2 || cfg.HeadroomDownThreshold != 0.9 {
		t.Errorf("headroom %d, %v, %v", cfg.HeadroomSlots, cfg.HeadroomShare, cfg.HeadroomDownThreshold)
	}
	if d := DefaultAutoscalerConfig(); d.HeadroomSlots != 0 || d.HeadroomShare != 0 || d.HeadroomDown() != 0.99 {
		t.Errorf("defaults %d, %v, %v", d.HeadroomSlots, d.HeadroomShare, d.HeadroomDownThreshold)
	}
	_, err = ParseAutoscalerConfigMapFromData(map[string]string{KeyHeadroomSlots: "-1", KeyHeadroomShare: "1", KeyHeadroomDownThreshold: "1.5"})
	for _, w := range []string{
		`data.headroom-slots: Invalid value: -1: must be at least 0`,
		`data.headroom-share: Invalid value: 1: must be at least 0 and less than 1 (a fraction of the slots: 0.2 is 20%)`,
		`data.headroom-down-threshold: Invalid value: 1.5: must be between 0 and 1 (0: the default, 0.99)`,
	} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("error lacks %q: %v", w, err)
		}
	}
}
