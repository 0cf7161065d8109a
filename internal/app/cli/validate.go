package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/vsched/vsched/internal/app/sim"
)

const validateLong = `Checks ConfigMap manifests (config-scheduler, config-descheduler,
config-autoscaler and config-source-autoscaler; several per file separated
by ---) and scenarios. Files
are given as arguments or with -f (files, directories or - for stdin).
Every problem is printed on one line with its file, line and field; -o json
gives the same for CI.

Exit codes: 0 every file is valid, 1 a file is invalid, 2 usage error or
unreadable file.`

const validateExample = `  # A ConfigMap before applying it
  %[1]s validate examples/configmaps/config-scheduler.yaml

  # Every manifest of a directory, and a scenario from stdin
  cat examples/schedule.yaml | %[1]s validate -f deploy/sample/ -f -

  # For CI: the verdict and every problem as JSON
  %[1]s validate -f deploy/sample/ -o json`

type validateFlags struct {
	files  []string
	format string
}

func newValidateCommand(cfg Config, env *Env) *cobra.Command {
	var f validateFlags
	cmd := &cobra.Command{
		Use:     "validate [-f FILE|DIR|-]... [FILE|DIR]... [-o text|json|yaml]",
		Short:   "Check ConfigMap manifests and scenarios",
		Long:    validateLong,
		Example: fmt.Sprintf(validateExample, cfg.name()),
		Args:    cobra.ArbitraryArgs,
		RunE: func(_ *cobra.Command, args []string) error {
			return validate(append(f.files, args...), f.format, cfg, env)
		},
		ValidArgsFunction: func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
			return []string{"yaml", "yml", "json"}, cobra.ShellCompDirectiveFilterFileExt
		},
	}
	cmd.Flags().StringArrayVarP(&f.files, "file", "f", nil, "a file, directory or - (stdin) to check; repeatable")
	formatFlag(cmd, &f.format, "text", "text", "json", "yaml")
	manifestFlag(cmd.Flags(), "file")
	return cmd
}

// fileVerdict is one file's result, in -o json.
type fileVerdict struct {
	File  string   `json:"file"`
	Valid bool     `json:"valid"`
	Holds []string `json:"holds,omitempty"`
	// Skipped are the objects the command does not read.
	Skipped  []skippedJSON `json:"skipped,omitempty"`
	Problems []problemJSON `json:"problems,omitempty"`
}

// problemJSON is a sim.Problem in -o json.
type problemJSON struct {
	Line     int    `json:"line,omitempty"`
	Step     int    `json:"step,omitempty"` // 1-based; absent outside steps
	StepName string `json:"stepName,omitempty"`
	Field    string `json:"field,omitempty"`
	Message  string `json:"message"`
	// Text is the problem as the text output prints it.
	Text string `json:"text"`
}

type validateJSON struct {
	Version int           `json:"version"`
	Valid   bool          `json:"valid"`
	Files   []fileVerdict `json:"files"`
}

func validate(names []string, format string, cfg Config, env *Env) error {
	if len(names) == 0 {
		return usagef("no file given")
	}
	if err := checkFormat(&format, map[string]string{"table": "text"}, "text", "json", "yaml"); err != nil {
		return err
	}
	inputs, err := readInputs(names, "file", env)
	if err != nil {
		return err
	}
	res := validateJSON{Version: sim.FormatVersion, Valid: true}
	var text strings.Builder
	for _, in := range inputs {
		r := sim.CheckFile(in.Name, in.Data, cfg.Registry)
		v := fileVerdict{File: in.Name, Valid: len(r.Problems) == 0, Holds: r.Holds}
		for _, p := range r.Problems {
			fmt.Fprintln(&text, p.String())
			v.Problems = append(v.Problems, toProblemJSON(p))
		}
		for _, sk := range r.Skipped {
			v.Skipped = append(v.Skipped, skippedJSON{Line: sk.Line, Kind: sk.Kind, Name: sk.Name})
		}
		text.WriteString(verdictLine(in.Name, r, cfg.name()))
		res.Valid = res.Valid && v.Valid
		res.Files = append(res.Files, v)
	}
	// In text, the problems are the report: stdout, like the "valid" lines.
	out, err := formatted(format, res, text.String())
	if err != nil {
		return err
	}
	if _, err := env.Stdout.Write(out); err != nil {
		return err
	}
	if !res.Valid {
		return reportedError{}
	}
	return nil
}

// skippedJSON is an object validate skipped, in -o json.
type skippedJSON struct {
	Line int    `json:"line,omitempty"`
	Kind string `json:"kind"`
	Name string `json:"name,omitempty"`
}

// verdictLine is the line a file ends with in the text output: valid, or
// holding nothing vsched reads, with a note of what was skipped.
func verdictLine(name string, r sim.FileReport, cmd string) string {
	note := ""
	if len(r.Skipped) > 0 {
		note = fmt.Sprintf("skipped %s, which %s does not read", sim.SkippedList(r.Skipped), cmd)
	}
	switch {
	case len(r.Problems) > 0 && note != "":
		return fmt.Sprintf("%s: note: %s\n", name, note)
	case len(r.Problems) > 0:
		return ""
	case len(r.Holds) == 0:
		return fmt.Sprintf("%s: nothing to check; %s\n", name, note)
	case note != "":
		return fmt.Sprintf("%s: valid (%s); %s\n", name, strings.Join(r.Holds, ", "), note)
	}
	return fmt.Sprintf("%s: valid (%s)\n", name, strings.Join(r.Holds, ", "))
}

func toProblemJSON(p sim.Problem) problemJSON {
	out := problemJSON{Line: p.Line, StepName: p.StepName, Field: p.Field, Message: p.Message, Text: p.String()}
	if p.Step >= 0 {
		out.Step = p.Step + 1
	}
	return out
}

// formatted is v as indented JSON or as YAML, or else text.
func formatted(format string, v any, text string) ([]byte, error) {
	var buf bytes.Buffer
	var err error
	switch format {
	case "json":
		err = writeIndented(&buf, v)
	case "yaml":
		err = writeYAML(&buf, func(b *bytes.Buffer) error { return writeIndented(b, v) })
	default:
		buf.WriteString(text)
	}
	return buf.Bytes(), err
}

func writeIndented(b *bytes.Buffer, v any) error {
	enc := json.NewEncoder(b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
