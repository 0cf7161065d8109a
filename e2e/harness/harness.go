//go:build e2e

// Package harness starts a local Kubernetes control plane for vsched's e2e
// tests: etcd, kube-apiserver, kube-controller-manager (statefulset,
// serviceaccount, garbage collector and node lifecycle controllers),
// kube-scheduler and kwok, which runs the pods bound to fake nodes labelled
// with zones. Everything listens on loopback ports chosen at start, and
// t.Cleanup stops every process group and removes the temporary folder even
// when the test fails.
//
// The binaries come from e2e/tools/build.sh (cached in e2e/.bin, or $E2E_BIN);
// Start runs it once per test binary, which takes about a second once they
// are built.
//
// The package is built only with the e2e build tag (go test -tags e2e), so
// `go test ./...` and `make test` never compile or run it.
package harness

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrs "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/vsched/vsched/internal/testkit/nettest"
)

// Labels and annotations of the fake nodes.
const (
	ZoneLabel          = "topology.kubernetes.io/zone"
	HostnameLabel      = "kubernetes.io/hostname"
	KwokNodeAnnotation = "kwok.x-k8s.io/node"
	kwokNodeValue      = "fake"
	adminToken         = "vsched-e2e-admin-token"
)

// RepoRoot is the repository's root folder.
func RepoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
}

// BinDir is where the control plane's binaries are cached: $E2E_BIN, or
// e2e/.bin (git-ignored).
func BinDir() string {
	if d := os.Getenv("E2E_BIN"); d != "" {
		return d
	}
	return filepath.Join(RepoRoot(), "e2e", ".bin")
}

var (
	buildOnce sync.Once
	buildErr  error
)

// EnsureBinaries runs e2e/tools/build.sh once per test binary (a no-op
// when the cached binaries are current), unless E2E_SKIP_BUILD is set.
func EnsureBinaries() error {
	buildOnce.Do(func() {
		if os.Getenv("E2E_SKIP_BUILD") != "" {
			return
		}
		cmd := exec.Command("bash", filepath.Join(RepoRoot(), "e2e", "tools", "build.sh"))
		cmd.Env = append(os.Environ(), "E2E_BIN="+BinDir())
		out, err := cmd.CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("e2e/tools/build.sh: %v\n%s", err, out)
		}
	})
	return buildErr
}

// Options configure the control plane.
type Options struct {
	// Zones and NodesPerZone: nodes are named <zone>-node-<i>.
	Zones        []string
	NodesPerZone int
	// NodeMonitorGracePeriod is how long a node may miss heartbeats before
	// the node lifecycle controller marks it NotReady and taints it
	// (default 12s; kwok renews node leases every 2s).
	NodeMonitorGracePeriod time.Duration
	// Metrics runs the resource metrics pipeline: metrics-server behind
	// the aggregation layer, kwok simulating the pods' usage from their
	// annotations (metrics.go).
	Metrics bool
}

// ControlPlane is a running local control plane.
type ControlPlane struct {
	Dir        string
	Kubeconfig string
	Config     *rest.Config
	Kube       kubernetes.Interface
	Dynamic    dynamic.Interface

	APIServer, ETCD, ControllerManager, Scheduler *Proc
	// MetricsServer runs with Options.Metrics.
	MetricsServer *Proc
	// Kwok runs each node, by node name.
	Kwok map[string]*Proc

	opts   Options
	caPEM  []byte
	apiURL string
	// Timings of the start, for the report.
	Timings []Timing
}

// Timing is one measured step.
type Timing struct {
	Step string
	Took time.Duration
}

// Start starts a control plane for t and registers its teardown.
func Start(t testing.TB, opts Options) *ControlPlane {
	t.Helper()
	if len(opts.Zones) == 0 {
		opts.Zones = []string{"zone-a", "zone-b", "zone-c"}
	}
	if opts.NodesPerZone == 0 {
		opts.NodesPerZone = 2
	}
	if opts.NodeMonitorGracePeriod == 0 {
		opts.NodeMonitorGracePeriod = 12 * time.Second
	}
	start := time.Now()
	if err := EnsureBinaries(); err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "vsched-e2e-")
	if err != nil {
		t.Fatal(err)
	}
	cp := &ControlPlane{Dir: dir, opts: opts}
	t.Cleanup(func() { cp.teardown(t) })
	cp.Timings = append(cp.Timings, Timing{"binaries", time.Since(start)})
	if err := cp.start(t); err != nil {
		t.Fatalf("starting the control plane: %v", err)
	}
	cp.Timings = append(cp.Timings, Timing{"control plane ready", time.Since(start)})
	t.Logf("control plane up in %v (%s)", time.Since(start).Round(time.Millisecond), dir)
	return cp
}

func (cp *ControlPlane) teardown(t testing.TB) {
	var procs []*Proc
	for _, p := range cp.Kwok {
		procs = append(procs, p)
	}
	procs = append(procs, cp.MetricsServer, cp.Scheduler, cp.ControllerManager, cp.APIServer, cp.ETCD)
	if t.Failed() {
		for _, p := range procs {
			if p != nil {
				t.Logf("---- last lines of %s (%s)\n%s", p.Name, p.Log, p.Tail(25))
			}
		}
	}
	for _, p := range procs {
		if p != nil {
			p.Stop(syscall.SIGTERM, 5*time.Second)
		}
	}
	if keep := os.Getenv("E2E_KEEP"); keep == "always" || (keep != "" && t.Failed()) {
		t.Logf("kept %s (E2E_KEEP)", cp.Dir)
		return
	}
	_ = os.RemoveAll(cp.Dir)
}

func (cp *ControlPlane) path(name string) string { return filepath.Join(cp.Dir, name) }

func (cp *ControlPlane) bin(name string) (string, error) { return findBinary(BinDir(), name) }

func (cp *ControlPlane) start(t testing.TB) error {
	ports := make([]int, 3)
	for i := range ports {
		p, err := nettest.FreePort()
		if err != nil {
			return err
		}
		ports[i] = p
	}
	etcdClient, etcdPeer, apiPort := ports[0], ports[1], ports[2]

	if err := cp.writeCredentials(apiPort); err != nil {
		return err
	}
	etcdURL, err := cp.startEtcd(etcdClient, etcdPeer)
	if err != nil {
		return err
	}
	t0 := time.Now()
	if err := cp.startAPIServer(etcdURL, apiPort, t0); err != nil {
		return err
	}
	if err := cp.startControllers(); err != nil {
		return err
	}
	nodes, err := cp.startKwok()
	if err != nil {
		return err
	}
	if err := cp.waitClusterReady(nodes, t0); err != nil {
		return err
	}
	return cp.startMetrics(context.Background())
}

// writeCredentials writes the serving certificate, the service account key,
// the token file and the admin kubeconfig.
func (cp *ControlPlane) writeCredentials(apiPort int) error {
	ca, err := writeServingCert(cp.path("apiserver.crt"), cp.path("apiserver.key"))
	if err != nil {
		return err
	}
	cp.caPEM = ca
	if err := writeServiceAccountKey(cp.path("sa.key")); err != nil {
		return err
	}
	if cp.opts.Metrics {
		if err := cp.writeFrontProxyCerts(); err != nil {
			return err
		}
		if err := os.WriteFile(cp.path("kwok-metrics.yaml"), []byte(kwokMetricsConfig), 0o600); err != nil {
			return err
		}
	}
	if err := os.WriteFile(cp.path("tokens.csv"), []byte(adminToken+",vsched-e2e-admin,vsched-e2e-admin,system:masters\n"), 0o600); err != nil {
		return err
	}
	cp.apiURL = "https://127.0.0.1:" + strconv.Itoa(apiPort)
	cp.Kubeconfig = cp.path("admin.kubeconfig")
	if err := cp.WriteKubeconfig(cp.Kubeconfig, adminToken); err != nil {
		return err
	}
	return nil
}

// startEtcd starts etcd and returns its client URL.
func (cp *ControlPlane) startEtcd(etcdClient, etcdPeer int) (string, error) {
	etcdBin, err := cp.bin("etcd")
	if err != nil {
		return "", err
	}
	etcdURL := "http://127.0.0.1:" + strconv.Itoa(etcdClient)
	cp.ETCD = &Proc{Name: "etcd", Path: etcdBin, Log: cp.path("etcd.log"), Args: []string{
		"--name=e2e", "--data-dir=" + cp.path("etcd-data"),
		"--listen-client-urls=" + etcdURL, "--advertise-client-urls=" + etcdURL,
		"--listen-peer-urls=http://127.0.0.1:" + strconv.Itoa(etcdPeer),
		"--initial-advertise-peer-urls=http://127.0.0.1:" + strconv.Itoa(etcdPeer),
		"--initial-cluster=e2e=http://127.0.0.1:" + strconv.Itoa(etcdPeer),
		"--unsafe-no-fsync", "--log-level=warn",
	}}
	return etcdURL, cp.ETCD.Start()
}

// startAPIServer starts kube-apiserver and waits until it serves; t0 is
// when the wait started, for the timings.
func (cp *ControlPlane) startAPIServer(etcdURL string, apiPort int, t0 time.Time) error {
	apiBin, err := cp.bin("kube-apiserver")
	if err != nil {
		return err
	}
	cp.APIServer = &Proc{Name: "kube-apiserver", Path: apiBin, Log: cp.path("kube-apiserver.log"), Args: []string{
		"--etcd-servers=" + etcdURL,
		"--bind-address=127.0.0.1", "--advertise-address=127.0.0.1", "--secure-port=" + strconv.Itoa(apiPort),
		"--tls-cert-file=" + cp.path("apiserver.crt"), "--tls-private-key-file=" + cp.path("apiserver.key"),
		"--token-auth-file=" + cp.path("tokens.csv"),
		"--authorization-mode=RBAC",
		"--service-account-issuer=https://kubernetes.default.svc.cluster.local",
		"--service-account-key-file=" + cp.path("sa.key"),
		"--service-account-signing-key-file=" + cp.path("sa.key"),
		"--service-cluster-ip-range=10.0.0.0/24",
		"--endpoint-reconciler-type=none",
		"--v=0",
	}}
	cp.APIServer.Args = append(cp.APIServer.Args, cp.aggregatorArgs()...)
	if err := cp.APIServer.Start(); err != nil {
		return err
	}
	if cp.Config, err = clientcmd.BuildConfigFromFlags("", cp.Kubeconfig); err != nil {
		return err
	}
	cp.Config.QPS, cp.Config.Burst = 100, 200
	if cp.Kube, err = kubernetes.NewForConfig(cp.Config); err != nil {
		return err
	}
	if cp.Dynamic, err = dynamic.NewForConfig(cp.Config); err != nil {
		return err
	}
	if err := cp.WaitAPIReady(60 * time.Second); err != nil {
		return err
	}
	cp.Timings = append(cp.Timings, Timing{"kube-apiserver ready (after its start)", time.Since(t0)})
	return nil
}

// startControllers starts kube-controller-manager and kube-scheduler.
func (cp *ControlPlane) startControllers() error {
	kcmBin, err := cp.bin("kube-controller-manager")
	if err != nil {
		return err
	}
	cp.ControllerManager = &Proc{Name: "kube-controller-manager", Path: kcmBin, Log: cp.path("kube-controller-manager.log"), Args: []string{
		"--kubeconfig=" + cp.Kubeconfig,
		"--controllers=statefulset,serviceaccount,serviceaccount-token,garbagecollector,nodelifecycle",
		"--service-account-private-key-file=" + cp.path("sa.key"),
		"--root-ca-file=" + cp.path("apiserver.crt"),
		"--leader-elect=false", "--secure-port=0",
		"--node-monitor-period=1s",
		"--node-monitor-grace-period=" + cp.opts.NodeMonitorGracePeriod.String(),
		"--v=0",
	}}
	if err := cp.ControllerManager.Start(); err != nil {
		return err
	}

	// kube-scheduler.
	schedBin, err := cp.bin("kube-scheduler")
	if err != nil {
		return err
	}
	cp.Scheduler = &Proc{Name: "kube-scheduler", Path: schedBin, Log: cp.path("kube-scheduler.log"), Args: []string{
		"--kubeconfig=" + cp.Kubeconfig,
		"--authentication-kubeconfig=" + cp.Kubeconfig, "--authorization-kubeconfig=" + cp.Kubeconfig,
		"--leader-elect=false", "--secure-port=0", "--v=0",
	}}
	return cp.Scheduler.Start()
}

// fakeNode is a kwok node and its zone.
type fakeNode struct{ name, zone string }

// startKwok starts one kwok process per node (--manage-single-node), so
// that a node fails when its kwok is frozen (FailNode) and recovers when it
// runs again, like a kubelet that stops and resumes.
func (cp *ControlPlane) startKwok() ([]fakeNode, error) {
	kwokBin, err := cp.bin("kwok")
	if err != nil {
		return nil, err
	}
	var nodes []fakeNode
	for _, zone := range cp.opts.Zones {
		for i := 0; i < cp.opts.NodesPerZone; i++ {
			nodes = append(nodes, fakeNode{fmt.Sprintf("%s-node-%d", zone, i), zone})
		}
	}
	cp.Kwok = map[string]*Proc{}
	for _, n := range nodes {
		node := n.name
		p := &Proc{Name: "kwok " + node, Path: kwokBin, Log: cp.path("kwok-" + node + ".log"), Args: []string{
			"--kubeconfig=" + cp.Kubeconfig,
			"--manage-all-nodes=false",
			"--manage-single-node=" + node,
			"--cidr=10.0.0.1/16", "--node-ip=10.0.0.1",
			// Node leases renewed every 2s: without them kwok
			// heartbeats through the node status every 20-45s,
			// and the node lifecycle controller would see healthy
			// nodes flap NotReady.
			"--node-lease-duration-seconds=8",
		}}
		metricsArgs, err := cp.kwokMetricsArgs()
		if err != nil {
			return nil, err
		}
		p.Args = append(p.Args, metricsArgs...)
		if err := p.Start(); err != nil {
			return nil, err
		}
		cp.Kwok[node] = p
	}
	return nodes, nil
}

// waitClusterReady waits for the default ServiceAccount, then adds the
// nodes and waits until they are Ready.
func (cp *ControlPlane) waitClusterReady(nodes []fakeNode, t0 time.Time) error {
	// The serviceaccount controller creates "default" in every namespace:
	// pods cannot be created before it runs.
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := wait.PollUntilContextCancel(ctx, 200*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		_, err := cp.Kube.CoreV1().ServiceAccounts("default").Get(ctx, "default", metav1.GetOptions{})
		return err == nil, nil
	}); err != nil {
		return fmt.Errorf("kube-controller-manager did not create the default ServiceAccount: %w\n%s", err, cp.ControllerManager.Tail(20))
	}
	cp.Timings = append(cp.Timings, Timing{"controller-manager serving (after apiserver ready)", time.Since(t0)})

	for _, n := range nodes {
		if err := cp.AddNode(ctx, n.name, n.zone); err != nil {
			return err
		}
	}
	if err := cp.WaitNodesReady(ctx); err != nil {
		return fmt.Errorf("nodes not Ready: %w", err)
	}
	cp.Timings = append(cp.Timings, Timing{"kwok nodes ready (after apiserver ready)", time.Since(t0)})
	return nil
}

// WriteKubeconfig writes a kubeconfig for the API server with a bearer token.
func (cp *ControlPlane) WriteKubeconfig(path, token string) error {
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["e2e"] = &clientcmdapi.Cluster{Server: cp.apiURL, CertificateAuthorityData: cp.caPEM}
	cfg.AuthInfos["e2e"] = &clientcmdapi.AuthInfo{Token: token}
	cfg.Contexts["e2e"] = &clientcmdapi.Context{Cluster: "e2e", AuthInfo: "e2e", Namespace: "default"}
	cfg.CurrentContext = "e2e"
	return clientcmd.WriteToFile(*cfg, path)
}

// WaitAPIReady waits for /readyz.
func (cp *ControlPlane) WaitAPIReady(timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	var last error
	err := wait.PollUntilContextCancel(ctx, 200*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		if !cp.APIServer.Running() {
			return false, fmt.Errorf("kube-apiserver exited: %v\n%s", cp.APIServer.ExitErr(), cp.APIServer.Tail(30))
		}
		body, err := cp.Kube.Discovery().RESTClient().Get().AbsPath("/readyz").DoRaw(ctx)
		if err != nil {
			last = fmt.Errorf("%v: %s", err, body)
			return false, nil
		}
		return string(body) == "ok", nil
	})
	if err != nil {
		return fmt.Errorf("kube-apiserver not ready: %w (last: %v)", err, last)
	}
	return nil
}

// RestartAPIServer stops kube-apiserver (SIGTERM), waits down, starts it
// again on the same port and waits for /readyz.
func (cp *ControlPlane) RestartAPIServer(down time.Duration) error {
	cp.APIServer.Terminate()
	time.Sleep(down)
	if err := cp.APIServer.Start(); err != nil {
		return err
	}
	return cp.WaitAPIReady(60 * time.Second)
}

// FailNode freezes the node's kwok (SIGSTOP): its lease is no longer
// renewed, and the node lifecycle controller marks the node NotReady
// (Unknown) and taints it after the grace period.
func (cp *ControlPlane) FailNode(name string) error {
	p, ok := cp.Kwok[name]
	if !ok {
		return fmt.Errorf("no node %s", name)
	}
	return p.Signal(syscall.SIGSTOP)
}

// RecoverNode resumes the node's kwok (SIGCONT).
func (cp *ControlPlane) RecoverNode(name string) error {
	p, ok := cp.Kwok[name]
	if !ok {
		return fmt.Errorf("no node %s", name)
	}
	return p.Signal(syscall.SIGCONT)
}

// AddNode creates a fake node in zone, which kwok manages (heartbeats,
// Ready, runs its pods).
func (cp *ControlPlane) AddNode(ctx context.Context, name, zone string) error {
	n := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{
			Name:        name,
			Labels:      map[string]string{ZoneLabel: zone, HostnameLabel: name, "type": "kwok"},
			Annotations: map[string]string{KwokNodeAnnotation: kwokNodeValue},
		},
		Status: corev1.NodeStatus{
			Capacity: corev1.ResourceList{
				corev1.ResourceCPU: resource.MustParse("32"), corev1.ResourceMemory: resource.MustParse("256Gi"),
				corev1.ResourcePods: resource.MustParse("110"),
			},
			Allocatable: corev1.ResourceList{
				corev1.ResourceCPU: resource.MustParse("32"), corev1.ResourceMemory: resource.MustParse("256Gi"),
				corev1.ResourcePods: resource.MustParse("110"),
			},
		},
	}
	cp.nodeMetricsAnnotations(name, n.Annotations)
	_, err := cp.Kube.CoreV1().Nodes().Create(ctx, n, metav1.CreateOptions{})
	if apierrs.IsAlreadyExists(err) {
		return nil
	}
	return err
}

// WaitNodesReady waits until every node is Ready.
func (cp *ControlPlane) WaitNodesReady(ctx context.Context) error {
	return wait.PollUntilContextCancel(ctx, 250*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		nodes, err := cp.Kube.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, nil
		}
		for i := range nodes.Items {
			if !NodeReady(&nodes.Items[i]) {
				return false, nil
			}
		}
		return len(nodes.Items) > 0, nil
	})
}

// NodeReady reports the node's Ready condition.
func NodeReady(n *corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}
