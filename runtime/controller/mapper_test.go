package controller

import (
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// countingMapper counts the RESTMapping calls that reach it.
type countingMapper struct {
	meta.RESTMapper
	calls int
}

func (c *countingMapper) RESTMapping(gk schema.GroupKind, versions ...string) (*meta.RESTMapping, error) {
	c.calls++
	return c.RESTMapper.RESTMapping(gk, versions...)
}

// TestCachedMapper: a mapping found is asked of the underlying mapper once
// per kind and versions; a kind it does not know is asked again each time
// (it may be served later) and reported as no match.
func TestCachedMapper(t *testing.T) {
	gv := schema.GroupVersion{Group: "hca.dev", Version: "v1alpha1"}
	def := meta.NewDefaultRESTMapper([]schema.GroupVersion{gv})
	def.Add(gv.WithKind("ServiceLevelObjective"), meta.RESTScopeNamespace)
	under := &countingMapper{RESTMapper: def}
	m := &cachedMapper{RESTMapper: under}
	tests := []struct {
		name      string
		gk        schema.GroupKind
		versions  []string
		wantRes   string
		wantCalls int // underlying calls after this step
	}{
		{"first ask", schema.GroupKind{Group: "hca.dev", Kind: "ServiceLevelObjective"}, []string{"v1alpha1"}, "servicelevelobjectives", 1},
		{"asked again: kept", schema.GroupKind{Group: "hca.dev", Kind: "ServiceLevelObjective"}, []string{"v1alpha1"}, "servicelevelobjectives", 1},
		{"other versions: asked", schema.GroupKind{Group: "hca.dev", Kind: "ServiceLevelObjective"}, nil, "servicelevelobjectives", 2},
		{"unknown kind", schema.GroupKind{Group: "hca.dev", Kind: "Nothing"}, []string{"v1alpha1"}, "", 3},
		{"unknown kind again: asked again", schema.GroupKind{Group: "hca.dev", Kind: "Nothing"}, []string{"v1alpha1"}, "", 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := m.RESTMapping(tt.gk, tt.versions...)
			switch {
			case tt.wantRes == "" && !meta.IsNoMatchError(err):
				t.Errorf("RESTMapping(%v) = %v, %v; want a no-match error", tt.gk, r, err)
			case tt.wantRes != "" && (err != nil || r.Resource.Resource != tt.wantRes):
				t.Errorf("RESTMapping(%v) = %v, %v; want resource %s", tt.gk, r, err, tt.wantRes)
			}
			if under.calls != tt.wantCalls {
				t.Errorf("underlying calls %d, want %d", under.calls, tt.wantCalls)
			}
		})
	}
}
