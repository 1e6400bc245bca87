package crd

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
)

// FieldManager is the server-side apply field manager of HCA's installs.
const FieldManager = "hca"

// Install server-side applies every embedded CRD to the cluster behind cfg and
// waits until each is Established (or ctx ends). Applying the same CRDs again is a
// no-op, so it is safe to call on every start or test.
func Install(ctx context.Context, cfg *rest.Config) error {
	crds, err := CRDs()
	if err != nil {
		return err
	}
	cs, err := apiextensionsclient.NewForConfig(cfg)
	if err != nil {
		return fmt.Errorf("apiextensions client: %w", err)
	}
	force := true
	for _, c := range crds {
		c.TypeMeta = metav1.TypeMeta{APIVersion: "apiextensions.k8s.io/v1", Kind: "CustomResourceDefinition"}
		raw, err := json.Marshal(c)
		if err != nil {
			return fmt.Errorf("encode CRD %s: %w", c.Name, err)
		}
		if _, err := cs.ApiextensionsV1().CustomResourceDefinitions().Patch(ctx, c.Name, types.ApplyPatchType, raw,
			metav1.PatchOptions{FieldManager: FieldManager, Force: &force}); err != nil {
			return fmt.Errorf("apply CRD %s: %w", c.Name, err)
		}
	}
	for _, c := range crds {
		for {
			got, err := cs.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, c.Name, metav1.GetOptions{})
			if err == nil && established(got) {
				break
			}
			select {
			case <-ctx.Done():
				return fmt.Errorf("CRD %s not Established: %w", c.Name, ctx.Err())
			case <-time.After(100 * time.Millisecond):
			}
		}
	}
	return nil
}

func established(c *apiextensionsv1.CustomResourceDefinition) bool {
	for _, cond := range c.Status.Conditions {
		if cond.Type == apiextensionsv1.Established && cond.Status == apiextensionsv1.ConditionTrue {
			return true
		}
	}
	return false
}
