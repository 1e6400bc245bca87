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

// daemonHandlers builds the daemon's HTTP handlers by name (aws, ack, loadsim) and
// the loop that must run beside them.
func daemonHandlers(ctx context.Context, clusters *lab.Clusters, dir string, awsPort, ackPort, loadsimPort int, bootDelay, podDelay time.Duration, logger *log.Logger) (map[string]http.Handler, func(context.Context) error, error) {
	slogger := slog.New(slog.NewTextHandler(logger.Writer(), nil))
	if bootDelay <= 0 {
		bootDelay = -1 // the emulators' "none"
	}
	awsURL := fmt.Sprintf("http://127.0.0.1:%d", awsPort)
	// The lab's OIDC issuer shares the AWS port under /oidc; the emulated
	// account trusts it as an IAM OIDC provider for HCP Terraform's default
	// AWS audience.
	issuer, err := oidc.New(awsURL+lab.OIDCIssuerPath, nil)
	if err != nil {
		return nil, nil, err
	}
	aws, err := emulator.NewAWS(clusters, emulator.AWSOptions{
		BaseURL:         awsURL,
		OIDCProviders:   []emulator.OIDCProvider{{URL: issuer.URL(), ClientIDs: []string{lab.OIDCAudienceAWS}}},
		Logger:          slogger.With("component", "aws"),
		NodeBootDelay:   bootDelay,
		PodStartupDelay: podDelay,
	})
	if err != nil {
		return nil, nil, err
	}
	ack := emulator.NewACK(clusters, emulator.ACKOptions{
		Logf:            func(format string, args ...any) { logger.Printf("ack: "+format, args...) },
		NodeBootDelay:   bootDelay,
		PodStartupDelay: podDelay,
	})
	sim, err := loadsim.New(loadsim.Options{Clusters: loadsim.DirSource(dir), Logger: slogger.With("component", "loadsim")})
	if err != nil {
		return nil, nil, err
	}
	awsMux := http.NewServeMux()
	awsMux.Handle(lab.OIDCIssuerPath+"/", http.StripPrefix(lab.OIDCIssuerPath, issuer.Handler()))
	awsMux.Handle("/", aws)
	return map[string]http.Handler{"aws": awsMux, "ack": ack, "loadsim": sim.Handler()}, sim.Run, nil
}
