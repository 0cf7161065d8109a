package monitoring

import (
	"bytes"
	"fmt"

	"go.yaml.in/yaml/v3"
)

// RuleFile is a Prometheus rules file (groups of alerting and recording
// rules), the fields vsched's rules use; decoding rejects any other.
type RuleFile struct {
	Groups []RuleGroup `yaml:"groups"`
}

// RuleGroup is one group of rules.
type RuleGroup struct {
	Name     string `yaml:"name"`
	Interval string `yaml:"interval,omitempty"`
	Rules    []Rule `yaml:"rules"`
}

// Rule is an alerting rule (Alert) or a recording rule (Record).
type Rule struct {
	Alert       string            `yaml:"alert,omitempty"`
	Record      string            `yaml:"record,omitempty"`
	Expr        string            `yaml:"expr"`
	For         string            `yaml:"for,omitempty"`
	Labels      map[string]string `yaml:"labels,omitempty"`
	Annotations map[string]string `yaml:"annotations,omitempty"`
}

// ParseRules decodes a rules file strictly: an unknown field is an error,
// and so is a rule that is both or neither an alert and a record.
func ParseRules(data []byte) (*RuleFile, error) {
	var f RuleFile
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("rules: %w", err)
	}
	for i, g := range f.Groups {
		for j, r := range g.Rules {
			if (r.Alert == "") == (r.Record == "") || r.Expr == "" {
				return nil, fmt.Errorf("rules: groups[%d].rules[%d]: a rule needs an expr and exactly one of alert and record", i, j)
			}
		}
	}
	return &f, nil
}

// Alerts lists the alerting rules, in file order.
func (f *RuleFile) Alerts() []Rule {
	var out []Rule
	for _, g := range f.Groups {
		for _, r := range g.Rules {
			if r.Alert != "" {
				out = append(out, r)
			}
		}
	}
	return out
}

// ManifestHeader opens the generated PrometheusRule manifest.
const ManifestHeader = "# Generated from vsched-rules.yaml by internal/testkit/monitoring (RuleManifest):\n" +
	"# edit that file, then go test ./internal/testkit/monitoring -run Manifest -update.\n"

type prometheusRule struct {
	APIVersion string       `yaml:"apiVersion"`
	Kind       string       `yaml:"kind"`
	Metadata   ruleMetadata `yaml:"metadata"`
	Spec       RuleFile     `yaml:"spec"`
}

type ruleMetadata struct {
	Name      string            `yaml:"name"`
	Namespace string            `yaml:"namespace"`
	Labels    map[string]string `yaml:"labels"`
}

// RuleManifest is the Prometheus Operator's PrometheusRule holding the
// rules of a rules file, named vsched in namespace: the same groups, so
// that Prometheus loaded either way alerts alike.
func RuleManifest(rules []byte, namespace string) ([]byte, error) {
	f, err := ParseRules(rules)
	if err != nil {
		return nil, err
	}
	m := prometheusRule{
		APIVersion: "monitoring.coreos.com/v1", Kind: "PrometheusRule",
		Metadata: ruleMetadata{Name: "vsched", Namespace: namespace,
			Labels: map[string]string{"app.kubernetes.io/name": "vsched", "app.kubernetes.io/component": "alerts"}},
		Spec: *f,
	}
	var buf bytes.Buffer
	buf.WriteString(ManifestHeader)
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(m); err != nil {
		return nil, err
	}
	return buf.Bytes(), enc.Close()
}
