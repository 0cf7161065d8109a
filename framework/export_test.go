package framework

// SetZoneWalkMin sets the fewest nodes a zone needs to be walked as one
// class, so tests on small clusters reach the walk; it returns the undo.
func SetZoneWalkMin(n int) func() {
	old := zoneWalkMin
	zoneWalkMin = n
	return func() { zoneWalkMin = old }
}
