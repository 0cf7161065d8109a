package cli

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// progressThreshold is the number of operations above which simulate shows
// a progress bar (on a terminal, without --quiet): smaller scenarios finish
// before one would be read.
var progressThreshold = 2000

// progressBar draws "[#####.....]  45%  1234/2740 operations" on one line,
// redrawn at most once per every.
type progressBar struct {
	w     io.Writer
	every time.Duration
	now   func() time.Time // nil: time.Now
	last  time.Time
	drawn bool
}

const barWidth = 30

func (p *progressBar) update(done, total int) {
	now := time.Now
	if p.now != nil {
		now = p.now
	}
	t := now()
	if p.drawn && done < total && t.Sub(p.last) < p.every {
		return
	}
	p.last, p.drawn = t, true
	fill := 0
	pct := 100
	if total > 0 {
		fill = done * barWidth / total
		pct = done * 100 / total
	}
	fmt.Fprintf(p.w, "\r[%s%s] %3d%%  %d/%d operations", strings.Repeat("#", fill), strings.Repeat(".", barWidth-fill), pct, done, total)
}

// finish erases the bar. A nil bar does nothing.
func (p *progressBar) finish() {
	if p == nil || !p.drawn {
		return
	}
	fmt.Fprint(p.w, "\r\033[K")
}
