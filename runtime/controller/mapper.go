package controller

import (
	"net/http"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
)

// NewRESTMapper is the manager's RESTMapper (ctrl.Options.MapperProvider):
// controller-runtime's dynamic mapper, with the mappings it found kept
// (cachedMapper).
func NewRESTMapper(cfg *rest.Config, httpClient *http.Client) (meta.RESTMapper, error) {
	m, err := apiutil.NewDynamicRESTMapper(cfg, httpClient)
	if err != nil {
		return nil, err
	}
	return &cachedMapper{RESTMapper: m}, nil
}

// cachedMapper keeps the RESTMapping of each kind and versions asked, once
// found. controller-runtime's typed client keeps its own per kind, but its
// metadata client asks the mapper at every request, and the dynamic mapper
// answers each time through a priority list and two error allocations
// (meta.IsNoMatchError): make bench-load's status writes (patchLean) spent
// 8 kB a write there. Only mappings found are kept: a kind not (yet)
// served is asked again, and the dynamic mapper reloads its group then, as
// before. The dynamic mapper itself keeps a group's mappings once loaded,
// so a kept mapping is what it would answer.
type cachedMapper struct {
	meta.RESTMapper
	mappings sync.Map // mappingKey -> *meta.RESTMapping
}

type mappingKey struct {
	gk       schema.GroupKind
	versions string
}

// RESTMapping implements meta.RESTMapper.
func (m *cachedMapper) RESTMapping(gk schema.GroupKind, versions ...string) (*meta.RESTMapping, error) {
	k := mappingKey{gk: gk, versions: strings.Join(versions, ",")}
	if v, ok := m.mappings.Load(k); ok {
		return v.(*meta.RESTMapping), nil
	}
	r, err := m.RESTMapper.RESTMapping(gk, versions...)
	if err != nil {
		return nil, err
	}
	m.mappings.Store(k, r)
	return r, nil
}
