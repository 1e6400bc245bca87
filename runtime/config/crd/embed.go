// Package crd embeds the CustomResourceDefinitions of the hca.dev API, generated
// by controller-gen from internal/api/v1alpha1 (`make generate`; never edit the
// YAML by hand), so that the provider and the runtime can install them.
package crd

import (
	"embed"
	"fmt"
	"io/fs"
	"sort"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"
)

// FS holds one CRD manifest per kind (hca.dev_<plural>.yaml).
//
//go:embed *.yaml
var FS embed.FS

// CRDs decodes every embedded manifest, sorted by name. It fails only if the
// generated files are broken, which the package's tests rule out.
func CRDs() ([]*apiextensionsv1.CustomResourceDefinition, error) {
	names, err := fs.Glob(FS, "*.yaml")
	if err != nil {
		return nil, fmt.Errorf("list embedded CRDs: %w", err)
	}
	sort.Strings(names)
	out := make([]*apiextensionsv1.CustomResourceDefinition, 0, len(names))
	for _, n := range names {
		raw, err := FS.ReadFile(n)
		if err != nil {
			return nil, fmt.Errorf("read embedded CRD %s: %w", n, err)
		}
		var c apiextensionsv1.CustomResourceDefinition
		if err := yaml.UnmarshalStrict(raw, &c); err != nil {
			return nil, fmt.Errorf("decode embedded CRD %s: %w", n, err)
		}
		if c.Kind != "CustomResourceDefinition" || c.APIVersion != apiextensionsv1.SchemeGroupVersion.String() {
			return nil, fmt.Errorf("embedded file %s is a %s %s, want an apiextensions.k8s.io/v1 CustomResourceDefinition", n, c.APIVersion, c.Kind)
		}
		out = append(out, &c)
	}
	return out, nil
}
