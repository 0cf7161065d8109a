package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

const rootLong = `%[1]s tries scheduler configurations on a described cluster.

simulate runs a scenario's steps against an in-memory cluster with the real
scheduler, autoscaler and evictor, and prints where every vreplica is after
each step; without -f it runs the built-in scenario. explain shows how the
scheduler made a decision about one source. validate checks ConfigMap
manifests (config-scheduler, config-descheduler, config-autoscaler) and
scenarios. snapshot writes a live cluster as a scenario to simulate.

Exit codes: 0 success (validate: all valid), 1 invalid input or failed
simulation, 2 usage error or unreadable file.`

const rootExample = `  # Run the built-in scenario and print its table
  %[1]s simulate

  # Try the sample deployment's ConfigMaps on a scenario, as an HTML report
  %[1]s simulate -f examples/failures.yaml --configmap deploy/sample/400-config.yaml -o html --out report.html

  # Check every manifest of a directory before applying it
  %[1]s validate -f deploy/sample/`

// NewCommand builds the vsched command tree; its commands read and write
// through env.
func NewCommand(cfg Config, env *Env) *cobra.Command {
	name := cfg.name()
	root := &cobra.Command{
		Use:           name,
		Short:         "Try vsched scheduler configurations on a described cluster",
		Long:          fmt.Sprintf(rootLong, name),
		Example:       fmt.Sprintf(rootExample, name),
		Args:          cobra.ArbitraryArgs,
		SilenceErrors: true,
		SilenceUsage:  true,
		// A name of two words ("kubectl vsched", as a kubectl plugin)
		// shows whole in the usage lines, not only its first word.
		Annotations: map[string]string{cobra.CommandDisplayNameAnnotation: name},
		// Runnable, so that an unknown command is an error (exit 2)
		// rather than help.
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				cmd.SetOut(env.Stderr)
				_ = cmd.Usage()
				return usagef("no command given")
			}
			hint := ""
			if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
				hint = fmt.Sprintf(" (did you mean %q?)", s[0])
			}
			return usagef("unknown command %q%s; the commands are %s", args[0], hint, commandList(cmd))
		},
	}
	root.SetIn(env.Stdin)
	root.SetOut(env.Stdout)
	root.SetErr(env.Stderr)
	root.CompletionOptions.DisableDefaultCmd = true
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usagef("%v", err) })
	root.AddCommand(
		newSimulateCommand(cfg, env),
		newExplainCommand(cfg, env),
		newValidateCommand(cfg, env),
		newSnapshotCommand(cfg, env),
		newGetCommand(cfg, env),
		newVersionCommand(cfg, env),
		newCompletionCommand(env),
	)
	// The use lines list the flags already.
	for _, c := range append(root.Commands(), root) {
		c.DisableFlagsInUseLine = true
	}
	return root
}

func commandList(root *cobra.Command) string {
	var names []string
	for _, c := range root.Commands() {
		if c.IsAvailableCommand() {
			names = append(names, c.Name())
		}
	}
	return strings.Join(names, ", ") + " and help"
}

// formatFlag adds -o/--output with its allowed values, completed by the
// shell.
func formatFlag(cmd *cobra.Command, dst *string, def string, formats ...string) {
	cmd.Flags().StringVarP(dst, "output", "o", def, "output format: "+strings.Join(formats, ", "))
	_ = cmd.RegisterFlagCompletionFunc("output", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return formats, cobra.ShellCompDirectiveNoFileComp
	})
}

// checkFormat rejects a format the command does not write; synonyms maps
// accepted aliases to their format.
func checkFormat(format *string, synonyms map[string]string, formats ...string) error {
	if to, ok := synonyms[*format]; ok {
		*format = to
	}
	for _, f := range formats {
		if *format == f {
			return nil
		}
	}
	return usagef("-o %q: the formats are %s", *format, joinOr(formats))
}

func joinOr(list []string) string {
	if len(list) < 2 {
		return strings.Join(list, "")
	}
	return strings.Join(list[:len(list)-1], ", ") + " and " + list[len(list)-1]
}

// manifestFlag marks a flag as taking manifest files or directories, for
// the shell's completion.
func manifestFlag(fs *pflag.FlagSet, name string) {
	_ = cobra.MarkFlagFilename(fs, name, "yaml", "yml", "json")
}
