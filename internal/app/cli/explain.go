package cli

import (
	"bytes"
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/vsched/vsched/internal/app/sim"
)

const explainLong = `Runs the scenario (the built-in one without -f) and shows how the scheduler
made its most recent decision about the source (--step N: the one made in
step N; --all: every one): how many vreplicas it was asked to place or
remove, how many it did and how many are left pending, then per vreplica
every candidate pod with its node and zone, the filter that rejected it and
why, each score plugin's score and weight, and the winner.

A scenario that starts from sources (a snapshot) reconciles each of them
once before step 1: --step 0 selects those decisions.

A source that a signal step gave a demand signal first gets the source
autoscaler's decision about its vreplicas (the last one up to --step) with
the numbers that made it: the signal and the target per vreplica, the
stable and panic windows' averages and what they ask, the mode, the rate
limits, the bounds and the partition cap, and what held a decrease.`

const explainExample = `  # How the built-in scenario's compaction moved shop/payments
  %[1]s explain --source shop/payments

  # The decision made in step 4 (the eviction), and every decision in order
  %[1]s explain --source shop/orders --step 4
  %[1]s explain --source shop/orders --all

  # How a snapshot's source was reconciled when the simulation loaded it
  %[1]s explain -f examples/snapshot.yaml --source shop/new --step 0

  # A source's vreplica decision (source autoscaler) and its placement
  %[1]s explain -f examples/traffic.yaml --source kafka/orders --step 4

  # The same as JSON, with the sample deployment's configuration
  %[1]s explain -f examples/failures.yaml --source default/a --configmap deploy/sample/400-config.yaml -o json`

type explainFlags struct {
	source, format, out string
	files, configMaps   []string
	step                int
	// stepSet: --step was given; 0 is then the initial sources'
	// reconcile.
	stepSet bool
	all     bool
}

func newExplainCommand(cfg Config, env *Env) *cobra.Command {
	var f explainFlags
	cmd := &cobra.Command{
		Use:     "explain [-f SCENARIO|DIR|-]... --source NAMESPACE/NAME [--step N | --all] [-o text|json|yaml] [--out FILE] [--configmap FILE|DIR|-]...",
		Short:   "Show how the scheduler decided where a source's vreplicas go",
		Long:    explainLong,
		Example: fmt.Sprintf(explainExample, cfg.name()),
		Args:    noArgsBut("give the scenario with -f, the source with --source"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			f.stepSet = cmd.Flags().Changed("step")
			return explain(&f, cfg, env)
		},
	}
	fs := cmd.Flags()
	fs.StringArrayVarP(&f.files, "file", "f", nil, "the scenario (YAML or JSON; - for stdin), or a directory holding one scenario and the ConfigMaps to apply; repeatable: the files go together; the built-in scenario without it")
	fs.StringVar(&f.source, "source", "", "the source to explain, as namespace/name (required)")
	formatFlag(cmd, &f.format, "text", "text", "json", "yaml")
	fs.StringVar(&f.out, "out", "", "write to this file instead of stdout")
	fs.StringArrayVar(&f.configMaps, "configmap", nil, "ConfigMap manifests (file, directory or -) replacing the scenario's configuration of their kind; repeatable")
	fs.IntVar(&f.step, "step", 0, "explain the decision made in this step (1-based; 0: the reconcile of the scenario's initial sources) instead of the most recent one")
	fs.BoolVar(&f.all, "all", false, "explain every decision about the source, in order")
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
	s, configMaps, err := loadInputs(f.files, f.configMaps, cfg, "explain", env)
	if err != nil {
		return err
	}
	if err := sim.CheckSource(s, f.source); err != nil {
		return err
	}
	if err := checkStep(f, s); err != nil {
		return err
	}
	res, all, err := sim.RunExplained(context.Background(), s, sim.Options{Registry: cfg.Registry, ConfigMaps: configMaps, Explain: &key})
	if err != nil {
		return err
	}
	chosen, err := chooseDecisions(all, f, len(s.Steps))
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if f.format == "text" {
		if err := writeVReplicaDecision(&buf, res, f); err != nil {
			return err
		}
	}
	switch {
	case f.format == "text" && f.stepSet:
		err = sim.WriteDecision(&buf, f.source, chosen[0])
	case f.format == "json":
		err = writeExplainJSON(&buf, res, f, chosen)
	case f.format == "yaml":
		err = writeYAML(&buf, func(b *bytes.Buffer) error { return writeExplainJSON(b, res, f, chosen) })
	case f.all:
		err = sim.WriteExplanations(&buf, f.source, chosen)
	default:
		err = sim.WriteExplanation(&buf, f.source, chosen[0])
	}
	if err != nil {
		return err
	}
	return output(f.out, buf.Bytes(), env)
}

// writeVReplicaDecision writes, for a source that has a signal, the
// source autoscaler's decision about its vreplicas up to --step (the last
// one without it) before the scheduler's.
func writeVReplicaDecision(buf *bytes.Buffer, res *sim.Result, f *explainFlags) error {
	d, ok := chosenVReplicaDecision(res, f)
	if !ok {
		return nil
	}
	return sim.WriteVReplicaDecision(buf, f.source, d.Step, d.VReplicaDecision)
}

// checkStep checks --step against the scenario: 1 to its steps, or 0
// when it has initial sources.
func checkStep(f *explainFlags, s *sim.Scenario) error {
	first, from := 1, "1"
	if len(s.Sources) > 0 {
		first, from = 0, "0 (its initial sources)"
	}
	switch {
	case f.all && f.stepSet:
		return usagef("--step and --all: give one of them")
	case f.stepSet && f.step == 0 && first == 1:
		return usagef("--step 0: the scenario has no initial sources; its steps are 1 to %d", len(s.Steps))
	case f.stepSet && (f.step < first || f.step > len(s.Steps)):
		return usagef("--step %d: the scenario's steps are %s to %d", f.step, from, len(s.Steps))
	}
	return nil
}

// chooseDecisions picks what --step and --all ask for among every
// decision about the source: all of them, the last one of a step, or the
// most recent one.
func chooseDecisions(all []*sim.Explained, f *explainFlags, steps int) ([]*sim.Explained, error) {
	if len(all) == 0 {
		return nil, fmt.Errorf("source %s: the scheduler made no decision about it in this scenario (its vreplicas never changed)", f.source)
	}
	switch {
	case f.all:
		return all, nil
	case !f.stepSet:
		return all[len(all)-1:], nil
	}
	var in []int
	var last *sim.Explained
	for _, ex := range all {
		if len(in) == 0 || in[len(in)-1] != ex.Step+1 {
			in = append(in, ex.Step+1)
		}
		if ex.Step+1 == f.step {
			last = ex
		}
	}
	if last == nil {
		return nil, fmt.Errorf("source %s: the scheduler made no decision about it in step %d; it made one in step(s) %s", f.source, f.step, intList(in))
	}
	return []*sim.Explained{last}, nil
}

func intList(ns []int) string {
	parts := make([]string, len(ns))
	for i, n := range ns {
		parts[i] = strconv.Itoa(n)
		if n == 0 {
			parts[i] += " (the " + sim.InitialStepName + ")"
		}
	}
	return strings.Join(parts, ", ")
}
