// Package controllergen pins sigs.k8s.io/controller-tools' controller-gen, which
// generates the runtime API's deepcopy functions (internal/api) and CRD manifests
// (runtime/config/crd). It is a nested module so that controller-tools and its
// Kubernetes dependencies stay out of the project's go.mod. Run it through
// `make generate` or `go generate ./internal/api/...`.
package controllergen
