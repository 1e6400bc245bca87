package controller

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"sort"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
)

// Labels and annotations the burst controller writes. Everything it creates in a
// burst cluster carries BurstPolicyLabel and the managed-by label, so what exists
// can always be found again from the clusters themselves (restart safety).
const (
	// BurstOfLabel marks a Deployment copy (and its pods) with its source,
	// "<namespace>.<name>" (shortened with a hash when longer than 63 characters).
	BurstOfLabel = "hca.dev/burst-of"
	// BurstPolicyLabel names the BurstPolicy (in the same namespace) that created
	// an object in a burst cluster.
	BurstPolicyLabel = "hca.dev/policy"
	// BurstManagedByLabel is the standard managed-by label; its value is
	// BurstManagedBy on every object the burst controller creates.
	BurstManagedByLabel = "app.kubernetes.io/managed-by"
	BurstManagedBy      = "hca-runtime"
	// BurstCreatedNamespaceLabel marks a namespace the burst controller created
	// (and so may delete once nothing of HCA's is left in it).
	BurstCreatedNamespaceLabel = "hca.dev/created-namespace"
	// BurstSourceAnnotation records where a copy comes from:
	// "<primary cluster>/<namespace>/<name>".
	BurstSourceAnnotation = "hca.dev/source"
	// BurstHashAnnotation is a hash of what the controller wants in a copy
	// (everything but the replica count); a different hash means update.
	BurstHashAnnotation = "hca.dev/source-hash"
	// BurstTotalAnnotation, on the primary Deployment, is the total replica count
	// (all clusters) last decided.
	BurstTotalAnnotation = "hca.dev/burst-total"
	// BurstPrimaryAnnotation, on the primary Deployment, is the replica count the
	// controller last wrote there; a different spec.replicas means someone else
	// (a user, an HPA) changed the total.
	BurstPrimaryAnnotation = "hca.dev/burst-primary-replicas"
	// BurstRequestedTotalAnnotation, on the primary Deployment, is a total
	// replica count (all clusters) asked for by another controller that knows
	// spec.replicas is only the primary's share: the MultiObjective strategy
	// writes it instead of spec.replicas once the Deployment carries
	// BurstTotalAnnotation. The burst controller takes it as the total (when
	// no SLO Burst strategy or metrics drive the policy) and removes it in the
	// patch that records the new BurstTotalAnnotation.
	BurstRequestedTotalAnnotation = "hca.dev/burst-requested-total"
	// BurstMovingBackAnnotation, on the primary Deployment, is a move back
	// in flight: "<replicas>@<RFC 3339 time>", that many of spec.replicas
	// moving back from burst clusters since then, whose burst replicas stay
	// until the primary's pods are Ready (make before break).
	BurstMovingBackAnnotation = "hca.dev/burst-moving-back"
	// BurstFinalizer makes deleting a BurstPolicy remove its burst copies and
	// Consul registrations first.
	BurstFinalizer = "hca.dev/burst-cleanup"
)

// burstLabelValue returns s if it is a valid label value, else a shortened
// form ending in a hash of s, so that long names still make unique labels.
func burstLabelValue(s string) string {
	if len(s) <= 63 {
		return s
	}
	sum := sha256.Sum256([]byte(s))
	head := strings.TrimRight(s[:52], "-_.")
	return head + "-" + hex.EncodeToString(sum[:])[:10]
}

// burstOf is the BurstOfLabel value of a Deployment.
func burstOf(namespace, name string) string { return burstLabelValue(namespace + "." + name) }

// burstOwnerLabels are the labels of everything created for policy.
func burstOwnerLabels(policy string) map[string]string {
	return map[string]string{BurstPolicyLabel: burstLabelValue(policy), BurstManagedByLabel: BurstManagedBy}
}

// burstHash hashes v's JSON encoding.
func burstHash(v any) string {
	raw, err := json.Marshal(v)
	if err != nil { // plain API structs always encode
		panic(fmt.Sprintf("burst hash: %v", err))
	}
	sum := sha256.Sum256(raw)
	return hex.EncodeToString(sum[:16])
}

// burstStripAnnotations are annotations that describe a Deployment in its own
// cluster and must not be copied.
var burstStripAnnotations = []string{
	"deployment.kubernetes.io/revision",
	"kubectl.kubernetes.io/last-applied-configuration",
	BurstTotalAnnotation,
	BurstPrimaryAnnotation,
	BurstRequestedTotalAnnotation,
	BurstMovingBackAnnotation,
}

// burstDeploymentCopy builds the Deployment a burst cluster runs for src: same
// namespace, name, selector and pod template (its pods also carry the burst
// labels, so they can be found and watched), replicas set to the placed count,
// and nothing that only makes sense in the source cluster (UID, resource
// version, owner references, status, revision annotations, priority).
func burstDeploymentCopy(src *appsv1.Deployment, policy, primaryCluster string, replicas int32) *appsv1.Deployment {
	labels := maps.Clone(src.Labels)
	if labels == nil {
		labels = map[string]string{}
	}
	maps.Copy(labels, burstOwnerLabels(policy))
	labels[BurstOfLabel] = burstOf(src.Namespace, src.Name)

	annotations := maps.Clone(src.Annotations)
	for _, k := range burstStripAnnotations {
		delete(annotations, k)
	}
	if annotations == nil {
		annotations = map[string]string{}
	}
	annotations[BurstSourceAnnotation] = primaryCluster + "/" + src.Namespace + "/" + src.Name

	tmpl := *src.Spec.Template.DeepCopy()
	tmpl.Labels = maps.Clone(tmpl.Labels)
	if tmpl.Labels == nil {
		tmpl.Labels = map[string]string{}
	}
	tmpl.Labels[BurstPolicyLabel] = burstLabelValue(policy)
	tmpl.Labels[BurstOfLabel] = burstOf(src.Namespace, src.Name)
	// The priority is resolved from a PriorityClass of the source cluster, which
	// the burst cluster may not have (admission would reject the pods).
	tmpl.Spec.Priority = nil
	tmpl.Spec.PriorityClassName = ""
	tmpl.Spec.NodeName = ""

	dst := &appsv1.Deployment{
		TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
		ObjectMeta: metav1.ObjectMeta{
			Name: src.Name, Namespace: src.Namespace,
			Labels: labels, Annotations: annotations,
		},
		Spec: appsv1.DeploymentSpec{
			Selector:                src.Spec.Selector.DeepCopy(),
			Template:                tmpl,
			Strategy:                *src.Spec.Strategy.DeepCopy(),
			MinReadySeconds:         src.Spec.MinReadySeconds,
			RevisionHistoryLimit:    src.Spec.RevisionHistoryLimit,
			ProgressDeadlineSeconds: src.Spec.ProgressDeadlineSeconds,
		},
	}
	dst.Annotations[BurstHashAnnotation] = burstHash([]any{dst.Labels, dst.Annotations, dst.Spec})
	dst.Spec.Replicas = &replicas
	return dst
}

// burstDeploymentNeedsUpdate reports whether actual (read from a burst
// cluster) differs from desired (from burstDeploymentCopy) in what the
// controller manages.
func burstDeploymentNeedsUpdate(desired, actual *appsv1.Deployment) bool {
	if actual.Annotations[BurstHashAnnotation] != desired.Annotations[BurstHashAnnotation] {
		return true
	}
	if actual.Spec.Replicas == nil || *actual.Spec.Replicas != *desired.Spec.Replicas {
		return true
	}
	return actual.Spec.Paused
}

// burstOwned reports whether obj was created by the burst controller for
// policy.
func burstOwned(obj metav1.Object, policy string) bool {
	l := obj.GetLabels()
	return l[BurstManagedByLabel] == BurstManagedBy && l[BurstPolicyLabel] == burstLabelValue(policy)
}

// burstSelected reports whether sel selects obj (by name or by labels).
func burstSelected(sel *hcav1.ObjectSelector, obj metav1.Object) bool {
	if sel == nil {
		return false
	}
	for _, n := range sel.Names {
		if string(n) == obj.GetName() {
			return true
		}
	}
	if len(sel.MatchLabels) == 0 {
		return false
	}
	l := obj.GetLabels()
	for k, v := range sel.MatchLabels {
		if got, ok := l[k]; !ok || got != v {
			return false
		}
	}
	return true
}

// burstPropagatedCopy builds the copy of a ConfigMap, Secret or Service that a
// burst cluster receives for policy, or nil for objects that belong to their
// own cluster (kube-root-ca.crt, service-account tokens, the "kubernetes"
// Service) and are never copied.
func burstPropagatedCopy(obj client.Object, policy string) client.Object {
	meta := func(src metav1.ObjectMeta) metav1.ObjectMeta {
		labels := maps.Clone(src.Labels)
		if labels == nil {
			labels = map[string]string{}
		}
		maps.Copy(labels, burstOwnerLabels(policy))
		annotations := maps.Clone(src.Annotations)
		delete(annotations, "kubectl.kubernetes.io/last-applied-configuration")
		if annotations == nil {
			annotations = map[string]string{}
		}
		return metav1.ObjectMeta{Name: src.Name, Namespace: src.Namespace, Labels: labels, Annotations: annotations}
	}
	var out client.Object
	switch o := obj.(type) {
	case *corev1.ConfigMap:
		if o.Name == "kube-root-ca.crt" {
			return nil
		}
		out = &corev1.ConfigMap{
			TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
			ObjectMeta: meta(o.ObjectMeta), Data: maps.Clone(o.Data), BinaryData: maps.Clone(o.BinaryData), Immutable: o.Immutable,
		}
	case *corev1.Secret:
		if o.Type == corev1.SecretTypeServiceAccountToken {
			return nil
		}
		out = &corev1.Secret{
			TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"},
			ObjectMeta: meta(o.ObjectMeta), Data: maps.Clone(o.Data), Type: o.Type, Immutable: o.Immutable,
		}
	case *corev1.Service:
		if o.Namespace == metav1.NamespaceDefault && o.Name == "kubernetes" {
			return nil
		}
		spec := *o.Spec.DeepCopy()
		// Addresses and ports allocated by the source cluster.
		spec.ClusterIP, spec.ClusterIPs = "", nil
		spec.IPFamilies, spec.IPFamilyPolicy = nil, nil
		spec.HealthCheckNodePort = 0
		spec.LoadBalancerIP = ""
		for i := range spec.Ports {
			spec.Ports[i].NodePort = 0
		}
		if o.Spec.ClusterIP == corev1.ClusterIPNone {
			spec.ClusterIP = corev1.ClusterIPNone // headless stays headless
		}
		out = &corev1.Service{
			TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Service"},
			ObjectMeta: meta(o.ObjectMeta), Spec: spec,
		}
	default:
		return nil
	}
	a := out.GetAnnotations()
	a[BurstHashAnnotation] = burstHash(burstContent(out))
	out.SetAnnotations(a)
	return out
}

// burstContent is what the hash of a propagated object covers.
func burstContent(obj client.Object) any {
	switch o := obj.(type) {
	case *corev1.ConfigMap:
		return []any{o.Labels, o.Annotations, o.Data, o.BinaryData, o.Immutable}
	case *corev1.Secret:
		return []any{o.Labels, o.Annotations, o.Data, o.Type, o.Immutable}
	case *corev1.Service:
		return []any{o.Labels, o.Annotations, o.Spec}
	}
	return nil
}

// burstObjectDiff compares the propagated objects a burst cluster should hold
// (desired) with those the controller finds there (actual, objects labelled
// for the policy). Objects are matched by kind and name. It returns what to
// create, what to update (desired objects whose hash differs) and what to
// delete (actual objects no longer desired), each sorted by kind and name.
func burstObjectDiff(desired, actual []client.Object) (create, update, remove []client.Object) {
	key := func(o client.Object) string { return fmt.Sprintf("%T/%s", o, o.GetName()) }
	have := map[string]client.Object{}
	for _, o := range actual {
		have[key(o)] = o
	}
	want := map[string]bool{}
	for _, d := range desired {
		k := key(d)
		want[k] = true
		a, ok := have[k]
		switch {
		case !ok:
			create = append(create, d)
		case a.GetAnnotations()[BurstHashAnnotation] != d.GetAnnotations()[BurstHashAnnotation]:
			update = append(update, d)
		}
	}
	for _, a := range actual {
		if !want[key(a)] {
			remove = append(remove, a)
		}
	}
	for _, s := range [][]client.Object{create, update, remove} {
		sort.Slice(s, func(i, j int) bool { return key(s[i]) < key(s[j]) })
	}
	return create, update, remove
}
