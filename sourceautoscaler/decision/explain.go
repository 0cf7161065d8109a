package decision

import (
	"fmt"
	"strings"
)

// Explain says what made the decision, with its numbers, on one line: the
// message of the source's Event and the body of `vsched explain`.
func (d Decision) Explain() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d -> %d vreplicas (%s)", d.Current, d.Desired, d.Mode)
	switch {
	case d.Mode == Paused:
		b.WriteString(": paused by annotation")
		return b.String()
	case !d.Known:
		fmt.Fprintf(&b, ": no signal for %d cycle(s)", d.Missing)
		return b.String()
	}
	fmt.Fprintf(&b, ": signal %g, stable average %.4g asks %d, panic average %.4g asks %d",
		d.Signal, d.StableAverage, d.StableDesired, d.PanicAverage, d.PanicDesired)
	if d.Cap > 0 {
		fmt.Fprintf(&b, "; capped at %d partition(s)", d.Cap)
	}
	if d.Held != NotHeld {
		fmt.Fprintf(&b, "; decrease held by the %s", d.Held)
	}
	return b.String()
}
