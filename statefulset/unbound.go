package statefulset

import (
	"fmt"
	"strings"
	"time"

	"github.com/vsched/vsched"
)

// maxUnboundNamed bounds how many pods a pending reason names.
const maxUnboundNamed = 3

// unboundNote is what a pending reason adds about the pods below the size
// that wait for a node: their room is missing while they do, and a
// source's condition should say which pod and since when (the autoscaler
// stops counting them once the unavailable-pod grace passes). It is "" when
// every pod is bound. Called with the state locked.
func (s *Scheduler) unboundNote(now time.Time) string {
	ords := s.st.UnboundPast(now, 0)
	if len(ords) == 0 {
		return ""
	}
	names := make([]string, 0, min(len(ords), maxUnboundNamed))
	for _, ord := range ords[:min(len(ords), maxUnboundNamed)] {
		names = append(names, fmt.Sprintf("%s since %s", vsched.PodName(s.key.Name, ord), s.st.PodUnboundSince(ord).UTC().Format(time.RFC3339)))
	}
	more := ""
	if n := len(ords) - len(names); n > 0 {
		more = fmt.Sprintf(" and %d more", n)
	}
	return fmt.Sprintf("pod(s) waiting for a node: %s%s", strings.Join(names, ", "), more)
}

// joinReason appends note to a pending reason.
func joinReason(reason, note string) string {
	if reason == "" {
		return note
	}
	return reason + "; " + note
}
