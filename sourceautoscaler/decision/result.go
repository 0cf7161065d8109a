package decision

// Mode says what made a decision.
type Mode uint8

const (
	// Stable: the stable window's average decided.
	Stable Mode = iota
	// Panic: the panic window's average decided; no decrease.
	Panic
	// Capped: the partition cap lowered the count.
	Capped
	// Fallback: the signal is missing; the count is kept or set to the
	// configured fallback.
	Fallback
	// Paused: an annotation froze or pinned the count.
	Paused
)

var modeNames = [...]string{"stable", "panic", "capped", "fallback", "paused"}

func (m Mode) String() string {
	if int(m) < len(modeNames) {
		return modeNames[m]
	}
	return "unknown"
}

// Held says why a lower count than the signal asks for was kept.
type Held uint8

const (
	// NotHeld: nothing held the count.
	NotHeld Held = iota
	// HeldByPanic: no decrease while panicking.
	HeldByPanic
	// HeldByWarmUp: the state has seen less than a stable window (a new
	// leader, a new source, a changed window): no decrease yet.
	HeldByWarmUp
	// HeldByDelay: the scale-down delay has not passed.
	HeldByDelay
	// HeldByGrace: the signal has not been at or below the activation
	// threshold for the scale-to-zero grace.
	HeldByGrace
	// HeldByActivation: a source at zero stays there, the signal being at
	// or below the activation threshold.
	HeldByActivation
	// HeldByRecentChange: the count changed the other way less than a
	// stable window ago (no flapping on a noisy signal); panic overrides
	// it for increases.
	HeldByRecentChange
)

var heldNames = [...]string{"", "panic", "warm-up", "scale-down delay", "scale-to-zero grace", "activation threshold", "recent change the other way"}

func (h Held) String() string {
	if int(h) < len(heldNames) {
		return heldNames[h]
	}
	return "unknown"
}

// Decision is one source's vreplica decision with the numbers that made it.
type Decision struct {
	// Current is the count the source had; Desired the one decided.
	Current, Desired int32
	Mode             Mode
	// Known says whether this cycle had a value; Signal is it (after
	// persistent lag is left out).
	Known  bool
	Signal float64
	// StableAverage and PanicAverage are the windows' averages;
	// StableDesired and PanicDesired are ceil(average / target).
	StableAverage, PanicAverage float64
	StableDesired, PanicDesired int32
	// Cap is the partition cap when one applied (0: none).
	Cap int32
	// Held says why a decrease was not (yet) made.
	Held Held
	// Missing is the number of cycles in a row without a value.
	Missing int32
}
