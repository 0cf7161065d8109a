package cli

import (
	"fmt"
	"strings"

	"github.com/vsched/vsched/examples"
	"github.com/vsched/vsched/internal/app/sim"
)

// stdinName names standard input in messages.
const stdinName = "<stdin>"

// readInputs reads what -f (or a positional argument) names: files,
// directories (their .yaml, .yml and .json files, sorted, not recursing) and
// "-" for standard input, in the order given. what names the input in
// messages ("ConfigMap", "file").
func readInputs(names []string, what string, env *Env) ([]sim.NamedData, error) {
	var out []sim.NamedData
	stdinRead := false
	for _, n := range names {
		if n == "-" {
			if stdinRead {
				return nil, usagef("- (standard input) is given twice")
			}
			stdinRead = true
			data, err := env.readFile("-")
			if err != nil {
				return nil, &readError{err: fmt.Errorf("cannot read %s from standard input: %w", what, err)}
			}
			out = append(out, sim.NamedData{Name: stdinName, Data: data})
			continue
		}
		files, isDir, err := env.readDir(n)
		if err != nil {
			return nil, &readError{err: fmt.Errorf("cannot read %s: %w", what, err)}
		}
		if !isDir {
			files = []string{n}
		} else if len(files) == 0 {
			return nil, &readError{err: fmt.Errorf("directory %s holds no .yaml, .yml or .json file", n)}
		}
		for _, f := range files {
			data, err := env.readFile(f)
			if err != nil {
				return nil, &readError{err: fmt.Errorf("cannot read %s: %w", what, err)}
			}
			out = append(out, sim.NamedData{Name: f, Data: data})
		}
	}
	return out, nil
}

// scenarioHelp says what -f takes, for messages.
const scenarioHelp = "a scenario is the document without kind, starting version: 1; ConfigMaps go with it"

// loadScenario reads what -f names, or the built-in scenario: files, -
// and directories, which together hold one scenario and may hold
// ConfigMaps beside it (returned, to act as --configmap's) and manifests
// vsched does not read (skipped with a note).
func loadScenario(files []string, cfg Config, cmd string, env *Env) (*sim.Scenario, []*sim.ConfigMapFile, error) {
	if len(files) == 0 {
		s, ps := sim.ReadScenario("built-in:"+examples.BuiltinName, examples.Builtin(), cfg.Registry)
		if len(ps) > 0 {
			return nil, nil, ps
		}
		return s, nil, nil
	}
	named, err := readInputs(files, "scenario", env)
	if err != nil {
		return nil, nil, err
	}
	scenarios, manifests, ps := sim.SplitInputs(named)
	if len(ps) > 0 {
		return nil, nil, ps
	}
	given := "-f " + strings.Join(files, " -f ")
	switch len(scenarios) {
	case 0:
		return nil, nil, fmt.Errorf("%s: no scenario among %s (%s)", given, fileList(manifests), scenarioHelp)
	case 1:
	default:
		return nil, nil, fmt.Errorf("%s: %d scenarios, %s; a simulation runs one (the files of a directory go together: one scenario, and ConfigMaps)", given, len(scenarios), fileList(scenarios))
	}
	s, ps := sim.ReadScenario(scenarios[0].Name, scenarios[0].Data, cfg.Registry)
	if len(ps) > 0 {
		return nil, nil, ps
	}
	if len(manifests) == 0 {
		return s, nil, nil
	}
	cms, skipped, ps := sim.ReadManifests(manifests, cfg.Registry)
	if len(ps) > 0 {
		return nil, nil, ps
	}
	skippedNote(env, cfg, cmd, "-f", skipped)
	return s, cms, nil
}

func fileList(files []sim.NamedData) string {
	names := make([]string, len(files))
	for i, f := range files {
		names[i] = f.Name
	}
	return joinOr(names)
}

func skippedNote(env *Env, cfg Config, cmd, flag string, skipped []sim.Skipped) {
	if len(skipped) > 0 {
		fmt.Fprintf(env.Stderr, "%s %s: note: %s: skipped %s, which %s does not read\n", cfg.name(), cmd, flag, sim.SkippedList(skipped), cfg.name())
	}
}

// loadInputs reads the scenario and the ConfigMaps (-f and --configmap):
// a kind of ConfigMap may be given once.
func loadInputs(files, configMaps []string, cfg Config, cmd string, env *Env) (*sim.Scenario, []*sim.ConfigMapFile, error) {
	s, beside, err := loadScenario(files, cfg, cmd, env)
	if err != nil {
		return nil, nil, err
	}
	cms, err := loadConfigMaps(configMaps, cfg, cmd, env)
	if err != nil {
		return nil, nil, err
	}
	all := append(beside, cms...)
	seen := map[sim.ConfigKind]string{}
	for _, cm := range all {
		if prev, dup := seen[cm.Kind]; dup {
			return nil, nil, usagef("--configmap: %s is given twice (%s and %s)", cm.Kind, prev, cm.File())
		}
		seen[cm.Kind] = cm.File()
	}
	return s, all, nil
}

// loadConfigMaps reads every --configmap file, directory or "-". The
// objects vsched does not read are skipped with one note on stderr.
func loadConfigMaps(names []string, cfg Config, cmd string, env *Env) ([]*sim.ConfigMapFile, error) {
	if len(names) == 0 {
		return nil, nil
	}
	named, err := readInputs(names, "ConfigMap", env)
	if err != nil {
		return nil, err
	}
	cms, skipped, ps := sim.ReadConfigMaps(named, cfg.Registry)
	if len(ps) > 0 {
		return nil, ps
	}
	skippedNote(env, cfg, cmd, "--configmap", skipped)
	return cms, nil
}
