package app

import (
	"bytes"
	"strings"
	"testing"

	"github.com/vsched/vsched/framework"
	"github.com/vsched/vsched/internal/app/cli"
	"github.com/vsched/vsched/plugins"
	"github.com/vsched/vsched/plugins/example"
)

const avoidCM = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: config-scheduler\ndata:\n  priorities: '[{\"Name\": \"AvoidPods\", \"Weight\": 1, \"Args\": {\"Ordinals\": [0]}}, {\"Name\": \"LowestOrdinalPriority\", \"Weight\": 1}]'\n"

// validate runs `validate cm.yaml` on avoidCM with the command opts build.
func validate(t *testing.T, opts ...Option) (int, string) {
	t.Helper()
	cfg, err := config(opts)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	env := cli.Env{Stdout: &out, Stderr: &out, ReadFile: func(string) ([]byte, error) { return []byte(avoidCM), nil }}
	return cli.Run(cfg, []string{"validate", "cm.yaml"}, env), out.String()
}

func TestWithPlugin(t *testing.T) {
	if code, out := validate(t); code != cli.ExitInvalid || !strings.Contains(out, `Unsupported value: "AvoidPods"`) {
		t.Errorf("the stock command: exit %d\n%s", code, out)
	}
	if code, out := validate(t, WithPlugin(example.Spec.Registration())); code != cli.ExitOK || out != "cm.yaml: valid (config-scheduler)\n" {
		t.Errorf("WithPlugin(AvoidPods): exit %d\n%s", code, out)
	}
}

func TestWithRegistry(t *testing.T) {
	only, err := framework.NewRegistry(example.Spec.Registration())
	if err != nil {
		t.Fatal(err)
	}
	code, out := validate(t, WithRegistry(only))
	if code != cli.ExitInvalid || !strings.Contains(out, `data.priorities[1].Name: Unsupported value: "LowestOrdinalPriority": supported values: "AvoidPods"`) {
		t.Errorf("a registry without the in-tree plugins: exit %d\n%s", code, out)
	}
	if _, ok := only.Lookup("LowestOrdinalPriority"); ok {
		t.Error("WithRegistry changed the registry it was given")
	}
}

// TestPluginNameTakenTwice: the conflict is reported when the command
// runs, not as a panic.
func TestPluginNameTakenTwice(t *testing.T) {
	dup := plugins.InTreeRegistrations()[0]
	_, err := config([]Option{WithPlugin(dup)})
	if err == nil || !strings.HasPrefix(err.Error(), "plugin "+dup.Name+": ") {
		t.Fatalf("config = %v", err)
	}
	cmd := NewCommand(WithPlugin(dup), WithName("teamsched"))
	cmd.SetArgs([]string{"version"})
	if err := cmd.Execute(); err == nil || !strings.Contains(err.Error(), dup.Name) {
		t.Errorf("Execute = %v", err)
	}
	if cmd.Name() != "teamsched" {
		t.Errorf("WithName: the command is %q", cmd.Name())
	}
}
