package provider

import (
	"context"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	ekstypes "github.com/aws/aws-sdk-go-v2/service/eks/types"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-testing/helper/acctest"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/hca-project/terraform-provider-hca/internal/lab/emulator"
	"github.com/hca-project/terraform-provider-hca/internal/lab/labtest"
)

const eksTestRegion = "us-east-1"

// eksLab is the lab's AWS emulator as the tests reach it independently of
// the provider: an EKS client of the unmodified SDK with the lab credentials.
type eksLab struct {
	endpoint string
	client   *eks.Client
}

// requireEKSLab returns the lab's EKS emulator and sets the AWS environment
// the provider reads (lab credentials, region).
func requireEKSLab(t *testing.T) eksLab {
	t.Helper()
	env := labtest.Require(t, "HCA_LAB_EKS_ENDPOINT", "HCA_LAB_STS_ENDPOINT")
	prepareAccEnv(t)
	t.Setenv("AWS_ACCESS_KEY_ID", emulator.AWSAccessKeyID)
	t.Setenv("AWS_SECRET_ACCESS_KEY", emulator.AWSSecretAccessKey)
	t.Setenv("AWS_REGION", eksTestRegion)
	cfg := aws.Config{
		Region:      eksTestRegion,
		Credentials: credentials.NewStaticCredentialsProvider(emulator.AWSAccessKeyID, emulator.AWSSecretAccessKey, ""),
	}
	client := eks.NewFromConfig(cfg, func(o *eks.Options) { o.BaseEndpoint = aws.String(env["HCA_LAB_EKS_ENDPOINT"]) })
	return eksLab{endpoint: env["HCA_LAB_EKS_ENDPOINT"], client: client}
}

func eksProviderHCL(endpoint string) string {
	return fmt.Sprintf(`provider "hca" {
  endpoints {
    eks = %q
    sts = %q
  }
}
`, endpoint, endpoint)
}

type eksTestConfig struct {
	name, ngName              string
	instanceType              string
	minSize, maxSize, desired int
	subnets                   string
	// instanceTypes and tags, when set, are the HCL of those arguments.
	instanceTypes, tags string
}

func (c eksTestConfig) hcl() string {
	if c.instanceType == "" {
		c.instanceType = "t3.medium"
	}
	if c.subnets == "" {
		c.subnets = `["subnet-0a1", "subnet-0b2"]`
	}
	if c.ngName == "" {
		c.ngName = "workers"
	}
	if c.instanceTypes == "" {
		c.instanceTypes = fmt.Sprintf("[%q]", c.instanceType)
	}
	if c.tags == "" {
		c.tags = `{
    team = "hca"
  }`
	}
	return fmt.Sprintf(`
resource "hca_eks_cluster" "test" {
  name       = %q
  version    = "1.34"
  role_arn   = "arn:aws:iam::000000000000:role/eks-cluster"
  subnet_ids = %s
  tags       = %s
  node_group = {
    name           = %q
    node_role_arn  = "arn:aws:iam::000000000000:role/eks-node"
    instance_types = %s
    min_size       = %d
    max_size       = %d
    desired_size   = %d
  }
}
`, c.name, c.subnets, c.tags, c.ngName, c.instanceTypes, c.minSize, c.maxSize, c.desired)
}

// checkEKSNodegroupDesired asks the emulator, through the SDK, for the node
// group's desired size.
func (l eksLab) checkNodegroupDesired(cluster, ng string, want int32) resource.TestCheckFunc {
	return func(*terraform.State) error {
		out, err := l.client.DescribeNodegroup(context.Background(), &eks.DescribeNodegroupInput{ClusterName: aws.String(cluster), NodegroupName: aws.String(ng)})
		if err != nil {
			return fmt.Errorf("DescribeNodegroup: %w", err)
		}
		if got := aws.ToInt32(out.Nodegroup.ScalingConfig.DesiredSize); got != want {
			return fmt.Errorf("node group %s/%s desired size is %d in EKS, want %d", cluster, ng, got, want)
		}
		if out.Nodegroup.Status != ekstypes.NodegroupStatusActive {
			return fmt.Errorf("node group %s/%s is %s, want ACTIVE", cluster, ng, out.Nodegroup.Status)
		}
		return nil
	}
}

// checkDestroyed asks the emulator that every hca_eks_cluster of the state is gone.
func (l eksLab) checkDestroyed(s *terraform.State) error {
	for _, rs := range s.RootModule().Resources {
		if rs.Type != "hca_eks_cluster" {
			continue
		}
		_, err := l.client.DescribeCluster(context.Background(), &eks.DescribeClusterInput{Name: aws.String(rs.Primary.ID)})
		if err == nil {
			return fmt.Errorf("EKS cluster %s still exists", rs.Primary.ID)
		}
		if !eksNotFound(err) {
			return fmt.Errorf("DescribeCluster %s: %w", rs.Primary.ID, err)
		}
	}
	return nil
}

// deleteOutOfBand deletes the cluster and its node group through the SDK and
// waits until the cluster is gone.
func (l eksLab) deleteOutOfBand(name, ng string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		if err := eksDeleteNodegroupAndWait(ctx, l.client, name, ng); err != nil {
			return err
		}
		return eksDeleteClusterAndWait(ctx, l.client, name)
	}
}

// TestAccEKSCluster_basic runs the deprecated node_group, which keeps working.
func TestAccEKSCluster_basic(t *testing.T) {
	l := requireEKSLab(t)
	name := acctest.RandomWithPrefix("hca-acc")
	cfg := eksTestConfig{name: name, minSize: 1, maxSize: 3, desired: 1}
	scaled := cfg
	scaled.desired = 2
	accTest(t, resource.TestCase{
		CheckDestroy: l.checkDestroyed,
		Steps: []resource.TestStep{
			{
				Config: eksProviderHCL(l.endpoint) + cfg.hcl(),
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr("hca_eks_cluster.test", "id", name),
					resource.TestCheckResourceAttr("hca_eks_cluster.test", "status", "ACTIVE"),
					resource.TestCheckResourceAttr("hca_eks_cluster.test", "version", "1.34"),
					resource.TestCheckResourceAttr("hca_eks_cluster.test", "arn", "arn:aws:eks:us-east-1:000000000000:cluster/"+name),
					resource.TestMatchResourceAttr("hca_eks_cluster.test", "endpoint", regexp.MustCompile(`^https://127\.0\.0\.1:\d+$`)),
					resource.TestMatchResourceAttr("hca_eks_cluster.test", "certificate_authority", regexp.MustCompile(`^LS0tLS1CRUdJTi`)),
					resource.TestCheckResourceAttr("hca_eks_cluster.test", "platform_version", "eks.1"),
					resource.TestCheckResourceAttr("hca_eks_cluster.test", "endpoint_public_access", "true"),
					resource.TestCheckResourceAttr("hca_eks_cluster.test", "endpoint_private_access", "false"),
					resource.TestCheckResourceAttr("hca_eks_cluster.test", "security_group_ids.#", "0"),
					resource.TestCheckResourceAttr("hca_eks_cluster.test", "tags.team", "hca"),
					resource.TestCheckResourceAttr("hca_eks_cluster.test", "node_group.status", "ACTIVE"),
					resource.TestCheckResourceAttr("hca_eks_cluster.test", "node_group.desired_size", "1"),
					resource.TestMatchResourceAttr("hca_eks_cluster.test", "node_group.arn", regexp.MustCompile(`^arn:aws:eks:us-east-1:000000000000:nodegroup/`+name+`/workers/`)),
					l.checkNodegroupDesired(name, "workers", 1),
				),
			},
			{
				// The deprecated node_group is imported as cluster:node_group.
				ResourceName:      "hca_eks_cluster.test",
				ImportState:       true,
				ImportStateId:     name + ":workers",
				ImportStateVerify: true,
			},
			{
				ResourceName:  "hca_eks_cluster.test",
				ImportState:   true,
				ImportStateId: name + ":nope",
				ExpectError:   errorRe("Error importing EKS cluster", `DescribeNodegroup "nope" of cluster "`+name+`":`, "ResourceNotFoundException: No node group found for name: nope."),
			},
			{
				Config: eksProviderHCL(l.endpoint) + scaled.hcl(),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction("hca_eks_cluster.test", plancheck.ResourceActionUpdate)},
				},
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr("hca_eks_cluster.test", "node_group.desired_size", "2"),
					l.checkNodegroupDesired(name, "workers", 2),
				),
			},
			{
				// The node group is deleted out of band: the refreshed plan
				// is not empty.
				Config:             eksProviderHCL(l.endpoint) + scaled.hcl(),
				Check:              l.deleteNodegroupOutOfBand(name, "workers"),
				ExpectNonEmptyPlan: true,
			},
			{
				// The next apply creates it again in place, keeping the cluster.
				Config: eksProviderHCL(l.endpoint) + scaled.hcl(),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction("hca_eks_cluster.test", plancheck.ResourceActionUpdate)},
				},
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr("hca_eks_cluster.test", "node_group.status", "ACTIVE"),
					resource.TestCheckResourceAttr("hca_eks_cluster.test", "arn", "arn:aws:eks:us-east-1:000000000000:cluster/"+name),
					l.checkNodegroupDesired(name, "workers", 2),
				),
			},
		},
	})
}

// deleteNodegroupOutOfBand deletes the node group through the SDK and waits
// until it is gone.
func (l eksLab) deleteNodegroupOutOfBand(cluster, ng string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		return eksDeleteNodegroupAndWait(ctx, l.client, cluster, ng)
	}
}

// TestAccEKSCluster_disappears deletes the cluster out of band: the next plan
// wants to create it, and apply does.
func TestAccEKSCluster_disappears(t *testing.T) {
	l := requireEKSLab(t)
	name := acctest.RandomWithPrefix("hca-acc")
	cfg := eksTestConfig{name: name, minSize: 0, maxSize: 1, desired: 0}
	accTest(t, resource.TestCase{
		CheckDestroy: l.checkDestroyed,
		Steps: []resource.TestStep{
			{
				Config:             eksProviderHCL(l.endpoint) + cfg.hcl(),
				Check:              l.deleteOutOfBand(name, "workers"),
				ExpectNonEmptyPlan: true,
			},
			{
				Config: eksProviderHCL(l.endpoint) + cfg.hcl(),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction("hca_eks_cluster.test", plancheck.ResourceActionCreate)},
				},
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr("hca_eks_cluster.test", "status", "ACTIVE"),
					l.checkNodegroupDesired(name, "workers", 0),
				),
			},
		},
	})
}

// TestAccEKSCluster_unknownInstanceType gets EKS's refusal of an instance type
// it does not offer, and that error alone (no "invalid result object" for the
// values the failed create did not learn); the cluster created before is
// kept in state, tainted, and destroyed.
func TestAccEKSCluster_unknownInstanceType(t *testing.T) {
	l := requireEKSLab(t)
	name := acctest.RandomWithPrefix("hca-acc")
	cfg := eksTestConfig{name: name, instanceType: "x9.huge", minSize: 0, maxSize: 1, desired: 0}
	accTest(t, resource.TestCase{
		CheckDestroy: l.checkDestroyed,
		Steps: []resource.TestStep{{
			Config: eksProviderHCL(l.endpoint) + cfg.hcl(),
			ExpectError: onlyErrorRe("Error creating EKS node group", fmt.Sprintf(`Node group "workers" of cluster %q: CreateNodegroup:`, name),
				"InvalidParameterException", `instance type "x9.huge" is not supported by the lab: use one of c5.xlarge, m5.2xlarge, m5.large, m5.xlarge, t3.medium`),
		}},
	})
}

// TestAccEKSCluster_invalid checks the plan-time diagnostics: nothing is created.
func TestAccEKSCluster_invalid(t *testing.T) {
	base := eksTestConfig{name: "hca-invalid", minSize: 1, maxSize: 3, desired: 2}
	with := func(f func(*eksTestConfig)) string {
		c := base
		f(&c)
		return c.hcl()
	}
	tests := []struct {
		name   string
		config string
		want   *regexp.Regexp
	}{
		{"min greater than max", with(func(c *eksTestConfig) { c.minSize, c.maxSize, c.desired = 4, 3, 3 }),
			errorRe("Invalid node_group scaling", "node_group.min_size (4) is greater than node_group.max_size (3): set min_size to at most max_size.")},
		{"desired above max", with(func(c *eksTestConfig) { c.desired = 5 }),
			errorRe("Invalid node_group scaling", "node_group.desired_size (5) is outside [min_size, max_size] = [1, 3]: set desired_size from min_size to max_size")},
		{"desired below min", with(func(c *eksTestConfig) { c.desired = 0 }),
			errorRe("Invalid node_group scaling", "node_group.desired_size (0) is outside [min_size, max_size] = [1, 3]")},
		{"one subnet", with(func(c *eksTestConfig) { c.subnets = `["subnet-0a1"]` }),
			errorRe("Invalid Attribute Value", "Attribute subnet_ids set must contain at least 2 elements, got: 1")},
		{"bad subnet id", with(func(c *eksTestConfig) { c.subnets = `["subnet-0a1", "vsw-1"]` }),
			errorRe("Invalid Attribute Value Match", `must be a subnet ID such as "subnet-0a1b2c3d", got: vsw-1`)},
		{"bad name", with(func(c *eksTestConfig) { c.name = "-burst" }),
			errorRe("Invalid Attribute Value Match", "Attribute name must start with a letter or digit and contain only letters, digits, hyphens and underscores, got: -burst")},
		{"duplicate instance type", with(func(c *eksTestConfig) { c.instanceTypes = `["m5.large", "m5.large"]` }),
			errorRe("Invalid node_group.instance_types", `node_group.instance_types[0] and node_group.instance_types[1] are both "m5.large": list each value once.`)},
		{"reserved tag key", with(func(c *eksTestConfig) { c.tags = `{ "aws:owner" = "me" }` }),
			errorRe("Invalid tags", `tags has the key "aws:owner": the prefix "aws:" is reserved for AWS`)},
		{"bad instance type", with(func(c *eksTestConfig) { c.instanceType = "large" }),
			errorRe("Invalid Attribute Value Match", `must be an EC2 instance type such as "m5.large", got: large`)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prepareAccEnv(t)
			accTest(t, resource.TestCase{
				Steps: []resource.TestStep{{Config: tt.config, PlanOnly: true, ExpectError: tt.want}},
			})
		})
	}
}

func TestEKSScalingProblem(t *testing.T) {
	n := func(v int64) *int64 { return &v }
	tests := []struct {
		min, max int64
		desired  *int64
		want     string
	}{
		{1, 3, n(2), ""},
		{0, 1, n(0), ""},
		{3, 3, n(3), ""},
		{0, 5, nil, ""},
		{4, 3, nil, "g.min_size (4) is greater than g.max_size (3): set min_size to at most max_size."},
		{4, 3, n(3), "g.min_size (4) is greater than g.max_size (3): set min_size to at most max_size."},
		{1, 3, n(4), "g.desired_size (4) is outside [min_size, max_size] = [1, 3]: set desired_size from min_size to max_size, or remove it to hand the size to the HCA runtime."},
		{2, 3, n(1), "g.desired_size (1) is outside [min_size, max_size] = [2, 3]: set desired_size from min_size to max_size, or remove it to hand the size to the HCA runtime."},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%d-%d-%v", tt.min, tt.max, tt.desired), func(t *testing.T) {
			if got := eksScalingProblem("g", tt.min, tt.max, tt.desired); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestEKSIAMPropagationError(t *testing.T) {
	ipe := func(msg string) error {
		return fmt.Errorf("operation error EKS: CreateCluster: %w", &ekstypes.InvalidParameterException{Message: aws.String(msg)})
	}
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"role does not exist", ipe("roleArn, arn:aws:iam::123456789012:role/eks, does not exist"), true},
		{"role params", ipe("Error in role params"), true},
		{"trusted entity", ipe("Role could not be assumed because the trusted entity is not correct"), true},
		{"managed policies", ipe("The provided role doesn't have the Amazon EKS Managed Policies associated with it. Please ensure the following policy is attached: arn:aws:iam::aws:policy/AmazonEKSClusterPolicy"), true},
		{"policy action", ipe("IAM role's policy must include the `ec2:DescribeSubnets` action"), true},
		{"subnet does not exist", ipe("The subnet ID 'subnet-1' does not exist"), false},
		{"too few subnets", ipe("Subnets specified must be in at least two different AZs"), false},
		{"other error type", &ekstypes.ResourceInUseException{Message: aws.String("role does not exist")}, false},
		{"plain error", errors.New("role does not exist"), false},
		{"nil", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := eksIAMPropagationError(tt.err); got != tt.want {
				t.Errorf("eksIAMPropagationError(%v) = %v, want %v", tt.err, got, tt.want)
			}
		})
	}
}

func TestEKSConverters(t *testing.T) {
	ctx := context.Background()
	str := func(ss ...string) []string { return ss }
	set := func(ss ...string) types.Set {
		v, _ := types.SetValueFrom(ctx, types.StringType, ss)
		return v
	}
	list := func(ss ...string) types.List {
		v, _ := types.ListValueFrom(ctx, types.StringType, ss)
		return v
	}
	plan := eksClusterModel{
		Name:                  types.StringValue("burst"),
		Version:               types.StringUnknown(),
		RoleARN:               types.StringValue("arn:aws:iam::000000000000:role/c"),
		SubnetIDs:             set("subnet-b", "subnet-a"),
		SecurityGroupIDs:      types.SetUnknown(types.StringType),
		EndpointPublicAccess:  types.BoolValue(true),
		EndpointPrivateAccess: types.BoolValue(false),
		Tags:                  types.MapNull(types.StringType),
		NodeGroup: &eksNodeGroup{
			Name: types.StringValue("workers"), NodeRoleARN: types.StringValue("arn:aws:iam::000000000000:role/n"),
			InstanceTypes: list("m5.large"), MinSize: types.Int64Value(1), MaxSize: types.Int64Value(3), DesiredSize: types.Int64Value(2),
		},
	}

	t.Run("create cluster input", func(t *testing.T) {
		in, diags := eksCreateClusterInput(ctx, plan)
		if diags.HasError() {
			t.Fatal(diags)
		}
		vpc := in.ResourcesVpcConfig
		switch {
		case aws.ToString(in.Name) != "burst", in.Version != nil, in.Tags != nil:
			t.Errorf("name %q, version %v, tags %v: want burst, unset (EKS default), none", aws.ToString(in.Name), in.Version, in.Tags)
		case fmt.Sprint(vpc.SubnetIds) != "[subnet-a subnet-b]", len(vpc.SecurityGroupIds) != 0:
			t.Errorf("subnets %v, security groups %v", vpc.SubnetIds, vpc.SecurityGroupIds)
		case !aws.ToBool(vpc.EndpointPublicAccess), aws.ToBool(vpc.EndpointPrivateAccess):
			t.Errorf("endpoint access public %v private %v", *vpc.EndpointPublicAccess, *vpc.EndpointPrivateAccess)
		}
	})
	t.Run("create node group input", func(t *testing.T) {
		in, diags := eksCreateNodegroupInput(ctx, plan)
		if diags.HasError() {
			t.Fatal(diags)
		}
		sc := in.ScalingConfig
		if got := fmt.Sprintf("%s %s %v %v %d/%d/%d", aws.ToString(in.ClusterName), aws.ToString(in.NodegroupName), in.Subnets, in.InstanceTypes,
			*sc.MinSize, *sc.MaxSize, *sc.DesiredSize); got != "burst workers [subnet-a subnet-b] [m5.large] 1/3/2" {
			t.Errorf("got %s", got)
		}
	})
	t.Run("scaling update", func(t *testing.T) {
		same := *plan.NodeGroup
		if sc := eksScalingUpdate(plan.NodeGroup, &same); sc != nil {
			t.Errorf("no change gave %+v, want nil", sc)
		}
		more := same
		more.DesiredSize = types.Int64Value(3)
		sc := eksScalingUpdate(plan.NodeGroup, &more)
		if sc == nil || *sc.DesiredSize != 3 || *sc.MinSize != 1 || *sc.MaxSize != 3 {
			t.Errorf("desired 2 -> 3 gave %+v", sc)
		}
	})

	cluster := &ekstypes.Cluster{
		Name: aws.String("burst"), Arn: aws.String("arn:aws:eks:us-east-1:000000000000:cluster/burst"), Version: aws.String("1.34"),
		RoleArn: aws.String("arn:aws:iam::000000000000:role/c"), Endpoint: aws.String("https://127.0.0.1:6443"),
		Status: ekstypes.ClusterStatusActive, PlatformVersion: aws.String("eks.1"),
		CertificateAuthority: &ekstypes.Certificate{Data: aws.String("Q0E=")},
		ResourcesVpcConfig:   &ekstypes.VpcConfigResponse{SubnetIds: str("subnet-a", "subnet-b"), EndpointPublicAccess: true},
	}
	ng := &ekstypes.Nodegroup{
		NodegroupName: aws.String("workers"), NodeRole: aws.String("arn:aws:iam::000000000000:role/n"), NodegroupArn: aws.String("arn:ng"),
		Status: ekstypes.NodegroupStatusActive, InstanceTypes: str("m5.large"),
		ScalingConfig: &ekstypes.NodegroupScalingConfig{MinSize: aws.Int32(1), MaxSize: aws.Int32(3), DesiredSize: aws.Int32(2)},
	}
	flattenTests := []struct {
		name     string
		tags     map[string]string
		prevTags types.Map
		ng       *ekstypes.Nodegroup
		wantTags string
		wantNG   bool
	}{
		{"no tags stay null", nil, types.MapNull(types.StringType), ng, "<null>", true},
		{"tags added out of band show", map[string]string{"a": "b"}, types.MapNull(types.StringType), ng, `{"a":"b"}`, true},
		{"node group gone", nil, types.MapNull(types.StringType), nil, "<null>", false},
	}
	for _, tt := range flattenTests {
		t.Run("flatten "+tt.name, func(t *testing.T) {
			c := *cluster
			c.Tags = tt.tags
			m := eksClusterModel{Tags: tt.prevTags}
			if diags := eksFlatten(ctx, &c, tt.ng, &m); diags.HasError() {
				t.Fatal(diags)
			}
			if m.ID.ValueString() != "burst" || m.Endpoint.ValueString() != "https://127.0.0.1:6443" || m.CertificateAuthority.ValueString() != "Q0E=" ||
				m.Status.ValueString() != "ACTIVE" || m.PlatformVersion.ValueString() != "eks.1" || m.SecurityGroupIDs.IsNull() || len(m.SecurityGroupIDs.Elements()) != 0 {
				t.Errorf("cluster fields: %+v", m)
			}
			if got := m.Tags.String(); got != tt.wantTags {
				t.Errorf("tags %s, want %s", got, tt.wantTags)
			}
			if (m.NodeGroup != nil) != tt.wantNG {
				t.Fatalf("node group %+v, want present=%v", m.NodeGroup, tt.wantNG)
			}
			if tt.wantNG && (m.NodeGroup.DesiredSize.ValueInt64() != 2 || m.NodeGroup.InstanceTypes.String() != `["m5.large"]` || m.NodeGroup.Status.ValueString() != "ACTIVE") {
				t.Errorf("node group %+v", m.NodeGroup)
			}
		})
	}
}

// TestAccEKSClusterResource_example plans examples/resources/hca_eks_cluster
// with the real Terraform CLI: it is valid and passes every plan-time check.
func TestAccEKSClusterResource_example(t *testing.T) {
	prepareAccEnv(t)
	t.Setenv("AWS_ACCESS_KEY_ID", emulator.AWSAccessKeyID)
	t.Setenv("AWS_SECRET_ACCESS_KEY", emulator.AWSSecretAccessKey)
	t.Setenv("AWS_REGION", eksTestRegion)
	example, err := os.ReadFile("../examples/resources/hca_eks_cluster/resource.tf")
	if err != nil {
		t.Fatal(err)
	}
	accTest(t, resource.TestCase{
		Steps: []resource.TestStep{{
			Config:             string(example),
			PlanOnly:           true,
			ExpectNonEmptyPlan: true,
		}},
	})
}

// eksGroupsHCL is an hca_eks_cluster with node_groups (the HCL of its elements).
func eksGroupsHCL(name string, groups ...string) string {
	return fmt.Sprintf(`
resource "hca_eks_cluster" "test" {
  name       = %q
  version    = "1.34"
  role_arn   = "arn:aws:iam::000000000000:role/eks-cluster"
  subnet_ids = ["subnet-0a1", "subnet-0b2"]
  node_groups = [%s]
}
`, name, strings.Join(groups, ",\n"))
}

// eksGroupHCL is one node_groups element; extra is more HCL inside it.
func eksGroupHCL(name, instanceType string, minSize, maxSize int, extra string) string {
	return fmt.Sprintf(`{
    name           = %q
    node_role_arn  = "arn:aws:iam::000000000000:role/eks-node"
    instance_types = [%q]
    min_size       = %d
    max_size       = %d
    %s
  }`, name, instanceType, minSize, maxSize, extra)
}

// setDesiredOutOfBand changes a node group's desired size through the SDK,
// as the HCA runtime does, and waits for the update.
func (l eksLab) setDesiredOutOfBand(t *testing.T, cluster, ng string, desired int32) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, err := l.client.UpdateNodegroupConfig(ctx, &eks.UpdateNodegroupConfigInput{
		ClusterName: aws.String(cluster), NodegroupName: aws.String(ng),
		ScalingConfig: &ekstypes.NodegroupScalingConfig{DesiredSize: aws.Int32(desired)},
	})
	if err != nil {
		t.Fatalf("UpdateNodegroupConfig %s/%s desired %d: %v", cluster, ng, desired, err)
	}
	if err := eksWaitUpdate(ctx, l.client, cluster, ng, aws.ToString(out.Update.Id)); err != nil {
		t.Fatal(err)
	}
}

// checkNodegroup asks the emulator for a node group's capacity type, scaling
// (min/max/desired) and labels.
func (l eksLab) checkNodegroup(cluster, ng string, capacity ekstypes.CapacityTypes, minSize, maxSize, desired int32, labels string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		out, err := l.client.DescribeNodegroup(context.Background(), &eks.DescribeNodegroupInput{ClusterName: aws.String(cluster), NodegroupName: aws.String(ng)})
		if err != nil {
			return fmt.Errorf("DescribeNodegroup %s/%s: %w", cluster, ng, err)
		}
		n := out.Nodegroup
		sc := n.ScalingConfig
		got := fmt.Sprintf("%s %d/%d/%d %v", n.CapacityType, aws.ToInt32(sc.MinSize), aws.ToInt32(sc.MaxSize), aws.ToInt32(sc.DesiredSize), n.Labels)
		if want := fmt.Sprintf("%s %d/%d/%d %s", capacity, minSize, maxSize, desired, labels); got != want {
			return fmt.Errorf("node group %s/%s in EKS is %q (capacity min/max/desired labels), want %q", cluster, ng, got, want)
		}
		return nil
	}
}

// TestAccEKSCluster_nodeGroups creates an on-demand and a spot group at 0
// nodes whose sizes are the runtime's, scales one through the SDK as the
// runtime does (the next plan is empty and apply leaves it alone), then
// changes the groups in place: a max_size below the runtime's size clamps
// it, a group is added, one removed, labels change, the cluster is kept.
func TestAccEKSCluster_nodeGroups(t *testing.T) {
	l := requireEKSLab(t)
	name := acctest.RandomWithPrefix("hca-acc")
	const r = "hca_eks_cluster.test"
	onDemand := eksGroupHCL("on-demand", "m5.large", 0, 4, `labels = { "hca.dev/capacity" = "on-demand" }`)
	spot := eksGroupHCL("spot", "m5.large", 0, 6, `capacity_type = "SPOT"
    labels = { "hca.dev/capacity" = "spot" }
    taints = [{ key = "hca.dev/spot", value = "true", effect = "NO_SCHEDULE" }]
    tags   = { "hca.dev/lab-node-boot-delay" = "2s" }`)
	first := eksProviderHCL(l.endpoint) + eksGroupsHCL(name, onDemand, spot)
	onDemand2 := eksGroupHCL("on-demand", "m5.large", 0, 1, `labels = { "hca.dev/capacity" = "on-demand", team = "web" }`)
	fixed := eksGroupHCL("fixed", "t3.medium", 1, 2, "desired_size = 1")
	// fixed comes first: an import lists groups by name.
	second := eksProviderHCL(l.endpoint) + eksGroupsHCL(name, fixed, onDemand2)
	var clusterARN string
	accTest(t, resource.TestCase{
		CheckDestroy: l.checkDestroyed,
		Steps: []resource.TestStep{
			{
				Config: first,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectKnownValue(r, tfjsonpath.New("node_groups").AtSliceIndex(1).AtMapKey("eks").AtMapKey("nodegroup_name"), knownvalue.StringExact("spot")),
						plancheck.ExpectKnownValue(r, tfjsonpath.New("node_groups").AtSliceIndex(1).AtMapKey("eks").AtMapKey("cluster_name"), knownvalue.StringExact(name)),
						plancheck.ExpectKnownValue(r, tfjsonpath.New("node_groups").AtSliceIndex(1).AtMapKey("eks").AtMapKey("region"), knownvalue.StringExact(eksTestRegion)),
					},
				},
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(r, "node_groups.#", "2"),
					resource.TestCheckNoResourceAttr(r, "node_group"),
					resource.TestCheckResourceAttr(r, "node_groups.0.status", "ACTIVE"),
					resource.TestCheckResourceAttr(r, "node_groups.0.capacity_type", "ON_DEMAND"),
					resource.TestCheckNoResourceAttr(r, "node_groups.0.desired_size"),
					resource.TestCheckResourceAttr(r, "node_groups.1.capacity_type", "SPOT"),
					resource.TestCheckResourceAttr(r, "node_groups.1.taints.0.effect", "NO_SCHEDULE"),
					resource.TestCheckResourceAttr(r, "node_groups.1.tags.hca.dev/lab-node-boot-delay", "2s"),
					resource.TestCheckNoResourceAttr(r, "node_groups.0.tags"),
					resource.TestMatchResourceAttr(r, "node_groups.1.arn", regexp.MustCompile(`^arn:aws:eks:us-east-1:000000000000:nodegroup/`+name+`/spot/`)),
					resource.TestCheckResourceAttr(r, "node_groups.1.eks.nodegroup_name", "spot"),
					l.checkNodegroup(name, "on-demand", ekstypes.CapacityTypesOnDemand, 0, 4, 0, "map[hca.dev/capacity:on-demand]"),
					l.checkNodegroup(name, "spot", ekstypes.CapacityTypesSpot, 0, 6, 0, "map[hca.dev/capacity:spot]"),
					func(s *terraform.State) error {
						clusterARN = s.RootModule().Resources[r].Primary.Attributes["arn"]
						return nil
					},
				),
			},
			{
				// The runtime grows both groups: Terraform plans nothing and
				// leaves the sizes alone.
				PreConfig: func() {
					l.setDesiredOutOfBand(t, name, "on-demand", 3)
					l.setDesiredOutOfBand(t, name, "spot", 2)
				},
				Config: first,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: resource.ComposeAggregateTestCheckFunc(
					l.checkNodegroup(name, "on-demand", ekstypes.CapacityTypesOnDemand, 0, 4, 3, "map[hca.dev/capacity:on-demand]"),
					l.checkNodegroup(name, "spot", ekstypes.CapacityTypesSpot, 0, 6, 2, "map[hca.dev/capacity:spot]"),
				),
			},
			{
				Config: second,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(r, plancheck.ResourceActionUpdate)},
				},
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(r, "node_groups.#", "2"),
					resource.TestCheckResourceAttr(r, "node_groups.0.name", "fixed"),
					resource.TestCheckResourceAttr(r, "node_groups.0.desired_size", "1"),
					resource.TestCheckNoResourceAttr(r, "node_groups.1.desired_size"),
					resource.TestCheckResourceAttrWith(r, "arn", func(v string) error {
						if v != clusterARN {
							return fmt.Errorf("cluster ARN %s, want %s (kept)", v, clusterARN)
						}
						return nil
					}),
					// max_size 1 is below the runtime's 3: the size is clamped.
					l.checkNodegroup(name, "on-demand", ekstypes.CapacityTypesOnDemand, 0, 1, 1, "map[hca.dev/capacity:on-demand team:web]"),
					l.checkNodegroup(name, "fixed", ekstypes.CapacityTypesOnDemand, 1, 2, 1, "map[]"),
					l.checkNodegroupGone(name, "spot"),
				),
			},
			{
				// Import by cluster name: every group, sizes left to the runtime
				// (fixed's desired_size is then taken back by the next apply).
				ResourceName:            r,
				ImportState:             true,
				ImportStateId:           name,
				ImportStateVerify:       true,
				ImportStateVerifyIgnore: []string{"node_groups.0.desired_size"},
			},
		},
	})
}

// checkNodegroupGone asks the emulator that a node group no longer exists.
func (l eksLab) checkNodegroupGone(cluster, ng string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		_, err := l.client.DescribeNodegroup(context.Background(), &eks.DescribeNodegroupInput{ClusterName: aws.String(cluster), NodegroupName: aws.String(ng)})
		if !eksNotFound(err) {
			return fmt.Errorf("DescribeNodegroup %s/%s: %v, want ResourceNotFoundException", cluster, ng, err)
		}
		return nil
	}
}

// TestAccEKSCluster_nodeGroupToNodeGroups moves the deprecated node_group
// into node_groups without desired_size: the node group is kept (same ARN)
// and its size, from then on the runtime's, is not changed.
func TestAccEKSCluster_nodeGroupToNodeGroups(t *testing.T) {
	l := requireEKSLab(t)
	name := acctest.RandomWithPrefix("hca-acc")
	const r = "hca_eks_cluster.test"
	legacy := eksTestConfig{name: name, minSize: 0, maxSize: 3, desired: 1}
	migrated := eksProviderHCL(l.endpoint) + fmt.Sprintf(`
resource "hca_eks_cluster" "test" {
  name       = %q
  version    = "1.34"
  role_arn   = "arn:aws:iam::000000000000:role/eks-cluster"
  subnet_ids = ["subnet-0a1", "subnet-0b2"]
  tags       = { team = "hca" }
  node_groups = [%s]
}
`, name, eksGroupHCL("workers", "t3.medium", 0, 3, ""))
	var ngARN string
	accTest(t, resource.TestCase{
		CheckDestroy: l.checkDestroyed,
		Steps: []resource.TestStep{
			{
				Config: eksProviderHCL(l.endpoint) + legacy.hcl(),
				Check: func(s *terraform.State) error {
					ngARN = s.RootModule().Resources[r].Primary.Attributes["node_group.arn"]
					return nil
				},
			},
			{
				Config: migrated,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(r, plancheck.ResourceActionUpdate)},
				},
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckNoResourceAttr(r, "node_group"),
					resource.TestCheckResourceAttrWith(r, "node_groups.0.arn", func(v string) error {
						if v != ngARN {
							return fmt.Errorf("node group ARN %s, want %s (kept)", v, ngARN)
						}
						return nil
					}),
					l.checkNodegroup(name, "workers", ekstypes.CapacityTypesOnDemand, 0, 3, 1, "map[]"),
				),
			},
			{
				// Back into node_group: refused at plan time.
				Config:      eksProviderHCL(l.endpoint) + legacy.hcl(),
				PlanOnly:    true,
				ExpectError: errorRe("Invalid node_group", "The cluster's node groups are in node_groups: moving them back into the deprecated node_group is not supported. Keep node_groups."),
			},
			{Config: migrated, PlanOnly: true},
		},
	})
}

// TestAccEKSCluster_nodeGroupsInvalid checks node_groups' plan-time
// diagnostics: nothing is created.
func TestAccEKSCluster_nodeGroupsInvalid(t *testing.T) {
	ok := eksGroupHCL("a", "m5.large", 0, 2, "")
	tests := []struct {
		name   string
		config string
		want   *regexp.Regexp
	}{
		{"min greater than max", eksGroupsHCL("c", ok, eksGroupHCL("b", "m5.large", 3, 2, "")),
			errorRe("Invalid node_groups scaling", "node_groups[1].min_size (3) is greater than node_groups[1].max_size (2): set min_size to at most max_size.")},
		{"desired above max", eksGroupsHCL("c", eksGroupHCL("a", "m5.large", 0, 2, "desired_size = 3")),
			errorRe("Invalid node_groups scaling", "node_groups[0].desired_size (3) is outside [min_size, max_size] = [0, 2]", "or remove it to hand the size to the HCA runtime.")},
		{"same name twice", eksGroupsHCL("c", ok, ok),
			errorRe("Invalid node_groups", `node_groups[0] and node_groups[1] are both named "a": give each node group its own name.`)},
		{"bad capacity type", eksGroupsHCL("c", eksGroupHCL("a", "m5.large", 0, 2, `capacity_type = "spot"`)),
			errorRe("Invalid Attribute Value Match", `value must be one of: ["ON_DEMAND" "SPOT"], got: "spot"`)},
		{"bad taint effect", eksGroupsHCL("c", eksGroupHCL("a", "m5.large", 0, 2, `taints = [{ key = "k", effect = "NoSchedule" }]`)),
			errorRe("Invalid Attribute Value Match", `got: "NoSchedule"`)},
		{"bad label", eksGroupsHCL("c", eksGroupHCL("a", "m5.large", 0, 2, `labels = { "a b" = "x" }`)),
			errorRe("Invalid node_groups[0].labels", "not a Kubernetes label key")},
		{"no node groups", `
resource "hca_eks_cluster" "test" {
  name       = "c"
  role_arn   = "arn:aws:iam::000000000000:role/eks-cluster"
  subnet_ids = ["subnet-0a1", "subnet-0b2"]
}`, errorRe("Missing node_groups", "hca_eks_cluster needs its node groups: set node_groups")},
		{"both forms", strings.Replace(eksTestConfig{name: "c", minSize: 0, maxSize: 1, desired: 0}.hcl(), "node_group = {", "node_groups = ["+ok+"]\n  node_group = {", 1),
			errorRe("Invalid node_group", "node_group and node_groups are both set: move node_group into node_groups (node_group is deprecated).")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prepareAccEnv(t)
			accTest(t, resource.TestCase{
				Steps: []resource.TestStep{{Config: tt.config, PlanOnly: true, ExpectError: tt.want}},
			})
		})
	}
}

func TestEKSGroupConverters(t *testing.T) {
	ctx := context.Background()
	list := func(ss ...string) types.List {
		v, _ := types.ListValueFrom(ctx, types.StringType, ss)
		return v
	}
	labels := func(kv ...string) types.Map {
		m := map[string]string{}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		v, _ := types.MapValueFrom(ctx, types.StringType, m)
		return v
	}
	taint := func(k, v, e string) eksTaint {
		val := types.StringNull()
		if v != "" {
			val = types.StringValue(v)
		}
		return eksTaint{Key: types.StringValue(k), Value: val, Effect: types.StringValue(e)}
	}
	group := eksGroup{
		Name: types.StringValue("spot"), NodeRoleARN: types.StringValue("arn:aws:iam::000000000000:role/n"), InstanceTypes: list("m5.xlarge"),
		CapacityType: types.StringValue("SPOT"), MinSize: types.Int64Value(0), MaxSize: types.Int64Value(6), DesiredSize: types.Int64Null(),
		Labels: labels("pool", "spot"), Taints: []eksTaint{taint("hca.dev/spot", "true", "NO_SCHEDULE")}, Tags: types.MapNull(types.StringType),
	}

	t.Run("create input", func(t *testing.T) {
		tests := []struct {
			name    string
			desired types.Int64
			want    string
		}{
			// Without desired_size the group starts at min_size.
			{"runtime's size", types.Int64Null(), "0/6/0"},
			{"terraform's size", types.Int64Value(2), "0/6/2"},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				g := group
				g.DesiredSize = tt.desired
				in, d := eksGroupCreateInput(ctx, "c", []string{"subnet-b", "subnet-a"}, g)
				if d.HasError() {
					t.Fatal(d)
				}
				sc := in.ScalingConfig
				if got := fmt.Sprintf("%d/%d/%d", *sc.MinSize, *sc.MaxSize, *sc.DesiredSize); got != tt.want {
					t.Errorf("scaling %s, want %s", got, tt.want)
				}
				if in.CapacityType != ekstypes.CapacityTypesSpot || fmt.Sprint(in.Subnets) != "[subnet-a subnet-b]" || in.Labels["pool"] != "spot" ||
					len(in.Taints) != 1 || in.Taints[0].Effect != ekstypes.TaintEffectNoSchedule || aws.ToString(in.Taints[0].Value) != "true" {
					t.Errorf("input %+v", in)
				}
			})
		}
	})

	t.Run("update input", func(t *testing.T) {
		with := func(f func(*eksGroup)) eksGroup {
			g := group
			f(&g)
			return g
		}
		tests := []struct {
			name    string
			plan    eksGroup
			current int32 // the desired size in EKS
			want    string
		}{
			// The runtime scaled to 4: nothing planned, nothing sent.
			{"no change", group, 4, "nil"},
			{"max raised, runtime's size kept", with(func(g *eksGroup) { g.MaxSize = types.Int64Value(8) }), 4, "scaling 0/8/- labels <nil> taints <nil>"},
			// max 3 would exclude the runtime's 4: clamped to 3.
			{"max below the runtime's size", with(func(g *eksGroup) { g.MaxSize = types.Int64Value(3) }), 4, "scaling 0/3/3 labels <nil> taints <nil>"},
			{"min above the runtime's size", with(func(g *eksGroup) { g.MinSize = types.Int64Value(2) }), 1, "scaling 2/6/2 labels <nil> taints <nil>"},
			// Terraform takes the size back: min and max go with it.
			{"desired set", with(func(g *eksGroup) { g.DesiredSize = types.Int64Value(1) }), 4, "scaling 0/6/1 labels <nil> taints <nil>"},
			{"labels", with(func(g *eksGroup) { g.Labels = labels("pool", "spot2", "team", "web") }), 0,
				"scaling <nil> labels {map[pool:spot2 team:web] []} taints <nil>"},
			{"labels removed", with(func(g *eksGroup) { g.Labels = types.MapNull(types.StringType) }), 0, "scaling <nil> labels {map[] [pool]} taints <nil>"},
			{"taint value and a new taint", with(func(g *eksGroup) {
				g.Taints = []eksTaint{taint("hca.dev/spot", "yes", "NO_SCHEDULE"), taint("x", "", "NO_EXECUTE")}
			}), 0, "scaling <nil> labels <nil> taints add [hca.dev/spot=yes:NO_SCHEDULE x=:NO_EXECUTE] remove []"},
			{"taint removed", with(func(g *eksGroup) { g.Taints = nil }), 0, "scaling <nil> labels <nil> taints add [] remove [hca.dev/spot=true:NO_SCHEDULE]"},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				in, d := eksGroupUpdate(ctx, "c", group, tt.plan, tt.current)
				if d.HasError() {
					t.Fatal(d)
				}
				got := "nil"
				if in != nil {
					sc := "<nil>"
					if s := in.ScalingConfig; s != nil {
						des := "-"
						if s.DesiredSize != nil {
							des = fmt.Sprint(*s.DesiredSize)
						}
						sc = fmt.Sprintf("%d/%d/%s", *s.MinSize, *s.MaxSize, des)
					}
					lb := "<nil>"
					if l := in.Labels; l != nil {
						lb = fmt.Sprintf("{%v %v}", nonNilMap(l.AddOrUpdateLabels), nonNil(l.RemoveLabels))
					}
					tn := "<nil>"
					if ts := in.Taints; ts != nil {
						str := func(ts []ekstypes.Taint) []string {
							out := []string{}
							for _, t := range ts {
								out = append(out, fmt.Sprintf("%s=%s:%s", aws.ToString(t.Key), aws.ToString(t.Value), t.Effect))
							}
							return out
						}
						tn = fmt.Sprintf("add %v remove %v", str(ts.AddOrUpdateTaints), str(ts.RemoveTaints))
					}
					got = fmt.Sprintf("scaling %s labels %s taints %s", sc, lb, tn)
				}
				if got != tt.want {
					t.Errorf("got  %s\nwant %s", got, tt.want)
				}
			})
		}
	})

	t.Run("recreated", func(t *testing.T) {
		for _, tt := range []struct {
			name string
			f    func(*eksGroup)
			want bool
		}{
			{"sizes", func(g *eksGroup) { g.MaxSize = types.Int64Value(9) }, false},
			{"labels", func(g *eksGroup) { g.Labels = types.MapNull(types.StringType) }, false},
			{"role", func(g *eksGroup) { g.NodeRoleARN = types.StringValue("arn:aws:iam::000000000000:role/m") }, true},
			{"instance types", func(g *eksGroup) { g.InstanceTypes = list("m5.large") }, true},
			{"capacity type", func(g *eksGroup) { g.CapacityType = types.StringValue("ON_DEMAND") }, true},
			{"tags", func(g *eksGroup) { g.Tags = labels("team", "web") }, true},
			{"no tags written empty", func(g *eksGroup) { g.Tags = labels() }, false},
		} {
			g := group
			tt.f(&g)
			if got := eksGroupRecreated(group, g); got != tt.want {
				t.Errorf("%s: recreated %v, want %v", tt.name, got, tt.want)
			}
		}
	})

	t.Run("flatten", func(t *testing.T) {
		ng := &ekstypes.Nodegroup{
			NodegroupName: aws.String("spot"), ClusterName: aws.String("c"), NodeRole: aws.String("arn:aws:iam::000000000000:role/n"),
			NodegroupArn: aws.String("arn:ng"), Status: ekstypes.NodegroupStatusActive, CapacityType: ekstypes.CapacityTypesSpot,
			InstanceTypes: []string{"m5.xlarge"}, Labels: map[string]string{"pool": "spot"},
			Taints:        []ekstypes.Taint{{Key: aws.String("hca.dev/spot"), Value: aws.String("true"), Effect: ekstypes.TaintEffectNoSchedule}},
			ScalingConfig: &ekstypes.NodegroupScalingConfig{MinSize: aws.Int32(0), MaxSize: aws.Int32(6), DesiredSize: aws.Int32(4)},
		}
		tests := []struct {
			name        string
			prior       eksGroup
			ng          *ekstypes.Nodegroup
			wantDesired string
			wantLabels  string
			wantTaints  int // -1: null
		}{
			// The runtime's size (null) stays null whatever EKS says.
			{"runtime's size", group, ng, "<null>", `{"pool":"spot"}`, 1},
			{"terraform's size", func() eksGroup { g := group; g.DesiredSize = types.Int64Value(2); return g }(), ng, "4", `{"pool":"spot"}`, 1},
			{"no labels or taints stay null", eksGroup{DesiredSize: types.Int64Null(), Labels: types.MapNull(types.StringType)},
				func() *ekstypes.Nodegroup { n := *ng; n.Labels, n.Taints = nil, nil; return &n }(), "<null>", "<null>", -1},
			{"empty taints stay empty", eksGroup{DesiredSize: types.Int64Null(), Labels: types.MapNull(types.StringType), Taints: []eksTaint{}},
				func() *ekstypes.Nodegroup { n := *ng; n.Taints = nil; return &n }(), "<null>", `{"pool":"spot"}`, 0},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				g, d := eksGroupFlatten(ctx, tt.ng, tt.prior, "us-east-1")
				if d.HasError() {
					t.Fatal(d)
				}
				taints := -1
				if g.Taints != nil {
					taints = len(g.Taints)
				}
				if g.DesiredSize.String() != tt.wantDesired || g.Labels.String() != tt.wantLabels || taints != tt.wantTaints {
					t.Errorf("desired %s labels %s taints %d; want %s %s %d", g.DesiredSize, g.Labels, taints, tt.wantDesired, tt.wantLabels, tt.wantTaints)
				}
				if g.CapacityType.ValueString() != "SPOT" || g.MaxSize.ValueInt64() != 6 ||
					g.EKS.String() != `{"cluster_name":"c","nodegroup_name":"spot","region":"us-east-1"}` {
					t.Errorf("group %+v", g)
				}
			})
		}
		// The ARN's region wins over the provider's (which may be unset).
		n := *ng
		n.NodegroupArn = aws.String("arn:aws:eks:eu-west-1:000000000000:nodegroup/c/spot/1")
		if g, _ := eksGroupFlatten(ctx, &n, group, ""); g.EKS.String() != `{"cluster_name":"c","nodegroup_name":"spot","region":"eu-west-1"}` {
			t.Errorf("eks %s, want the ARN's region eu-west-1", g.EKS)
		}
	})
}
