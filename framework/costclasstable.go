package framework

// classTable finds a cost class by its hash: an open-addressing table of
// indexes into costRun's keys, so that a pod's class is found in a step or
// two rather than by comparing its hash with every class's (on W2's 500
// pods per node a walk holds 30 to 40 classes, and a Run adds some 170
// pods to them). With more classes than it holds at half load, the lookup
// falls back to the linear search.
type classTable struct {
	slots [classSlots]int16 // index + 1 into keys; 0: empty
	full  bool              // more classes than it takes: not used
}

const classSlots = 128

// slotOf is where h's probe starts.
func slotOf(h uint64) int {
	return int((h * 0x9E3779B97F4A7C15) >> (64 - 7))
}

// reset empties the table.
func (t *classTable) reset() {
	t.slots, t.full = [classSlots]int16{}, false
}

// find returns the index of the class with hash h and key k, -1 for none
// (and when the table is full, the linear search's answer).
func (t *classTable) find(c *costRun, h uint64, k *costClass) int {
	if t.full {
		for i, hi := range c.hashes {
			if hi == h && c.keys[i].same(k) {
				return i
			}
		}
		return -1
	}
	for s := slotOf(h); ; s = (s + 1) % classSlots {
		e := t.slots[s]
		if e == 0 {
			return -1
		}
		if i := int(e) - 1; c.hashes[i] == h && c.keys[i].same(k) {
			return i
		}
	}
}

// add notes that keys[i] has hash h.
func (t *classTable) add(h uint64, i int) {
	if t.full {
		return
	}
	if i >= classSlots/2 {
		t.full = true
		return
	}
	s := slotOf(h)
	for t.slots[s] != 0 {
		s = (s + 1) % classSlots
	}
	t.slots[s] = int16(i + 1)
}

// rebuild fills the table again from the classes' hashes (after drop).
func (t *classTable) rebuild(hashes []uint64) {
	t.reset()
	for i, h := range hashes {
		t.add(h, i)
	}
}
