package cli

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/spf13/cobra"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/embedkit"
	"github.com/vsched/vsched/evictor"
)

const getLong = `Shows the live placements of a StatefulSet's sources, as kubectl get shows
objects: per source its vreplicas, how many are placed and pending and, when
some are pending, why (its Scheduled condition); per pod its node, zone,
state and use. -o wide adds each source's placements by pod, node and zone,
and each pod's sources; -o json and -o yaml give everything.

It only reads (get and list on nodes, pods, the StatefulSet and the
sources). Installed on the PATH as kubectl-vsched, it is a kubectl plugin:
kubectl vsched get ...`

const getExample = `  # The sample deployment
  %[1]s get -n vsched-sample --statefulset sample-adapter --capacity 10 \
      --sources samples.vsched.dev/v1alpha1/samplesources

  # Every placement, by pod, node and zone
  %[1]s get -n vsched-sample --statefulset sample-adapter --capacity 10 \
      --sources samples.vsched.dev/v1alpha1/samplesources -o wide`

type getFlags struct {
	snapshotFlags
	drainingAnnotation string
	conditionType      string
}

func newGetCommand(cfg Config, env *Env) *cobra.Command {
	f := getFlags{}
	cmd := &cobra.Command{
		Use:     "get --namespace NS --statefulset NAME --sources GROUP/VERSION/RESOURCE [--capacity N] [-o table|wide|json|yaml]",
		Short:   "Show a live cluster's placements: per source and per pod",
		Long:    getLong,
		Example: fmt.Sprintf(getExample, cfg.name()),
		Args:    noArgs,
		RunE:    func(*cobra.Command, []string) error { return get(&f, env) },
	}
	fs := cmd.Flags()
	clusterFlags(fs, &f.snapshotFlags, "the StatefulSet's namespace (required)")
	fs.Int32Var(&f.capacity, "capacity", 0, "the most vreplicas a pod holds, as the scheduler is configured (default: unknown, no FREE column)")
	fs.StringVar(&f.conditionType, "condition", embedkit.ConditionScheduled, "the status condition that says why vreplicas are pending")
	fs.StringVar(&f.drainingAnnotation, "draining-annotation", evictor.DefaultAnnotation, "the pod annotation marking it draining")
	formatFlag(cmd, &f.format, "table", "table", "wide", "json", "yaml")
	return cmd
}

func get(f *getFlags, env *Env) error {
	if missing := f.missing(); len(missing) > 0 {
		return usagef("required: %s", strings.Join(missing, ", "))
	}
	if f.capacity < 0 {
		return usagef("--capacity %d: must not be negative", f.capacity)
	}
	if err := checkFormat(&f.format, nil, "table", "wide", "json", "yaml"); err != nil {
		return err
	}
	gvr, err := parseGVR(f.sources)
	if err != nil {
		return err
	}
	clients := env.KubeClients
	if clients == nil {
		clients = kubeconfigClients
	}
	kube, dyn, err := clients(f.kubeconfig, f.context)
	if err != nil {
		return &readError{err: fmt.Errorf("cannot reach the cluster: %w", err)}
	}
	view, err := readLiveView(context.Background(), kube, dyn, gvr, f)
	if err != nil {
		return err
	}
	data, err := view.encode(f.format)
	if err != nil {
		return err
	}
	return output("", data, env)
}

// readLiveView reads the cluster into a LiveView.
func readLiveView(ctx context.Context, kube kubernetes.Interface, dyn dynamic.Interface, gvr schema.GroupVersionResource, f *getFlags) (*LiveView, error) {
	nodes, err := snapNodes(ctx, kube, f.zoneLabel)
	if err != nil {
		return nil, err
	}
	set, err := kube.AppsV1().StatefulSets(f.namespace).Get(ctx, f.statefulSet, metav1.GetOptions{})
	if err != nil {
		return nil, fmt.Errorf("StatefulSet %s/%s: %w", f.namespace, f.statefulSet, err)
	}
	v := &LiveView{Version: 1, StatefulSet: LiveStatefulSet{Namespace: f.namespace, Name: f.statefulSet, Replicas: 1, Capacity: f.capacity}}
	if set.Spec.Replicas != nil {
		v.StatefulSet.Replicas = *set.Spec.Replicas
	}
	if v.Pods, err = livePods(ctx, kube, f, v.StatefulSet.Replicas, nodes); err != nil {
		return nil, err
	}
	list, err := dyn.Resource(gvr).Namespace(f.sourcesNamespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("sources %s: %w", f.sources, err)
	}
	for i := range list.Items {
		s, err := liveSourceOf(&list.Items[i], f, v.Pods)
		if err != nil {
			return nil, err
		}
		v.Sources = append(v.Sources, s)
	}
	sort.Slice(v.Sources, func(i, j int) bool { return v.Sources[i].Source < v.Sources[j].Source })
	v.fillPodUse()
	return v, nil
}

// livePods lists the StatefulSet's pods by ordinal with their node, zone
// and state.
func livePods(ctx context.Context, kube kubernetes.Interface, f *getFlags, replicas int32, nodes []snapNode) ([]LivePod, error) {
	list, err := kube.CoreV1().Pods(f.namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("pods: %w", err)
	}
	byName := map[string]snapNode{}
	for _, n := range nodes {
		byName[n.Name] = n
	}
	var out []LivePod
	for _, p := range list.Items {
		ord, err := vsched.OrdinalFromPodName(p.Name)
		if err != nil || vsched.PodName(f.statefulSet, ord) != p.Name {
			continue
		}
		node := byName[p.Spec.NodeName]
		lp := LivePod{Name: p.Name, Ordinal: ord, Node: p.Spec.NodeName, Zone: node.Zone}
		draining, marked := p.Annotations[f.drainingAnnotation]
		switch {
		case ord >= replicas:
			lp.State = "beyond-replicas"
		case p.Spec.NodeName == "":
			lp.State = "unbound"
		case marked && draining != "false":
			lp.State = "draining"
		case node.Ready != nil && !*node.Ready:
			lp.State = "node-not-ready"
		case node.Cordoned:
			lp.State = "node-cordoned"
		default:
			lp.State = "ok"
		}
		out = append(out, lp)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Ordinal < out[j].Ordinal })
	return out, nil
}

// liveSourceOf reads a source's vreplicas, placements and the condition
// that says why some are pending.
func liveSourceOf(u *unstructured.Unstructured, f *getFlags, pods []LivePod) (LiveSource, error) {
	snap, err := snapSourceOf(u, &f.snapshotFlags)
	if err != nil {
		return LiveSource{}, err
	}
	s := LiveSource{Source: snap.Source, VReplicas: snap.VReplicas, ByNode: map[string]int32{}, ByZone: map[string]int32{}}
	where := map[string]LivePod{}
	for _, p := range pods {
		where[p.Name] = p
	}
	for _, p := range snap.Placements {
		pod := where[p.PodName]
		s.Placements = append(s.Placements, LivePlacement{Pod: p.PodName, Node: pod.Node, Zone: pod.Zone, VReplicas: p.VReplicas})
		s.Placed += p.VReplicas
		s.ByNode[orNone(pod.Node)] += p.VReplicas
		s.ByZone[orNone(pod.Zone)] += p.VReplicas
	}
	sort.SliceStable(s.Placements, func(i, j int) bool { return podOrdinal(s.Placements[i].Pod) < podOrdinal(s.Placements[j].Pod) })
	s.Pending = max(s.VReplicas-s.Placed, 0)
	conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	for _, c := range conds {
		m, _ := c.(map[string]any)
		if m["type"] == f.conditionType {
			s.Status, _ = m["status"].(string)
			s.Reason, _ = m["reason"].(string)
			s.Message, _ = m["message"].(string)
		}
	}
	return s, nil
}

// podOrdinal orders pods by ordinal; a name without one sorts last.
func podOrdinal(name string) int64 {
	ord, err := vsched.OrdinalFromPodName(name)
	if err != nil {
		return 1 << 40
	}
	return int64(ord)
}

// orNone names what a placement's pod lacks: it is gone, or unbound.
func orNone(s string) string {
	if s == "" {
		return "<none>"
	}
	return s
}
