package provider

import (
	"errors"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
)

func TestSplitNamespacedID(t *testing.T) {
	const (
		label     = "is not a DNS label (1 to 63 lowercase letters, digits and '-', starting and ending with a letter or digit)"
		subdomain = "is not a DNS subdomain (1 to 253 lowercase letters, digits, '-' and '.', starting and ending with a letter or digit)"
	)
	long := strings.Repeat("a", 64)
	tests := []struct {
		id, ns, name, err string
	}{
		{id: "shop/web", ns: "shop", name: "web"},
		{id: "shop/web.v2", ns: "shop", name: "web.v2"},
		{id: "shop-eu/web-latency", ns: "shop-eu", name: "web-latency"},
		{id: "web", err: "it has no '/'"},
		{id: "", err: "it has no '/'"},
		{id: "a/b/c", err: "it has more than one '/'"},
		{id: "shop/web/", err: "it has more than one '/'"},
		{id: "/web", err: `the namespace "" ` + label},
		{id: "Shop/web", err: `the namespace "Shop" ` + label},
		{id: "sh.op/web", err: `the namespace "sh.op" ` + label},
		{id: "-shop/web", err: `the namespace "-shop" ` + label},
		{id: long + "/web", err: `the namespace "` + long + `" ` + label},
		{id: "shop/", err: `the name "" ` + subdomain},
		{id: "shop/Web", err: `the name "Web" ` + subdomain},
		{id: "shop/web_latency", err: `the name "web_latency" ` + subdomain},
		{id: "shop/web.", err: `the name "web." ` + subdomain},
		{id: "shop/" + strings.Repeat("a.", 127) + "a", err: `the name "` + strings.Repeat("a.", 127) + `a" ` + subdomain},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			ns, name, err := splitNamespacedID(tt.id)
			gotErr := ""
			if err != nil {
				gotErr = err.Error()
			}
			if gotErr != tt.err || ns != tt.ns || name != tt.name {
				t.Errorf("got (%q, %q, %q), want (%q, %q, %q)", ns, name, gotErr, tt.ns, tt.name, tt.err)
			}
		})
	}
}

func TestImportIDDetail(t *testing.T) {
	problem := errors.New("it has no '/'")
	tests := []struct {
		name, got, want string
	}{
		{"burst policy", burstPolicies.importIDDetail("web", problem),
			"The import ID \"web\" is not <namespace>/<name>: it has no '/'. Use the BurstPolicy's namespace and name separated by one '/', such as `terraform import hca_burst_policy.web shop/web`."},
		{"slo", slos.importIDDetail("web", problem),
			"The import ID \"web\" is not <namespace>/<name>: it has no '/'. Use the ServiceLevelObjective's namespace and name separated by one '/', such as `terraform import hca_slo.web_latency shop/web-latency`."},
		{"federated autoscaler", federatedAutoscalers.importIDDetail("web", problem),
			"The import ID \"web\" is not <namespace>/<name>: it has no '/'. Use the FederatedAutoscaler's namespace and name separated by one '/', such as `terraform import hca_federated_autoscaler.web shop/web`."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.got != tt.want {
				t.Errorf("got  %q\nwant %q", tt.got, tt.want)
			}
		})
	}
}

func TestFederatedAutoscalerDeleteHint(t *testing.T) {
	const always = " The runtime deletes the member HPAs before it lets the object go: make the members reachable, or raise timeouts.delete."
	tests := []struct {
		name  string
		conds []metav1.Condition
		want  string
	}{
		{"no conditions", nil, always},
		{"degraded", []metav1.Condition{{Type: hcav1.ConditionDegraded, Status: metav1.ConditionTrue, Message: "member eu-1: connection refused"}},
			" The runtime reports: member eu-1: connection refused." + always},
		{"not degraded", []metav1.Condition{{Type: hcav1.ConditionDegraded, Status: metav1.ConditionFalse, Message: "all members reachable"}}, always},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fa := &hcav1.FederatedAutoscaler{Status: hcav1.FederatedAutoscalerStatus{Conditions: tt.conds}}
			if got := federatedAutoscalers.deleteHint(fa); got != tt.want {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}
