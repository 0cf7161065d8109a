package scripted

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/types"

	"github.com/vsched/vsched/sourceautoscaler/signal"
)

var t0 = time.Unix(1_000_000, 0)

func TestShapes(t *testing.T) {
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	step := Step(1, 5, at(10))
	ramp := Ramp(0, 100, at(10), at(20))
	burst := Burst(2, 50, at(10), 5*time.Second)
	var got [][3]float64
	for _, s := range []int{0, 10, 15, 20, 30} {
		got = append(got, [3]float64{step(at(s)), ramp(at(s)), burst(at(s))})
	}
	want := [][3]float64{{1, 0, 2}, {5, 0, 50}, {5, 50, 2}, {5, 100, 2}, {5, 100, 2}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("shapes (-want +got):\n%s", diff)
	}
}

func TestNoiseIsBoundedAndRepeatable(t *testing.T) {
	n1 := Noise(Constant(100), 0.3, time.Second, 7)
	n2 := Noise(Constant(100), 0.3, time.Second, 7)
	other := Noise(Constant(100), 0.3, time.Second, 8)
	differs := false
	for s := 0; s < 1000; s++ {
		at := t0.Add(time.Duration(s) * time.Second)
		v := n1(at)
		if v < 70 || v > 130 {
			t.Fatalf("noise of 30%% around 100 gave %v", v)
		}
		if v != n2(at) {
			t.Fatal("the same seed gave another value")
		}
		differs = differs || v != other(at)
	}
	if !differs {
		t.Error("another seed gave the same noise")
	}
}

func TestFetch(t *testing.T) {
	now := t0
	p := New("script", func() time.Time { return now })
	p.SetSeries("a", Constant(7))
	p.SetSample("b", signal.Sample{Known: true, Value: 3, At: t0.Add(-time.Hour), Partitions: 4})
	targets := []signal.Target{{ID: "a"}, {ID: "b"}, {Key: types.NamespacedName{Namespace: "ns", Name: "c"}}}
	out := make([]signal.Sample, 3)
	if err := p.Fetch(context.Background(), targets, out); err != nil {
		t.Fatal(err)
	}
	want := []signal.Sample{{Known: true, Value: 7, At: t0}, {Known: true, Value: 3, At: t0.Add(-time.Hour), Partitions: 4}, {}}
	if diff := cmp.Diff(want, out); diff != "" {
		t.Errorf("samples (-want +got):\n%s", diff)
	}
	p.FailNext(errors.New("down"))
	if err := p.Fetch(context.Background(), targets, out); err == nil {
		t.Error("FailNext: no error")
	}
	p.Hang(true)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	if err := p.Fetch(ctx, targets, out); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Hang: %v", err)
	}
	if r, n := p.Calls(); r != 3 || n != 9 {
		t.Errorf("Calls = %d rounds, %d targets; want 3, 9", r, n)
	}
}
