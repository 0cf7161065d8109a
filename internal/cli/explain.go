package cli

import (
	"bytes"
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/vsched/vsched/internal/sim"
)

const explainLong = `Runs the scenario (the built-in one without -f) and shows how the scheduler
made its most recent decision about the source: per vreplica, every
candidate pod, the filter that rejected it and why, each score plugin's
score and weight, and the winner.`

const explainExample = `  # How the built-in scenario's compaction moved shop/payments
  %[1]s explain --source shop/payments

  # The same as JSON, with the sample deployment's configuration
  %[1]s explain -f examples/failures.yaml --source kafka/orders --configmap deploy/sample/400-config.yaml -o json`

type explainFlags struct {
	file, source, format, out string
	configMaps                []string
}

func newExplainCommand(cfg Config, env *Env) *cobra.Command {
	var f explainFlags
	cmd := &cobra.Command{
		Use:     "explain [-f SCENARIO] --source NAMESPACE/NAME [-o text|json|yaml] [--out FILE] [--configmap FILE|DIR]...",
		Short:   "Show how the scheduler decided where a source's vreplicas go",
		Long:    explainLong,
		Example: fmt.Sprintf(explainExample, cfg.name()),
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usagef("unexpected argument %q (give the scenario with -f, the source with --source)", args[0])
			}
			return nil
		},
		RunE: func(*cobra.Command, []string) error { return explain(&f, cfg, env) },
	}
	fs := cmd.Flags()
	fs.StringVarP(&f.file, "file", "f", "", "the scenario (YAML or JSON; - for stdin); the built-in one without it")
	fs.StringVar(&f.source, "source", "", "the source to explain, as namespace/name (required)")
	formatFlag(cmd, &f.format, "text", "text", "json", "yaml")
	fs.StringVar(&f.out, "out", "", "write to this file instead of stdout")
	fs.StringArrayVar(&f.configMaps, "configmap", nil, "ConfigMap manifests (file, directory or -) replacing the scenario's configuration of their kind; repeatable")
	manifestFlag(fs, "file")
	manifestFlag(fs, "configmap")
	return cmd
}

func explain(f *explainFlags, cfg Config, env *Env) error {
	if f.source == "" {
		return usagef("--source is required: the source to explain, as namespace/name")
	}
	key, err := sim.SourceKey(f.source)
	if err != nil {
		return usagef("--source: %v", err)
	}
	if err := checkFormat(&f.format, map[string]string{"table": "text"}, "text", "json", "yaml"); err != nil {
		return err
	}
	s, err := loadScenario(f.file, cfg, env)
	if err != nil {
		return err
	}
	configMaps, err := loadConfigMaps(f.configMaps, cfg, "explain", env)
	if err != nil {
		return err
	}
	if err := sim.CheckSource(s, f.source); err != nil {
		return err
	}
	_, ex, err := sim.Run(context.Background(), s, sim.Options{Registry: cfg.Registry, ConfigMaps: configMaps, Explain: &key})
	if err != nil {
		return err
	}
	if ex == nil {
		return fmt.Errorf("source %s: the scheduler made no decision about it in this scenario (its vreplicas never changed)", f.source)
	}
	var buf bytes.Buffer
	switch f.format {
	case "json":
		err = sim.WriteExplanationJSON(&buf, f.source, ex)
	case "yaml":
		err = writeYAML(&buf, func(b *bytes.Buffer) error { return sim.WriteExplanationJSON(b, f.source, ex) })
	default:
		err = sim.WriteExplanation(&buf, f.source, ex)
	}
	if err != nil {
		return err
	}
	return output(f.out, buf.Bytes(), env)
}
