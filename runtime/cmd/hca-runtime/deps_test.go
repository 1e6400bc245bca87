package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestShippedBinaryLinksNoLab keeps the test bed out of what ships: the
// runtime binary may import no package under internal/lab (the lab, its
// emulators, loadsim, the demo), whose code and dependencies are for tests.
func TestShippedBinaryLinksNoLab(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	const lab = "github.com/hca-project/terraform-provider-hca/internal/lab"
	var linked []string
	for _, pkg := range strings.Fields(string(out)) {
		if pkg == lab || strings.HasPrefix(pkg, lab+"/") {
			linked = append(linked, pkg)
		}
	}
	if len(linked) > 0 {
		t.Fatalf("hca-runtime links lab packages %v: move what ships out of internal/lab", linked)
	}
	if !strings.Contains(string(out), "github.com/hca-project/terraform-provider-hca/internal/workload") {
		t.Fatalf("hca-runtime does not link internal/workload; is go list reading the right module?\n%s", out)
	}
}
