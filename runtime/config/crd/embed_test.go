package crd_test

import (
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/hca-project/terraform-provider-hca/internal/api/v1alpha1"
	"github.com/hca-project/terraform-provider-hca/runtime/config/crd"
)

// apiKinds are the root kinds registered by v1alpha1.AddToScheme, without lists.
func apiKinds(t *testing.T) []string {
	t.Helper()
	s := runtime.NewScheme()
	if err := v1alpha1.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	pkg := reflect.TypeOf(v1alpha1.HybridCluster{}).PkgPath()
	var kinds []string
	for kind, typ := range s.KnownTypes(v1alpha1.GroupVersion) {
		if typ.PkgPath() == pkg && !strings.HasSuffix(kind, "List") {
			kinds = append(kinds, kind)
		}
	}
	sort.Strings(kinds)
	return kinds
}

// TestEmbeddedCRDs checks that the generated manifests decode, cover every kind of
// the API, and carry what the API promises: the status subresource, printer
// columns that point at existing fields, and map-typed conditions.
func TestEmbeddedCRDs(t *testing.T) {
	crds, err := crd.CRDs()
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, c := range crds {
		kinds = append(kinds, c.Spec.Names.Kind)
	}
	sort.Strings(kinds)
	if want := apiKinds(t); !reflect.DeepEqual(kinds, want) {
		t.Fatalf("embedded CRD kinds = %v, want the API's kinds %v (run make generate)", kinds, want)
	}
	wantScope := map[string]apiextensionsv1.ResourceScope{"HybridCluster": apiextensionsv1.ClusterScoped}
	for _, c := range crds {
		t.Run(c.Spec.Names.Kind, func(t *testing.T) {
			if c.Spec.Group != v1alpha1.Group || c.Name != c.Spec.Names.Plural+"."+v1alpha1.Group {
				t.Errorf("group %q name %q, want group %s and name <plural>.%s", c.Spec.Group, c.Name, v1alpha1.Group, v1alpha1.Group)
			}
			scope := wantScope[c.Spec.Names.Kind]
			if scope == "" {
				scope = apiextensionsv1.NamespaceScoped
			}
			if c.Spec.Scope != scope {
				t.Errorf("scope %s, want %s", c.Spec.Scope, scope)
			}
			if !slices.Contains(c.Spec.Names.Categories, "hca") || len(c.Spec.Names.ShortNames) == 0 {
				t.Errorf("categories %v short names %v, want category hca and a short name", c.Spec.Names.Categories, c.Spec.Names.ShortNames)
			}
			if len(c.Spec.Versions) != 1 {
				t.Fatalf("%d versions, want 1 (v1alpha1)", len(c.Spec.Versions))
			}
			v := c.Spec.Versions[0]
			if v.Name != v1alpha1.GroupVersion.Version || !v.Served || !v.Storage {
				t.Errorf("version %s served=%v storage=%v, want v1alpha1 served and stored", v.Name, v.Served, v.Storage)
			}
			if v.Subresources == nil || v.Subresources.Status == nil {
				t.Error("no status subresource")
			}
			if v.Schema == nil || v.Schema.OpenAPIV3Schema == nil {
				t.Fatal("no schema")
			}
			root := v.Schema.OpenAPIV3Schema
			if !slices.Contains(root.Required, "spec") {
				t.Errorf("spec is not required (required: %v)", root.Required)
			}
			cond, ok := lookup(root, ".status.conditions")
			if !ok {
				t.Fatal("no status.conditions")
			}
			if cond.XListType == nil || *cond.XListType != "map" || !reflect.DeepEqual(cond.XListMapKeys, []string{"type"}) {
				t.Errorf("status.conditions list type %v keys %v, want map keyed by type", cond.XListType, cond.XListMapKeys)
			}
			if len(v.AdditionalPrinterColumns) < 3 {
				t.Errorf("%d printer columns, want at least 3", len(v.AdditionalPrinterColumns))
			}
			for _, col := range v.AdditionalPrinterColumns {
				if strings.HasPrefix(col.JSONPath, ".metadata.") {
					continue
				}
				if _, ok := lookup(root, col.JSONPath); !ok {
					t.Errorf("printer column %s: JSONPath %s names no field of the schema", col.Name, col.JSONPath)
				}
			}
			if n := countValidations(root); n == 0 {
				t.Error("no x-kubernetes-validations (CEL) rules")
			}
		})
	}
}

// lookup follows a simple JSONPath (.a.b.c) through object properties. Maps
// (additionalProperties, such as a ResourceList) accept any key.
func lookup(s *apiextensionsv1.JSONSchemaProps, path string) (*apiextensionsv1.JSONSchemaProps, bool) {
	for _, seg := range strings.Split(strings.TrimPrefix(path, "."), ".") {
		if p, ok := s.Properties[seg]; ok {
			s = &p
			continue
		}
		if s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil {
			s = s.AdditionalProperties.Schema
			continue
		}
		return nil, false
	}
	return s, true
}

func countValidations(s *apiextensionsv1.JSONSchemaProps) int {
	n := len(s.XValidations)
	for _, p := range s.Properties {
		n += countValidations(&p)
	}
	if s.Items != nil && s.Items.Schema != nil {
		n += countValidations(s.Items.Schema)
	}
	return n
}
