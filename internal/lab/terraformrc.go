package lab

import (
	"fmt"
	"os"
)

// WriteTerraformRC writes a Terraform CLI configuration (for
// TF_CLI_CONFIG_FILE) whose dev_overrides make hca-project/hca the provider
// binary in pluginDir, a local build; the user's ~/.terraformrc is neither
// read nor changed.
func WriteTerraformRC(path, pluginDir string) error {
	rc := fmt.Sprintf("# Generated: Terraform uses the local build of the hca provider.\nprovider_installation {\n  dev_overrides {\n    \"hca-project/hca\" = %q\n  }\n  direct {}\n}\n", pluginDir)
	if err := os.WriteFile(path, []byte(rc), 0o644); err != nil {
		return fmt.Errorf("write terraform CLI config %s: %w", path, err)
	}
	return nil
}
