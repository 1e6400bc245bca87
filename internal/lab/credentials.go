package lab

// The lab's cloud credentials. The emulators (internal/lab/emulator) accept
// requests signed with these keys only, as a cloud accepts only its own
// account's keys; .lab/env exports them under the names the AWS SDK, the
// Alibaba Cloud SDK and the provider read. They open nothing but the lab.
const (
	AWSAccessKeyID       = "AKIAHCALAB0000000001"
	AWSSecretAccessKey   = "hcalabsecretkey0000000000000000000000001"
	AlicloudAccessKey    = "LTAIhcalab00000001"
	AlicloudAccessSecret = "hcalabalicloudsecret000000001"
)

// credentialsEnv is the part of .lab/env that holds the lab's cloud
// credentials. No region: a configuration names its own (the emulators serve
// any), and AWS_REGION would turn on the runtime's EKS support in every
// process that sources .lab/env.
func credentialsEnv() map[string]string {
	return map[string]string{
		"AWS_ACCESS_KEY_ID":     AWSAccessKeyID,
		"AWS_SECRET_ACCESS_KEY": AWSSecretAccessKey,
		"ALICLOUD_ACCESS_KEY":   AlicloudAccessKey,
		"ALICLOUD_SECRET_KEY":   AlicloudAccessSecret,
	}
}
