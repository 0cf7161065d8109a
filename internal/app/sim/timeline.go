package sim

import (
	"fmt"
	"strconv"
	"strings"
)

// The timeline chart's geometry, in pixels.
const (
	timelineW    = 720
	timelineH    = 170
	timelineLeft = 44
	timelineTop  = 12
	timelineBot  = 26
)

// htmlTimeline is the chart of the run across its steps: replicas,
// pending vreplicas, pods used and vreplicas moved, on one scale.
type htmlTimeline struct {
	Width, Height int
	// Bottom and Right bound the plot; Max is the scale's top value.
	Bottom, Right int
	Max           int64
	Series        []htmlSeries
	Ticks         []htmlTick
}

type htmlSeries struct {
	Name, Color string
	// Points is the polyline's "x,y x,y ..."; Values the step values,
	// space-separated, for readers and tests.
	Points, Values string
	Dots           []htmlDot
}

type htmlDot struct {
	X, Y  int
	Title string
}

type htmlTick struct {
	X, Y  int
	Label string
}

// buildTimeline charts the result's steps.
func buildTimeline(res *Result) htmlTimeline {
	t := htmlTimeline{Width: timelineW, Height: timelineH, Bottom: timelineH - timelineBot, Right: timelineW - 12}
	series := []struct {
		name, color string
		value       func(*StepResult) int64
	}{
		{"replicas", "#1f5fa8", func(s *StepResult) int64 { return int64(s.Replicas) }},
		{"pending", "#b3261e", func(s *StepResult) int64 { return s.Metrics.Pending }},
		{"pods used", "#2e7d32", func(s *StepResult) int64 { return int64(s.Metrics.PodsUsed) }},
		{"moved", "#8a5a00", func(s *StepResult) int64 { return int64(s.Metrics.Moved) }},
	}
	t.Max = 1
	for i := range res.Steps {
		for _, s := range series {
			t.Max = max(t.Max, s.value(&res.Steps[i]))
		}
	}
	n := len(res.Steps)
	x := func(i int) int {
		if n < 2 {
			return timelineLeft
		}
		return timelineLeft + i*(t.Right-timelineLeft)/(n-1)
	}
	y := func(v int64) int { return t.Bottom - int(v*int64(t.Bottom-timelineTop)/t.Max) }
	for _, s := range series {
		hs := htmlSeries{Name: s.name, Color: s.color}
		var pts, vals []string
		for i := range res.Steps {
			v := s.value(&res.Steps[i])
			pts = append(pts, fmt.Sprintf("%d,%d", x(i), y(v)))
			vals = append(vals, strconv.FormatInt(v, 10))
			hs.Dots = append(hs.Dots, htmlDot{X: x(i), Y: y(v), Title: fmt.Sprintf("step %d: %s %d", i+1, s.name, v)})
		}
		hs.Points, hs.Values = strings.Join(pts, " "), strings.Join(vals, " ")
		t.Series = append(t.Series, hs)
	}
	every := max(1, n/12) // at most a dozen step labels
	for i := 0; i < n; i += every {
		t.Ticks = append(t.Ticks, htmlTick{X: x(i), Y: t.Bottom + 16, Label: strconv.Itoa(i + 1)})
	}
	return t
}
