package config

import (
	"context"
	"encoding/json"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// FieldManager is the server-side apply field manager of HCA's installs.
const FieldManager = "hca"

// Apply server-side applies objs (as returned by Objects) in order.
func Apply(ctx context.Context, c client.Client, objs []any) error {
	for _, o := range objs {
		u, err := toUnstructured(o)
		if err != nil {
			return err
		}
		if err := c.Patch(ctx, u, client.Apply, client.FieldOwner(FieldManager), client.ForceOwnership); err != nil {
			return fmt.Errorf("apply %s %s: %w", u.GetKind(), u.GetName(), err)
		}
	}
	return nil
}

func toUnstructured(o any) (*unstructured.Unstructured, error) {
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(o)
	if err != nil {
		return nil, fmt.Errorf("convert %T: %w", o, err)
	}
	u := &unstructured.Unstructured{Object: m}
	// Server-side apply wants no status and no creation timestamp.
	delete(u.Object, "status")
	unstructured.RemoveNestedField(u.Object, "metadata", "creationTimestamp")
	unstructured.RemoveNestedField(u.Object, "spec", "template", "metadata", "creationTimestamp")
	if _, err := json.Marshal(u.Object); err != nil {
		return nil, fmt.Errorf("encode %s: %w", u.GetName(), err)
	}
	return u, nil
}
