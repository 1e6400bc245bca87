package provider

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
	"github.com/hca-project/terraform-provider-hca/internal/lab"
	"github.com/hca-project/terraform-provider-hca/internal/lab/emulator"
	"github.com/hca-project/terraform-provider-hca/internal/lab/labtest"
)

// exampleCLI runs the real Terraform CLI on a copy of examples/ (so that no
// .terraform directory or state is written into the checkout), with the
// provider built from this checkout and installed through dev_overrides in a
// generated CLI configuration file (TF_CLI_CONFIG_FILE; the user's
// ~/.terraformrc is never read or written).
//
// Terraform says to skip `terraform init` with dev_overrides, and init does
// fail offline: it still asks the registry for the overridden provider. The
// modules are installed with `terraform get` instead, which is what init does
// for them.
type exampleCLI struct {
	terraform string
	// examples is the copy of examples/.
	examples string
	// env is added to every command's environment.
	env []string
}

// newExampleCLI builds the provider once (go build), writes the CLI
// configuration and copies the examples.
func newExampleCLI(t *testing.T) *exampleCLI {
	t.Helper()
	tf := os.Getenv("TF_ACC_TERRAFORM_PATH")
	if tf == "" {
		tf = defaultTerraformPath
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is needed to build the provider: %v", err)
	}
	dir := t.TempDir()
	pluginDir := filepath.Join(dir, "plugins")
	build := exec.Command(goBin, "build", "-o", filepath.Join(pluginDir, "terraform-provider-hca"), ".")
	build.Dir = ".." // the module root, where main.go is
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build the provider: %v\n%s", err, out)
	}
	rc := filepath.Join(dir, "terraform.rc")
	if err := lab.WriteTerraformRC(rc, pluginDir); err != nil {
		t.Fatal(err)
	}
	examples := filepath.Join(dir, "examples")
	for _, sub := range []string{"modules", "environments", "terraform-cloud"} {
		copyExampleTree(t, filepath.Join("..", "examples", sub), filepath.Join(examples, sub))
	}
	return &exampleCLI{
		terraform: tf,
		examples:  examples,
		env: []string{
			"TF_CLI_CONFIG_FILE=" + rc,
			"TF_IN_AUTOMATION=1",
			"TF_INPUT=0",
			"CHECKPOINT_DISABLE=1",
			"TF_LOG=",
			"TF_DATA_DIR=",
			"TF_WORKSPACE=",
			"TF_CLOUD_ORGANIZATION=",
		},
	}
}

// copyExampleTree copies an example directory without Terraform's working
// files (.terraform, lock file, state, real .tfvars) a developer may have left.
func copyExampleTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if strings.HasPrefix(name, ".terraform") || strings.Contains(name, ".tfstate") || strings.HasSuffix(name, ".tfvars") {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if !d.Type().IsRegular() {
			return fmt.Errorf("%s is not a regular file", p)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
	if err != nil {
		t.Fatalf("copy %s: %v", src, err)
	}
}

// run runs terraform in dir (relative to the examples copy) with extra
// environment variables and returns its combined output.
func (c *exampleCLI) run(dir string, env []string, args ...string) (string, error) {
	cmd := exec.Command(c.terraform, append([]string{"-chdir=" + filepath.Join(c.examples, dir)}, args...)...)
	cmd.Env = append(append(os.Environ(), c.env...), env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}

func (c *exampleCLI) mustRun(t *testing.T, dir string, env []string, args ...string) string {
	t.Helper()
	out, err := c.run(dir, env, args...)
	if err != nil {
		t.Fatalf("terraform %s in %s: %v\n%s", strings.Join(args, " "), dir, err, out)
	}
	return out
}

// planJSON is the part of `terraform show -json <plan>` the tests read.
type planJSON struct {
	ResourceChanges []struct {
		Address string `json:"address"`
		Mode    string `json:"mode"`
		Change  struct {
			Actions []string       `json:"actions"`
			After   map[string]any `json:"after"`
		} `json:"change"`
	} `json:"resource_changes"`
	PriorState struct {
		Values struct {
			RootModule stateModuleJSON `json:"root_module"`
		} `json:"values"`
	} `json:"prior_state"`
}

type stateModuleJSON struct {
	Resources []struct {
		Address string         `json:"address"`
		Values  map[string]any `json:"values"`
	} `json:"resources"`
	ChildModules []stateModuleJSON `json:"child_modules"`
}

// stateValues returns the values of the resource (or data source) at address
// in the plan's prior state, where data sources read at plan time are.
func (m stateModuleJSON) stateValues(address string) map[string]any {
	for _, r := range m.Resources {
		if r.Address == address {
			return r.Values
		}
	}
	for _, c := range m.ChildModules {
		if v := c.stateValues(address); v != nil {
			return v
		}
	}
	return nil
}

// plan runs terraform plan -out and returns the saved plan as JSON.
func (c *exampleCLI) plan(t *testing.T, dir string, env []string, args ...string) planJSON {
	t.Helper()
	c.mustRun(t, dir, env, append([]string{"plan", "-no-color", "-out=test.tfplan"}, args...)...)
	out, err := c.run(dir, env, "show", "-json", "test.tfplan")
	if err != nil {
		t.Fatalf("terraform show -json: %v\n%s", err, out)
	}
	var p planJSON
	if err := json.Unmarshal([]byte(out), &p); err != nil {
		t.Fatalf("decode the plan: %v", err)
	}
	return p
}

// jsonAt walks a decoded JSON value along a dotted path ("node_groups.0.max_size",
// "burst_targets.0.cluster").
func jsonAt(v any, dotted string) (any, bool) {
	for _, k := range strings.Split(dotted, ".") {
		switch x := v.(type) {
		case map[string]any:
			var ok bool
			if v, ok = x[k]; !ok {
				return nil, false
			}
		case []any:
			i, err := strconv.Atoi(k)
			if err != nil || i < 0 || i >= len(x) {
				return nil, false
			}
			v = x[i]
		default:
			return nil, false
		}
	}
	return v, true
}

// sameJSON reports whether got, re-encoded, is the JSON text want.
func sameJSON(got any, want string) (string, bool) {
	g, _ := json.Marshal(got)
	var w any
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		return string(g), false
	}
	wb, _ := json.Marshal(w)
	return string(g), bytes.Equal(g, wb)
}

// labExampleEnv is the environment of the examples' plans against the lab:
// the control cluster from KUBE_CONFIG_PATH, the clouds' lab credentials, and
// the private cluster's kubeconfig as the environments' variable.
func labExampleEnv(lab labCluster, kubeconfig string) []string {
	return []string{
		EnvKubeConfigPath + "=" + lab.kubeconfig,
		"AWS_ACCESS_KEY_ID=" + emulator.AWSAccessKeyID,
		"AWS_SECRET_ACCESS_KEY=" + emulator.AWSSecretAccessKey,
		EnvAlicloudAccessKey + "=" + emulator.AlicloudAccessKey,
		EnvAlicloudSecretKey + "=" + emulator.AlicloudAccessSecret,
		"TF_VAR_private_kubeconfig=" + kubeconfig,
	}
}

// TestAccExampleModules runs the real Terraform CLI on examples/modules/hybrid-burst
// and examples/environments/{staging,production} (examples/terraform-cloud:
// TestAccExampleTerraformCloud): they
// validate, the environments plan against the lab (the provider pointed at the lab's
// private cluster and the EKS/ACK emulators) into the resources and values each
// environment declares, the module's input checks fail with their messages, a missing
// credential fails with the provider's, and the module applies and destroys against
// the lab.
func TestAccExampleModules(t *testing.T) {
	if os.Getenv(resource.EnvTfAcc) == "" {
		t.Skipf("acceptance test: set %s=1", resource.EnvTfAcc)
	}
	lab := requireLabCluster(t)
	env := labtest.Require(t, "HCA_LAB_EKS_ENDPOINT", "HCA_LAB_STS_ENDPOINT", "HCA_LAB_ACK_ENDPOINT")
	prepareAccEnv(t)
	cli := newExampleCLI(t)
	kubeconfig, err := os.ReadFile(lab.kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	endpoints := fmt.Sprintf("endpoints={eks=%q,sts=%q,ack=%q}", env["HCA_LAB_EKS_ENDPOINT"], env["HCA_LAB_STS_ENDPOINT"], env["HCA_LAB_ACK_ENDPOINT"])
	labEnv := labExampleEnv(lab, string(kubeconfig))

	for _, dir := range []string{"modules/hybrid-burst", "environments/staging", "environments/production", "terraform-cloud"} {
		cli.mustRun(t, dir, nil, "get", "-no-color")
	}

	t.Run("validate", func(t *testing.T) {
		for _, dir := range []string{"modules/hybrid-burst", "environments/staging", "environments/production"} {
			t.Run(dir, func(t *testing.T) {
				out := cli.mustRun(t, dir, nil, "validate", "-no-color")
				if !strings.Contains(out, "Success! The configuration is valid") {
					t.Errorf("terraform validate:\n%s", out)
				}
			})
		}
	})

	// Each environment's plan: exactly these resources, all created, with
	// these values (JSON). The two environments differ in sizes, prices,
	// targets and workloads.
	sha := sha256Hex(kubeconfig)
	tests := []struct {
		env  string
		want map[string]map[string]string
	}{
		{
			env: "staging",
			want: map[string]map[string]string{
				`module.hybrid_burst.hca_runtime.this`: {"replicas": `1`, "log_level": `"debug"`, "namespace": `"hca-system"`, "prometheus_url": `null`},
				`module.hybrid_burst.hca_cluster.private`: {"role": `"primary"`, "provider_type": `"private"`, "priority": `100`, "max_pods": `200`,
					"credentials_secret": `"hca-system/hca-cluster-private"`, "credentials_sha256": strconv.Quote(sha), "price_per_vcpu_hour": `null`},
				`module.hybrid_burst.hca_eks_cluster.this["staging-eks"]`: {"name": `"staging-eks"`, "version": `"1.34"`, "tags": `{"environment":"staging"}`,
					"node_groups.0.instance_types": `["t3.large"]`, "node_groups.0.min_size": `0`, "node_groups.0.max_size": `3`, "node_groups.0.desired_size": `null`,
					"node_groups.0.name": `"burst"`, "node_groups.0.capacity_type": `"ON_DEMAND"`},
				`module.hybrid_burst.hca_cluster.burst["staging-eks"]`: {"role": `"burst"`, "provider_type": `"eks"`, "eks_cluster_name": `"staging-eks"`,
					"priority": `10`, "price_per_vcpu_hour": `"0.0416"`, "price_per_gib_hour": `"0.0052"`, "max_cpu": `"8"`, "kubeconfig": `null`,
					"node_groups.0.name": `"burst"`, "node_groups.0.instance_type": `"t3.large"`, "node_groups.0.capacity_type": `"OnDemand"`,
					"node_groups.0.allocatable": `{"cpu":"1930m","memory":"7Gi","pods":35}`, "node_groups.0.price_per_hour": `"0.0832"`,
					"node_groups.0.min_nodes": `0`, "node_groups.0.max_nodes": `3`, "node_groups.0.ack": `null`},
				`module.hybrid_burst.hca_burst_policy.this["web"]`: {"namespace": `"shop"`, "target": `{"deployment_name":"web","match_labels":null}`,
					"primary_cluster": `"private"`, "burst_targets": `[{"cluster":"staging-eks","max_replicas":null,"weight":null}]`,
					"min_replicas": `1`, "max_replicas": `10`, "placement": `"priority"`, "algorithm": `null`},
			},
		},
		{
			env: "production",
			want: map[string]map[string]string{
				`module.hybrid_burst.hca_runtime.this`: {"replicas": `2`, "log_level": `"info"`, "prometheus_url": `"http://prometheus.monitoring:9090"`,
					"consul_address": `"consul.consul:8500"`, "resources.memory_limit": `"512Mi"`},
				`module.hybrid_burst.hca_cluster.private`: {"role": `"primary"`, "priority": `100`, "max_pods": `2000`, "credentials_sha256": strconv.Quote(sha),
					"price_per_vcpu_hour": `"0.0200"`, "price_per_gib_hour": `"0.0025"`},
				`module.hybrid_burst.hca_eks_cluster.this["prod-eks"]`: {"name": `"prod-eks"`, "endpoint_private_access": `true`,
					"node_groups.0.instance_types": `["m5.xlarge","m5a.xlarge"]`, "node_groups.0.min_size": `0`, "node_groups.0.max_size": `40`, "node_groups.0.desired_size": `null`,
					"node_groups.1.name": `"burst-spot"`, "node_groups.1.capacity_type": `"SPOT"`},
				`module.hybrid_burst.hca_ack_cluster.this["prod-ack"]`: {"name": `"prod-ack"`, "cluster_spec": `"ack.pro.small"`, "worker_count": `6`,
					"worker_instance_types": `["ecs.g6.xlarge","ecs.c6.xlarge"]`, "vswitch_ids": `["vsw-bp1a2b3c4d5e6f7g8h9i0","vsw-bp1a2b3c4d5e6f7g8h9i1"]`,
					"node_pools.0.name": `"burst"`, "node_pools.0.instance_types": `["ecs.g6.xlarge"]`, "node_pools.0.desired_size": `null`, "node_pools.0.capacity_type": `"ON_DEMAND"`},
				`module.hybrid_burst.hca_cluster.burst["prod-eks"]`: {"provider_type": `"eks"`, "eks_cluster_name": `"prod-eks"`, "priority": `20`,
					"role_arn": `"arn:aws:iam::123456789012:role/hca-runtime"`, "price_per_vcpu_hour": `"0.0480"`, "max_cpu": `"160"`,
					"node_groups.1.name": `"burst-spot"`, "node_groups.1.capacity_type": `"Spot"`, "node_groups.1.price_per_hour": `"0.085"`, "node_groups.1.max_nodes": `40`},
				`module.hybrid_burst.hca_cluster.burst["prod-ack"]`: {"provider_type": `"ack"`, "priority": `10`, "eks_cluster_name": `null`,
					"credentials_secret": `"hca-system/hca-cluster-prod-ack"`, "price_per_vcpu_hour": `"0.0390"`, "price_per_gib_hour": `"0.0049"`, "max_cpu": `"96"`,
					"node_groups.0.name": `"burst"`, "node_groups.0.eks": `null`, "node_groups.0.max_nodes": `20`, "node_groups.0.price_per_hour": `"0.19"`},
				`module.hybrid_burst.hca_burst_policy.this["web"]`: {"min_replicas": `4`, "max_replicas": `200`, "placement": `"cheapest"`,
					"burst_targets":  `[{"cluster":"prod-eks","max_replicas":null,"weight":null},{"cluster":"prod-ack","max_replicas":null,"weight":null}]`,
					"algorithm.name": `"frss"`, "algorithm.frss.down_window": `"9m"`, "consul": `{"port":8080,"service_name":"web","tags":null}`,
					"capacity":                      `{"allow_spot":true,"scale_down_delay":"5m"}`,
					"metrics.1.promql.target_value": `"100"`, "propagate.config_maps.names": `["web-config"]`},
				`module.hybrid_burst.hca_burst_policy.this["api"]`: {"target": `{"deployment_name":"api","match_labels":null}`, "min_replicas": `2`, "max_replicas": `80`,
					"burst_targets": `[{"cluster":"prod-eks","max_replicas":60,"weight":null}]`, "algorithm.name": `"panic"`,
					"algorithm.panic.panic_threshold_percent": `200`, "pending_threshold": `"2s"`, "failover_after": `"1m"`},
			},
		},
	}
	for _, tt := range tests {
		t.Run("plan "+tt.env, func(t *testing.T) {
			dir := "environments/" + tt.env
			p := cli.plan(t, dir, labEnv, "-var-file=terraform.tfvars.example", "-var="+endpoints)

			var got []string
			for _, rc := range p.ResourceChanges {
				if rc.Mode != "managed" {
					continue
				}
				got = append(got, rc.Address)
				if !slices.Equal(rc.Change.Actions, []string{"create"}) {
					t.Errorf("%s: actions %v, want [create]", rc.Address, rc.Change.Actions)
				}
				for attr, want := range tt.want[rc.Address] {
					v, ok := jsonAt(rc.Change.After, attr)
					if !ok {
						t.Errorf("%s: %s is not in the plan", rc.Address, attr)
						continue
					}
					if g, same := sameJSON(v, want); !same {
						t.Errorf("%s: %s = %s, want %s", rc.Address, attr, g, want)
					}
				}
			}
			var want []string
			for a := range tt.want {
				want = append(want, a)
			}
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("planned resources:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
			}

			// The module reads the control cluster at plan time: the lab's.
			cc := p.PriorState.Values.RootModule.stateValues("module.hybrid_burst.data.hca_control_cluster.this")
			if cc == nil {
				t.Fatal("the plan did not read data.hca_control_cluster.this")
			}
			if cc["kubernetes_version"] != lab.version || cc["host"] != lab.config.Host {
				t.Errorf("control cluster read at plan: %v %v, want the lab's %s %s", cc["host"], cc["kubernetes_version"], lab.config.Host, lab.version)
			}
		})
	}

	t.Run("plan without a control cluster", func(t *testing.T) {
		noKube := slices.DeleteFunc(slices.Clone(labEnv), func(e string) bool { return strings.HasPrefix(e, EnvKubeConfigPath+"=") })
		out, err := cli.run("environments/staging", noKube, "plan", "-no-color", "-var-file=terraform.tfvars.example", "-var="+endpoints)
		if err == nil {
			t.Fatalf("plan succeeded without KUBE_CONFIG_PATH:\n%s", out)
		}
		if re := errorRe("Control cluster not configured", "The hca provider has no connection to the control cluster.", "KUBE_CONFIG_PATH"); !re.MatchString(out) {
			t.Errorf("plan output does not match %s:\n%s", re, out)
		}
	})

	// examples/terraform-cloud: TestAccExampleTerraformCloud.

	t.Run("module input checks", func(t *testing.T) {
		testModuleInputs(t, cli, lab, string(kubeconfig))
	})

	t.Run("apply and destroy", func(t *testing.T) {
		testModuleApply(t, cli, lab, env, string(kubeconfig))
	})
}

// moduleInputs are the arguments of a test call of the hybrid-burst module.
type moduleInputs struct {
	PrivateCluster, Credentials, Runtime, BurstTargets, Workloads string
}

const validAckTarget = `{ provider_type = "ack", ack = { vswitch_ids = ["vsw-1"], worker_instance_types = ["ecs.g6.large"], worker_count = 1 } }`

// hcl renders the test root. The credentials come from a variable of the
// root (TF_VAR_credentials) that is not marked sensitive: the module's own
// sensitive declaration must keep them out of its diagnostics.
func (in moduleInputs) hcl(kubeconfigPath string) string {
	def := func(v, d string) string {
		if v == "" {
			return d
		}
		return v
	}
	return fmt.Sprintf(`terraform {
  required_providers {
    hca = { source = "hca-project/hca" }
  }
}
provider "hca" {
  kubeconfig_path = %q
}
variable "credentials" {
  type = any
}
module "hybrid_burst" {
  source                      = "../modules/hybrid-burst"
  runtime                     = %s
  private_cluster             = %s
  private_cluster_credentials = var.credentials
  burst_targets               = %s
  workloads                   = %s
}
`, kubeconfigPath,
		def(in.Runtime, `{ image = "hca-runtime:test" }`),
		def(in.PrivateCluster, `{}`),
		def(in.BurstTargets, `{ "burst-a" = `+validAckTarget+` }`),
		def(in.Workloads, `{ web = { namespace = "shop", max_replicas = 3 } }`))
}

// testModuleInputs plans the module with one invalid input at a time: the plan
// fails with the module's message naming the offending key. The valid inputs
// plan without error, so each failure is the case's own.
func testModuleInputs(t *testing.T, cli *exampleCLI, lab labCluster, kubeconfig string) {
	env := labExampleEnv(lab, kubeconfig)
	eksTarget := func(minSize, maxSize, desired string) string {
		return fmt.Sprintf(`{ provider_type = "eks", eks = { role_arn = "arn:aws:iam::000000000000:role/eks-cluster", subnet_ids = ["subnet-0a1", "subnet-0b2"],
  node_groups = [{ node_role_arn = "arn:aws:iam::000000000000:role/eks-node", instance_types = ["t3.medium"], min_size = %s, max_size = %s, desired_size = %s }] } }`, minSize, maxSize, desired)
	}
	tests := []struct {
		name string
		in   moduleInputs
		want *regexp.Regexp // nil: the plan succeeds
	}{
		{name: "valid", in: moduleInputs{BurstTargets: `{ "burst-a" = ` + validAckTarget + `, "burst-b" = ` + eksTarget("0", "2", "1") + ` }`}},
		{
			name: "runtime namespace",
			in:   moduleInputs{Runtime: `{ image = "hca-runtime:test", namespace = "HCA" }`},
			want: errorRe("Invalid value for variable", "runtime.namespace must be a DNS label: 1 to 63 lowercase letters"),
		},
		{
			name: "runtime image with a space",
			in:   moduleInputs{Runtime: `{ image = "hca runtime" }`},
			want: errorRe("Invalid value for variable", `runtime.image must be a container image reference such as "ghcr.io/hca-project/hca-runtime:v0.1.0", not empty and without white space.`),
		},
		{
			name: "kubeconfig and host",
			in:   moduleInputs{Credentials: `{ kubeconfig = "x", host = "https://10.0.0.1:6443", token = "t" }`},
			want: errorRe("Invalid value for variable", "private_cluster_credentials: set either kubeconfig (the file's content) or host with token (and cluster_ca_certificate), not both and not neither."),
		},
		{
			name: "host without token",
			in:   moduleInputs{Credentials: `{ host = "https://10.0.0.1:6443" }`},
			want: errorRe("Invalid value for variable", "private_cluster_credentials: host is set without token; set token to a bearer token of the private cluster."),
		},
		{
			name: "kubeconfig and token",
			in:   moduleInputs{Credentials: `{ kubeconfig = "x", token = "secret-token" }`},
			want: errorRe("Invalid value for variable", "private_cluster_credentials: cluster_ca_certificate and token are only used with host; remove them or set host instead of kubeconfig."),
		},
		{
			name: "one private price",
			in:   moduleInputs{PrivateCluster: `{ price_per_vcpu_hour = "0.02" }`},
			want: errorRe("Invalid value for variable", "private_cluster: set both price_per_vcpu_hour and price_per_gib_hour, or neither"),
		},
		{
			name: "burst target key",
			in:   moduleInputs{BurstTargets: `{ "EKS_1" = ` + validAckTarget + ` }`},
			want: errorRe("Invalid value for variable", `burst_targets keys name the HybridClusters (and the cloud clusters): each must be a DNS label`, `Invalid: "EKS_1".`),
		},
		{
			name: "burst target named like the private cluster",
			in:   moduleInputs{BurstTargets: `{ "private" = ` + validAckTarget + ` }`},
			want: errorRe("Invalid value for variable", `burst_targets must not have a key equal to private_cluster.name ("private")`),
		},
		{
			name: "unknown provider_type",
			in:   moduleInputs{BurstTargets: `{ "burst-a" = { provider_type = "gke" } }`},
			want: errorRe("Invalid value for variable", `burst_targets: provider_type must be "eks" or "ack". Invalid: "burst-a" ("gke").`),
		},
		{
			name: "eks target with an ack block",
			in:   moduleInputs{BurstTargets: `{ "burst-a" = { provider_type = "eks", ack = { vswitch_ids = ["vsw-1"], worker_instance_types = ["ecs.g6.large"], worker_count = 1 } } }`},
			want: errorRe("Invalid value for variable", `burst_targets: a target of provider_type "eks" needs an eks block and no ack block`, `Invalid: "burst-a".`),
		},
		{
			name: "one burst target price",
			in:   moduleInputs{BurstTargets: `{ "burst-a" = { provider_type = "ack", price_per_gib_hour = "0.005", ack = { vswitch_ids = ["vsw-1"], worker_instance_types = ["ecs.g6.large"], worker_count = 1 } } }`},
			want: errorRe("Invalid value for variable", `burst_targets: set both price_per_vcpu_hour and price_per_gib_hour, or neither. Invalid: "burst-a".`),
		},
		{
			name: "node group desired above max",
			in:   moduleInputs{BurstTargets: `{ "burst-b" = ` + eksTarget("0", "2", "3") + ` }`},
			want: errorRe("Invalid value for variable", `burst_targets: every eks.node_groups element must satisfy min_size <= max_size, and min_size <= desired_size <= max_size when desired_size is set. Invalid: "burst-b" (burst).`),
		},
		{
			// Without desired_size the runtime sizes the group: it needs what
			// one node offers and costs.
			name: "runtime node group without allocatable",
			in:   moduleInputs{BurstTargets: `{ "burst-b" = ` + eksTarget("0", "2", "null") + ` }`},
			want: errorRe("Invalid value for variable", `burst_targets: a node group or pool without desired_size is handed to the runtime, which needs its allocatable and price_per_hour`, `Invalid: "burst-b" (burst).`),
		},
		{
			name: "runtime node pool without max_size",
			in: moduleInputs{BurstTargets: `{ "burst-a" = { provider_type = "ack", ack = { vswitch_ids = ["vsw-1"], worker_instance_types = ["ecs.g6.large"], worker_count = 1,
  node_pools = [{ name = "burst", instance_types = ["ecs.g6.large"], allocatable = { cpu = "2", memory = "8Gi" }, price_per_hour = "0.1" }] } } }`},
			want: errorRe("Invalid value for variable", `a node group or pool without desired_size is handed to the runtime`, `Invalid: "burst-a" (burst).`),
		},
		{
			name: "workload bursting into an unknown cluster",
			in:   moduleInputs{Workloads: `{ web = { namespace = "shop", max_replicas = 3, burst_targets = [{ cluster = "burst-z" }] } }`},
			want: errorRe("Invalid value for variable", `workloads: every burst_targets[*].cluster must be a key of var.burst_targets ("burst-a"). Unknown: "burst-z" in "web".`),
		},
		{
			name: "workload with deployment_name and match_labels",
			in:   moduleInputs{Workloads: `{ web = { namespace = "shop", max_replicas = 3, deployment_name = "web", match_labels = { app = "web" } } }`},
			want: errorRe("Invalid value for variable", `workloads: set deployment_name or match_labels, not both`, `Invalid: "web".`),
		},
		{
			name: "workload min above max",
			in:   moduleInputs{Workloads: `{ web = { namespace = "shop", min_replicas = 5, max_replicas = 3 } }`},
			want: errorRe("Invalid value for variable", `workloads: max_replicas must be at least min_replicas (default 1). Invalid: "web" (min 5, max 3).`),
		},
		{
			name: "workloads without burst targets",
			in:   moduleInputs{BurstTargets: `{}`},
			want: errorRe("Invalid value for variable", "workloads need at least one burst target: add a cluster to burst_targets, or remove the workloads."),
		},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := fmt.Sprintf("inputs-%02d", i)
			if err := os.MkdirAll(filepath.Join(cli.examples, dir), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(cli.examples, dir, "main.tf"), []byte(tt.in.hcl(lab.kubeconfig)), 0o644); err != nil {
				t.Fatal(err)
			}
			cli.mustRun(t, dir, nil, "get", "-no-color")
			creds := tt.in.Credentials
			if creds == "" {
				b, err := json.Marshal(map[string]string{"kubeconfig": kubeconfig})
				if err != nil {
					t.Fatal(err)
				}
				creds = string(b)
			}
			out, err := cli.run(dir, append(slices.Clone(env), "TF_VAR_credentials="+creds), "plan", "-no-color")
			switch {
			case tt.want == nil && err != nil:
				t.Fatalf("plan failed:\n%s", out)
			case tt.want == nil:
				return
			case err == nil:
				t.Fatalf("plan succeeded, want %s:\n%s", tt.want, out)
			case !tt.want.MatchString(out):
				t.Errorf("plan output does not match %s:\n%s", tt.want, out)
			}
			// The private cluster's credentials are a secret: never echoed.
			for _, secret := range []string{"https://10.0.0.1:6443", "secret-token", `"x"`} {
				if strings.Contains(out, secret) {
					t.Errorf("the output shows a value of private_cluster_credentials (%s):\n%s", secret, out)
				}
			}
		})
	}
}

// testModuleApply applies the module against the lab (an EKS and an ACK burst
// cluster through the emulators, the runtime in a namespace of its own, a
// policy), checks what it wrote into the control cluster and the clouds, then
// destroys it and checks that nothing is left.
func testModuleApply(t *testing.T, cli *exampleCLI, lab labCluster, labEnv map[string]string, kubeconfig string) {
	c := labAdmin(t, lab)
	eksLab := requireEKSLab(t)
	ackAPI := requireACKLab(t)
	prefix := fmt.Sprintf("mod-%06d", rand.IntN(1e6))
	runtimeNS := "hca-" + prefix
	workloadNS := testNamespace(t, c, "hca-mod")
	private, eksName, ackName := prefix+"-private", prefix+"-eks", prefix+"-ack"

	dir := "apply"
	if err := os.MkdirAll(filepath.Join(cli.examples, dir), 0o755); err != nil {
		t.Fatal(err)
	}
	config := fmt.Sprintf(`terraform {
  required_providers {
    hca = { source = "hca-project/hca" }
  }
}
provider "hca" {
  kubeconfig_path = %[1]q
  aws {
    region = %[2]q
  }
  alicloud {
    region = %[3]q
  }
  endpoints {
    eks = %[4]q
    sts = %[5]q
    ack = %[6]q
  }
}
module "hybrid_burst" {
  source = "../modules/hybrid-burst"

  runtime = {
    image         = "hca-runtime:test"
    namespace     = %[7]q
    force_destroy = true # the lab holds other tests' hca objects
  }
  private_cluster             = { name = %[8]q }
  private_cluster_credentials = { kubeconfig = file(%[1]q) }
  burst_targets = {
    %[9]q = {
      provider_type       = "eks"
      priority            = 5
      price_per_vcpu_hour = "0.0464"
      price_per_gib_hour  = "0.0058"
      eks = {
        role_arn   = "arn:aws:iam::000000000000:role/eks-cluster"
        subnet_ids = ["subnet-0a1", "subnet-0b2"]
        node_groups = [
          {
            name           = "fixed"
            node_role_arn  = "arn:aws:iam::000000000000:role/eks-node"
            instance_types = ["t3.medium"]
            min_size       = 1
            max_size       = 2
            desired_size   = 1
          },
          {
            name           = "burst-spot"
            node_role_arn  = "arn:aws:iam::000000000000:role/eks-node"
            instance_types = ["t3.medium"]
            capacity_type  = "SPOT"
            max_size       = 3
            taints         = [{ key = "hca.dev/spot", value = "true", effect = "NO_SCHEDULE" }]
            allocatable    = { cpu = "2", memory = "4Gi", pods = 17 }
            price_per_hour = "0.0125"
          },
        ]
      }
    }
    %[10]q = {
      provider_type = "ack"
      priority      = 10
      max_pods      = 50
      ack = {
        vswitch_ids           = ["vsw-hcalab1"]
        worker_instance_types = ["ecs.g6.large"]
        worker_count          = 1
        node_pools = [{
          name           = "burst"
          instance_types = ["ecs.g6.large"]
          max_size       = 2
          allocatable    = { cpu = "2", memory = "8Gi" }
          price_per_hour = "0.09"
        }]
      }
    }
  }
  workloads = {
    web = { namespace = %[11]q, max_replicas = 5, capacity = { allow_spot = true } }
  }
}
output "burst_clusters" {
  value = module.hybrid_burst.burst_clusters
}
`, lab.kubeconfig, eksTestRegion, ackTestRegion, labEnv["HCA_LAB_EKS_ENDPOINT"], labEnv["HCA_LAB_STS_ENDPOINT"], labEnv["HCA_LAB_ACK_ENDPOINT"],
		runtimeNS, private, eksName, ackName, workloadNS)
	if err := os.WriteFile(filepath.Join(cli.examples, dir, "main.tf"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	env := labExampleEnv(lab, kubeconfig)
	cli.mustRun(t, dir, nil, "get", "-no-color")

	applied := false
	t.Cleanup(func() {
		if applied {
			// A failed check must not leave clusters in the lab.
			if out, err := cli.run(dir, env, "destroy", "-auto-approve", "-no-color"); err != nil {
				t.Errorf("cleanup destroy: %v\n%s", err, out)
			}
		}
	})
	applied = true
	cli.mustRun(t, dir, env, "apply", "-auto-approve", "-no-color")

	var outputs struct {
		BurstClusters struct {
			Value map[string]struct {
				CloudCluster string `json:"cloud_cluster"`
				Endpoint     string `json:"endpoint"`
			} `json:"value"`
		} `json:"burst_clusters"`
	}
	if err := json.Unmarshal([]byte(cli.mustRun(t, dir, env, "output", "-json")), &outputs); err != nil {
		t.Fatal(err)
	}
	ackID := outputs.BurstClusters.Value[ackName].CloudCluster
	if outputs.BurstClusters.Value[eksName].CloudCluster != eksName || ackID == "" {
		t.Fatalf("burst_clusters output: %+v", outputs.BurstClusters.Value)
	}

	ctx := context.Background()
	hybrid := func(name string) hcav1.HybridCluster {
		t.Helper()
		var hc hcav1.HybridCluster
		if err := c.Get(ctx, client.ObjectKey{Name: name}, &hc); err != nil {
			t.Fatalf("HybridCluster %s: %v", name, err)
		}
		return hc
	}
	secretKubeconfig := func(hc hcav1.HybridCluster) string {
		t.Helper()
		ref := hc.Spec.Credentials.SecretRef
		if ref == nil || ref.Namespace != runtimeNS {
			t.Fatalf("HybridCluster %s: secretRef %+v, want a Secret in the runtime's namespace %s", hc.Name, ref, runtimeNS)
		}
		var s corev1.Secret
		if err := c.Get(ctx, client.ObjectKey{Namespace: ref.Namespace, Name: string(ref.Name)}, &s); err != nil {
			t.Fatalf("Secret of %s: %v", hc.Name, err)
		}
		return string(s.Data[clusterSecretKey])
	}

	// The private cluster: primary, with the kubeconfig given.
	p := hybrid(private)
	if p.Spec.Role != hcav1.RolePrimary || p.Spec.Provider != hcav1.ProviderPrivate || p.Spec.Priority != 100 {
		t.Errorf("private HybridCluster spec %+v", p.Spec)
	}
	if secretKubeconfig(p) != kubeconfig {
		t.Error("the private cluster's Secret does not hold the kubeconfig given to the module")
	}
	// EKS: registered by name and the region of the cluster's ARN.
	e := hybrid(eksName)
	if eksCreds := e.Spec.Credentials.EKS; e.Spec.Role != hcav1.RoleBurst || e.Spec.Provider != hcav1.ProviderEKS || e.Spec.Priority != 5 ||
		eksCreds == nil || eksCreds.ClusterName != eksName || eksCreds.Region != eksTestRegion || e.Spec.Prices == nil {
		t.Errorf("EKS HybridCluster spec %+v (eks %+v)", e.Spec, e.Spec.Credentials.EKS)
	}
	if out, err := eksLab.client.DescribeCluster(ctx, &eks.DescribeClusterInput{Name: aws.String(eksName)}); err != nil || aws.ToString(out.Cluster.Endpoint) != outputs.BurstClusters.Value[eksName].Endpoint {
		t.Errorf("EKS cluster %s: %v", eksName, err)
	}
	// Only the group without desired_size is the runtime's, at 0 nodes in EKS.
	if g := e.Spec.NodeGroups; len(g) != 1 || g[0].Name != "burst-spot" || g[0].EKS == nil || *g[0].EKS != (hcav1.EKSNodeGroupRef{ClusterName: eksName, Region: eksTestRegion, NodegroupName: "burst-spot"}) ||
		g[0].CapacityType != hcav1.CapacitySpot || g[0].MaxNodes != 3 || g[0].PricePerHour != "0.0125" || len(g[0].Taints) != 1 || g[0].Taints[0].Effect != corev1.TaintEffectNoSchedule {
		t.Errorf("EKS HybridCluster spec.nodeGroups %+v", g)
	}
	if out, err := eksLab.client.DescribeNodegroup(ctx, &eks.DescribeNodegroupInput{ClusterName: aws.String(eksName), NodegroupName: aws.String("burst-spot")}); err != nil ||
		aws.ToInt32(out.Nodegroup.ScalingConfig.DesiredSize) != 0 || out.Nodegroup.CapacityType != "SPOT" {
		t.Errorf("EKS node group burst-spot: %+v, %v; want SPOT at 0 nodes", out, err)
	}
	// ACK: registered with the kubeconfig ACK issued for the cluster.
	a := hybrid(ackName)
	if a.Spec.Provider != hcav1.ProviderACK || a.Spec.Priority != 10 || a.Spec.Limits == nil || a.Spec.Limits.MaxPods == nil || *a.Spec.Limits.MaxPods != 50 {
		t.Errorf("ACK HybridCluster spec %+v", a.Spec)
	}
	if g := a.Spec.NodeGroups; len(g) != 1 || g[0].ACK == nil || g[0].ACK.ClusterID == "" || g[0].ACK.Region != ackTestRegion || g[0].ACK.NodePoolID == "" || g[0].MaxNodes != 2 {
		t.Errorf("ACK HybridCluster spec.nodeGroups %+v", g)
	}
	cfg, err := clientcmd.RESTConfigFromKubeConfig([]byte(secretKubeconfig(a)))
	if err != nil || cfg.Host != outputs.BurstClusters.Value[ackName].Endpoint {
		t.Errorf("the ACK cluster's Secret: kubeconfig for %v (%v), want the cluster's endpoint %s", cfg, err, outputs.BurstClusters.Value[ackName].Endpoint)
	}
	// The policy: the private cluster first, then the burst targets by priority.
	var bp hcav1.BurstPolicy
	if err := c.Get(ctx, client.ObjectKey{Namespace: workloadNS, Name: "web"}, &bp); err != nil {
		t.Fatalf("BurstPolicy: %v", err)
	}
	var targets []string
	for _, bt := range bp.Spec.BurstTargets {
		targets = append(targets, string(bt.Cluster))
	}
	if string(bp.Spec.PrimaryCluster) != private || !slices.Equal(targets, []string{ackName, eksName}) || string(bp.Spec.Target.DeploymentName) != "web" {
		t.Errorf("BurstPolicy: primary %s, burst targets %v, target %+v", bp.Spec.PrimaryCluster, targets, bp.Spec.Target)
	}

	// A second plan is empty: the module's values round-trip.
	if out := cli.mustRun(t, dir, env, "plan", "-no-color", "-detailed-exitcode"); !strings.Contains(out, "No changes.") {
		t.Errorf("plan after apply is not empty:\n%s", out)
	}

	cli.mustRun(t, dir, env, "destroy", "-auto-approve", "-no-color")
	applied = false
	for _, name := range []string{private, eksName, ackName} {
		if err := c.Get(ctx, client.ObjectKey{Name: name}, &hcav1.HybridCluster{}); !apierrors.IsNotFound(err) {
			t.Errorf("HybridCluster %s still there after destroy (get: %v)", name, err)
		}
	}
	if err := c.Get(ctx, client.ObjectKey{Namespace: workloadNS, Name: "web"}, &hcav1.BurstPolicy{}); !apierrors.IsNotFound(err) {
		t.Errorf("BurstPolicy still there after destroy (get: %v)", err)
	}
	var ns corev1.Namespace
	if err := c.Get(ctx, client.ObjectKey{Name: runtimeNS}, &ns); err == nil && ns.DeletionTimestamp == nil {
		t.Errorf("the runtime's namespace %s is still there after destroy", runtimeNS)
	}
	if _, err := eksLab.client.DescribeCluster(ctx, &eks.DescribeClusterInput{Name: aws.String(eksName)}); !eksNotFound(err) {
		t.Errorf("EKS cluster %s still there after destroy (describe: %v)", eksName, err)
	}
	if _, err := ackDescribe(ackAPI, ackID); !ackNotFound(err) {
		t.Errorf("ACK cluster %s still there after destroy (describe: %v)", ackID, err)
	}
}
