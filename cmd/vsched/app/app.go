// Package app builds the vsched command, so that a team with its own
// plugins builds its own vsched in a few lines, the way kube-scheduler's
// app.NewSchedulerCommand(app.WithPlugin(...)) does:
//
//	func main() {
//		os.Exit(app.Run(os.Args[1:], app.WithPlugin(avoidpods.Spec.Registration())))
//	}
//
// The command is the one cmd/vsched builds (simulate, explain, validate,
// version, completion), with the team's plugins beside the in-tree ones:
// its ConfigMaps may name them, validate checks their Args, simulate and
// explain run them. examples/myvsched is a complete example.
package app

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/vsched/vsched/framework"
	"github.com/vsched/vsched/internal/app/cli"
	"github.com/vsched/vsched/plugins"
)

// Option changes the command NewCommand and Run build.
type Option func(*options)

type options struct {
	plugins  []framework.Registration
	registry *framework.Registry
	name     string
	version  string
}

// WithPlugin adds plugins to the in-tree ones (a plugin's registration is
// its framework.Spec's Registration()). A name taken twice is an error
// the command reports when run.
func WithPlugin(regs ...framework.Registration) Option {
	return func(o *options) { o.plugins = append(o.plugins, regs...) }
}

// WithRegistry replaces the in-tree plugins by reg's; WithPlugin adds to
// it. For a vsched that must not offer some in-tree plugin.
func WithRegistry(reg *framework.Registry) Option {
	return func(o *options) { o.registry = reg }
}

// WithName names the command in its usage, messages and completion
// scripts (default "vsched").
func WithName(name string) Option {
	return func(o *options) { o.name = name }
}

// WithVersion sets the version `version` reports, instead of the vsched
// module's from the build information.
func WithVersion(v string) Option {
	return func(o *options) { o.version = v }
}

// config builds the command's configuration: the registry with every
// plugin, or the error that makes one impossible.
func config(opts []Option) (cli.Config, error) {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	cfg := cli.Config{Name: o.name, Version: o.version}
	reg := o.registry
	if reg == nil {
		var err error
		if reg, err = plugins.NewInTreeRegistry(); err != nil {
			return cfg, err
		}
	} else {
		reg = reg.Clone()
	}
	for _, r := range o.plugins {
		if err := reg.Register(r); err != nil {
			return cfg, fmt.Errorf("plugin %s: %w", r.Name, err)
		}
	}
	cfg.Registry = reg
	return cfg, nil
}

// NewCommand builds the vsched command with opts, reading and writing the
// process's standard streams, for a team that mounts it in its own cobra
// tree. Its errors are returned, not printed (SilenceErrors); Run prints
// them and gives vsched's exit codes.
func NewCommand(opts ...Option) *cobra.Command {
	cfg, err := config(opts)
	env := cli.OSEnv()
	cmd := cli.NewCommand(cfg, &env)
	if err != nil {
		cmd.PersistentPreRunE = func(*cobra.Command, []string) error { return err }
	}
	return cmd
}

// Run runs the vsched command with opts on args (without the program
// name) and the process's standard streams, and returns the exit code: 0
// success, 1 invalid input or failed simulation, 2 usage error or
// unreadable file.
func Run(args []string, opts ...Option) int {
	cfg, err := config(opts)
	if err != nil {
		name := cfg.Name
		if name == "" {
			name = "vsched"
		}
		fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
		return cli.ExitInvalid
	}
	return cli.Run(cfg, args, cli.OSEnv())
}
