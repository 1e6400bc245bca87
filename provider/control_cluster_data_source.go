package provider

import (
	"context"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/discovery"
)

var (
	_ datasource.DataSource              = (*controlClusterDataSource)(nil)
	_ datasource.DataSourceWithConfigure = (*controlClusterDataSource)(nil)
)

// NewControlClusterDataSource returns the hca_control_cluster data source.
func NewControlClusterDataSource() datasource.DataSource {
	return &controlClusterDataSource{}
}

type controlClusterDataSource struct {
	clients *Clients
}

type controlClusterModel struct {
	Host              types.String `tfsdk:"host"`
	KubernetesVersion types.String `tfsdk:"kubernetes_version"`
}

func (d *controlClusterDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_control_cluster"
}

func (d *controlClusterDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		Description: "Reads the control cluster the provider is connected to, to check the connection and to " +
			"use its API server URL and Kubernetes version in other resources. Fails with \"Control cluster not " +
			"configured\" when the provider has no connection, and with \"Error reading control cluster\" when " +
			"the API server cannot be reached or rejects the credentials.",
		Attributes: map[string]schema.Attribute{
			"host": schema.StringAttribute{
				Computed:    true,
				Description: "URL of the control cluster's API server, as the provider reaches it.",
			},
			"kubernetes_version": schema.StringAttribute{
				Computed:    true,
				Description: "Kubernetes version of the API server (its `gitVersion`, such as `v1.36.3`).",
			},
		},
	}
}

func (d *controlClusterDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	c, diags := clientsFromProviderData(req.ProviderData)
	resp.Diagnostics.Append(diags...)
	d.clients = c
}

func (d *controlClusterDataSource) Read(ctx context.Context, _ datasource.ReadRequest, resp *datasource.ReadResponse) {
	cfg, err := d.clients.ControlCluster()
	if err != nil {
		resp.Diagnostics.AddError("Control cluster not configured", ControlClusterNotConfiguredDetail)
		return
	}
	// Discovery's ServerVersion takes no context: bound the request instead.
	if cfg.Timeout == 0 {
		cfg.Timeout = 30 * time.Second
	}
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		resp.Diagnostics.AddError("Error reading control cluster",
			fmt.Sprintf("Could not create a Kubernetes client for %s: %v.", cfg.Host, err))
		return
	}
	v, err := dc.ServerVersion()
	if err != nil {
		hint := "Check that the API server is reachable from where Terraform runs and that the provider's " +
			"credentials are valid for it."
		if apierrors.IsUnauthorized(err) {
			hint = unauthorizedHint + " Without a token, check client_certificate and client_key, or the user of the kubeconfig context."
		}
		resp.Diagnostics.AddError("Error reading control cluster",
			fmt.Sprintf("Could not read the version of the API server at %s: %v. %s", cfg.Host, err, hint))
		return
	}
	state := controlClusterModel{
		Host:              types.StringValue(cfg.Host),
		KubernetesVersion: types.StringValue(v.GitVersion),
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}
