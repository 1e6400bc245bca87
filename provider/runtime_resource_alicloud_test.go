package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/hca-project/terraform-provider-hca/runtime/config"
)

// TestAccRuntimeResource_alicloud: the alicloud block's AccessKey lands in
// the hca-runtime-alicloud Secret, the Deployment takes it by env valueFrom
// and holds neither key; the plan shows the keys as sensitive; a rotated
// secret rewrites the Secret; removing the block deletes it; destroy leaves
// nothing.
func TestAccRuntimeResource_alicloud(t *testing.T) {
	lab := requireLabCluster(t)
	prepareAccEnv(t)
	c := labAdmin(t, lab)
	ns := fmt.Sprintf("hca-tf-rt-%06d", rand.IntN(1e6))
	const id, secret1, secret2 = "LTAI5tACCTESTKEY000001", "accTestSecretOne0000000000000001", "accTestSecretTwo0000000000000002"
	hcl := func(secret string) string {
		return runtimeHCL(lab, ns, fmt.Sprintf(`image = "hca-runtime:v1"
  force_destroy = true
  aws = { autoscaling_endpoint = "http://127.0.0.1:9002" }
  alicloud = {
    access_key_id     = %q
    access_key_secret = %q
    ack_endpoint      = "http://127.0.0.1:9003"
  }`, id, secret))
	}
	checkSecret := func(want string) resource.TestCheckFunc {
		return func(*terraform.State) error {
			var s corev1.Secret
			if err := c.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: config.AlicloudSecretName}, &s); err != nil {
				return fmt.Errorf("get Secret: %w", err)
			}
			if string(s.Data[config.AlicloudKeyIDKey]) != id || string(s.Data[config.AlicloudKeySecretKey]) != want {
				return fmt.Errorf("the Secret does not hold the configured AccessKey (keys %d)", len(s.Data))
			}
			return nil
		}
	}
	noKeyInDeployment := checkDeployment(c, ns, func(d *appsv1.Deployment) error {
		raw, _ := json.Marshal(d)
		if strings.Contains(string(raw), id) || strings.Contains(string(raw), secret1) || strings.Contains(string(raw), secret2) {
			return fmt.Errorf("the Deployment holds the AccessKey")
		}
		ctr := d.Spec.Template.Spec.Containers[0]
		refs := 0
		for _, e := range ctr.Env {
			if e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil && e.ValueFrom.SecretKeyRef.Name == config.AlicloudSecretName {
				refs++
			}
		}
		if refs != 2 {
			return fmt.Errorf("env %+v: want ALIBABA_CLOUD_ACCESS_KEY_ID and _SECRET from the Secret", ctr.Env)
		}
		if !strings.Contains(strings.Join(ctr.Args, " "), "--ack-endpoint=http://127.0.0.1:9003") {
			return fmt.Errorf("args %v lack --ack-endpoint", ctr.Args)
		}
		return nil
	})
	accTest(t, resource.TestCase{
		CheckDestroy: resource.ComposeAggregateTestCheckFunc(checkRuntimeGone(c, ns), func(*terraform.State) error {
			err := c.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: config.AlicloudSecretName}, &corev1.Secret{})
			if !apierrors.IsNotFound(err) {
				return fmt.Errorf("the alicloud Secret outlived destroy (get: %v)", err)
			}
			return nil
		}),
		Steps: []resource.TestStep{
			{
				Config: hcl(secret1),
				Check: resource.ComposeAggregateTestCheckFunc(
					checkSecret(secret1), noKeyInDeployment,
					resource.TestCheckResourceAttr("hca_runtime.this", "alicloud.ack_endpoint", "http://127.0.0.1:9003"),
					resource.TestCheckResourceAttr("hca_runtime.this", "aws.autoscaling_endpoint", "http://127.0.0.1:9002"),
				),
			},
			{Config: hcl(secret1), PlanOnly: true},
			{Config: hcl(secret2), Check: resource.ComposeAggregateTestCheckFunc(checkSecret(secret2), noKeyInDeployment)},
			{
				Config: runtimeHCL(lab, ns, `image = "hca-runtime:v1"
  force_destroy = true`),
				Check: func(*terraform.State) error {
					err := c.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: config.AlicloudSecretName}, &corev1.Secret{})
					if !apierrors.IsNotFound(err) {
						return fmt.Errorf("the alicloud Secret outlived the block's removal (get: %v)", err)
					}
					return nil
				},
			},
		},
	})
}
