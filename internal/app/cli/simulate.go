package cli

import (
	"bytes"
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"
	"sigs.k8s.io/yaml"

	"github.com/vsched/vsched/internal/app/sim"
)

const simulateLong = `Runs a scenario against an in-memory cluster with the real scheduler,
autoscaler and evictor, and prints the cluster after every step: the
StatefulSet's replicas, each source's placements and pending vreplicas, and
the metrics. Without -f it runs the built-in scenario.

-f takes a scenario file, - for stdin, or a directory (its .yaml, .yml and
.json files, not recursing), and may be repeated: the files go together and
must hold exactly one scenario (the document without kind); the ConfigMaps
among the others apply as --configmap's do, and the objects vsched does not
read are skipped with a note.

-o table (the default) is for people, -o json and -o yaml are the stable
format, -o html a self-contained report. --configmap takes real
config-scheduler, config-descheduler and config-autoscaler manifests (files,
directories or - for stdin), which replace the scenario's own configuration
of their kind; each kind may be given once.`

const simulateExample = `  # The built-in scenario
  %[1]s simulate

  # A scenario of yours, as JSON
  %[1]s simulate -f examples/failures.yaml -o json

  # The same with the ConfigMaps you are about to apply
  %[1]s simulate -f examples/failures.yaml --configmap deploy/sample/400-config.yaml

  # A directory holding a scenario (a snapshot) and the ConfigMaps to try on it
  %[1]s simulate -f examples/whatif/

  # The same with files: a snapshot and the deployment's ConfigMaps
  %[1]s simulate -f examples/snapshot.yaml -f deploy/sample/400-config.yaml

  # A scenario from stdin, the report to a file
  cat examples/compact.yaml | %[1]s simulate -f - -o html --out report.html`

type simulateFlags struct {
	format, out       string
	files, configMaps []string
	quiet             bool
}

func newSimulateCommand(cfg Config, env *Env) *cobra.Command {
	var f simulateFlags
	cmd := &cobra.Command{
		Use:     "simulate [-f SCENARIO|DIR|-]... [-o table|json|yaml|html] [--out FILE] [--configmap FILE|DIR|-]... [--quiet]",
		Short:   "Run a scenario and print where every vreplica is after each step",
		Long:    simulateLong,
		Example: fmt.Sprintf(simulateExample, cfg.name()),
		Args:    noArgsBut("give the scenario with -f"),
		RunE:    func(*cobra.Command, []string) error { return simulate(&f, cfg, env) },
	}
	fs := cmd.Flags()
	fs.StringArrayVarP(&f.files, "file", "f", nil, "the scenario (YAML or JSON; - for stdin), or a directory holding one scenario and the ConfigMaps to apply; repeatable: the files go together; the built-in scenario without it")
	formatFlag(cmd, &f.format, "table", "table", "json", "yaml", "html")
	fs.StringVar(&f.out, "out", "", "write to this file instead of stdout")
	fs.StringArrayVar(&f.configMaps, "configmap", nil, "ConfigMap manifests (file, directory or -) replacing the scenario's configuration of their kind; repeatable")
	fs.BoolVarP(&f.quiet, "quiet", "q", false, "no progress bar")
	manifestFlag(fs, "file")
	manifestFlag(fs, "configmap")
	return cmd
}

func simulate(f *simulateFlags, cfg Config, env *Env) error {
	if err := checkFormat(&f.format, nil, "table", "json", "yaml", "html"); err != nil {
		return err
	}
	s, configMaps, err := loadInputs(f.files, f.configMaps, cfg, "simulate", env)
	if err != nil {
		return err
	}
	opts := sim.Options{Registry: cfg.Registry, ConfigMaps: configMaps}
	// The report puts each source's explanation one click away.
	opts.ExplainAll = f.format == "html"
	var bar *progressBar
	if !f.quiet && sim.Operations(s) > progressThreshold && env.isTerminal(env.Stderr) {
		bar = &progressBar{w: env.Stderr, every: 100 * time.Millisecond}
		opts.Progress = bar.update
	}
	res, _, err := sim.Run(context.Background(), s, opts)
	bar.finish()
	if err != nil {
		return err
	}
	for _, w := range res.Warnings {
		fmt.Fprintf(env.Stderr, "%s simulate: warning: %s\n", cfg.name(), w)
	}
	var buf bytes.Buffer
	switch f.format {
	case "table":
		err = sim.WriteTable(&buf, s, res)
	case "json":
		err = sim.WriteJSON(&buf, res)
	case "yaml":
		err = writeYAML(&buf, func(b *bytes.Buffer) error { return sim.WriteJSON(b, res) })
	case "html":
		err = sim.WriteHTML(&buf, s, res)
	}
	if err != nil {
		return err
	}
	return output(f.out, buf.Bytes(), env)
}

// writeYAML writes as YAML what writeJSON writes as JSON: the same fields,
// keys sorted.
func writeYAML(w *bytes.Buffer, writeJSON func(*bytes.Buffer) error) error {
	var j bytes.Buffer
	if err := writeJSON(&j); err != nil {
		return err
	}
	y, err := yaml.JSONToYAML(j.Bytes())
	if err != nil {
		return err
	}
	w.Write(y)
	return nil
}
