package main

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/hca-project/terraform-provider-hca/internal/lab/labtest"
)

// tcpProxy forwards a loopback port to the apiserver and can be cut and
// restored, as a network partition between the runtime and its apiserver.
type tcpProxy struct {
	addr, upstream string
	mu             sync.Mutex
	l              net.Listener
	conns          []net.Conn
}

func (p *tcpProxy) open(t *testing.T) {
	t.Helper()
	var err error
	for i := 0; i < 50; i++ { // the port may linger a moment after close
		var l net.Listener
		if l, err = net.Listen("tcp", p.addr); err == nil {
			p.mu.Lock()
			p.l, p.addr = l, l.Addr().String()
			p.mu.Unlock()
			go p.serve(l)
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("proxy listen on %s: %v", p.addr, err)
}

func (p *tcpProxy) serve(l net.Listener) {
	for {
		in, err := l.Accept()
		if err != nil {
			return
		}
		out, err := net.Dial("tcp", p.upstream)
		if err != nil {
			in.Close()
			continue
		}
		p.mu.Lock()
		p.conns = append(p.conns, in, out)
		p.mu.Unlock()
		go func() { _, _ = io.Copy(out, in); out.Close() }()
		go func() { _, _ = io.Copy(in, out); in.Close() }()
	}
}

// cut closes the listener and every forwarded connection.
func (p *tcpProxy) cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.l != nil {
		p.l.Close()
		p.l = nil
	}
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}

// readyz returns /readyz?verbose's status and body.
func (p *runtimeProc) readyz() (int, string)  { return get("http://" + p.probes + "/readyz?verbose") }
func (p *runtimeProc) healthz() (int, string) { return get("http://" + p.probes + "/healthz") }

// TestReadinessFollowsApiserverLab cuts the network between a running
// hca-runtime and its control apiserver: /readyz fails and names the
// apiserver check while /healthz (liveness) stays up, and readiness comes back
// when the network does.
func TestReadinessFollowsApiserverLab(t *testing.T) {
	env := labtest.Require(t, "HCA_LAB_PRIVATE_KUBECONFIG")
	raw, err := clientcmd.LoadFromFile(env["HCA_LAB_PRIVATE_KUBECONFIG"])
	if err != nil {
		t.Fatal(err)
	}
	proxy := &tcpProxy{addr: "127.0.0.1:0"}
	for _, c := range raw.Clusters {
		u, err := url.Parse(c.Server)
		if err != nil {
			t.Fatal(err)
		}
		proxy.upstream = u.Host
		proxy.open(t)
		c.Server = "https://" + proxy.addr
	}
	t.Cleanup(proxy.cut)
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*raw, kubeconfig); err != nil {
		t.Fatal(err)
	}
	rt := startProc(t, buildBinary(t), "--kubeconfig="+kubeconfig, "--class="+fmt.Sprintf("ops-ready-%d", rand.IntN(1e6)), "--log-level=warn")
	ready := func(want int) func() (bool, string) {
		return func() (bool, string) {
			code, body := rt.readyz()
			return code == want, fmt.Sprintf("%d %s", code, body)
		}
	}
	eventually(t, time.Minute, "/readyz 200 with the apiserver reachable", ready(200))

	proxy.cut()
	start := time.Now()
	eventually(t, 30*time.Second, "/readyz 500 with the apiserver cut off", ready(500))
	t.Logf("not ready %s after the cut", time.Since(start).Round(100*time.Millisecond))
	if _, body := rt.readyz(); !strings.Contains(body, "[-]apiserver failed") {
		t.Errorf("/readyz?verbose does not name the failing check:\n%s", body)
	}
	if code, body := rt.healthz(); code != 200 {
		t.Errorf("/healthz = %d %s while the apiserver is cut off, want 200 (liveness must not restart the runtime for it)", code, body)
	}

	proxy.open(t)
	start = time.Now()
	eventually(t, 30*time.Second, "/readyz 200 again once the apiserver is back", ready(200))
	t.Logf("ready again %s after the network came back", time.Since(start).Round(100*time.Millisecond))
}

// TestReadinessFollowsLeaseLab runs two hca-runtimes with leader election:
// both are ready (the standby is healthy and waiting); then someone else takes
// the Lease: the leader's /readyz fails, naming the new holder, before it
// exits (controller-runtime stops a manager that lost its lease), while the
// standby stays ready.
func TestReadinessFollowsLeaseLab(t *testing.T) {
	env := labtest.Require(t, "HCA_LAB_PRIVATE_KUBECONFIG")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cfg, err := clientcmd.BuildConfigFromFlags("", env["HCA_LAB_PRIVATE_KUBECONFIG"])
	if err != nil {
		t.Fatal(err)
	}
	c, err := client.New(cfg, client.Options{Scheme: labScheme(t)})
	if err != nil {
		t.Fatal(err)
	}
	ns := fmt.Sprintf("ops-lease-%d", rand.IntN(1e6))
	nsObj := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}
	if err := c.Create(ctx, nsObj); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Delete(context.Background(), nsObj) })
	bin := buildBinary(t)
	args := []string{"--kubeconfig=" + env["HCA_LAB_PRIVATE_KUBECONFIG"], "--class=" + ns, "--leader-elect", "--leader-election-namespace=" + ns, "--log-level=debug"}
	leader := startProc(t, bin, args...)
	var lease coordinationv1.Lease
	key := client.ObjectKey{Namespace: ns, Name: leaseName(ns)}
	eventually(t, time.Minute, "the first runtime to hold the lease", func() (bool, string) {
		if err := c.Get(ctx, key, &lease); err != nil {
			return false, err.Error()
		}
		return lease.Spec.HolderIdentity != nil && *lease.Spec.HolderIdentity != "", "no holder"
	})
	holder := *lease.Spec.HolderIdentity
	host, _ := os.Hostname()
	if !strings.HasPrefix(holder, host+"_") {
		t.Errorf("lease holder %q, want this host's name and a suffix", holder)
	}
	standby := startProc(t, bin, args...)
	for name, p := range map[string]*runtimeProc{"leader": leader, "standby": standby} {
		eventually(t, time.Minute, name+" /readyz 200", func() (bool, string) {
			code, body := p.readyz()
			return code == 200, fmt.Sprintf("%d %s", code, body)
		})
	}
	if err := c.Get(ctx, key, &lease); err != nil || *lease.Spec.HolderIdentity != holder {
		t.Fatalf("the standby took the lease from %s: %v %v", holder, err, lease.Spec.HolderIdentity)
	}

	// Someone else takes the lease for an hour.
	intruder, dur, now := "intruder_1", int32(3600), metav1.NewMicroTime(time.Now())
	lease.Spec.HolderIdentity, lease.Spec.LeaseDurationSeconds, lease.Spec.RenewTime, lease.Spec.AcquireTime = &intruder, &dur, &now, &now
	if err := c.Update(ctx, &lease); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	var seen []string
	eventually(t, 30*time.Second, "the old leader's /readyz to fail", func() (bool, string) {
		code, body := leader.readyz()
		if st := fmt.Sprintf("%d %s", code, body); len(seen) == 0 || seen[len(seen)-1] != st {
			seen = append(seen, st)
		}
		return code == 500 && strings.Contains(body, "[-]leader failed"), strings.Join(seen, "\n---\n")
	})
	t.Logf("old leader not ready %s after the lease was taken", time.Since(start).Round(100*time.Millisecond))
	if code, body := leader.healthz(); code != 200 {
		t.Errorf("old leader /healthz = %d %s, want 200 until it exits", code, body)
	}
	select {
	case <-leader.exited:
	case <-time.After(45 * time.Second):
		t.Fatal("the old leader did not exit within 45 s of losing its lease")
	}
	t.Logf("old leader exited %s after the lease was taken: %v", time.Since(start).Round(100*time.Millisecond), leader.exitErr)
	if leader.exitErr == nil {
		t.Error("the old leader exited 0 after losing its lease, want a failure (so that it is restarted)")
	}
	// /readyz withholds reasons (controller-runtime); the log says why.
	if b, err := os.ReadFile(leader.log); err != nil || !strings.Contains(string(b), "leader lease lost: held by intruder_1") {
		t.Errorf("the old leader's log does not say who holds the lease (%v)", err)
	}
	if code, body := standby.readyz(); code != 200 {
		t.Errorf("standby /readyz = %d %s, want 200 (it waits for the lease)", code, body)
	}
}
