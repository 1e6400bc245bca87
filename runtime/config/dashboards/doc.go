// Package dashboards is hca-runtime's Grafana dashboard, generated from Go
// with the Apache-licensed grafana-foundation-sdk (Grafana itself is not part
// of the build). Panels is the dashboard as data (rows, panels, PromQL);
// Build turns it into the SDK's dashboard and JSON into the bytes of
// hca-runtime.json, which `make generate` (tools/monitoring) writes beside
// this file and File serves embedded. Import that file into Grafana.
package dashboards
