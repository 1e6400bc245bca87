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
)

// daemonHandlers builds the daemon's HTTP handlers by name (aws, ack, loadsim) and
// the loop that must run beside them.
func daemonHandlers(ctx context.Context, clusters *lab.Clusters, dir string, awsPort, ackPort, loadsimPort int, bootDelay, podDelay time.Duration, logger *log.Logger) (map[string]http.Handler, func(context.Context) error, error) {
	slogger := slog.New(slog.NewTextHandler(logger.Writer(), nil))
	if bootDelay <= 0 {
		bootDelay = -1 // the emulators' "none"
	}
	aws, err := emulator.NewAWS(clusters, emulator.AWSOptions{
		BaseURL:         fmt.Sprintf("http://127.0.0.1:%d", awsPort),
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
	return map[string]http.Handler{"aws": aws, "ack": ack, "loadsim": sim.Handler()}, sim.Run, nil
}
