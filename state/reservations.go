package state

import (
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/vsched/vsched"
)

// DropReservations drops every reservation (the sources fall back to their
// committed placements) and returns how many there were. A leadership term's
// unwritten decisions end with it.
func (s *State) DropReservations() int {
	n := 0
	for k, src := range s.sources {
		if src.reservation != nil {
			src = s.own(k)
			src.reservation = nil
			s.recount(src)
			n++
		}
	}
	return n
}

// Reserve records the scheduler's decision for a source, made from the
// source at resource version basedOn. It counts against capacity at once.
func (s *State) Reserve(key types.NamespacedName, vreplicas int32, basedOn string, ps []vsched.Placement, now time.Time) {
	src := s.ownOrNew(key)
	src.vreplicas = vreplicas
	s.seq++
	src.seen = s.seq
	cp := append([]vsched.Placement(nil), ps...)
	src.reservation = &Reservation{Placements: cp, BasedOn: basedOn, At: now}
	s.recount(src)
}

// ReservationOf returns the source's reservation, if any.
func (s *State) ReservationOf(key types.NamespacedName) (Reservation, bool) {
	if src := s.sources[key]; src != nil && src.reservation != nil {
		return *src.reservation, true
	}
	return Reservation{}, false
}

// ExpireReservations drops reservations made before now-ttl, so a status
// write that never happened cannot hold capacity forever. The source falls
// back to its committed placements. It returns the affected sources, sorted.
func (s *State) ExpireReservations(now time.Time, ttl time.Duration) []types.NamespacedName {
	var out []types.NamespacedName
	for key, src := range s.sources {
		if r := src.reservation; r != nil && now.Sub(r.At) >= ttl {
			src = s.own(key)
			src.reservation = nil
			s.recount(src)
			out = append(out, key)
		}
	}
	for key, t := range s.deleted {
		if now.Sub(t.at) >= ttl {
			delete(s.deleted, key)
		}
	}
	SortKeys(out)
	return out
}

// ReservationsExpireBy reports whether some reservation was made before
// now-ttl: ExpireReservations(now, ttl) would drop it.
func (s *State) ReservationsExpireBy(now time.Time, ttl time.Duration) bool {
	for _, src := range s.sources {
		if r := src.reservation; r != nil && now.Sub(r.At) >= ttl {
			return true
		}
	}
	return false
}

// ReservationStats counts the reservations and the age, at now, of the
// oldest, walking the sources without listing or sorting them.
func (s *State) ReservationStats(now time.Time) (n int64, oldest time.Duration) {
	for _, src := range s.sources {
		if r := src.reservation; r != nil {
			n++
			oldest = max(oldest, now.Sub(r.At))
		}
	}
	return n, oldest
}

// ExpireOne drops one source's reservation, falling back to its committed
// placements.
func (s *State) ExpireOne(key types.NamespacedName) {
	if src := s.sources[key]; src != nil && src.reservation != nil {
		src = s.own(key)
		src.reservation = nil
		s.recount(src)
	}
}
