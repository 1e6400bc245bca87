package lab

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// Clusters starts, lists and stops lab Kubernetes clusters. Each cluster lives in
// <Dir>/clusters/<name>: its state (cluster.json), admin kubeconfig, PKI, etcd data
// and logs. The state on disk is the truth, so a restarted lab daemon or a new CLI
// invocation sees the clusters an earlier one started.
type Clusters struct {
	// Dir is the lab directory (.lab).
	Dir  string
	Bins *Binaries

	mu sync.Mutex // serialises creation and deletion per manager
}

// NewClusters returns a cluster manager for the lab directory dir.
func NewClusters(dir string, bins *Binaries) *Clusters {
	return &Clusters{Dir: dir, Bins: bins}
}

// ClusterState is what cluster.json records.
type ClusterState struct {
	ClusterInfo
	Spec    ClusterSpec    `json:"spec"`
	Ports   map[string]int `json:"ports"`
	Procs   []Proc         `json:"procs"`
	Created time.Time      `json:"created"`
}

var clusterNameRE = regexp.MustCompile(`^[a-z]([a-z0-9-]{0,38}[a-z0-9])?$`)

// ValidateClusterName explains what is wrong with a cluster name, or returns nil.
func ValidateClusterName(name string) error {
	if !clusterNameRE.MatchString(name) {
		return fmt.Errorf("invalid cluster name %q: use 1-40 lowercase letters, digits and '-', starting with a letter and not ending with '-'", name)
	}
	return nil
}

func (c *Clusters) clusterDir(name string) string { return filepath.Join(c.Dir, "clusters", name) }

// Get returns the recorded state of a cluster, or an error naming the known ones.
func (c *Clusters) Get(name string) (*ClusterState, error) {
	raw, err := os.ReadFile(filepath.Join(c.clusterDir(name), "cluster.json"))
	if errors.Is(err, os.ErrNotExist) {
		names, _ := c.names()
		return nil, fmt.Errorf("unknown lab cluster %q (known: %s): create it first", name, strings.Join(names, ", "))
	}
	if err != nil {
		return nil, fmt.Errorf("read state of cluster %s: %w", name, err)
	}
	var st ClusterState
	if err := json.Unmarshal(raw, &st); err != nil {
		return nil, fmt.Errorf("parse state of cluster %s: %w", name, err)
	}
	return &st, nil
}

func (c *Clusters) names() ([]string, error) {
	ents, err := os.ReadDir(filepath.Join(c.Dir, "clusters"))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	var names []string
	for _, e := range ents {
		if _, err := os.Stat(filepath.Join(c.Dir, "clusters", e.Name(), "cluster.json")); err == nil {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	return names, nil
}

// List returns the state of every recorded cluster.
func (c *Clusters) List() ([]*ClusterState, error) {
	names, err := c.names()
	if err != nil {
		return nil, fmt.Errorf("list lab clusters: %w", err)
	}
	out := make([]*ClusterState, 0, len(names))
	for _, n := range names {
		st, err := c.Get(n)
		if err != nil {
			return nil, err
		}
		out = append(out, st)
	}
	return out, nil
}

// Healthy reports which of the cluster's processes are not running.
func (st *ClusterState) Dead() []string {
	var dead []string
	for _, p := range st.Procs {
		if !alive(p.PID) {
			dead = append(dead, p.Name)
		}
	}
	return dead
}

// CreateCluster starts etcd, kube-apiserver, kube-controller-manager,
// kube-scheduler and kwok for spec, waits for the apiserver, creates the node pools
// and waits for their nodes to be Ready. On failure nothing is left running.
func (c *Clusters) CreateCluster(ctx context.Context, spec ClusterSpec) (info *ClusterInfo, err error) {
	if err := ValidateClusterName(spec.Name); err != nil {
		return nil, err
	}
	for _, p := range spec.Pools {
		if err := validatePool(p); err != nil {
			return nil, err
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	dir := c.clusterDir(spec.Name)
	if _, err := os.Stat(filepath.Join(dir, "cluster.json")); err == nil {
		return nil, fmt.Errorf("lab cluster %q already exists: delete it first or pick another name", spec.Name)
	}
	bins := map[string]string{}
	for _, n := range []string{BinEtcd, BinKubeAPIServer, BinKubeControllerManager, BinKubeScheduler, BinKwok} {
		p, err := c.Bins.Path(ctx, n)
		if err != nil {
			return nil, err
		}
		bins[n] = p
	}
	_ = os.RemoveAll(dir)
	for _, d := range []string{"pki", "logs", "etcd", "certs"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o700); err != nil {
			return nil, fmt.Errorf("create cluster dir: %w", err)
		}
	}
	st := &ClusterState{Spec: spec, Ports: map[string]int{}, Created: time.Now().UTC()}
	st.Name = spec.Name
	defer func() {
		if err != nil {
			for i := len(st.Procs) - 1; i >= 0; i-- {
				stopProc(st.Procs[i], 5*time.Second)
			}
			_ = os.RemoveAll(dir)
		}
	}()

	ca, err := loadOrCreateCA(filepath.Join(c.Dir, "pki"))
	if err != nil {
		return nil, err
	}
	pki := filepath.Join(dir, "pki")
	files := map[string][]byte{"ca.crt": ca.CertPEM}
	for _, leaf := range []struct {
		name, cn string
		orgs     []string
		server   bool
	}{
		{"apiserver", "kube-apiserver", nil, true},
		{"admin", "hca-lab-admin", []string{"system:masters"}, false},
		// One identity for all controllers (no per-controller service account
		// tokens): it needs the rights of every controller, so it is a master.
		{"controller-manager", "system:kube-controller-manager", []string{"system:masters"}, false},
		{"scheduler", "system:kube-scheduler", nil, false},
		// The aggregator's client certificate towards aggregated API servers
		// (the lab's resource metrics API, loadsim.MetricsAPIHandler).
		{"front-proxy-client", "front-proxy-client", nil, false},
	} {
		crt, key, err := ca.issue(leaf.cn, leaf.orgs, leaf.server)
		if err != nil {
			return nil, err
		}
		files[leaf.name+".crt"], files[leaf.name+".key"] = crt, key
	}
	for n, b := range files {
		if err := os.WriteFile(filepath.Join(pki, n), b, 0o600); err != nil {
			return nil, fmt.Errorf("write %s: %w", n, err)
		}
	}
	if err := writeServiceAccountKey(filepath.Join(pki, "sa.key"), filepath.Join(pki, "sa.pub")); err != nil {
		return nil, err
	}

	ports, err := freePorts(6)
	if err != nil {
		return nil, err
	}
	st.Ports = map[string]int{"etcd": ports[0], "etcd-peer": ports[1], "apiserver": ports[2], "controller-manager": ports[3], "scheduler": ports[4], "kwok": ports[5]}
	st.Server = fmt.Sprintf("https://127.0.0.1:%d", st.Ports["apiserver"])
	st.CAData = ca.CertPEM

	kubeconfigs := map[string]string{"admin": "kubeconfig", "controller-manager": "controller-manager.kubeconfig", "scheduler": "scheduler.kubeconfig"}
	for user, file := range kubeconfigs {
		if err := writeKubeconfig(filepath.Join(dir, file), spec.Name, st.Server, ca.CertPEM, files[user+".crt"], files[user+".key"]); err != nil {
			return nil, err
		}
	}
	st.KubeconfigPath = filepath.Join(dir, "kubeconfig")

	start := func(name string, args ...string) error {
		p, err := startProc(name, filepath.Join(dir, "logs", name+".log"), dir, nil, bins[name], args...)
		if err != nil {
			return err
		}
		st.Procs = append(st.Procs, *p)
		return c.save(st)
	}
	etcdURL := fmt.Sprintf("http://127.0.0.1:%d", st.Ports["etcd"])
	peerURL := fmt.Sprintf("http://127.0.0.1:%d", st.Ports["etcd-peer"])
	if err := start(BinEtcd, "--name=lab", "--data-dir="+filepath.Join(dir, "etcd"),
		"--listen-client-urls="+etcdURL, "--advertise-client-urls="+etcdURL,
		"--listen-peer-urls="+peerURL, "--initial-advertise-peer-urls="+peerURL,
		"--initial-cluster=lab="+peerURL, "--unsafe-no-fsync", "--log-level=warn",
		"--quota-backend-bytes=1073741824"); err != nil {
		return nil, err
	}
	if err := waitHTTP(ctx, etcdURL+"/health", nil, 30*time.Second, st.Procs[0]); err != nil {
		return nil, fmt.Errorf("etcd of cluster %s did not become healthy: %w", spec.Name, err)
	}

	apiArgs := []string{
		"--etcd-servers=" + etcdURL,
		"--bind-address=127.0.0.1", "--advertise-address=127.0.0.1",
		"--secure-port=" + strconv.Itoa(st.Ports["apiserver"]),
		"--cert-dir=" + filepath.Join(dir, "certs"),
		"--tls-cert-file=" + filepath.Join(pki, "apiserver.crt"),
		"--tls-private-key-file=" + filepath.Join(pki, "apiserver.key"),
		"--client-ca-file=" + filepath.Join(pki, "ca.crt"),
		"--service-account-issuer=https://kubernetes.default.svc",
		"--service-account-key-file=" + filepath.Join(pki, "sa.pub"),
		"--service-account-signing-key-file=" + filepath.Join(pki, "sa.key"),
		"--authorization-mode=RBAC",
		// API aggregation, so that a test can register an aggregated API
		// (the resource metrics API a member cluster's HPA controller reads).
		"--requestheader-client-ca-file=" + filepath.Join(pki, "ca.crt"),
		"--requestheader-allowed-names=front-proxy-client",
		"--requestheader-username-headers=X-Remote-User",
		"--requestheader-group-headers=X-Remote-Group",
		"--requestheader-extra-headers-prefix=X-Remote-Extra-",
		"--proxy-client-cert-file=" + filepath.Join(pki, "front-proxy-client.crt"),
		"--proxy-client-key-file=" + filepath.Join(pki, "front-proxy-client.key"),
		"--service-cluster-ip-range=10.0.0.0/24",
		"--enable-priority-and-fairness=false",
		// No node lifecycle controller runs (kwok nodes have no kubelet whose
		// heartbeats could be late under load), so nothing would remove the
		// not-ready taint this plugin puts on new nodes.
		"--disable-admission-plugins=TaintNodesByCondition",
		"--profiling=false",
		"--v=1",
	}
	if spec.TokenWebhookURL != "" {
		wh := filepath.Join(dir, "token-webhook.kubeconfig")
		cfg := clientcmdapi.NewConfig()
		cfg.Clusters["webhook"] = &clientcmdapi.Cluster{Server: spec.TokenWebhookURL}
		cfg.AuthInfos["apiserver"] = &clientcmdapi.AuthInfo{}
		cfg.Contexts["webhook"] = &clientcmdapi.Context{Cluster: "webhook", AuthInfo: "apiserver"}
		cfg.CurrentContext = "webhook"
		if err := clientcmd.WriteToFile(*cfg, wh); err != nil {
			return nil, fmt.Errorf("write token webhook config: %w", err)
		}
		apiArgs = append(apiArgs, "--authentication-token-webhook-config-file="+wh,
			"--authentication-token-webhook-version=v1", "--authentication-token-webhook-cache-ttl=10s")
	}
	// The lab's OIDC issuer, when it serves one (see AuthenticationConfig).
	if _, err := os.Stat(AuthenticationConfigFile(c.Dir)); err == nil {
		apiArgs = append(apiArgs, "--authentication-config="+AuthenticationConfigFile(c.Dir))
	}
	if err := start(BinKubeAPIServer, apiArgs...); err != nil {
		return nil, err
	}
	tlsCfg, err := adminTLS(pki)
	if err != nil {
		return nil, err
	}
	if err := waitHTTP(ctx, st.Server+"/readyz", tlsCfg, 90*time.Second, st.Procs[1]); err != nil {
		return nil, fmt.Errorf("kube-apiserver of cluster %s did not become ready: %w", spec.Name, err)
	}
	component := func(name, kubeconfig string, port int, extra ...string) error {
		kc := filepath.Join(dir, kubeconfig)
		args := append([]string{
			"--kubeconfig=" + kc, "--authentication-kubeconfig=" + kc, "--authorization-kubeconfig=" + kc,
			"--bind-address=127.0.0.1", "--secure-port=" + strconv.Itoa(port),
			"--leader-elect=false", "--cert-dir=" + filepath.Join(dir, "certs", name),
		}, extra...)
		return start(name, args...)
	}
	if err := component(BinKubeControllerManager, "controller-manager.kubeconfig", st.Ports["controller-manager"],
		"--service-account-private-key-file="+filepath.Join(pki, "sa.key"),
		"--root-ca-file="+filepath.Join(pki, "ca.crt"),
		"--use-service-account-credentials=false",
		// The default client rate (20/s, burst 30) creates about 5 pods a
		// second (each takes several writes: ReplicaSet, pod, statuses,
		// Events): make bench-load's 5,000 took 15 minutes.
		"--kube-api-qps=200", "--kube-api-burst=300",
		// 10 namespaces at a time (the default) delete about 1.5 a second.
		"--concurrent-namespace-syncs=50",
		"--controllers=*,-nodeipam,-nodelifecycle,-cloud-node-lifecycle,-service-lb-controller,-persistentvolume-binder,-attachdetach,-persistentvolume-expander,-ephemeral-volume,-pv-protection,-pvc-protection"); err != nil {
		return nil, err
	}
	if err := component(BinKubeScheduler, "scheduler.kubeconfig", st.Ports["scheduler"]); err != nil {
		return nil, err
	}
	kwokArgs := []string{"--kubeconfig=" + st.KubeconfigPath,
		"--manage-all-nodes=false",
		"--manage-nodes-with-annotation-selector=kwok.x-k8s.io/node=fake",
		"--server-address=127.0.0.1:" + strconv.Itoa(st.Ports["kwok"]),
		"--cidr=10.244.0.1/16", "--node-ip=127.0.0.1"}
	if spec.PodStartupDelay > 0 {
		cfg, err := writeKwokConfig(dir, spec.PodStartupDelay)
		if err != nil {
			return nil, err
		}
		kwokArgs = append(kwokArgs, "--config="+cfg)
	}
	if err := start(BinKwok, kwokArgs...); err != nil {
		return nil, err
	}
	if err := c.save(st); err != nil {
		return nil, err
	}
	cs, err := st.clientset()
	if err != nil {
		return nil, err
	}
	for _, p := range spec.Pools {
		if err := setNodePool(ctx, cs, spec.Name, p); err != nil {
			return nil, err
		}
	}
	if err := waitDefaultServiceAccount(ctx, cs, 60*time.Second); err != nil {
		return nil, fmt.Errorf("cluster %s: %w", spec.Name, err)
	}
	out := st.ClusterInfo
	return &out, nil
}

func (c *Clusters) save(st *ClusterState) error {
	raw, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	p := filepath.Join(c.clusterDir(st.Name), "cluster.json")
	if err := os.WriteFile(p+".tmp", raw, 0o600); err != nil {
		return fmt.Errorf("write cluster state: %w", err)
	}
	return os.Rename(p+".tmp", p)
}

// DeleteCluster stops every process of a cluster and removes its directory.
// Deleting an unknown cluster is not an error.
func (c *Clusters) DeleteCluster(ctx context.Context, name string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	st, err := c.Get(name)
	if err != nil {
		if _, statErr := os.Stat(c.clusterDir(name)); errors.Is(statErr, os.ErrNotExist) {
			return nil
		}
		return err
	}
	for i := len(st.Procs) - 1; i >= 0; i-- {
		stopProc(st.Procs[i], 10*time.Second)
	}
	if err := os.RemoveAll(c.clusterDir(name)); err != nil {
		return fmt.Errorf("remove files of cluster %s: %w", name, err)
	}
	return nil
}

// StopAPIServer stops a cluster's kube-apiserver (the fault "a burst cluster
// becomes unreachable"; SIGTERM, SIGKILL a second later): clients get
// connection refused; etcd, the
// controllers, the scheduler and kwok keep running, so the cluster's pods and
// nodes stay as they were. Only this cluster is touched. StartAPIServer
// brings it back.
func (c *Clusters) StopAPIServer(ctx context.Context, name string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	st, err := c.Get(name)
	if err != nil {
		return err
	}
	for _, p := range st.Procs {
		if p.Name == BinKubeAPIServer {
			// A second, not the graceful shutdown's drain (which keeps it
			// running for 10 s and more): the fault is its loss.
			stopProc(p, time.Second)
			return nil
		}
	}
	return fmt.Errorf("cluster %s has no %s process recorded", name, BinKubeAPIServer)
}

// StartAPIServer starts a cluster's kube-apiserver again (after
// StopAPIServer) with the arguments and port it had, and waits until it is
// ready. An apiserver that is running is left alone.
func (c *Clusters) StartAPIServer(ctx context.Context, name string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	st, err := c.Get(name)
	if err != nil {
		return err
	}
	dir := c.clusterDir(name)
	for i, p := range st.Procs {
		if p.Name != BinKubeAPIServer {
			continue
		}
		if !alive(p.PID) {
			np, err := startProc(p.Name, p.Log, dir, nil, p.Args[0], p.Args[1:]...)
			if err != nil {
				return err
			}
			st.Procs[i] = *np
			if err := c.save(st); err != nil {
				return err
			}
		}
		tlsCfg, err := adminTLS(filepath.Join(dir, "pki"))
		if err != nil {
			return err
		}
		if err := waitHTTP(ctx, st.Server+"/readyz", tlsCfg, 90*time.Second, st.Procs[i]); err != nil {
			return fmt.Errorf("kube-apiserver of cluster %s did not become ready again: %w", name, err)
		}
		return nil
	}
	return fmt.Errorf("cluster %s has no %s process recorded", name, BinKubeAPIServer)
}

// SetNodePool creates, resizes or (Count 0) removes a node pool of a cluster and
// waits until its nodes are Ready.
func (c *Clusters) SetNodePool(ctx context.Context, cluster string, pool NodePool) error {
	if err := validatePool(pool); err != nil {
		return err
	}
	cs, err := c.client(cluster)
	if err != nil {
		return err
	}
	return setNodePool(ctx, cs, cluster, pool)
}

func validatePool(p NodePool) error {
	if err := ValidateClusterName(p.Name); err != nil {
		return fmt.Errorf("node pool: %w", err)
	}
	if p.Count < 0 {
		return fmt.Errorf("node pool %s: count %d is negative; use 0 to remove the pool", p.Name, p.Count)
	}
	for _, t := range p.Taints {
		switch t.Effect {
		case "NoSchedule", "PreferNoSchedule", "NoExecute":
		default:
			return fmt.Errorf("node pool %s: taint %s has effect %q; use NoSchedule, PreferNoSchedule or NoExecute", p.Name, t.Key, t.Effect)
		}
	}
	if p.Count == 0 {
		return nil
	}
	for field, v := range map[string]string{"cpu": p.CPU, "memory": p.Memory} {
		q, err := resource.ParseQuantity(v)
		if err != nil || q.Sign() <= 0 {
			return fmt.Errorf("node pool %s: %s %q is not a positive Kubernetes quantity (e.g. \"4\" or \"8Gi\")", p.Name, field, v)
		}
	}
	return nil
}

const poolLabel = "hca.dev/node-pool"

func setNodePool(ctx context.Context, cs kubernetes.Interface, cluster string, p NodePool) error {
	existing, err := cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{LabelSelector: poolLabel + "=" + p.Name})
	if err != nil {
		return fmt.Errorf("list nodes of pool %s in cluster %s: %w", p.Name, cluster, err)
	}
	want := map[string]bool{}
	for i := 0; i < p.Count; i++ {
		want[fmt.Sprintf("%s-%s-%d", cluster, p.Name, i)] = true
	}
	for _, n := range existing.Items {
		if !want[n.Name] {
			if err := cs.CoreV1().Nodes().Delete(ctx, n.Name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
				return fmt.Errorf("delete node %s: %w", n.Name, err)
			}
		}
	}
	have := map[string]bool{}
	for _, n := range existing.Items {
		have[n.Name] = true
	}
	for name := range want {
		if have[name] {
			continue
		}
		if _, err := cs.CoreV1().Nodes().Create(ctx, newNode(cluster, p, name), metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("create node %s: %w", name, err)
		}
	}
	return waitNodesReady(ctx, cs, p.Name, p.Count, 60*time.Second)
}

// newNode is the kwok Node object of one node of pool p.
func newNode(cluster string, p NodePool, name string) *corev1.Node {
	pods := p.Pods
	if pods == 0 {
		pods = 110
	}
	labels := map[string]string{
		"kubernetes.io/hostname": name, "kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64",
		"type": "kwok", poolLabel: p.Name, "hca.dev/lab-cluster": cluster,
	}
	for k, v := range p.Labels {
		labels[k] = v
	}
	capacity := corev1.ResourceList{
		corev1.ResourceCPU:    resource.MustParse(p.CPU),
		corev1.ResourceMemory: resource.MustParse(p.Memory),
		corev1.ResourcePods:   *resource.NewQuantity(int64(pods), resource.DecimalSI),
	}
	var taints []corev1.Taint
	for _, t := range p.Taints {
		taints = append(taints, corev1.Taint{Key: t.Key, Value: t.Value, Effect: corev1.TaintEffect(t.Effect)})
	}
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels,
			Annotations: map[string]string{"kwok.x-k8s.io/node": "fake", "node.alpha.kubernetes.io/ttl": "0"}},
		Spec: corev1.NodeSpec{Taints: taints, ProviderID: p.ProviderID},
		Status: corev1.NodeStatus{Capacity: capacity, Allocatable: capacity,
			NodeInfo: corev1.NodeSystemInfo{KubeletVersion: "fake", OperatingSystem: "linux", Architecture: "amd64"}},
	}
}

func waitNodesReady(ctx context.Context, cs kubernetes.Interface, pool string, n int, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		list, err := cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{LabelSelector: poolLabel + "=" + pool})
		ready := 0
		if err == nil {
			for i := range list.Items {
				if nodeReady(&list.Items[i]) {
					ready++
				}
			}
			if ready == n && len(list.Items) == n {
				return nil
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("node pool %s: %d of %d nodes Ready after %s (is kwok running? see its log)", pool, ready, n, timeout)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

func waitDefaultServiceAccount(ctx context.Context, cs kubernetes.Interface, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		_, err := cs.CoreV1().ServiceAccounts("default").Get(ctx, "default", metav1.GetOptions{})
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("service account default/default not created after %s (is kube-controller-manager running? see its log): %w", timeout, err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

func (st *ClusterState) clientset() (*kubernetes.Clientset, error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", st.KubeconfigPath)
	if err != nil {
		return nil, fmt.Errorf("load kubeconfig of cluster %s: %w", st.Name, err)
	}
	cfg.QPS, cfg.Burst = 100, 200
	return kubernetes.NewForConfig(cfg)
}

func writeKubeconfig(path, cluster, server string, ca, crt, key []byte) error {
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters[cluster] = &clientcmdapi.Cluster{Server: server, CertificateAuthorityData: ca}
	cfg.AuthInfos[cluster] = &clientcmdapi.AuthInfo{ClientCertificateData: crt, ClientKeyData: key}
	cfg.Contexts[cluster] = &clientcmdapi.Context{Cluster: cluster, AuthInfo: cluster}
	cfg.CurrentContext = cluster
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		return fmt.Errorf("write kubeconfig %s: %w", path, err)
	}
	return os.Chmod(path, 0o600)
}

func adminTLS(pki string) (*tls.Config, error) {
	cert, err := tls.LoadX509KeyPair(filepath.Join(pki, "admin.crt"), filepath.Join(pki, "admin.key"))
	if err != nil {
		return nil, fmt.Errorf("load admin client certificate: %w", err)
	}
	return &tls.Config{Certificates: []tls.Certificate{cert}, InsecureSkipVerify: true}, nil //nolint:gosec // readiness probe only
}

// waitHTTP polls url until it answers 200, the process p dies, or timeout.
func waitHTTP(ctx context.Context, url string, tlsCfg *tls.Config, timeout time.Duration, p Proc) error {
	client := &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{TLSClientConfig: tlsCfg}}
	deadline := time.Now().Add(timeout)
	var last error
	for {
		if !alive(p.PID) {
			return fmt.Errorf("%s exited; last lines of %s:\n%s", p.Name, p.Log, tailLog(p.Log, 1500))
		}
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		resp, err := client.Do(req)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			last = fmt.Errorf("%s answered %s", url, resp.Status)
		} else {
			last = err
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("not ready after %s (%v); see %s", timeout, last, p.Log)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}
