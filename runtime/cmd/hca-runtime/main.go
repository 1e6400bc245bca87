// Command hca-runtime is the HCA controller that terraform-provider-hca installs.
//
//	hca-runtime run [flags]     run the controllers (in the cluster, or out of it with --kubeconfig)
//	hca-runtime moha ...        MOHA's dataset, model training and decision, offline
//	hca-runtime version         print the version
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/hca-project/terraform-provider-hca/runtime/controller"
)

// Defaults of --kube-api-qps and --kube-api-burst: Karpenter's
// (--kube-client-qps 200, --kube-client-burst 300). client-go's own, 5 and 10,
// held the runtime to about 6 writes a second: 10,000 new SLOs took over half
// an hour to get their first status (make bench-load).
const (
	DefaultKubeAPIQPS   = 200
	DefaultKubeAPIBurst = 300
)

// version is set at build time: -ldflags "-X main.version=...".
var version = "dev"

const usage = `usage: hca-runtime <command> [flags]

commands:
  run       run the controllers (see hca-runtime run -h)
  simulate  replay a load trace against a policy in virtual time (see hca-runtime simulate -h)
  moha      multi-objective hybrid autoscaling: collect a dataset, train a model, decide (see hca-runtime moha -h)
  version   print the version
`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := runMain(ctx, os.Args[1:], os.Stdout, os.Stderr)
	if err == nil {
		return
	}
	fmt.Fprintln(os.Stderr, "hca-runtime:", err)
	var u usageError
	if errors.As(err, &u) {
		os.Exit(2)
	}
	os.Exit(1)
}

type usageError struct{ msg string }

func (u usageError) Error() string { return u.msg }

func runMain(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return usageError{"no command given"}
	}
	switch args[0] {
	case "version":
		fmt.Fprintln(stdout, version)
		return nil
	case "run":
		opts, err := parseRunFlags(args[1:], stderr)
		if err != nil {
			return err
		}
		return run(ctx, opts, stderr)
	case "simulate":
		return simulate(ctx, args[1:], stdout, stderr)
	case "moha":
		return mohaCmd(args[1:], stdout, stderr)
	case "-h", "--help", "help":
		fmt.Fprint(stdout, usage)
		return nil
	default:
		fmt.Fprint(stderr, usage)
		return usageError{fmt.Sprintf("unknown command %q", args[0])}
	}
}

type runOptions struct {
	kubeconfig       string
	prometheusURL    string
	consulAddr       string
	leaderElect      bool
	leaderElectionNS string
	metricsAddr      string
	probeAddr        string
	probeInterval    string
	burstInterval    string
	sloHeartbeat     string
	awsRegion        string
	eksEndpoint      string
	stsEndpoint      string
	asEndpoint       string
	ackEndpoint      string
	logLevel         string
	logFormat        string
	class            string
	kubeAPIQPS       float64
	kubeAPIBurst     int
	pprofAddr        string
}

func parseRunFlags(args []string, stderr io.Writer) (runOptions, error) {
	var o runOptions
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.kubeconfig, "kubeconfig", "", "kubeconfig of the control cluster when running out of cluster (default: in-cluster config, then $KUBECONFIG)")
	fs.StringVar(&o.prometheusURL, "prometheus-url", "", "Prometheus base URL for workload metrics and SLOs (empty: metric-driven scaling is off)")
	fs.StringVar(&o.consulAddr, "consul-addr", "", "Consul HTTP address host:port to publish remote replicas to (empty: Consul is off)")
	fs.BoolVar(&o.leaderElect, "leader-elect", false, "elect a leader so that only one replica acts")
	fs.StringVar(&o.leaderElectionNS, "leader-election-namespace", "", "namespace of the leader election lease (default: the pod's namespace)")
	fs.StringVar(&o.metricsAddr, "metrics-bind-address", ":8080", "address of the Prometheus metrics endpoint (0 disables it)")
	fs.StringVar(&o.probeAddr, "health-probe-bind-address", ":8081", "address of /healthz and /readyz (0 disables them)")
	fs.StringVar(&o.probeInterval, "cluster-probe-interval", "30s", "how often hybrid clusters are probed")
	fs.StringVar(&o.sloHeartbeat, "slo-status-heartbeat", controller.DefaultSLOStatusHeartbeat.String(), "how long an SLO's status may go unwritten while only its current value changes (a change of compliance, strategy or conditions is written at once)")
	fs.StringVar(&o.burstInterval, "burst-metrics-interval", "", "how often burst policies with metrics are evaluated (the control interval; default: the algorithm's, 2s for adaptive and panic, 15s for kubernetes and frss)")
	fs.StringVar(&o.awsRegion, "aws-region", "", "default AWS region for EKS clusters (credentials come from the SDK's default chain)")
	fs.StringVar(&o.eksEndpoint, "eks-endpoint", "", "EKS API endpoint override (the lab's emulator)")
	fs.StringVar(&o.stsEndpoint, "sts-endpoint", "", "STS endpoint override (the lab's emulator)")
	fs.StringVar(&o.asEndpoint, "autoscaling-endpoint", "", "AWS Auto Scaling endpoint override (the lab's emulator)")
	fs.StringVar(&o.ackEndpoint, "ack-endpoint", "", "Alibaba Cloud CS (ACK) endpoint override (the lab's emulator); ACK node pools are scaled when ALIBABA_CLOUD_ACCESS_KEY_ID is set or this is given")
	fs.StringVar(&o.logLevel, "log-level", "info", "log level: debug, info, warn or error")
	fs.StringVar(&o.logFormat, "log-format", "json", "log format: json (one object a line, for log collectors) or text (key=value, for a terminal)")
	fs.Float64Var(&o.kubeAPIQPS, "kube-api-qps", DefaultKubeAPIQPS, "sustained requests per second to the control cluster's API server (client-go's default, 5, throttles the runtime at a few hundred SLOs)")
	fs.IntVar(&o.kubeAPIBurst, "kube-api-burst", DefaultKubeAPIBurst, "requests allowed in a burst above --kube-api-qps")
	fs.StringVar(&o.pprofAddr, "pprof-bind-address", "", "address of Go's pprof endpoints (/debug/pprof/), for profiling (empty: off)")
	fs.StringVar(&o.class, "class", "", "handle only the objects labelled hca.dev/class=<class> (HybridClusters, BurstPolicies, SLOs, strategies, FederatedAutoscalers), so several runtimes can share one control cluster (default: the objects without the label)")
	if err := fs.Parse(args); err != nil {
		return o, usageError{err.Error()}
	}
	if errs := validation.IsValidLabelValue(o.class); len(errs) > 0 {
		return o, usageError{fmt.Sprintf("--class %q is not a valid label value: %s", o.class, strings.Join(errs, "; "))}
	}
	if o.kubeAPIQPS <= 0 || o.kubeAPIBurst < 1 {
		return o, usageError{fmt.Sprintf("--kube-api-qps %v and --kube-api-burst %d: use a positive rate and a burst of at least 1", o.kubeAPIQPS, o.kubeAPIBurst)}
	}
	if fs.NArg() > 0 {
		return o, usageError{fmt.Sprintf("unexpected argument %q", fs.Arg(0))}
	}
	return o, nil
}
