package lab_test

import (
	"context"
	"slices"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/hca-project/terraform-provider-hca/internal/lab"
	"github.com/hca-project/terraform-provider-hca/internal/lab/labtest"
	"github.com/hca-project/terraform-provider-hca/internal/lab/oidc"
)

// TestOIDCTokensOnTheControlAPIServer sends workload identity tokens of the
// lab's OIDC issuer, shaped as HCP Terraform's Kubernetes dynamic credentials,
// to the control (private) cluster's kube-apiserver, which trusts the issuer
// through its structured authentication configuration: a SelfSubjectReview
// with a good token shows the prefixed user name and organization group, and
// a forged token (another key, the same issuer URL), an expired token and a
// token for another audience are each refused with 401.
func TestOIDCTokensOnTheControlAPIServer(t *testing.T) {
	env := labtest.Require(t, "HCA_LAB_PRIVATE_KUBECONFIG", "HCA_LAB_OIDC_ISSUER")
	admin, err := clientcmd.BuildConfigFromFlags("", env["HCA_LAB_PRIVATE_KUBECONFIG"])
	if err != nil {
		t.Fatal(err)
	}
	if err := rest.LoadTLSFiles(admin); err != nil {
		t.Fatal(err)
	}
	review := func(t *testing.T, token string) (*authenticationv1.SelfSubjectReview, error) {
		t.Helper()
		// The cluster's address and CA only: the token is the one credential.
		cfg := &rest.Config{Host: admin.Host, BearerToken: token, TLSClientConfig: rest.TLSClientConfig{CAData: admin.CAData}}
		cs, err := kubernetes.NewForConfig(cfg)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		return cs.AuthenticationV1().SelfSubjectReviews().Create(ctx, &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
	}

	t.Run("accepted", func(t *testing.T) {
		claims := oidc.TFCClaims("example-org", "default", "hca-production", "apply", lab.OIDCAudienceKubernetes, 10*time.Minute)
		r, err := review(t, labtest.OIDCTokenWithClaims(t, claims))
		if err != nil {
			t.Fatalf("SelfSubjectReview with a good token: %v", err)
		}
		wantUser := "tfc:organization:example-org:project:default:workspace:hca-production:run_phase:apply"
		if got := r.Status.UserInfo.Username; got != wantUser {
			t.Errorf("username = %q, want %q", got, wantUser)
		}
		if g := r.Status.UserInfo.Groups; !slices.Contains(g, "tfc:example-org") || !slices.Contains(g, "system:authenticated") {
			t.Errorf("groups = %v, want tfc:example-org and system:authenticated", g)
		}
	})

	t.Run("a sub cannot name another user", func(t *testing.T) {
		r, err := review(t, labtest.OIDCToken(t, "system:kube-controller-manager", lab.OIDCAudienceKubernetes, 10*time.Minute))
		if err != nil {
			t.Fatalf("SelfSubjectReview: %v", err)
		}
		if got, want := r.Status.UserInfo.Username, "tfc:system:kube-controller-manager"; got != want {
			t.Errorf("username = %q, want %q", got, want)
		}
	})

	forger, err := oidc.New(env["HCA_LAB_OIDC_ISSUER"], nil) // the trusted issuer's URL, another key
	if err != nil {
		t.Fatal(err)
	}
	forged, err := forger.Mint(oidc.TFCClaims("example-org", "default", "hca-production", "apply", lab.OIDCAudienceKubernetes, 10*time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	refused := []struct {
		name  string
		token string
	}{
		{"forged", forged},
		{"expired", labtest.OIDCToken(t, oidc.TFCSubject("example-org", "default", "hca-production", "apply"), lab.OIDCAudienceKubernetes, -time.Minute)},
		{"wrong audience", labtest.OIDCToken(t, oidc.TFCSubject("example-org", "default", "hca-production", "apply"), lab.OIDCAudienceAWS, 10*time.Minute)},
	}
	for _, tt := range refused {
		t.Run("refused "+tt.name, func(t *testing.T) {
			r, err := review(t, tt.token)
			if err == nil {
				t.Fatalf("SelfSubjectReview succeeded as %q, want 401", r.Status.UserInfo.Username)
			}
			if !apierrors.IsUnauthorized(err) {
				t.Fatalf("error = %v, want 401 Unauthorized", err)
			}
		})
	}
}

// BenchmarkSelfSubjectReview measures one authenticated request to the
// control apiserver with each kind of credential: the lab OIDC issuer's token
// (verified by the apiserver's JWT authenticator against the cached JWKS) and
// the admin client certificate.
func BenchmarkSelfSubjectReview(b *testing.B) {
	env := labtest.Require(b, "HCA_LAB_PRIVATE_KUBECONFIG", "HCA_LAB_OIDC_ISSUER")
	admin, err := clientcmd.BuildConfigFromFlags("", env["HCA_LAB_PRIVATE_KUBECONFIG"])
	if err != nil {
		b.Fatal(err)
	}
	if err := rest.LoadTLSFiles(admin); err != nil {
		b.Fatal(err)
	}
	token := labtest.OIDCTokenWithClaims(b, oidc.TFCClaims("example-org", "default", "hca-production", "apply", lab.OIDCAudienceKubernetes, time.Hour))
	for _, bc := range []struct {
		name string
		cfg  *rest.Config
	}{
		{"oidc token", &rest.Config{Host: admin.Host, BearerToken: token, TLSClientConfig: rest.TLSClientConfig{CAData: admin.CAData}}},
		{"client certificate", admin},
	} {
		b.Run(bc.name, func(b *testing.B) {
			cfg := rest.CopyConfig(bc.cfg)
			cfg.QPS, cfg.Burst = -1, 0 // no client-side rate limit
			cs, err := kubernetes.NewForConfig(cfg)
			if err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			for b.Loop() {
				if _, err := cs.AuthenticationV1().SelfSubjectReviews().Create(ctx, &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
