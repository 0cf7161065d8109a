package state

import (
	"time"

	"k8s.io/apimachinery/pkg/types"
)

// tombstone remembers a forgotten source: rv is the newest version the state
// had seen of any source when it was forgotten (0: none), seq the State's
// seq then, at the time.
type tombstone struct {
	rv  uint64
	seq uint64
	at  time.Time
}

// deletedVersion reports whether rv is a version of a source forgotten
// since (a read from before its deletion). A newer version is a new object
// of the same name and lifts the tombstone.
func (s *State) deletedVersion(key types.NamespacedName, rv string) bool {
	t, ok := s.deleted[key]
	if !ok {
		return false
	}
	if n, ok := parseRV(rv); ok && t.rv > 0 && n > t.rv {
		delete(s.deleted, key)
		return false
	}
	return true
}

// Tombstoned reports whether the source was forgotten and its tombstone
// still stands (see Forget).
func (s *State) Tombstoned(key types.NamespacedName) bool {
	_, ok := s.deleted[key]
	return ok
}

// LiftTombstone ends a source's tombstone: the caller knows the version it
// holds is of an object created after the deletion.
func (s *State) LiftTombstone(key types.NamespacedName) { delete(s.deleted, key) }
