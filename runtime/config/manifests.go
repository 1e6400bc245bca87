package config

import (
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"fmt"
	"maps"
	"regexp"
	"strconv"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/yaml"
)

//go:embed rbac/role.yaml
var roleYAML []byte

// Name is the name of the runtime's Deployment, service account and roles.
const Name = "hca-runtime"

// AlicloudSecretName is the Secret, in the runtime's namespace, that holds
// its Alibaba Cloud AccessKey (keys AlicloudKeyIDKey and AlicloudKeySecretKey),
// which the Deployment passes to the runtime as the environment variables the
// Alibaba Cloud SDK's default credential chain reads.
const (
	AlicloudSecretName   = Name + "-alicloud"
	AlicloudKeyIDKey     = "access_key_id"
	AlicloudKeySecretKey = "access_key_secret"
	// AlicloudChecksumAnnotation, on the pod template, is a SHA-256 digest
	// (not the key) of the Secret's content: a new key rolls the pods.
	AlicloudChecksumAnnotation = "hca.dev/alicloud-secret-checksum"
)

// Alicloud is the runtime's access to Alibaba Cloud ACK (node pools of burst
// clusters).
type Alicloud struct {
	// AccessKeyID and AccessKeySecret are a RAM user's AccessKey; they go
	// into AlicloudSecretName, never into the Deployment.
	AccessKeyID, AccessKeySecret string
	// Endpoint overrides the CS API endpoint (the lab's emulator).
	Endpoint string
}

// Options shape the install.
type Options struct {
	// Namespace to install into (default "hca-system").
	Namespace string
	// Image of hca-runtime (required).
	Image string
	// Replicas of the Deployment (default 1; more than 1 turns leader election on).
	Replicas int32
	// PrometheusURL and ConsulAddr are passed to the runtime (empty: off).
	PrometheusURL, ConsulAddr string
	// LogLevel is debug, info, warn or error (default info).
	LogLevel string
	// Resources of the runtime container (default 100m/128Mi requests, 256Mi limit).
	Resources *corev1.ResourceRequirements
	// AWSRegion, EKSEndpoint and STSEndpoint configure the runtime's access to
	// EKS for clusters registered by name (empty: the SDK's defaults). The AWS
	// identity comes from the pod (IRSA, EKS Pod Identity or the environment).
	AWSRegion, EKSEndpoint, STSEndpoint string
	// AutoScalingEndpoint overrides the AWS Auto Scaling endpoint, through
	// which the runtime releases exact EKS nodes (empty: the region's).
	AutoScalingEndpoint string
	// Alicloud, when set, lets the runtime scale ACK node pools.
	Alicloud *Alicloud
	// ProbeInterval is how often hybrid clusters are probed and ControlInterval
	// how often metric-driven burst policies are evaluated (0: the runtime's
	// defaults, 30s and 15s).
	ProbeInterval, ControlInterval time.Duration
	// ServiceAccountAnnotations are set on the runtime's service account, such
	// as eks.amazonaws.com/role-arn for IRSA.
	ServiceAccountAnnotations map[string]string
	// ExtraArgs are appended to `hca-runtime run`.
	ExtraArgs []string
	// ServiceMonitor tells that a Prometheus Operator ServiceMonitor (see
	// the ServiceMonitor function) scrapes the runtime: the pod template and the metrics
	// Service then carry no prometheus.io annotations, so that a Prometheus
	// that also honours them does not scrape the runtime twice.
	ServiceMonitor bool
}

var dnsLabel = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$`)

func (o *Options) defaults() error {
	if o.Namespace == "" {
		o.Namespace = "hca-system"
	}
	if !dnsLabel.MatchString(o.Namespace) {
		return fmt.Errorf("namespace %q is not a DNS label: use lowercase letters, digits and '-'", o.Namespace)
	}
	if o.Image == "" {
		return fmt.Errorf("image is empty: name the hca-runtime image, e.g. ghcr.io/hca-project/hca-runtime:v0.1.0")
	}
	if o.Replicas == 0 {
		o.Replicas = 1
	}
	if o.Replicas < 0 {
		return fmt.Errorf("replicas %d is negative: use 1 or more", o.Replicas)
	}
	switch o.LogLevel {
	case "":
		o.LogLevel = "info"
	case "debug", "info", "warn", "error":
	default:
		return fmt.Errorf("log level %q: use debug, info, warn or error", o.LogLevel)
	}
	if o.ProbeInterval < 0 || o.ControlInterval < 0 {
		return fmt.Errorf("probe interval %s and control interval %s must not be negative", o.ProbeInterval, o.ControlInterval)
	}
	if a := o.Alicloud; a != nil && (a.AccessKeyID == "" || a.AccessKeySecret == "") {
		return fmt.Errorf("alicloud access key ID and secret are both required: set both, or leave Alibaba Cloud access out")
	}
	if o.Resources == nil {
		o.Resources = &corev1.ResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("128Mi")},
			Limits:   corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("256Mi")},
		}
	}
	return nil
}

// ClusterRole returns the generated least-privilege ClusterRole.
func ClusterRole() (*rbacv1.ClusterRole, error) {
	var r rbacv1.ClusterRole
	if err := yaml.UnmarshalStrict(roleYAML, &r); err != nil {
		return nil, fmt.Errorf("decode embedded rbac/role.yaml: %w", err)
	}
	return &r, nil
}

// Objects returns, in apply order, every object of the install except the CRDs.
func Objects(o Options) ([]any, error) {
	if err := o.defaults(); err != nil {
		return nil, err
	}
	labels := map[string]string{"app.kubernetes.io/name": Name, "app.kubernetes.io/part-of": "hca"}
	meta := func(name string, namespaced bool) metav1.ObjectMeta {
		m := metav1.ObjectMeta{Name: name, Labels: labels}
		if namespaced {
			m.Namespace = o.Namespace
		}
		return m
	}
	role, err := ClusterRole()
	if err != nil {
		return nil, err
	}
	role.TypeMeta = metav1.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "ClusterRole"}
	role.Labels = labels
	args := []string{"run", "--metrics-bind-address=:8080", "--health-probe-bind-address=:8081", "--log-level=" + o.LogLevel}
	if o.Replicas > 1 {
		args = append(args, "--leader-elect=true", "--leader-election-namespace="+o.Namespace)
	}
	if o.PrometheusURL != "" {
		args = append(args, "--prometheus-url="+o.PrometheusURL)
	}
	if o.ConsulAddr != "" {
		args = append(args, "--consul-addr="+o.ConsulAddr)
	}
	for _, a := range []struct{ flag, v string }{
		{"--aws-region", o.AWSRegion}, {"--eks-endpoint", o.EKSEndpoint}, {"--sts-endpoint", o.STSEndpoint},
		{"--autoscaling-endpoint", o.AutoScalingEndpoint},
	} {
		if a.v != "" {
			args = append(args, a.flag+"="+a.v)
		}
	}
	if o.ProbeInterval > 0 {
		args = append(args, "--cluster-probe-interval="+o.ProbeInterval.String())
	}
	if o.ControlInterval > 0 {
		args = append(args, "--burst-metrics-interval="+o.ControlInterval.String())
	}
	var env []corev1.EnvVar
	podAnnotations, svcAnnotations := ScrapeAnnotations(), ScrapeAnnotations()
	if o.ServiceMonitor {
		podAnnotations, svcAnnotations = map[string]string{}, nil
	}
	var secret *corev1.Secret
	if a := o.Alicloud; a != nil {
		if a.Endpoint != "" {
			args = append(args, "--ack-endpoint="+a.Endpoint)
		}
		secret = &corev1.Secret{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"}, ObjectMeta: meta(AlicloudSecretName, true),
			Type: corev1.SecretTypeOpaque, Data: map[string][]byte{AlicloudKeyIDKey: []byte(a.AccessKeyID), AlicloudKeySecretKey: []byte(a.AccessKeySecret)}}
		ref := func(key string) *corev1.EnvVarSource {
			return &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: AlicloudSecretName}, Key: key}}
		}
		env = []corev1.EnvVar{{Name: "ALIBABA_CLOUD_ACCESS_KEY_ID", ValueFrom: ref(AlicloudKeyIDKey)}, {Name: "ALIBABA_CLOUD_ACCESS_KEY_SECRET", ValueFrom: ref(AlicloudKeySecretKey)}}
		sum := sha256.Sum256([]byte(a.AccessKeyID + "\x00" + a.AccessKeySecret))
		podAnnotations[AlicloudChecksumAnnotation] = hex.EncodeToString(sum[:])
	}
	if v, ok := GoMemLimit(o.Resources); ok {
		env = append(env, corev1.EnvVar{Name: "GOMEMLIMIT", Value: v})
	}
	args = append(args, o.ExtraArgs...)
	falseV, trueV := false, true
	uid := int64(65532)
	probe := func(path string) *corev1.Probe {
		return &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: path, Port: intstr.FromString("probes")}},
			PeriodSeconds: 10}
	}
	dep := &appsv1.Deployment{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
		ObjectMeta: meta(Name, true),
		Spec: appsv1.DeploymentSpec{
			Replicas: &o.Replicas,
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app.kubernetes.io/name": Name}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels, Annotations: podAnnotations},
				Spec: corev1.PodSpec{
					ServiceAccountName: Name,
					SecurityContext:    &corev1.PodSecurityContext{RunAsNonRoot: &trueV, RunAsUser: &uid},
					Containers: []corev1.Container{{
						Name: "runtime", Image: o.Image, Args: args, Env: env,
						Ports:         []corev1.ContainerPort{{Name: "metrics", ContainerPort: 8080}, {Name: "probes", ContainerPort: 8081}},
						LivenessProbe: probe("/healthz"), ReadinessProbe: probe("/readyz"),
						Resources: *o.Resources,
						SecurityContext: &corev1.SecurityContext{AllowPrivilegeEscalation: &falseV, ReadOnlyRootFilesystem: &trueV,
							Capabilities: &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}}},
					}},
				},
			},
		},
	}
	leaderRules := []rbacv1.PolicyRule{
		{APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"}, Verbs: []string{"get", "list", "watch", "create", "update", "patch", "delete"}},
		{APIGroups: []string{"events.k8s.io"}, Resources: []string{"events"}, Verbs: []string{"create", "patch"}},
	}
	sa := &corev1.ServiceAccount{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ServiceAccount"}, ObjectMeta: meta(Name, true)}
	if len(o.ServiceAccountAnnotations) > 0 {
		sa.Annotations = maps.Clone(o.ServiceAccountAnnotations)
	}
	subject := []rbacv1.Subject{{Kind: "ServiceAccount", Name: Name, Namespace: o.Namespace}}
	out := []any{
		&corev1.Namespace{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"}, ObjectMeta: meta(o.Namespace, false)},
		sa,
		role,
		&rbacv1.ClusterRoleBinding{TypeMeta: metav1.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "ClusterRoleBinding"}, ObjectMeta: meta(Name, false),
			RoleRef: rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: Name}, Subjects: subject},
		&rbacv1.Role{TypeMeta: metav1.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "Role"}, ObjectMeta: meta(Name+"-leader-election", true), Rules: leaderRules},
		&rbacv1.RoleBinding{TypeMeta: metav1.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "RoleBinding"}, ObjectMeta: meta(Name+"-leader-election", true),
			RoleRef: rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "Role", Name: Name + "-leader-election"}, Subjects: subject},
	}
	if secret != nil {
		out = append(out, secret) // before the Deployment that reads it
	}
	return append(out,
		dep,
		&corev1.Service{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Service"}, ObjectMeta: withAnnotations(meta(Name+"-metrics", true), svcAnnotations),
			Spec: corev1.ServiceSpec{Selector: map[string]string{"app.kubernetes.io/name": Name},
				Ports: []corev1.ServicePort{{Name: "metrics", Port: 8080, TargetPort: intstr.FromString("metrics")}}}},
	), nil
}

// GoMemLimit is the GOMEMLIMIT the runtime container gets for its resources,
// in bytes: its memory limit less what the Go limit does not see, so that
// the Go garbage collector works harder before the kernel kills the
// container. What it does not see is chiefly the binary's mapped pages:
// 29 MiB of hca-runtime's resident set right after it starts and 35-37 MiB
// under make bench-load's load (RssFile), more than the 10 % of a 300 MiB
// limit this left before. So the reserve is 10 % of the limit but at least
// binaryReserve, and never more than a quarter of a small limit. A
// resourceFieldRef to limits.memory would give the whole limit and leave
// nothing for that, hence a computed value. No memory limit: no GOMEMLIMIT
// (ok false).
func GoMemLimit(r *corev1.ResourceRequirements) (string, bool) {
	if r == nil {
		return "", false
	}
	l, ok := r.Limits[corev1.ResourceMemory]
	if !ok || l.Value() <= 0 {
		return "", false
	}
	v := l.Value()
	return strconv.FormatInt(v-max(v/10, min(binaryReserve, v/4)), 10), true
}

// binaryReserve is the least part of a memory limit GoMemLimit leaves
// outside GOMEMLIMIT: the runtime binary's resident pages (35-37 MiB
// measured) and a margin.
const binaryReserve = 40 << 20
