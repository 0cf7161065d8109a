package framework

// The grouped path's node queues (buildQueues) list a node's free
// non-holders in class order. Past the cluster's highest used ordinal every
// pod is empty, and the empty pods come last, in ascending order: a queue
// needs only the first few of them until the run has taken those. Listing
// up to n of them per node at the start made a large decision walk every
// free pod of the StatefulSet (6,000 on the bounds cluster) when it uses a
// few per node (issue 21). A queue now starts with tailChunk of them and,
// when the run has taken them all, collects the next ones, twice as many
// each time; the queue's order is the one the full list had.

// tailChunk is how many empty pods past the highest used ordinal a node's
// queue collects at first.
var tailChunk int32 = 16

// noCut marks a walk that reached the node's last free pod.
const noCut int32 = -1

// nodeTails is, per node, where its queue's walk stopped and how many
// empty pods the next walk collects; nil until a walk stops early.
type nodeTails struct {
	at   []int32 // per node: the first ordinal left out, noCut for none
	want []int32 // per node: how many the next walk collects
	cut  int32   // where the walk under way stopped (collectKey)
	from int32   // the walk under way skips the ordinals below
	idx  FreeCandidateIndex
}

// noteTail records where the node's first walk stopped. A queue that
// firstByKey cut to n entries is never refilled: the run takes at most n
// pods from it.
func (r *run) noteTail(idx FreeCandidateIndex, node int, n int32) {
	t := &r.tails
	if t.cut == noCut || len(r.keys) > int(n) {
		if t.at != nil {
			t.at[node] = noCut
		}
		return
	}
	if t.at == nil {
		t.at, t.want, t.idx = make([]int32, len(r.queues)), make([]int32, len(r.queues)), idx
		for i := range t.at {
			t.at[i] = noCut
		}
	}
	t.at[node], t.want[node] = t.cut, 2*r.want
}

// left reports whether the node has free pods its queue has not collected.
func (t *nodeTails) left(node int) bool { return t.at != nil && t.at[node] != noCut }

// refill collects the node's next empty pods, from where its last walk
// stopped: its queue once the run has taken every pod it listed.
func (r *run) refill(node int) []int32 {
	t := &r.tails
	r.keys, r.empties, t.cut, t.from = r.keys[:0], 0, noCut, t.at[node]
	want := r.want
	r.want = t.want[node]
	t.idx.EachFreeCandidate(int32(node), r.collect)
	q := r.firstByKey(r.want)
	t.at[node], t.want[node] = t.cut, 2*r.want
	r.want, t.from = want, 0
	return q
}

// listHeads lists again the heads of the queues that are not empty: a step
// changes one queue's head in place, and only a queue that empties changes
// the list.
func (r *run) listHeads() {
	if r.headAt == nil {
		r.headAt = make([]int, len(r.queues))
	}
	r.heads = r.heads[:0]
	for i, q := range r.queues {
		if len(q) > 0 {
			r.headAt[i] = len(r.heads)
			r.heads = append(r.heads, q[0])
		}
	}
}

// advance drops the pods at the head of the node's queue that the run has
// filled or made holders, and collects its next ones once it has taken
// every pod the queue listed.
func (r *run) advance(i int) {
	q := r.queues[i]
	for len(q) > 0 && (r.d.OnPod(q[0]) > 0 || r.d.Free(q[0]) <= 0) {
		q = q[1:]
	}
	if len(q) == 0 && r.tails.left(i) {
		q = r.refill(i)
	}
	r.queues[i] = q
}
