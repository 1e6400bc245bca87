package provider

import (
	"os"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

// TestAccRuntimeResource_image plans hca_runtime with the real Terraform CLI
// against a control cluster that is never reached: without `image` it
// installs the image released with the provider (`:latest` for a
// development build), and a set image (a mirror) is kept.
func TestAccRuntimeResource_image(t *testing.T) {
	example, err := os.ReadFile("../examples/resources/hca_runtime/resource.tf")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, version, config, want string
	}{
		{"release default", "0.4.2", `resource "hca_runtime" "this" {}`, "ghcr.io/hca-project/hca-runtime:v0.4.2"},
		{"development build default", "dev", `resource "hca_runtime" "this" {}`, "ghcr.io/hca-project/hca-runtime:latest"},
		{"the resource example", "0.4.2", string(example), "ghcr.io/hca-project/hca-runtime:v0.4.2"},
		{"mirror", "0.4.2", `resource "hca_runtime" "this" { image = "registry.internal:5000/mirror/hca-runtime:v0.4.2" }`, "registry.internal:5000/mirror/hca-runtime:v0.4.2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prepareAccEnv(t)
			t.Setenv(EnvKubeConfigPath, writeKubeconfig(t, newTestPKI(t), "lab"))
			t.Setenv(EnvKubeContext, "lab")
			accTest(t, resource.TestCase{
				ProtoV6ProviderFactories: map[string]func() (tfprotov6.ProviderServer, error){
					"hca": providerserver.NewProtocol6WithError(New(tt.version)()),
				},
				Steps: []resource.TestStep{{
					Config: tt.config, PlanOnly: true, ExpectNonEmptyPlan: true,
					ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPreRefresh: []plancheck.PlanCheck{
						plancheck.ExpectKnownValue("hca_runtime.this", tfjsonpath.New("image"), knownvalue.StringExact(tt.want)),
					}},
				}},
			})
		})
	}
}
