package costestimate

import (
	"fmt"
	"math"
	"math/rand"
	"sort"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/types"
)

func key(name string) types.NamespacedName { return types.NamespacedName{Namespace: "ns", Name: name} }

func mem(s string) corev1.ResourceList {
	return corev1.ResourceList{corev1.ResourceMemory: resource.MustParse(s)}
}

// TestObserveExact: s1 truly costs 400Mi, s2 100Mi; pod A runs 2 of
// each (1000Mi), pod B 2 of s2 (200Mi). One round determines both:
// 2·s1 + 2·s2 = 1000, 2·s2 = 200.
func TestObserveExact(t *testing.T) {
	e := New(Options{Smoothing: 1, Sweeps: 200})
	pods := []Pod{
		{Usage: mem("1000Mi"), Sources: []Share{{key("s1"), 2}, {key("s2"), 2}}},
		{Usage: mem("200Mi"), Sources: []Share{{key("s2"), 2}}},
	}
	if e.Cost(key("s1")) != nil {
		t.Fatal("an estimate before any round")
	}
	e.Observe(pods)
	for name, want := range map[string]float64{"s1": 400, "s2": 100} {
		got := float64(memOf(e, name).Value()) / (1 << 20)
		if math.Abs(got-want) > 0.01 {
			t.Errorf("%s = %.3fMi, want %vMi", name, got, want)
		}
	}
	// Half as much usage next round, the first weighed 0.5 against it:
	// s1 = (0.5·400 + 200)/1.5 = 266.667Mi, s2 = (0.5·100 + 50)/1.5 =
	// 66.667Mi.
	e2 := New(Options{Smoothing: 0.5, Sweeps: 200})
	e2.Observe(pods)
	e2.Observe([]Pod{
		{Usage: mem("500Mi"), Sources: []Share{{key("s1"), 2}, {key("s2"), 2}}},
		{Usage: mem("100Mi"), Sources: []Share{{key("s2"), 2}}},
	})
	for name, want := range map[string]float64{"s1": 266.667, "s2": 66.667} {
		got := float64(memOf(e2, name).Value()) / (1 << 20)
		if math.Abs(got-want) > 0.01 {
			t.Errorf("smoothed: %s = %.3fMi, want %vMi", name, got, want)
		}
	}
}

func TestBounds(t *testing.T) {
	e := New(Options{Smoothing: 1, Min: map[corev1.ResourceName]int64{corev1.ResourceMemory: 100 << 20 * 1000},
		Max: map[corev1.ResourceName]int64{corev1.ResourceMemory: 300 << 20 * 1000}})
	e.Observe([]Pod{
		{Usage: mem("1000Mi"), Sources: []Share{{key("big"), 1}}},
		{Usage: mem("10Mi"), Sources: []Share{{key("small"), 1}}},
		{Usage: mem("10Mi")}, // no source: nobody's
	})
	if got := memOf(e, "big").String(); got != "300Mi" {
		t.Errorf("big = %s, want the bound 300Mi", got)
	}
	if got := memOf(e, "small").String(); got != "100Mi" {
		t.Errorf("small = %s, want the bound 100Mi", got)
	}
}

// TestSimulatedError measures how far the estimate is off on a cluster
// whose costs are known: 40 sources of 50Mi to 1000Mi per vreplica, 1 to 6
// vreplicas each on 30 (or 60) pods, usage the sum of the costs plus a baseline of
// 50Mi per pod and ±5% noise, 40 rounds, the placements moving a little
// each round. docs/costs.md quotes the figures it logs.
func TestSimulatedError(t *testing.T) {
	for _, tc := range []struct {
		name      string
		smoothing float64
		moves     int // vreplicas moved per round
		pods      int
		wantMean  float64
	}{
		{"static", 0.3, 0, 30, 0.50},
		{"moving", 0.3, 10, 30, 0.12},
		{"moving fast", 0.3, 30, 30, 0.14},
		{"static, 60 pods", 0.3, 0, 60, 0.22},
		{"moving, 60 pods", 0.3, 10, 60, 0.10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mean, worst, bad := simulate(tc.smoothing, tc.moves, tc.pods)
			if bad > 0 {
				t.Errorf("the simulation made %d placements of no or negative vreplicas", bad)
			}
			t.Logf("%s: mean relative error %.1f%%, worst %.1f%%", tc.name, 100*mean, 100*worst)
			if mean > tc.wantMean {
				t.Errorf("mean relative error %.2f, want at most %.2f", mean, tc.wantMean)
			}
		})
	}
}

func simulate(smoothing float64, moves, pods int) (mean, worst float64, bad int) {
	rng := rand.New(rand.NewSource(1))
	const sources, rounds = 40, 40
	truth := make([]float64, sources) // MiB per vreplica
	place := make([]map[int]int32, sources)
	for i := range truth {
		truth[i] = 50 + rng.Float64()*950
		place[i] = map[int]int32{}
		for n := 1 + rng.Intn(6); n > 0; n-- {
			place[i][rng.Intn(pods)]++
		}
	}
	e := New(Options{Smoothing: smoothing})
	for r := 0; r < rounds; r++ {
		for m := 0; m < moves; m++ {
			i := rng.Intn(sources)
			// The lowest pod the source is on gives one vreplica to a
			// random pod.
			for _, from := range sortedKeys(place[i]) {
				place[i][from]--
				if place[i][from] == 0 {
					delete(place[i], from)
				}
				place[i][rng.Intn(pods)]++
				break
			}
		}
		for i := range place {
			for _, n := range place[i] {
				if n <= 0 {
					bad++
				}
			}
		}
		e.Observe(round(rng, truth, place, pods))
	}
	for i, c := range truth {
		got := float64(memOf(e, fmt.Sprint("s", i)).Value()) / (1 << 20)
		rel := math.Abs(got-c) / c
		mean += rel / sources
		worst = max(worst, rel)
	}
	return mean, worst, bad
}

// round measures every pod: its sources' true costs, a 50Mi baseline and
// ±5% noise.
func round(rng *rand.Rand, truth []float64, place []map[int]int32, pods int) []Pod {
	out := make([]Pod, pods)
	use := make([]float64, pods)
	for i := range truth {
		for _, p := range sortedKeys(place[i]) {
			out[p].Sources = append(out[p].Sources, Share{key(fmt.Sprint("s", i)), place[i][p]})
			use[p] += float64(place[i][p]) * truth[i]
		}
	}
	for p := range out {
		mib := (use[p] + 50) * (0.95 + 0.1*rng.Float64())
		out[p].Usage = corev1.ResourceList{corev1.ResourceMemory: *resource.NewQuantity(int64(mib*(1<<20)), resource.BinarySI)}
	}
	return out
}

func sortedKeys(m map[int]int32) []int {
	out := make([]int, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Ints(out)
	return out
}

func memOf(e *Estimator, name string) *resource.Quantity {
	q := e.Cost(key(name))[corev1.ResourceMemory]
	return &q
}
