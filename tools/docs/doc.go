// Package docs pins the documentation generator, tfplugindocs, in a module of
// its own so that its dependencies stay out of the provider's go.mod. Run it
// from this directory:
//
//	go run github.com/hashicorp/terraform-plugin-docs/cmd/tfplugindocs generate --provider-dir ../.. --provider-name hca
//
// It builds the provider, asks the terraform binary found in PATH for the
// provider's schema, and renders ../../templates and ../../examples into
// ../../docs.
package docs
