// Command capacitybench measures scale from zero on the lab (`make
// capacity-bench`): the time from a surge to the first and to all needed burst
// replicas Ready when the burst target's EKS node group starts at 0 nodes, for
// node boot delays of 0, 30, 60 and 90 s; and the node-hours the burst cluster
// bills once the burst is over (goal: 0 after the scale-down delay).
//
// The real burst and capacity controllers (runtime/controller) run in this
// process against the running lab: the private cluster is the primary, the
// EKS emulator (driven by the unmodified EKS SDK) creates the burst cluster
// and its node groups, one per boot delay (the lab tag
// hca.dev/lab-node-boot-delay), and boots the nodes the capacity controller
// asks for after that delay. Pods start after the lab's pod start-up delay
// (`lab up --pod-startup-delay`, 10 s by default). Each scenario has its own
// private node pool full with 4 one-CPU replicas; the surge scales its
// Deployment to 4 + need, the burst controller places the rest in the burst
// cluster, where they stay Pending until nodes are Ready. All scenarios run at
// once (they share the burst cluster and the controllers, as one runtime
// would), so the run takes about as long as the slowest one.
//
// It prints a Markdown table and writes it with its setup to -out.
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	ekstypes "github.com/aws/aws-sdk-go-v2/service/eks/types"
	"github.com/go-logr/logr"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/log"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
	"github.com/hca-project/terraform-provider-hca/internal/lab"
	"github.com/hca-project/terraform-provider-hca/internal/lab/emulator"
	"github.com/hca-project/terraform-provider-hca/runtime/config/crd"
	"github.com/hca-project/terraform-provider-hca/runtime/controller"
	"github.com/hca-project/terraform-provider-hca/runtime/member"
)

// The scenario's shape: 1-CPU replicas, a private pool of one 4-CPU node
// (full before the surge), node-group nodes of 4 CPU (m5.xlarge at its
// us-east-1 on-demand price).
const (
	region       = "us-east-1"
	instanceType = "m5.xlarge"
	price        = "0.192"
	privateRoom  = 4
	poolLabel    = "hca.dev/bench-pool"
	taintKey     = "hca.dev/bench"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "capacitybench:", err)
		os.Exit(1)
	}
}

type options struct {
	labDir         string
	out            string
	delays         []time.Duration
	need           int
	scaleDownDelay time.Duration
	hold           time.Duration
}

func run(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("capacitybench", flag.ContinueOnError)
	var o options
	fs.StringVar(&o.labDir, "lab", ".lab", "the running lab's directory")
	fs.StringVar(&o.out, "out", "", "write the table and its setup to this Markdown file too")
	delays := fs.String("boot-delays", "0s,30s,60s,90s", "node boot delays to measure, comma-separated Go durations")
	fs.IntVar(&o.need, "need", 6, "burst replicas (1 CPU each) the surge needs; a node holds 4")
	fs.DurationVar(&o.scaleDownDelay, "scale-down-delay", time.Minute, "the policies' capacity.scaleDownDelay")
	fs.DurationVar(&o.hold, "hold", 15*time.Second, "how long the surge lasts once all needed replicas are Ready")
	if err := fs.Parse(args); err != nil {
		return err
	}
	for _, s := range strings.Split(*delays, ",") {
		d, err := time.ParseDuration(strings.TrimSpace(s))
		if err != nil || d < 0 {
			return fmt.Errorf("-boot-delays: %q is not a non-negative Go duration such as 30s", s)
		}
		o.delays = append(o.delays, d)
	}
	if o.need < 1 {
		return fmt.Errorf("-need %d: want at least 1", o.need)
	}
	log.SetLogger(logr.Discard())

	started := time.Now()
	b, err := newBench(ctx, o, stdout)
	if err != nil {
		return err
	}
	defer b.cleanup()
	results := b.measure(ctx)

	var table bytes.Buffer
	if err := writeTable(&table, results); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "\n%s", table.String())
	if o.out == "" {
		return nil
	}
	var md bytes.Buffer
	fmt.Fprintf(&md, "<!-- generated by make capacity-bench (tools/capacitybench): do not edit -->\n\n")
	fmt.Fprintf(&md, "Scale from zero on the lab, %s (the whole run took %s on this machine).\n\n", started.UTC().Format(time.RFC3339), time.Since(started).Round(time.Second))
	fmt.Fprintf(&md, "- primary: the lab's private cluster, a pool of one 4-CPU node full with %d one-CPU replicas; the surge asks for %d more\n", privateRoom, o.need)
	fmt.Fprintf(&md, "- burst target: an EKS cluster created through the lab's emulator, one managed node group per boot delay (%s, 4 CPU, $%s per node-hour), min 0, max 3, starting at 0 nodes\n", instanceType, price)
	fmt.Fprintf(&md, "- the runtime's burst and capacity controllers (capacity interval %s), policy capacity.scaleDownDelay %s; pod start-up delay %s (the lab's)\n", controller.DefaultCapacityInterval, o.scaleDownDelay, b.podStartup)
	fmt.Fprintf(&md, "- times since the surge; the surge holds %s after all needed replicas are Ready, then the Deployment falls to 3 replicas; node-hours count the group's desired size (billed from launch)\n\n", o.hold)
	md.Write(table.Bytes())
	if err := os.MkdirAll(filepath.Dir(o.out), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(o.out, md.Bytes(), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", o.out, err)
	}
	fmt.Fprintf(stdout, "\nwritten to %s\n", o.out)
	return nil
}

// bench is the shared set-up: the control client, the EKS cluster with its
// node groups, the HybridCluster and the controllers.
type bench struct {
	o          options
	out        io.Writer
	id         int
	name       string // EKS cluster, HybridCluster and class
	control    client.Client
	clusters   *lab.Clusters
	eksc       *eks.Client
	cloud      *member.AWSAPI
	members    *controller.Members
	podStartup time.Duration
	cleanups   []func()
	logMu      sync.Mutex
}

func (b *bench) logf(format string, args ...any) {
	b.logMu.Lock()
	defer b.logMu.Unlock()
	fmt.Fprintf(b.out, "%s  %s\n", time.Now().Format("15:04:05"), fmt.Sprintf(format, args...))
}

func (b *bench) defer_(f func()) { b.cleanups = append(b.cleanups, f) }

// cleanup undoes the set-up, last first.
func (b *bench) cleanup() {
	for i := len(b.cleanups) - 1; i >= 0; i-- {
		b.cleanups[i]()
	}
}

func group(d time.Duration) string { return fmt.Sprintf("boot-%ds", int(d.Seconds())) }

func newBench(ctx context.Context, o options, out io.Writer) (_ *bench, err error) {
	root, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	l := lab.New(o.labDir, &lab.Binaries{RepoDir: root}, nil, nil)
	env, err := l.Env()
	if err != nil {
		return nil, fmt.Errorf("lab environment: %w (run `make lab-up`)", err)
	}
	for _, k := range []string{"HCA_LAB_PRIVATE_KUBECONFIG", "HCA_LAB_EKS_ENDPOINT", "HCA_LAB_STS_ENDPOINT"} {
		if env[k] == "" {
			return nil, fmt.Errorf("the lab's environment lacks %s: run `make lab-up`", k)
		}
	}
	b := &bench{o: o, out: out, id: rand.IntN(1e6), clusters: l.Clusters}
	defer func() {
		if err != nil {
			b.cleanup()
		}
	}()
	b.name = fmt.Sprintf("capbench-%d", b.id)
	if v := env["HCA_LAB_POD_STARTUP_DELAY"]; v != "" {
		if b.podStartup, err = time.ParseDuration(v); err != nil {
			return nil, fmt.Errorf("HCA_LAB_POD_STARTUP_DELAY %q: %w", v, err)
		}
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", env["HCA_LAB_PRIVATE_KUBECONFIG"])
	if err != nil {
		return nil, err
	}
	cfg.QPS, cfg.Burst = 100, 200
	if err := crd.Install(ctx, cfg); err != nil {
		return nil, fmt.Errorf("install CRDs: %w", err)
	}
	scheme := runtime.NewScheme()
	_ = clientgoscheme.AddToScheme(scheme)
	_ = hcav1.AddToScheme(scheme)
	if b.control, err = client.New(cfg, client.Options{Scheme: scheme}); err != nil {
		return nil, err
	}

	// The burst cluster and its node groups, through the unmodified SDK.
	awsCfg := aws.Config{Region: region, Credentials: credentials.NewStaticCredentialsProvider(emulator.AWSAccessKeyID, emulator.AWSSecretAccessKey, "")}
	b.cloud = &member.AWSAPI{Config: awsCfg, EKSEndpoint: env["HCA_LAB_EKS_ENDPOINT"], STSEndpoint: env["HCA_LAB_STS_ENDPOINT"],
		AutoScalingEndpoint: env["HCA_LAB_EKS_ENDPOINT"]} // the emulator serves EC2 Auto Scaling beside EKS
	b.eksc = eks.NewFromConfig(awsCfg, func(eo *eks.Options) { eo.BaseEndpoint = aws.String(env["HCA_LAB_EKS_ENDPOINT"]) })
	t := time.Now()
	if _, err := b.eksc.CreateCluster(ctx, &eks.CreateClusterInput{Name: aws.String(b.name), RoleArn: aws.String("arn:aws:iam::000000000000:role/eks-cluster"),
		ResourcesVpcConfig: &ekstypes.VpcConfigRequest{SubnetIds: []string{"subnet-0a1b2c3d", "subnet-0e1f2a3b"}}}); err != nil {
		return nil, fmt.Errorf("create EKS cluster %s: %w", b.name, err)
	}
	b.defer_(func() {
		c := context.Background()
		for _, d := range o.delays {
			_, _ = b.eksc.DeleteNodegroup(c, &eks.DeleteNodegroupInput{ClusterName: aws.String(b.name), NodegroupName: aws.String(group(d))})
		}
		for _, d := range o.delays {
			_ = eks.NewNodegroupDeletedWaiter(b.eksc).Wait(c, &eks.DescribeNodegroupInput{ClusterName: aws.String(b.name), NodegroupName: aws.String(group(d))}, 3*time.Minute)
		}
		if _, err := b.eksc.DeleteCluster(c, &eks.DeleteClusterInput{Name: aws.String(b.name)}); err != nil {
			b.logf("delete EKS cluster %s: %v", b.name, err)
		}
	})
	if err := eks.NewClusterActiveWaiter(b.eksc).Wait(ctx, &eks.DescribeClusterInput{Name: aws.String(b.name)}, 3*time.Minute); err != nil {
		return nil, fmt.Errorf("EKS cluster %s: %w", b.name, err)
	}
	b.logf("EKS cluster %s active (%s)", b.name, time.Since(t).Round(100*time.Millisecond))
	var groups []hcav1.NodeGroup
	for _, d := range o.delays {
		g := group(d)
		pool := b.pool(d)
		if _, err := b.eksc.CreateNodegroup(ctx, &eks.CreateNodegroupInput{ClusterName: aws.String(b.name), NodegroupName: aws.String(g),
			NodeRole: aws.String("arn:aws:iam::000000000000:role/eks-node"), Subnets: []string{"subnet-0a1b2c3d"}, InstanceTypes: []string{instanceType},
			Labels:        map[string]string{poolLabel: pool},
			Tags:          map[string]string{emulator.LabBootDelayTag: d.String()},
			ScalingConfig: &ekstypes.NodegroupScalingConfig{MinSize: aws.Int32(0), MaxSize: aws.Int32(3), DesiredSize: aws.Int32(0)}}); err != nil {
			return nil, fmt.Errorf("create node group %s: %w", g, err)
		}
		groups = append(groups, hcav1.NodeGroup{Name: g, EKS: &hcav1.EKSNodeGroupRef{ClusterName: b.name, Region: region, NodegroupName: g},
			InstanceType: instanceType, PricePerHour: price, MinNodes: 0, MaxNodes: 3, Labels: map[string]string{poolLabel: pool},
			Allocatable: hcav1.NodeAllocatable{CPU: resource.MustParse("4"), Memory: resource.MustParse("16Gi"), Pods: 58}})
	}
	for _, d := range o.delays {
		if err := eks.NewNodegroupActiveWaiter(b.eksc).Wait(ctx, &eks.DescribeNodegroupInput{ClusterName: aws.String(b.name), NodegroupName: aws.String(group(d))}, 3*time.Minute); err != nil {
			return nil, fmt.Errorf("node group %s: %w", group(d), err)
		}
	}
	b.logf("%d node groups active at 0 nodes", len(groups))

	hc := &hcav1.HybridCluster{ObjectMeta: metav1.ObjectMeta{Name: b.name, Labels: map[string]string{controller.ClassLabel: b.name}}, Spec: hcav1.HybridClusterSpec{
		Role: hcav1.RoleBurst, Provider: hcav1.ProviderEKS, Priority: 5,
		Credentials: hcav1.ClusterCredentials{EKS: &hcav1.EKSCredentials{ClusterName: b.name, Region: region}},
		NodeGroups:  groups,
	}}
	if err := b.control.Create(ctx, hc); err != nil {
		return nil, fmt.Errorf("create HybridCluster %s: %w", b.name, err)
	}
	b.defer_(func() { _ = b.control.Delete(context.Background(), hc) })

	// The controllers, as hca-runtime runs them, for this bench's class only.
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{Scheme: scheme, Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0",
		Controller: config.Controller{SkipNameValidation: ptr.To(true)}})
	if err != nil {
		return nil, err
	}
	b.members = &controller.Members{Control: mgr.GetAPIReader(), AWS: b.cloud, Options: client.Options{Scheme: scheme}}
	if err := controller.NewBurstReconciler(mgr.GetClient(), controller.BurstOptions{Members: b.members, Clock: clock.RealClock{}, Class: b.name}).SetupWithManager(mgr); err != nil {
		return nil, err
	}
	if err := (&controller.CapacityReconciler{Client: mgr.GetClient(), Members: b.members, Cloud: member.Clouds{AWS: b.cloud}, Class: b.name}).SetupWithManager(mgr); err != nil {
		return nil, err
	}
	mctx, mcancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := mgr.Start(mctx); err != nil {
			b.logf("manager: %v", err)
		}
	}()
	b.defer_(func() { mcancel(); <-done })
	return b, nil
}

func (b *bench) pool(d time.Duration) string { return fmt.Sprintf("%s-%s", b.name, group(d)) }

// measure runs every scenario at once and returns them in the order of the
// boot delays.
func (b *bench) measure(ctx context.Context) []scenario {
	res := make([]scenario, len(b.o.delays))
	var wg sync.WaitGroup
	for i, d := range b.o.delays {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res[i] = b.scenario(ctx, d)
		}()
	}
	wg.Wait()
	return res
}

// scenario sets up one boot delay's primary (a full private pool, the
// Deployment, the policy), surges, waits for all needed replicas, holds, falls
// and samples until the node group is back at 0 (plus one scale-down delay's
// worth of watching, to see that it stays there).
func (b *bench) scenario(ctx context.Context, d time.Duration) (s scenario) {
	s = scenario{BootDelay: d, PodStartup: b.podStartup, Interval: controller.DefaultCapacityInterval, ScaleDownDelay: b.o.scaleDownDelay, Need: b.o.need}
	s.PricePerHour, _ = strconv.ParseFloat(price, 64)
	g, pool := group(d), b.pool(d)
	ns := pool
	c := context.Background()
	taint := lab.Taint{Key: taintKey, Value: pool, Effect: "NoSchedule"}
	if err := b.clusters.SetNodePool(ctx, lab.PrivateCluster, lab.NodePool{Name: pool, Count: 1, CPU: "4", Memory: "16Gi",
		Labels: map[string]string{poolLabel: pool}, Taints: []lab.Taint{taint}}); err != nil {
		s.Err = fmt.Errorf("private node pool: %w", err)
		return s
	}
	defer func() { _ = b.clusters.SetNodePool(c, lab.PrivateCluster, lab.NodePool{Name: pool, Count: 0}) }()
	if err := b.control.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		s.Err = fmt.Errorf("namespace: %w", err)
		return s
	}
	defer func() { _ = b.control.Delete(c, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}) }()
	if err := b.control.Create(ctx, deployment(ns, pool, privateRoom)); err != nil {
		s.Err = fmt.Errorf("deployment: %w", err)
		return s
	}
	p := &hcav1.BurstPolicy{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: ns, Labels: map[string]string{controller.ClassLabel: b.name}},
		Spec: hcav1.BurstPolicySpec{
			Target: hcav1.BurstTarget{DeploymentName: "web"}, PrimaryCluster: lab.PrivateCluster, MinReplicas: 1, MaxReplicas: 50,
			PendingThreshold: &metav1.Duration{}, BurstTargets: []hcav1.BurstTargetCluster{{Cluster: hcav1.ClusterName(b.name)}},
			Capacity: &hcav1.BurstCapacity{ScaleDownDelay: &metav1.Duration{Duration: b.o.scaleDownDelay}},
		}}
	if err := b.control.Create(ctx, p); err != nil {
		s.Err = fmt.Errorf("policy: %w", err)
		return s
	}
	// The manager still runs when this returns: it removes the finalizer.
	defer func() {
		_ = b.control.Delete(c, p)
		wctx, cancel := context.WithTimeout(c, time.Minute)
		defer cancel()
		for wctx.Err() == nil {
			if err := b.control.Get(wctx, client.ObjectKeyFromObject(p), &hcav1.BurstPolicy{}); client.IgnoreNotFound(err) == nil && err != nil {
				return
			}
			time.Sleep(time.Second)
		}
	}()

	// The primary runs its 4 replicas (after the pod start-up delay).
	if err := wait(ctx, 3*time.Minute, func() bool {
		var dep appsv1.Deployment
		return b.control.Get(ctx, types.NamespacedName{Namespace: ns, Name: "web"}, &dep) == nil && dep.Status.ReadyReplicas == privateRoom
	}); err != nil {
		s.Err = fmt.Errorf("the primary's %d replicas never became Ready: %w", privateRoom, err)
		return s
	}
	m, err := b.members.Get(ctx, b.name)
	if err != nil {
		s.Err = fmt.Errorf("burst cluster client: %w", err)
		return s
	}
	look := func(at time.Duration) (sample, error) {
		x := sample{At: at}
		var pods corev1.PodList
		if err := m.Client.List(ctx, &pods, client.InNamespace(ns)); err != nil {
			return x, err
		}
		for _, pod := range pods.Items {
			if pod.DeletionTimestamp == nil && podReady(&pod) {
				x.Ready++
			}
		}
		var nodes corev1.NodeList
		if err := m.Client.List(ctx, &nodes, client.MatchingLabels{controller.EKSNodegroupLabel: g}); err != nil {
			return x, err
		}
		for _, n := range nodes.Items {
			if nodeReady(&n) {
				x.Nodes++
			}
		}
		st, err := b.cloud.DescribeNodegroup(ctx, b.name, region, g)
		if err != nil {
			return x, err
		}
		x.Desired = int(st.Desired)
		return x, nil
	}

	b.logf("%s: surge to %d replicas (%d burst)", g, privateRoom+b.o.need, b.o.need)
	surge := time.Now()
	if err := scale(ctx, b.control, ns, int32(privateRoom+b.o.need)); err != nil {
		s.Err = err
		return s
	}
	var allAt time.Duration = -1
	var zeroAt time.Duration = -1
	deadline := surge.Add(d + 4*time.Minute)
	last := sample{Ready: -1, Nodes: -1, Desired: -1}
	for {
		x, err := look(time.Since(surge))
		if err == nil {
			s.Samples = append(s.Samples, x)
			if x.Ready != last.Ready || x.Nodes != last.Nodes || x.Desired != last.Desired {
				b.logf("%s: t=%5.1fs  burst replicas Ready %d/%d, nodes Ready %d, desired %d", g, x.At.Seconds(), x.Ready, b.o.need, x.Nodes, x.Desired)
				last = x
			}
		}
		switch {
		case allAt < 0 && err == nil && x.Ready >= b.o.need:
			allAt = x.At
			deadline = time.Now().Add(b.o.hold + b.o.scaleDownDelay + 4*time.Minute)
		case allAt >= 0 && s.FallAt == 0 && time.Since(surge) >= allAt+b.o.hold:
			b.logf("%s: the load falls (3 replicas)", g)
			s.FallAt = time.Since(surge)
			if err := scale(ctx, b.control, ns, privateRoom-1); err != nil {
				s.Err = err
				return s
			}
		case s.FallAt > 0 && zeroAt < 0 && err == nil && x.Desired == 0 && x.Nodes == 0 && x.Ready == 0:
			zeroAt = x.At
		case zeroAt >= 0 && time.Since(surge) >= zeroAt+30*time.Second:
			return s
		}
		if time.Now().After(deadline) {
			s.Err = fmt.Errorf("gave up at t=%s (last: %+v)", time.Since(surge).Round(time.Second), last)
			return s
		}
		select {
		case <-ctx.Done():
			s.Err = ctx.Err()
			return s
		case <-time.After(500 * time.Millisecond):
		}
	}
}

func deployment(ns, pool string, replicas int32) *appsv1.Deployment {
	labels := map[string]string{"app": "web"}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: ns, Labels: labels},
		Spec: appsv1.DeploymentSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{
					NodeSelector: map[string]string{poolLabel: pool},
					Tolerations:  []corev1.Toleration{{Key: taintKey, Operator: corev1.TolerationOpEqual, Value: pool, Effect: corev1.TaintEffectNoSchedule}},
					Containers: []corev1.Container{{Name: "app", Image: "registry.example/web:1",
						Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}}}},
				},
			},
		},
	}
}

func scale(ctx context.Context, c client.Client, ns string, replicas int32) error {
	patch := []byte(fmt.Sprintf(`{"spec":{"replicas":%d}}`, replicas))
	if err := c.Patch(ctx, &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web"}}, client.RawPatch(types.MergePatchType, patch)); err != nil {
		return fmt.Errorf("scale %s/web to %d: %w", ns, replicas, err)
	}
	return nil
}

func wait(ctx context.Context, timeout time.Duration, cond func() bool) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	for !cond() {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(500 * time.Millisecond):
		}
	}
	return nil
}

func podReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

func nodeReady(n *corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}
