package lab

// The lab's OIDC issuer (package oidc) is served by the lab daemon on the AWS
// emulator's port under OIDCIssuerPath; HCA_LAB_OIDC_ISSUER is its URL. Tests
// mint tokens by POSTing {"sub","aud","ttl"} to that URL + "/mint".
const (
	OIDCIssuerPath = "/oidc"
	// OIDCAudienceAWS is the audience the emulated AWS account accepts: HCP
	// Terraform's default audience for AWS dynamic credentials.
	OIDCAudienceAWS = "aws.workload.identity"
)
