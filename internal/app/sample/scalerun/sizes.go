package scalerun

import "math/rand/v2"

// Sizes draws n sources' vreplicas: mostly 1-2 (85%), some 3-9 (13%), a
// few 10-50 (2%), from a fixed seed; 10,000 sources make 26,317 vreplicas.
func Sizes(n int) []int32 {
	r := rand.New(rand.NewPCG(15, 15^0x9e3779b97f4a7c15))
	vs := make([]int32, n)
	for i := range vs {
		switch x := r.IntN(100); {
		case x < 85:
			vs[i] = 1 + r.Int32N(2)
		case x < 98:
			vs[i] = 3 + r.Int32N(7)
		default:
			vs[i] = 10 + r.Int32N(41)
		}
	}
	return vs
}
