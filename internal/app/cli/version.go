package cli

import (
	"bytes"
	"fmt"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// modulePath is vsched's module; an embedder's binary has its own main
// module, and vsched among its dependencies.
const modulePath = "github.com/vsched/vsched"

// versionInfo is what `version` reports.
type versionInfo struct {
	// Version is the vsched module's version ("(devel)" for a build
	// from a work tree).
	Version string `json:"version"`
	// Commit and CommitTime come from the build's VCS stamp, when it has
	// one (go build without -buildvcs=false, in a git checkout).
	Commit     string `json:"commit,omitempty"`
	CommitTime string `json:"commitTime,omitempty"`
	Modified   bool   `json:"modified,omitempty"`
	// Main is the main module when it is not vsched (a team's own
	// vsched built with cmd/vsched/app).
	Main      string `json:"main,omitempty"`
	GoVersion string `json:"goVersion"`
}

// readVersion reads the build information; override replaces the version
// (as a release sets it with -ldflags).
func readVersion(override string, read func() (*debug.BuildInfo, bool)) versionInfo {
	v := versionInfo{Version: "unknown"}
	bi, ok := read()
	if ok {
		v.GoVersion = bi.GoVersion
		if bi.Main.Path == modulePath {
			v.Version = bi.Main.Version
		} else {
			v.Main = bi.Main.Path + " " + bi.Main.Version
			for _, d := range bi.Deps {
				if d.Path == modulePath {
					v.Version = d.Version
				}
			}
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				v.Commit = s.Value
			case "vcs.time":
				v.CommitTime = s.Value
			case "vcs.modified":
				v.Modified = s.Value == "true"
			}
		}
	}
	if override != "" {
		v.Version = override
	}
	return v
}

func (v versionInfo) text() string {
	var b bytes.Buffer
	fmt.Fprintf(&b, "vsched %s\n", v.Version)
	commit := v.Commit
	switch {
	case commit == "":
		commit = "unknown (built without VCS information)"
	case v.Modified:
		commit += " (modified)"
	}
	fmt.Fprintf(&b, "commit %s\n", commit)
	if v.CommitTime != "" {
		fmt.Fprintf(&b, "commit time %s\n", v.CommitTime)
	}
	if v.Main != "" {
		fmt.Fprintf(&b, "built into %s\n", v.Main)
	}
	fmt.Fprintf(&b, "go %s\n", v.GoVersion)
	return b.String()
}

// buildInfo is debug.ReadBuildInfo; tests replace it.
var buildInfo = debug.ReadBuildInfo

func newVersionCommand(cfg Config, env *Env) *cobra.Command {
	var format string
	cmd := &cobra.Command{
		Use:     "version [-o text|json|yaml]",
		Short:   "Print the vsched module's version and commit",
		Example: fmt.Sprintf("  %[1]s version\n  %[1]s version -o json", cfg.name()),
		Args:    noArgs,
		RunE: func(*cobra.Command, []string) error {
			if err := checkFormat(&format, map[string]string{"table": "text"}, "text", "json", "yaml"); err != nil {
				return err
			}
			v := readVersion(cfg.Version, buildInfo)
			out, err := formatted(format, v, v.text())
			if err != nil {
				return err
			}
			_, err = env.Stdout.Write(out)
			return err
		},
	}
	formatFlag(cmd, &format, "text", "text", "json", "yaml")
	return cmd
}

var noArgs = noArgsBut("")

// noArgsBut refuses positional arguments, saying what to give instead
// (hint) when there is something to say.
func noArgsBut(hint string) cobra.PositionalArgs {
	if hint != "" {
		hint = " (" + hint + ")"
	}
	return func(_ *cobra.Command, args []string) error {
		if len(args) > 0 {
			return usagef("unexpected argument %q%s", args[0], hint)
		}
		return nil
	}
}

const completionLong = `Prints a completion script for bash or zsh: commands, flags, -o values and
manifest files complete on TAB.

bash (needs the bash-completion package):
  source <(%[1]s completion bash)
  # for every session:
  %[1]s completion bash > /etc/bash_completion.d/%[1]s

zsh:
  source <(%[1]s completion zsh)
  # for every session (a directory of your $fpath):
  %[1]s completion zsh > "${fpath[1]}/_%[1]s"`

func newCompletionCommand(env *Env) *cobra.Command {
	return &cobra.Command{
		Use:       "completion bash|zsh",
		Short:     "Print a shell completion script (bash or zsh)",
		Args:      completionArgs,
		ValidArgs: []string{"bash", "zsh"},
		PreRun: func(cmd *cobra.Command, _ []string) {
			cmd.Long = fmt.Sprintf(completionLong, cmd.Root().Name())
		},
		Example: "  source <(vsched completion bash)\n  source <(vsched completion zsh)",
		RunE: func(cmd *cobra.Command, args []string) error {
			if args[0] == "zsh" {
				return cmd.Root().GenZshCompletion(env.Stdout)
			}
			return cmd.Root().GenBashCompletionV2(env.Stdout, true)
		},
	}
}

func completionArgs(_ *cobra.Command, args []string) error {
	switch {
	case len(args) != 1:
		return usagef("give one shell: bash or zsh")
	case args[0] != "bash" && args[0] != "zsh":
		return usagef("shell %q: the shells are bash and zsh", args[0])
	}
	return nil
}
