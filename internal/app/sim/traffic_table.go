package sim

import (
	"fmt"
	"strconv"
	"strings"
)

// writeTraffic writes a traffic step's polling intervals: the clock, the
// pods and pending vreplicas, and per source its signal, vreplicas and the
// source autoscaler's mode. Intervals where only the signal moved are left
// out (the JSON result has the same rows).
func writeTraffic(b *strings.Builder, ticks []TrafficTick) {
	if len(ticks) == 0 {
		return
	}
	var t table
	head := []string{"clock", "pods", "pending"}
	for _, s := range ticks[0].Sources {
		head = append(head, s.Source+" signal", "vreplicas", "mode")
	}
	t.row(head...)
	for _, tk := range ticks {
		cells := []string{tk.Clock, strconv.Itoa(int(tk.Pods)), strconv.Itoa(int(tk.Pending))}
		for _, s := range tk.Sources {
			cells = append(cells, fmt.Sprintf("%.4g", s.Signal), strconv.Itoa(int(s.VReplicas)), s.Mode)
		}
		t.row(cells...)
	}
	t.rightFrom(1, 3)
	b.WriteString("  traffic (the polling intervals where vreplicas, pods or pending changed, and the last):\n")
	t.write(b, "    ")
	peakPods, peakV := int32(0), int32(0)
	for _, tk := range ticks {
		peakPods = max(peakPods, tk.Pods)
		v := int32(0)
		for _, s := range tk.Sources {
			v += s.VReplicas
		}
		peakV = max(peakV, v)
	}
	fmt.Fprintf(b, "  traffic peak: %d pods, %d vreplicas\n", peakPods, peakV)
}
