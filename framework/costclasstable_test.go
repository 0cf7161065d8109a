package framework

import "testing"

// TestClassTable adds 100 classes (more than the table takes, so the
// lookup falls back to the linear search past 64), each twice, and drops
// a node's: every class is found at its index, a class not added is not,
// and after a drop the others are found at their new indexes.
func TestClassTable(t *testing.T) {
	var c costRun
	c.begin()
	add := func(node, free int32) int {
		k := costClass{node: node, free: free, use: [maxClassDims]int64{int64(free) * 7}}
		h := uint64(uint32(node))<<32 | uint64(uint32(free))
		h = (h ^ uint64(k.use[0])) * 0x9E3779B97F4A7C15
		if i := c.table.find(&c, h, &k); i >= 0 {
			return i
		}
		c.table.add(h, len(c.keys))
		c.keys, c.hashes, c.reps = append(c.keys, k), append(c.hashes, h), append(c.reps, node*1000+free)
		return len(c.keys) - 1
	}
	for round := range 2 {
		for i := range int32(100) {
			if got := add(i%4, i); got != int(i) {
				t.Fatalf("round %d: class %d at %d", round, i, got)
			}
		}
	}
	if n := len(c.keys); n != 100 {
		t.Fatalf("%d classes, want 100", n)
	}
	k := costClass{node: 9, free: 9}
	if i := c.table.find(&c, 42, &k); i >= 0 {
		t.Errorf("a class never added found at %d", i)
	}
	c.drop(0) // nodes 1 to 3 stay: 75 classes, over the table's half
	c.drop(1) // 50: the table again
	if c.table.full {
		t.Error("50 classes: the table is still marked full")
	}
	for i := range c.keys {
		k := c.keys[i]
		if got := c.table.find(&c, c.hashes[i], &k); got != i {
			t.Errorf("after drop: class %v at %d, want %d", k, got, i)
		}
	}
}
