package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
)

// TestBurstEndToEnd is the end-to-end scenario. The private cluster gets a
// dedicated pool with room for 8 replicas of the app (2 nodes x 2 CPU, 500m per
// pod); loadsim offers 200 req/s, and the policy targets 10 req/s per pod, so about
// 20 replicas are needed: the runtime scales up, the overflow goes Pending and then
// runs in a second lab cluster, which Consul and the nginx upstream list. The
// runtime is killed and restarted mid-burst: nothing is duplicated or orphaned.
// Then the load drops, the replicas come back slowly (short windows for the test),
// the burst cluster is emptied and cleaned and Consul deregistered. While the load
// drops, Prometheus is stopped: the runtime holds and says why, then resumes.
func TestBurstEndToEnd(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	s := newBurstScenario(t, ctx)
	s.start()
	// Load that needs about 20 replicas.
	s.load(200)
	s.waitBursting(4 * time.Minute)
	if got := s.getPolicy(); got.Status.Phase != hcav1.PhaseBursting {
		t.Errorf("phase = %q while bursting, want Bursting", got.Status.Phase)
	}

	// Kill the runtime mid-burst and start a new one: no duplicate, no orphan.
	p1, b1, _, c1, _ := s.snapshot()
	must(t, s.rt.Process.Signal(syscall.SIGKILL))
	_, _ = s.rt.Process.Wait()
	s.start()
	// Several full rounds of the new process (its own reconcile counter), so
	// that the check below cannot pass before it acted.
	burstRounds(t, ctx, s.metricsAddr, 3)
	p2, b2, _, c2, _ := s.snapshot()
	if p2+b2 < p1+b1-2 || p2+b2 > p1+b1+2 || c2 > b2 {
		t.Fatalf("after restart: primary %d burst %d consul %d; before: primary %d burst %d consul %d", p2, b2, c2, p1, b1, c1)
	}
	if c2 != b2 {
		waitFor(t, ctx, time.Minute, "Consul to list exactly the burst replicas after the restart", func() (bool, string) {
			_, b, ready, passing, _ := s.snapshot()
			return passing == ready && ready == b, fmt.Sprintf("burst=%d ready=%d consul(burst)=%d", b, ready, passing)
		})
	}

	// Prometheus stops while the load drops: the runtime must hold (never scale down
	// on missing data) and say why; when Prometheus is back, scale-back proceeds.
	_, bBefore, _, _, _ := s.snapshot()
	stopPrometheus(t, s.env["HCA_LAB_DIR"])
	stopped := time.Now()
	s.load(20)
	waitFor(t, ctx, time.Minute, "the policy to report metrics unavailable", func() (bool, string) {
		c := meta.FindStatusCondition(s.getPolicy().Status.Conditions, hcav1.ConditionMetricsAvailable)
		if c == nil {
			return false, "no MetricsAvailable condition"
		}
		return c.Status == metav1.ConditionFalse && strings.Contains(c.Message, "never scaling down"), fmt.Sprintf("MetricsAvailable=%s: %s", c.Status, c.Message)
	})
	burstRounds(t, ctx, s.metricsAddr, 3) // rounds without metrics, each of which could have scaled down
	if _, b, _, _, _ := s.snapshot(); b < bBefore {
		t.Fatalf("burst replicas fell from %d to %d while Prometheus was down", bBefore, b)
	}
	// The operator's log says it once, at warn level, naming the policy and
	// the error (the restarted runtime's log: metrics were there when it
	// started).
	policy := client.ObjectKeyFromObject(s.policy).String()
	waitFor(t, ctx, 30*time.Second, "a warning in the log that the metrics are lost", func() (bool, string) {
		recs := transitionLogs(t, s.logFiles[len(s.logFiles)-1], policy)
		return len(recs) > 0, fmt.Sprint(recs)
	})
	// The outage lasts 60 s in all (issue 14's fault), every round of it
	// one that could have scaled down.
	if d := time.Minute - time.Since(stopped); d > 0 {
		time.Sleep(d)
	}
	if _, b, _, _, _ := s.snapshot(); b < bBefore {
		t.Fatalf("burst replicas fell from %d to %d during the 60 s Prometheus outage", bBefore, b)
	}
	labUp(t, s.root, s.env["HCA_LAB_DIR"])
	back := time.Now()
	t.Logf("Prometheus was down %v", back.Sub(stopped).Round(time.Second))
	var firstDrop time.Time

	// Load dropped: back to the private cluster, slowly; the burst cluster is cleaned.
	s.waitCleaned(4*time.Minute, func(b int32) {
		if b < bBefore && firstDrop.IsZero() {
			firstDrop = time.Now()
		}
	})
	// No scale-down on the first fresh samples after the outage (a rate over
	// them reads low): the runtime waits for a full 1-minute window.
	if d := firstDrop.Sub(back); d < 50*time.Second {
		t.Errorf("the burst shrank %v after Prometheus returned: want no scale-down before a full minute of fresh data", d.Round(time.Second))
	}
	// One line on loss, one on return, none in the rounds between.
	recs := transitionLogs(t, s.logFiles[len(s.logFiles)-1], policy)
	if len(recs) != 2 || recs[0]["level"] != "WARN" || recs[0]["msg"] != "metrics unavailable" || !strings.Contains(fmt.Sprint(recs[0]["error"]), "never scaling down") ||
		recs[1]["level"] != "INFO" || recs[1]["msg"] != "metrics available again" {
		t.Errorf("metrics transitions logged for %s: %v, want a WARN \"metrics unavailable\" with the error, then an INFO \"metrics available again\"", policy, recs)
	}
}

// transitionLogs is the log records of file about policy's metrics lost or
// back (JSON lines), oldest first.
func transitionLogs(t *testing.T, file, policy string) []map[string]any {
	t.Helper()
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	for _, line := range strings.Split(string(raw), "\n") {
		var rec map[string]any
		if json.Unmarshal([]byte(line), &rec) != nil {
			continue
		}
		if (rec["msg"] == "metrics unavailable" || rec["msg"] == "metrics available again") && rec["policy"] == policy {
			out = append(out, rec)
		}
	}
	return out
}

// burstRounds waits until the runtime serving metrics on addr has finished n
// more burst policy reconciles (controller-runtime's
// controller_runtime_reconcile_total{controller="burstpolicy"}).
func burstRounds(t *testing.T, ctx context.Context, addr string, n float64) {
	t.Helper()
	count := func() (float64, error) {
		return metricSum(addr, "controller_runtime_reconcile_total", `controller="burstpolicy"`)
	}
	var start float64
	waitFor(t, ctx, time.Minute, "the runtime's metrics endpoint", func() (bool, string) {
		v, err := count()
		start = v
		return err == nil, fmt.Sprint(err)
	})
	waitFor(t, ctx, 2*time.Minute, fmt.Sprintf("%v more burst policy reconciles", n), func() (bool, string) {
		v, err := count()
		return err == nil && v-start >= n, fmt.Sprintf("%v so far (%v)", v-start, err)
	})
}

// stopPrometheus stops the lab's Prometheus (see stopLabProc).
func stopPrometheus(t *testing.T, labDir string) {
	t.Helper()
	stopLabProc(t, labDir, "prometheus")
}

// labUp runs `lab up`, which restarts what is not running.
func labUp(t *testing.T, root, labDir string) {
	t.Helper()
	cmd := exec.Command("go", "run", "./tools/lab", "up")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "HCA_LAB_DIR="+labDir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("lab up: %v\n%s", err, out)
	}
}

func upstreamBlock(conf, name string) string {
	i := strings.Index(conf, "upstream "+name+" {")
	if i < 0 {
		return ""
	}
	rest := conf[i:]
	return rest[:strings.Index(rest, "}")]
}

func setLoad(t *testing.T, base, ns, name string, rps float64) {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"rps": rps, "cpuPerRequest": 0.025})
	req, _ := http.NewRequest(http.MethodPut, fmt.Sprintf("%s/v1/apps/%s/%s", base, ns, name), bytes.NewReader(body))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		t.Fatalf("loadsim PUT answered %s", resp.Status)
	}
}

func deleteLoad(base, ns, name string) {
	req, _ := http.NewRequest(http.MethodDelete, fmt.Sprintf("%s/v1/apps/%s/%s", base, ns, name), nil)
	if resp, err := http.DefaultClient.Do(req); err == nil {
		resp.Body.Close()
	}
}

func waitFor(t *testing.T, ctx context.Context, timeout time.Duration, what string, check func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	var last string
	for {
		ok, state := check()
		if state != last {
			t.Logf("%s: %s", time.Now().Format("15:04:05"), state)
			last = state
		}
		if ok {
			return
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			t.Fatalf("timed out waiting for %s; last state: %s", what, last)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

func buildRuntime(t *testing.T, root string) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "hca-runtime")
	cmd := exec.Command("go", "build", "-o", out, "./runtime/cmd/hca-runtime")
	cmd.Dir = root
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build hca-runtime: %v\n%s", err, b)
	}
	return out
}

func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
