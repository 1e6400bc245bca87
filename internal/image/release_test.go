package image_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"text/template"

	"sigs.k8s.io/yaml"

	"github.com/hca-project/terraform-provider-hca/internal/image"
	"github.com/hca-project/terraform-provider-hca/runtime/config"
)

// goreleaserKo mirrors goreleaser v2.15's config.Ko, field for field, so that
// a misspelt key in .goreleaser.yml fails the strict decode below.
type goreleaserKo struct {
	ID                  string            `json:"id"`
	Build               string            `json:"build"`
	Main                string            `json:"main"`
	WorkingDir          string            `json:"working_dir"`
	BaseImage           string            `json:"base_image"`
	Labels              map[string]string `json:"labels"`
	Annotations         map[string]string `json:"annotations"`
	User                string            `json:"user"`
	Repositories        []string          `json:"repositories"`
	Platforms           []string          `json:"platforms"`
	Tags                []string          `json:"tags"`
	CreationTime        string            `json:"creation_time"`
	KoDataCreationTime  string            `json:"ko_data_creation_time"`
	SBOM                string            `json:"sbom"`
	SBOMDirectory       string            `json:"sbom_directory"`
	Ldflags             []string          `json:"ldflags"`
	Flags               []string          `json:"flags"`
	Env                 []string          `json:"env"`
	Bare                bool              `json:"bare"`
	PreserveImportPaths bool              `json:"preserve_import_paths"`
	BaseImportPaths     bool              `json:"base_import_paths"`
	LocalDomain         string            `json:"local_domain"`
	Disable             string            `json:"disable"`
}

func render(t *testing.T, text, version string) string {
	t.Helper()
	tm, err := template.New("").Parse(text)
	if err != nil {
		t.Fatalf("template %q: %v", text, err)
	}
	var b bytes.Buffer
	if err := tm.Execute(&b, map[string]string{"Version": version}); err != nil {
		t.Fatalf("template %q: %v", text, err)
	}
	return b.String()
}

// TestReleaseConfig checks the release's image (.goreleaser.yml, kos) against
// the code: `goreleaser check` validates the file's schema, this test what it
// means for hca_runtime (run `goreleaser check` too when goreleaser is at
// hand; see docs/guides/development.md).
func TestReleaseConfig(t *testing.T) {
	raw, err := os.ReadFile("../../.goreleaser.yml")
	if err != nil {
		t.Fatal(err)
	}
	js, err := yaml.YAMLToJSON(raw)
	if err != nil {
		t.Fatalf(".goreleaser.yml is not YAML: %v", err)
	}
	var file struct {
		Version int                   `json:"version"`
		Builds  []struct{ ID string } `json:"builds"`
		Kos     []json.RawMessage     `json:"kos"`
	}
	if err := json.Unmarshal(js, &file); err != nil {
		t.Fatalf("decode .goreleaser.yml: %v", err)
	}
	if file.Version != 2 || len(file.Kos) != 1 {
		t.Fatalf("version %d with %d kos entries, want version 2 and one kos entry (the runtime image)", file.Version, len(file.Kos))
	}
	var ko goreleaserKo
	dec := json.NewDecoder(bytes.NewReader(file.Kos[0]))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&ko); err != nil {
		t.Fatalf("kos[0]: %v", err)
	}
	if !slices.ContainsFunc(file.Builds, func(b struct{ ID string }) bool { return b.ID == ko.Build }) {
		t.Errorf("kos.build %q names no build (goreleaser refuses it)", ko.Build)
	}
	var tags []string
	for _, tag := range ko.Tags {
		tags = append(tags, render(t, tag, "0.1.0"))
	}
	for _, version := range []string{"0.1.0", "dev"} {
		def := config.DefaultImage(version)
		colon := strings.LastIndex(def, ":")
		repo, tag := def[:colon], def[colon+1:]
		if !slices.Contains(ko.Repositories, repo) || !slices.Contains(tags, tag) {
			t.Errorf("a provider %s defaults to %s, which the release (repositories %v, tags %v) does not publish", version, def, ko.Repositories, tags)
		}
	}
	checks := []struct {
		name string
		ok   bool
	}{
		{"main is " + image.Package, ko.Main == image.Package},
		{fmt.Sprintf("platforms are %v", image.DefaultPlatforms), slices.Equal(ko.Platforms, image.DefaultPlatforms)},
		{fmt.Sprintf("user is %d:%d, the runtime Deployment's runAsUser", image.UID, image.GID), ko.User == fmt.Sprintf("%d:%d", image.UID, image.GID)},
		{"bare (the image is named by repositories alone)", ko.Bare},
		{"static build (CGO_ENABLED=0)", slices.Contains(ko.Env, "CGO_ENABLED=0")},
		{"-trimpath", slices.Contains(ko.Flags, "-trimpath")},
		{"version in the binary", len(ko.Ldflags) == 1 && render(t, ko.Ldflags[0], "0.1.0") == "-s -w -X main.version=0.1.0"},
		{"SPDX SBOM", ko.SBOM == "spdx"},
		{"reproducible times (the commit's)", ko.CreationTime == "{{ .CommitTimestamp }}" && ko.KoDataCreationTime == "{{ .CommitTimestamp }}"},
		{"version label", render(t, ko.Labels["org.opencontainers.image.version"], "0.1.0") == "0.1.0"},
		{"source label", ko.Labels["org.opencontainers.image.source"] == image.DefaultSource},
		{"revision, created and licenses labels", ko.Labels["org.opencontainers.image.revision"] != "" &&
			ko.Labels["org.opencontainers.image.created"] != "" && ko.Labels["org.opencontainers.image.licenses"] != ""},
	}
	for _, c := range checks {
		if !c.ok {
			t.Errorf("kos[0] %+v: want %s", ko, c.name)
		}
	}
}
