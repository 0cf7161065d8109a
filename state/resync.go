package state

import (
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/vsched/vsched"
)

// ResyncResult says what a resync changed.
type ResyncResult struct {
	// Forgotten are sources no longer listed (and without a live
	// reservation).
	Forgotten []types.NamespacedName
	// Overridden are sources whose reservation another writer replaced.
	Overridden []types.NamespacedName
	// Committed counts reservations the list showed written.
	Committed int
	// Unconfirmed are sources the list lacks but that were kept because
	// the state knows them at a version newer than the list: a lister
	// that lags, or a delete that was missed (an empty list is older than
	// any version). A list from the API server settles them (ResyncFresh);
	// without one, the next resync that still lacks them forgets them.
	Unconfirmed []types.NamespacedName
}

// Resync reconciles the state with a full list of sources, taken when Seq
// was listedAt. A source absent from the list is forgotten unless it was
// observed or reserved after listedAt, or holds a reservation younger than
// ttl (it may be new and not listed yet), or the state knows it at a
// resource version newer than every version the list holds (the list may
// lag behind what the state knows). That last guard holds for one resync
// only: a source an earlier resync's list lacked too, and not observed
// since that list was taken, is forgotten (it is listed as Unconfirmed the
// first time). Deletions reach the state through Forget; the resync only
// catches the ones missed.
func (s *State) Resync(vpods []vsched.VPod, listedAt uint64, now time.Time, ttl time.Duration) ResyncResult {
	return s.resync(vpods, listedAt, now, ttl, false)
}

// ResyncFresh is Resync from a list read from the API server after Seq was
// listedAt: it is at least as new as every version observed before, so a
// source it lacks is gone whatever its version (Unconfirmed stays empty).
// The guards for what is observed or reserved after listedAt stay.
func (s *State) ResyncFresh(vpods []vsched.VPod, listedAt uint64, now time.Time, ttl time.Duration) ResyncResult {
	return s.resync(vpods, listedAt, now, ttl, true)
}

func (s *State) resync(vpods []vsched.VPod, listedAt uint64, now time.Time, ttl time.Duration, fresh bool) ResyncResult {
	var res ResyncResult
	seen := make(map[types.NamespacedName]bool, len(vpods))
	var listRV uint64
	for _, v := range vpods {
		if v == nil {
			continue
		}
		if n, ok := parseRV(v.GetResourceVersion()); ok {
			listRV = max(listRV, n)
		}
		seen[v.GetKey()] = true
		if t, ok := s.deleted[v.GetKey()]; ok && t.rv == 0 && t.seq <= listedAt {
			// Listed after it was forgotten, and no version to judge it
			// by: created again. A tombstone with a version is judged by
			// Observe (deletedVersion): a list that lags shows the old
			// object at its old version.
			delete(s.deleted, v.GetKey())
		}
		switch s.Observe(v, now) {
		case Committed:
			res.Committed++
		case Overridden:
			res.Overridden = append(res.Overridden, v.GetKey())
		}
	}
	for key, src := range s.sources {
		if seen[key] || src.seen > listedAt {
			continue
		}
		if r := src.reservation; r != nil && now.Sub(r.At) < ttl {
			continue
		}
		if !fresh && newerThanList(src, listRV) && (src.doubted == 0 || src.seen > src.doubted) {
			res.Unconfirmed = append(res.Unconfirmed, key)
			continue
		}
		res.Forgotten = append(res.Forgotten, key)
	}
	for _, key := range res.Unconfirmed {
		s.own(key).doubted = listedAt
	}
	for _, key := range res.Forgotten {
		s.drop(key)
	}
	SortKeys(res.Forgotten)
	SortKeys(res.Overridden)
	SortKeys(res.Unconfirmed)
	return res
}

// newerThanList reports whether the state knows the source at a version
// newer than any in a list whose newest version is listRV.
func newerThanList(src *source, listRV uint64) bool {
	n, ok := parseRV(src.committedRV)
	if r := src.reservation; r != nil {
		if m, ok2 := parseRV(r.BasedOn); ok2 && (!ok || m > n) {
			n, ok = m, true
		}
	}
	return ok && n > listRV
}

// Seq is a counter that grows with every observation and reservation. A
// caller that lists the sources without the lock reads it first and passes
// it to Resync, so that nothing observed after the list was taken is
// forgotten.
func (s *State) Seq() uint64 { return s.seq }
