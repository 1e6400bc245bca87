// Package oidc is the lab's own OpenID Connect issuer: an RSA key it holds, the
// discovery document and JWKS it serves, and tokens minted with chosen claims,
// shaped like HCP Terraform's workload identity tokens. The lab's STS emulator
// trusts it as an IAM OIDC identity provider, so tests exercise dynamic
// credentials end to end without a real cloud.
package oidc
