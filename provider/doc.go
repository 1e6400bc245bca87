// Package provider implements the hca Terraform provider: its configuration
// (the control cluster connection and the AWS and Alibaba Cloud settings), the
// resolution of that configuration with its environment fallbacks into Clients,
// and the provider's data sources, resources and ephemeral resources.
//
// Resolution is split in two: resolve is a pure function from configuration
// values and an environment lookup to settings and problems (unit-tested with
// tables), and newClients does the I/O (reading a kubeconfig, loading the AWS
// shared configuration) that turns settings into ready-to-use client configs.
package provider
