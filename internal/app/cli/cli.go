// Package cli implements the vsched command (simulate, explain, validate,
// snapshot, version, completion) with spf13/cobra. cmd/vsched only hands it the
// process's arguments and streams; cmd/vsched/app exposes NewCommand to
// embedders who build their own vsched with their plugins.
package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/vsched/vsched/config"
	"github.com/vsched/vsched/framework"
	"github.com/vsched/vsched/internal/app/sim"
)

// Exit codes.
const (
	// ExitOK: the command did what was asked (validate: every file is
	// valid).
	ExitOK = 0
	// ExitInvalid: an input is invalid, or the simulation failed.
	ExitInvalid = 1
	// ExitUsage: the command line is wrong, or a file cannot be read.
	ExitUsage = 2
)

// Env is what a command may touch.
type Env struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	// IsTerminal reports whether w is a terminal, for the progress bar;
	// nil means it is when w is an *os.File on a character device.
	IsTerminal func(w io.Writer) bool
	// ReadFile reads a file; nil means os.ReadFile.
	ReadFile func(name string) ([]byte, error)
	// WriteFile writes --out; nil means os.WriteFile.
	WriteFile func(name string, data []byte) error
	// ReadDir lists the manifest files (.yaml, .yml, .json) of a
	// directory, sorted, as paths; ok is false when name is not a
	// directory. nil means the file system's.
	ReadDir func(name string) (files []string, ok bool, err error)
	// KubeClients reaches the cluster for snapshot; nil means through
	// the kubeconfig.
	KubeClients KubeClients
	// Now is the time snapshot records; nil means time.Now.
	Now func() time.Time
}

// Config is what an embedder may change in the command.
type Config struct {
	// Registry holds the plugins ConfigMaps may name; nil means the
	// in-tree plugins only.
	Registry *framework.Registry
	// Name is the command's name in usage and messages; "" means
	// "vsched".
	Name string
	// Version overrides the version `version` reports (as set with
	// -ldflags); "" means the module's, from the build information.
	Version string
}

// OSEnv is the process's environment.
func OSEnv() Env {
	return Env{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr}
}

func (e *Env) isTerminal(w io.Writer) bool {
	if e.IsTerminal != nil {
		return e.IsTerminal(w)
	}
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

func (e *Env) readFile(name string) ([]byte, error) {
	if name == "-" {
		return io.ReadAll(e.Stdin)
	}
	if e.ReadFile != nil {
		return e.ReadFile(name)
	}
	return os.ReadFile(name)
}

func (e *Env) writeFile(name string, data []byte) error {
	if e.WriteFile != nil {
		return e.WriteFile(name, data)
	}
	return os.WriteFile(name, data, 0o644)
}

func (e *Env) readDir(name string) ([]string, bool, error) {
	if e.ReadDir != nil {
		return e.ReadDir(name)
	}
	st, err := os.Stat(name)
	if err != nil || !st.IsDir() {
		return nil, false, nil // reading it as a file reports the error
	}
	entries, err := os.ReadDir(name)
	if err != nil {
		return nil, true, err
	}
	var out []string
	for _, en := range entries {
		if !en.IsDir() && isManifestName(en.Name()) {
			out = append(out, filepath.Join(name, en.Name()))
		}
	}
	sort.Strings(out)
	return out, true, nil
}

func isManifestName(name string) bool {
	for _, ext := range []string{".yaml", ".yml", ".json"} {
		if strings.HasSuffix(name, ext) {
			return true
		}
	}
	return false
}

// usageError is a problem with the command line.
type usageError struct{ msg string }

func (u *usageError) Error() string { return u.msg }

func usagef(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

// readError is a file that cannot be read.
type readError struct{ err error }

func (r *readError) Error() string { return r.err.Error() }

// reportedError means the command printed what was wrong already (validate
// prints its problems on stdout); it only sets the exit code.
type reportedError struct{}

func (reportedError) Error() string { return "invalid input" }

// Main runs the vsched command with args (without the program name) and
// returns the exit code.
func Main(args []string, env Env) int {
	return Run(Config{}, args, env)
}

// Run runs the command cfg describes with args and returns the exit code.
// It never panics: an internal failure is reported on one line.
func Run(cfg Config, args []string, env Env) (code int) {
	name := cfg.name()
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(env.Stderr, "%s: internal error: %v\n", name, r)
			code = ExitInvalid
		}
	}()
	root := NewCommand(cfg, &env)
	root.SetArgs(args)
	cmd, err := root.ExecuteC()
	return report(err, cmd, &env)
}

func (c Config) name() string {
	if c.Name == "" {
		return "vsched"
	}
	return c.Name
}

// report prints err and returns the exit code it means.
func report(err error, cmd *cobra.Command, env *Env) int {
	var ue *usageError
	var re *readError
	var ps sim.Problems
	var ce *config.Error
	path := cmd.CommandPath()
	switch {
	case err == nil:
		return ExitOK
	case errors.Is(err, reportedError{}):
		return ExitInvalid
	case errors.As(err, &ue):
		help := cmd.Root().Name() + " help"
		if cmd.HasParent() {
			help += " " + cmd.Name()
		}
		fmt.Fprintf(env.Stderr, "%s: %s\nRun %q for usage.\n", path, ue.msg, help)
		return ExitUsage
	case errors.As(err, &re):
		fmt.Fprintf(env.Stderr, "%s: %v\n", path, re.err)
		return ExitUsage
	case errors.As(err, &ps):
		for _, p := range ps {
			fmt.Fprintln(env.Stderr, p.String())
		}
		return ExitInvalid
	case errors.As(err, &ce):
		for _, p := range ce.Problems {
			fmt.Fprintln(env.Stderr, p.String())
		}
		return ExitInvalid
	default:
		fmt.Fprintf(env.Stderr, "%s: %s\n", path, oneLine(err.Error()))
		return ExitInvalid
	}
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// output writes data to --out, or to stdout.
func output(out string, data []byte, env *Env) error {
	if out == "" || out == "-" {
		_, err := env.Stdout.Write(data)
		return err
	}
	if err := env.writeFile(out, data); err != nil {
		return &readError{err: fmt.Errorf("cannot write --out: %w", err)}
	}
	return nil
}
