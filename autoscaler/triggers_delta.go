package autoscaler

import (
	"math/big"

	"github.com/vsched/vsched"
)

// roomTarget is Maestro's room formula in slots: with occupied slots of
// total = current × capacity,
//
//	occupied / (total + delta) = usage / 100
//	delta = round((occupied × 100 − usage × total) / usage)
//
// and the pods are ceil((total + delta) / capacity), between 0 and
// vsched.MaxReplicas. Rounding is half away from zero, as Maestro's
// math.Round.
func roomTarget(occupied int64, current, capacity, usage int32) int32 {
	if capacity <= 0 || usage <= 0 {
		return current
	}
	total := big.NewInt(int64(current) * int64(capacity))
	num := new(big.Int).Mul(big.NewInt(max(occupied, 0)), big.NewInt(100))
	num.Sub(num, new(big.Int).Mul(big.NewInt(int64(usage)), total))
	delta := roundDiv(num, big.NewInt(int64(usage)))
	slots := new(big.Int).Add(total, delta)
	return clampPods(bigCeilDiv(slots, big.NewInt(int64(capacity))))
}

// resourceTarget is Maestro's cpu and memory formula: with the pods'
// usage over their requests used/requested,
//
//	usageRatio = (used / requested) / (usage / 100)
//	target     = ceil(usageRatio × current)
//
// computed exactly (ceil(used × 100 × current / (requested × usage))),
// between 0 and vsched.MaxReplicas.
func resourceTarget(used, requested int64, current, usage int32) int32 {
	if requested <= 0 || usage <= 0 {
		return current
	}
	num := new(big.Int).Mul(big.NewInt(max(used, 0)), big.NewInt(100))
	num.Mul(num, big.NewInt(int64(current)))
	den := new(big.Int).Mul(big.NewInt(requested), big.NewInt(int64(usage)))
	return clampPods(bigCeilDiv(num, den))
}

// roundDiv is a / b rounded half away from zero; b > 0.
func roundDiv(a, b *big.Int) *big.Int {
	twice := new(big.Int).Mul(a, big.NewInt(2))
	neg := twice.Sign() < 0
	twice.Abs(twice)
	twice.Add(twice, b)
	q := twice.Quo(twice, new(big.Int).Mul(b, big.NewInt(2)))
	if neg {
		q.Neg(q)
	}
	return q
}

// bigCeilDiv is ceil(a / b); b > 0.
func bigCeilDiv(a, b *big.Int) *big.Int {
	q, m := new(big.Int).DivMod(a, b, new(big.Int))
	if m.Sign() > 0 {
		q.Add(q, big.NewInt(1))
	}
	return q
}

// clampPods bounds a size to [0, vsched.MaxReplicas].
func clampPods(n *big.Int) int32 {
	switch {
	case n.Sign() <= 0:
		return 0
	case n.Cmp(big.NewInt(vsched.MaxReplicas)) > 0:
		return vsched.MaxReplicas
	}
	return int32(n.Int64())
}
