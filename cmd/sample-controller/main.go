// Command sample-controller runs the sample source controller: it places
// SampleSources' vreplicas (samplesources.samples.vsched.dev) on the pods of
// the sample-adapter StatefulSet with vsched, and sizes the StatefulSet.
//
// In a cluster it runs from deploy/sample (in-cluster config, namespace from
// SYSTEM_NAMESPACE); outside one, pass --kubeconfig and --namespace.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	"knative.dev/pkg/logging"
	"knative.dev/pkg/system"

	"github.com/vsched/vsched/internal/app/sample/controller"
)

func main() {
	var (
		kubeconfig  = flag.String("kubeconfig", os.Getenv("KUBECONFIG"), "path to a kubeconfig; empty means in-cluster")
		namespace   = flag.String("namespace", os.Getenv(system.NamespaceEnvKey), "namespace of the StatefulSet, ConfigMaps and leases (default $"+system.NamespaceEnvKey+")")
		sts         = flag.String("statefulset", controller.DefaultStatefulSet, "the adapter StatefulSet")
		capacity    = flag.Int("capacity", controller.DefaultCapacity, "most vreplicas per adapter pod")
		srcNS       = flag.String("source-namespace", "", "watch sources in this namespace only (default: all)")
		resync      = flag.Duration("resync", controller.DefaultResyncPeriod, "scheduler and informer resync period")
		leaderElect = flag.Bool("leader-elect", true, "elect a leader through leases (config-leader-election)")
		identity    = flag.String("identity", "", "leader election identity (default $POD_NAME, else hostname_uuid)")
		threads     = flag.Int("threadiness", controller.DefaultThreadiness, "workers")
		bindWait    = flag.Duration("bind-wait", controller.DefaultBindWait, "how long a source needing new vreplicas waits for the StatefulSet's new pods to be bound, and how long a source placed nothing waits for room before its pending status is written (negative: neither)")
		srcDelay    = flag.Duration("source-sync-delay", 0, "testing aid: start the source informer this long after the rest, without waiting for it (a slow first list of the sources)")
		metricsAddr = flag.String("metrics-addr", ":9090", "where /metrics (Prometheus), /healthz and /readyz listen (empty: nowhere)")
		level       = flag.String("log-level", "info", "debug, info, warn or error")
		qps         = flag.Float64("kube-api-qps", 50, "client QPS")
		burst       = flag.Int("kube-api-burst", 100, "client burst")
		sig         signalFlags
		use         usageFlags
	)
	sig.register(flag.CommandLine)
	use.register()
	flag.Parse()
	sig.sourceNamespace = *srcNS

	logger, _ := logging.NewLogger("", *level)
	defer logger.Sync()
	logger = logger.Named(controller.Component)
	if *identity != "" {
		logger = logger.With("identity", *identity)
	}

	cfg, err := clientcmd.BuildConfigFromFlags("", *kubeconfig)
	if err != nil {
		logger.Fatalw("kubeconfig", "error", err)
	}
	cfg.QPS, cfg.Burst = float32(*qps), *burst
	cfg.UserAgent = controller.Component
	providers, err := sig.providers(cfg)
	if err != nil {
		logger.Fatalw("source autoscaler flags", "error", err)
	}
	usageReader := use.mustReader(logger, cfg, *namespace, *sts)
	kube, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		logger.Fatalw("kubernetes client", "error", err)
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		logger.Fatalw("dynamic client", "error", err)
	}

	ctx, cancel := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer cancel()
	ctx = logging.WithLogger(ctx, logger)
	err = controller.Run(ctx, controller.Options{
		Namespace:       *namespace,
		StatefulSet:     *sts,
		Capacity:        int32(*capacity),
		SourceNamespace: *srcNS,
		ResyncPeriod:    *resync,
		LeaderElect:     *leaderElect,
		Identity:        *identity,
		Threadiness:     *threads,
		BindWait:        *bindWait,
		SourceSyncDelay: *srcDelay,
		MetricsAddr:     *metricsAddr,
		SignalProviders: providers,
		Usage:           usageReader,
		Kube:            kube,
		Dynamic:         dyn,
	})
	if err != nil {
		logger.Errorw("controller stopped", "error", err)
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	logger.Info("controller stopped")
}
