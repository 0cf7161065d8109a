package promtest

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/vsched/vsched/internal/testkit/nettest"
)

// Options configures a Server.
type Options struct {
	// Bin is the prometheus binary; empty means the one on $PATH.
	Bin string
	// Dir holds the configuration, the TSDB and the log; it must exist
	// (a test's t.TempDir()).
	Dir string
	// Targets are the host:port addresses scraped at /metrics.
	Targets []string
	// ScrapeInterval is how often the targets are scraped; zero means
	// 500ms.
	ScrapeInterval time.Duration
	// LookbackDelta is how far back a query looks for a series' last
	// sample (--query.lookback-delta); zero means Prometheus's 5m. A
	// series whose target stops being scraped without staleness markers
	// (after a restart, before the first scrape) lingers that long.
	LookbackDelta time.Duration
}

// Server is a prometheus process. Stop and Start make an outage: the
// server comes back on the same port with the same TSDB.
type Server struct {
	// URL is the server's base address, http://127.0.0.1:<port>.
	URL string

	bin, dir, log string
	args          []string

	mu   sync.Mutex
	cmd  *exec.Cmd
	done chan struct{}
}

// Start writes the configuration, starts prometheus on a free loopback
// port and waits until it is ready (or ctx ends). Close stops it.
func Start(ctx context.Context, o Options) (*Server, error) {
	bin := o.Bin
	if bin == "" {
		var err error
		if bin, err = Binary(); err != nil {
			return nil, err
		}
	}
	if o.ScrapeInterval <= 0 {
		o.ScrapeInterval = 500 * time.Millisecond
	}
	config := filepath.Join(o.Dir, "prometheus.yml")
	if err := os.WriteFile(config, []byte(scrapeConfig(o.Targets, o.ScrapeInterval)), 0o644); err != nil {
		return nil, err
	}
	port, err := nettest.FreePort()
	if err != nil {
		return nil, err
	}
	s := &Server{
		URL: "http://127.0.0.1:" + strconv.Itoa(port),
		bin: bin, dir: o.Dir, log: filepath.Join(o.Dir, "prometheus.log"),
		args: []string{
			"--config.file=" + config,
			"--storage.tsdb.path=" + filepath.Join(o.Dir, "tsdb"),
			"--web.listen-address=127.0.0.1:" + strconv.Itoa(port),
			"--log.level=warn",
		},
	}
	if o.LookbackDelta > 0 {
		s.args = append(s.args, fmt.Sprintf("--query.lookback-delta=%dms", o.LookbackDelta.Milliseconds()))
	}
	if err := s.Start(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

// scrapeConfig is a configuration that scrapes targets under job
// "vsched-test".
func scrapeConfig(targets []string, every time.Duration) string {
	quoted := make([]string, len(targets))
	for i, t := range targets {
		quoted[i] = strconv.Quote(t)
	}
	return fmt.Sprintf(`global:
  scrape_interval: %[1]dms
  scrape_timeout: %[1]dms
scrape_configs:
  - job_name: vsched-test
    static_configs:
      - targets: [%[2]s]
`, every.Milliseconds(), strings.Join(quoted, ", "))
}

// Start starts the stopped server again and waits until it is ready.
func (s *Server) Start(ctx context.Context) error {
	s.mu.Lock()
	if s.cmd != nil {
		s.mu.Unlock()
		return errors.New("promtest: prometheus is already running")
	}
	f, err := os.OpenFile(s.log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		s.mu.Unlock()
		return err
	}
	cmd := exec.Command(s.bin, s.args...)
	cmd.Stdout, cmd.Stderr = f, f
	// Killed with the test binary if that dies first.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		f.Close()
		s.mu.Unlock()
		return fmt.Errorf("promtest: starting %s: %w", s.bin, err)
	}
	done := make(chan struct{})
	s.cmd, s.done = cmd, done
	go func() {
		_ = cmd.Wait()
		f.Close()
		close(done)
	}()
	s.mu.Unlock()
	return s.waitReady(ctx, done)
}

// waitReady polls /-/ready until it answers 200, the process exits or ctx
// ends.
func (s *Server) waitReady(ctx context.Context, exited <-chan struct{}) error {
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, s.URL+"/-/ready", nil)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case <-exited:
			return fmt.Errorf("promtest: prometheus exited before it was ready:\n%s", s.LogTail(20))
		case <-ctx.Done():
			return fmt.Errorf("promtest: prometheus not ready: %w\n%s", ctx.Err(), s.LogTail(20))
		case <-tick.C:
		}
	}
}

// Stop kills the server and waits until it has exited; stopping a stopped
// server does nothing.
func (s *Server) Stop() {
	s.mu.Lock()
	cmd, done := s.cmd, s.done
	s.cmd, s.done = nil, nil
	s.mu.Unlock()
	if cmd == nil {
		return
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	<-done
}

// Close stops the server.
func (s *Server) Close() { s.Stop() }

// LogTail returns the last n lines of the server's log.
func (s *Server) LogTail(n int) string {
	b, err := os.ReadFile(s.log)
	if err != nil {
		return err.Error()
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}
