package framework

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vsched/vsched"
)

// TestHeavyFitPlaces checks Places and Slack at their edges: no dearer
// source, no free slot, a pod over its capacity, and values that would
// overflow int64.
func TestHeavyFitPlaces(t *testing.T) {
	fit := HeavyFit{Slots: 20, Capacity: 4096, Cheapest: 100, Dearest: 1000}
	big := HeavyFit{Slots: math.MaxInt32, Capacity: 1 << 62, Cheapest: vsched.MaxCost - 1, Dearest: vsched.MaxCost}
	tests := []struct {
		name       string
		fit        HeavyFit
		free, left int64
		want       int64
	}{
		{"empty pod", fit, 20, 4096, 2},
		{"two slots left", fit, 2, 2296, 2},
		{"one slot left", fit, 1, 2196, 1},
		{"no slot", fit, 0, 4096, 0},
		{"over capacity", fit, 5, -100, 0},
		{"nothing dearer", HeavyFit{Slots: 20, Capacity: 4096, Cheapest: 100, Dearest: 100}, 20, 4096, 0},
		{"cheapest x free past int64", big, math.MaxInt32, 1 << 62, 0},
		{"one slot, huge costs", big, 1, 1 << 62, 1},
	}
	for _, tt := range tests {
		if got := tt.fit.Places(tt.free, tt.left); got != tt.want {
			t.Errorf("%s: Places(%d, %d) = %d, want %d", tt.name, tt.free, tt.left, got, tt.want)
		}
	}
	slacks := []struct {
		name string
		h    HeavyRoom
		want int64
	}{
		// 2 places in use, (200 - 2) x 1800 / 20 for the pods to open,
		// less 21 places needed: 2 x 900 + 17,820 - 18,900.
		{"W2-like", HeavyRoom{Fit: fit, Places: 1800, Open: 2, Unplaced: 200, Need: 18900}, 720},
		{"more free slots than waiting", HeavyRoom{Fit: fit, Places: 900, Open: 40, Unplaced: 10, Need: 900}, 0},
		{"pods to open past int64", HeavyRoom{Fit: HeavyFit{Slots: 20, Capacity: 1 << 62, Dearest: vsched.MaxCost}, Unplaced: math.MaxInt64}, math.MaxInt64},
		{"no place in an empty pod", HeavyRoom{Fit: big, Unplaced: math.MaxInt64}, 0},
	}
	for _, tt := range slacks {
		if diff := cmp.Diff(tt.want, tt.h.Slack()); diff != "" {
			t.Errorf("%s: Slack() (-want +got):\n%s", tt.name, diff)
		}
	}
}
