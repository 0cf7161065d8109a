package spread

import (
	"testing"

	"github.com/vsched/vsched/framework"
)

// Bound decides Allowed for every count, over every small summary
// (Domains 0 to 3, Min <= Max below 8, MaxSkew 1 to 4), and FromSummary
// gives back what Allowed and Score read of a Summary.
func TestBoundIsAllowed(t *testing.T) {
	for maxSkew := int32(1); maxSkew <= 4; maxSkew++ {
		for domains := 0; domains <= 3; domains++ {
			for lo := int32(0); lo < 8; lo++ {
				for hi := lo; hi < 8; hi++ {
					for atMin := 1; atMin <= max(domains, 1); atMin++ {
						s := framework.DomainStats{Domains: domains, Min: lo, Max: hi, AtMin: atMin, AtMax: 1, NextMin: hi, NextMax: lo}
						if domains == 0 {
							s = framework.DomainStats{}
						}
						back := Summary(s)
						for c := int32(0); c < 12; c++ {
							if got, want := int64(c) <= Bound(s, maxSkew), Allowed(s, c, maxSkew); got != want {
								t.Fatalf("%+v, MaxSkew %d, count %d: c <= Bound %d is %v, Allowed %v", s, maxSkew, c, Bound(s, maxSkew), got, want)
							}
							if got, want := Score(FromSummary(&back, 0), c, maxSkew), Score(s, c, maxSkew); got != want {
								t.Fatalf("%+v, MaxSkew %d, count %d: score from the summary %d, from the stats %d", s, maxSkew, c, got, want)
							}
						}
					}
				}
			}
		}
	}
}
