//go:build e2e

package harness

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Proc is a child process run in its own process group, so that stopping it
// stops everything it started. Its output goes to a log file.
type Proc struct {
	Name string
	Path string
	Args []string
	Env  []string
	Log  string

	mu   sync.Mutex
	cmd  *exec.Cmd
	done chan struct{}
	err  error
	// started is the log's size when the running process was started:
	// what it logs comes after.
	started int64
}

// Start starts the process. It is an error to start a running one.
func (p *Proc) Start() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cmd != nil {
		return fmt.Errorf("%s: already running", p.Name)
	}
	f, err := os.OpenFile(p.Log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return err
	}
	p.started = st.Size()
	fmt.Fprintf(f, "\n===== %s start %s: %s %s\n", p.Name, time.Now().Format(time.RFC3339Nano), p.Path, strings.Join(p.Args, " "))
	cmd := exec.Command(p.Path, p.Args...)
	cmd.Env = append(os.Environ(), p.Env...)
	cmd.Stdout, cmd.Stderr = f, f
	// Own process group (killed as a whole), and killed with the test
	// binary if that dies first.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		f.Close()
		return fmt.Errorf("%s: %w", p.Name, err)
	}
	done := make(chan struct{})
	p.cmd, p.done, p.err = cmd, done, nil
	go func() {
		err := cmd.Wait()
		f.Close()
		p.mu.Lock()
		p.err = err
		p.mu.Unlock()
		close(done)
	}()
	return nil
}

// Running reports whether the process has been started and not exited.
func (p *Proc) Running() bool {
	p.mu.Lock()
	done := p.done
	p.mu.Unlock()
	if done == nil {
		return false
	}
	select {
	case <-done:
		return false
	default:
		return true
	}
}

// Stop sends sig to the process group and waits up to grace for it to exit,
// then kills the group. Stopping a process that is not running is a no-op.
func (p *Proc) Stop(sig syscall.Signal, grace time.Duration) {
	p.mu.Lock()
	cmd, done := p.cmd, p.done
	p.mu.Unlock()
	if cmd == nil {
		return
	}
	pgid := cmd.Process.Pid
	_ = syscall.Kill(-pgid, syscall.SIGCONT) // a frozen process cannot handle sig
	_ = syscall.Kill(-pgid, sig)
	select {
	case <-done:
	case <-time.After(grace):
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		<-done
	}
	// Children that outlived the leader of the group.
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	p.mu.Lock()
	p.cmd, p.done = nil, nil
	p.mu.Unlock()
}

// Signal sends sig to the process group.
func (p *Proc) Signal(sig syscall.Signal) error {
	p.mu.Lock()
	cmd := p.cmd
	p.mu.Unlock()
	if cmd == nil {
		return fmt.Errorf("%s is not running", p.Name)
	}
	return syscall.Kill(-cmd.Process.Pid, sig)
}

// Kill stops the process at once (SIGKILL), as a crash would.
func (p *Proc) Kill() { p.Stop(syscall.SIGKILL, 5*time.Second) }

// Terminate stops the process gracefully (SIGTERM, then SIGKILL after 10s).
func (p *Proc) Terminate() { p.Stop(syscall.SIGTERM, 10*time.Second) }

// Pid is the running process's id, or 0.
func (p *Proc) Pid() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cmd == nil || p.cmd.Process == nil {
		return 0
	}
	return p.cmd.Process.Pid
}

// ExitErr is the process's exit error once it exited on its own.
func (p *Proc) ExitErr() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.err
}

// StartOffset is where, in the log, the output of the last start begins.
func (p *Proc) StartOffset() int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.started
}

// LogOffset is the log's size now: what the process logs from now on comes
// after it.
func (p *Proc) LogOffset() int64 {
	st, err := os.Stat(p.Log)
	if err != nil {
		return 0
	}
	return st.Size()
}

// LogEntry is one JSON line of a log (zap's JSON encoder, as knative's
// logging configures it: the message under "message"): its message, its
// fields and where it starts in the log.
type LogEntry struct {
	Offset int64
	Msg    string
	Fields map[string]any
}

// LogEntries returns the JSON lines of the log from offset on; other lines
// (klog's, the start banners) and a last line still being written are
// skipped.
func (p *Proc) LogEntries(offset int64) ([]LogEntry, error) {
	f, err := os.Open(p.Log)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if _, err := f.Seek(offset, io.SeekStart); err != nil {
		return nil, err
	}
	b, err := io.ReadAll(f)
	if err != nil {
		return nil, err
	}
	var out []LogEntry
	for pos := 0; pos < len(b); {
		end := bytes.IndexByte(b[pos:], '\n')
		if end < 0 {
			break
		}
		line := b[pos : pos+end]
		var fields map[string]any
		if len(line) > 0 && line[0] == '{' && json.Unmarshal(line, &fields) == nil {
			msg, _ := fields["message"].(string) // knative's encoder
			if m, ok := fields["msg"].(string); ok && msg == "" {
				msg = m // zap's production default
			}
			out = append(out, LogEntry{Offset: offset + int64(pos), Msg: msg, Fields: fields})
		}
		pos += end + 1
	}
	return out, nil
}

// Tail returns the last n lines of the process's log.
func (p *Proc) Tail(n int) string {
	return tailFile(p.Log, n)
}

func tailFile(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	var lines [][]byte
	for _, l := range bytes.Split(bytes.TrimRight(b, "\n"), []byte("\n")) {
		// knative's controller logs every successful reconcile.
		if !bytes.Contains(l, []byte(`"Reconcile succeeded"`)) {
			lines = append(lines, l)
		}
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return string(bytes.Join(lines, []byte("\n")))
}

var errNotFound = errors.New("not found")

// findBinary returns dir/name when it exists and is executable.
func findBinary(dir, name string) (string, error) {
	p := filepath.Join(dir, name)
	st, err := os.Stat(p)
	if err != nil {
		return "", fmt.Errorf("%s: %w (run e2e/tools/build.sh)", p, errNotFound)
	}
	if st.Mode()&0o111 == 0 {
		return "", fmt.Errorf("%s is not executable", p)
	}
	return p, nil
}
