package labtest

import (
	"strconv"
	"testing"
	"time"

	"k8s.io/client-go/tools/clientcmd"
)

// RevokedKubeconfig is kubeconfig with its users' credentials replaced by a
// token the apiserver does not know: a member's credentials revoked.
func RevokedKubeconfig(t testing.TB, kubeconfig []byte) []byte {
	t.Helper()
	return KubeconfigWithToken(t, kubeconfig, "revoked-"+strconv.Itoa(int(time.Now().UnixNano()%1e6)))
}

// KubeconfigWithToken is kubeconfig (the same server and CA) with its users'
// credentials replaced by the bearer token: a member's credentials rotated
// to, for instance, a ServiceAccount token.
func KubeconfigWithToken(t testing.TB, kubeconfig []byte, token string) []byte {
	t.Helper()
	cfg, err := clientcmd.Load(kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range cfg.AuthInfos {
		a.ClientCertificateData, a.ClientKeyData, a.ClientCertificate, a.ClientKey = nil, nil, "", ""
		a.Token = token
	}
	out, err := clientcmd.Write(*cfg)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
