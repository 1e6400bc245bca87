package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"strconv"
	"time"

	"github.com/hca-project/terraform-provider-hca/internal/lab"
)

// serve is the lab daemon: it hosts the AWS (EKS+STS) and ACK emulators and the
// workload simulator until it is signalled.
func serve(ctx context.Context, root string, args []string) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	dir := fs.String("dir", "", "lab directory")
	awsPort := fs.Int("aws-port", 0, "port of the EKS/STS emulator")
	ackPort := fs.Int("ack-port", 0, "port of the ACK emulator")
	loadsimPort := fs.Int("loadsim-port", 0, "port of loadsim")
	oidcPort := fs.Int("oidc-port", 0, "HTTPS port of the OIDC issuer (serving certificate in <dir>/oidc)")
	aliSTSPort := fs.Int("alicloud-sts-port", 0, "HTTPS port of the ACK emulator's Alibaba Cloud STS")
	podDelay := fs.Duration("pod-startup-delay", 0, "how long pods of the clusters the emulators create stay Pending once bound (0: none)")
	bootDelay := fs.Duration("node-boot-delay", lab.DefaultNodeBootDelay, "how long a node asked of the cloud emulators takes to be Ready (0: none)")
	resizeDelay := fs.Duration("pod-resize-delay", envDuration("HCA_LAB_POD_RESIZE_DELAY", lab.DefaultPodResizeDelay), "how long an accepted in-place pod resize stays PodResizeInProgress (default from $HCA_LAB_POD_RESIZE_DELAY, which `lab up` passes on, else 1s; a pod's hca.dev/lab-pod-resize-delay annotation overrides it)")
	if err := fs.Parse(args); err != nil {
		return usageError{err.Error()}
	}
	if *dir == "" || *awsPort == 0 || *ackPort == 0 || *loadsimPort == 0 || *oidcPort == 0 || *aliSTSPort == 0 {
		return usageError{"serve needs --dir, --aws-port, --ack-port, --loadsim-port, --oidc-port and --alicloud-sts-port"}
	}
	logger := log.New(os.Stderr, "hca-lab ", log.LstdFlags|log.Lmicroseconds)
	clusters := lab.NewClusters(*dir, &lab.Binaries{RepoDir: root})
	handlers, run, err := daemonHandlers(ctx, clusters, *dir, *awsPort, *oidcPort, *bootDelay, *podDelay, *resizeDelay, logger)
	if err != nil {
		return err
	}
	ports := map[string]int{"aws": *awsPort, "ack": *ackPort, "loadsim": *loadsimPort, "oidc": *oidcPort, "alicloud-sts": *aliSTSPort}
	errc := make(chan error, len(ports)+1)
	var servers []*http.Server
	for name, h := range handlers {
		mux := http.NewServeMux()
		mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintln(w, "ok") })
		mux.Handle("/", h)
		ln, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(ports[name]))
		if err != nil {
			return fmt.Errorf("listen for %s on 127.0.0.1:%d (port taken? run `go run ./tools/lab down` and retry): %w", name, ports[name], err)
		}
		srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
		servers = append(servers, srv)
		if name == "oidc" || name == "alicloud-sts" {
			certFile, keyFile := lab.OIDCServingCertFiles(*dir)
			go func() { errc <- srv.ServeTLS(ln, certFile, keyFile) }()
		} else {
			go func() { errc <- srv.Serve(ln) }()
		}
		logger.Printf("%s listening on %s", name, ln.Addr())
	}
	go func() { errc <- run(ctx) }()
	select {
	case <-ctx.Done():
	case err := <-errc:
		if err != nil && !errors.Is(err, http.ErrServerClosed) && !errors.Is(err, context.Canceled) {
			logger.Printf("stopping: %v", err)
		}
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for _, s := range servers {
		_ = s.Shutdown(shutdown)
	}
	return nil
}
