package cli

import (
	"fmt"

	"github.com/vsched/vsched/examples"
	"github.com/vsched/vsched/internal/sim"
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

// loadScenario reads the scenario named by -f, or the built-in one.
func loadScenario(file string, cfg Config, env *Env) (*sim.Scenario, error) {
	var data []byte
	name := file
	switch file {
	case "":
		name = "built-in:" + examples.BuiltinName
		data = examples.Builtin()
	default:
		if _, isDir, _ := env.readDir(file); isDir {
			return nil, usagef("-f %s is a directory; a scenario is one file (ConfigMaps in a directory go with --configmap)", file)
		}
		var err error
		if data, err = env.readFile(file); err != nil {
			return nil, &readError{err: fmt.Errorf("cannot read scenario: %w", err)}
		}
		if file == "-" {
			name = stdinName
		}
	}
	s, ps := sim.ReadScenario(name, data, cfg.Registry)
	if len(ps) > 0 {
		return nil, ps
	}
	return s, nil
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
	if len(skipped) > 0 {
		fmt.Fprintf(env.Stderr, "%s %s: note: --configmap: skipped %s, which %s does not read\n", cfg.name(), cmd, sim.SkippedList(skipped), cfg.name())
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
