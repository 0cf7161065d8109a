package config_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"

	"github.com/vsched/vsched/config"
	"github.com/vsched/vsched/framework"
	"github.com/vsched/vsched/plugins"
)

// inTree is the in-tree registry with vsched's default policy, which the
// tests parse and build against unless they say otherwise. Nothing changes
// it.
var inTree = plugins.MustInTreeRegistry()

// wantProblem is one expected problem: its exact field path, its type and
// fragments its message must contain.
type wantProblem struct {
	configMap string // "" means config-scheduler
	field     string
	typ       field.ErrorType
	contains  []string
}

// checkAccepted checks a call that must succeed: it returns want, and
// build (the profiles) accepts it.
func checkAccepted[T any](t *testing.T, got *T, err error, want *T, build func(*T) error) {
	t.Helper()
	if err != nil {
		t.Fatalf("unexpected error: %v", err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if err := build(got); err != nil {
		t.Errorf("BuildProfiles: %v", err)
	}
}

// checkRejected is checkProblems for a call that must fail: it returns
// nothing alongside the error. A rejection names its problems: with none
// wanted, checkProblems would pass a call that succeeded.
func checkRejected[T any](t *testing.T, got *T, err error, want []wantProblem) {
	t.Helper()
	if len(want) == 0 {
		t.Fatalf("checkRejected without the problems the call must report (error %v)", err)
	}
	if got != nil {
		t.Errorf("got %+v alongside the error", got)
	}
	checkProblems(t, err, want)
}

// checkProblems asserts that err is a *config.Error holding exactly the
// wanted problems, in order, and that err is nil when none is wanted.
func checkProblems(t *testing.T, err error, want []wantProblem) {
	t.Helper()
	if len(want) == 0 {
		if err != nil {
			t.Fatalf("unexpected error: %v", err)
		}
		return
	}
	var cerr *config.Error
	if !errors.As(err, &cerr) {
		t.Fatalf("error %v (%T) is not a *config.Error", err, err)
	}
	if len(cerr.Problems) != len(want) {
		t.Fatalf("got %d problems, want %d:\n%s", len(cerr.Problems), len(want), strings.ReplaceAll(err.Error(), "; ", "\n"))
	}
	for i, w := range want {
		p := cerr.Problems[i]
		cm := w.configMap
		if cm == "" {
			cm = config.DefaultSchedulerConfigMapName
		}
		if p.ConfigMap != cm {
			t.Errorf("problem %d: ConfigMap %q, want %q", i, p.ConfigMap, cm)
		}
		if p.Err.Field != w.field {
			t.Errorf("problem %d: field %q, want %q (%s)", i, p.Err.Field, w.field, p)
		}
		if w.typ != "" && p.Err.Type != w.typ {
			t.Errorf("problem %d: type %q, want %q (%s)", i, p.Err.Type, w.typ, p)
		}
		msg := p.String()
		if !strings.HasPrefix(msg, cm+": "+w.field+": ") {
			t.Errorf("problem %d: %q does not start with %q", i, msg, cm+": "+w.field+": ")
		}
		for _, c := range w.contains {
			if !strings.Contains(msg, c) {
				t.Errorf("problem %d: %q does not contain %q", i, msg, c)
			}
		}
		if !strings.Contains(err.Error(), msg) {
			t.Errorf("Error() %q does not contain problem %d %q", err.Error(), i, msg)
		}
	}
}

// configMapFromYAML decodes a ConfigMap manifest.
func configMapFromYAML(t *testing.T, manifest string) *corev1.ConfigMap {
	t.Helper()
	cm := &corev1.ConfigMap{}
	if err := yaml.UnmarshalStrict([]byte(manifest), cm); err != nil {
		t.Fatalf("bad manifest: %v", err)
	}
	return cm
}

func namedConfigMap(name string, data map[string]string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "knative-eventing"}, Data: data}
}

func w(n int32) *int32 { return &n }

func pc(name string, weight *int32, args string) framework.PluginConfig {
	p := framework.PluginConfig{Name: name, Weight: weight}
	if args != "" {
		p.Args = []byte(args)
	}
	return p
}
