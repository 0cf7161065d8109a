package state

import "strconv"

// olderRV reports whether resource version a is known to be older than b.
// Kubernetes resource versions are opaque, but every API server in use
// issues increasing integers; when both parse, the comparison protects a
// reservation from a lagging lister. Otherwise only equality is known.
func olderRV(a, b string) bool {
	x, ok1 := parseRV(a)
	y, ok2 := parseRV(b)
	return ok1 && ok2 && x < y
}

func parseRV(rv string) (uint64, bool) {
	n, err := strconv.ParseUint(rv, 10, 64)
	return n, err == nil
}

// newerRV reports whether resource version rv is known to be newer than
// written, the version a shrink was written at. Kubernetes resource
// versions are opaque, but every API server in use issues increasing
// integers; when they do not parse, a version other than the written one
// and than from (the one observed before the write) counts as newer.
func newerRV(rv, written, from string) bool {
	if rv == "" || written == "" {
		return false
	}
	a, okA := parseRV(rv)
	b, okB := parseRV(written)
	if okA && okB {
		return a > b
	}
	return rv != written && rv != from
}
