package demo_test

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/hca-project/terraform-provider-hca/internal/lab/demo"
	"github.com/hca-project/terraform-provider-hca/internal/lab/labtest"
)

// TestDemo runs `make demo` end to end on the lab with a shorter flash crowd:
// the quickstart is applied with the provider built from the checkout, the
// runtime runs as a local process, the surge bursts into ACK's two running
// workers first and, beyond their room, into EKS (up to its 8), whose node
// group starts at 0 nodes: the runtime asks for nodes, they boot (30 s in
// this test's lab, pods start in 10 s), the replicas run on them only; the policy's default algorithm decides (no SLO), the burst
// comes back, the nodes are released to 0 after the policy's scale-down
// delay, and the report (with its nodes and cost lines and the before/after
// section) is written. Then the demo is destroyed: nothing of
// the quickstart is left in Terraform's state. It brings up a lab of its own
// (from the same binary cache), so that its runtime acts on nothing of other
// tests and their objects do not stand in the way of its destroy.
func TestDemo(t *testing.T) {
	labtest.Require(t, "HCA_LAB_DIR") // the shared lab proves the binaries are built
	root := labtest.RepoRoot(t)
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	labDir := filepath.Join(t.TempDir(), "lab")
	labCmd := func(args ...string) {
		cmd := exec.CommandContext(context.Background(), "go", append([]string{"run", "./tools/lab"}, args...)...)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "HCA_LAB_DIR="+labDir)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("lab %v: %v\n%s", args, err, out)
		}
	}
	labCmd("up", "--node-boot-delay", "30s", "--pod-startup-delay", "10s")
	t.Cleanup(func() { labCmd("down") })
	env := map[string]string{"HCA_LAB_DIR": labDir}
	trace := filepath.Join(t.TempDir(), "short.csv")
	// The surge lasts long enough for nodes to boot (30 s) and pods to start
	// (10 s) after the runtime asked for them.
	if err := os.WriteFile(trace, []byte("seconds,requests_per_second\n0,30\n20,300\n150,30\n210,30\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	o := demo.Options{RepoRoot: root, LabDir: env["HCA_LAB_DIR"], Out: &out, Trace: trace, ReplayTimeout: 9 * time.Minute}
	t.Cleanup(func() {
		var d bytes.Buffer
		if err := demo.Destroy(context.Background(), demo.Options{RepoRoot: root, LabDir: env["HCA_LAB_DIR"], Out: &d}); err != nil {
			t.Errorf("destroy: %v\n%s", err, d.String())
		}
		state := filepath.Join(env["HCA_LAB_DIR"], "demo", "quickstart", "terraform.tfstate")
		if got := stateResources(t, state); len(got) != 0 {
			t.Errorf("after destroy the state still holds %v", got)
		}
	})
	res, err := demo.Run(ctx, o)
	t.Log(out.String())
	if err != nil {
		t.Fatal(err)
	}
	s := res.Summary
	if !s.SurgeSeen || !s.BurstSeen || !s.FallSeen || !s.BackSeen {
		t.Errorf("milestones: surge %v, burst %v, fall %v, back %v; want all", s.SurgeSeen, s.BurstSeen, s.FallSeen, s.BackSeen)
	}
	if s.PeakByCluster["private"] != 8 || s.PeakByCluster["ack"] == 0 {
		t.Errorf("most ready replicas per cluster %v: want the private pool full (8), some in ACK", s.PeakByCluster)
	}
	// Placement fills running nodes first: ACK's two running workers
	// (ecs.g6.xlarge, room for 16 replicas of 500m) take the burst before
	// EKS, preferred but at 0 nodes, gets replicas that wait for a node.
	raw, err := os.ReadFile(filepath.Join(res.Dir, "samples.json"))
	if err != nil {
		t.Fatal(err)
	}
	var samples []demo.Sample
	if err := json.Unmarshal(raw, &samples); err != nil {
		t.Fatalf("samples.json: %v", err)
	}
	const ackRunning = 16
	var burst int32 // the most replicas asked for outside the private cluster
	for _, x := range samples {
		burst = max(burst, x.Desired["eks"]+x.Desired["ack"])
		if x.Desired["eks"] > 0 && x.Desired["ack"] < ackRunning {
			t.Errorf("at %s: %d replicas for EKS (no node running) while ACK, whose workers run, has %d of its room for %d", x.At, x.Desired["eks"], x.Desired["ack"], ackRunning)
			break
		}
	}
	eksNeeded := burst > ackRunning // the burst outgrew ACK's running workers
	t.Logf("most replicas outside private: %d (ACK's running workers hold %d): EKS buys nodes: %v", burst, ackRunning, eksNeeded)
	// The quickstart's default: no SLO, the policy's algorithm decides.
	if s.ComplianceSeen {
		t.Error("an SLO was evaluated: the quickstart creates none unless slo_drives_replicas is set")
	}

	// Scale from zero: the burst nodes start at 0, are requested and Ready
	// after the surge, in that order, and are released to 0 after the burst.
	if !s.NodeGroups || s.StartNodes != 0 {
		t.Errorf("burst node groups seen %v, nodes at the start %d: want node groups starting at 0 nodes", s.NodeGroups, s.StartNodes)
	}
	switch {
	case !eksNeeded:
		if s.PeakNodes["eks"] != 0 || s.PeakNodes["ack"] != 0 {
			t.Errorf("most nodes bought %v for a burst of %d that ACK's running workers hold: want none", s.PeakNodes, burst)
		}
	case !s.NodesRequestedSeen || !s.NodesReadySeen || !s.NodesZeroSeen:
		t.Errorf("node milestones: requested %v, Ready %v, released to 0 %v; want all", s.NodesRequestedSeen, s.NodesReadySeen, s.NodesZeroSeen)
	case s.NodesRequestedAt < s.SurgeAt || s.NodesReadyAt < s.NodesRequestedAt || s.NodesZeroAt < s.BackAt:
		t.Errorf("node milestones out of order: surge %s, requested %s, Ready %s, burst back %s, released %s", s.SurgeAt, s.NodesRequestedAt, s.NodesReadyAt, s.BackAt, s.NodesZeroAt)
	case s.PeakNodes["eks"] == 0 || s.BurstCost <= 0 || s.BurstCost >= s.AlwaysOnCost:
		t.Errorf("most EKS nodes %d, burst cost $%.4f, always on $%.4f: want EKS nodes bought, and the burst cheaper than the hour always on", s.PeakNodes["eks"], s.BurstCost, s.AlwaysOnCost)
	}
	// Replicas run in EKS only on the nodes the runtime bought: none Ready
	// there while no node of its group is.
	// The runtime reaches both clouds' node groups: the ACK pool, whose
	// AccessKey reaches the runtime through hca_runtime's Secret, is never
	// reported out of reach.
	for _, x := range samples {
		for c, n := range x.Nodes {
			for g, reason := range n.Reasons {
				if reason == "NoCloudAccess" || reason == "NotSupported" {
					t.Fatalf("at %s, node group %s of %s is %s: want the runtime to reach every node group", x.At, g, c, reason)
				}
			}
		}
	}
	for _, x := range samples {
		if x.Ready["eks"] > 0 && x.Nodes["eks"].Ready == 0 {
			t.Errorf("at %s, %d replicas Ready in EKS with no node Ready there", x.At, x.Ready["eks"])
			break
		}
	}

	want := []string{"hca_ack_cluster.burst", "hca_burst_policy.web", "hca_cluster.ack", "hca_cluster.eks", "hca_cluster.private",
		"hca_eks_cluster.burst", "hca_runtime.this"}
	if got := stateResources(t, filepath.Join(res.Dir, "quickstart", "terraform.tfstate")); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("quickstart state holds %v, want %v", got, want)
	}
	md, err := os.ReadFile(res.Report)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"| first replica ready outside private |", "](report.svg)", "| phases |",
		"| burst nodes requested |", "| first burst node Ready |", "| burst nodes released to 0 |", "| burst cost | $", "for the same hour with the burst's peak nodes always on",
		"## Before and after", "| refused requests | ", "| all replicas needed Ready, after the surge | "} {
		if !bytes.Contains(md, []byte(w)) {
			t.Errorf("report lacks %q", w)
		}
	}
	svg, err := os.ReadFile(res.Chart)
	if err != nil {
		t.Fatal(err)
	}
	dec := xml.NewDecoder(bytes.NewReader(svg))
	for {
		if _, err := dec.Token(); err != nil {
			if !errors.Is(err, io.EOF) {
				t.Errorf("the chart is not well-formed XML: %v", err)
			}
			break
		}
	}
	// The Grafana dashboard's main panels, from the lab's Prometheus that
	// scraped the runtime: every one returned series over the replay (a panel
	// querying a metric nobody exports would show nothing), and the report
	// draws them.
	if len(res.Panels) == 0 {
		t.Error("the report has no dashboard panels")
	}
	if empty := demo.EmptyPanels(res.Panels); len(empty) > 0 {
		t.Errorf("dashboard panels without data over the replay: %v", empty)
	}
	if !bytes.Contains(md, []byte("## The dashboard's main panels")) || !bytes.Contains(md, []byte("](dashboard.svg)")) {
		t.Error("the report lacks the dashboard's panels section")
	}
	dash, err := os.ReadFile(filepath.Join(res.Dir, "dashboard.svg"))
	if err != nil {
		t.Fatal(err)
	}
	if err := xml.Unmarshal(dash, new(struct{})); err != nil || bytes.Count(dash, []byte("<polyline")) < len(res.Panels) || bytes.Contains(dash, []byte("no data")) {
		t.Errorf("dashboard.svg: XML error %v, %d lines for %d panels, \"no data\" shown %v", err, bytes.Count(dash, []byte("<polyline")), len(res.Panels), bytes.Contains(dash, []byte("no data")))
	}
	rc, err := os.ReadFile(filepath.Join(res.Dir, "terraform.rc"))
	if err != nil || !bytes.Contains(rc, []byte(`"hca-project/hca" = "`+filepath.Join(res.Dir, "bin")+`"`)) {
		t.Errorf("terraform.rc does not override the provider with the local build: %s (%v)", rc, err)
	}
}

// stateResources lists the managed resources of a Terraform state file.
func stateResources(t *testing.T, path string) []string {
	t.Helper()
	raw, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var st struct {
		Resources []struct {
			Mode, Type, Name string
		} `json:"resources"`
	}
	if err := json.Unmarshal(raw, &st); err != nil {
		t.Fatalf("state %s: %v", path, err)
	}
	var out []string
	for _, r := range st.Resources {
		if r.Mode == "managed" {
			out = append(out, r.Type+"."+r.Name)
		}
	}
	sort.Strings(out)
	return out
}
