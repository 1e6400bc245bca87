package member

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/utils/clock"

	"github.com/hca-project/terraform-provider-hca/internal/cloud"
)

// Credentials say how to reach one member cluster. Exactly one of Kubeconfig and
// EKS is set.
type Credentials struct {
	// Kubeconfig is a kubeconfig file's content (its current context is used).
	Kubeconfig []byte
	// EKS identifies an EKS cluster whose endpoint, CA and tokens come from AWS.
	EKS *EKSCluster
}

// EKSCluster names an EKS cluster.
type EKSCluster struct {
	Name   string
	Region string
}

// EKSAPI is what the factory needs from AWS: the cluster's endpoint and CA, and
// a token for it. AWSAPI implements it with the SDK.
type EKSAPI interface {
	DescribeCluster(ctx context.Context, name, region string) (endpoint string, caPEM []byte, err error)
	Token(ctx context.Context, name, region string) (cloud.Token, error)
}

// RESTConfig returns a client configuration for the member cluster.
func RESTConfig(ctx context.Context, creds Credentials, api EKSAPI, clk clock.PassiveClock) (*rest.Config, error) {
	switch {
	case len(creds.Kubeconfig) > 0 && creds.EKS != nil:
		return nil, errors.New("credentials hold both a kubeconfig and an EKS cluster: keep one")
	case len(creds.Kubeconfig) > 0:
		cfg, err := clientcmd.RESTConfigFromKubeConfig(creds.Kubeconfig)
		if err != nil {
			// The parser's message can quote the file; do not repeat it.
			return nil, errors.New("the kubeconfig in the credentials Secret cannot be parsed: store a valid kubeconfig under the referenced key")
		}
		return cfg, nil
	case creds.EKS != nil:
		if creds.EKS.Name == "" || creds.EKS.Region == "" {
			return nil, errors.New("EKS credentials need the cluster name and region")
		}
		if api == nil {
			return nil, errors.New("EKS cluster given but the runtime has no AWS access configured")
		}
		endpoint, ca, err := api.DescribeCluster(ctx, creds.EKS.Name, creds.EKS.Region)
		if err != nil {
			return nil, fmt.Errorf("describe EKS cluster %s in %s: %w", creds.EKS.Name, creds.EKS.Region, err)
		}
		src := &tokenSource{api: api, name: creds.EKS.Name, region: creds.EKS.Region, clock: clk}
		cfg := &rest.Config{Host: endpoint, TLSClientConfig: rest.TLSClientConfig{CAData: ca}}
		cfg.WrapTransport = func(rt http.RoundTripper) http.RoundTripper { return &bearer{next: rt, src: src} }
		return cfg, nil
	default:
		return nil, errors.New("credentials hold neither a kubeconfig nor an EKS cluster")
	}
}

// refreshBefore is how long before its expiry a token is replaced.
const refreshBefore = time.Minute

// tokenSource caches an EKS token and mints a new one shortly before it expires.
type tokenSource struct {
	api          EKSAPI
	name, region string
	clock        clock.PassiveClock

	mu  sync.Mutex
	tok cloud.Token
}

func (s *tokenSource) token(ctx context.Context) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.tok.Value != "" && s.clock.Now().Add(refreshBefore).Before(s.tok.Expiration) {
		return s.tok.Value, nil
	}
	tok, err := s.api.Token(ctx, s.name, s.region)
	if err != nil {
		return "", fmt.Errorf("mint EKS token for %s: %w", s.name, err)
	}
	s.tok = tok
	return tok.Value, nil
}

type bearer struct {
	next http.RoundTripper
	src  *tokenSource
}

func (b *bearer) RoundTrip(req *http.Request) (*http.Response, error) {
	tok, err := b.src.token(req.Context())
	if err != nil {
		return nil, err
	}
	r := req.Clone(req.Context())
	r.Header.Set("Authorization", "Bearer "+tok)
	return b.next.RoundTrip(r)
}

// AWSAPI implements EKSAPI with aws-sdk-go-v2. Endpoints override the SDK's
// (the lab's emulators); empty means AWS's own.
type AWSAPI struct {
	Config      aws.Config
	EKSEndpoint string
	STSEndpoint string
	// AutoScalingEndpoint is the Auto Scaling API's base URL ("": the
	// region's public endpoint; the lab serves it on the EKS emulator's URL).
	AutoScalingEndpoint string
}

func (a *AWSAPI) regional(region string) aws.Config {
	cfg := a.Config.Copy()
	cfg.Region = region
	return cfg
}

// DescribeCluster returns the cluster's endpoint and CA (PEM).
func (a *AWSAPI) DescribeCluster(ctx context.Context, name, region string) (string, []byte, error) {
	out, err := a.eks(region).DescribeCluster(ctx, &eks.DescribeClusterInput{Name: aws.String(name)})
	if err != nil {
		return "", nil, err
	}
	c := out.Cluster
	if c == nil || c.Endpoint == nil || c.CertificateAuthority == nil || c.CertificateAuthority.Data == nil {
		status := "unknown"
		if c != nil {
			status = string(c.Status)
		}
		return "", nil, fmt.Errorf("cluster %s has no endpoint or CA yet (status %s): wait until it is ACTIVE", name, status)
	}
	ca, err := base64.StdEncoding.DecodeString(*c.CertificateAuthority.Data)
	if err != nil {
		return "", nil, fmt.Errorf("decode CA of cluster %s: %w", name, err)
	}
	return *c.Endpoint, ca, nil
}

// Token mints an EKS token for the cluster.
func (a *AWSAPI) Token(ctx context.Context, name, region string) (cloud.Token, error) {
	return cloud.EKSToken(ctx, cloud.NewSTSClient(a.regional(region), a.STSEndpoint), name)
}
