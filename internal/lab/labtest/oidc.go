package labtest

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"
)

// OIDCToken mints a token from the running lab's OIDC issuer
// (HCA_LAB_OIDC_ISSUER) with the given subject, audience and time to live (a
// negative ttl mints an already expired token).
func OIDCToken(t testing.TB, sub, aud string, ttl time.Duration) string {
	t.Helper()
	issuer := Require(t, "HCA_LAB_OIDC_ISSUER")["HCA_LAB_OIDC_ISSUER"]
	body, err := json.Marshal(map[string]any{"sub": sub, "aud": aud, "ttl": ttl})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Post(issuer+"/mint", "application/json", strings.NewReader(string(body)))
	if err != nil {
		t.Fatalf("mint a lab OIDC token: %v", err)
	}
	defer resp.Body.Close()
	var out struct{ Token, Error string }
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || out.Token == "" {
		t.Fatalf("mint a lab OIDC token: %s %v %s", resp.Status, err, out.Error)
	}
	return out.Token
}
