package main

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"os"
	"time"

	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/go-logr/logr"
	consul "github.com/hashicorp/consul/api"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
	"github.com/hca-project/terraform-provider-hca/internal/metrics"
	"github.com/hca-project/terraform-provider-hca/runtime/catalog"
	"github.com/hca-project/terraform-provider-hca/runtime/controller"
	"github.com/hca-project/terraform-provider-hca/runtime/member"
	"github.com/hca-project/terraform-provider-hca/runtime/telemetry"
)

func run(ctx context.Context, o runOptions, logOut io.Writer) error {
	logger, err := newLogger(o.logFormat, o.logLevel, logOut)
	if err != nil {
		return err
	}
	ctrlLog := logr.FromSlogHandler(logger.Handler())
	ctrl.SetLogger(ctrlLog)
	interval, err := time.ParseDuration(o.probeInterval)
	if err != nil || interval <= 0 {
		return usageError{fmt.Sprintf("--cluster-probe-interval %q: use a positive duration such as 30s", o.probeInterval)}
	}
	var burstInterval time.Duration
	if o.burstInterval != "" {
		burstInterval, err = time.ParseDuration(o.burstInterval)
	}
	if err != nil || burstInterval < 0 || o.burstInterval != "" && burstInterval == 0 {
		return usageError{fmt.Sprintf("--burst-metrics-interval %q: use a positive duration such as 15s, or leave it out for the algorithm's", o.burstInterval)}
	}
	sloHeartbeat, err := time.ParseDuration(o.sloHeartbeat)
	if err != nil || sloHeartbeat <= 0 {
		return usageError{fmt.Sprintf("--slo-status-heartbeat %q: use a positive duration such as 5m", o.sloHeartbeat)}
	}
	for name, u := range map[string]string{"--prometheus-url": o.prometheusURL, "--eks-endpoint": o.eksEndpoint, "--sts-endpoint": o.stsEndpoint,
		"--autoscaling-endpoint": o.asEndpoint, "--ack-endpoint": o.ackEndpoint} {
		if u == "" {
			continue
		}
		if p, err := url.Parse(u); err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
			return usageError{fmt.Sprintf("%s %q: use an absolute http(s) URL", name, u)}
		}
	}
	cfg, err := restConfig(o.kubeconfig)
	if err != nil {
		return err
	}
	cfg.QPS, cfg.Burst = float32(o.kubeAPIQPS), o.kubeAPIBurst
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		return err
	}
	if err := hcav1.AddToScheme(scheme); err != nil {
		return err
	}
	lock, err := leaderLock(cfg, o)
	if err != nil {
		return err
	}
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		// The controllers' loggers descend from slog's own sink (not
		// controller-runtime's delegating one), so that a warning logged
		// through slog keeps its level.
		Logger:                              ctrlLog,
		Scheme:                              scheme,
		Metrics:                             metricsserver.Options{BindAddress: o.metricsAddr},
		HealthProbeBindAddress:              o.probeAddr,
		LeaderElection:                      o.leaderElect,
		LeaderElectionID:                    leaseName(o.class),
		LeaderElectionNamespace:             o.leaderElectionNS,
		LeaderElectionResourceLockInterface: lock,
		// What the informers keep: no managedFields, and of pods and
		// nodes only what the controllers read (cache.go, make bench-load).
		Cache:            controller.CacheOptions(),
		PprofBindAddress: o.pprofAddr,
		// Mappings kept once found: the metadata client (status writes)
		// asks the mapper at every request.
		MapperProvider: controller.NewRESTMapper,
	})
	if err != nil {
		return fmt.Errorf("create controller manager: %w", err)
	}
	if err := addProbes(mgr, cfg, lock); err != nil {
		return err
	}
	tm := telemetry.New(nil)
	tm.BuildInfo.WithLabelValues(version).Set(1)
	if err := telemetry.RegisterStatusCollector(nil, mgr.GetCache(), elected(mgr, o.leaderElect)); err != nil {
		return err
	}
	deps := controller.Deps{Clock: clock.RealClock{}, Telemetry: tm, ProbeInterval: interval, BurstMetricsInterval: burstInterval, Class: o.class, SLOStatusHeartbeat: sloHeartbeat}
	var aws member.EKSAPI
	var clouds member.Clouds
	if o.awsRegion != "" || o.eksEndpoint != "" || os.Getenv("AWS_REGION") != "" {
		awsCfg, err := config.LoadDefaultConfig(ctx, config.WithRegion(firstNonEmpty(o.awsRegion, os.Getenv("AWS_REGION"), "us-east-1")),
			config.WithAPIOptions(tm.AWSAPIOptions()))
		if err != nil {
			return fmt.Errorf("load AWS configuration: %w", err)
		}
		api := &member.AWSAPI{Config: awsCfg, EKSEndpoint: o.eksEndpoint, STSEndpoint: o.stsEndpoint, AutoScalingEndpoint: o.asEndpoint}
		aws, clouds.AWS = api, api
	}
	// ACK: the Alibaba Cloud SDK's default credential chain (the
	// ALIBABA_CLOUD_ACCESS_KEY_ID/SECRET environment variables, which
	// hca_runtime fills from a Secret), read on first use.
	if o.ackEndpoint != "" || os.Getenv("ALIBABA_CLOUD_ACCESS_KEY_ID") != "" {
		clouds.ACK = &member.ACKAPI{Endpoint: o.ackEndpoint, Recorder: tm}
	}
	if clouds.AWS != nil || clouds.ACK != nil {
		deps.Cloud = clouds
	}
	// HybridClusters and their credentials Secrets come from the manager's
	// cache (the burst controller watches both): a member client is rebuilt
	// when either changes, and a round no longer waits on two API reads.
	deps.Members = &controller.Members{Control: mgr.GetClient(), AWS: aws, Clock: deps.Clock, Options: client.Options{Scheme: scheme}}
	if o.consulAddr != "" {
		cc, err := consul.NewClient(&consul.Config{Address: o.consulAddr})
		if err != nil {
			return fmt.Errorf("consul client for %s: %w", o.consulAddr, err)
		}
		deps.Catalog = catalog.New(tm.CountingCatalog(cc.Catalog()), cc.Health())
	}
	if o.prometheusURL != "" {
		src, err := metrics.NewPrometheus(o.prometheusURL, metrics.WithLogger(logger))
		if err != nil {
			return fmt.Errorf("prometheus source: %w", err)
		}
		deps.Metrics = tm.CountingSource(src)
	}
	if err := controller.Setup(mgr, deps); err != nil {
		return err
	}
	logger.Info("starting hca-runtime", "version", version, "prometheus", o.prometheusURL != "", "consul", o.consulAddr != "", "leaderElection", o.leaderElect)
	return mgr.Start(ctx)
}

func restConfig(kubeconfig string) (*rest.Config, error) {
	if kubeconfig != "" {
		cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
		if err != nil {
			return nil, fmt.Errorf("load --kubeconfig %s: %w", kubeconfig, err)
		}
		return cfg, nil
	}
	cfg, err := ctrl.GetConfig()
	if err != nil {
		return nil, fmt.Errorf("no control cluster: not running in a cluster and no --kubeconfig or $KUBECONFIG: %w", err)
	}
	return cfg, nil
}

func firstNonEmpty(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}
