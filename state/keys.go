package state

import (
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/types"
)

func sortedKeys[V any](m map[types.NamespacedName]V) []types.NamespacedName {
	out := make([]types.NamespacedName, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	SortKeys(out)
	return out
}

// KeyLess orders source keys by namespace, then name: the one order every
// list of sources vsched logs, requeues or reports in.
func KeyLess(a, b types.NamespacedName) bool { return CompareKeys(a, b) < 0 }

// CompareKeys is KeyLess as a three-way comparison, for slices.SortFunc.
func CompareKeys(a, b types.NamespacedName) int {
	if c := strings.Compare(a.Namespace, b.Namespace); c != 0 {
		return c
	}
	return strings.Compare(a.Name, b.Name)
}

// SortKeys sorts keys by KeyLess, in place.
func SortKeys(keys []types.NamespacedName) {
	sort.Slice(keys, func(i, j int) bool { return KeyLess(keys[i], keys[j]) })
}
