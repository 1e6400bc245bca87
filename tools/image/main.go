// Command image builds the hca-runtime image as an OCI layout (`make image`):
//
//	go run ./tools/image [--version V] [--out dist/image] [--sbom dist/hca-runtime.spdx.json] [--platforms linux/amd64,linux/arm64]
//
// It needs no container engine and no registry: see internal/image.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"time"

	"github.com/hca-project/terraform-provider-hca/internal/image"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "image:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("image", flag.ContinueOnError)
	version := fs.String("version", "dev", "version of hca-runtime: -X main.version, the version label and the layout's ref name")
	out := fs.String("out", "dist/image", "OCI layout directory to write (replaced)")
	sbom := fs.String("sbom", "dist/hca-runtime.spdx.json", "SPDX JSON SBOM to write beside the layout")
	platforms := fs.String("platforms", "linux/amd64,linux/arm64", "comma-separated platforms of the index")
	licenses := fs.String("licenses", "NOASSERTION", "SPDX license expression of the org.opencontainers.image.licenses label")
	ca := fs.String("ca-certificates", image.DefaultCACerts, "PEM bundle to install as /etc/ssl/certs/ca-certificates.crt")
	if err := fs.Parse(args); err != nil {
		return err
	}
	dir, err := os.Getwd()
	if err != nil {
		return err
	}
	rev, created, err := image.GitCommit(dir)
	if err != nil {
		return err
	}
	start := time.Now()
	res, err := image.Build(ctx, image.Options{
		Dir: dir, Out: *out, Version: *version, Revision: rev, Created: created,
		Platforms: strings.Split(*platforms, ","), Licenses: *licenses, CACerts: *ca,
	})
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(*sbom), 0o755); err != nil {
		return fmt.Errorf("create SBOM directory: %w", err)
	}
	if err := os.WriteFile(*sbom, res.SBOM, 0o644); err != nil {
		return fmt.Errorf("write SBOM: %w", err)
	}
	manifests, err := res.Index.IndexManifest()
	if err != nil {
		return fmt.Errorf("read index: %w", err)
	}
	fmt.Printf("hca-runtime %s: OCI layout %s, index %s (%s)\n", *version, *out, res.Digest, time.Since(start).Round(100*time.Millisecond))
	for _, m := range manifests.Manifests {
		img, err := res.Index.Image(m.Digest)
		if err != nil {
			return fmt.Errorf("read image %s: %w", m.Digest, err)
		}
		size, err := image.CompressedSize(img)
		if err != nil {
			return fmt.Errorf("image %s: %w", m.Digest, err)
		}
		fmt.Printf("  %s %s, %.1f MB compressed\n", m.Platform, m.Digest, float64(size)/1e6)
	}
	fmt.Printf("SBOM (SPDX 2.3): %s\n", *sbom)
	return nil
}
