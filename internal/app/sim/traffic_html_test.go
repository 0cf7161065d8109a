package sim

import (
	"regexp"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestTrafficSVG pins the chart of two kept intervals: counts on one scale
// (top 7, the most vreplicas), the signal on its own (top 600), each line
// holding its value until the next interval.
func TestTrafficSVG(t *testing.T) {
	ticks := []TrafficTick{
		{Clock: "10s", Pods: 2, Sources: []SignalTick{{Source: "k/a", Signal: 300, VReplicas: 3}}},
		{Clock: "1m0s", Pods: 4, Pending: 1, Sources: []SignalTick{{Source: "k/a", Signal: 600, VReplicas: 7}}},
	}
	svg := string(trafficSVG(ticks))
	re := regexp.MustCompile(`points="([^"]*)"><title>([^<]*)</title>`)
	var got [][2]string
	for _, m := range re.FindAllStringSubmatch(svg, -1) {
		got = append(got, [2]string{m[2], m[1]})
	}
	want := [][2]string{
		{"pods", "44,107 708,107 708,69"},
		{"pending", "44,144 708,144 708,126"},
		{"k/a vreplicas", "44,88 708,88 708,12"},
		{"k/a signal (top 600)", "44,78 708,78 708,12"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("series (-want +got):\n%s", diff)
	}
	if trafficSVG(nil) != "" {
		t.Error("a step without traffic got a chart")
	}
}
