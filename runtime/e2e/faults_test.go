package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
	"github.com/hca-project/terraform-provider-hca/internal/lab"
	"github.com/hca-project/terraform-provider-hca/internal/lab/labtest"
)

// TestFaultSuite injects faults one at a time into one running burst (the
// end-to-end scenario at 200 req/s: about 20 replicas, 8 in the private
// cluster, the rest in the burst cluster, published to Consul) and checks
// after each that no replica was lost, nothing was duplicated or orphaned,
// and the runtime reported the fault. TestBurstEndToEnd covers the runtime
// killed mid-burst, Prometheus stopped and the load dropped; the operating
// guide's fault table lists every fault and its test.
func TestFaultSuite(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 12*time.Minute)
	defer cancel()
	s := newBurstScenario(t, ctx)
	s.start()
	s.load(200)
	s.waitBursting(4 * time.Minute)

	t.Run("Consul stopped for 30 s", func(t *testing.T) {
		_, bBefore, _, _, _ := s.snapshot()
		errsBefore := runtimeMetric(t, s.metricsAddr, "hca_consul_errors_total")
		stopLabProc(t, s.env["HCA_LAB_DIR"], "consul")
		waitFor(t, ctx, time.Minute, "the policy to report Consul unavailable, with an Event", func() (bool, string) {
			got := s.getPolicy()
			c := meta.FindStatusCondition(got.Status.Conditions, hcav1.ConditionPublished)
			r := meta.FindStatusCondition(got.Status.Conditions, hcav1.ConditionReady)
			if c == nil || r == nil {
				return false, "no Published or Ready condition"
			}
			ev := hasEvent(t, s, "BurstPolicy", s.policy.Name, "ConsulUnavailable")
			return c.Status == metav1.ConditionFalse && r.Status == metav1.ConditionFalse && ev,
				fmt.Sprintf("Published=%s %s: %s; Ready=%s; event=%v", c.Status, c.Reason, c.Message, r.Status, ev)
		})
		if n := runtimeMetric(t, s.metricsAddr, "hca_consul_errors_total"); n <= errsBefore {
			t.Errorf("hca_consul_errors_total %v with Consul down, was %v: want the failures counted", n, errsBefore)
		}
		time.Sleep(30 * time.Second)
		if _, b, _, _, _ := s.snapshot(); b < bBefore {
			t.Errorf("burst replicas fell from %d to %d while Consul was down", bBefore, b)
		}
		labUp(t, s.root, s.env["HCA_LAB_DIR"])
		// The lab's Consul is a -dev agent: it comes back empty, and the
		// runtime must publish every instance again; nginx follows.
		s.waitBursting(2 * time.Minute)
		waitFor(t, ctx, time.Minute, "the policy Ready and Published again, with an Event", func() (bool, string) {
			got := s.getPolicy()
			r := meta.FindStatusCondition(got.Status.Conditions, hcav1.ConditionReady)
			c := meta.FindStatusCondition(got.Status.Conditions, hcav1.ConditionPublished)
			ev := hasEvent(t, s, "BurstPolicy", s.policy.Name, "Published")
			return r != nil && r.Status == metav1.ConditionTrue && c != nil && c.Status == metav1.ConditionTrue && ev, fmt.Sprintf("Ready %+v Published %+v event=%v", r, c, ev)
		})
	})

	t.Run("burst cluster credentials revoked, then restored", func(t *testing.T) {
		p1, b1, _, _, _ := s.snapshot()
		key := types.NamespacedName{Namespace: s.hcNS, Name: s.burstHC}
		var sec corev1.Secret
		must(t, s.priv.Get(ctx, key, &sec))
		good := sec.Data["kubeconfig"]
		// The same server and CA, a token the apiserver does not know.
		revoked := labtest.RevokedKubeconfig(t, good)
		sec.Data["kubeconfig"] = revoked
		must(t, s.priv.Update(ctx, &sec))
		restore := func() {
			var cur corev1.Secret
			must(t, s.priv.Get(ctx, key, &cur))
			cur.Data["kubeconfig"] = good
			must(t, s.priv.Update(ctx, &cur))
		}
		t.Cleanup(func() {
			var cur corev1.Secret
			if s.priv.Get(ctx, key, &cur) == nil && string(cur.Data["kubeconfig"]) != string(good) {
				cur.Data["kubeconfig"] = good
				_ = s.priv.Update(ctx, &cur)
			}
		})
		waitFor(t, ctx, time.Minute, "the burst cluster reported unreachable, with an Event", func() (bool, string) {
			var hc hcav1.HybridCluster
			must(t, s.priv.Get(ctx, types.NamespacedName{Name: s.burstHC}, &hc))
			ev := hasEvent(t, s, "HybridCluster", s.burstHC, "Unreachable")
			return !hc.Status.Reachable && ev, fmt.Sprintf("reachable=%v event=%v", hc.Status.Reachable, ev)
		})
		waitFor(t, ctx, time.Minute, "the policy to say the burst cluster is unreachable", func() (bool, string) {
			c := meta.FindStatusCondition(s.getPolicy().Status.Conditions, hcav1.ConditionDegraded)
			return c != nil && c.Status == metav1.ConditionTrue && strings.Contains(c.Message, s.burstHC), fmt.Sprintf("%+v", c)
		})
		burstRounds(t, ctx, s.metricsAddr, 3)
		// Nobody could reach the burst cluster: its replicas kept running.
		if p, b, _, _, _ := s.snapshot(); b < b1 || p+b < p1+b1-2 {
			t.Errorf("while the credentials were revoked: primary %d burst %d, before primary %d burst %d: replicas lost", p, b, p1, b1)
		}
		if strings.Contains(readLogs(t, s), string(revoked)) {
			t.Error("the runtime logged the revoked kubeconfig")
		}
		restore()
		waitFor(t, ctx, time.Minute, "the burst cluster reachable again", func() (bool, string) {
			var hc hcav1.HybridCluster
			must(t, s.priv.Get(ctx, types.NamespacedName{Name: s.burstHC}, &hc))
			return hc.Status.Reachable, fmt.Sprintf("reachable=%v", hc.Status.Reachable)
		})
		s.waitBursting(2 * time.Minute)
	})

	t.Run("burst cluster credentials rotated", func(t *testing.T) {
		p1, b1, _, _, _ := s.snapshot()
		key := types.NamespacedName{Namespace: s.hcNS, Name: s.burstHC}
		var sec corev1.Secret
		must(t, s.priv.Get(ctx, key, &sec))
		good := sec.Data["kubeconfig"]
		setKubeconfig := func(raw []byte) {
			var cur corev1.Secret
			must(t, s.priv.Get(ctx, key, &cur))
			cur.Data["kubeconfig"] = raw
			must(t, s.priv.Update(ctx, &cur))
		}
		t.Cleanup(func() {
			var cur corev1.Secret
			if s.priv.Get(context.Background(), key, &cur) == nil && string(cur.Data["kubeconfig"]) != string(good) {
				cur.Data["kubeconfig"] = good
				_ = s.priv.Update(context.Background(), &cur)
			}
		})
		restCfg, err := clientcmd.RESTConfigFromKubeConfig(good)
		must(t, err)
		kube, err := kubernetes.NewForConfig(restCfg)
		must(t, err)
		// Two ServiceAccounts of the burst cluster with cluster-admin and a
		// token each. A is kube-system/default: kube-apiserver's
		// authenticated_user_requests names that identity (any other is
		// "other"), so the test sees whether the runtime uses A.
		token := func(sa string) (tok string, revoke func()) {
			_, err := kube.CoreV1().ServiceAccounts("kube-system").Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: sa, Namespace: "kube-system"}}, metav1.CreateOptions{})
			if err != nil && !apierrors.IsAlreadyExists(err) {
				t.Fatal(err)
			}
			crb := &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "hca-e2e-rotate-" + sa},
				RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "cluster-admin"},
				Subjects: []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: sa, Namespace: "kube-system"}}}
			_, err = kube.RbacV1().ClusterRoleBindings().Create(ctx, crb, metav1.CreateOptions{})
			must(t, err)
			revoke = func() {
				_ = kube.RbacV1().ClusterRoleBindings().Delete(context.Background(), crb.Name, metav1.DeleteOptions{})
			}
			t.Cleanup(revoke)
			tr, err := kube.CoreV1().ServiceAccounts("kube-system").CreateToken(ctx, sa, &authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To[int64](3600)}}, metav1.CreateOptions{})
			must(t, err)
			return tr.Status.Token, revoke
		}
		tokA, revokeA := token("default")
		tokB, _ := token("hca-e2e-rotate-b")
		asA := func() float64 {
			raw, err := kube.CoreV1().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
			must(t, err)
			for _, line := range strings.Split(string(raw), "\n") {
				if f := strings.Fields(line); len(f) == 2 && f[0] == `authenticated_user_requests{username="system:serviceaccount:kube-system:default"}` {
					v, err := strconv.ParseFloat(f[1], 64)
					must(t, err)
					return v
				}
			}
			return 0
		}
		// The burst cluster must stay reachable all along: a probe that
		// fails sets Reachable=false.
		start := time.Now()
		unreachable := make(chan string, 1)
		watchCtx, stopWatch := context.WithCancel(ctx)
		defer stopWatch()
		go func() {
			for watchCtx.Err() == nil {
				var hc hcav1.HybridCluster
				if err := s.priv.Get(watchCtx, types.NamespacedName{Name: s.burstHC}, &hc); err == nil && !hc.Status.Reachable {
					unreachable <- fmt.Sprintf("%s: %+v", time.Now().Format("15:04:05.000"), hc.Status)
					return
				}
				time.Sleep(200 * time.Millisecond)
			}
		}()

		// Rotated to A: the runtime reads the burst cluster as A.
		before := asA()
		setKubeconfig(labtest.KubeconfigWithToken(t, good, tokA))
		waitFor(t, ctx, time.Minute, "the runtime's requests as A (authenticated_user_requests)", func() (bool, string) {
			v := asA()
			return v >= before+5, fmt.Sprintf("%v requests as A since the rotation", v-before)
		})
		// Rotated to B: no request as A any more (5 s: two probes and a
		// round), then A is revoked, as an operator retires a leaked key.
		setKubeconfig(labtest.KubeconfigWithToken(t, good, tokB))
		var last float64
		quiet := time.Now()
		waitFor(t, ctx, time.Minute, "no request as A for 5 s after the rotation to B", func() (bool, string) {
			if v := asA(); v != last {
				last, quiet = v, time.Now()
			}
			return time.Since(quiet) >= 5*time.Second, fmt.Sprintf("last request as A %s ago", time.Since(quiet).Round(time.Second))
		})
		revokeA()
		burstRounds(t, ctx, s.metricsAddr, 3)
		time.Sleep(4 * time.Second) // two more probes
		stopWatch()
		select {
		case st := <-unreachable:
			t.Errorf("the burst cluster was reported unreachable during the rotations: %s", st)
		default:
		}
		var evs corev1.EventList
		must(t, s.priv.List(ctx, &evs))
		for _, e := range evs.Items {
			last := e.LastTimestamp.Time
			if e.Series != nil && e.Series.LastObservedTime.After(last) {
				last = e.Series.LastObservedTime.Time
			}
			if e.EventTime.After(last) {
				last = e.EventTime.Time
			}
			if e.InvolvedObject.Kind == "HybridCluster" && e.InvolvedObject.Name == s.burstHC && e.Reason == "Unreachable" && last.After(start) {
				t.Errorf("Unreachable Event during the rotations: %s %s", last.Format("15:04:05"), e.Message)
			}
		}
		if p, b, _, _, _ := s.snapshot(); b < b1 || p+b < p1+b1-2 {
			t.Errorf("after the rotations: primary %d burst %d, before primary %d burst %d: replicas lost", p, b, p1, b1)
		}
		if logs := readLogs(t, s); strings.Contains(logs, tokA) || strings.Contains(logs, tokB) {
			t.Error("the runtime logged a rotated token")
		}
		s.waitBursting(time.Minute)
		setKubeconfig(good)
	})

	t.Run("control API server stopped for 30 s", func(t *testing.T) {
		p1, b1, _, c1, _ := s.snapshot()
		must(t, s.clusters.StopAPIServer(ctx, lab.PrivateCluster))
		t.Cleanup(func() { _ = s.clusters.StartAPIServer(context.Background(), lab.PrivateCluster) })
		// Nobody can reach the control cluster: the burst cluster's replicas
		// keep serving, and Consul keeps listing them.
		for end := time.Now().Add(30 * time.Second); time.Now().Before(end); time.Sleep(2 * time.Second) {
			var copies appsv1.DeploymentList
			must(t, s.burst.List(ctx, &copies, client.InNamespace(s.ns)))
			entries, _, err := s.consul.Health().Service(s.service, "", true, nil)
			must(t, err)
			passing := 0
			for _, e := range entries {
				if e.Service.Meta["cluster"] == s.burstHC {
					passing++
				}
			}
			if len(copies.Items) != 1 || copies.Items[0].Status.ReadyReplicas < b1 || int32(passing) < c1 {
				t.Fatalf("with the control API server down: %d copies, ready %d, Consul passing %d; before: ready %d, Consul %d",
					len(copies.Items), readyOf(copies.Items), passing, b1, c1)
			}
		}
		must(t, s.clusters.StartAPIServer(ctx, lab.PrivateCluster))
		// The same runtime process resumes: rounds again, nothing duplicated
		// (snapshot fails on a second copy) or lost.
		burstRounds(t, ctx, s.metricsAddr, 3)
		if p, b, _, _, _ := s.snapshot(); p+b < p1+b1-2 || p+b > p1+b1+2 {
			t.Errorf("after the control API server's return: primary %d burst %d; before: primary %d burst %d", p, b, p1, b1)
		}
		s.waitBursting(2 * time.Minute)
	})

	t.Run("runtime killed mid-burst, policy deleted while it is down", func(t *testing.T) {
		must(t, s.rt.Process.Signal(syscall.SIGKILL))
		_, _ = s.rt.Process.Wait()
		// The policy goes while nobody runs: its finalizer keeps it until the
		// next runtime has removed what it made in the burst cluster.
		must(t, s.priv.Delete(ctx, s.getPolicy()))
		s.start()
		waitFor(t, ctx, 3*time.Minute, "the policy's remote objects and Consul instances removed, then the policy gone", func() (bool, string) {
			var copies appsv1.DeploymentList
			_ = s.burst.List(ctx, &copies, client.InNamespace(s.ns))
			var cm corev1.ConfigMap
			cmLeft := s.burst.Get(ctx, types.NamespacedName{Namespace: s.ns, Name: "web-config"}, &cm) == nil
			all, _, _ := s.consul.Catalog().Service(s.service, "", nil)
			node, _, _ := s.consul.Catalog().Node("hca-"+s.burstHC, nil)
			var p hcav1.BurstPolicy
			gone := apierrors.IsNotFound(s.priv.Get(ctx, client.ObjectKeyFromObject(s.policy), &p))
			return len(copies.Items) == 0 && !cmLeft && len(all) == 0 && node == nil && gone,
				fmt.Sprintf("copies=%d configmap=%v consul=%d node=%v policy gone=%v", len(copies.Items), cmLeft, len(all), node != nil, gone)
		})
		// The workload itself stays, in its own cluster.
		var d appsv1.Deployment
		must(t, s.priv.Get(ctx, types.NamespacedName{Namespace: s.ns, Name: "web"}, &d))
		if d.Spec.Replicas == nil || *d.Spec.Replicas < 1 {
			t.Errorf("the primary Deployment has %v replicas after the policy went, want it kept", d.Spec.Replicas)
		}
	})
}

// stopLabProc stops a process of the shared lab by its state.json name; the
// test's cleanup brings the lab back up if the test does not.
func stopLabProc(t *testing.T, labDir, name string) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(labDir, "state.json"))
	if err != nil {
		t.Fatal(err)
	}
	var st struct {
		Procs map[string]struct{ PID int } `json:"procs"`
	}
	must(t, json.Unmarshal(raw, &st))
	pid := st.Procs[name].PID
	if pid == 0 {
		t.Fatalf("no %s pid in the lab state", name)
	}
	must(t, syscall.Kill(pid, syscall.SIGTERM))
	for i := 0; i < 100 && syscall.Kill(pid, 0) == nil; i++ {
		time.Sleep(100 * time.Millisecond)
	}
	t.Cleanup(func() { labUp(t, labtest.RepoRoot(t), labDir) }) // never leave the lab without it
}

// runtimeMetric sums a counter's series on the runtime's metrics endpoint.
func runtimeMetric(t *testing.T, addr, name string) float64 {
	t.Helper()
	v, err := metricSum(addr, name, "")
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// metricSum sums the series of the metric name whose line contains match
// on the runtime's metrics endpoint at addr.
func metricSum(addr, name, match string) (float64, error) {
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, err
	}
	var sum float64
	for _, line := range strings.Split(string(raw), "\n") {
		if !strings.HasPrefix(line, name+"{") && !strings.HasPrefix(line, name+" ") || !strings.Contains(line, match) {
			continue
		}
		f := strings.Fields(line)
		v, err := strconv.ParseFloat(f[len(f)-1], 64)
		if err != nil {
			return 0, fmt.Errorf("metric line %q: %w", line, err)
		}
		sum += v
	}
	return sum, nil
}

// hasEvent reports whether an Event with reason was recorded for the object
// (events.k8s.io, as the runtime's recorder writes them).
func hasEvent(t *testing.T, s *burstScenario, kind, name, reason string) bool {
	t.Helper()
	var list corev1.EventList
	if err := s.priv.List(s.ctx, &list); err != nil {
		t.Fatal(err)
	}
	for _, e := range list.Items {
		if e.InvolvedObject.Kind == kind && e.InvolvedObject.Name == name && e.Reason == reason {
			return true
		}
	}
	return false
}

// readLogs is everything the scenario's runtimes logged so far.
func readLogs(t *testing.T, s *burstScenario) string {
	t.Helper()
	var b strings.Builder
	for _, f := range s.logFiles {
		raw, _ := os.ReadFile(f)
		b.Write(raw)
	}
	return b.String()
}

func readyOf(ds []appsv1.Deployment) int32 {
	var n int32
	for _, d := range ds {
		n += d.Status.ReadyReplicas
	}
	return n
}
