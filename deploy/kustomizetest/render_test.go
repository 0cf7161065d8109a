package kustomizetest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/api/resmap"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"

	"github.com/vsched/vsched/config"
	"github.com/vsched/vsched/plugins"
)

// deploy is the directory above the base (deploy/sample), the overlays
// (deploy/overlays) and the monitoring component, from this package's.
const deploy = ".."

// render runs kustomize build on a directory under deploy/, as kubectl
// apply -k does (root-only load restrictions).
func render(t *testing.T, dir string) resmap.ResMap {
	t.Helper()
	k := krusty.MakeKustomizer(krusty.MakeDefaultOptions())
	m, err := k.Run(filesys.MakeFsOnDisk(), filepath.Join(deploy, dir))
	if err != nil {
		t.Fatalf("kustomize build deploy/%s: %v", dir, err)
	}
	return m
}

// objects are a rendering's objects by kind/namespace/name.
func objects(t *testing.T, m resmap.ResMap) map[string]map[string]any {
	t.Helper()
	out := map[string]map[string]any{}
	for _, r := range m.Resources() {
		obj, err := r.Map()
		if err != nil {
			t.Fatal(err)
		}
		out[r.GetKind()+"/"+r.GetNamespace()+"/"+r.GetName()] = normalized(t, obj)
	}
	return out
}

// decoder decodes strictly into the typed Kubernetes structs: an unknown
// or duplicated field is an error.
var decoder = func() runtime.Decoder {
	s := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(s); err != nil {
		panic(err)
	}
	if err := apiextensionsv1.AddToScheme(s); err != nil {
		panic(err)
	}
	return serializer.NewCodecFactory(s, serializer.EnableStrict).UniversalDeserializer()
}()

// checkTyped decodes every object strictly into its type; the
// PrometheusRule, whose type is not in k8s.io/api, into the rules' shape.
func checkTyped(t *testing.T, where string, objs map[string]map[string]any) {
	t.Helper()
	for key, obj := range objs {
		data, err := json.Marshal(obj)
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(key, "PrometheusRule/") {
			checkPrometheusRule(t, where+": "+key, data)
			continue
		}
		if _, _, err := decoder.Decode(data, nil, nil); err != nil {
			t.Errorf("%s: %s does not decode into its type: %v", where, key, err)
		}
	}
}

// promRule is monitoring.coreos.com/v1's PrometheusRule, the fields the
// rules use.
type promRule struct {
	APIVersion, Kind string
	Metadata         struct {
		Name, Namespace string
		Labels          map[string]string
	}
	Spec struct {
		Groups []struct {
			Name  string
			Rules []struct {
				Alert, Record, Expr, For string
				Labels, Annotations      map[string]string
			}
		}
	}
}

func checkPrometheusRule(t *testing.T, where string, data []byte) {
	t.Helper()
	var r promRule
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		t.Errorf("%s: %v", where, err)
		return
	}
	if r.APIVersion != "monitoring.coreos.com/v1" || len(r.Spec.Groups) == 0 {
		t.Errorf("%s: apiVersion %q, %d groups; want monitoring.coreos.com/v1 and some", where, r.APIVersion, len(r.Spec.Groups))
	}
}

// checkPolicies parses the rendering's vsched ConfigMaps as the controller
// would, with the in-tree plugins.
func checkPolicies(t *testing.T, where string, objs map[string]map[string]any) {
	t.Helper()
	reg := plugins.MustInTreeRegistry()
	parse := map[string]func(*corev1.ConfigMap) error{
		"config-scheduler": func(cm *corev1.ConfigMap) error {
			_, err := config.ParsePlaceConfigMap(cm, reg)
			return err
		},
		"config-descheduler": func(cm *corev1.ConfigMap) error {
			_, err := config.ParseRemoveConfigMap(cm, reg)
			return err
		},
		"config-autoscaler": func(cm *corev1.ConfigMap) error {
			_, err := config.ParseAutoscalerConfigMap(cm)
			return err
		},
	}
	for name, f := range parse {
		cm := configMap(t, objs, name)
		if cm == nil {
			t.Errorf("%s: no ConfigMap %s", where, name)
			continue
		}
		if err := f(cm); err != nil {
			t.Errorf("%s: %v", where, err)
		}
	}
}

func configMap(t *testing.T, objs map[string]map[string]any, name string) *corev1.ConfigMap {
	t.Helper()
	obj, ok := objs["ConfigMap/vsched-sample/"+name]
	if !ok {
		return nil
	}
	var cm corev1.ConfigMap
	convert(t, obj, &cm)
	return &cm
}

func convert(t *testing.T, obj map[string]any, into any) {
	t.Helper()
	data, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, into); err != nil {
		t.Fatal(err)
	}
}

// sampleObjects reads deploy/sample's manifests as kubectl apply -f would.
func sampleObjects(t *testing.T) map[string]map[string]any {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(deploy, "sample", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("deploy/sample: %v files, %v", len(files), err)
	}
	out := map[string]map[string]any{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, doc := range strings.Split(string(data), "\n---\n") {
			var obj map[string]any
			if err := yaml.Unmarshal([]byte(doc+"\n"), &obj); err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			md, _ := obj["metadata"].(map[string]any)
			ns, _ := md["namespace"].(string)
			out[fmt.Sprintf("%s/%s/%s", obj["kind"], ns, md["name"])] = normalized(t, obj)
		}
	}
	return out
}

// normalized is obj as JSON decodes it, so that numbers compare alike.
func normalized(t *testing.T, obj map[string]any) map[string]any {
	t.Helper()
	var out map[string]any
	convert(t, obj, &out)
	return out
}

func keys(m map[string]map[string]any) []string { return slices.Sorted(maps.Keys(m)) }
