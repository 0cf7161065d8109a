package statefulset

import (
	"k8s.io/apimachinery/pkg/types"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/memcluster"
)

func srcKey(name string) types.NamespacedName {
	return types.NamespacedName{Namespace: "sources", Name: name}
}

// sourceStore is the API server for sources (memcluster's), addressed by
// name in namespace "sources"; every write bumps one global resource
// version, as etcd's revision does, so versions compare across objects and
// over time.
type sourceStore struct {
	*memcluster.Sources
}

func newSourceStore() *sourceStore {
	return &sourceStore{memcluster.NewSources()}
}

// create adds a source wanting vreplicas, with no placements.
func (s *sourceStore) create(name string, vreplicas int32) *vsched.PlainVPod {
	return s.Put(vsched.PlainVPod{Key: srcKey(name), VReplicas: vreplicas})
}

// put stores a copy of src at a new resource version.
func (s *sourceStore) put(src *vsched.PlainVPod) *vsched.PlainVPod {
	return s.Put(*src)
}

// get returns the current snapshot, nil when absent.
func (s *sourceStore) get(name string) *vsched.PlainVPod {
	v, err := s.Get(srcKey(name))
	if err != nil {
		return nil
	}
	return v
}

// scale changes a source's spec.vreplicas.
func (s *sourceStore) scale(name string, vreplicas int32) *vsched.PlainVPod {
	v, err := s.Update(srcKey(name), vreplicas)
	if err != nil {
		panic("scale: " + err.Error())
	}
	return v
}

// writeStatus stores placements in the source's status, as the controller
// does after Schedule returns (unconditionally).
func (s *sourceStore) writeStatus(name string, ps []vsched.Placement) *vsched.PlainVPod {
	cur := s.get(name)
	if cur == nil {
		panic("writeStatus: no source " + name)
	}
	cp := *cur
	cp.Placements = ps
	return s.Put(cp)
}

func (s *sourceStore) remove(name string) {
	_ = s.Delete(srcKey(name)) // absent is removed too
}
