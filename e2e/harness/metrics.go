//go:build e2e

package harness

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"os"
	"strconv"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/vsched/vsched/internal/testkit/nettest"
)

// The resource metrics pipeline of the control plane (Options.Metrics):
//
//   - kwok serves, for each node, a kubelet's /metrics/resource at
//     /metrics/nodes/<node>/metrics/resource on the node's own port
//     (--node-port; the node's InternalIP is 127.0.0.1), from a Metric
//     resource; a ClusterResourceUsage sets each adapter container's cpu
//     and memory from the pod's annotations UsageCPUAnnotation and
//     UsageMemoryAnnotation (CEL), so a test sets a pod's usage by
//     annotating it;
//   - metrics-server scrapes them (the node annotation
//     metrics.k8s.io/resource-metrics-path names the path) and serves
//     metrics.k8s.io on a loopback port;
//   - kube-apiserver's aggregation layer reaches it: front-proxy client
//     certificates (--requestheader-*, --proxy-client-*), an APIService
//     v1beta1.metrics.k8s.io and a Service of type ExternalName
//     "localhost". Not a ClusterIP Service with an EndpointSlice and
//     --enable-aggregator-routing: endpoint addresses may not be loopback
//     (API validation), and nothing here routes a cluster IP. Without
//     aggregator routing the API server dials an ExternalName service's
//     name and the APIService's port, as kwokctl does for its own
//     metrics-server.

// Annotations a test sets on an adapter pod to set its simulated usage
// (quantities: "1500m", "200Mi"); without them a container uses 1m of cpu
// and 1Mi of memory.
const (
	UsageCPUAnnotation    = "e2e.vsched.dev/usage-cpu"
	UsageMemoryAnnotation = "e2e.vsched.dev/usage-memory"
	// MetricsNamespace is the namespace whose pods' usage kwok
	// simulates: deploy/sample's.
	MetricsNamespace = "vsched-sample"
	// MetricResolution is metrics-server's scrape interval (its least).
	MetricResolution = 10 * time.Second

	resourceMetricsPathAnnotation = "metrics.k8s.io/resource-metrics-path"
	frontProxyName                = "front-proxy-client"
)

// containerLabels are the labels of a container's series (values: CEL).
const containerLabels = `[{name: container, value: container.name}, {name: namespace, value: pod.metadata.namespace}, {name: pod, value: pod.metadata.name}]`

// kwokMetricsConfig is kwok's --config: the kubelet resource metrics
// metrics-server reads (cpu as a cumulative counter, memory as a working
// set, per node and per container) and the usage from the annotations.
var kwokMetricsConfig = `apiVersion: kwok.x-k8s.io/v1alpha1
kind: Metric
metadata:
  name: resource
spec:
  path: /metrics/nodes/{nodeName}/metrics/resource
  metrics:
  - {name: scrape_error, kind: gauge, dimension: node, help: "0 when the scrape worked", value: "0"}
  - {name: node_cpu_usage_seconds_total, kind: counter, dimension: node, help: "node cpu, core-seconds", value: 'node.CumulativeUsage("cpu")'}
  - {name: node_memory_working_set_bytes, kind: gauge, dimension: node, help: "node working set", value: 'node.Usage("memory")'}
  - {name: container_start_time_seconds, kind: gauge, dimension: container, help: "container start, seconds since the epoch", labels: ` + containerLabels + `, value: pod.SinceSecond()}
  - {name: container_cpu_usage_seconds_total, kind: counter, dimension: container, help: "container cpu, core-seconds", labels: ` + containerLabels + `, value: 'pod.CumulativeUsage("cpu", container.name)'}
  - {name: container_memory_working_set_bytes, kind: gauge, dimension: container, help: "container working set", labels: ` + containerLabels + `, value: 'pod.Usage("memory", container.name)'}
---
apiVersion: kwok.x-k8s.io/v1alpha1
kind: ClusterResourceUsage
metadata:
  name: usage-from-annotations
spec:
  selector:
    matchNamespaces: [` + MetricsNamespace + `]
  usages:
  - usage:
      cpu:
        expression: '"` + UsageCPUAnnotation + `" in pod.metadata.annotations ? Quantity(pod.metadata.annotations["` + UsageCPUAnnotation + `"]) : Quantity("1m")'
      memory:
        expression: '"` + UsageMemoryAnnotation + `" in pod.metadata.annotations ? Quantity(pod.metadata.annotations["` + UsageMemoryAnnotation + `"]) : Quantity("1Mi")'
`

// metricsObjects are the Service and APIService through which the
// aggregation layer reaches metrics-server on port.
func metricsObjects(port int) string {
	return fmt.Sprintf(`apiVersion: v1
kind: Service
metadata:
  name: metrics-server
  namespace: kube-system
spec:
  type: ExternalName
  externalName: localhost
---
apiVersion: apiregistration.k8s.io/v1
kind: APIService
metadata:
  name: v1beta1.metrics.k8s.io
spec:
  group: metrics.k8s.io
  version: v1beta1
  groupPriorityMinimum: 100
  versionPriority: 100
  insecureSkipTLSVerify: true
  service:
    name: metrics-server
    namespace: kube-system
    port: %d
`, port)
}

// writeFrontProxyCerts writes the aggregation layer's client CA and the
// client certificate kube-apiserver presents to metrics-server.
func (cp *ControlPlane) writeFrontProxyCerts() error {
	caKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return err
	}
	now := time.Now()
	ca := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "vsched-e2e-front-proxy-ca"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature, BasicConstraintsValid: true, IsCA: true,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, ca, ca, &caKey.PublicKey, caKey)
	if err != nil {
		return err
	}
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return err
	}
	client := &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: frontProxyName},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, client, ca, &key.PublicKey, caKey)
	if err != nil {
		return err
	}
	if err := os.WriteFile(cp.path("front-proxy-ca.crt"), pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}), 0o600); err != nil {
		return err
	}
	if err := os.WriteFile(cp.path("front-proxy-client.crt"), pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		return err
	}
	return writeRSAKey(cp.path("front-proxy-client.key"), key)
}

// aggregatorArgs are kube-apiserver's flags for the aggregation layer,
// with Options.Metrics.
func (cp *ControlPlane) aggregatorArgs() []string {
	if !cp.opts.Metrics {
		return nil
	}
	return []string{
		"--requestheader-client-ca-file=" + cp.path("front-proxy-ca.crt"),
		"--requestheader-allowed-names=" + frontProxyName,
		"--requestheader-extra-headers-prefix=X-Remote-Extra-",
		"--requestheader-group-headers=X-Remote-Group",
		"--requestheader-username-headers=X-Remote-User",
		"--proxy-client-cert-file=" + cp.path("front-proxy-client.crt"),
		"--proxy-client-key-file=" + cp.path("front-proxy-client.key"),
	}
}

// kwokMetricsArgs are a node's kwok flags with Options.Metrics: its own
// port, which the node reports as its kubelet's, on 127.0.0.1.
func (cp *ControlPlane) kwokMetricsArgs() ([]string, error) {
	if !cp.opts.Metrics {
		return nil, nil
	}
	port, err := nettest.FreePort()
	if err != nil {
		return nil, err
	}
	p := strconv.Itoa(port)
	return []string{
		"--config=" + cp.path("kwok-metrics.yaml"),
		"--node-ip=127.0.0.1", "--node-port=" + p, "--server-address=127.0.0.1:" + p,
	}, nil
}

// nodeMetricsAnnotations tell metrics-server where kwok serves a node's
// resource metrics.
func (cp *ControlPlane) nodeMetricsAnnotations(node string, into map[string]string) {
	if cp.opts.Metrics {
		into[resourceMetricsPathAnnotation] = "/metrics/nodes/" + node + "/metrics/resource"
	}
}

// startMetrics starts metrics-server and registers it with the
// aggregation layer, and waits until metrics.k8s.io serves the nodes.
func (cp *ControlPlane) startMetrics(ctx context.Context) error {
	if !cp.opts.Metrics {
		return nil
	}
	bin, err := cp.bin("metrics-server")
	if err != nil {
		return err
	}
	port, err := nettest.FreePort()
	if err != nil {
		return err
	}
	cp.MetricsServer = &Proc{Name: "metrics-server", Path: bin, Log: cp.path("metrics-server.log"), Args: []string{
		"--secure-port=" + strconv.Itoa(port), "--bind-address=127.0.0.1", "--cert-dir=" + cp.path("metrics-server-certs"),
		"--kubeconfig=" + cp.Kubeconfig, "--authentication-kubeconfig=" + cp.Kubeconfig, "--authorization-kubeconfig=" + cp.Kubeconfig,
		"--kubelet-insecure-tls", "--kubelet-use-node-status-port", "--kubelet-preferred-address-types=InternalIP",
		// The resolution must exceed the scrape timeout.
		"--metric-resolution=" + MetricResolution.String(), "--kubelet-request-timeout=5s",
	}}
	if err := cp.MetricsServer.Start(); err != nil {
		return err
	}
	if err := cp.ApplyYAML(ctx, metricsObjects(port)); err != nil {
		return fmt.Errorf("registering metrics-server: %w", err)
	}
	return cp.WaitMetricsServed(ctx)
}

// WaitMetricsServed waits until metrics.k8s.io answers a List of the
// pods' metrics in MetricsNamespace through the aggregation layer. (Not the
// nodes': metrics-server leaves out a node whose usage is 0, as a kwok node
// without pods is.)
func (cp *ControlPlane) WaitMetricsServed(ctx context.Context) error {
	var last error
	err := wait.PollUntilContextTimeout(ctx, time.Second, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		if !cp.MetricsServer.Running() {
			return false, fmt.Errorf("metrics-server exited: %v", cp.MetricsServer.ExitErr())
		}
		raw, err := cp.Kube.Discovery().RESTClient().Get().AbsPath("/apis/metrics.k8s.io/v1beta1/namespaces/" + MetricsNamespace + "/pods").DoRaw(ctx)
		if err != nil {
			if ctx.Err() == nil {
				last = fmt.Errorf("%w: %s", err, raw)
			}
			return false, nil
		}
		return true, nil
	})
	if err != nil {
		return fmt.Errorf("metrics.k8s.io not serving: %w (last: %v)\n%s", err, last, cp.MetricsServer.Tail(20))
	}
	return nil
}

// StopMetricsServer stops metrics-server (SIGTERM); metrics.k8s.io then
// answers 503 through the aggregation layer.
func (cp *ControlPlane) StopMetricsServer() { cp.MetricsServer.Terminate() }

// StartMetricsServer starts it again with the same flags and waits until
// it serves.
func (cp *ControlPlane) StartMetricsServer(ctx context.Context) error {
	if err := cp.MetricsServer.Start(); err != nil {
		return err
	}
	return cp.WaitMetricsServed(ctx)
}
