package framework

// SetZoneWalkMin sets the fewest nodes a zone needs to be walked as one
// class, so tests on small clusters reach the walk; it returns the undo.
func SetZoneWalkMin(n int) func() {
	old := zoneWalkMin
	zoneWalkMin = n
	return func() { zoneWalkMin = old }
}

// SetRoomIndexMin sets the fewest nodes for which the spread summaries read
// a RoomIndex; it returns the undo.
func SetRoomIndexMin(n int) func() {
	old := roomIndexMin
	roomIndexMin = n
	return func() { roomIndexMin = old }
}

// SetKeepMin sets the fewest vreplicas a decision changes before it keeps
// its summaries; it returns the undo.
func SetKeepMin(n int32) func() {
	old := keepMin
	keepMin = n
	return func() { keepMin = old }
}

// SetPlaceDenseMin sets the fewest vreplicas a decision changes before it
// keeps placeAt, onPodAt and deltaAt; it returns the undo.
func SetPlaceDenseMin(n int32) func() {
	old := placeDenseMin
	placeDenseMin = n
	return func() { placeDenseMin = old }
}

// SetTailChunk sets how many empty pods past the highest used ordinal a
// node's queue collects at first; it returns the undo.
func SetTailChunk(n int32) func() {
	old := tailChunk
	tailChunk = n
	return func() { tailChunk = old }
}
