package framework

// PodRoomStatsOnNode kept change by change once a decision keeps its
// summaries (keeps): per node, its candidate holders with room as a
// countHist, and a pod found with room holding none of the source (the
// witness), looked for again only when the decision changes that pod or
// empties one. A placing step rebuilt the summary of the node it had just
// changed by walking every holder with room of every node (issue 21).
//
// Also here: the pods the decision freed, per node. A FreeCandidateIndex
// lists the pods with room before the decision; a pod that a removal gave
// room (full before) is not among them, so a node's room and its pods with
// room holding none count it from here.

// podRoom is the kept side of PodRoomStatsOnNode, and the freed pods.
type podRoom struct {
	on      bool
	holders []countHist // per node: the counts of its candidate holders with room
	witness []int32     // per node: a pod with room holding none, noWitness, or unknownWitness
	// the nodes where the decision freed a pod, in the order first freed
	// (few: the nodes of the pods a removal emptied), none while placing
	freed    []freedOnNode
	freedBuf [4]freedOnNode // freed's first array: a removal frees pods on few nodes
}

// freedOnNode counts a node's candidates with no room before the decision
// and room now, and those of them holding none; zone is the last one's.
type freedOnNode struct {
	node, zone, pods, nonHolders int32
}

// freedAt is the node's entry in freed, nil when it has none.
func (p *podRoom) freedAt(node int32) *freedOnNode {
	for i := range p.freed {
		if p.freed[i].node == node {
			return &p.freed[i]
		}
	}
	return nil
}

const (
	noWitness      int32 = -1
	unknownWitness int32 = -2
)

// startPodRoom builds the per-node holder counts from the holders with room.
func (d *Decision) startPodRoom() {
	p := &d.room.pods
	n := d.cluster.NumNodes()
	p.holders = newHists(n)
	p.witness = make([]int32, n)
	for i := range p.witness {
		p.witness[i] = unknownWitness
	}
	for _, ord := range d.RoomHolders() {
		if node := d.CandidateNode(ord); node >= 0 && int(node) < n {
			p.holders[node].add(d.OnPod(ord), 1)
		}
	}
	p.on = true
}

// keptPodRoomStats is PodRoomStatsOnNode from the kept counts.
func (d *Decision) keptPodRoomStats(node int32) DomainStats {
	p := &d.room.pods
	if !p.on {
		d.startPodRoom()
	}
	if node < 0 || int(node) >= len(p.holders) {
		return DomainStats{}
	}
	zeros := 0
	if d.freedNonHolderOn(node) {
		zeros = 1
	} else {
		if p.witness[node] == unknownWitness {
			p.witness[node] = d.findFreeNonHolder(node)
		}
		if p.witness[node] >= 0 {
			zeros = 1
		}
	}
	return p.holders[node].stats(zeros)
}

// notePodRoom moves the kept counts after the candidate pod (on node) went
// from before to after vreplicas and from freeBefore to freeAfter.
func (d *Decision) notePodRoom(ord, node, before, after, freeBefore, freeAfter int32) {
	p := &d.room.pods
	if !p.on || node < 0 || int(node) >= len(p.holders) {
		return
	}
	if before > 0 && freeBefore > 0 {
		p.holders[node].add(before, -1)
	}
	if after > 0 && freeAfter > 0 {
		p.holders[node].add(after, 1)
	}
	if p.witness[node] == ord || (after <= 0 && freeAfter > 0) {
		p.witness[node] = unknownWitness
	}
}

// noteFreed keeps the freed pods current after the candidate pod (on node,
// in zone) went from before to after vreplicas and from freeBefore to
// freeAfter. A decision that only places never frees a pod.
func (d *Decision) noteFreed(ord, node, zone, before, after, freeBefore, freeAfter int32) {
	p := &d.room.pods
	if node < 0 || (len(p.freed) == 0 && freeAfter <= freeBefore) {
		return
	}
	base := d.cluster.Free(ord)
	was, is := base <= 0 && freeBefore > 0, base <= 0 && freeAfter > 0
	if !was && !is {
		return
	}
	e := p.freedAt(node)
	if e == nil {
		if p.freed == nil {
			p.freed = p.freedBuf[:0]
		}
		p.freed = append(p.freed, freedOnNode{node: node})
		e = &p.freed[len(p.freed)-1]
	}
	if was {
		e.pods--
		if before <= 0 {
			e.nonHolders--
		}
	}
	if is {
		e.pods++
		e.zone = zone
		if after <= 0 {
			e.nonHolders++
		}
	}
}

// freedOn reports whether the decision freed a candidate of the node, and
// its zone.
func (d *Decision) freedOn(node int32) (zone int32, ok bool) {
	if e := d.room.pods.freedAt(node); e != nil && e.pods > 0 {
		return e.zone, true
	}
	return 0, false
}

// freedNonHolderOn reports whether the decision freed a candidate of the
// node that holds none of the source.
func (d *Decision) freedNonHolderOn(node int32) bool {
	e := d.room.pods.freedAt(node)
	return e != nil && e.nonHolders > 0
}
