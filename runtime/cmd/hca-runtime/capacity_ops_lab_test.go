package main

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	ekstypes "github.com/aws/aws-sdk-go-v2/service/eks/types"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
	"github.com/hca-project/terraform-provider-hca/internal/lab"
	"github.com/hca-project/terraform-provider-hca/internal/lab/emulator"
	"github.com/hca-project/terraform-provider-hca/internal/lab/labtest"
	"github.com/hca-project/terraform-provider-hca/runtime/config/crd"
	"github.com/hca-project/terraform-provider-hca/runtime/config/dashboards"
	"github.com/hca-project/terraform-provider-hca/runtime/controller"
)

// TestOperateCapacityLab runs the built hca-runtime with an EKS burst cluster
// of the lab's emulator, registered by name, whose node group starts empty:
// 6 one-CPU replicas, room for 4 in the private cluster. The runtime buys a
// node (2 s boot for this group), the overflow runs there; the emulator then
// throttles a few calls; the load falls and the node is released. The
// scrape shows each step (node requests and releases, node group sizes and
// price, cloud API calls, throttles and the throttling error), and every
// query of the dashboard's "Cloud capacity and cost" row returns series
// from the lab's Prometheus.
func TestOperateCapacityLab(t *testing.T) {
	env := labtest.Require(t, "HCA_LAB_PRIVATE_KUBECONFIG", "HCA_LAB_PROMETHEUS_URL", "HCA_LAB_PROMETHEUS_TARGETS_DIR",
		"HCA_LAB_EKS_ENDPOINT", "HCA_LAB_STS_ENDPOINT")
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()
	id := rand.IntN(1e6)
	const region = "eu-west-1"
	cfg, err := clientcmd.BuildConfigFromFlags("", env["HCA_LAB_PRIVATE_KUBECONFIG"])
	if err != nil {
		t.Fatal(err)
	}
	if err := crd.Install(ctx, cfg); err != nil {
		t.Fatal(err)
	}
	c, err := client.New(cfg, client.Options{Scheme: labScheme(t)})
	if err != nil {
		t.Fatal(err)
	}
	awsCfg := aws.Config{Region: region, Credentials: credentials.NewStaticCredentialsProvider(emulator.AWSAccessKeyID, emulator.AWSSecretAccessKey, "")}
	eksc := eks.NewFromConfig(awsCfg, func(o *eks.Options) { o.BaseEndpoint = aws.String(env["HCA_LAB_EKS_ENDPOINT"]) })
	name, pool := fmt.Sprintf("ops-cap-%d", id), fmt.Sprintf("opscap%d", id)
	if _, err := eksc.CreateCluster(ctx, &eks.CreateClusterInput{Name: aws.String(name), RoleArn: aws.String("arn:aws:iam::000000000000:role/eks-cluster"),
		ResourcesVpcConfig: &ekstypes.VpcConfigRequest{SubnetIds: []string{"subnet-0a1b2c3d", "subnet-0e1f2a3b"}}}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		bg := context.Background()
		_, _ = eksc.DeleteNodegroup(bg, &eks.DeleteNodegroupInput{ClusterName: aws.String(name), NodegroupName: aws.String("burst")})
		_ = eks.NewNodegroupDeletedWaiter(eksc).Wait(bg, &eks.DescribeNodegroupInput{ClusterName: aws.String(name), NodegroupName: aws.String("burst")}, 2*time.Minute)
		_, _ = eksc.DeleteCluster(bg, &eks.DeleteClusterInput{Name: aws.String(name)})
	})
	if err := eks.NewClusterActiveWaiter(eksc).Wait(ctx, &eks.DescribeClusterInput{Name: aws.String(name)}, 2*time.Minute); err != nil {
		t.Fatal(err)
	}
	if _, err := eksc.CreateNodegroup(ctx, &eks.CreateNodegroupInput{ClusterName: aws.String(name), NodegroupName: aws.String("burst"),
		NodeRole: aws.String("arn:aws:iam::000000000000:role/eks-node"), Subnets: []string{"subnet-0a1b2c3d"}, InstanceTypes: []string{"m5.xlarge"},
		Labels:        map[string]string{"hca.dev/test-pool": pool},
		Tags:          map[string]string{"hca.dev/lab-node-boot-delay": "2s"},
		ScalingConfig: &ekstypes.NodegroupScalingConfig{MinSize: aws.Int32(0), MaxSize: aws.Int32(3), DesiredSize: aws.Int32(0)}}); err != nil {
		t.Fatal(err)
	}
	if err := eks.NewNodegroupActiveWaiter(eksc).Wait(ctx, &eks.DescribeNodegroupInput{ClusterName: aws.String(name), NodegroupName: aws.String("burst")}, 2*time.Minute); err != nil {
		t.Fatal(err)
	}
	mustCreate := func(o client.Object) {
		t.Helper()
		if err := c.Create(ctx, o); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = c.Delete(context.Background(), o) })
	}
	// The runtime handles this test's objects only (its --class), not those
	// of the tests running beside it on the same lab.
	class := map[string]string{controller.ClassLabel: name}
	mustCreate(&hcav1.HybridCluster{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: class}, Spec: hcav1.HybridClusterSpec{
		Role: hcav1.RoleBurst, Provider: hcav1.ProviderEKS, Priority: 5,
		Credentials: hcav1.ClusterCredentials{EKS: &hcav1.EKSCredentials{ClusterName: name, Region: region}},
		NodeGroups: []hcav1.NodeGroup{{Name: "burst", EKS: &hcav1.EKSNodeGroupRef{ClusterName: name, Region: region, NodegroupName: "burst"},
			InstanceType: "m5.xlarge", PricePerHour: "0.192", MinNodes: 0, MaxNodes: 3, Labels: map[string]string{"hca.dev/test-pool": pool},
			Allocatable: hcav1.NodeAllocatable{CPU: resource.MustParse("4"), Memory: resource.MustParse("16Gi"), Pods: 58}}}}})
	clusters := labtest.Clusters(t)
	taint := lab.Taint{Key: "hca.dev/test", Value: pool, Effect: "NoSchedule"}
	if err := clusters.SetNodePool(ctx, lab.PrivateCluster, lab.NodePool{Name: pool, Count: 1, CPU: "4", Memory: "16Gi",
		Labels: map[string]string{"hca.dev/test-pool": pool}, Taints: []lab.Taint{taint}}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = clusters.SetNodePool(context.Background(), lab.PrivateCluster, lab.NodePool{Name: pool, Count: 0})
	})
	ns := fmt.Sprintf("ops-cap-%d", id)
	mustCreate(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})
	replicas := int32(6)
	labels := map[string]string{"app": "web"}
	dep := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: ns}, Spec: appsv1.DeploymentSpec{
		Replicas: &replicas, Selector: &metav1.LabelSelector{MatchLabels: labels},
		Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: corev1.PodSpec{
			NodeSelector: map[string]string{"hca.dev/test-pool": pool},
			Tolerations:  []corev1.Toleration{{Key: taint.Key, Operator: corev1.TolerationOpEqual, Value: pool, Effect: corev1.TaintEffectNoSchedule}},
			Containers: []corev1.Container{{Name: "app", Image: "registry.example/web:1",
				Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}}}}}}}}
	mustCreate(dep)
	policy := &hcav1.BurstPolicy{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: ns, Labels: class}, Spec: hcav1.BurstPolicySpec{
		Target: hcav1.BurstTarget{DeploymentName: "web"}, PrimaryCluster: lab.PrivateCluster,
		BurstTargets: []hcav1.BurstTargetCluster{{Cluster: hcav1.ClusterName(name)}},
		MinReplicas:  1, MaxReplicas: 10, PendingThreshold: &metav1.Duration{Duration: time.Second},
		Capacity: &hcav1.BurstCapacity{ScaleDownDelay: &metav1.Duration{Duration: 2 * time.Second}}}}
	if err := c.Create(ctx, policy); err != nil {
		t.Fatal(err)
	}
	rt := startProc(t, buildBinary(t), "--kubeconfig="+env["HCA_LAB_PRIVATE_KUBECONFIG"], "--class="+name, "--cluster-probe-interval=2s",
		"--aws-region="+region, "--eks-endpoint="+env["HCA_LAB_EKS_ENDPOINT"], "--sts-endpoint="+env["HCA_LAB_STS_ENDPOINT"],
		"--autoscaling-endpoint="+env["HCA_LAB_EKS_ENDPOINT"], "--log-level=info")
	scrapeTarget(t, env["HCA_LAB_PROMETHEUS_TARGETS_DIR"], rt.metrics)
	t.Cleanup(func() { // while the runtime still runs (cleanups run last-in first-out): it removes the copy and its finalizer
		_ = c.Delete(context.Background(), policy)
		eventuallyGone(context.Background(), c, policy)
	})

	group := map[string]string{"cluster": name, "node_group": "burst"}
	metric := func(n string, l map[string]string) float64 {
		v, _ := sample(tryScrape(rt.metrics), n, l)
		return v
	}
	start := time.Now()
	eventually(t, 3*time.Minute, "the runtime to buy a node and report it Ready", func() (bool, string) {
		desired, ready := metric("hca_node_group_desired_nodes", group), metric("hca_node_group_ready_nodes", group)
		return desired == 1 && ready == 1, fmt.Sprintf("desired %v ready %v requests %v", desired, ready, metric("hca_node_requests_total", withResult(group, "ok")))
	})
	t.Logf("node bought and Ready after %s", time.Since(start).Round(time.Second))
	// The node's time from the order to Ready is in the histogram: one
	// node, at least the group's 2 s boot less the one-second resolution of
	// a condition's lastTransitionTime (truncated to the second).
	eventually(t, 30*time.Second, "the node's time to Ready in hca_node_ready_duration_seconds", func() (bool, string) {
		for _, m := range tryScrape(rt.metrics)["hca_node_ready_duration_seconds"].GetMetric() {
			if labelsMatch(m, group) {
				h := m.GetHistogram()
				return h.GetSampleCount() == 1 && h.GetSampleSum() >= 1, fmt.Sprintf("%d nodes timed, %.1f s in all", h.GetSampleCount(), h.GetSampleSum())
			}
		}
		return false, "no series for the group"
	})
	for _, c := range []struct {
		name   string
		labels map[string]string
		want   func(float64) bool
		what   string
	}{
		{"hca_node_requests_total", withResult(group, "ok"), func(v float64) bool { return v >= 1 }, ">= 1"},
		{"hca_node_requests_total", withResult(group, "error"), func(v float64) bool { return v == 0 }, "0"},
		{"hca_nodes_requested_total", group, func(v float64) bool { return v >= 1 }, ">= 1"},
		{"hca_node_group_node_hourly_price_dollars", group, func(v float64) bool { return v == 0.192 }, "0.192"},
		{"hca_cloud_api_calls_total", map[string]string{"service": "EKS", "operation": "DescribeNodegroup"}, func(v float64) bool { return v >= 1 }, ">= 1"},
		{"hca_cloud_api_calls_total", map[string]string{"service": "EKS", "operation": "UpdateNodegroupConfig"}, func(v float64) bool { return v >= 1 }, ">= 1"},
	} {
		if v := metric(c.name, c.labels); !c.want(v) {
			t.Errorf("%s%v = %v, want %s", c.name, c.labels, v, c.what)
		}
	}

	// The emulator throttles the next 6 calls about this cluster: with the
	// SDK's 3 attempts a call, at least one fails with ThrottlingException.
	resp, err := http.Post(env["HCA_LAB_EKS_ENDPOINT"]+"/lab/v1/throttling", "application/json", bytes.NewReader([]byte(`{"next": 6, "cluster": "`+name+`"}`)))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	t.Cleanup(func() {
		r, err := http.Post(env["HCA_LAB_EKS_ENDPOINT"]+"/lab/v1/throttling", "application/json", bytes.NewReader([]byte(`{"cluster": "`+name+`"}`)))
		if err == nil {
			r.Body.Close()
		}
	})
	throttled := func() float64 {
		fams := tryScrape(rt.metrics)
		var sum float64
		for _, m := range fams["hca_cloud_api_throttles_total"].GetMetric() {
			sum += m.GetCounter().GetValue()
		}
		return sum
	}
	eventually(t, time.Minute, "6 throttled attempts and a ThrottlingException error counted", func() (bool, string) {
		_, failed := sample(tryScrape(rt.metrics), "hca_cloud_api_errors_total", map[string]string{"service": "EKS", "code": "ThrottlingException"})
		return throttled() >= 6 && failed, fmt.Sprintf("throttles %v, a throttling error: %v", throttled(), failed)
	})

	// The load falls to what the private pool holds: the node is released.
	patch := client.MergeFrom(dep.DeepCopy())
	three := int32(3)
	dep.Spec.Replicas = &three
	if err := c.Patch(ctx, dep, patch); err != nil {
		t.Fatal(err)
	}
	eventually(t, 3*time.Minute, "the node to be released", func() (bool, string) {
		rel, desired := metric("hca_node_releases_total", withResult(group, "ok")), metric("hca_node_group_desired_nodes", group)
		return rel >= 1 && desired == 0, fmt.Sprintf("releases %v desired %v", rel, desired)
	})

	fed, _ := checkDashboard(t, ctx, env["HCA_LAB_PROMETHEUS_URL"], func(q dashboards.Query) bool { return q.Row == "Cloud capacity and cost" })
	t.Logf("dashboard: the %d queries of the cloud capacity row returned series", fed)
}

func withResult(l map[string]string, result string) map[string]string {
	out := map[string]string{"result": result}
	for k, v := range l {
		out[k] = v
	}
	return out
}

// eventuallyGone waits up to a minute for o to be deleted.
func eventuallyGone(ctx context.Context, c client.Client, o client.Object) {
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		if err := c.Get(ctx, client.ObjectKeyFromObject(o), o); err != nil {
			return
		}
		time.Sleep(300 * time.Millisecond)
	}
}
