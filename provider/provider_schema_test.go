package provider

import (
	"context"
	"maps"
	"slices"
	"strings"
	"testing"

	fwprovider "github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	rschema "github.com/hashicorp/terraform-plugin-framework/resource/schema"
)

// TestProviderSchema checks the schema's contract with users: every attribute
// documents its environment fallback (or says it has none), and secrets are
// sensitive.
func TestProviderSchema(t *testing.T) {
	var resp fwprovider.SchemaResponse
	New("test")().Schema(context.Background(), fwprovider.SchemaRequest{}, &resp)
	if resp.Diagnostics.HasError() {
		t.Fatalf("schema diagnostics: %v", resp.Diagnostics)
	}
	if diags := resp.Schema.ValidateImplementation(context.Background()); diags.HasError() {
		t.Fatalf("schema implementation: %v", diags)
	}

	attrs := map[string]schema.Attribute{}
	var walk func(prefix string, as map[string]schema.Attribute, bs map[string]schema.Block)
	walk = func(prefix string, as map[string]schema.Attribute, bs map[string]schema.Block) {
		for n, a := range as {
			attrs[prefix+n] = a
		}
		for n, b := range bs {
			nb, ok := b.(schema.SingleNestedBlock)
			if !ok {
				t.Fatalf("block %s%s is %T, want a single nested block", prefix, n, b)
			}
			if nb.Description == "" {
				t.Errorf("block %s%s has no description", prefix, n)
			}
			walk(prefix+n+".", nb.Attributes, nb.Blocks)
		}
	}
	walk("", resp.Schema.Attributes, resp.Schema.Blocks)

	envFallback := map[string]string{
		"kubeconfig_path": EnvKubeConfigPath, "kubeconfig_context": EnvKubeContext, "host": EnvKubeHost,
		"cluster_ca_certificate": EnvKubeCACert, "token": EnvKubeToken, "client_certificate": EnvKubeClientCert,
		"client_key": EnvKubeClientKey, "alicloud.region": EnvAlicloudRegion, "alicloud.access_key": EnvAlicloudAccessKey,
		"alicloud.secret_key": EnvAlicloudSecretKey, "aws.region": "AWS_REGION", "aws.profile": "AWS_PROFILE",
		"endpoints.eks": "AWS_ENDPOINT_URL_EKS", "endpoints.sts": "AWS_ENDPOINT_URL_STS",
		"aws.assume_role_with_web_identity.role_arn":                EnvAWSRoleARN,
		"aws.assume_role_with_web_identity.session_name":            EnvAWSRoleSessionName,
		"aws.assume_role_with_web_identity.web_identity_token":      EnvTFCWorkloadIdentityToken,
		"aws.assume_role_with_web_identity.web_identity_token_file": EnvAWSWebIdentityTokenFile,
		"alicloud.assume_role_with_oidc.role_arn":                   EnvAlicloudRoleARN,
		"alicloud.assume_role_with_oidc.oidc_provider_arn":          EnvAlicloudOIDCProviderARN,
		"alicloud.assume_role_with_oidc.oidc_token":                 EnvTFCWorkloadIdentityToken,
		"alicloud.assume_role_with_oidc.oidc_token_file":            EnvAlicloudOIDCTokenFile,
		"alicloud.assume_role_with_oidc.session_name":               EnvAlicloudRoleSessionName,
	}
	sensitive := map[string]bool{"token": true, "client_key": true, "alicloud.access_key": true, "alicloud.secret_key": true,
		"aws.assume_role_with_web_identity.web_identity_token": true, "alicloud.assume_role_with_oidc.oidc_token": true}
	if len(attrs) != 30 {
		t.Errorf("schema has %d attributes, want 30", len(attrs))
	}
	for name, a := range attrs {
		desc := a.GetDescription()
		if env, ok := envFallback[name]; ok {
			if !strings.Contains(desc, "`"+env+"`") {
				t.Errorf("%s: description does not name its environment fallback %s: %q", name, env, desc)
			}
		} else if !strings.Contains(desc, "No environment fallback.") {
			t.Errorf("%s: description does not say it has no environment fallback: %q", name, desc)
		}
		if got := a.IsSensitive(); got != sensitive[name] {
			t.Errorf("%s: sensitive = %v, want %v", name, got, sensitive[name])
		}
		if !a.IsOptional() || a.IsRequired() || a.IsComputed() {
			t.Errorf("%s: want optional, not required or computed", name)
		}
	}
}

// TestResourceSchemas checks every resource's schema: one convention for
// nested arguments, `timeouts` included (nested attributes, no blocks), and a
// description on every attribute.
func TestResourceSchemas(t *testing.T) {
	ctx := context.Background()
	p := New("test")()
	for _, newResource := range p.Resources(ctx) {
		r := newResource()
		var meta resource.MetadataResponse
		r.Metadata(ctx, resource.MetadataRequest{ProviderTypeName: "hca"}, &meta)
		var resp resource.SchemaResponse
		r.Schema(ctx, resource.SchemaRequest{}, &resp)
		t.Run(meta.TypeName, func(t *testing.T) {
			if len(resp.Schema.Blocks) != 0 {
				t.Errorf("has blocks %v: use nested attributes (timeouts = { ... })", slices.Collect(maps.Keys(resp.Schema.Blocks)))
			}
			walkResourceAttributes("", resp.Schema.Attributes, func(name string, a rschema.Attribute) {
				if strings.TrimSpace(a.GetDescription()) == "" {
					t.Errorf("%s has no description", name)
				}
			})
		})
	}
}

// walkResourceAttributes calls fn with every attribute of a resource schema,
// nested ones included, named by their path ("a.b", "list[].c").
func walkResourceAttributes(prefix string, as map[string]rschema.Attribute, fn func(name string, a rschema.Attribute)) {
	for name, a := range as {
		fn(prefix+name, a)
		switch na := a.(type) {
		case rschema.SingleNestedAttribute:
			walkResourceAttributes(prefix+name+".", na.Attributes, fn)
		case rschema.ListNestedAttribute:
			walkResourceAttributes(prefix+name+"[].", na.NestedObject.Attributes, fn)
		case rschema.SetNestedAttribute:
			walkResourceAttributes(prefix+name+"[].", na.NestedObject.Attributes, fn)
		case rschema.MapNestedAttribute:
			walkResourceAttributes(prefix+name+"{}.", na.NestedObject.Attributes, fn)
		}
	}
}
