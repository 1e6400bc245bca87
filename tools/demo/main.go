// Command demo is `make demo` once the lab is up: it builds the provider and
// the runtime, applies examples/quickstart to the lab with the local build,
// runs the runtime, replays a flash crowd with a live view and writes a report
// (see internal/lab/demo).
//
//	go run ./tools/demo [--trace FILE.csv] [--timeout 12m]
//	go run ./tools/demo --destroy
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/hca-project/terraform-provider-hca/internal/lab/demo"
)

func main() {
	trace := flag.String("trace", "", "load trace CSV (seconds,requests_per_second); default: a built-in flash crowd of 5m30s")
	timeout := flag.Duration("timeout", 12*time.Minute, "how long to wait for the replay, the scale-back and the release of the burst nodes")
	destroy := flag.Bool("destroy", false, "undo the demo instead: stop the runtime, terraform destroy the quickstart, remove the sample app")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	root, err := repoRoot()
	if err != nil {
		fmt.Fprintln(os.Stderr, "demo:", err)
		os.Exit(1)
	}
	labDir := filepath.Join(root, ".lab")
	if d := os.Getenv("HCA_LAB_DIR"); d != "" {
		labDir = d
	}
	if *destroy {
		if err := demo.Destroy(ctx, demo.Options{RepoRoot: root, LabDir: labDir, Out: os.Stdout}); err != nil {
			fmt.Fprintln(os.Stderr, "\ndemo:", err)
			os.Exit(1)
		}
		return
	}
	fi, _ := os.Stdout.Stat()
	live := fi != nil && fi.Mode()&os.ModeCharDevice != 0
	if _, err := demo.Run(ctx, demo.Options{RepoRoot: root, LabDir: labDir, Out: os.Stdout, Trace: *trace, Live: live, ReplayTimeout: *timeout}); err != nil {
		fmt.Fprintln(os.Stderr, "\ndemo:", err)
		os.Exit(1)
	}
}

// repoRoot is the directory holding go.mod and examples/quickstart.
func repoRoot() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for d := wd; d != filepath.Dir(d); d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "examples", "quickstart", "main.tf")); err == nil {
			return d, nil
		}
	}
	return "", fmt.Errorf("run the demo from the repository (no examples/quickstart above %s)", wd)
}
