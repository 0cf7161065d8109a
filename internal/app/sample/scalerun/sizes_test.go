package scalerun

import (
	"fmt"
	"testing"
)

// TestSizes: the scale run's figures (docs/performance.md) are for these
// very sizes.
func TestSizes(t *testing.T) {
	var total int32
	for _, v := range Sizes(10000) {
		if v < 1 || v > 50 {
			t.Fatalf("size %d outside 1-50", v)
		}
		total += v
	}
	if total != 26317 {
		t.Errorf("10,000 sources make %d vreplicas, want 26,317", total)
	}
}

func ExampleSizes() {
	fmt.Println(Sizes(8))
	// Output: [9 1 1 1 1 2 2 5]
}
