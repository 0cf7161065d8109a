package sim

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// page is a page open in headless Chromium, driven over the DevTools
// protocol on a pipe (--remote-debugging-pipe: Chromium reads commands on
// its fd 3 and writes replies and events on its fd 4, each message a JSON
// object ended by a NUL byte), so that a test clicks and types as a
// person does: through the browser's input events, not the page's script.
type page struct {
	t       *testing.T
	send    *os.File
	recv    *bufio.Reader
	id      int
	session string
}

// openPage starts Chromium on url and attaches to its page.
func openPage(t *testing.T, bin, url string) *page {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	t.Cleanup(cancel)
	cmdR, cmdW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, bin, "--headless", "--no-sandbox", "--disable-gpu",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run",
		"--disable-dev-shm-usage", "--user-data-dir="+t.TempDir(), "--window-size=1280,1400",
		"--remote-debugging-pipe", url)
	cmd.ExtraFiles = []*os.File{cmdR, outW}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	cmdR.Close()
	outW.Close()
	t.Cleanup(func() {
		cmdW.Close() // Chromium exits when its command pipe closes
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
		outR.Close()
	})
	p := &page{t: t, send: cmdW, recv: bufio.NewReader(outR)}
	var targets struct {
		TargetInfos []struct{ TargetID, Type string } `json:"targetInfos"`
	}
	for try := 0; ; try++ {
		p.call("Target.getTargets", nil, &targets)
		for _, ti := range targets.TargetInfos {
			if ti.Type == "page" {
				var att struct{ SessionID string }
				p.call("Target.attachToTarget", map[string]any{"targetId": ti.TargetID, "flatten": true}, &att)
				p.session = att.SessionID
				return p
			}
		}
		if try == 100 {
			t.Fatal("chromium opened no page")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// call sends a command to the page's session (the browser's before
// attaching) and decodes its result into out.
func (p *page) call(method string, params, out any) {
	p.t.Helper()
	p.id++
	msg := map[string]any{"id": p.id, "method": method}
	if params != nil {
		msg["params"] = params
	}
	if p.session != "" {
		msg["sessionId"] = p.session
	}
	b, err := json.Marshal(msg)
	if err != nil {
		p.t.Fatal(err)
	}
	if _, err := p.send.Write(append(b, 0)); err != nil {
		p.t.Fatalf("%s: %v", method, err)
	}
	for {
		raw, err := p.recv.ReadBytes(0)
		if err != nil {
			p.t.Fatalf("%s: reading chromium's reply: %v", method, err)
		}
		var reply struct {
			ID     int             `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  *struct{ Message string }
		}
		if err := json.Unmarshal(raw[:len(raw)-1], &reply); err != nil {
			p.t.Fatalf("%s: %v", method, err)
		}
		if reply.ID != p.id {
			continue // an event
		}
		if reply.Error != nil {
			p.t.Fatalf("%s: %s", method, reply.Error.Message)
		}
		if out != nil {
			if err := json.Unmarshal(reply.Result, out); err != nil {
				p.t.Fatalf("%s: %v", method, err)
			}
		}
		return
	}
}

// eval evaluates a JavaScript expression in the page and decodes its
// value into out.
func (p *page) eval(expr string, out any) {
	p.t.Helper()
	var res struct {
		Result           struct{ Value json.RawMessage }
		ExceptionDetails *struct{ Text string }
	}
	p.call("Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true}, &res)
	if res.ExceptionDetails != nil {
		p.t.Fatalf("%s: %s", expr, res.ExceptionDetails.Text)
	}
	if err := json.Unmarshal(res.Result.Value, out); err != nil {
		p.t.Fatalf("%s: %v (value %s)", expr, err, res.Result.Value)
	}
}

// waitFor evaluates expr until it gives a non-empty string, and returns
// it.
func (p *page) waitFor(expr string) string {
	p.t.Helper()
	var s string
	for try := 0; try < 400; try++ {
		p.eval(expr, &s)
		if s != "" {
			return s
		}
		time.Sleep(50 * time.Millisecond)
	}
	p.t.Fatalf("waited in vain for %s", expr)
	return ""
}

// click scrolls the element selector finds into view and clicks its
// middle with the mouse. The element must be the one the browser finds
// there: a click on something covering it is an error.
func (p *page) click(selector string) {
	p.t.Helper()
	q, err := json.Marshal(selector)
	if err != nil {
		p.t.Fatal(err)
	}
	var at struct {
		X, Y float64
		Hit  bool
	}
	p.eval(fmt.Sprintf(`(function () {
  var el = document.querySelector(%s);
  if (!el) { return {X: -1, Y: -1, Hit: false}; }
  el.scrollIntoView({block: "center"});
  var r = el.getBoundingClientRect(), x = r.left + r.width / 2, y = r.top + r.height / 2;
  return {X: x, Y: y, Hit: el.contains(document.elementFromPoint(x, y))};
})()`, q), &at)
	if !at.Hit {
		p.t.Fatalf("%s: not on screen to click (at %v, %v)", selector, at.X, at.Y)
	}
	for _, typ := range []string{"mousePressed", "mouseReleased"} {
		p.call("Input.dispatchMouseEvent", map[string]any{"type": typ, "x": at.X, "y": at.Y, "button": "left", "clickCount": 1}, nil)
	}
}

// typeText types text into the focused element.
func (p *page) typeText(text string) {
	p.t.Helper()
	p.call("Input.insertText", map[string]any{"text": text}, nil)
}

// quote makes s a CSS attribute value.
func quote(s string) string { return `"` + strings.ReplaceAll(s, `"`, `\"`) + `"` }
