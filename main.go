// Command terraform-provider-hca serves the hca Terraform provider over the
// plugin protocol (version 6). Terraform starts it; run it with -debug to
// attach Terraform to a process under a debugger.
package main

import (
	"context"
	"flag"
	"log"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"

	"github.com/hca-project/terraform-provider-hca/provider"
)

// version is set at build time with -ldflags "-X main.version=1.2.3"
// (goreleaser sets it to the release version).
var version = "dev"

func main() {
	var debug bool
	flag.BoolVar(&debug, "debug", false, "start the provider with support for debuggers like delve")
	flag.Parse()

	opts := providerserver.ServeOpts{
		Address:         "registry.terraform.io/hca-project/hca",
		Debug:           debug,
		ProtocolVersion: 6,
	}
	if err := providerserver.Serve(context.Background(), provider.New(version), opts); err != nil {
		log.Fatal(err.Error())
	}
}
