// Package cli implements the vsched command: simulate, explain and
// validate. cmd/vsched only hands it the process's arguments and streams.
package cli

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/vsched/vsched/config"
	"github.com/vsched/vsched/examples"
	"github.com/vsched/vsched/internal/sim"
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

// usageError is a problem with the command line.
type usageError struct{ msg string }

func (u *usageError) Error() string { return u.msg }

func usagef(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

// readError is a file that cannot be read.
type readError struct{ err error }

func (r *readError) Error() string { return r.err.Error() }

const mainUsage = `vsched tries scheduler configurations on a described cluster.

Usage:
  vsched simulate [-f SCENARIO] [-o table|json|html] [--out FILE] [--configmap FILE]... [--quiet]
  vsched explain  [-f SCENARIO] --source NAMESPACE/NAME [-o text|json] [--out FILE] [--configmap FILE]...
  vsched validate FILE...
  vsched help [COMMAND]

simulate runs the scenario's steps against an in-memory cluster with the real
scheduler, autoscaler and evictor, and prints where every vreplica is after
each step; without -f it runs the built-in scenario. explain shows how the
scheduler made its most recent decision about one source. validate checks
ConfigMap manifests (config-scheduler, config-descheduler, config-autoscaler)
and scenarios.

Exit codes: 0 success (validate: all valid), 1 invalid input or failed
simulation, 2 usage error or unreadable file.
`

// Main runs the vsched command with args (without the program name) and
// returns the exit code. It never panics: an internal failure is reported
// on one line.
func Main(args []string, env Env) (code int) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(env.Stderr, "vsched: internal error: %v\n", r)
			code = ExitInvalid
		}
	}()
	if len(args) == 0 {
		fmt.Fprint(env.Stderr, mainUsage)
		return ExitUsage
	}
	cmd, rest := args[0], args[1:]
	var err error
	switch cmd {
	case "simulate":
		err = simulate(rest, &env)
	case "explain":
		err = explain(rest, &env)
	case "validate":
		return validate(rest, &env)
	case "help", "-h", "-help", "--help":
		if len(rest) > 0 {
			return Main([]string{rest[0], "-h"}, env)
		}
		fmt.Fprint(env.Stdout, mainUsage)
		return ExitOK
	default:
		fmt.Fprintf(env.Stderr, "vsched: unknown command %q; the commands are simulate, explain, validate and help\n", cmd)
		return ExitUsage
	}
	return report(err, cmd, &env)
}

// report prints err and returns the exit code it means.
func report(err error, cmd string, env *Env) int {
	var ue *usageError
	var re *readError
	var ps sim.Problems
	var ce *config.Error
	switch {
	case err == nil:
		return ExitOK
	case errors.Is(err, flag.ErrHelp):
		return ExitOK
	case errors.As(err, &ue):
		fmt.Fprintf(env.Stderr, "vsched %s: %s\nRun \"vsched help %s\" for usage.\n", cmd, ue.msg, cmd)
		return ExitUsage
	case errors.As(err, &re):
		fmt.Fprintf(env.Stderr, "vsched %s: %v\n", cmd, re.err)
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
		fmt.Fprintf(env.Stderr, "vsched %s: %s\n", cmd, oneLine(err.Error()))
		return ExitInvalid
	}
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// stringList is a repeatable flag.
type stringList []string

func (l *stringList) String() string     { return strings.Join(*l, ",") }
func (l *stringList) Set(v string) error { *l = append(*l, v); return nil }

// parse parses flags and positional arguments in any order.
func parse(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		if args[0] == "--" {
			return append(pos, args[1:]...), nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// newFlagSet builds a command's flag set; flagError reports its errors.
func newFlagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return fs
}

// flagError turns the flag package's error into a usage error, or passes
// -h through after printing usage.
func flagError(err error, usage string, env *Env) error {
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(env.Stdout, usage)
		return err
	}
	return usagef("%v", err)
}

// loadScenario reads the scenario named by -f, or the built-in one.
func loadScenario(file string, env *Env) (*sim.Scenario, error) {
	var data []byte
	name := file
	if file == "" {
		name = "built-in:" + examples.BuiltinName
		data = examples.Builtin()
	} else {
		var err error
		if data, err = env.readFile(file); err != nil {
			return nil, &readError{err: fmt.Errorf("cannot read scenario: %w", err)}
		}
		if file == "-" {
			name = "<stdin>"
		}
	}
	s, ps := sim.ParseScenario(name, data)
	if len(ps) > 0 {
		return nil, ps
	}
	return s, nil
}

// loadConfigMaps reads every --configmap file.
func loadConfigMaps(files []string, env *Env) ([]*sim.ConfigMapFile, error) {
	var named []sim.NamedData
	for _, f := range files {
		data, err := env.readFile(f)
		if err != nil {
			return nil, &readError{err: fmt.Errorf("cannot read ConfigMap: %w", err)}
		}
		named = append(named, sim.NamedData{Name: f, Data: data})
	}
	cms, ps := sim.LoadConfigMaps(named)
	if len(ps) > 0 {
		return nil, ps
	}
	seen := map[sim.ConfigKind]string{}
	for _, cm := range cms {
		if prev, dup := seen[cm.Kind]; dup {
			return nil, usagef("--configmap: %s is given twice (%s and %s)", cm.Kind, prev, cm.ConfigMap.Name)
		}
		seen[cm.Kind] = cm.ConfigMap.Name
	}
	return cms, nil
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

const simulateUsage = `Usage: vsched simulate [-f SCENARIO] [-o table|json|html] [--out FILE] [--configmap FILE]... [--quiet]

Runs a scenario against an in-memory cluster with the real scheduler,
autoscaler and evictor, and prints the cluster after every step: the
StatefulSet's replicas, each source's placements and pending vreplicas, and
the metrics. Without -f it runs the built-in scenario.

Flags:
  -f, --file FILE       the scenario (YAML or JSON; - for stdin)
  -o, --output FORMAT   table (default), json or html
      --out FILE        write to FILE instead of stdout
      --configmap FILE  a config-scheduler, config-descheduler or
                        config-autoscaler manifest replacing the scenario's
                        own configuration of that kind; repeatable
  -q, --quiet           no progress bar
`

func simulate(args []string, env *Env) error {
	fs := newFlagSet("simulate")
	var file, format, out string
	var cms stringList
	var quiet bool
	fs.StringVar(&file, "f", "", "")
	fs.StringVar(&file, "file", "", "")
	fs.StringVar(&format, "o", "table", "")
	fs.StringVar(&format, "output", "table", "")
	fs.StringVar(&out, "out", "", "")
	fs.Var(&cms, "configmap", "")
	fs.BoolVar(&quiet, "q", false, "")
	fs.BoolVar(&quiet, "quiet", false, "")
	pos, err := parse(fs, args)
	if err != nil {
		return flagError(err, simulateUsage, env)
	}
	if len(pos) > 0 {
		return usagef("unexpected argument %q (give the scenario with -f)", pos[0])
	}
	switch format {
	case "table", "json", "html":
	default:
		return usagef("-o %q: the formats are table, json and html", format)
	}
	s, err := loadScenario(file, env)
	if err != nil {
		return err
	}
	configMaps, err := loadConfigMaps(cms, env)
	if err != nil {
		return err
	}
	opts := sim.Options{ConfigMaps: configMaps}
	var bar *progressBar
	if !quiet && sim.Operations(s) > progressThreshold && env.isTerminal(env.Stderr) {
		bar = &progressBar{w: env.Stderr, every: 100 * time.Millisecond}
		opts.Progress = bar.update
	}
	res, _, err := sim.Run(context.Background(), s, opts)
	bar.finish()
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	switch format {
	case "table":
		err = sim.WriteTable(&buf, s, res)
	case "json":
		err = sim.WriteJSON(&buf, res)
	case "html":
		err = sim.WriteHTML(&buf, s, res)
	}
	if err != nil {
		return err
	}
	return output(out, buf.Bytes(), env)
}

const explainUsage = `Usage: vsched explain [-f SCENARIO] --source NAMESPACE/NAME [-o text|json] [--out FILE] [--configmap FILE]...

Runs the scenario (the built-in one without -f) and shows the scheduler's
most recent decision about the source: per vreplica, every candidate pod,
the filter that rejected it and why, each score plugin's score and weight,
and the winner.

Flags:
  -f, --file FILE       the scenario (YAML or JSON; - for stdin)
      --source KEY      the source, as namespace/name (required)
  -o, --output FORMAT   text (default) or json
      --out FILE        write to FILE instead of stdout
      --configmap FILE  a ConfigMap manifest replacing the scenario's own
                        configuration of its kind; repeatable
`

func explain(args []string, env *Env) error {
	fs := newFlagSet("explain")
	var file, source, format, out string
	var cms stringList
	fs.StringVar(&file, "f", "", "")
	fs.StringVar(&file, "file", "", "")
	fs.StringVar(&source, "source", "", "")
	fs.StringVar(&format, "o", "text", "")
	fs.StringVar(&format, "output", "text", "")
	fs.StringVar(&out, "out", "", "")
	fs.Var(&cms, "configmap", "")
	pos, err := parse(fs, args)
	if err != nil {
		return flagError(err, explainUsage, env)
	}
	if len(pos) > 0 {
		return usagef("unexpected argument %q (give the scenario with -f, the source with --source)", pos[0])
	}
	if source == "" {
		return usagef("--source is required: the source to explain, as namespace/name")
	}
	key, err := sim.SourceKey(source)
	if err != nil {
		return usagef("--source: %v", err)
	}
	if format != "text" && format != "json" {
		return usagef("-o %q: the formats are text and json", format)
	}
	s, err := loadScenario(file, env)
	if err != nil {
		return err
	}
	configMaps, err := loadConfigMaps(cms, env)
	if err != nil {
		return err
	}
	if err := sim.CheckSource(s, source); err != nil {
		return err
	}
	_, ex, err := sim.Run(context.Background(), s, sim.Options{ConfigMaps: configMaps, Explain: &key})
	if err != nil {
		return err
	}
	if ex == nil {
		return fmt.Errorf("source %s: the scheduler made no decision about it in this scenario (its vreplicas never changed)", source)
	}
	var buf bytes.Buffer
	if format == "json" {
		err = sim.WriteExplanationJSON(&buf, source, ex)
	} else {
		err = sim.WriteExplanation(&buf, source, ex)
	}
	if err != nil {
		return err
	}
	return output(out, buf.Bytes(), env)
}

const validateUsage = `Usage: vsched validate FILE...

Checks ConfigMap manifests (config-scheduler, config-descheduler and
config-autoscaler; several per file separated by ---) and scenarios. Every
problem is printed on one line with its file, line and field.

Exit codes: 0 every file is valid, 1 a file is invalid, 2 usage error or
unreadable file.
`

func validate(args []string, env *Env) int {
	fs := newFlagSet("validate")
	files, err := parse(fs, args)
	if err != nil {
		return report(flagError(err, validateUsage, env), "validate", env)
	}
	if len(files) == 0 {
		return report(usagef("no file given"), "validate", env)
	}
	invalid := false
	for _, f := range files {
		data, err := env.readFile(f)
		if err != nil {
			return report(&readError{err: fmt.Errorf("cannot read %w", err)}, "validate", env)
		}
		name := f
		if f == "-" {
			name = "<stdin>"
		}
		// The problems are the report: stdout, like the "valid" lines.
		ps, what := sim.ValidateFile(name, data)
		for _, p := range ps {
			fmt.Fprintln(env.Stdout, p.String())
		}
		if len(ps) > 0 {
			invalid = true
		} else {
			fmt.Fprintf(env.Stdout, "%s: valid (%s)\n", name, what)
		}
	}
	if invalid {
		return ExitInvalid
	}
	return ExitOK
}
