package lab

import (
	"context"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/client-go/kubernetes"
)

// Node-level operations, for the cloud emulators: a cloud adds and removes the
// nodes of a node group one at a time (each instance boots on its own), where
// SetNodePool sets a whole pool at once.

// PoolNode is one node of a pool as the emulators see it.
type PoolNode struct {
	Name  string
	Ready bool
	// Pods is the number of pods bound to the node that have not ended
	// (DaemonSet pods included: the lab runs none).
	Pods int
}

// AddNode creates the node name with the shape, labels and taints of pool
// (pool.Count is ignored) and waits until kwok reports it Ready. A node that
// exists already is left as it is.
func (c *Clusters) AddNode(ctx context.Context, cluster string, pool NodePool, name string) error {
	pool.Count = 1
	if err := validatePool(pool); err != nil {
		return err
	}
	// The name is also the kubernetes.io/hostname label's value: a DNS label.
	if errs := validation.IsDNS1123Label(name); len(errs) > 0 {
		return fmt.Errorf("node name %q is invalid: %s", name, strings.Join(errs, "; "))
	}
	cs, err := c.client(cluster)
	if err != nil {
		return err
	}
	if _, err := cs.CoreV1().Nodes().Create(ctx, newNode(cluster, pool, name), metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("create node %s in cluster %s: %w", name, cluster, err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		n, err := cs.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
		if err == nil && nodeReady(n) {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("node %s of cluster %s not Ready after 60s (is kwok running? see its log)", name, cluster)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// DeleteNode deletes a node and the pods bound to it, as when its instance is
// terminated: without a kubelet nothing else would end them until the pod
// garbage collector, tens of seconds later, and they would look Running
// meanwhile. Deleting a node that does not exist is not an error.
func (c *Clusters) DeleteNode(ctx context.Context, cluster, name string) error {
	cs, err := c.client(cluster)
	if err != nil {
		return err
	}
	pods, err := cs.CoreV1().Pods("").List(ctx, metav1.ListOptions{FieldSelector: fields.OneTermEqualSelector("spec.nodeName", name).String()})
	if err != nil {
		return fmt.Errorf("list pods on node %s of cluster %s: %w", name, cluster, err)
	}
	zero := int64(0)
	for _, p := range pods.Items {
		if err := cs.CoreV1().Pods(p.Namespace).Delete(ctx, p.Name, metav1.DeleteOptions{GracePeriodSeconds: &zero}); err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("delete pod %s/%s on node %s of cluster %s: %w", p.Namespace, p.Name, name, cluster, err)
		}
	}
	if err := cs.CoreV1().Nodes().Delete(ctx, name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("delete node %s of cluster %s: %w", name, cluster, err)
	}
	return nil
}

// PoolNodes lists the nodes of a pool with their readiness and pod counts.
func (c *Clusters) PoolNodes(ctx context.Context, cluster, pool string) ([]PoolNode, error) {
	cs, err := c.client(cluster)
	if err != nil {
		return nil, err
	}
	nodes, err := cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{LabelSelector: poolLabel + "=" + pool})
	if err != nil {
		return nil, fmt.Errorf("list nodes of pool %s in cluster %s: %w", pool, cluster, err)
	}
	out := make([]PoolNode, 0, len(nodes.Items))
	for i := range nodes.Items {
		n := &nodes.Items[i]
		pods, err := cs.CoreV1().Pods("").List(ctx, metav1.ListOptions{FieldSelector: fields.OneTermEqualSelector("spec.nodeName", n.Name).String()})
		if err != nil {
			return nil, fmt.Errorf("list pods on node %s of cluster %s: %w", n.Name, cluster, err)
		}
		live := 0
		for _, p := range pods.Items {
			if p.Status.Phase != corev1.PodSucceeded && p.Status.Phase != corev1.PodFailed {
				live++
			}
		}
		out = append(out, PoolNode{Name: n.Name, Ready: nodeReady(n), Pods: live})
	}
	return out, nil
}

// TaintNode adds (or replaces, by key and effect) a taint on a node and, with
// cordon, marks it unschedulable as `kubectl cordon` does.
func (c *Clusters) TaintNode(ctx context.Context, cluster, name string, taint Taint, cordon bool) error {
	cs, err := c.client(cluster)
	if err != nil {
		return err
	}
	for attempt := 0; ; attempt++ {
		n, err := cs.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return fmt.Errorf("get node %s of cluster %s: %w", name, cluster, err)
		}
		var taints []corev1.Taint
		for _, t := range n.Spec.Taints {
			if t.Key != taint.Key || string(t.Effect) != taint.Effect {
				taints = append(taints, t)
			}
		}
		now := metav1.Now()
		n.Spec.Taints = append(taints, corev1.Taint{Key: taint.Key, Value: taint.Value, Effect: corev1.TaintEffect(taint.Effect), TimeAdded: &now})
		if cordon {
			n.Spec.Unschedulable = true
		}
		_, err = cs.CoreV1().Nodes().Update(ctx, n, metav1.UpdateOptions{})
		if err == nil {
			return nil
		}
		if !apierrors.IsConflict(err) || attempt >= 5 {
			return fmt.Errorf("taint node %s of cluster %s: %w", name, cluster, err)
		}
	}
}

// client is an admin client of a lab cluster.
func (c *Clusters) client(cluster string) (*kubernetes.Clientset, error) {
	st, err := c.Get(cluster)
	if err != nil {
		return nil, err
	}
	return st.clientset()
}

func nodeReady(n *corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady && c.Status == corev1.ConditionTrue {
			return true
		}
	}
	return false
}
