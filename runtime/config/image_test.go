package config_test

import (
	"testing"

	"github.com/hca-project/terraform-provider-hca/runtime/config"
)

func TestDefaultImage(t *testing.T) {
	tests := []struct{ version, want string }{
		{"0.1.0", "ghcr.io/hca-project/hca-runtime:v0.1.0"},
		{"v1.2.3", "ghcr.io/hca-project/hca-runtime:v1.2.3"},
		{"1.0.0-rc.1", "ghcr.io/hca-project/hca-runtime:v1.0.0-rc.1"},
		{"dev", "ghcr.io/hca-project/hca-runtime:latest"},
		{"test", "ghcr.io/hca-project/hca-runtime:latest"},
		{"", "ghcr.io/hca-project/hca-runtime:latest"},
		{"1.2", "ghcr.io/hca-project/hca-runtime:latest"},
	}
	for _, tt := range tests {
		t.Run(tt.version, func(t *testing.T) {
			if got := config.DefaultImage(tt.version); got != tt.want {
				t.Fatalf("DefaultImage(%q) = %q, want %q", tt.version, got, tt.want)
			}
		})
	}
}
