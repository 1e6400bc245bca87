// Command monitoring writes hca-runtime's generated monitoring files (run by
// `make generate` from the repository root):
//
//	runtime/config/dashboards/hca-runtime.json   the Grafana dashboard (runtime/config/dashboards)
//	runtime/config/servicemonitor.yaml           the Prometheus Operator ServiceMonitor (namespace hca-system)
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/hca-project/terraform-provider-hca/runtime/config"
	"github.com/hca-project/terraform-provider-hca/runtime/config/dashboards"
)

func main() {
	if err := run("."); err != nil {
		fmt.Fprintln(os.Stderr, "monitoring:", err)
		os.Exit(1)
	}
}

func run(root string) error {
	dash, err := dashboards.JSON()
	if err != nil {
		return err
	}
	sm, err := config.ServiceMonitorYAML()
	if err != nil {
		return err
	}
	for path, b := range map[string][]byte{
		filepath.Join(root, "runtime/config/dashboards", dashboards.FileName): dash,
		filepath.Join(root, "runtime/config", config.ServiceMonitorFile):      sm,
	} {
		if err := os.WriteFile(path, b, 0o644); err != nil {
			return fmt.Errorf("write %s: %w", path, err)
		}
	}
	return nil
}
