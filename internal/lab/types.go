package lab

import "time"

// NodePool is a group of identical fake (kwok) nodes in a lab cluster. The real
// kube-scheduler enforces their capacity, so pods that do not fit stay Pending.
type NodePool struct {
	// Name identifies the pool inside its cluster; nodes are named
	// "<cluster>-<pool>-<index>" and labelled hca.dev/node-pool=<pool>.
	Name string `json:"name"`
	// Count is the number of nodes; 0 removes the pool's nodes.
	Count int `json:"count"`
	// CPU is each node's allocatable CPU as a Kubernetes quantity ("4").
	CPU string `json:"cpu"`
	// Memory is each node's allocatable memory as a Kubernetes quantity ("8Gi").
	Memory string `json:"memory"`
	// Pods is each node's pod capacity (default 110).
	Pods int `json:"pods,omitempty"`
	// Labels are extra node labels (for example an instance type).
	Labels map[string]string `json:"labels,omitempty"`
	// Taints are set on every node of the pool.
	Taints []Taint `json:"taints,omitempty"`
	// ProviderID, for AddNode only, is the node's spec.providerID: the
	// cloud's reference to its instance ("aws:///eu-west-1a/i-0123..."),
	// which the emulators set on the nodes they boot.
	ProviderID string `json:"providerID,omitempty"`
}

// Taint is a node taint; Effect is NoSchedule, PreferNoSchedule or NoExecute.
type Taint struct {
	Key    string `json:"key"`
	Value  string `json:"value,omitempty"`
	Effect string `json:"effect"`
}

// ClusterSpec describes a lab cluster to start.
type ClusterSpec struct {
	// Name is a DNS label, unique in the lab ("private", "eks-burst-1").
	Name string `json:"name"`
	// Pools are the node pools to create once the control plane is up.
	Pools []NodePool `json:"pools,omitempty"`
	// TokenWebhookURL, when set, makes kube-apiserver send bearer tokens it does
	// not know to this TokenReview webhook (how EKS-style tokens are accepted).
	TokenWebhookURL string `json:"tokenWebhookURL,omitempty"`
	// PodStartupDelay, when positive, keeps each pod Pending (bound, no IP) for
	// this long before kwok makes it Running and Ready: image pull and readiness.
	// A pod's annotation pod-ready.stage.kwok.x-k8s.io/delay overrides it.
	PodStartupDelay time.Duration `json:"podStartupDelay,omitempty"`
}

// ClusterInfo tells how to reach a running lab cluster.
type ClusterInfo struct {
	Name string `json:"name"`
	// Server is the kube-apiserver URL (https://127.0.0.1:PORT).
	Server string `json:"server"`
	// CAData is the PEM of the CA that signed the apiserver's serving cert.
	CAData []byte `json:"caData"`
	// KubeconfigPath is an admin (system:masters) kubeconfig for the cluster.
	KubeconfigPath string `json:"kubeconfigPath"`
}
