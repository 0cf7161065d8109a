package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	yamlv3 "go.yaml.in/yaml/v3"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/yaml"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/config"
	"github.com/vsched/vsched/state"
)

const snapshotLong = `Reads the cluster vsched runs on and writes it as a scenario: the nodes
with their zones and health, the StatefulSet with its replicas, capacity and
which node each pod is on, every source with its vreplicas and current
placements, and the ConfigMaps in effect (config-scheduler,
config-descheduler, config-autoscaler, inlined).

Simulating the snapshot reproduces the live placements; add steps to it to
ask what a new config-scheduler, a lost zone or 500 more vreplicas would do,
and explain a live source's next decision. The snapshot only reads (get and
list on nodes, pods, statefulsets, configmaps and the sources).`

const snapshotExample = `  # The sample deployment
  %[1]s snapshot --namespace vsched-sample --statefulset sample-adapter --capacity 10 \
      --sources samples.vsched.dev/v1alpha1/samplesources --out snapshot.yaml

  # What if zone-b were lost, with the ConfigMaps about to be applied?
  cat snapshot.yaml - <<EOF | %[1]s simulate -f - --configmap new-config.yaml
  steps:
    - fail: {zone: zone-b}
  EOF`

type snapshotFlags struct {
	kubeconfig, context, namespace, statefulSet, out string
	format                                           string
	capacity                                         int32
	sources, sourcesNamespace                        string
	vreplicasPath, placementsPath, partitionsPath    string
	zoneLabel                                        string
	configMaps                                       []string
}

// KubeClients builds the clients snapshot reads the cluster with.
type KubeClients func(kubeconfig, context string) (kubernetes.Interface, dynamic.Interface, error)

func newSnapshotCommand(cfg Config, env *Env) *cobra.Command {
	f := snapshotFlags{}
	cmd := &cobra.Command{
		Use:     "snapshot --namespace NS --statefulset NAME --capacity N --sources GROUP/VERSION/RESOURCE [-o yaml|json] [--out FILE]",
		Short:   "Write a live cluster's nodes, StatefulSet, sources and ConfigMaps as a scenario",
		Long:    snapshotLong,
		Example: fmt.Sprintf(snapshotExample, cfg.name()),
		Args:    noArgs,
		RunE:    func(*cobra.Command, []string) error { return snapshot(&f, cfg, env) },
	}
	fs := cmd.Flags()
	clusterFlags(fs, &f, "the StatefulSet's and the ConfigMaps' namespace (required)")
	fs.Int32Var(&f.capacity, "capacity", 0, "the most vreplicas a pod holds, as the scheduler is configured (required)")
	fs.StringVar(&f.partitionsPath, "partitions-path", "spec.partitions", "where a source keeps its partition count, when it has one")
	fs.StringSliceVar(&f.configMaps, "configmaps", []string{config.DefaultSchedulerConfigMapName, config.DefaultDeschedulerConfigMapName, config.DefaultAutoscalerConfigMapName},
		"the names of the scheduler, descheduler and autoscaler ConfigMaps, in this order")
	fs.StringVar(&f.out, "out", "", "write to this file instead of stdout")
	formatFlag(cmd, &f.format, "yaml", "yaml", "json")
	return cmd
}

// clusterFlags adds the flags that say where the StatefulSet and its
// sources are, which snapshot and get share.
func clusterFlags(fs *pflag.FlagSet, f *snapshotFlags, namespaceHelp string) {
	fs.StringVar(&f.kubeconfig, "kubeconfig", "", "the kubeconfig file (default: $KUBECONFIG, then ~/.kube/config, then in-cluster)")
	fs.StringVar(&f.context, "context", "", "the kubeconfig context (default: its current one)")
	fs.StringVarP(&f.namespace, "namespace", "n", "", namespaceHelp)
	fs.StringVar(&f.statefulSet, "statefulset", "", "the StatefulSet whose pods hold the vreplicas (required)")
	fs.StringVar(&f.sources, "sources", "", "the sources' resource, as GROUP/VERSION/RESOURCE (required)")
	fs.StringVar(&f.sourcesNamespace, "sources-namespace", "", "read the sources of this namespace only (default: every namespace)")
	fs.StringVar(&f.vreplicasPath, "vreplicas-path", "spec.vreplicas", "where a source keeps how many vreplicas it wants")
	fs.StringVar(&f.placementsPath, "placements-path", "status.placements", "where a source keeps its placements ([{podName, vreplicas}])")
	fs.StringVar(&f.zoneLabel, "zone-label", state.DefaultZoneLabel, "the node label naming its zone")
}

// missing names the required cluster flags not given.
func (f *snapshotFlags) missing() []string {
	var missing []string
	for _, m := range []struct{ flag, v string }{{"--namespace", f.namespace}, {"--statefulset", f.statefulSet}, {"--sources", f.sources}} {
		if m.v == "" {
			missing = append(missing, m.flag)
		}
	}
	return missing
}

func snapshot(f *snapshotFlags, cfg Config, env *Env) error {
	missing := f.missing()
	if f.capacity < 1 {
		missing = append(missing, "--capacity (at least 1)")
	}
	if len(missing) > 0 {
		return usagef("required: %s", strings.Join(missing, ", "))
	}
	if err := checkFormat(&f.format, nil, "yaml", "json"); err != nil {
		return err
	}
	gvr, err := parseGVR(f.sources)
	if err != nil {
		return err
	}
	if len(f.configMaps) != 3 {
		return usagef("--configmaps: give three names (scheduler, descheduler, autoscaler), not %d", len(f.configMaps))
	}
	clients := env.KubeClients
	if clients == nil {
		clients = kubeconfigClients
	}
	kube, dyn, err := clients(f.kubeconfig, f.context)
	if err != nil {
		return &readError{err: fmt.Errorf("cannot reach the cluster: %w", err)}
	}
	now := time.Now
	if env.Now != nil {
		now = env.Now
	}
	doc, err := takeSnapshot(context.Background(), kube, dyn, gvr, f)
	if err != nil {
		return err
	}
	head := fmt.Sprintf("# A snapshot of StatefulSet %s/%s and its sources (%s), taken %s by %s snapshot.\n",
		f.namespace, f.statefulSet, f.sources, now().UTC().Format(time.RFC3339), cfg.name()) +
		"# Simulating it reproduces the live placements; add steps to ask what if.\n"
	data, err := encodeSnapshot(doc, head, f.format)
	if err != nil {
		return err
	}
	return output(f.out, data, env)
}

// encodeSnapshot writes the scenario as YAML after the head comment, or
// as JSON, which has no comments.
func encodeSnapshot(doc *snapshotDoc, head, format string) ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteString(head)
	enc := yamlv3.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	if format != "json" {
		return buf.Bytes(), nil
	}
	j, err := yaml.YAMLToJSON(buf.Bytes())
	if err != nil {
		return nil, err
	}
	buf.Reset()
	if err := json.Indent(&buf, j, "", "  "); err != nil {
		return nil, err
	}
	buf.WriteByte('\n')
	return buf.Bytes(), nil
}

func parseGVR(s string) (schema.GroupVersionResource, error) {
	parts := strings.Split(s, "/")
	// The core group is written "/v1/RESOURCE" or "v1/RESOURCE".
	if len(parts) == 2 {
		parts = append([]string{""}, parts...)
	}
	if len(parts) != 3 || parts[1] == "" || parts[2] == "" {
		return schema.GroupVersionResource{}, usagef("--sources %q: write GROUP/VERSION/RESOURCE, such as samples.vsched.dev/v1alpha1/samplesources", s)
	}
	return schema.GroupVersionResource{Group: parts[0], Version: parts[1], Resource: parts[2]}, nil
}

func kubeconfigClients(kubeconfig, context string) (kubernetes.Interface, dynamic.Interface, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = kubeconfig
	rc, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{CurrentContext: context}).ClientConfig()
	if err != nil {
		return nil, nil, err
	}
	kube, err := kubernetes.NewForConfig(rc)
	if err != nil {
		return nil, nil, err
	}
	dyn, err := dynamic.NewForConfig(rc)
	return kube, dyn, err
}

// The snapshot's YAML, in the scenario format (examples/README.md).
type snapshotDoc struct {
	Version     int               `yaml:"version"`
	Name        string            `yaml:"name"`
	Cluster     snapCluster       `yaml:"cluster"`
	Scheduler   map[string]string `yaml:"scheduler,omitempty"`
	Descheduler map[string]string `yaml:"descheduler,omitempty"`
	Autoscaler  map[string]string `yaml:"autoscaler,omitempty"`
	Sources     []snapSource      `yaml:"sources"`
}

type snapCluster struct {
	Nodes       []snapNode `yaml:"nodes"`
	StatefulSet snapSet    `yaml:"statefulSet"`
}

type snapNode struct {
	Name     string `yaml:"name"`
	Zone     string `yaml:"zone,omitempty"`
	Cordoned bool   `yaml:"cordoned,omitempty"`
	Ready    *bool  `yaml:"ready,omitempty"`
}

type snapSet struct {
	Namespace string   `yaml:"namespace"`
	Name      string   `yaml:"name"`
	Replicas  int32    `yaml:"replicas"`
	Capacity  int32    `yaml:"capacity"`
	PodNodes  []string `yaml:"podNodes,flow,omitempty"`
}

type snapSource struct {
	Source     string          `yaml:"source"`
	VReplicas  int32           `yaml:"vreplicas"`
	Partitions *int32          `yaml:"partitions,omitempty"`
	Placements []snapPlacement `yaml:"placements,omitempty"`
}

type snapPlacement struct {
	PodName   string `yaml:"podName"`
	VReplicas int32  `yaml:"vreplicas"`
}

// takeSnapshot reads the cluster into a scenario.
func takeSnapshot(ctx context.Context, kube kubernetes.Interface, dyn dynamic.Interface, gvr schema.GroupVersionResource, f *snapshotFlags) (*snapshotDoc, error) {
	doc := &snapshotDoc{Version: 1, Name: fmt.Sprintf("snapshot of %s/%s", f.namespace, f.statefulSet)}
	var err error
	if doc.Cluster.Nodes, err = snapNodes(ctx, kube, f.zoneLabel); err != nil {
		return nil, err
	}
	if doc.Cluster.StatefulSet, err = snapStatefulSet(ctx, kube, f); err != nil {
		return nil, err
	}
	datas := []*map[string]string{&doc.Scheduler, &doc.Descheduler, &doc.Autoscaler}
	for i, name := range f.configMaps {
		cm, err := kube.CoreV1().ConfigMaps(f.namespace).Get(ctx, name, metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
			continue // absent: its defaults apply, as for the scheduler
		case err != nil:
			return nil, fmt.Errorf("ConfigMap %s/%s: %w", f.namespace, name, err)
		}
		*datas[i] = cm.Data
		if *datas[i] == nil {
			*datas[i] = map[string]string{}
		}
	}
	if doc.Sources, err = snapSources(ctx, dyn, gvr, f); err != nil {
		return nil, err
	}
	return doc, nil
}

func snapNodes(ctx context.Context, kube kubernetes.Interface, zoneLabel string) ([]snapNode, error) {
	list, err := kube.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("nodes: %w", err)
	}
	out := make([]snapNode, 0, len(list.Items))
	for _, n := range list.Items {
		sn := snapNode{Name: n.Name, Zone: n.Labels[zoneLabel], Cordoned: n.Spec.Unschedulable}
		if !nodeReady(&n) {
			f := false
			sn.Ready = &f
		}
		out = append(out, sn)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

func nodeReady(n *corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// snapStatefulSet reads the StatefulSet's replicas and which node each of
// its pods is on.
func snapStatefulSet(ctx context.Context, kube kubernetes.Interface, f *snapshotFlags) (snapSet, error) {
	ss := snapSet{Namespace: f.namespace, Name: f.statefulSet, Capacity: f.capacity}
	set, err := kube.AppsV1().StatefulSets(f.namespace).Get(ctx, f.statefulSet, metav1.GetOptions{})
	if err != nil {
		return ss, fmt.Errorf("StatefulSet %s/%s: %w", f.namespace, f.statefulSet, err)
	}
	if set.Spec.Replicas != nil {
		ss.Replicas = *set.Spec.Replicas
	} else {
		ss.Replicas = 1 // the API's default
	}
	pods, err := kube.CoreV1().Pods(f.namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return ss, fmt.Errorf("pods: %w", err)
	}
	nodes := map[int32]string{}
	top := int32(-1)
	for _, p := range pods.Items {
		ord, err := vsched.OrdinalFromPodName(p.Name)
		if err != nil || vsched.PodName(f.statefulSet, ord) != p.Name || p.Spec.NodeName == "" {
			continue
		}
		nodes[ord] = p.Spec.NodeName
		top = max(top, ord)
	}
	for ord := int32(0); ord <= top; ord++ {
		ss.PodNodes = append(ss.PodNodes, nodes[ord])
	}
	return ss, nil
}

// snapSources reads every source's vreplicas and placements.
func snapSources(ctx context.Context, dyn dynamic.Interface, gvr schema.GroupVersionResource, f *snapshotFlags) ([]snapSource, error) {
	list, err := dyn.Resource(gvr).Namespace(f.sourcesNamespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("sources %s: %w", f.sources, err)
	}
	var out []snapSource
	for i := range list.Items {
		s, err := snapSourceOf(&list.Items[i], f)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Source < out[j].Source })
	return out, nil
}

func snapSourceOf(u *unstructured.Unstructured, f *snapshotFlags) (snapSource, error) {
	s := snapSource{Source: u.GetNamespace() + "/" + u.GetName()}
	fail := func(path, format string, args ...any) error {
		return fmt.Errorf("source %s: %s: %s", s.Source, path, fmt.Sprintf(format, args...))
	}
	v, found, err := unstructured.NestedFieldNoCopy(u.Object, fieldPath(f.vreplicasPath)...)
	n, ok := asInt32(v)
	if err != nil || !found || !ok {
		return s, fail(f.vreplicasPath, "want a number of vreplicas, found %v (give --vreplicas-path)", v)
	}
	s.VReplicas = n
	if v, found, _ := unstructured.NestedFieldNoCopy(u.Object, fieldPath(f.partitionsPath)...); found {
		if n, ok := asInt32(v); ok {
			s.Partitions = &n
		}
	}
	raw, found, err := unstructured.NestedFieldNoCopy(u.Object, fieldPath(f.placementsPath)...)
	if err != nil || !found || raw == nil {
		return s, nil // nothing placed yet
	}
	items, ok := raw.([]any)
	if !ok {
		return s, fail(f.placementsPath, "want a list of {podName, vreplicas}, found %T (give --placements-path)", raw)
	}
	for j, it := range items {
		m, _ := it.(map[string]any)
		pod, _ := m["podName"].(string)
		n, ok := asInt32(m["vreplicas"])
		if pod == "" || !ok {
			return s, fail(fmt.Sprintf("%s[%d]", f.placementsPath, j), "want {podName, vreplicas}, found %v", it)
		}
		if n > 0 {
			s.Placements = append(s.Placements, snapPlacement{PodName: pod, VReplicas: n})
		}
	}
	return s, nil
}

func fieldPath(p string) []string { return strings.Split(strings.TrimPrefix(p, "."), ".") }

func asInt32(v any) (int32, bool) {
	switch n := v.(type) {
	case int64:
		return int32(n), n >= 0 && n <= 1<<31-1
	case float64:
		return int32(n), n >= 0 && n <= 1<<31-1 && n == float64(int64(n))
	case int:
		return int32(n), n >= 0 && n <= 1<<31-1
	}
	return 0, false
}
