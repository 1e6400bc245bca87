package main

import (
	"context"
	"fmt"
	"log"
	"log/slog"
	"net/http"
	"time"

	"github.com/hca-project/terraform-provider-hca/internal/lab"
	"github.com/hca-project/terraform-provider-hca/internal/lab/emulator"
	"github.com/hca-project/terraform-provider-hca/internal/lab/loadsim"
	"github.com/hca-project/terraform-provider-hca/internal/lab/oidc"
)

// daemonHandlers builds the daemon's HTTP handlers by name (aws, ack, loadsim,
// and oidc and alicloud-sts, which serve over TLS: kube-apiserver and the
// Alibaba Cloud SDK call https only) and the loop that must run beside them
// (loadsim's and the lab's in-place pod resize, lab.Resizer).
func daemonHandlers(ctx context.Context, clusters *lab.Clusters, dir string, awsPort, oidcPort int, bootDelay, podDelay, resizeDelay time.Duration, logger *log.Logger) (map[string]http.Handler, func(context.Context) error, error) {
	slogger := slog.New(slog.NewTextHandler(logger.Writer(), nil))
	if bootDelay <= 0 {
		bootDelay = -1 // the emulators' "none"
	}
	awsURL := fmt.Sprintf("http://127.0.0.1:%d", awsPort)
	// The lab's OIDC issuer listens on its own port over TLS (a kube-apiserver
	// accepts only an https issuer), with a serving certificate of the lab CA.
	// The emulated account trusts it as an IAM OIDC provider for HCP
	// Terraform's default AWS audience; the lab apiservers trust it through
	// their authentication configuration.
	issuer, err := oidc.New(lab.OIDCIssuerURL(oidcPort), nil)
	if err != nil {
		return nil, nil, err
	}
	roots, err := lab.CAPool(dir)
	if err != nil {
		return nil, nil, err
	}
	aws, err := emulator.NewAWS(clusters, emulator.AWSOptions{
		BaseURL:         awsURL,
		OIDCProviders:   []emulator.OIDCProvider{{URL: issuer.URL(), ClientIDs: []string{lab.OIDCAudienceAWS}}},
		OIDCRootCAs:     roots,
		Logger:          slogger.With("component", "aws"),
		NodeBootDelay:   bootDelay,
		PodStartupDelay: podDelay,
	})
	if err != nil {
		return nil, nil, err
	}
	ack := emulator.NewACK(clusters, emulator.ACKOptions{
		OIDCProviders:   []emulator.RAMOIDCProvider{{Name: lab.AlicloudOIDCProviderName, IssuerURL: issuer.URL(), ClientIDs: []string{lab.OIDCAudienceAWS}}},
		OIDCRootCAs:     roots,
		Logf:            func(format string, args ...any) { logger.Printf("ack: "+format, args...) },
		NodeBootDelay:   bootDelay,
		PodStartupDelay: podDelay,
	})
	sim, err := loadsim.New(loadsim.Options{Clusters: loadsim.DirSource(dir), Logger: slogger.With("component", "loadsim")})
	if err != nil {
		return nil, nil, err
	}
	oidcMux := http.NewServeMux()
	oidcMux.Handle(lab.OIDCIssuerPath+"/", http.StripPrefix(lab.OIDCIssuerPath, issuer.Handler()))
	// The lab's kubelet part for in-place pod resize (kwok runs none).
	resizer := &lab.Resizer{Clusters: clusters, Delay: resizeDelay, Logf: logger.Printf}
	run := func(ctx context.Context) error {
		go func() { _ = resizer.Run(ctx) }()
		return sim.Run(ctx)
	}
	return map[string]http.Handler{"aws": aws, "ack": ack, "loadsim": sim.Handler(), "oidc": oidcMux, "alicloud-sts": ack.STSHandler()}, run, nil
}
