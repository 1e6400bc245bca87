package cloud

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sts"
	smithyhttp "github.com/aws/smithy-go/transport/http"
)

const (
	// EKSTokenPrefix starts every EKS bearer token (aws-iam-authenticator "v1" tokens).
	EKSTokenPrefix = "k8s-aws-v1."
	// EKSClusterIDHeader is the signed header that binds a token to one cluster.
	EKSClusterIDHeader = "x-k8s-aws-id"
	// eksPresignExpires is the X-Amz-Expires the authenticator puts in the URL; STS
	// itself keeps presigned GetCallerIdentity URLs valid for 15 minutes after
	// X-Amz-Date whatever this says.
	eksPresignExpires = "60"
	// eksTokenLifetime is how long the authenticator tells clients to cache a token:
	// the 15-minute STS validity less one minute of margin.
	eksTokenLifetime = 14 * time.Minute
)

// Token is a Kubernetes bearer token and the time a client should stop using it.
type Token struct {
	// Value is the bearer token. It is a credential: never log it.
	Value string
	// Expiration is when the token should be replaced (14 minutes after minting).
	Expiration time.Time
}

// NewSTSClient returns an STS client for cfg, sending requests to endpoint when
// it is not empty (the lab's AWS emulator) instead of the public STS endpoint.
func NewSTSClient(cfg aws.Config, endpoint string) *sts.Client {
	return sts.NewFromConfig(cfg, func(o *sts.Options) {
		if endpoint != "" {
			o.BaseEndpoint = aws.String(endpoint)
		}
	})
}

// EKSToken mints a bearer token for the EKS cluster clusterName, as
// `aws eks get-token` and aws-iam-authenticator do: a presigned STS
// GetCallerIdentity GET URL, with the x-k8s-aws-id header (the cluster name) signed
// and X-Amz-Expires=60, base64url-encoded without padding behind "k8s-aws-v1.".
// The cluster's authenticator replays the URL against STS to learn who signed it.
func EKSToken(ctx context.Context, client *sts.Client, clusterName string) (Token, error) {
	if client == nil {
		return Token{}, errors.New("eks token: sts client is nil")
	}
	if clusterName == "" {
		return Token{}, errors.New("eks token: cluster name is empty: set the EKS cluster name the token is for")
	}
	now := time.Now()
	presigned, err := sts.NewPresignClient(client).PresignGetCallerIdentity(ctx, &sts.GetCallerIdentityInput{},
		func(o *sts.PresignOptions) {
			o.ClientOptions = append(o.ClientOptions, sts.WithAPIOptions(
				smithyhttp.AddHeaderValue(EKSClusterIDHeader, clusterName),
				smithyhttp.AddHeaderValue("X-Amz-Expires", eksPresignExpires),
			))
		})
	if err != nil {
		return Token{}, fmt.Errorf("eks token for cluster %q: presign sts GetCallerIdentity: %w", clusterName, err)
	}
	return Token{
		Value:      EKSTokenPrefix + base64.RawURLEncoding.EncodeToString([]byte(presigned.URL)),
		Expiration: now.Add(eksTokenLifetime),
	}, nil
}
