package lab

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/hca-project/terraform-provider-hca/internal/capacity"
)

// PrivateCluster is the name of the lab's on-premises cluster.
const PrivateCluster = "private"

// Lab is the local hybrid cloud rooted at Dir (.lab in the checkout).
type Lab struct {
	Dir      string
	Bins     *Binaries
	Clusters *Clusters
	// Daemon is the command (binary and leading arguments) that serves the cloud
	// emulators and loadsim; Up appends --dir and the port flags.
	Daemon []string
	// Out receives progress lines (nil: discarded).
	Out io.Writer
}

// New returns a lab rooted at dir using bins.
func New(dir string, bins *Binaries, daemon []string, out io.Writer) *Lab {
	return &Lab{Dir: dir, Bins: bins, Clusters: NewClusters(dir, bins), Daemon: daemon, Out: out}
}

// Options size the lab.
type Options struct {
	// PrivateNodes is the number of fake nodes of the private cluster (default 2).
	PrivateNodes int
	// NodeCPU and NodeMemory size each private node (default "4" and "8Gi").
	NodeCPU, NodeMemory string
	// NodeBootDelay is how long a node asked of the cloud emulators takes to be
	// Ready (DefaultNodeBootDelay when zero, none when negative).
	NodeBootDelay time.Duration
	// PodStartupDelay keeps pods of the private cluster and of the clusters the
	// emulators create Pending for this long once bound (none when zero;
	// `lab up` passes DefaultPodStartupDelay, the realistic figure, unless
	// told otherwise).
	PodStartupDelay time.Duration
}

// DefaultNodeBootDelay is the lab's node boot delay: see
// emulator.DefaultNodeBootDelay for the published figures it comes from. It
// is capacity.DefaultNodeBootDelay, which the simulator uses too.
const DefaultNodeBootDelay = capacity.DefaultNodeBootDelay

func (o Options) withDefaults() Options {
	if o.PrivateNodes == 0 {
		o.PrivateNodes = 2
	}
	if o.NodeCPU == "" {
		o.NodeCPU = "4"
	}
	if o.NodeMemory == "" {
		o.NodeMemory = "8Gi"
	}
	switch {
	case o.NodeBootDelay == 0:
		o.NodeBootDelay = DefaultNodeBootDelay
	case o.NodeBootDelay < 0:
		o.NodeBootDelay = 0
	}
	return o
}

// state is .lab/state.json: the singleton components and their ports.
type state struct {
	Procs map[string]Proc `json:"procs"`
	Ports map[string]int  `json:"ports"`
	// NodeBootDelay and PodStartupDelay are the delays the running daemon was
	// started with.
	NodeBootDelay   *time.Duration `json:"nodeBootDelay,omitempty"`
	PodStartupDelay *time.Duration `json:"podStartupDelay,omitempty"`
}

func (l *Lab) statePath() string { return filepath.Join(l.Dir, "state.json") }

func (l *Lab) loadState() (*state, error) {
	st := &state{Procs: map[string]Proc{}, Ports: map[string]int{}}
	raw, err := os.ReadFile(l.statePath())
	if errors.Is(err, os.ErrNotExist) {
		return st, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read lab state: %w", err)
	}
	if err := json.Unmarshal(raw, st); err != nil {
		return nil, fmt.Errorf("lab state %s is corrupt (%v): run `go run ./tools/lab down --purge`", l.statePath(), err)
	}
	if st.Procs == nil {
		st.Procs = map[string]Proc{}
	}
	if st.Ports == nil {
		st.Ports = map[string]int{}
	}
	return st, nil
}

func (l *Lab) saveState(st *state) error {
	raw, _ := json.MarshalIndent(st, "", "  ")
	if err := os.WriteFile(l.statePath()+".tmp", raw, 0o600); err != nil {
		return fmt.Errorf("write lab state: %w", err)
	}
	return os.Rename(l.statePath()+".tmp", l.statePath())
}

func (l *Lab) logf(format string, args ...any) {
	if l.Out != nil {
		fmt.Fprintf(l.Out, format+"\n", args...)
	}
}

// Component names in state.json.
const (
	compConsul         = "consul"
	compNginx          = "nginx"
	compConsulTemplate = "consul-template"
	compDaemon         = "hca-lab-daemon"
	compPrometheus     = "prometheus"
)

// Up builds what is missing and starts what is not running. It is idempotent:
// running components are left alone, crashed ones are restarted.
func (l *Lab) Up(ctx context.Context, opts Options) (map[string]string, error) {
	opts = opts.withDefaults()
	if err := os.MkdirAll(l.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("create lab dir %s: %w", l.Dir, err)
	}
	start := time.Now()
	bins, err := l.Bins.EnsureAll(ctx)
	if err != nil {
		return nil, err
	}
	if err := l.linkBins(bins); err != nil {
		return nil, err
	}
	l.logf("binaries ready (%s)", time.Since(start).Round(time.Millisecond))
	st, err := l.loadState()
	if err != nil {
		return nil, err
	}
	startDaemon := func(ctx context.Context, st *state, bins map[string]string) error {
		return l.startDaemon(ctx, st, opts.NodeBootDelay, opts.PodStartupDelay)
	}
	type step struct {
		name string
		fn   func(context.Context, *state, map[string]string) error
	}
	run := func(steps ...step) error {
		for _, s := range steps {
			if p, ok := st.Procs[s.name]; ok && alive(p.PID) {
				if s.name == compDaemon {
					l.warnDelays(st, opts)
				}
				continue
			}
			if s.name == compDaemon && len(l.Daemon) == 0 {
				continue // a lab without emulators and loadsim (tests of the lab itself)
			}
			if err := l.startStep(ctx, st, bins, s.name, s.fn); err != nil {
				return err
			}
		}
		return nil
	}
	// The daemon, which serves the OIDC issuer, starts before the private
	// cluster: a kube-apiserver whose issuer does not answer at start-up
	// retries discovery only every 10 s, refusing the issuer's tokens until
	// then.
	if err := run(step{compConsul, l.startConsul}, step{compNginx, l.startNginx},
		step{compConsulTemplate, l.startConsulTemplate}, step{compDaemon, startDaemon}); err != nil {
		return nil, err
	}
	if err := l.ensurePrivate(ctx, opts); err != nil {
		return nil, err
	}
	if err := run(step{compPrometheus, l.startPrometheus}); err != nil {
		return nil, err
	}
	env, err := l.Env()
	if err != nil {
		return nil, err
	}
	if err := writeEnvFile(filepath.Join(l.Dir, "env"), env); err != nil {
		return nil, err
	}
	l.logf("lab up in %s; environment in %s", time.Since(start).Round(time.Millisecond), filepath.Join(l.Dir, "env"))
	return env, nil
}

// startStep starts one component and records it in state.json.
func (l *Lab) startStep(ctx context.Context, st *state, bins map[string]string, name string, fn func(context.Context, *state, map[string]string) error) error {
	t := time.Now()
	if err := fn(ctx, st, bins); err != nil {
		_ = l.saveState(st)
		return err
	}
	if err := l.saveState(st); err != nil {
		return err
	}
	l.logf("%s started (%s)", name, time.Since(t).Round(time.Millisecond))
	return nil
}

// Balancer is where a balancer-only lab (UpBalancer) listens and writes.
type Balancer struct {
	// ConsulAddr is Consul's HTTP address (host:port).
	ConsulAddr string
	// Upstreams is the nginx upstreams file consul-template renders.
	Upstreams string
	// NginxURL is nginx's base URL.
	NginxURL string
	// NginxConf is nginx's main configuration file.
	NginxConf string
}

// UpBalancer starts only Consul, nginx and consul-template (no cluster, no
// emulators) in l.Dir, for tests of the load-balancing path that must not
// disturb the shared lab. Like Up it is idempotent: running components are left
// alone and a crashed one is restarted on its recorded ports (a killed Consul
// comes back on the same address, with an empty catalog since it runs -dev).
func (l *Lab) UpBalancer(ctx context.Context) (Balancer, error) {
	if err := os.MkdirAll(l.Dir, 0o755); err != nil {
		return Balancer{}, fmt.Errorf("create lab dir %s: %w", l.Dir, err)
	}
	bins := map[string]string{}
	for _, n := range []string{BinConsul, BinNginx, BinConsulTemplate} {
		p, err := l.Bins.Path(ctx, n)
		if err != nil {
			return Balancer{}, err
		}
		bins[n] = p
	}
	st, err := l.loadState()
	if err != nil {
		return Balancer{}, err
	}
	steps := []struct {
		name string
		fn   func(context.Context, *state, map[string]string) error
	}{
		{compConsul, l.startConsul},
		{compNginx, l.startNginx},
		{compConsulTemplate, l.startConsulTemplate},
	}
	for _, s := range steps {
		if p, ok := st.Procs[s.name]; ok && alive(p.PID) {
			continue
		}
		if err := l.startStep(ctx, st, bins, s.name, s.fn); err != nil {
			return Balancer{}, err
		}
	}
	return Balancer{
		ConsulAddr: fmt.Sprintf("127.0.0.1:%d", st.Ports["consul-http"]),
		Upstreams:  filepath.Join(l.nginxDir(), "upstreams.conf"),
		NginxURL:   fmt.Sprintf("http://127.0.0.1:%d", st.Ports["nginx"]),
		NginxConf:  filepath.Join(l.nginxDir(), "nginx.conf"),
	}, nil
}

// warnDelays says when a running daemon keeps delays other than the ones asked
// for: they are fixed when it starts.
func (l *Lab) warnDelays(st *state, opts Options) {
	for _, d := range []struct {
		name string
		have *time.Duration
		want time.Duration
	}{{"node boot delay", st.NodeBootDelay, opts.NodeBootDelay}, {"pod start-up delay", st.PodStartupDelay, opts.PodStartupDelay}} {
		have := time.Duration(0)
		if d.have != nil {
			have = *d.have
		}
		if have != d.want {
			l.logf("the lab daemon is running with a %s of %s, not %s: run `go run ./tools/lab down` then `up` to change it", d.name, have, d.want)
		}
	}
}

// linkBins makes .lab/bin/<name> point at the cached binaries, so that tools that
// take a folder of binaries (envtest's KUBEBUILDER_ASSETS) can use them.
func (l *Lab) linkBins(bins map[string]string) error {
	dir := filepath.Join(l.Dir, "bin")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	for name, p := range bins {
		link := filepath.Join(dir, name)
		if cur, err := os.Readlink(link); err == nil && cur == p {
			continue
		}
		_ = os.Remove(link)
		if err := os.Symlink(p, link); err != nil {
			return fmt.Errorf("link %s: %w", link, err)
		}
	}
	return nil
}

func (l *Lab) ensurePrivate(ctx context.Context, opts Options) error {
	if cs, err := l.Clusters.Get(PrivateCluster); err == nil {
		dead := cs.Dead()
		if len(dead) == 0 {
			return nil
		}
		l.logf("private cluster has crashed components (%s); recreating it", strings.Join(dead, ", "))
		if err := l.Clusters.DeleteCluster(ctx, PrivateCluster); err != nil {
			return err
		}
	}
	t := time.Now()
	_, err := l.Clusters.CreateCluster(ctx, ClusterSpec{Name: PrivateCluster, PodStartupDelay: opts.PodStartupDelay, Pools: []NodePool{{
		Name: "default", Count: opts.PrivateNodes, CPU: opts.NodeCPU, Memory: opts.NodeMemory,
	}}})
	if err != nil {
		return fmt.Errorf("start private cluster: %w", err)
	}
	l.logf("private cluster started with %d nodes x %s CPU / %s (%s)", opts.PrivateNodes, opts.NodeCPU, opts.NodeMemory, time.Since(t).Round(time.Millisecond))
	return nil
}

// ports returns the recorded ports named, or fresh free ones when a recorded port
// is missing or now taken by someone else.
func pickPorts(st *state, names ...string) error {
	need := 0
	for _, n := range names {
		if p := st.Ports[n]; p == 0 || !portFree(p) {
			need++
		}
	}
	if need == 0 {
		return nil
	}
	fresh, err := freePorts(len(names))
	if err != nil {
		return err
	}
	for i, n := range names {
		st.Ports[n] = fresh[i]
	}
	return nil
}

func (l *Lab) startConsul(ctx context.Context, st *state, bins map[string]string) error {
	if err := pickPorts(st, "consul-http", "consul-serf-lan", "consul-serf-wan", "consul-server"); err != nil {
		return err
	}
	hcl := fmt.Sprintf("ports { http = %d, dns = -1, grpc = -1, grpc_tls = -1, serf_lan = %d, serf_wan = %d, server = %d }",
		st.Ports["consul-http"], st.Ports["consul-serf-lan"], st.Ports["consul-serf-wan"], st.Ports["consul-server"])
	p, err := startProc(compConsul, filepath.Join(l.Dir, "logs", "consul.log"), l.Dir, nil, bins[BinConsul],
		"agent", "-dev", "-node=hca-lab", "-client=127.0.0.1", "-bind=127.0.0.1", "-log-level=warn", "-hcl", hcl)
	if err != nil {
		return err
	}
	st.Procs[compConsul] = *p
	return waitFor(ctx, 60*time.Second, *p, func() error {
		resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/v1/status/leader", st.Ports["consul-http"]))
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 || strings.Trim(strings.TrimSpace(string(b)), `"`) == "" {
			return fmt.Errorf("no leader yet")
		}
		return nil
	})
}

// waitFor polls check until it succeeds, p dies or timeout passes.
func waitFor(ctx context.Context, timeout time.Duration, p Proc, check func() error) error {
	deadline := time.Now().Add(timeout)
	for {
		if !alive(p.PID) {
			return fmt.Errorf("%s exited during start; last lines of %s:\n%s", p.Name, p.Log, tailLog(p.Log, 1500))
		}
		err := check()
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s not ready after %s (%v); see %s", p.Name, timeout, err, p.Log)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func (l *Lab) nginxDir() string { return filepath.Join(l.Dir, "nginx") }

// nginxArgs are the flags that point nginx at the lab's own config and prefix.
func (l *Lab) nginxArgs() []string {
	d := l.nginxDir()
	return []string{"-p", d, "-c", filepath.Join(d, "nginx.conf"), "-e", filepath.Join(d, "error.log")}
}

func (l *Lab) startNginx(ctx context.Context, st *state, bins map[string]string) error {
	if err := pickPorts(st, "nginx"); err != nil {
		return err
	}
	d := l.nginxDir()
	for _, sub := range []string{"", "temp"} {
		if err := os.MkdirAll(filepath.Join(d, sub), 0o755); err != nil {
			return fmt.Errorf("create nginx dir: %w", err)
		}
	}
	conf := fmt.Sprintf(`# Generated by the HCA lab. The upstreams come from Consul through consul-template.
daemon off;
worker_processes 1;
pid %[1]s/nginx.pid;
events { worker_connections 256; }
http {
    access_log %[1]s/access.log;
    client_body_temp_path %[1]s/temp/body;
    proxy_temp_path %[1]s/temp/proxy;
    fastcgi_temp_path %[1]s/temp/fastcgi;
    uwsgi_temp_path %[1]s/temp/uwsgi;
    scgi_temp_path %[1]s/temp/scgi;
    include %[1]s/upstreams.conf;
}
`, d)
	if err := os.WriteFile(filepath.Join(d, "nginx.conf"), []byte(conf), 0o644); err != nil {
		return fmt.Errorf("write nginx.conf: %w", err)
	}
	ups := filepath.Join(d, "upstreams.conf")
	if _, err := os.Stat(ups); errors.Is(err, os.ErrNotExist) {
		if err := os.WriteFile(ups, []byte(nginxServerBlock(st.Ports["nginx"], "")), 0o644); err != nil {
			return fmt.Errorf("write upstreams.conf: %w", err)
		}
	}
	if err := os.WriteFile(filepath.Join(d, "upstreams.ctmpl"), []byte(upstreamTemplate(st.Ports["nginx"])), 0o644); err != nil {
		return fmt.Errorf("write upstream template: %w", err)
	}
	p, err := startProc(compNginx, filepath.Join(l.Dir, "logs", "nginx.log"), d, nil, bins[BinNginx], l.nginxArgs()...)
	if err != nil {
		return err
	}
	st.Procs[compNginx] = *p
	return waitFor(ctx, 20*time.Second, *p, func() error {
		resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/healthz", st.Ports["nginx"]))
		if err != nil {
			return err
		}
		resp.Body.Close()
		return nil
	})
}

// upstreamTemplate renders, for every Consul service with healthy instances, an
// nginx upstream (weights from the instance's "weight" meta) and a location
// /<service>/ that balances over it.
func upstreamTemplate(port int) string {
	return `# Rendered by consul-template from Consul's catalog. Do not edit.
{{- range services }}{{- if ne .Name "consul" }}{{- $name := .Name }}{{- with service $name }}
upstream {{ $name }} {
{{- range . }}
    server {{ .Address }}:{{ .Port }}{{ with index .ServiceMeta "weight" }} weight={{ . }}{{ end }}; # node={{ .Node }}{{ with index .ServiceMeta "cluster" }} cluster={{ . }}{{ end }}
{{- end }}
}
{{- end }}{{- end }}{{- end }}
` + nginxServerBlock(port, `{{- range services }}{{- if ne .Name "consul" }}{{- $name := .Name }}{{- with service $name }}
    location /{{ $name }}/ { proxy_pass http://{{ $name }}/; }
{{- end }}{{- end }}{{- end }}`)
}

func nginxServerBlock(port int, locations string) string {
	return fmt.Sprintf(`
server {
    listen 127.0.0.1:%d;
    location = /healthz { return 200 "ok\n"; }
%s
}
`, port, locations)
}

func (l *Lab) startConsulTemplate(ctx context.Context, st *state, bins map[string]string) error {
	d := l.nginxDir()
	nginxCmd := bins[BinNginx] + " " + strings.Join(l.nginxArgs(), " ")
	// The retry block bounds consul-template's backoff while Consul is away
	// (issue 14). Its defaults (0.41.1: 12 attempts, 250ms doubling up to 1m)
	// left nginx on a stale catalog for about a minute after Consul came back,
	// since the next attempt could be up to 60 s away, and made consul-template
	// exit after the 12th failed attempt (about 5 min). attempts = 0 retries
	// forever; 250ms doubling to at most 2s means a returned Consul is seen
	// within 2 s. block_query_wait bounds the other half: the lab's Consul runs
	// -dev, so a restarted one starts its Raft index from scratch, and a
	// blocking query that asks for "changes after index 22" of a Consul now at
	// index 15 waits the whole block_query_wait (default 60 s) before
	// consul-template sees the lower index and resets. 2 s costs one request per
	// watched service every 2 s and bounds the return to about 2 s + 2 s (it was
	// 5 s: TestConsulOutageNginxFollowsCatalog then missed its 15 s bound once
	// in CI, on a machine busy compiling every test package).
	cfg := fmt.Sprintf(`consul {
  address = "127.0.0.1:%d"
  retry {
    enabled     = true
    attempts    = 0
    backoff     = "250ms"
    max_backoff = "2s"
  }
}
log_level = "info"
block_query_wait = "2s"
template {
  source      = "%s"
  destination = "%s"
  command     = ["/bin/sh", "-c", "%s -t && %s -s reload"]
  command_timeout = "30s"
  wait {
    min = "100ms"
    max = "500ms"
  }
}
`, st.Ports["consul-http"], filepath.Join(d, "upstreams.ctmpl"), filepath.Join(d, "upstreams.conf"), nginxCmd, nginxCmd)
	cfgPath := filepath.Join(d, "consul-template.hcl")
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o644); err != nil {
		return fmt.Errorf("write consul-template config: %w", err)
	}
	p, err := startProc(compConsulTemplate, filepath.Join(l.Dir, "logs", "consul-template.log"), d, nil, bins[BinConsulTemplate], "-config", cfgPath)
	if err != nil {
		return err
	}
	st.Procs[compConsulTemplate] = *p
	// Ready once it has rendered the template at least once.
	return waitFor(ctx, 30*time.Second, *p, func() error {
		b, err := os.ReadFile(filepath.Join(d, "upstreams.conf"))
		if err != nil {
			return err
		}
		if !strings.Contains(string(b), "Rendered by consul-template") {
			return fmt.Errorf("not rendered yet")
		}
		return nil
	})
}

func (l *Lab) startDaemon(ctx context.Context, st *state, bootDelay, podDelay time.Duration) error {
	if err := pickPorts(st, "aws", "ack", "loadsim", "alicloud-sts"); err != nil {
		return err
	}
	// The issuer's port is picked on its own: running apiservers name it in
	// their authentication configuration, so it changes only when taken.
	if err := pickPorts(st, "oidc"); err != nil {
		return err
	}
	if err := l.writeOIDCFiles(st.Ports["oidc"]); err != nil {
		return err
	}
	roots, err := CAPool(l.Dir)
	if err != nil {
		return err
	}
	oidcClient := &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12}}}
	defer oidcClient.CloseIdleConnections()
	st.NodeBootDelay, st.PodStartupDelay = &bootDelay, &podDelay
	args := append(append([]string{}, l.Daemon[1:]...),
		"--dir="+l.Dir,
		"--node-boot-delay="+bootDelay.String(),
		"--pod-startup-delay="+podDelay.String(),
		"--aws-port="+strconv.Itoa(st.Ports["aws"]),
		"--ack-port="+strconv.Itoa(st.Ports["ack"]),
		"--loadsim-port="+strconv.Itoa(st.Ports["loadsim"]),
		"--oidc-port="+strconv.Itoa(st.Ports["oidc"]),
		"--alicloud-sts-port="+strconv.Itoa(st.Ports["alicloud-sts"]))
	env := []string{"HCA_REPO_ROOT=" + l.Bins.RepoDir}
	p, err := startProc(compDaemon, filepath.Join(l.Dir, "logs", "daemon.log"), l.Dir, env, l.Daemon[0], args...)
	if err != nil {
		return err
	}
	st.Procs[compDaemon] = *p
	return waitFor(ctx, 30*time.Second, *p, func() error {
		for _, port := range []int{st.Ports["aws"], st.Ports["ack"], st.Ports["loadsim"]} {
			resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/healthz", port))
			if err != nil {
				return err
			}
			resp.Body.Close()
		}
		resp, err := oidcClient.Get(OIDCIssuerURL(st.Ports["oidc"]) + "/.well-known/openid-configuration")
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("OIDC issuer answered %s", resp.Status)
		}
		resp, err = oidcClient.Get(fmt.Sprintf("https://127.0.0.1:%d/healthz", st.Ports["alicloud-sts"]))
		if err != nil {
			return err
		}
		resp.Body.Close()
		return nil
	})
}

// PrometheusTargetsDir is where file_sd target files go (any *.json there is scraped).
func (l *Lab) PrometheusTargetsDir() string { return filepath.Join(l.Dir, "prometheus", "targets") }

func (l *Lab) startPrometheus(ctx context.Context, st *state, bins map[string]string) error {
	if err := pickPorts(st, "prometheus"); err != nil {
		return err
	}
	d := filepath.Join(l.Dir, "prometheus")
	if err := os.MkdirAll(l.PrometheusTargetsDir(), 0o755); err != nil {
		return fmt.Errorf("create prometheus dir: %w", err)
	}
	conf := fmt.Sprintf(`# Generated by the HCA lab. Add targets by writing file_sd JSON files to %[1]s.
global:
  scrape_interval: 1s
  scrape_timeout: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: lab
    honor_labels: true
    file_sd_configs:
      - files: ["%[1]s/*.json"]
        refresh_interval: 1s
`, l.PrometheusTargetsDir())
	if err := os.WriteFile(filepath.Join(d, "prometheus.yml"), []byte(conf), 0o644); err != nil {
		return fmt.Errorf("write prometheus.yml: %w", err)
	}
	if st.Ports["loadsim"] != 0 {
		if err := WriteScrapeTarget(l.PrometheusTargetsDir(), "loadsim", fmt.Sprintf("127.0.0.1:%d", st.Ports["loadsim"]), map[string]string{"job": "loadsim"}); err != nil {
			return err
		}
	}
	p, err := startProc(compPrometheus, filepath.Join(l.Dir, "logs", "prometheus.log"), d, nil, bins[BinPrometheus],
		"--config.file="+filepath.Join(d, "prometheus.yml"),
		"--storage.tsdb.path="+filepath.Join(d, "data"),
		"--storage.tsdb.retention.time=1d",
		"--web.listen-address=127.0.0.1:"+strconv.Itoa(st.Ports["prometheus"]),
		"--web.enable-lifecycle")
	if err != nil {
		return err
	}
	st.Procs[compPrometheus] = *p
	return waitFor(ctx, 60*time.Second, *p, func() error {
		resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/-/ready", st.Ports["prometheus"]))
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			return fmt.Errorf("prometheus answered %s", resp.Status)
		}
		return nil
	})
}

// WriteScrapeTarget adds (or replaces) a Prometheus file_sd target named name.
func WriteScrapeTarget(dir, name, hostport string, labels map[string]string) error {
	raw, _ := json.Marshal([]map[string]any{{"targets": []string{hostport}, "labels": labels}})
	p := filepath.Join(dir, name+".json")
	// A lab without Prometheus (tests of the lab itself) has no targets
	// directory yet; the target waits there for a Prometheus started later.
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("write scrape target %s: %w", name, err)
	}
	if err := os.WriteFile(p+".tmp", raw, 0o644); err != nil {
		return fmt.Errorf("write scrape target %s: %w", name, err)
	}
	return os.Rename(p+".tmp", p)
}

// Env returns the variables tests and tools use to reach the lab.
func (l *Lab) Env() (map[string]string, error) {
	st, err := l.loadState()
	if err != nil {
		return nil, err
	}
	priv, err := l.Clusters.Get(PrivateCluster)
	if err != nil {
		return nil, fmt.Errorf("the lab is not up (%v): run `go run ./tools/lab up`", err)
	}
	abs, _ := filepath.Abs(l.Dir)
	tf, err := l.Bins.Path(context.Background(), BinTerraform)
	if err != nil {
		return nil, err
	}
	aws := fmt.Sprintf("http://127.0.0.1:%d", st.Ports["aws"])
	env := map[string]string{
		"HCA_LAB_DIR":                    abs,
		"HCA_LAB_PRIVATE_KUBECONFIG":     priv.KubeconfigPath,
		"HCA_LAB_PROMETHEUS_URL":         fmt.Sprintf("http://127.0.0.1:%d", st.Ports["prometheus"]),
		"HCA_LAB_PROMETHEUS_TARGETS_DIR": l.PrometheusTargetsDir(),
		"CONSUL_HTTP_ADDR":               fmt.Sprintf("127.0.0.1:%d", st.Ports["consul-http"]),
		"HCA_LAB_NGINX_UPSTREAMS":        filepath.Join(l.nginxDir(), "upstreams.conf"),
		"HCA_LAB_NGINX_URL":              fmt.Sprintf("http://127.0.0.1:%d", st.Ports["nginx"]),
		"HCA_LAB_NGINX_CONF":             filepath.Join(l.nginxDir(), "nginx.conf"),
		"HCA_LAB_LOADSIM_URL":            fmt.Sprintf("http://127.0.0.1:%d", st.Ports["loadsim"]),
		"HCA_LAB_EKS_ENDPOINT":           aws,
		"HCA_LAB_STS_ENDPOINT":           aws,
		"HCA_LAB_ACK_ENDPOINT":           fmt.Sprintf("http://127.0.0.1:%d", st.Ports["ack"]),
		"TF_ACC_TERRAFORM_PATH":          tf,
		"KUBEBUILDER_ASSETS":             filepath.Join(abs, "bin"),
	}
	if st.Ports["oidc"] != 0 {
		env["HCA_LAB_OIDC_ISSUER"] = OIDCIssuerURL(st.Ports["oidc"])
		env["HCA_LAB_OIDC_CA_FILE"] = CAFile(abs)
	}
	if st.Ports["alicloud-sts"] != 0 {
		env["HCA_LAB_ALICLOUD_STS_ENDPOINT"] = fmt.Sprintf("https://127.0.0.1:%d", st.Ports["alicloud-sts"])
	}
	if st.NodeBootDelay != nil {
		env["HCA_LAB_NODE_BOOT_DELAY"] = st.NodeBootDelay.String()
	}
	if st.PodStartupDelay != nil {
		env["HCA_LAB_POD_STARTUP_DELAY"] = st.PodStartupDelay.String()
	}
	maps.Copy(env, credentialsEnv())
	return env, nil
}

func writeEnvFile(path string, env map[string]string) error {
	keys := make([]string, 0, len(env))
	for k := range env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	b.WriteString("# Written by `go run ./tools/lab up`. Source it: . .lab/env\n")
	for _, k := range keys {
		fmt.Fprintf(&b, "export %s=%s\n", k, strconv.Quote(env[k]))
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// Down stops every process the lab started (the daemon first, so it starts no
// more clusters), every cluster, and removes .lab/env. With purge the whole lab
// directory goes too (the binary cache is elsewhere and stays).
func (l *Lab) Down(ctx context.Context, purge bool) error {
	st, err := l.loadState()
	if err != nil && !purge {
		return err
	}
	if st != nil {
		for _, n := range []string{compRuntime, compDaemon, compPrometheus, compConsulTemplate, compNginx, compConsul} {
			if p, ok := st.Procs[n]; ok {
				stopProc(p, 10*time.Second)
				delete(st.Procs, n)
			}
		}
		_ = l.saveState(st)
	}
	clusters, err := l.Clusters.List()
	if err != nil {
		return err
	}
	for _, c := range clusters {
		if err := l.Clusters.DeleteCluster(ctx, c.Name); err != nil {
			return err
		}
	}
	_ = os.Remove(filepath.Join(l.Dir, "env"))
	if purge {
		return os.RemoveAll(l.Dir)
	}
	return nil
}

// ComponentStatus is one line of `lab status`.
type ComponentStatus struct {
	Name    string
	PID     int
	Running bool
	Detail  string
}

// Status reports every recorded process; crashed ones have Running false.
func (l *Lab) Status() ([]ComponentStatus, error) {
	st, err := l.loadState()
	if err != nil {
		return nil, err
	}
	var out []ComponentStatus
	names := make([]string, 0, len(st.Procs))
	for n := range st.Procs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		p := st.Procs[n]
		out = append(out, ComponentStatus{Name: n, PID: p.PID, Running: alive(p.PID), Detail: p.Log})
	}
	clusters, err := l.Clusters.List()
	if err != nil {
		return nil, err
	}
	for _, c := range clusters {
		for _, p := range c.Procs {
			out = append(out, ComponentStatus{Name: "cluster/" + c.Name + "/" + p.Name, PID: p.PID, Running: alive(p.PID), Detail: c.Server})
		}
	}
	return out, nil
}
