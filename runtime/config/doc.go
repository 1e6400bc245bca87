// Package config holds the runtime's install manifests: the generated RBAC
// (rbac/role.yaml, from the controllers' +kubebuilder:rbac markers) embedded with
// go:embed, and the namespace, service account, bindings, Deployment and metrics
// Service built from Options. The CRDs are in the crd subpackage. The provider's
// hca_runtime resource installs exactly these objects.
package config
