package controller

import (
	"context"
	"fmt"
	"sync"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
	"github.com/hca-project/terraform-provider-hca/runtime/member"
)

// DefaultKubeconfigKey is the Secret key read when a SecretKeyRef names none.
const DefaultKubeconfigKey = "kubeconfig"

// Member is a reachable member cluster.
type Member struct {
	// Cluster is the HybridCluster as the cache holds it (read without a
	// copy, every burst round reads it): read it, never change it.
	Cluster *hcav1.HybridCluster
	Config  *rest.Config
	Client  client.Client
	Kube    kubernetes.Interface
}

// Members builds and caches clients for HybridClusters. A cached client is reused
// until the cluster's spec generation or its credentials Secret changes.
type Members struct {
	// Control reads HybridClusters and credentials Secrets. The runtime
	// gives it the manager's cached client: every burst round calls Get, and
	// a client built from a credentials Secret a moment old is replaced on
	// the next Get after the cache sees the change (the key below).
	Control client.Reader
	// AWS mints EKS tokens (nil: EKS credentials are refused).
	AWS member.EKSAPI
	// Clock drives token refresh.
	Clock clock.PassiveClock
	// Scheme for member clients (nil: client-go's).
	Options client.Options

	mu    sync.Mutex
	cache map[string]cachedMember
}

type cachedMember struct {
	key string
	m   *Member
}

// Get returns the member cluster named name.
func (ms *Members) Get(ctx context.Context, name string) (*Member, error) {
	var hc hcav1.HybridCluster
	// No copy: the cluster and its Secret are only read, and every burst
	// round reads them (make bench-load: 35 MB of copies a minute and a half).
	if err := ms.Control.Get(ctx, types.NamespacedName{Name: name}, &hc, client.UnsafeDisableDeepCopy); err != nil {
		return nil, fmt.Errorf("get hybrid cluster %s: %w", name, err)
	}
	creds, version, err := ms.credentials(ctx, &hc)
	if err != nil {
		return nil, err
	}
	key := fmt.Sprintf("%d/%s", hc.Generation, version)
	ms.mu.Lock()
	if c, ok := ms.cache[name]; ok && c.key == key {
		m := *c.m
		m.Cluster = &hc
		ms.mu.Unlock()
		return &m, nil
	}
	ms.mu.Unlock()
	clk := ms.Clock
	if clk == nil {
		clk = clock.RealClock{}
	}
	cfg, err := member.RESTConfig(ctx, creds, ms.AWS, clk)
	if err != nil {
		return nil, fmt.Errorf("hybrid cluster %s: %w", name, err)
	}
	cfg.QPS, cfg.Burst = 50, 100
	cl, err := client.New(cfg, ms.Options)
	if err != nil {
		return nil, fmt.Errorf("client for hybrid cluster %s: %w", name, err)
	}
	kube, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("clientset for hybrid cluster %s: %w", name, err)
	}
	m := &Member{Cluster: &hc, Config: cfg, Client: cl, Kube: kube}
	ms.mu.Lock()
	if ms.cache == nil {
		ms.cache = map[string]cachedMember{}
	}
	ms.cache[name] = cachedMember{key: key, m: m}
	ms.mu.Unlock()
	return m, nil
}

// credentials reads what member.RESTConfig needs and a version string that changes
// whenever the credentials do.
func (ms *Members) credentials(ctx context.Context, hc *hcav1.HybridCluster) (member.Credentials, string, error) {
	c := hc.Spec.Credentials
	switch {
	case c.EKS != nil:
		return member.Credentials{EKS: &member.EKSCluster{Name: c.EKS.ClusterName, Region: c.EKS.Region}}, "eks", nil
	case c.SecretRef != nil:
		key := c.SecretRef.Key
		if key == "" {
			key = DefaultKubeconfigKey
		}
		var s corev1.Secret
		if err := ms.Control.Get(ctx, types.NamespacedName{Namespace: c.SecretRef.Namespace, Name: string(c.SecretRef.Name)}, &s, client.UnsafeDisableDeepCopy); err != nil {
			return member.Credentials{}, "", fmt.Errorf("hybrid cluster %s: read credentials secret %s/%s: %w", hc.Name, c.SecretRef.Namespace, c.SecretRef.Name, err)
		}
		raw, ok := s.Data[key]
		if !ok || len(raw) == 0 {
			return member.Credentials{}, "", fmt.Errorf("hybrid cluster %s: credentials secret %s/%s has no key %q: store the kubeconfig under it", hc.Name, s.Namespace, s.Name, key)
		}
		return member.Credentials{Kubeconfig: raw}, s.ResourceVersion, nil
	default:
		return member.Credentials{}, "", fmt.Errorf("hybrid cluster %s has no credentials: set spec.credentials.secretRef or spec.credentials.eks", hc.Name)
	}
}

// Forget drops a cached client (after the cluster was deleted).
func (ms *Members) Forget(name string) {
	ms.mu.Lock()
	delete(ms.cache, name)
	ms.mu.Unlock()
}
