// Package cloud holds the cloud clients HCA uses beside the SDKs: the EKS bearer
// token minter (the aws-iam-authenticator token format) and related helpers.
package cloud
