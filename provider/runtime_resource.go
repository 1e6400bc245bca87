package provider

import (
	"context"
	"errors"
	"fmt"
	"net"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/mapvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/boolplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64default"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/listplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	kresource "k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcav1 "github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
	"github.com/hca-project/terraform-provider-hca/runtime/config"
	"github.com/hca-project/terraform-provider-hca/runtime/config/crd"
)

var (
	_ resource.Resource                   = (*runtimeResource)(nil)
	_ resource.ResourceWithConfigure      = (*runtimeResource)(nil)
	_ resource.ResourceWithImportState    = (*runtimeResource)(nil)
	_ resource.ResourceWithModifyPlan     = (*runtimeResource)(nil)
	_ resource.ResourceWithValidateConfig = (*runtimeResource)(nil)
)

// NewRuntimeResource returns the hca_runtime resource of a provider of the
// given version, whose image defaults to that version's runtime image.
func NewRuntimeResource(version string) func() resource.Resource {
	return func() resource.Resource { return &runtimeResource{version: version} }
}

type runtimeResource struct {
	clients *Clients
	version string
}

type runtimeModel struct {
	ID               types.String       `tfsdk:"id"`
	Namespace        types.String       `tfsdk:"namespace"`
	Image            types.String       `tfsdk:"image"`
	Replicas         types.Int64        `tfsdk:"replicas"`
	PrometheusURL    types.String       `tfsdk:"prometheus_url"`
	ConsulAddress    types.String       `tfsdk:"consul_address"`
	LogLevel         types.String       `tfsdk:"log_level"`
	Resources        *runtimeResources  `tfsdk:"resources"`
	AWS              *runtimeAWS        `tfsdk:"aws"`
	Alicloud         *runtimeAlicloud   `tfsdk:"alicloud"`
	ProbeInterval    durationString     `tfsdk:"cluster_probe_interval"`
	ControlInterval  durationString     `tfsdk:"control_interval"`
	SAAnnotations    types.Map          `tfsdk:"service_account_annotations"`
	ForceDestroy     types.Bool         `tfsdk:"force_destroy"`
	RemoveCRDs       types.Bool         `tfsdk:"remove_crds"`
	NamespaceCreated types.Bool         `tfsdk:"namespace_created"`
	ClusterRole      types.String       `tfsdk:"cluster_role"`
	CRDs             types.List         `tfsdk:"crds"`
	Monitoring       *runtimeMonitoring `tfsdk:"monitoring"`
	MetricsScrape    types.String       `tfsdk:"metrics_scrape"`
	Timeouts         timeouts.Value     `tfsdk:"timeouts"`
}

type runtimeResources struct {
	CPURequest    types.String `tfsdk:"cpu_request"`
	MemoryRequest types.String `tfsdk:"memory_request"`
	CPULimit      types.String `tfsdk:"cpu_limit"`
	MemoryLimit   types.String `tfsdk:"memory_limit"`
}

type runtimeAWS struct {
	Region              types.String `tfsdk:"region"`
	EKSEndpoint         types.String `tfsdk:"eks_endpoint"`
	STSEndpoint         types.String `tfsdk:"sts_endpoint"`
	AutoScalingEndpoint types.String `tfsdk:"autoscaling_endpoint"`
}

type runtimeAlicloud struct {
	AccessKeyID     types.String `tfsdk:"access_key_id"`
	AccessKeySecret types.String `tfsdk:"access_key_secret"`
	ACKEndpoint     types.String `tfsdk:"ack_endpoint"`
}

const (
	defaultRuntimeCreateTimeout = 5 * time.Minute
	defaultRuntimeDeleteTimeout = 5 * time.Minute
)

func (r *runtimeResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_runtime"
}

func (r *runtimeResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	quantity := func(what string) schema.StringAttribute {
		return schema.StringAttribute{
			Optional:    true,
			Description: what + ", a Kubernetes quantity greater than 0 (such as `100m`, `0.5`, `128Mi`). Unset: none.",
			Validators:  []validator.String{positiveQuantity{}},
		}
	}
	resp.Schema = schema.Schema{
		Description: "Installs the HCA runtime into the control cluster with server-side apply (field manager `hca`): " +
			"the hca.dev CRDs (waiting until they are Established), then the namespace, service account, RBAC, " +
			"Deployment and metrics Service, waiting for the Deployment's rollout. Changes update the Deployment in " +
			"place. Destroy removes what it installed, except the CRDs unless `remove_crds` is true (they are " +
			"shared by every runtime of the cluster), and refuses while HybridClusters, BurstPolicies, " +
			"ServiceLevelObjectives or FederatedAutoscalers exist anywhere in the cluster, unless `force_destroy` " +
			"is true. The ClusterRole and ClusterRoleBinding are named `hca-runtime` in namespace `hca-system` and " +
			"`hca-runtime-<namespace>` otherwise, so that several runtimes can share a cluster. Import with the " +
			"namespace: `terraform import hca_runtime.this hca-system`.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				Computed:      true,
				Description:   "The namespace of the install (same as `namespace`); the import ID.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"namespace": schema.StringAttribute{
				Optional:      true,
				Computed:      true,
				Default:       stringdefault.StaticString(defaultHCANamespace),
				Description:   "Namespace of the runtime, created when missing: a DNS label of 1 to 63 characters. Defaults to `hca-system`. Changing it replaces the install.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
				Validators: []validator.String{
					stringvalidator.LengthBetween(1, 63),
					stringvalidator.RegexMatches(dnsLabelRE, "must be a DNS label: lowercase letters, digits and '-', starting and ending with a letter or digit"),
				},
			},
			"image": schema.StringAttribute{
				Optional: true,
				Computed: true,
				Default:  stringdefault.StaticString(config.DefaultImage(r.version)),
				Description: "Container image of hca-runtime: a reference such as `registry.example.com/mirror/hca-runtime:v0.1.0` " +
					"(a mirror or an air-gapped registry), not empty and without white space. Its entrypoint must be the " +
					"hca-runtime binary: the Deployment passes only arguments (`run --metrics-bind-address=:8080 ...`) and " +
					"runs it as UID 65532. Defaults to the image released with this provider, `" + config.ImageRepository +
					":v<provider version>` (`:latest` for a development build of the provider), so that upgrading the " +
					"provider rolls the runtime to the same release.",
				Validators: []validator.String{
					stringvalidator.LengthAtLeast(1),
					stringvalidator.RegexMatches(regexp.MustCompile(`^\S+$`), "must not contain white space"),
				},
			},
			"replicas": schema.Int64Attribute{
				CustomType:  intType{},
				Optional:    true,
				Computed:    true,
				Default:     int64default.StaticInt64(1),
				Description: "Replicas of the runtime's Deployment, 1 to 10; more than 1 turns leader election on. Defaults to 1.",
				Validators:  []validator.Int64{int64validator.Between(1, 10)},
			},
			"prometheus_url": schema.StringAttribute{
				Optional:    true,
				Description: "URL of the Prometheus the runtime queries for metrics, an absolute `http://` or `https://` URL. Unset: PromQL metrics are off.",
				Validators:  []validator.String{urlValidator{example: "http://prometheus.monitoring:9090"}},
			},
			"consul_address": schema.StringAttribute{
				Optional:    true,
				Description: "Address (`host:port`) of the Consul agent the runtime registers burst endpoints with. Unset: Consul is off.",
				Validators:  []validator.String{hostPortValidator{}},
			},
			"log_level": schema.StringAttribute{
				Optional:    true,
				Computed:    true,
				Default:     stringdefault.StaticString("info"),
				Description: "Log level of the runtime: `debug`, `info`, `warn` or `error`. Defaults to `info`.",
				Validators:  []validator.String{stringvalidator.OneOf("debug", "info", "warn", "error")},
			},
			"resources": schema.SingleNestedAttribute{
				Optional: true,
				Description: "Compute resources of the runtime container. Unset: requests of 100m CPU and 128Mi memory " +
					"and a 256Mi memory limit. With a memory limit, the container gets `GOMEMLIMIT` at the limit less 10 % of it or 40 MiB, " +
					"whichever is more (at most a quarter of the limit; the runtime binary's pages take 35-37 MiB outside the Go limit), so that the Go " +
					"garbage collector works harder before the limit is reached instead of the runtime being OOM-killed.",
				Attributes: map[string]schema.Attribute{
					"cpu_request":    quantity("CPU request"),
					"memory_request": quantity("Memory request"),
					"cpu_limit":      quantity("CPU limit"),
					"memory_limit":   quantity("Memory limit"),
				},
			},
			"aws": schema.SingleNestedAttribute{
				Optional: true,
				Description: "How the runtime reaches EKS for clusters registered by name (`hca_cluster` with " +
					"`eks_cluster_name`): it describes them and mints short-lived tokens with its own AWS identity, which " +
					"comes from the pod (IRSA through `service_account_annotations`, EKS Pod Identity, or the " +
					"environment). Unset: the AWS SDK's defaults.",
				Attributes: map[string]schema.Attribute{
					"region": schema.StringAttribute{
						Optional:    true,
						Description: "Default AWS region for EKS clusters registered without one, such as `eu-west-1`.",
						Validators:  []validator.String{stringvalidator.RegexMatches(awsRegionRE, "must be an AWS region such as eu-west-1")},
					},
					"eks_endpoint": schema.StringAttribute{
						Optional:    true,
						Description: "EKS API endpoint override, an absolute `http://` or `https://` URL (VPC endpoints, the lab's emulator). Unset: the regional endpoint.",
						Validators:  []validator.String{urlValidator{example: "https://eks.eu-west-1.amazonaws.com"}},
					},
					"sts_endpoint": schema.StringAttribute{
						Optional:    true,
						Description: "STS endpoint override used when minting EKS tokens, an absolute `http://` or `https://` URL. Unset: the regional endpoint.",
						Validators:  []validator.String{urlValidator{example: "https://sts.eu-west-1.amazonaws.com"}},
					},
					"autoscaling_endpoint": schema.StringAttribute{
						Optional: true,
						Description: "EC2 Auto Scaling endpoint override, an absolute `http://` or `https://` URL: the runtime releases the exact " +
							"EKS node it emptied with TerminateInstanceInAutoScalingGroup. Unset: the regional endpoint.",
						Validators: []validator.String{urlValidator{example: "https://autoscaling.eu-west-1.amazonaws.com"}},
					},
				},
			},
			"alicloud": schema.SingleNestedAttribute{
				Optional: true,
				Description: "The runtime's access to Alibaba Cloud, to grow and release the ACK node pools of burst clusters " +
					"(HybridCluster `spec.nodeGroups` entries with `ack`). The AccessKey is stored in the Kubernetes Secret `hca-runtime-alicloud` " +
					"in the runtime's namespace and reaches the runtime as the `ALIBABA_CLOUD_ACCESS_KEY_ID` and " +
					"`ALIBABA_CLOUD_ACCESS_KEY_SECRET` environment variables (never in the Deployment spec). The RAM user needs " +
					"`cs:DescribeClusterNodePoolDetail`, `cs:ModifyClusterNodePool` and `cs:DeleteClusterNodes`. Unset: ACK node " +
					"pools are reported `NoCloudAccess` and not scaled; removing the block deletes the Secret.",
				Attributes: map[string]schema.Attribute{
					"access_key_id": schema.StringAttribute{
						Required:    true,
						Sensitive:   true,
						Description: "AccessKey ID of the RAM user the runtime acts as, such as `LTAI5t...` (non-empty).",
						Validators:  []validator.String{stringvalidator.LengthAtLeast(1)},
					},
					"access_key_secret": schema.StringAttribute{
						Required:    true,
						Sensitive:   true,
						Description: "AccessKey secret of that RAM user (non-empty).",
						Validators:  []validator.String{stringvalidator.LengthAtLeast(1)},
					},
					"ack_endpoint": schema.StringAttribute{
						Optional:    true,
						Description: "CS (ACK) API endpoint override, an absolute `http://` or `https://` URL (the lab's emulator). Unset: the region's endpoint.",
						Validators:  []validator.String{urlValidator{example: "https://cs.cn-hangzhou.aliyuncs.com"}},
					},
				},
			},
			"cluster_probe_interval": durationAttr("How often the runtime probes registered clusters (reachability, version, capacity), "+
				"a Go duration from 1s to 1h such as `30s`. Unset: 30s.", durationMax{min: time.Second, max: time.Hour}),
			"control_interval": durationAttr("How often the runtime evaluates the metrics of burst policies (the control "+
				"interval), a Go duration from 1s to 10m such as `15s`. Unset: the algorithm's own (2s for `adaptive` and `panic`, 15s for `kubernetes` and `frss`).", durationMax{min: time.Second, max: 10 * time.Minute}),
			"service_account_annotations": schema.MapAttribute{
				Optional:    true,
				ElementType: types.StringType,
				Description: "Annotations of the runtime's service account, such as `eks.amazonaws.com/role-arn` for IRSA. Keys must be valid annotation keys.",
				Validators: []validator.Map{mapvalidator.KeysAre(stringvalidator.RegexMatches(annotationKeyRE,
					"must be an annotation key: an optional DNS subdomain prefix and '/', then a name of up to 63 letters, digits, '-', '_' or '.'"))},
			},
			"force_destroy": schema.BoolAttribute{
				Optional: true,
				Computed: true,
				Default:  booldefault.StaticBool(false),
				Description: "Destroy the runtime even while hca objects (HybridClusters, BurstPolicies, " +
					"ServiceLevelObjectives, FederatedAutoscalers) exist; they are then left without a controller. " +
					"Defaults to false.",
			},
			"remove_crds": schema.BoolAttribute{
				Optional: true,
				Computed: true,
				Default:  booldefault.StaticBool(false),
				Description: "Also delete the hca.dev CRDs on destroy, which deletes every hca object of the cluster " +
					"(other runtimes' included); only after the hca objects check (see `force_destroy`). Defaults to " +
					"false: the CRDs stay, shared by the cluster's runtimes.",
			},
			"namespace_created": schema.BoolAttribute{
				Computed:      true,
				Description:   "Whether this resource created the namespace (and so deletes it on destroy): true when the namespace did not exist or was created by an earlier install (annotation `hca.dev/created-by-install`).",
				PlanModifiers: []planmodifier.Bool{boolplanmodifier.UseStateForUnknown()},
			},
			"cluster_role": schema.StringAttribute{
				Computed:      true,
				Description:   "Name of the runtime's ClusterRole and ClusterRoleBinding.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"crds": schema.ListAttribute{
				Computed:      true,
				ElementType:   types.StringType,
				Description:   "Names of the installed CustomResourceDefinitions.",
				PlanModifiers: []planmodifier.List{listplanmodifier.UseStateForUnknown()},
			},
			"monitoring": runtimeMonitoringSchema(),
			"metrics_scrape": schema.StringAttribute{
				Computed: true,
				Description: "How Prometheus finds the runtime, as installed: `service_monitor` (the ServiceMonitor " +
					"`hca-runtime` in the namespace) or `annotations` (`prometheus.io/*` on the pod template and the metrics Service). " +
					"Known at plan time when the control cluster is reachable then.",
			},
			"timeouts": timeoutsAttr(ctx, map[string]string{
				"create": "the CRDs to be Established and the Deployment to roll out (default `5m`)",
				"update": "the Deployment to roll out (default `5m`)",
				"delete": "each installed object to be gone (default `5m`)",
			}),
		},
	}
	addQuantitySpelling(resp.Schema.Attributes)
}

func (r *runtimeResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	c, diags := clientsFromProviderData(req.ProviderData)
	resp.Diagnostics.Append(diags...)
	r.clients = c
}

func (r *runtimeResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan runtimeModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	timeout, diags := plan.Timeouts.Create(ctx, defaultRuntimeCreateTimeout)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	c, ok := controlClient(r.clients, &resp.Diagnostics)
	if !ok {
		return
	}
	ns := plan.Namespace.ValueString()
	var existing corev1.Namespace
	err := c.Get(ctx, client.ObjectKey{Name: ns}, &existing)
	switch {
	case apierrors.IsNotFound(err):
		plan.NamespaceCreated = types.BoolValue(true)
	case err != nil:
		resp.Diagnostics.AddError("Error installing runtime", fmt.Sprintf("Could not read the namespace %q: %v.", ns, err))
		return
	default:
		// A namespace an install created (its Deployment deleted out of band
		// since) stays this resource's to delete.
		plan.NamespaceCreated = types.BoolValue(installedNamespace(&existing))
	}
	made, err := absentObjects(ctx, c, ns)
	if err == nil {
		// The ServiceMonitor is made last; a rollback deletes it first.
		var smThere bool
		if smThere, err = serviceMonitorExists(ctx, c, ns); err == nil && !smThere {
			made = append(made, serviceMonitorKey(ns))
		}
	}
	if err != nil {
		resp.Diagnostics.AddError("Error installing runtime", fmt.Sprintf("Could not read the runtime's objects in namespace %q: %v.", ns, err))
		return
	}
	r.install(ctx, c, &plan, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		// Nothing is saved: undo what this create made, so that no
		// namespace or cluster-wide RBAC is left without a resource.
		if err := rollbackInstall(ctx, c, made); err != nil {
			resp.Diagnostics.AddError("Error rolling back runtime install",
				fmt.Sprintf("The failed install's objects could not all be deleted: %v. Delete them by hand (kubectl delete) before applying again.", err))
		}
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

func (r *runtimeResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state runtimeModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	c, ok := controlClient(r.clients, &resp.Diagnostics)
	if !ok {
		return
	}
	ns := state.ID.ValueString()
	var dep appsv1.Deployment
	if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: config.Name}, &dep); err != nil {
		if apierrors.IsNotFound(err) {
			resp.State.RemoveResource(ctx)
			return
		}
		resp.Diagnostics.AddError("Error reading runtime", fmt.Sprintf("Could not read the Deployment %s/%s: %v.", ns, config.Name, err))
		return
	}
	state.fromDeployment(&dep)
	var sa corev1.ServiceAccount
	if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: config.Name}, &sa); err != nil && !apierrors.IsNotFound(err) {
		resp.Diagnostics.AddError("Error reading runtime", fmt.Sprintf("Could not read the ServiceAccount %s/%s: %v.", ns, config.Name, err))
		return
	}
	state.SAAnnotations = types.MapNull(types.StringType)
	if len(sa.Annotations) > 0 {
		state.SAAnnotations = mapValue(sa.Annotations)
	}
	if state.ForceDestroy.IsNull() {
		state.ForceDestroy = types.BoolValue(false)
	}
	if state.RemoveCRDs.IsNull() {
		state.RemoveCRDs = types.BoolValue(false)
	}
	if state.NamespaceCreated.IsNull() {
		// Imported: the namespace carries the install's labels when it was
		// created by an install.
		var n corev1.Namespace
		state.NamespaceCreated = types.BoolValue(c.Get(ctx, client.ObjectKey{Name: ns}, &n) == nil && installedNamespace(&n))
	}
	state.ClusterRole = types.StringValue(runtimeClusterRoleName(ns))
	if err := state.readScrape(ctx, c, ns); err != nil {
		resp.Diagnostics.AddError("Error reading runtime", err.Error())
		return
	}
	names, err := crdNames()
	if err != nil {
		resp.Diagnostics.AddError("Error reading runtime", err.Error())
		return
	}
	present := make([]string, 0, len(names))
	for _, n := range names {
		var got apiextensionsv1.CustomResourceDefinition
		if err := c.Get(ctx, client.ObjectKey{Name: n}, &got); err == nil {
			present = append(present, n)
		}
	}
	if len(present) != len(names) {
		// A CRD deleted out of band: plan to install again.
		resp.State.RemoveResource(ctx)
		return
	}
	state.CRDs = stringList(present)
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

func (r *runtimeResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, state runtimeModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	timeout, diags := plan.Timeouts.Update(ctx, defaultRuntimeCreateTimeout)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	c, ok := controlClient(r.clients, &resp.Diagnostics)
	if !ok {
		return
	}
	plan.NamespaceCreated = state.NamespaceCreated
	r.install(ctx, c, &plan, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

func (r *runtimeResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state runtimeModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	timeout, diags := state.Timeouts.Delete(ctx, defaultRuntimeDeleteTimeout)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	c, ok := controlClient(r.clients, &resp.Diagnostics)
	if !ok {
		return
	}
	if !state.ForceDestroy.ValueBool() {
		left, err := hcaObjects(ctx, c)
		if err != nil {
			resp.Diagnostics.AddError("Error destroying runtime", fmt.Sprintf("Could not list the hca objects of the cluster: %v.", err))
			return
		}
		if len(left) > 0 {
			resp.Diagnostics.AddError("Cannot destroy runtime while hca objects exist",
				fmt.Sprintf("The cluster still has %d hca object(s) that the runtime manages: %s. Destroy them first "+
					"(terraform destroy, or kubectl delete), or set force_destroy = true on the hca_runtime and apply "+
					"before destroying to leave them without a controller.", len(left), summarize(left, 5)))
			return
		}
	}
	ns := state.ID.ValueString()
	objs, err := runtimeObjects(ns, state.Image.ValueString())
	if err != nil {
		resp.Diagnostics.AddError("Error destroying runtime", err.Error())
		return
	}
	// Reverse apply order (the ServiceMonitor is applied last); the namespace
	// only when this resource created it.
	if there, err := serviceMonitorExists(ctx, c, ns); err != nil || there {
		if err == nil {
			err = deleteAndWait(ctx, c, serviceMonitorKey(ns), timeout)
		}
		if err != nil {
			resp.Diagnostics.AddError("Error destroying runtime", fmt.Sprintf("Could not delete the ServiceMonitor %s/%s: %v.", ns, config.Name, err))
			return
		}
	}
	for i := len(objs) - 1; i >= 0; i-- {
		o := objs[i]
		if _, isNS := o.(*corev1.Namespace); isNS && !state.NamespaceCreated.ValueBool() {
			continue
		}
		if err := deleteAndWait(ctx, c, o, timeout); err != nil {
			resp.Diagnostics.AddError("Error destroying runtime",
				fmt.Sprintf("Could not delete the %T %q: %v.", o, o.GetName(), err))
			return
		}
	}
	if state.RemoveCRDs.ValueBool() {
		names, err := crdNames()
		if err != nil {
			resp.Diagnostics.AddError("Error destroying runtime", err.Error())
			return
		}
		for _, n := range names {
			if err := deleteAndWait(ctx, c, &apiextensionsv1.CustomResourceDefinition{ObjectMeta: metav1.ObjectMeta{Name: n}}, timeout); err != nil {
				resp.Diagnostics.AddError("Error destroying runtime", fmt.Sprintf("Could not delete the CRD %q: %v.", n, err))
				return
			}
		}
	}
}

func (r *runtimeResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	if !dnsLabelRE.MatchString(req.ID) {
		resp.Diagnostics.AddError("Invalid import ID", fmt.Sprintf("The import ID %q is not a namespace name. Use the runtime's namespace, such as `terraform import hca_runtime.this hca-system`.", req.ID))
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), req.ID)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("namespace"), req.ID)...)
}

// ModifyPlan plans no change when only values left unknown differ from the
// state (planUnchangedAsState), and plans metrics_scrape: with
// monitoring.service_monitor unset, from the ServiceMonitor CRD's presence
// now (unknown when the control cluster cannot be asked yet), so that
// installing the Prometheus Operator later plans the switch.
func (r *runtimeResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		return
	}
	var m *runtimeMonitoring
	resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, path.Root("monitoring"), &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	want := monitoringWant(m)
	mode := types.StringUnknown()
	// Whether the cluster serves ServiceMonitors, when it can be asked now.
	present, known := false, false
	if cfg, err := r.clients.ControlCluster(); err == nil && !want.IsUnknown() && (want.IsNull() || want.ValueBool()) {
		if c, err := client.New(cfg, client.Options{Scheme: controlScheme}); err == nil {
			if p, err := serviceMonitorCRDPresent(ctx, c); err == nil {
				present, known = p, true
			}
		}
	}
	switch {
	case want.IsUnknown():
	case !want.IsNull():
		v, ok := decideScrape(want, present || !known) // not known now: the apply checks again
		if !ok {
			resp.Diagnostics.AddAttributeError(path.Root("monitoring").AtName("service_monitor"), "Missing ServiceMonitor CRD",
				fmt.Sprintf("monitoring.service_monitor is true, but the control cluster has no ServiceMonitor CRD (%s). Install the "+
					"Prometheus Operator (or its CRDs) first, or leave monitoring.service_monitor unset (or false) to have Prometheus "+
					"find the runtime through prometheus.io annotations.", serviceMonitorCRD))
			return
		}
		mode = types.StringValue(v)
	case known:
		v, _ := decideScrape(want, present)
		mode = types.StringValue(v)
	}
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("metrics_scrape"), mode)...)
	planUnchangedAsState(req, resp)
}

// absentObjects returns the install's objects in ns that do not exist yet:
// what a failed create has to delete again. The CRDs are not among them:
// they stay, shared, as on destroy without remove_crds.
func absentObjects(ctx context.Context, c client.Client, ns string) ([]client.Object, error) {
	objs, err := runtimeObjects(ns, "")
	if err != nil {
		return nil, err
	}
	var out []client.Object
	for _, o := range objs {
		probe := o.DeepCopyObject().(client.Object)
		err := c.Get(ctx, client.ObjectKeyFromObject(o), probe)
		switch {
		case apierrors.IsNotFound(err):
			out = append(out, o)
		case err != nil:
			return nil, fmt.Errorf("get %T %q: %w", o, o.GetName(), err)
		}
	}
	return out, nil
}

// rollbackInstall deletes objs in reverse install order and waits until they
// are gone, with a minute of its own (ctx may have ended: a rollout timeout).
func rollbackInstall(ctx context.Context, c client.Client, objs []client.Object) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
	defer cancel()
	var errs []error
	for i := len(objs) - 1; i >= 0; i-- {
		if err := deleteAndWait(ctx, c, objs[i], time.Minute); err != nil {
			errs = append(errs, fmt.Errorf("delete %T %q: %w", objs[i], objs[i].GetName(), err))
		}
	}
	return errors.Join(errs...)
}

// ValidateConfig checks that each request is at most its limit, which the API
// server checks only when the Deployment is applied.
func (r *runtimeResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var mon *runtimeMonitoring
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("monitoring"), &mon)...)
	resp.Diagnostics.Append(validateRuntimeMonitoring(mon)...)
	var obj types.Object
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("resources"), &obj)...)
	if resp.Diagnostics.HasError() || obj.IsNull() || obj.IsUnknown() {
		return
	}
	var rs runtimeResources
	resp.Diagnostics.Append(obj.As(ctx, &rs, basetypes.ObjectAsOptions{})...)
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(validateRuntimeResources(&rs)...)
}

// validateRuntimeResources checks request <= limit for cpu and memory, when
// both are known quantities.
func validateRuntimeResources(rs *runtimeResources) diag.Diagnostics {
	var diags diag.Diagnostics
	for _, p := range []struct {
		name         string
		req, limit   types.String
		reqN, limitN string
	}{
		{"cpu", rs.CPURequest, rs.CPULimit, "cpu_request", "cpu_limit"},
		{"memory", rs.MemoryRequest, rs.MemoryLimit, "memory_request", "memory_limit"},
	} {
		if p.req.IsNull() || p.req.IsUnknown() || p.limit.IsNull() || p.limit.IsUnknown() {
			continue
		}
		rq, err1 := kresource.ParseQuantity(p.req.ValueString())
		lq, err2 := kresource.ParseQuantity(p.limit.ValueString())
		if err1 != nil || err2 != nil {
			continue // the attributes' validators report it
		}
		if rq.Cmp(lq) > 0 {
			diags.AddAttributeError(path.Root("resources").AtName(p.reqN), "Invalid resources."+p.reqN,
				fmt.Sprintf("resources.%s (%s) must be at most resources.%s (%s): Kubernetes refuses a %s request above its limit. Lower the request or raise the limit.",
					p.reqN, p.req.ValueString(), p.limitN, p.limit.ValueString(), p.name))
		}
	}
	return diags
}

// install applies the CRDs (waiting until Established) and the runtime's
// objects, then waits for the Deployment's rollout.
func (r *runtimeResource) install(ctx context.Context, c client.Client, plan *runtimeModel, diags interface {
	AddError(string, string)
}) {
	cfg, err := r.clients.ControlCluster()
	if err != nil {
		diags.AddError("Control cluster not configured", ControlClusterNotConfiguredDetail)
		return
	}
	// Before anything is installed: a missing ServiceMonitor CRD leaves nothing behind.
	mode, err := r.scrapeMode(ctx, c, plan)
	if err != nil {
		diags.AddError("Error installing runtime", err.Error())
		return
	}
	if err := crd.Install(ctx, cfg); err != nil {
		diags.AddError("Error installing runtime CRDs", fmt.Sprintf("Could not apply the hca.dev CRDs or they did not become Established: %v.", err))
		return
	}
	opts, err := plan.options()
	if err != nil {
		diags.AddError("Invalid runtime configuration", err.Error())
		return
	}
	opts.ServiceMonitor = mode == scrapeServiceMonitor
	objs, err := runtimeObjectsFor(opts)
	if err != nil {
		diags.AddError("Invalid runtime configuration", err.Error())
		return
	}
	anys := make([]any, len(objs))
	for i, o := range objs {
		if n, ok := o.(*corev1.Namespace); ok && plan.NamespaceCreated.ValueBool() {
			n.Annotations = map[string]string{namespaceCreatedAnnotation: "true"}
		}
		anys[i] = o
	}
	if err := config.Apply(ctx, c, anys); err != nil {
		diags.AddError("Error installing runtime", fmt.Sprintf("Could not apply the runtime's objects in namespace %q: %v.", opts.Namespace, err))
		return
	}
	if err := applyScrape(ctx, c, opts.Namespace, mode, plan.Monitoring); err != nil {
		diags.AddError("Error installing runtime", err.Error())
		return
	}
	plan.MetricsScrape = types.StringValue(mode)
	if err := waitRollout(ctx, c, opts.Namespace); err != nil {
		diags.AddError("Error installing runtime", fmt.Sprintf("The Deployment %s/%s did not roll out: %v. Check its pods (kubectl -n %s describe deployment %s).",
			opts.Namespace, config.Name, err, opts.Namespace, config.Name))
		return
	}
	if opts.Alicloud == nil {
		// The block was removed (or never set): no AccessKey is left behind.
		sec := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: opts.Namespace, Name: config.AlicloudSecretName}}
		if err := c.Delete(ctx, sec); err != nil && !apierrors.IsNotFound(err) {
			diags.AddError("Error installing runtime", fmt.Sprintf("Could not delete the Secret %s/%s of the removed alicloud block: %v.", opts.Namespace, config.AlicloudSecretName, err))
			return
		}
	}
	names, err := crdNames()
	if err != nil {
		diags.AddError("Error installing runtime", err.Error())
		return
	}
	plan.ID = types.StringValue(opts.Namespace)
	plan.ClusterRole = types.StringValue(runtimeClusterRoleName(opts.Namespace))
	plan.CRDs = stringList(names)
}

// options converts the model to the install options.
func (m runtimeModel) options() (config.Options, error) {
	o := config.Options{
		Namespace:     m.Namespace.ValueString(),
		Image:         m.Image.ValueString(),
		Replicas:      int32(m.Replicas.ValueInt64()),
		PrometheusURL: m.PrometheusURL.ValueString(),
		ConsulAddr:    m.ConsulAddress.ValueString(),
		LogLevel:      m.LogLevel.ValueString(),
	}
	if a := m.AWS; a != nil {
		o.AWSRegion, o.EKSEndpoint, o.STSEndpoint = a.Region.ValueString(), a.EKSEndpoint.ValueString(), a.STSEndpoint.ValueString()
		o.AutoScalingEndpoint = a.AutoScalingEndpoint.ValueString()
	}
	if a := m.Alicloud; a != nil {
		o.Alicloud = &config.Alicloud{AccessKeyID: a.AccessKeyID.ValueString(), AccessKeySecret: a.AccessKeySecret.ValueString(), Endpoint: a.ACKEndpoint.ValueString()}
	}
	for _, d := range []struct {
		v    durationString
		dst  *time.Duration
		attr string
	}{{m.ProbeInterval, &o.ProbeInterval, "cluster_probe_interval"}, {m.ControlInterval, &o.ControlInterval, "control_interval"}} {
		if d.v.IsNull() || d.v.IsUnknown() {
			continue
		}
		v, err := time.ParseDuration(d.v.ValueString())
		if err != nil {
			return o, fmt.Errorf("%s %q is not a duration: %w", d.attr, d.v.ValueString(), err)
		}
		*d.dst = v
	}
	o.ServiceAccountAnnotations = stringMap(m.SAAnnotations)
	if rs := m.Resources; rs != nil {
		o.Resources = &corev1.ResourceRequirements{}
		for _, q := range []struct {
			v    types.String
			list *corev1.ResourceList
			name corev1.ResourceName
			attr string
		}{
			{rs.CPURequest, &o.Resources.Requests, corev1.ResourceCPU, "cpu_request"},
			{rs.MemoryRequest, &o.Resources.Requests, corev1.ResourceMemory, "memory_request"},
			{rs.CPULimit, &o.Resources.Limits, corev1.ResourceCPU, "cpu_limit"},
			{rs.MemoryLimit, &o.Resources.Limits, corev1.ResourceMemory, "memory_limit"},
		} {
			if q.v.IsNull() {
				continue
			}
			v, err := kresource.ParseQuantity(q.v.ValueString())
			if err != nil {
				return o, fmt.Errorf("resources.%s %q is not a quantity: %w", q.attr, q.v.ValueString(), err)
			}
			if *q.list == nil {
				*q.list = corev1.ResourceList{}
			}
			(*q.list)[q.name] = v
		}
	}
	return o, nil
}

// fromDeployment reads the attributes the Deployment carries.
func (m *runtimeModel) fromDeployment(d *appsv1.Deployment) {
	m.ID = types.StringValue(d.Namespace)
	m.Namespace = types.StringValue(d.Namespace)
	if d.Spec.Replicas != nil {
		m.Replicas = types.Int64Value(int64(*d.Spec.Replicas))
	}
	if len(d.Spec.Template.Spec.Containers) == 0 {
		return
	}
	ctr := d.Spec.Template.Spec.Containers[0]
	m.Image = types.StringValue(ctr.Image)
	m.PrometheusURL, m.ConsulAddress = types.StringNull(), types.StringNull()
	m.LogLevel = types.StringValue("info")
	aws := runtimeAWS{Region: types.StringNull(), EKSEndpoint: types.StringNull(), STSEndpoint: types.StringNull(), AutoScalingEndpoint: types.StringNull()}
	ackEndpoint := types.StringNull()
	var probe, control *metav1.Duration
	for _, a := range ctr.Args {
		switch {
		case strings.HasPrefix(a, "--aws-region="):
			aws.Region = types.StringValue(strings.TrimPrefix(a, "--aws-region="))
		case strings.HasPrefix(a, "--eks-endpoint="):
			aws.EKSEndpoint = types.StringValue(strings.TrimPrefix(a, "--eks-endpoint="))
		case strings.HasPrefix(a, "--sts-endpoint="):
			aws.STSEndpoint = types.StringValue(strings.TrimPrefix(a, "--sts-endpoint="))
		case strings.HasPrefix(a, "--autoscaling-endpoint="):
			aws.AutoScalingEndpoint = types.StringValue(strings.TrimPrefix(a, "--autoscaling-endpoint="))
		case strings.HasPrefix(a, "--ack-endpoint="):
			ackEndpoint = types.StringValue(strings.TrimPrefix(a, "--ack-endpoint="))
		case strings.HasPrefix(a, "--cluster-probe-interval="):
			probe = argDuration(strings.TrimPrefix(a, "--cluster-probe-interval="))
		case strings.HasPrefix(a, "--burst-metrics-interval="):
			control = argDuration(strings.TrimPrefix(a, "--burst-metrics-interval="))
		case strings.HasPrefix(a, "--log-level="):
			m.LogLevel = types.StringValue(strings.TrimPrefix(a, "--log-level="))
		case strings.HasPrefix(a, "--prometheus-url="):
			m.PrometheusURL = types.StringValue(strings.TrimPrefix(a, "--prometheus-url="))
		case strings.HasPrefix(a, "--consul-addr="):
			m.ConsulAddress = types.StringValue(strings.TrimPrefix(a, "--consul-addr="))
		}
	}
	if aws.Region.IsNull() && aws.EKSEndpoint.IsNull() && aws.STSEndpoint.IsNull() && aws.AutoScalingEndpoint.IsNull() {
		m.AWS = nil
	} else {
		m.AWS = &aws
	}
	m.Alicloud = alicloudFromContainer(m.Alicloud, ctr, ackEndpoint)
	m.ProbeInterval = keepDuration(m.ProbeInterval, probe, "")
	m.ControlInterval = keepDuration(m.ControlInterval, control, "")
	res := ctr.Resources
	if m.Resources == nil {
		def := config.Options{Image: "x"}
		objs, err := config.Objects(def)
		if err == nil && sameResources(res, deploymentOf(objs).Spec.Template.Spec.Containers[0].Resources) {
			return
		}
		m.Resources = &runtimeResources{CPURequest: types.StringNull(), MemoryRequest: types.StringNull(), CPULimit: types.StringNull(), MemoryLimit: types.StringNull()}
	}
	get := func(l corev1.ResourceList, n corev1.ResourceName) *kresource.Quantity {
		if q, ok := l[n]; ok {
			return &q
		}
		return nil
	}
	m.Resources.CPURequest = keepQuantity(m.Resources.CPURequest, get(res.Requests, corev1.ResourceCPU))
	m.Resources.MemoryRequest = keepQuantity(m.Resources.MemoryRequest, get(res.Requests, corev1.ResourceMemory))
	m.Resources.CPULimit = keepQuantity(m.Resources.CPULimit, get(res.Limits, corev1.ResourceCPU))
	m.Resources.MemoryLimit = keepQuantity(m.Resources.MemoryLimit, get(res.Limits, corev1.ResourceMemory))
}

// alicloudFromContainer is the alicloud block as the runtime container shows
// it: the keys are not readable from the Deployment (they are in the
// Secret), so they stay as known; the block is gone when the container no
// longer takes them from the Secret.
func alicloudFromContainer(known *runtimeAlicloud, ctr corev1.Container, endpoint types.String) *runtimeAlicloud {
	fromSecret := false
	for _, e := range ctr.Env {
		if e.Name == "ALIBABA_CLOUD_ACCESS_KEY_ID" && e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil && e.ValueFrom.SecretKeyRef.Name == config.AlicloudSecretName {
			fromSecret = true
		}
	}
	if !fromSecret || known == nil {
		// Imported or configured elsewhere: the keys are unknown to
		// Terraform, the next apply writes them.
		return nil
	}
	out := *known
	out.ACKEndpoint = endpoint
	return &out
}

// namespaceCreatedAnnotation marks a namespace an hca_runtime created; every
// apply of that install keeps it.
const namespaceCreatedAnnotation = "hca.dev/created-by-install"

// installedNamespace tells a namespace an install created.
func installedNamespace(n *corev1.Namespace) bool {
	return n.Annotations[namespaceCreatedAnnotation] == "true"
}

func sameResources(a, b corev1.ResourceRequirements) bool {
	eq := func(x, y corev1.ResourceList) bool {
		if len(x) != len(y) {
			return false
		}
		for k, q := range x {
			if o, ok := y[k]; !ok || o.Cmp(q) != 0 {
				return false
			}
		}
		return true
	}
	return eq(a.Requests, b.Requests) && eq(a.Limits, b.Limits)
}

func deploymentOf(objs []any) *appsv1.Deployment {
	for _, o := range objs {
		if d, ok := o.(*appsv1.Deployment); ok {
			return d
		}
	}
	return &appsv1.Deployment{Spec: appsv1.DeploymentSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{}}}}}}
}

// runtimeClusterRoleName is the name of the install's ClusterRole and
// ClusterRoleBinding: hca-runtime in hca-system, hca-runtime-<namespace>
// elsewhere, so that installs in several namespaces do not share them.
func runtimeClusterRoleName(ns string) string {
	if ns == defaultHCANamespace {
		return config.Name
	}
	return config.Name + "-" + ns
}

// runtimeObjectsFor returns config.Objects with the cluster-scoped RBAC named
// for the namespace.
func runtimeObjectsFor(o config.Options) ([]client.Object, error) {
	objs, err := config.Objects(o)
	if err != nil {
		return nil, err
	}
	name := runtimeClusterRoleName(o.Namespace)
	out := make([]client.Object, 0, len(objs))
	for _, x := range objs {
		switch v := x.(type) {
		case *rbacv1.ClusterRole:
			v.Name = name
		case *rbacv1.ClusterRoleBinding:
			v.Name, v.RoleRef.Name = name, name
		}
		co, ok := x.(client.Object)
		if !ok {
			return nil, fmt.Errorf("install object %T is not a Kubernetes object", x)
		}
		out = append(out, co)
	}
	return out, nil
}

// runtimeObjects returns the objects of the install in ns, for deletion.
func runtimeObjects(ns, image string) ([]client.Object, error) {
	if image == "" {
		image = "unused"
	}
	// With the alicloud Secret: destroy and rollback remove it too.
	objs, err := runtimeObjectsFor(config.Options{Namespace: ns, Image: image, Alicloud: &config.Alicloud{AccessKeyID: "unused", AccessKeySecret: "unused"}})
	if err != nil {
		return nil, err
	}
	out := make([]client.Object, 0, len(objs))
	for _, o := range objs {
		// Fresh objects holding only the key, so Get during the wait does not
		// trip over the typed fields.
		n := o.DeepCopyObject().(client.Object)
		out = append(out, n)
	}
	return out, nil
}

// waitRollout waits until the Deployment's latest generation is rolled out
// and all its replicas are available.
func waitRollout(ctx context.Context, c client.Client, ns string) error {
	return pollUntil(ctx, 250*time.Millisecond, untilDeadline(ctx, defaultRuntimeCreateTimeout), "the rollout", func(ctx context.Context) (bool, string, error) {
		var d appsv1.Deployment
		if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: config.Name}, &d); err != nil {
			return false, apiErrorState(err), nil
		}
		want := int32(1)
		if d.Spec.Replicas != nil {
			want = *d.Spec.Replicas
		}
		st := d.Status
		done := st.ObservedGeneration >= d.Generation && st.UpdatedReplicas == want && st.AvailableReplicas == want && st.Replicas == want
		return done, fmt.Sprintf("%d of %d replicas updated, %d available", st.UpdatedReplicas, want, st.AvailableReplicas), nil
	})
}

func crdNames() ([]string, error) {
	crds, err := crd.CRDs()
	if err != nil {
		return nil, fmt.Errorf("read the embedded CRDs: %w", err)
	}
	out := make([]string, len(crds))
	for i, c := range crds {
		out[i] = c.Name
	}
	sort.Strings(out)
	return out, nil
}

// hcaObjects lists the hca objects the runtime manages, anywhere in the
// cluster, as "Kind namespace/name". Kinds whose CRD is missing have none.
func hcaObjects(ctx context.Context, c client.Client) ([]string, error) {
	var out []string
	lists := []struct {
		kind string
		list client.ObjectList
	}{
		{"HybridCluster", &hcav1.HybridClusterList{}},
		{"BurstPolicy", &hcav1.BurstPolicyList{}},
		{"ServiceLevelObjective", &hcav1.ServiceLevelObjectiveList{}},
		{"FederatedAutoscaler", &hcav1.FederatedAutoscalerList{}},
	}
	for _, l := range lists {
		if err := c.List(ctx, l.list); err != nil {
			if meta.IsNoMatchError(err) || apierrors.IsNotFound(err) {
				continue
			}
			return nil, fmt.Errorf("list %s: %w", l.kind, err)
		}
		items, err := meta.ExtractList(l.list)
		if err != nil {
			return nil, fmt.Errorf("list %s: %w", l.kind, err)
		}
		for _, it := range items {
			o := it.(client.Object)
			name := o.GetName()
			if o.GetNamespace() != "" {
				name = o.GetNamespace() + "/" + name
			}
			out = append(out, l.kind+" "+name)
		}
	}
	sort.Strings(out)
	return out, nil
}

func summarize(items []string, n int) string {
	if len(items) <= n {
		return strings.Join(items, ", ")
	}
	return strings.Join(items[:n], ", ") + " and " + strconv.Itoa(len(items)-n) + " more"
}

func stringList(ss []string) types.List {
	elems := make([]attr.Value, len(ss))
	for i, s := range ss {
		elems[i] = types.StringValue(s)
	}
	return types.ListValueMust(types.StringType, elems)
}

// urlValidator checks an absolute http:// or https:// URL.
type urlValidator struct{ example string }

func (v urlValidator) Description(context.Context) string {
	return "must be an absolute http:// or https:// URL such as \"" + v.example + "\""
}
func (v urlValidator) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }
func (v urlValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if msg := checkURL(req.ConfigValue.ValueString(), v.example); msg != "" {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid "+req.Path.String(), req.Path.String()+" "+msg)
	}
}

// hostPortValidator checks a host:port address.
type hostPortValidator struct{}

func (hostPortValidator) Description(context.Context) string {
	return "must be host:port, such as \"127.0.0.1:8500\""
}
func (v hostPortValidator) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }
func (hostPortValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	s := req.ConfigValue.ValueString()
	host, port, err := net.SplitHostPort(s)
	n, perr := strconv.Atoi(port)
	if err != nil || host == "" || perr != nil || n < 1 || n > 65535 {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid "+req.Path.String(),
			fmt.Sprintf("%s must be host:port with a port from 1 to 65535, such as \"127.0.0.1:8500\"; got %q.", req.Path, s))
	}
}

// annotationKeyRE matches a Kubernetes annotation key: [prefix/]name.
var annotationKeyRE = regexp.MustCompile(`^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$`)

// argDuration reads a duration flag's value (nil when it is not one).
func argDuration(v string) *metav1.Duration {
	d, err := time.ParseDuration(v)
	if err != nil {
		return nil
	}
	return &metav1.Duration{Duration: d}
}
