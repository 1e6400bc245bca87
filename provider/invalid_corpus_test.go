package provider

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/ephemeral"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	fwresource "github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/hca-project/terraform-provider-hca/internal/lab/emulator"
	"github.com/hca-project/terraform-provider-hca/internal/lab/labtest"
)

// The invalid-input corpus: every case is one invalid configuration of one
// resource, data source, ephemeral resource or of the provider, which the real
// Terraform CLI must refuse at plan time (PlanOnly) with the expected
// diagnostic: its summary, the block it is in, and the attribute path in its
// detail. A case starts from its type's valid base configuration
// (corpusBases; TestAccInvalidCorpus_basesPlan checks that each base plans
// against the lab) and changes it (set): so each case fails for its own reason
// only. Cases run as parallel acceptance tests; they need no lab (Terraform
// stops at validation, before the provider connects anywhere).

// corpusCase is one invalid configuration.
type corpusCase struct {
	block string // "resource", "data", "ephemeral" or "provider"
	typ   string // type name, such as hca_burst_policy ("hca" for the provider)
	name  string
	// set holds pairs of attribute name and HCL expression replacing (or
	// adding) that attribute in the base; an empty expression removes it. A
	// name starting with "block " is a nested block (the provider's aws,
	// alicloud and endpoints).
	set     []string
	summary string // the diagnostic's summary
	path    string // the attribute as the diagnostic's detail names it
	detail  string // a fragment of the detail after the path ("" for none)
	// gap, when set, says why Terraform still accepts the case, which the
	// provider cannot see: the test then checks that the plan succeeds, so
	// that it fails (and the case moves to the refused ones) once the gap
	// closes. Gaps do not count towards the corpus.
	gap string
}

// corpusAttr is one attribute line of a base configuration.
type corpusAttr struct{ name, expr string }

// corpusFixtures are the files the bases refer to.
type corpusFixtures struct {
	kubeconfigPath    string // a kubeconfig whose current-context exists (the provider's)
	clusterKubeconfig string // content of a kubeconfig, for hca_cluster.kubeconfig
	modelFile         string // a MOHA model file
}

// corpusBases gives each type's valid configuration.
func corpusBases(f corpusFixtures) map[string][]corpusAttr {
	return map[string][]corpusAttr{
		"hca": {{"kubeconfig_path", fmt.Sprintf("%q", f.kubeconfigPath)}},
		"hca_cluster": {
			{"name", `"corpus-burst"`}, {"role", `"burst"`}, {"provider_type", `"private"`},
			{"kubeconfig", hclString(f.clusterKubeconfig)},
		},
		"hca_runtime": {{"namespace", `"hca-corpus"`}},
		"hca_burst_policy": {
			{"name", `"web"`}, {"namespace", `"shop"`}, {"target", `{ deployment_name = "web" }`},
			{"primary_cluster", `"private"`}, {"burst_targets", `[{ cluster = "eks" }]`}, {"max_replicas", `10`},
		},
		"hca_federated_autoscaler": {
			{"name", `"web"`}, {"namespace", `"shop"`}, {"target", `{ name = "web" }`},
			{"members", `[{ cluster = "private" }, { cluster = "eks" }]`}, {"max_replicas", `10`},
		},
		"hca_multi_objective_strategy": {
			{"name", `"web"`}, {"namespace", `"shop"`}, {"target", `{ name = "web" }`},
			{"model_file", fmt.Sprintf("%q", f.modelFile)}, {"desired", `{ response_time_ms = 100 }`},
			{"ranges", `{ min_cpu = "300m", max_cpu = "500m", min_memory = "400Mi", max_memory = "600Mi", max_replicas = 10 }`},
		},
		"hca_eks_cluster": {
			{"name", `"corpus"`}, {"role_arn", `"arn:aws:iam::000000000000:role/eks-cluster"`},
			{"subnet_ids", `["subnet-0a1b2c3d4e5f60001", "subnet-0a1b2c3d4e5f60002"]`},
			{"node_groups", `[{ name = "burst", node_role_arn = "arn:aws:iam::000000000000:role/eks-node", instance_types = ["m5.large"], min_size = 0, max_size = 3 }]`},
		},
		"hca_ack_cluster": {
			{"name", `"corpus"`}, {"region", `"cn-hangzhou"`}, {"vswitch_ids", `["vsw-bp1a2b3c4d5e6f7g8h9i0"]`},
			{"worker_instance_types", `["ecs.g6.large"]`}, {"worker_count", `1`},
		},
		"hca_slo": {
			{"name", `"web-latency"`}, {"namespace", `"shop"`}, {"target", `{ name = "web" }`},
			{"slo", `{ type = "latency", latency = { percentile = "99", threshold = "250ms" } }`},
			{"elasticity_strategy", `{ kind = "Horizontal", horizontal = { max_replicas = 10 } }`},
		},
		"hca_cluster@data":             {{"name", `"eks"`}},
		"hca_burst_policy_status@data": {{"namespace", `"shop"`}, {"name", `"web"`}},
		"hca_control_cluster@data":     {},
		"hca_eks_token@ephemeral":      {{"cluster_name", `"burst"`}, {"region", `"us-east-1"`}},
	}
}

// corpusKey names a type's base: data sources and ephemeral resources share
// type names with resources.
func corpusKey(block, typ string) string {
	switch block {
	case "data", "ephemeral":
		return typ + "@" + block
	}
	return typ
}

// renderAttrs writes a base with set applied.
func renderAttrs(b *strings.Builder, base []corpusAttr, set []string, indent string) {
	attrs := slices.Clone(base)
	for i := 0; i+1 < len(set); i += 2 {
		name, expr := set[i], set[i+1]
		j := slices.IndexFunc(attrs, func(a corpusAttr) bool { return a.name == name })
		switch {
		case j >= 0 && expr == "":
			attrs = slices.Delete(attrs, j, j+1)
		case j >= 0:
			attrs[j].expr = expr
		case expr != "":
			attrs = append(attrs, corpusAttr{name, expr})
		}
	}
	for _, a := range attrs {
		if blk, ok := strings.CutPrefix(a.name, "block "); ok {
			fmt.Fprintf(b, "%s%s %s\n", indent, blk, a.expr)
			continue
		}
		fmt.Fprintf(b, "%s%s = %s\n", indent, a.name, a.expr)
	}
}

// config renders the case's whole configuration.
func (c corpusCase) config(bases map[string][]corpusAttr) string {
	var b strings.Builder
	b.WriteString("provider \"hca\" {\n")
	if c.block == "provider" {
		renderAttrs(&b, bases["hca"], c.set, "  ")
		b.WriteString("}\n\ndata \"hca_control_cluster\" \"this\" {}\n")
		return b.String()
	}
	renderAttrs(&b, bases["hca"], nil, "  ")
	b.WriteString("}\n\n")
	fmt.Fprintf(&b, "%s %q \"this\" {\n", c.block, c.typ)
	renderAttrs(&b, bases[corpusKey(c.block, c.typ)], c.set, "  ")
	b.WriteString("}\n")
	return b.String()
}

// where is the part of Terraform's diagnostic naming the block.
func (c corpusCase) where() string {
	if c.block == "provider" {
		return `in provider "hca"`
	}
	return fmt.Sprintf("in %s %q \"this\"", c.block, c.typ)
}

func (c corpusCase) testName() string {
	return c.block + "/" + c.typ + "/" + c.name
}

// TestAccInvalidCorpus runs every case of the corpus with the real Terraform
// CLI, in parallel: the plan must fail with the case's summary, in its block,
// naming its attribute.
func TestAccInvalidCorpus(t *testing.T) {
	prepareAccEnv(t) // here: the parallel cases may not set the environment themselves
	f := newCorpusFixtures(t)
	bases := corpusBases(f)
	cases := invalidCorpus(f)
	seen := map[string]bool{}
	for _, c := range cases {
		if seen[c.testName()] {
			t.Fatalf("two cases are named %s", c.testName())
		}
		seen[c.testName()] = true
		if _, ok := bases[corpusKey(c.block, c.typ)]; !ok && c.block != "provider" {
			t.Fatalf("%s: no base configuration for %s %s", c.testName(), c.block, c.typ)
		}
	}
	for _, c := range cases {
		t.Run(c.testName(), func(t *testing.T) {
			frags := []string{c.where(), c.path}
			if c.detail != "" {
				frags = append(frags, c.detail)
			}
			step := resource.TestStep{Config: c.config(bases), PlanOnly: true, ExpectError: errorRe(c.summary, frags...)}
			if c.gap != "" {
				step.ExpectError, step.ExpectNonEmptyPlan = nil, true
			}
			resource.ParallelTest(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
				Steps:                    []resource.TestStep{step},
			})
		})
	}
}

// TestInvalidCorpusCoverage checks that the corpus has at least 200 cases and
// reaches every resource, data source and ephemeral resource of the provider,
// and the provider's own configuration.
func TestInvalidCorpusCoverage(t *testing.T) {
	f := corpusFixtures{kubeconfigPath: "k", clusterKubeconfig: "c", modelFile: "m"}
	cases := invalidCorpus(f)
	cases = slices.DeleteFunc(cases, func(c corpusCase) bool { return c.gap != "" })
	if len(cases) < 200 {
		t.Errorf("the corpus has %d cases, want at least 200", len(cases))
	}
	count := map[string]int{}
	for _, c := range cases {
		count[corpusKey(c.block, c.typ)]++
		if strings.TrimSpace(c.path) == "" || c.summary == "" {
			t.Errorf("%s: every case names its summary and the attribute the diagnostic must name", c.testName())
		}
	}
	for _, k := range append([]string{"hca"}, providerTypeKeys()...) {
		if count[k] == 0 {
			t.Errorf("no case for %s", k)
		}
	}
	t.Logf("%d cases: %v", len(cases), count)
}

// providerTypeKeys names every resource, data source and ephemeral resource
// the provider serves, as corpusKey does.
func providerTypeKeys() []string {
	ctx := context.Background()
	p := New("test")()
	var keys []string
	for _, n := range p.Resources(ctx) {
		var m fwresource.MetadataResponse
		n().Metadata(ctx, fwresource.MetadataRequest{ProviderTypeName: "hca"}, &m)
		keys = append(keys, corpusKey("resource", m.TypeName))
	}
	for _, n := range p.DataSources(ctx) {
		var m datasource.MetadataResponse
		n().Metadata(ctx, datasource.MetadataRequest{ProviderTypeName: "hca"}, &m)
		keys = append(keys, corpusKey("data", m.TypeName))
	}
	if pe, ok := p.(provider.ProviderWithEphemeralResources); ok {
		for _, n := range pe.EphemeralResources(ctx) {
			var m ephemeral.MetadataResponse
			n().Metadata(ctx, ephemeral.MetadataRequest{ProviderTypeName: "hca"}, &m)
			keys = append(keys, corpusKey("ephemeral", m.TypeName))
		}
	}
	return keys
}

func newCorpusFixtures(t *testing.T) corpusFixtures {
	t.Helper()
	pki := newTestPKI(t)
	clusterKC, err := os.ReadFile(writeKubeconfig(t, pki, "lab"))
	if err != nil {
		t.Fatal(err)
	}
	return corpusFixtures{
		kubeconfigPath:    writeKubeconfig(t, pki, "lab"),
		clusterKubeconfig: string(clusterKC),
		modelFile:         writeTestModel(t, 1),
	}
}

// nestedKeyGap: an unknown key in the object given to a nested attribute
// (`target = { deployment = "web" }`) is dropped by Terraform's type
// conversion before the provider sees the configuration
// (hashicorp/terraform#33570, terraform-plugin-framework#1210).
const nestedKeyGap = "Terraform drops unknown keys of nested attribute objects before the provider sees them (hashicorp/terraform#33570)"

func withGap(c corpusCase, gap string) corpusCase { c.gap = gap; return c }

// invalidCorpus is the corpus. Expected texts are the validators' own
// (framework validators: "Attribute <path> ..."; the provider's: "Invalid
// <path>" with the path again in the detail; Terraform's for type and
// required-argument errors).
func invalidCorpus(f corpusFixtures) []corpusCase {
	long := func(n int) string { return strings.Repeat("a", n) }
	badKC := filepath.Join(filepath.Dir(f.kubeconfigPath), "no-such-kubeconfig")
	otherCtxKC := "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster: {server: https://127.0.0.1:6443}\ncontexts:\n- name: a\n  context: {cluster: c, user: u}\nusers:\n- name: u\n  user: {token: t}\ncurrent-context: missing\n"
	noCtxKC := "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster: {server: https://127.0.0.1:6443}\ncontexts:\n- name: a\n  context: {cluster: c, user: u}\nusers:\n- name: u\n  user: {token: t}\n"
	r := func(typ, name, summary, path, detail string, set ...string) corpusCase {
		return corpusCase{block: "resource", typ: typ, name: name, set: set, summary: summary, path: path, detail: detail}
	}
	d := func(typ, name, summary, path, detail string, set ...string) corpusCase {
		return corpusCase{block: "data", typ: typ, name: name, set: set, summary: summary, path: path, detail: detail}
	}
	e := func(typ, name, summary, path, detail string, set ...string) corpusCase {
		return corpusCase{block: "ephemeral", typ: typ, name: name, set: set, summary: summary, path: path, detail: detail}
	}
	p := func(name, summary, path, detail string, set ...string) corpusCase {
		return corpusCase{block: "provider", typ: "hca", name: name, set: set, summary: summary, path: path, detail: detail}
	}
	const (
		value  = "Invalid Attribute Value"
		match  = "Invalid Attribute Value Match"
		length = "Invalid Attribute Value Length"
		combo  = "Invalid Attribute Combination"
		// Terraform's own diagnostics.
		required    = "Missing required argument"
		unsupported = "Unsupported argument"
		wrongType   = "Incorrect attribute value type"
	)
	bp, fa, mo, slo := "hca_burst_policy", "hca_federated_autoscaler", "hca_multi_objective_strategy", "hca_slo"
	cl, rt, eks, ack := "hca_cluster", "hca_runtime", "hca_eks_cluster", "hca_ack_cluster"
	mol := func(rest string) string { // moha ranges with one field changed
		return `{ min_cpu = "300m", max_cpu = "500m", min_memory = "400Mi", max_memory = "600Mi", max_replicas = 10` + rest + ` }`
	}
	sloMO := func(fields string) string { // an hca_slo elasticity_strategy of kind MultiObjective, fields added or overriding
		if !strings.Contains(fields, "ranges =") {
			fields = `, ranges = ` + mol("") + fields
		}
		return `{ kind = "MultiObjective", multi_objective = { model = { config_map_name = "web-model" }` + fields + ` } }`
	}
	ng := func(fields string) string { // one EKS node group with fields added or overriding
		return `[{ name = "burst", node_role_arn = "arn:aws:iam::000000000000:role/eks-node", instance_types = ["m5.large"], min_size = 0, max_size = 3` + fields + ` }]`
	}
	clNG := func(fields string) string { // one hca_cluster node group
		return `[{ name = "burst", eks = { cluster_name = "burst-1", region = "us-east-1", nodegroup_name = "burst" }, allocatable = { cpu = "3920m", memory = "15Gi" }, price_per_hour = "0.2", max_nodes = 5` + fields + ` }]`
	}
	fiftyOneTags := func() string {
		var b strings.Builder
		b.WriteString("{")
		for i := range 51 {
			fmt.Fprintf(&b, " t%02d = \"v\",", i)
		}
		b.WriteString(" }")
		return b.String()
	}()
	return []corpusCase{
		// ---- the provider's configuration
		p("kubeconfig_path missing file", "Invalid kubeconfig_path", "kubeconfig_path", "", "kubeconfig_path", fmt.Sprintf("%q", badKC)),
		p("kubeconfig_context not in file", "Invalid kubeconfig_context", "kubeconfig_context", "", "kubeconfig_context", `"nope"`),
		p("kubeconfig_path and host", "Conflicting connection settings", "kubeconfig_path and host", "", "host", `"https://127.0.0.1:6443"`),
		p("host not a URL", "Invalid host", "host", "", "kubeconfig_path", "", "host", `"127.0.0.1:6443"`, "token", `"t"`),
		p("host without credentials", "Missing credentials", "host", "", "kubeconfig_path", "", "host", `"https://127.0.0.1:6443"`),
		p("token with white space", "Invalid token", "token", "", "kubeconfig_path", "", "host", `"https://127.0.0.1:6443"`, "token", `"a b"`),
		p("client_certificate without key", "Missing client_key", "client_key", "", "kubeconfig_path", "", "host", `"https://127.0.0.1:6443"`, "client_certificate", `"x"`),
		p("cluster_ca_certificate not PEM", "Invalid cluster_ca_certificate", "cluster_ca_certificate", "", "kubeconfig_path", "", "host", `"https://127.0.0.1:6443"`, "token", `"t"`, "cluster_ca_certificate", `"not a pem"`),
		p("aws region", match, "Attribute aws.region", `must be an AWS region such as "us-east-1", got: moon-1`, "block aws", `{ region = "moon-1" }`),
		p("aws assume_role arn", "Invalid aws.assume_role.role_arn", "aws.assume_role.role_arn", "", "block aws", `{
    region = "us-east-1"
    assume_role { role_arn = "role/x" }
  }`),
		p("aws web identity duration", "Invalid aws.assume_role_with_web_identity.duration", "aws.assume_role_with_web_identity.duration", "", "block aws", `{
    region = "us-east-1"
    assume_role_with_web_identity {
      role_arn = "arn:aws:iam::000000000000:role/x"
      web_identity_token = "t"
      duration = "10s"
    }
  }`),
		p("endpoints eks not a URL", "Invalid endpoints.eks", "endpoints.eks", "", "block endpoints", `{ eks = "localhost:1" }`),
		p("alicloud access key without secret", "Missing alicloud.secret_key", "alicloud.secret_key", "", "block alicloud", `{
    region = "cn-hangzhou"
    access_key = "LTAI"
  }`),
		p("alicloud region", match, "Attribute alicloud.region", "got: Hangzhou", "block alicloud", `{ region = "Hangzhou" }`),
		p("unknown attribute", unsupported, `"kube_config"`, "", "kube_config", `"x"`),

		// ---- hca_cluster
		r(cl, "name missing", required, `"name"`, "is required", "name", ""),
		r(cl, "name upper case", match, "Attribute name", "DNS subdomain", "name", `"Burst"`),
		r(cl, "name too long", length, "Attribute name", "", "name", fmt.Sprintf("%q", long(242))),
		r(cl, "role", match, "Attribute role", `got: "spare"`, "role", `"spare"`),
		r(cl, "role missing", required, `"role"`, "", "role", ""),
		r(cl, "provider_type", match, "Attribute provider_type", `got: "gke"`, "provider_type", `"gke"`),
		r(cl, "eks without eks_cluster_name", "Missing eks_cluster_name", "eks_cluster_name", "", "provider_type", `"eks"`, "kubeconfig", "", "region", `"us-east-1"`),
		r(cl, "eks without region", "Missing region", "region", "", "provider_type", `"eks"`, "kubeconfig", "", "eks_cluster_name", `"burst"`),
		r(cl, "eks_cluster_name with private", "Invalid eks_cluster_name", "eks_cluster_name", "", "eks_cluster_name", `"burst"`),
		r(cl, "eks_cluster_name bad", match, "Attribute eks_cluster_name", "", "provider_type", `"eks"`, "kubeconfig", "", "region", `"us-east-1"`, "eks_cluster_name", `"-burst"`),
		r(cl, "role_arn with private", "Invalid role_arn", "role_arn", "", "role_arn", `"arn:aws:iam::000000000000:role/x"`),
		r(cl, "role_arn malformed", match, "Attribute role_arn", "", "provider_type", `"eks"`, "kubeconfig", "", "region", `"us-east-1"`, "eks_cluster_name", `"burst"`, "role_arn", `"role/x"`),
		r(cl, "kubeconfig and host", combo, `Attribute "host" cannot be specified when "kubeconfig" is specified`, "", "host", `"https://127.0.0.1:6443"`, "token", `"t"`),
		r(cl, "kubeconfig not yaml", "Invalid kubeconfig", "kubeconfig", "", "kubeconfig", `"{{{"`),
		r(cl, "kubeconfig current-context missing", "Invalid kubeconfig", "kubeconfig", "missing", "kubeconfig", hclString(otherCtxKC)),
		r(cl, "kubeconfig no current-context", "Invalid kubeconfig", "kubeconfig", "current-context", "kubeconfig", hclString(noCtxKC)),
		r(cl, "no credentials", "Missing cluster connection", "set kubeconfig", "", "kubeconfig", ""),
		r(cl, "host without token", "Missing cluster credentials", "host is set without credentials", "set token", "kubeconfig", "", "host", `"https://127.0.0.1:6443"`),
		r(cl, "host not a URL", "Invalid host", "host must be an absolute", "", "kubeconfig", "", "host", `"127.0.0.1"`, "token", `"t"`),
		r(cl, "token and client certificate", combo, `Attribute "client_certificate" cannot be specified when "token" is specified`, "", "kubeconfig", "", "host", `"https://127.0.0.1:6443"`, "token", `"t"`, "client_certificate", `"c"`, "client_key", `"k"`),
		r(cl, "priority negative", value, "Attribute priority", "", "priority", `-1`),
		r(cl, "priority too large", value, "Attribute priority", "", "priority", `1000001`),
		r(cl, "priority fractional", "Invalid priority", "priority", "whole number", "priority", `1.5`),
		r(cl, "max_pods zero", value, "Attribute max_pods", "", "max_pods", `0`),
		r(cl, "max_cpu zero", "Invalid max_cpu", "max_cpu", "", "max_cpu", `"0"`),
		r(cl, "max_cpu not a quantity", "Invalid max_cpu", "max_cpu", "", "max_cpu", `"lots"`),
		r(cl, "price without gib price", combo, `Attribute "price_per_gib_hour" must be specified when "price_per_vcpu_hour" is specified`, "", "price_per_vcpu_hour", `"0.04"`),
		r(cl, "price negative", match, "Attribute price_per_vcpu_hour", "", "price_per_vcpu_hour", `"-1"`, "price_per_gib_hour", `"0.005"`),
		r(cl, "price ten decimals", match, "Attribute price_per_gib_hour", "", "price_per_vcpu_hour", `"0.04"`, "price_per_gib_hour", `"0.0000000001"`),
		r(cl, "credentials_namespace", match, "Attribute credentials_namespace", "", "credentials_namespace", `"Hca_System"`),
		r(cl, "node_groups neither eks nor ack", "Invalid node_groups", "node_groups[0] sets neither eks nor ack", "", "node_groups", `[{ name = "burst", allocatable = { cpu = "1", memory = "1Gi" }, price_per_hour = "0.2", max_nodes = 5 }]`),
		r(cl, "node_groups min above max", "Invalid node_groups", "node_groups[0].min_nodes (6) is greater than node_groups[0].max_nodes (5)", "", "node_groups", clNG(", min_nodes = 6")),
		r(cl, "node_groups max_nodes zero", value, "Attribute node_groups[0].max_nodes", "", "node_groups", clNG(", max_nodes = 0")),
		r(cl, "node_groups name", match, "Attribute node_groups[0].name", "", "node_groups", `[{ name = "Burst", eks = { cluster_name = "burst-1", region = "us-east-1", nodegroup_name = "burst" }, allocatable = { cpu = "3920m", memory = "15Gi" }, price_per_hour = "0.2", max_nodes = 5 }]`),
		r(cl, "node_groups cpu zero", "Invalid node_groups[0].allocatable.cpu", "node_groups[0].allocatable.cpu", "", "node_groups", `[{ name = "burst", eks = { cluster_name = "burst-1", region = "us-east-1", nodegroup_name = "burst" }, allocatable = { cpu = "0", memory = "15Gi" }, price_per_hour = "0.2", max_nodes = 5 }]`),
		r(cl, "node_groups price", match, "Attribute node_groups[0].price_per_hour", "", "node_groups", `[{ name = "burst", eks = { cluster_name = "burst-1", region = "us-east-1", nodegroup_name = "burst" }, allocatable = { cpu = "1", memory = "15Gi" }, price_per_hour = "$1", max_nodes = 5 }]`),
		r(cl, "node_groups capacity_type", match, "Attribute node_groups[0].capacity_type", "", "node_groups", clNG(`, capacity_type = "SPOT"`)),
		r(cl, "node_groups label key", "Invalid node_groups[0].labels", "node_groups[0].labels", "not a Kubernetes label key", "node_groups", clNG(`, labels = { "a b" = "x" }`)),
		r(cl, "node_groups label value", "Invalid node_groups[0].labels", "node_groups[0].labels", "not a Kubernetes label value", "node_groups", clNG(`, labels = { a = "x y" }`)),
		r(cl, "node_groups taint effect", match, "Attribute node_groups[0].taints[0].effect", "", "node_groups", clNG(`, taints = [{ key = "k", effect = "NO_SCHEDULE" }]`)),
		r(cl, "node_groups duplicate names", "Invalid node_groups", "node_groups", "", "node_groups", `[{ name = "a", eks = { cluster_name = "c", region = "us-east-1", nodegroup_name = "a" }, allocatable = { cpu = "1", memory = "1Gi" }, price_per_hour = "0.2", max_nodes = 5 }, { name = "a", eks = { cluster_name = "c", region = "us-east-1", nodegroup_name = "b" }, allocatable = { cpu = "1", memory = "1Gi" }, price_per_hour = "0.2", max_nodes = 5 }]`),
		r(cl, "unknown attribute", unsupported, `"provider_name"`, "", "provider_name", `"x"`),
		r(cl, "max_pods as string", wrongType, `"max_pods"`, "", "max_pods", `"many"`),

		// ---- hca_runtime
		r(rt, "namespace", match, "Attribute namespace", "", "namespace", `"HCA"`),
		r(rt, "namespace too long", length, "Attribute namespace", "", "namespace", fmt.Sprintf("%q", long(64))),
		r(rt, "replicas zero", value, "Attribute replicas", "", "replicas", `0`),
		r(rt, "replicas eleven", value, "Attribute replicas", "", "replicas", `11`),
		r(rt, "replicas fractional", "Invalid replicas", "replicas", "whole number", "replicas", `1.5`),
		r(rt, "log_level", match, "Attribute log_level", `got: "trace"`, "log_level", `"trace"`),
		r(rt, "prometheus_url", "Invalid prometheus_url", "prometheus_url must be an absolute", "", "prometheus_url", `"prometheus:9090"`),
		r(rt, "consul_address", "Invalid consul_address", "consul_address must be host:port", "", "consul_address", `"http://consul:8500"`),
		r(rt, "image with space", match, "Attribute image", "", "image", `"hca runtime"`),
		r(rt, "image empty", length, "Attribute image", "", "image", `""`),
		r(rt, "control_interval too short", "Invalid control_interval", "control_interval", "", "control_interval", `"500ms"`),
		r(rt, "cluster_probe_interval too long", "Invalid cluster_probe_interval", "cluster_probe_interval", "", "cluster_probe_interval", `"2h"`),
		r(rt, "memory limit below request", "Invalid resources", "resources.memory_request", "must be at most resources.memory_limit", "resources", `{ memory_request = "512Mi", memory_limit = "256Mi" }`),
		r(rt, "cpu limit below request", "Invalid resources", "resources.cpu_request", "must be at most resources.cpu_limit", "resources", `{ cpu_request = "1", cpu_limit = "500m" }`),
		r(rt, "cpu_request zero", "Invalid resources.cpu_request", "resources.cpu_request", "", "resources", `{ cpu_request = "0" }`),
		r(rt, "memory_limit not a quantity", "Invalid resources.memory_limit", "resources.memory_limit", "", "resources", `{ memory_limit = "lots" }`),
		r(rt, "service account annotation key", match, `Attribute service_account_annotations["a b"]`, "must be an annotation key", "service_account_annotations", `{ "a b" = "x" }`),
		r(rt, "aws eks_endpoint", "Invalid aws.eks_endpoint", "aws.eks_endpoint must be an absolute", "", "aws", `{ eks_endpoint = "localhost:1" }`),
		r(rt, "aws region", match, "Attribute aws.region", "", "aws", `{ region = "Europe" }`),
		r(rt, "alicloud empty key", length, "Attribute alicloud.access_key_id", "", "alicloud", `{ access_key_id = "", access_key_secret = "s" }`),
		r(rt, "alicloud secret missing", "Incorrect attribute value type", `"alicloud"`, `attribute "access_key_secret" is required`, "alicloud", `{ access_key_id = "LTAI" }`),
		r(rt, "alicloud ack_endpoint", "Invalid alicloud.ack_endpoint", "alicloud.ack_endpoint must be an absolute", "", "alicloud", `{ access_key_id = "LTAI", access_key_secret = "s", ack_endpoint = "cs.example" }`),
		r(rt, "timeouts create", "Invalid timeouts.create", "timeouts.create must be a Go duration", `got "ten minutes"`, "timeouts", `{ create = "ten minutes" }`),
		withGap(r(rt, "timeouts unknown key", unsupported, `"read"`, "", "timeouts", `{ read = "1m" }`), nestedKeyGap),
		r(rt, "timeouts negative", "Invalid timeouts.delete", "timeouts.delete must be a Go duration greater than 0s", `got "-5m"`, "timeouts", `{ delete = "-5m" }`),
		withGap(r(bp, "target unknown nested attribute", unsupported, `"deployment"`, "", "target", `{ deployment_name = "web", deployment = "web" }`), nestedKeyGap),
		r(rt, "force_destroy as string", wrongType, `"force_destroy"`, "", "force_destroy", `"maybe"`),

		// ---- hca_burst_policy
		r(bp, "name missing", required, `"name"`, "", "name", ""),
		r(bp, "name upper case", match, "Attribute name", "", "name", `"Web"`),
		r(bp, "namespace", match, "Attribute namespace", "", "namespace", `"shop_1"`),
		r(bp, "namespace too long", length, "Attribute namespace", "", "namespace", fmt.Sprintf("%q", long(64))),
		r(bp, "target both", "Invalid target", "target", "exactly one of deployment_name or match_labels", "target", `{ deployment_name = "web", match_labels = { a = "b" } }`),
		r(bp, "target neither", "Invalid target", "target", "exactly one", "target", `{}`),
		r(bp, "target deployment_name", match, "Attribute target.deployment_name", "", "target", `{ deployment_name = "Web" }`),
		r(bp, "target label key", "Invalid target.match_labels", "target.match_labels", `"my app"`, "target", `{ match_labels = { "my app" = "web" } }`),
		r(bp, "target label key prefix", "Invalid target.match_labels", "target.match_labels", "not a Kubernetes label key", "target", `{ match_labels = { "-x.io/app" = "web" } }`),
		r(bp, "target label value", "Invalid target.match_labels", "target.match_labels", "not a Kubernetes label value", "target", `{ match_labels = { app = "web!" } }`),
		r(bp, "target label value too long", "Invalid target.match_labels", "target.match_labels", "not a Kubernetes label value", "target", fmt.Sprintf(`{ match_labels = { app = %q } }`, long(64))),
		r(bp, "target no labels", value, "Attribute target.match_labels", "", "target", `{ match_labels = {} }`),
		r(bp, "primary_cluster", match, "Attribute primary_cluster", "", "primary_cluster", `"Private"`),
		r(bp, "burst_targets empty", value, "Attribute burst_targets", "", "burst_targets", `[]`),
		r(bp, "burst_targets primary", "Invalid burst_targets", "burst_targets", `primary_cluster "private"`, "burst_targets", `[{ cluster = "private" }]`),
		r(bp, "burst_targets duplicate", "Invalid burst_targets", "burst_targets", "", "burst_targets", `[{ cluster = "eks" }, { cluster = "eks" }]`),
		r(bp, "burst_targets weight", value, "Attribute burst_targets[0].weight", "", "burst_targets", `[{ cluster = "eks", weight = 1001 }]`),
		r(bp, "burst_targets negative max", value, "Attribute burst_targets[0].max_replicas", "", "burst_targets", `[{ cluster = "eks", max_replicas = -1 }]`),
		r(bp, "burst_targets fractional max", "Invalid burst_targets[0].max_replicas", "burst_targets[0].max_replicas", "whole number", "burst_targets", `[{ cluster = "eks", max_replicas = 2.5 }]`),
		r(bp, "weighted all zero", "Invalid burst_targets", "burst_targets", "weight > 0", "placement", `"weighted"`, "burst_targets", `[{ cluster = "eks", weight = 0 }]`),
		r(bp, "placement", match, "Attribute placement", `got: "random"`, "placement", `"random"`),
		r(bp, "max_replicas zero", value, "Attribute max_replicas", "", "max_replicas", `0`),
		r(bp, "max_replicas fractional", "Invalid max_replicas", "max_replicas", "whole number, got 2.5", "max_replicas", `2.5`),
		r(bp, "max_replicas string", wrongType, `"max_replicas"`, "", "max_replicas", `"ten"`),
		r(bp, "min above max", "Invalid min_replicas", "min_replicas", "must be <= max_replicas", "min_replicas", `11`),
		r(bp, "min zero", value, "Attribute min_replicas", "", "min_replicas", `0`),
		r(bp, "pending_threshold", match, "Attribute pending_threshold", "", "pending_threshold", `"5 seconds"`),
		r(bp, "failover_after spelling", match, "Attribute failover_after", "", "failover_after", `"2 minutes"`),
		r(bp, "failover_after too long", "Invalid failover_after", "failover_after", "must be at most 1h0m0s", "failover_after", `"61m"`),
		r(bp, "metrics empty", value, "Attribute metrics", "", "metrics", `[]`),
		r(bp, "metrics type", match, "Attribute metrics[0].type", "", "metrics", `[{ type = "External" }]`),
		r(bp, "metrics PromQL without promql", "Invalid metrics", "metrics[0]", "requires promql", "metrics", `[{ type = "PromQL" }]`),
		r(bp, "metrics Resource with promql", "Invalid metrics", "metrics[0]", "requires resource", "metrics", `[{ type = "Resource", promql = { query = "up", target_value = "1" } }]`),
		r(bp, "metrics resource name", match, "Attribute metrics[0].resource.name", "", "metrics", `[{ type = "Resource", resource = { name = "gpu", target_average_utilization = 50 } }]`),
		r(bp, "metrics utilization", value, "Attribute metrics[0].resource.target_average_utilization", "", "metrics", `[{ type = "Resource", resource = { name = "cpu", target_average_utilization = 0 } }]`),
		r(bp, "promql unclosed", "Invalid metrics[0].promql.query", "metrics[0].promql.query", "is not valid PromQL", "metrics", `[{ type = "PromQL", promql = { query = "sum(rate(http_requests_total[1m])", target_value = "100" } }]`),
		r(bp, "promql unknown function", "Invalid metrics[0].promql.query", "metrics[0].promql.query", `unknown function with name "ratee"`, "metrics", `[{ type = "PromQL", promql = { query = "ratee(x[1m])", target_value = "100" } }]`),
		r(bp, "promql bad duration", "Invalid metrics[0].promql.query", "metrics[0].promql.query", "is not valid PromQL", "metrics", `[{ type = "PromQL", promql = { query = "rate(x[1q])", target_value = "100" } }]`),
		r(bp, "promql range vector", "Invalid metrics[0].promql.query", "metrics[0].promql.query", "is a range vector", "metrics", `[{ type = "PromQL", promql = { query = "x[5m]", target_value = "100" } }]`),
		r(bp, "promql string", "Invalid metrics[0].promql.query", "metrics[0].promql.query", "gives a string", "metrics", `[{ type = "PromQL", promql = { query = "\"up\"", target_value = "100" } }]`),
		r(bp, "promql empty", length, "Attribute metrics[0].promql.query", "", "metrics", `[{ type = "PromQL", promql = { query = "", target_value = "100" } }]`),
		r(bp, "promql target zero", "Invalid metrics[0].promql.target_value", "metrics[0].promql.target_value", "", "metrics", `[{ type = "PromQL", promql = { query = "up", target_value = "0" } }]`),
		r(bp, "promql target_type", match, "Attribute metrics[0].promql.target_type", "", "metrics", `[{ type = "PromQL", promql = { query = "up", target_value = "1", target_type = "Utilization" } }]`),
		r(bp, "algorithm name", match, "Attribute algorithm.name", "", "algorithm", `{ name = "pid" }`),
		r(bp, "algorithm block mismatch", "Invalid algorithm", "algorithm.frss", "algorithm.name is kubernetes", "algorithm", `{ name = "kubernetes", frss = { shrink_step = 2 } }`),
		r(bp, "algorithm two blocks", "Invalid algorithm", "algorithm", "", "algorithm", `{ frss = { shrink_step = 2 }, panic = { stable_window = "60s" } }`),
		r(bp, "frss tolerance", "Invalid algorithm.frss.tolerance", "algorithm.frss.tolerance", `got "1"`, "algorithm", `{ name = "frss", frss = { tolerance = "1" } }`),
		r(bp, "frss scale_up_rate", value, "Attribute algorithm.frss.scale_up_rate", "", "algorithm", `{ frss = { scale_up_rate = 0 } }`),
		r(bp, "frss shrink_step", value, "Attribute algorithm.frss.shrink_step", "", "algorithm", `{ frss = { shrink_step = 0 } }`),
		r(bp, "frss down_window", match, "Attribute algorithm.frss.down_window", "", "algorithm", `{ frss = { down_window = "9 minutes" } }`),
		r(bp, "kubernetes tolerance", "Invalid algorithm.kubernetes.tolerance", "algorithm.kubernetes.tolerance", "", "algorithm", `{ kubernetes = { tolerance = "-0.1" } }`),
		r(bp, "kubernetes period", "Invalid algorithm.kubernetes.scale_up.policies[0].period", "algorithm.kubernetes.scale_up.policies[0].period", `got "31m"`, "algorithm", `{ kubernetes = { scale_up = { policies = [{ type = "Pods", value = 1, period = "31m" }] } } }`),
		r(bp, "kubernetes policy type", match, "Attribute algorithm.kubernetes.scale_down.policies[0].type", "", "algorithm", `{ kubernetes = { scale_down = { policies = [{ type = "Replicas", value = 1, period = "1m" }] } } }`),
		r(bp, "kubernetes policy value", value, "Attribute algorithm.kubernetes.scale_down.policies[0].value", "", "algorithm", `{ kubernetes = { scale_down = { policies = [{ type = "Pods", value = 0, period = "1m" }] } } }`),
		r(bp, "kubernetes select_policy", match, "Attribute algorithm.kubernetes.scale_up.select_policy", "", "algorithm", `{ kubernetes = { scale_up = { select_policy = "Any" } } }`),
		r(bp, "kubernetes stabilization", "Invalid algorithm.kubernetes.scale_down.stabilization_window", "algorithm.kubernetes.scale_down.stabilization_window", "", "algorithm", `{ kubernetes = { scale_down = { stabilization_window = "2h" } } }`),
		r(bp, "panic windows", "Invalid algorithm", "algorithm.panic.panic_window", "must be shorter than stable_window", "algorithm", `{ name = "panic", panic = { stable_window = "6s" } }`),
		r(bp, "panic threshold", value, "Attribute algorithm.panic.panic_threshold_percent", "", "algorithm", `{ panic = { panic_threshold_percent = 100 } }`),
		r(bp, "panic scale down rate", "Invalid algorithm.panic.max_scale_down_rate", "algorithm.panic.max_scale_down_rate", "", "algorithm", `{ panic = { max_scale_down_rate = "1" } }`),
		r(bp, "panic stable_window", "Invalid algorithm.panic.stable_window", "algorithm.panic.stable_window", "", "algorithm", `{ panic = { stable_window = "2h" } }`),
		r(bp, "adaptive horizon", "Invalid algorithm.adaptive.forecast_horizon", "algorithm.adaptive.forecast_horizon", "", "algorithm", `{ adaptive = { forecast_horizon = "2h" } }`),
		r(bp, "adaptive seasonal", "Invalid algorithm.adaptive.seasonal_period", "algorithm.adaptive.seasonal_period", "", "algorithm", `{ adaptive = { seasonal_period = "200h" } }`),
		r(bp, "adaptive headroom", value, "Attribute algorithm.adaptive.headroom_percent", "", "algorithm", `{ adaptive = { headroom_percent = 1001 } }`),
		r(bp, "adaptive headroom replicas", value, "Attribute algorithm.adaptive.headroom_replicas", "", "algorithm", `{ adaptive = { headroom_replicas = -1 } }`),
		r(bp, "propagate empty selector", "Invalid propagate", "propagate.secrets", "set names or match_labels", "propagate", `{ secrets = {} }`),
		r(bp, "propagate name", match, "Attribute propagate.config_maps.names", "must be a DNS subdomain, got: Web_Config", "propagate", `{ config_maps = { names = ["Web_Config"] } }`),
		r(bp, "propagate names too many", value, "Attribute propagate.config_maps.names", "", "propagate", `{ config_maps = { names = [for i in range(65) : "cm-${i}"] } }`),
		r(bp, "propagate label value", "Invalid propagate.secrets.match_labels", "propagate.secrets.match_labels", "not a Kubernetes label value", "propagate", `{ secrets = { match_labels = { app = "a b" } } }`),
		r(bp, "propagate services label key", "Invalid propagate.services.match_labels", "propagate.services.match_labels", "not a Kubernetes label key", "propagate", `{ services = { match_labels = { "app/x/y" = "a" } } }`),
		r(bp, "consul service_name", match, "Attribute consul.service_name", "", "consul", `{ service_name = "Web", port = 80 }`),
		r(bp, "consul port", value, "Attribute consul.port", "", "consul", `{ service_name = "web", port = 70000 }`),
		r(bp, "consul empty tag", length, "Attribute consul.tags", "", "consul", `{ service_name = "web", port = 80, tags = [""] }`),
		r(bp, "consul port missing", wrongType, `"consul"`, `attribute "port" is required`, "consul", `{ service_name = "web" }`),
		r(bp, "capacity scale_down_delay", "Invalid capacity.scale_down_delay", "capacity.scale_down_delay", `got "25h"`, "capacity", `{ scale_down_delay = "25h" }`),
		r(bp, "schedule cron", "Invalid schedules[0].start", "schedules[0].start", "has 6 fields", "schedules", `[{ name = "rush", start = "0 0 8 * * *", duration = "1h", min_replicas = 2 }]`),
		r(bp, "schedule cron descriptor", "Invalid schedules[0].start", "schedules[0].start", "", "schedules", `[{ name = "rush", start = "@daily", duration = "1h", min_replicas = 2 }]`),
		r(bp, "schedule cron hour", "Invalid schedules[0].start", "schedules[0].start", "", "schedules", `[{ name = "rush", start = "0 25 * * *", duration = "1h", min_replicas = 2 }]`),
		r(bp, "schedule time zone", "Invalid schedules[0].time_zone", "schedules[0].time_zone", "not an IANA time zone name", "schedules", `[{ name = "rush", start = "0 8 * * *", duration = "1h", time_zone = "Europe/Berln", min_replicas = 2 }]`),
		r(bp, "schedule Local", "Invalid schedules[0].time_zone", "schedules[0].time_zone", "", "schedules", `[{ name = "rush", start = "0 8 * * *", duration = "1h", time_zone = "Local", min_replicas = 2 }]`),
		r(bp, "schedule duration", "Invalid schedules[0].duration", "schedules[0].duration", `got "169h"`, "schedules", `[{ name = "rush", start = "0 8 * * *", duration = "169h", min_replicas = 2 }]`),
		r(bp, "schedule duration zero", "Invalid schedules[0].duration", "schedules[0].duration", "", "schedules", `[{ name = "rush", start = "0 8 * * *", duration = "0s", min_replicas = 2 }]`),
		r(bp, "schedule floor above max", "Invalid schedules", "schedules[0].min_replicas", "must be <= max_replicas", "schedules", `[{ name = "rush", start = "0 8 * * *", duration = "1h", min_replicas = 11 }]`),
		r(bp, "schedule names", "Invalid schedules", "schedules[0] and schedules[1]", `both named "a"`, "schedules", `[{ name = "a", start = "0 8 * * *", duration = "1h", min_replicas = 2 }, { name = "a", start = "0 9 * * *", duration = "1h", min_replicas = 3 }]`),
		r(bp, "schedule name", match, "Attribute schedules[0].name", "", "schedules", `[{ name = "Rush Hour", start = "0 8 * * *", duration = "1h", min_replicas = 2 }]`),
		r(bp, "unknown attribute", unsupported, `"replica_count"`, "", "replica_count", `3`),
		r(bp, "computed attribute given a number", wrongType, `"replicas"`, "list of object required", "replicas", `3`),

		// ---- hca_federated_autoscaler
		r(fa, "name", match, "Attribute name", "", "name", `"Web"`),
		r(fa, "namespace", match, "Attribute namespace", "", "namespace", `"-shop"`),
		r(fa, "target kind", match, "Attribute target.kind", "", "target", `{ kind = "DaemonSet", name = "web" }`),
		r(fa, "target name", match, "Attribute target.name", "", "target", `{ name = "Web" }`),
		r(fa, "members empty", value, "Attribute members", "", "members", `[]`),
		r(fa, "members duplicate", "Invalid members", "members", "", "members", `[{ cluster = "eks" }, { cluster = "eks" }]`),
		r(fa, "members cluster", match, "Attribute members[0].cluster", "", "members", `[{ cluster = "EKS" }]`),
		r(fa, "more members than max", "Invalid max_replicas", "max_replicas", "", "max_replicas", `1`),
		r(fa, "min above max", "Invalid min_replicas", "min_replicas", "", "min_replicas", `11`),
		r(fa, "max fractional", "Invalid max_replicas", "max_replicas", "whole number", "max_replicas", `2.5`),
		r(fa, "metrics PromQL", "Invalid metrics", "metrics[0]", "", "metrics", `[{ type = "PromQL", promql = { query = "up", target_value = "1" } }]`),
		r(fa, "metrics PromQL unparsable", "Invalid metrics[0].promql.query", "metrics[0].promql.query", "is not valid PromQL", "metrics", `[{ type = "PromQL", promql = { query = "up{", target_value = "1" } }]`),
		r(fa, "metrics resource name", match, "Attribute metrics[0].resource.name", "", "metrics", `[{ type = "Resource", resource = { name = "disk", target_average_utilization = 50 } }]`),
		r(fa, "metrics utilization", value, "Attribute metrics[0].resource.target_average_utilization", "", "metrics", `[{ type = "Resource", resource = { name = "cpu", target_average_utilization = 1001 } }]`),
		r(fa, "scale_forbidden_window", match, "Attribute scale_forbidden_window", "", "scale_forbidden_window", `"a minute"`),
		r(fa, "schedule cron", "Invalid schedules[0].start", "schedules[0].start", "", "schedules", `[{ name = "bf", start = "0 8 32 11 *", duration = "12h", min_replicas = 3 }]`),
		r(fa, "schedule floor", "Invalid schedules", "schedules[0].min_replicas", "", "schedules", `[{ name = "bf", start = "0 8 27 11 *", duration = "12h", min_replicas = 30 }]`),
		r(fa, "schedule names", "Invalid schedules", "schedules[0] and schedules[1]", "", "schedules", `[{ name = "a", start = "0 8 * * *", duration = "1h", min_replicas = 2 }, { name = "a", start = "0 9 * * *", duration = "1h", min_replicas = 3 }]`),
		r(fa, "timeouts delete", "Invalid timeouts.delete", "timeouts.delete must be a Go duration", `got "forever"`, "timeouts", `{ delete = "forever" }`),
		r(fa, "unknown attribute", unsupported, `"cluster"`, "", "cluster", `"eks"`),
		r(fa, "computed attribute set", "Invalid Configuration for Read-Only Attribute", "clusters = []", "", "clusters", `[]`),

		// ---- hca_multi_objective_strategy
		r(mo, "name", match, "Attribute name", "", "name", `"Web"`),
		r(mo, "resize_policy", match, "Attribute resize_policy", "", "resize_policy", `"InPlace"`),
		r(mo, "namespace", match, "Attribute namespace", "", "namespace", `"Shop"`),
		r(mo, "target name", match, "Attribute target.name", "", "target", `{ name = "web_1" }`),
		r(mo, "model_file missing", "Invalid model_file", "model_file", "cannot read the model file", "model_file", `"/nonexistent/model.json"`),
		r(mo, "model_file not a model", "Invalid model_file", "model_file", "", "model_file", fmt.Sprintf("%q", f.kubeconfigPath)),
		r(mo, "response_time_ms zero", value, "Attribute desired.response_time_ms", "", "desired", `{ response_time_ms = 0 }`),
		r(mo, "cpu_usage_percent", value, "Attribute desired.cpu_usage_percent", "", "desired", `{ response_time_ms = 100, cpu_usage_percent = 101 }`),
		r(mo, "memory_usage_percent", value, "Attribute desired.memory_usage_percent", "", "desired", `{ response_time_ms = 100, memory_usage_percent = 0 }`),
		r(mo, "min_cpu above max", "Invalid ranges", "ranges.min_cpu", "must be <= ranges.max_cpu", "ranges", `{ min_cpu = "600m", max_cpu = "500m", min_memory = "400Mi", max_memory = "600Mi", max_replicas = 10 }`),
		r(mo, "min_memory above max", "Invalid ranges", "ranges.min_memory", "must be <= ranges.max_memory", "ranges", `{ min_cpu = "300m", max_cpu = "500m", min_memory = "700Mi", max_memory = "600Mi", max_replicas = 10 }`),
		r(mo, "min_replicas above max", "Invalid ranges", "ranges.min_replicas", "", "ranges", mol(", min_replicas = 11")),
		r(mo, "max_replicas zero", value, "Attribute ranges.max_replicas", "", "ranges", `{ min_cpu = "300m", max_cpu = "500m", min_memory = "400Mi", max_memory = "600Mi", max_replicas = 0 }`),
		r(mo, "min_cpu zero", "Invalid ranges.min_cpu", "ranges.min_cpu", "", "ranges", `{ min_cpu = "0", max_cpu = "500m", min_memory = "400Mi", max_memory = "600Mi", max_replicas = 10 }`),
		r(mo, "max_memory not a quantity", "Invalid ranges.max_memory", "ranges.max_memory", "", "ranges", `{ min_cpu = "300m", max_cpu = "500m", min_memory = "400Mi", max_memory = "lots", max_replicas = 10 }`),
		r(mo, "weights sum", "Invalid weights", "weights", "must sum to exactly 1", "weights", `{ response_time = 0.6, cpu_usage = 0.1, memory_usage = 0.1, cpu_limit = 0.1, memory_limit = 0.1, replicas = 0.1 }`),
		r(mo, "weights negative", value, "Attribute weights.cpu_usage", "", "weights", `{ response_time = 0.7, cpu_usage = -0.1, memory_usage = 0.1, cpu_limit = 0.1, memory_limit = 0.1, replicas = 0.1 }`),
		r(mo, "weights and preset", "Conflicting weights", "weight_preset", "Set weights or weight_preset, not both", "weight_preset", `"Balanced"`, "weights", `{ response_time = 0.5, cpu_usage = 0.1, memory_usage = 0.1, cpu_limit = 0.1, memory_limit = 0.1, replicas = 0.1 }`),
		r(mo, "weight_preset", match, "Attribute weight_preset", "", "weight_preset", `"Fast"`),
		r(mo, "tolerance_percent", value, "Attribute tolerance_percent", "", "tolerance_percent", `101`),
		r(mo, "interval", match, "Attribute interval", "", "interval", `"30 seconds"`),
		r(mo, "cooldown", match, "Attribute cooldown", "", "cooldown", `"2 min"`),
		r(mo, "container", match, "Attribute container", "", "container", `"Web_App"`),
		r(mo, "model_config_map", match, "Attribute model_config_map", "", "model_config_map", `"Model_Map"`),
		r(mo, "metrics query unparsable", "Invalid metrics.response_time_ms", "metrics.response_time_ms", "is not valid PromQL", "metrics", `{ response_time_ms = "avg(x{namespace=\"$namespace\"}" }`),
		r(mo, "metrics query range vector", "Invalid metrics.requests_per_second", "metrics.requests_per_second", "is a range vector", "metrics", `{ requests_per_second = "http_requests_total{namespace=\"$namespace\",app=\"$name\"}[1m]" }`),
		r(mo, "metrics query empty", length, "Attribute metrics.cpu_usage_percent", "", "metrics", `{ cpu_usage_percent = "" }`),

		// ---- hca_eks_cluster
		r(eks, "name", match, "Attribute name", "", "name", `"-burst"`),
		r(eks, "name too long", length, "Attribute name", "", "name", fmt.Sprintf("%q", long(101))),
		r(eks, "version", match, "Attribute version", "", "version", `"v1.34"`),
		r(eks, "role_arn", match, "Attribute role_arn", "", "role_arn", `"eks-cluster"`),
		r(eks, "one subnet", value, "Attribute subnet_ids", "", "subnet_ids", `["subnet-0a1b2c3d4e5f60001"]`),
		r(eks, "subnet id", match, "Attribute subnet_ids", "", "subnet_ids", `["subnet-0a1b2c3d4e5f60001", "vsw-1"]`),
		r(eks, "security group id", match, "Attribute security_group_ids", "", "security_group_ids", `["sg_1"]`),
		r(eks, "tag key empty", "Invalid tags", "tags", `has the key "": AWS tag keys have 1 to 128 characters, not 0`, "tags", `{ "" = "x" }`),
		r(eks, "tag key too long", "Invalid tags", "tags", "AWS tag keys have 1 to 128 characters, not 129", "tags", fmt.Sprintf(`{ %q = "x" }`, long(129))),
		r(eks, "tag key aws prefix", "Invalid tags", "tags", `the prefix "aws:" is reserved`, "tags", `{ "aws:owner" = "x" }`),
		r(eks, "tag key AWS prefix", "Invalid tags", "tags", `the prefix "aws:" is reserved`, "tags", `{ "AWS:Owner" = "x" }`),
		r(eks, "tag value too long", "Invalid tags", "tags", "AWS tag values have at most 256 characters, not 257", "tags", fmt.Sprintf(`{ team = %q }`, long(257))),
		r(eks, "tag key character", "Invalid tags", "tags", `has the key "team!": AWS tag keys may hold only letters, digits, spaces and _ . : / = + - @, not '!'`, "tags", `{ "team!" = "x" }`),
		r(eks, "tag key comma", "Invalid tags", "tags", `AWS tag keys may hold only letters, digits, spaces and _ . : / = + - @, not ','`, "tags", `{ "cost,center" = "x" }`),
		r(eks, "tag value character", "Invalid tags", "tags", `AWS tag values may hold only letters, digits, spaces and _ . : / = + - @, not '*'`, "tags", `{ team = "a*b" }`),
		r(eks, "51 tags", value, "Attribute tags", "at most 50", "tags", fiftyOneTags),
		r(eks, "node group tag key character", "Invalid node_groups[0].tags", "node_groups[0].tags", `has the key "a#b": AWS tag keys may hold only letters`, "node_groups", ng(`, tags = { "a#b" = "y" }`)),
		r(eks, "node group tag value character", "Invalid node_groups[0].tags", "node_groups[0].tags", `AWS tag values may hold only letters, digits, spaces and _ . : / = + - @, not '&'`, "node_groups", ng(`, tags = { x = "a&b" }`)),
		r(eks, "node group tag key", "Invalid node_groups[0].tags", "node_groups[0].tags", `the prefix "aws:" is reserved`, "node_groups", ng(`, tags = { "aws:x" = "y" }`)),
		r(eks, "node group tag value", "Invalid node_groups[0].tags", "node_groups[0].tags", "at most 256 characters", "node_groups", ng(fmt.Sprintf(`, tags = { x = %q }`, long(300)))),
		r(eks, "node group 51 tags", value, "Attribute node_groups[0].tags", "at most 50", "node_groups", ng(", tags = "+fiftyOneTags)),
		r(eks, "no node groups", "Missing node_groups", "node_groups", "", "node_groups", ""),
		r(eks, "node_groups empty", value, "Attribute node_groups", "", "node_groups", `[]`),
		r(eks, "node group name", match, "Attribute node_groups[0].name", "", "node_groups", `[{ name = "_burst", node_role_arn = "arn:aws:iam::000000000000:role/eks-node", instance_types = ["m5.large"], min_size = 0, max_size = 3 }]`),
		r(eks, "node group names", "Invalid node_groups", "node_groups[0] and node_groups[1]", "", "node_groups", `[{ name = "a", node_role_arn = "arn:aws:iam::000000000000:role/eks-node", instance_types = ["m5.large"], min_size = 0, max_size = 3 }, { name = "a", node_role_arn = "arn:aws:iam::000000000000:role/eks-node", instance_types = ["m5.large"], min_size = 0, max_size = 3 }]`),
		r(eks, "node group role", match, "Attribute node_groups[0].node_role_arn", "", "node_groups", `[{ name = "burst", node_role_arn = "eks-node", instance_types = ["m5.large"], min_size = 0, max_size = 3 }]`),
		r(eks, "node group instance type", match, "Attribute node_groups[0].instance_types", "", "node_groups", `[{ name = "burst", node_role_arn = "arn:aws:iam::000000000000:role/eks-node", instance_types = ["large"], min_size = 0, max_size = 3 }]`),
		r(eks, "node group instance types duplicate", "Invalid node_groups[0].instance_types", "node_groups[0].instance_types[0] and node_groups[0].instance_types[1]", "list each value once", "node_groups", `[{ name = "burst", node_role_arn = "arn:aws:iam::000000000000:role/eks-node", instance_types = ["m5.large", "m5.large"], min_size = 0, max_size = 3 }]`),
		r(eks, "node group no instance types", value, "Attribute node_groups[0].instance_types", "", "node_groups", `[{ name = "burst", node_role_arn = "arn:aws:iam::000000000000:role/eks-node", instance_types = [], min_size = 0, max_size = 3 }]`),
		r(eks, "node group min above max", "Invalid node_groups scaling", "node_groups[0].min_size (4)", "set min_size to at most max_size", "node_groups", ng(", min_size = 4")),
		r(eks, "node group desired above max", "Invalid node_groups scaling", "node_groups[0].desired_size (5)", "", "node_groups", ng(", desired_size = 5")),
		r(eks, "node group max zero", value, "Attribute node_groups[0].max_size", "", "node_groups", ng(", max_size = 0")),
		r(eks, "node group min negative", value, "Attribute node_groups[0].min_size", "", "node_groups", ng(", min_size = -1")),
		r(eks, "node group capacity_type", match, "Attribute node_groups[0].capacity_type", `got: "spot"`, "node_groups", ng(`, capacity_type = "spot"`)),
		r(eks, "node group label key", "Invalid node_groups[0].labels", "node_groups[0].labels", "not a Kubernetes label key", "node_groups", ng(`, labels = { "a b" = "x" }`)),
		r(eks, "node group label value", "Invalid node_groups[0].labels", "node_groups[0].labels", "not a Kubernetes label value", "node_groups", ng(`, labels = { a = "-x-" }`)),
		r(eks, "node group taint effect", match, "Attribute node_groups[0].taints[0].effect", `got: "NoSchedule"`, "node_groups", ng(`, taints = [{ key = "k", value = "v", effect = "NoSchedule" }]`)),
		r(eks, "node group taint key", length, "Attribute node_groups[0].taints[0].key", "", "node_groups", ng(`, taints = [{ key = "", effect = "NO_SCHEDULE" }]`)),
		r(eks, "node group desired fractional", "Invalid node_groups[0].desired_size", "node_groups[0].desired_size", "whole number", "node_groups", ng(", desired_size = 1.5")),
		r(eks, "node_group and node_groups", "Invalid node_group", "node_group and node_groups are both set", "", "node_group", `{ name = "old", node_role_arn = "arn:aws:iam::000000000000:role/eks-node", instance_types = ["m5.large"], min_size = 1, max_size = 3, desired_size = 1 }`),
		r(eks, "deprecated node_group scaling", "Invalid node_group scaling", "node_group.desired_size (5)", "", "node_groups", "", "node_group", `{ name = "old", node_role_arn = "arn:aws:iam::000000000000:role/eks-node", instance_types = ["m5.large"], min_size = 1, max_size = 3, desired_size = 5 }`),
		r(eks, "timeouts create", "Invalid timeouts.create", "timeouts.create must be a Go duration", `got "30"`, "timeouts", `{ create = "30" }`),
		r(eks, "endpoint access as string", wrongType, `"endpoint_public_access"`, "", "endpoint_public_access", `"yes"`),
		r(eks, "unknown attribute", unsupported, `"node_count"`, "", "node_count", `3`),

		// ---- hca_ack_cluster
		r(ack, "name", match, "Attribute name", "", "name", `"-x"`),
		r(ack, "name missing", required, `"name"`, "", "name", ""),
		r(ack, "region", match, "Attribute region", "", "region", `"Hangzhou"`),
		r(ack, "cluster_spec", match, "Attribute cluster_spec", "", "cluster_spec", `"ack.pro.large"`),
		r(ack, "kubernetes_version", match, "Attribute kubernetes_version", "", "kubernetes_version", `"latest"`),
		r(ack, "vswitch id", match, "Attribute vswitch_ids", "", "vswitch_ids", `["subnet-1"]`),
		r(ack, "vswitch duplicate", "Invalid vswitch_ids", "vswitch_ids[0] and vswitch_ids[1]", "list each value once", "vswitch_ids", `["vsw-bp1a2b3c4d5e6f7g8h9i0", "vsw-bp1a2b3c4d5e6f7g8h9i0"]`),
		r(ack, "vswitches six", value, "Attribute vswitch_ids", "", "vswitch_ids", `["vsw-a1", "vsw-a2", "vsw-a3", "vsw-a4", "vsw-a5", "vsw-a6"]`),
		r(ack, "vswitches empty", value, "Attribute vswitch_ids", "", "vswitch_ids", `[]`),
		r(ack, "worker type", match, "Attribute worker_instance_types", `got: g6.large`, "worker_instance_types", `["g6.large"]`),
		r(ack, "worker types duplicate", "Invalid worker_instance_types", "worker_instance_types[0] and worker_instance_types[1]", "", "worker_instance_types", `["ecs.g6.large", "ecs.g6.large"]`),
		r(ack, "worker types empty", value, "Attribute worker_instance_types", "", "worker_instance_types", `[]`),
		r(ack, "worker_count", value, "Attribute worker_count", "got: 101", "worker_count", `101`),
		r(ack, "worker_count negative", value, "Attribute worker_count", "", "worker_count", `-1`),
		r(ack, "worker_count fractional", "Invalid worker_count", "worker_count", "whole number", "worker_count", `1.5`),
		r(ack, "node pool names", "Invalid node_pools", "node_pools[0] and node_pools[1]", `both named "burst"`, "node_pools", `[{ name = "burst", instance_types = ["ecs.g6.xlarge"] }, { name = "burst", instance_types = ["ecs.g6.xlarge"] }]`),
		r(ack, "node pool default", match, "Attribute node_pools[0].name", `none of: ["default-nodepool"]`, "node_pools", `[{ name = "default-nodepool", instance_types = ["ecs.g6.xlarge"] }]`),
		r(ack, "node pool name", match, "Attribute node_pools[0].name", "", "node_pools", `[{ name = "Burst", instance_types = ["ecs.g6.xlarge"] }]`),
		r(ack, "node pool capacity", match, "Attribute node_pools[0].capacity_type", `got: "SpotAsPriceGo"`, "node_pools", `[{ name = "burst", instance_types = ["ecs.g6.xlarge"], capacity_type = "SpotAsPriceGo" }]`),
		r(ack, "node pool desired", value, "Attribute node_pools[0].desired_size", "got: 101", "node_pools", `[{ name = "burst", instance_types = ["ecs.g6.xlarge"], desired_size = 101 }]`),
		r(ack, "node pool instance types", value, "Attribute node_pools[0].instance_types", "", "node_pools", `[{ name = "burst", instance_types = [] }]`),
		r(ack, "node pool instance type", match, "Attribute node_pools[0].instance_types", "", "node_pools", `[{ name = "burst", instance_types = ["m5.large"] }]`),
		r(ack, "node pool instance types duplicate", "Invalid node_pools[0].instance_types", "node_pools[0].instance_types[0] and node_pools[0].instance_types[1]", "", "node_pools", `[{ name = "burst", instance_types = ["ecs.g6.xlarge", "ecs.g6.xlarge"] }]`),
		r(ack, "eleven node pools", value, "Attribute node_pools", "", "node_pools", `[for i in range(11) : { name = "p${i}", instance_types = ["ecs.g6.xlarge"] }]`),
		r(ack, "timeouts delete", "Invalid timeouts.delete", "timeouts.delete must be a Go duration", `got "1 hour"`, "timeouts", `{ delete = "1 hour" }`),
		r(ack, "unknown attribute", unsupported, `"tags"`, "", "tags", `{ team = "x" }`),

		// ---- hca_slo
		r(slo, "name", match, "Attribute name", "", "name", `"Web"`),
		r(slo, "namespace", match, "Attribute namespace", "", "namespace", `"Shop"`),
		r(slo, "target name", match, "Attribute target.name", "", "target", `{ name = "Web" }`),
		r(slo, "target kind", match, "Attribute target.kind", "", "target", `{ kind = "Pod", name = "web" }`),
		r(slo, "type", match, "Attribute slo.type", `got: "throughput"`, "slo", `{ type = "throughput" }`),
		r(slo, "type without block", "Missing slo.availability", "slo.availability", "is required when slo.type is availability", "slo", `{ type = "availability" }`),
		r(slo, "block of another type", "Invalid slo.cpu_utilization", "slo.cpu_utilization", "but slo.type is latency", "slo", `{ type = "latency", latency = { percentile = "99", threshold = "200ms" }, cpu_utilization = { target_average_utilization = 50 } }`),
		r(slo, "percentile 100", "Invalid slo.latency.percentile", "slo.latency.percentile", `got "100"`, "slo", `{ type = "latency", latency = { percentile = "100", threshold = "200ms" } }`),
		r(slo, "percentile not a number", "Invalid slo.latency.percentile", "slo.latency.percentile", "", "slo", `{ type = "latency", latency = { percentile = "p99", threshold = "200ms" } }`),
		r(slo, "threshold zero", "Invalid slo.latency.threshold", "slo.latency.threshold", `got "0s"`, "slo", `{ type = "latency", latency = { percentile = "99", threshold = "0s" } }`),
		r(slo, "threshold not a duration", match, "Attribute slo.latency.threshold", "", "slo", `{ type = "latency", latency = { percentile = "99", threshold = "200" } }`),
		r(slo, "histogram_metric", match, "Attribute slo.latency.histogram_metric", "", "slo", `{ type = "latency", latency = { percentile = "99", threshold = "1s", histogram_metric = "http-seconds" } }`),
		r(slo, "error_codes 5xx", "Invalid slo.availability.error_codes", "slo.availability.error_codes", "matches no HTTP status code", "slo", `{ type = "availability", availability = { target_percent = "99.9", error_codes = "5xx" } }`),
		r(slo, "error_codes not a regexp", "Invalid slo.availability.error_codes", "slo.availability.error_codes", "is not a regular expression", "slo", `{ type = "availability", availability = { target_percent = "99.9", error_codes = "5[0-9" } }`),
		r(slo, "error_codes 600", "Invalid slo.availability.error_codes", "slo.availability.error_codes", "matches no HTTP status code", "slo", `{ type = "availability", availability = { target_percent = "99.9", error_codes = "6.." } }`),
		r(slo, "error_codes empty", length, "Attribute slo.availability.error_codes", "", "slo", `{ type = "availability", availability = { target_percent = "99.9", error_codes = "" } }`),
		r(slo, "target_percent above 100", "Invalid slo.availability.target_percent", "slo.availability.target_percent", `got "100.1"`, "slo", `{ type = "availability", availability = { target_percent = "100.1" } }`),
		r(slo, "target_percent zero", "Invalid slo.availability.target_percent", "slo.availability.target_percent", "", "slo", `{ type = "availability", availability = { target_percent = "0" } }`),
		r(slo, "requests_metric", match, "Attribute slo.availability.requests_metric", "", "slo", `{ type = "availability", availability = { target_percent = "99", requests_metric = "1requests" } }`),
		r(slo, "custom query unparsable", "Invalid slo.custom.query", "slo.custom.query", "is not valid PromQL", "slo", `{ type = "custom", custom = { query = "sum(rate(errors_total[5m]) / 2", target_value = "1" } }`),
		r(slo, "custom query bad matcher", "Invalid slo.custom.query", "slo.custom.query", "is not valid PromQL", "slo", `{ type = "custom", custom = { query = "up{job=~}", target_value = "1" } }`),
		r(slo, "custom query range vector", "Invalid slo.custom.query", "slo.custom.query", "is a range vector", "slo", `{ type = "custom", custom = { query = "errors_total[5m]", target_value = "1" } }`),
		r(slo, "custom query unknown function", "Invalid slo.custom.query", "slo.custom.query", "unknown function", "slo", `{ type = "custom", custom = { query = "p99(latency)", target_value = "1" } }`),
		r(slo, "custom target zero", "Invalid slo.custom.target_value", "slo.custom.target_value", `got "0"`, "slo", `{ type = "custom", custom = { query = "up", target_value = "0" } }`),
		r(slo, "custom direction", match, "Attribute slo.custom.direction", "", "slo", `{ type = "custom", custom = { query = "up", target_value = "1", direction = "up" } }`),
		r(slo, "cpu utilization 101", value, "Attribute slo.cpu_utilization.target_average_utilization", "got: 101", "slo", `{ type = "cpu-utilization", cpu_utilization = { target_average_utilization = 101 } }`),
		r(slo, "cost threshold", "Invalid slo.cost_efficiency.response_time_threshold", "slo.cost_efficiency.response_time_threshold", "", "slo", `{ type = "cost-efficiency", cost_efficiency = { response_time_threshold = "0s", target_cost_efficiency = "50" } }`),
		r(slo, "cost target", "Invalid slo.cost_efficiency.target_cost_efficiency", "slo.cost_efficiency.target_cost_efficiency", "", "slo", `{ type = "cost-efficiency", cost_efficiency = { response_time_threshold = "100ms", target_cost_efficiency = "-1" } }`),
		r(slo, "cost percentile", value, "Attribute slo.cost_efficiency.min_requests_percentile", "", "slo", `{ type = "cost-efficiency", cost_efficiency = { response_time_threshold = "100ms", target_cost_efficiency = "50", min_requests_percentile = 101 } }`),
		r(slo, "strategy kind", match, "Attribute elasticity_strategy.kind", "", "elasticity_strategy", `{ kind = "Diagonal" }`),
		r(slo, "strategy block missing", "Missing elasticity_strategy.burst", "elasticity_strategy.burst", "is required when kind is Burst", "elasticity_strategy", `{ kind = "Burst", horizontal = { max_replicas = 3 } }`),
		r(slo, "burst policy name", match, "Attribute elasticity_strategy.burst.burst_policy_name", "", "elasticity_strategy", `{ kind = "Burst", burst = { burst_policy_name = "Web" } }`),
		r(slo, "horizontal min above max", "Invalid elasticity_strategy.horizontal.min_replicas", "elasticity_strategy.horizontal.min_replicas (5)", "must be <= max_replicas (3)", "elasticity_strategy", `{ kind = "Horizontal", horizontal = { min_replicas = 5, max_replicas = 3 } }`),
		r(slo, "horizontal max zero", value, "Attribute elasticity_strategy.horizontal.max_replicas", "", "elasticity_strategy", `{ kind = "Horizontal", horizontal = { max_replicas = 0 } }`),
		r(slo, "vertical min_cpu above max", "Invalid elasticity_strategy.vertical.min_cpu", "elasticity_strategy.vertical.min_cpu (2)", "must be <= max_cpu (500m)", "elasticity_strategy", `{ kind = "Vertical", vertical = { min_cpu = "2", max_cpu = "500m", min_memory = "64Mi", max_memory = "1Gi" } }`),
		r(slo, "vertical min_memory zero", "Invalid elasticity_strategy.vertical.min_memory", "elasticity_strategy.vertical.min_memory", `got "0"`, "elasticity_strategy", `{ kind = "Vertical", vertical = { min_cpu = "1", max_cpu = "2", min_memory = "0", max_memory = "1Gi" } }`),
		r(slo, "vertical cpu_step", "Invalid elasticity_strategy.vertical.cpu_step", "elasticity_strategy.vertical.cpu_step", "", "elasticity_strategy", `{ kind = "Vertical", vertical = { min_cpu = "1", max_cpu = "2", min_memory = "64Mi", max_memory = "1Gi", cpu_step = "0" } }`),
		r(slo, "vertical resize_policy", match, "Attribute elasticity_strategy.vertical.resize_policy", "", "elasticity_strategy", `{ kind = "Vertical", vertical = { min_cpu = "1", max_cpu = "2", min_memory = "64Mi", max_memory = "1Gi", resize_policy = "InPlace" } }`),
		r(slo, "vertical container", match, "Attribute elasticity_strategy.vertical.container", "", "elasticity_strategy", `{ kind = "Vertical", vertical = { container = "Web App", min_cpu = "1", max_cpu = "2", min_memory = "64Mi", max_memory = "1Gi" } }`),
		r(slo, "multi_objective missing", "Missing elasticity_strategy.multi_objective", "elasticity_strategy.multi_objective", "is required when kind is MultiObjective", "elasticity_strategy", `{ kind = "MultiObjective", horizontal = { max_replicas = 3 } }`),
		r(slo, "multi_objective on a cpu SLO", "Invalid elasticity_strategy.kind", "elasticity_strategy.kind MultiObjective", "slo.type latency", "slo", `{ type = "cpu-utilization", cpu_utilization = { target_average_utilization = 60 } }`, "elasticity_strategy", sloMO("")),
		r(slo, "multi_objective on a StatefulSet", "Invalid target.kind", "elasticity_strategy.kind MultiObjective", "set target.kind to Deployment", "target", `{ kind = "StatefulSet", name = "web" }`, "elasticity_strategy", sloMO("")),
		r(slo, "multi_objective config_map_name", match, "Attribute elasticity_strategy.multi_objective.model.config_map_name", "", "elasticity_strategy", `{ kind = "MultiObjective", multi_objective = { model = { config_map_name = "Web_Model" }, ranges = `+mol("")+` } }`),
		r(slo, "multi_objective model key", match, "Attribute elasticity_strategy.multi_objective.model.key", "", "elasticity_strategy", `{ kind = "MultiObjective", multi_objective = { model = { config_map_name = "web-model", key = "model/json" }, ranges = `+mol("")+` } }`),
		r(slo, "multi_objective min_cpu above max", "Invalid elasticity_strategy.multi_objective.ranges", "elasticity_strategy.multi_objective.ranges.min_cpu (600m)", "must be <= elasticity_strategy.multi_objective.ranges.max_cpu (500m)", "elasticity_strategy",
			`{ kind = "MultiObjective", multi_objective = { model = { config_map_name = "web-model" }, ranges = { min_cpu = "600m", max_cpu = "500m", min_memory = "400Mi", max_memory = "600Mi", max_replicas = 10 } } }`),
		r(slo, "multi_objective min_memory above max", "Invalid elasticity_strategy.multi_objective.ranges", "elasticity_strategy.multi_objective.ranges.min_memory (700Mi)", "must be <=", "elasticity_strategy",
			`{ kind = "MultiObjective", multi_objective = { model = { config_map_name = "web-model" }, ranges = { min_cpu = "300m", max_cpu = "500m", min_memory = "700Mi", max_memory = "600Mi", max_replicas = 10 } } }`),
		r(slo, "multi_objective min_replicas above max", "Invalid elasticity_strategy.multi_objective.ranges", "elasticity_strategy.multi_objective.ranges.min_replicas (11)", "must be <=", "elasticity_strategy", sloMO(`, ranges = `+mol(", min_replicas = 11"))),
		r(slo, "multi_objective min_cpu zero", "Invalid elasticity_strategy.multi_objective.ranges.min_cpu", "elasticity_strategy.multi_objective.ranges.min_cpu", "", "elasticity_strategy",
			`{ kind = "MultiObjective", multi_objective = { model = { config_map_name = "web-model" }, ranges = { min_cpu = "0", max_cpu = "500m", min_memory = "400Mi", max_memory = "600Mi", max_replicas = 10 } } }`),
		r(slo, "multi_objective weights sum", "Invalid elasticity_strategy.multi_objective.weights", "elasticity_strategy.multi_objective.weights", "must sum to exactly 1", "elasticity_strategy",
			sloMO(`, weights = { response_time = 0.6, cpu_usage = 0.1, memory_usage = 0.1, cpu_limit = 0.1, memory_limit = 0.1, replicas = 0.1 }`)),
		r(slo, "multi_objective weights negative", value, "Attribute elasticity_strategy.multi_objective.weights.cpu_usage", "", "elasticity_strategy",
			sloMO(`, weights = { response_time = 0.7, cpu_usage = -0.1, memory_usage = 0.1, cpu_limit = 0.1, memory_limit = 0.1, replicas = 0.1 }`)),
		r(slo, "multi_objective weights and preset", "Conflicting weights", "elasticity_strategy.multi_objective.weight_preset", "not both", "elasticity_strategy",
			sloMO(`, weight_preset = "Balanced", weights = { response_time = 0.5, cpu_usage = 0.1, memory_usage = 0.1, cpu_limit = 0.1, memory_limit = 0.1, replicas = 0.1 }`)),
		r(slo, "multi_objective weight_preset", match, "Attribute elasticity_strategy.multi_objective.weight_preset", "", "elasticity_strategy", sloMO(`, weight_preset = "Fast"`)),
		r(slo, "multi_objective cpu_usage_percent", value, "Attribute elasticity_strategy.multi_objective.desired.cpu_usage_percent", "", "elasticity_strategy", sloMO(`, desired = { cpu_usage_percent = 101 }`)),
		r(slo, "multi_objective tolerance_percent zero", value, "Attribute elasticity_strategy.multi_objective.tolerance_percent", "", "elasticity_strategy", sloMO(`, tolerance_percent = 0`)),
		r(slo, "multi_objective interval", match, "Attribute elasticity_strategy.multi_objective.interval", "", "elasticity_strategy", sloMO(`, interval = "30 seconds"`)),
		r(slo, "multi_objective cooldown", match, "Attribute elasticity_strategy.multi_objective.cooldown", "", "elasticity_strategy", sloMO(`, cooldown = "2 min"`)),
		r(slo, "multi_objective container", match, "Attribute elasticity_strategy.multi_objective.container", "", "elasticity_strategy", sloMO(`, container = "Web_App"`)),
		r(slo, "multi_objective resize_policy", match, "Attribute elasticity_strategy.multi_objective.resize_policy", "", "elasticity_strategy", sloMO(`, resize_policy = "InPlace"`)),
		r(slo, "multi_objective metrics query", "Invalid elasticity_strategy.multi_objective.metrics.response_time_ms", "elasticity_strategy.multi_objective.metrics.response_time_ms", "is not valid PromQL", "elasticity_strategy",
			sloMO(`, metrics = { response_time_ms = "avg(x{namespace=\"$namespace\"}" }`)),
		r(slo, "tolerance", "Invalid tolerance", "tolerance", `got "1"`, "tolerance", `"1"`),
		r(slo, "evaluation_interval", "Invalid evaluation_interval", "evaluation_interval", `got "500ms"`, "evaluation_interval", `"500ms"`),
		r(slo, "stabilization", match, "Attribute stabilization.scale_down", "", "stabilization", `{ scale_down = "5 minutes" }`),
		r(slo, "unknown attribute", unsupported, `"objective"`, "", "objective", `"99"`),

		// ---- data sources and the ephemeral resource
		d(cl, "name upper case", match, "Attribute name", "DNS subdomain", "name", `"EKS"`),
		d(cl, "name empty", length, "Attribute name", "", "name", `""`),
		d(cl, "name too long", length, "Attribute name", "", "name", fmt.Sprintf("%q", long(254))),
		d(cl, "name missing", required, `"name"`, "", "name", ""),
		d(cl, "computed attribute set", "Invalid Configuration for Read-Only Attribute", "role", "", "role", `"burst"`),
		d(cl, "unknown attribute", unsupported, `"namespace"`, "", "namespace", `"x"`),
		d("hca_burst_policy_status", "namespace", match, "Attribute namespace", "DNS label", "namespace", `"Shop"`),
		d("hca_burst_policy_status", "namespace too long", length, "Attribute namespace", "", "namespace", fmt.Sprintf("%q", long(64))),
		d("hca_burst_policy_status", "name", match, "Attribute name", "", "name", `"web_1"`),
		d("hca_burst_policy_status", "name missing", required, `"name"`, "", "name", ""),
		d("hca_burst_policy_status", "computed attribute set", "Invalid Configuration for Read-Only Attribute", "phase", "", "phase", `"Bursting"`),
		d("hca_control_cluster", "unknown attribute", unsupported, `"name"`, "", "name", `"x"`),
		d("hca_control_cluster", "computed attribute set", "Invalid Configuration for Read-Only Attribute", "kubernetes_version", "", "kubernetes_version", `"1.34"`),
		e("hca_eks_token", "cluster_name", match, "Attribute cluster_name", "got: -bad", "cluster_name", `"-bad"`),
		e("hca_eks_token", "cluster_name too long", length, "Attribute cluster_name", "", "cluster_name", fmt.Sprintf("%q", long(101))),
		e("hca_eks_token", "cluster_name missing", required, `"cluster_name"`, "", "cluster_name", ""),
		e("hca_eks_token", "region", match, "Attribute region", "", "region", `"US East"`),
		e("hca_eks_token", "token set", "Invalid Configuration for Read-Only Attribute", "token", "", "token", `"x"`),
	}
}

// TestAccInvalidCorpus_basesPlan plans each base configuration of the corpus
// against the lab (control cluster, EKS, STS and ACK emulators): every
// resource's base plans a create, and every data source's and the ephemeral
// resource's base passes validation (a data source then reads, and reports
// that the object it names is missing). So a corpus case fails for the change
// it makes, not for its base.
func TestAccInvalidCorpus_basesPlan(t *testing.T) {
	lab := requireLabCluster(t)
	env := labtest.Require(t, "HCA_LAB_EKS_ENDPOINT", "HCA_LAB_STS_ENDPOINT", "HCA_LAB_ACK_ENDPOINT")
	prepareAccEnv(t)
	t.Setenv("AWS_ACCESS_KEY_ID", emulator.AWSAccessKeyID)
	t.Setenv("AWS_SECRET_ACCESS_KEY", emulator.AWSSecretAccessKey)
	t.Setenv(EnvAlicloudAccessKey, emulator.AlicloudAccessKey)
	t.Setenv(EnvAlicloudSecretKey, emulator.AlicloudAccessSecret)
	labAdmin(t, lab) // the CRDs
	f := newCorpusFixtures(t)
	f.kubeconfigPath = lab.kubeconfig
	bases := corpusBases(f)
	bases["hca"] = append(bases["hca"],
		corpusAttr{"block aws", `{ region = "us-east-1" }`},
		corpusAttr{"block alicloud", `{ region = "cn-hangzhou" }`},
		corpusAttr{"block endpoints", fmt.Sprintf(`{
    eks = %q
    sts = %q
    ack = %q
  }`, env["HCA_LAB_EKS_ENDPOINT"], env["HCA_LAB_STS_ENDPOINT"], env["HCA_LAB_ACK_ENDPOINT"])})
	for _, key := range providerTypeKeys() {
		typ, block, _ := strings.Cut(key, "@")
		if block == "" {
			block = "resource"
		}
		t.Run(key, func(t *testing.T) {
			step := resource.TestStep{Config: corpusCase{block: block, typ: typ}.config(bases), PlanOnly: true}
			switch key {
			case "hca_cluster@data":
				step.ExpectError = errorRe("Error reading cluster", `No HybridCluster named "eks"`)
			case "hca_burst_policy_status@data":
				step.ExpectError = errorRe("Error reading burst policy status", "No BurstPolicy shop/web")
			case "hca_control_cluster@data", "hca_eks_token@ephemeral":
				// Reads only: the plan is empty.
			default:
				step.ExpectNonEmptyPlan = true
			}
			resource.Test(t, resource.TestCase{ProtoV6ProviderFactories: testAccProtoV6ProviderFactories, Steps: []resource.TestStep{step}})
		})
	}
}
