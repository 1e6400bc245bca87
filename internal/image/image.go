// Package image builds the hca-runtime container image without a container
// engine: a static hca-runtime binary per platform on an empty base, written as
// an OCI image layout that crane or skopeo push to any registry.
//
// Why not ko (v0.19.1, tried here): `ko build` takes its base image only from
// a registry (or from a Docker daemon for ko.local), and neither exists on the
// machines this project builds on; KO_DEFAULTBASEIMAGE set to an OCI layout is
// parsed as a registry name and fetched over the network. ko builds offline
// only if its private image cache (KOCACHE/img) is seeded with the base under a
// made-up name@digest, an undocumented internal format; its layout output then
// has no SBOM. ko as a library (pkg/build with WithBaseImages) would accept a
// local base but links cosign and sigstore, minutes of extra compile for what
// go-containerregistry does here in a few hundred lines. The release uses
// goreleaser's ko integration instead (.goreleaser.yml), where a registry and a
// base image are at hand; both images run the same binary with the same
// entrypoint contract, which the tests of this package check against the
// Deployment that hca_runtime installs.
//
// go-containerregistry lives in the main go.mod rather than in a nested tool
// module because the image test (run by `make test` through `go list ./...`)
// builds and inspects the image with it; nothing that ships imports this
// package (TestShippedBinariesLinkNoImageBuilder).
package image

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

const (
	// Entrypoint is the path of the binary in the image and the image's
	// entrypoint; the Deployment of runtime/config sets only args.
	Entrypoint = "/hca-runtime"
	// UID and GID of the non-root user the image runs as (distroless'
	// "nonroot"); runtime/config's pod security context uses the same UID.
	UID, GID = 65532, 65532
	// DefaultSource is the repository named in the image's source label.
	DefaultSource = "https://github.com/hca-project/terraform-provider-hca"
	// DefaultCACerts is Debian's bundle (package ca-certificates).
	DefaultCACerts = "/etc/ssl/certs/ca-certificates.crt"
	// Package is the import path of the runtime's main package.
	Package = "./runtime/cmd/hca-runtime"
)

// DefaultPlatforms are the platforms of the index (and of the release's kos).
var DefaultPlatforms = []string{"linux/amd64", "linux/arm64"}

// Options are the inputs of a build. The same options on the same commit give
// the same index digest.
type Options struct {
	// Dir is the root of the module (the checkout).
	Dir string
	// Out is the OCI layout directory; it is replaced.
	Out string
	// Version is set into the binary (-X main.version) and the labels, and is
	// the layout's ref name (org.opencontainers.image.ref.name).
	Version string
	// Revision is the commit; Created its time (labels, config, file times).
	Revision string
	Created  time.Time
	// Platforms such as linux/amd64 (default DefaultPlatforms).
	Platforms []string
	// Source and Licenses labels (defaults: DefaultSource, NOASSERTION).
	Source, Licenses string
	// CACerts is the PEM bundle copied to /etc/ssl/certs/ca-certificates.crt
	// (default DefaultCACerts).
	CACerts string
	// Go is the go command (default "go").
	Go string
}

// Result describes what Build wrote.
type Result struct {
	Index v1.ImageIndex
	// Digest of the index, the image's identity in a registry.
	Digest v1.Hash
	// Platforms of the index, in order.
	Platforms []string
	// SBOM is the SPDX 2.3 JSON document of the image's Go modules.
	SBOM []byte
}

func (o *Options) defaults() error {
	if o.Dir == "" || o.Out == "" {
		return fmt.Errorf("dir and out are required")
	}
	if o.Version == "" {
		o.Version = "dev"
	}
	if len(o.Platforms) == 0 {
		o.Platforms = DefaultPlatforms
	}
	if o.Source == "" {
		o.Source = DefaultSource
	}
	if o.Licenses == "" {
		o.Licenses = "NOASSERTION"
	}
	if o.CACerts == "" {
		o.CACerts = DefaultCACerts
	}
	if o.Go == "" {
		o.Go = "go"
	}
	if o.Created.IsZero() {
		return fmt.Errorf("created time is required (the commit time, for reproducible builds)")
	}
	o.Created = o.Created.UTC()
	return nil
}

// GitCommit returns the HEAD commit of dir and its committer time.
func GitCommit(dir string) (string, time.Time, error) {
	out, err := exec.Command("git", "-C", dir, "log", "-1", "--format=%H %ct").Output()
	if err != nil {
		return "", time.Time{}, fmt.Errorf("read HEAD commit of %s: %w", dir, err)
	}
	var rev string
	var sec int64
	if _, err := fmt.Sscanf(string(out), "%s %d", &rev, &sec); err != nil {
		return "", time.Time{}, fmt.Errorf("parse git log output %q: %w", out, err)
	}
	return rev, time.Unix(sec, 0).UTC(), nil
}

// Build compiles hca-runtime for every platform, assembles one image per
// platform and an index of them, and writes the index to o.Out as an OCI
// layout whose only entry is the index.
func Build(ctx context.Context, o Options) (*Result, error) {
	if err := o.defaults(); err != nil {
		return nil, err
	}
	if err := removeLayout(o.Out); err != nil {
		return nil, err
	}
	ca, err := os.ReadFile(o.CACerts)
	if err != nil {
		return nil, fmt.Errorf("read CA certificates (Debian: apt-get install ca-certificates): %w", err)
	}
	base, err := baseLayer(ca, o.Created)
	if err != nil {
		return nil, err
	}
	bins, err := os.MkdirTemp("", "hca-image-")
	if err != nil {
		return nil, fmt.Errorf("create build directory: %w", err)
	}
	defer os.RemoveAll(bins)

	idx := mutate.IndexMediaType(empty.Index, types.OCIImageIndex)
	var binaries []binary
	plats := make([]*v1.Platform, len(o.Platforms))
	for i, p := range o.Platforms {
		plat, err := v1.ParsePlatform(p)
		if err != nil {
			return nil, fmt.Errorf("platform %q: %w", p, err)
		}
		if plat.OS != "linux" {
			return nil, fmt.Errorf("platform %q: only linux images are built", p)
		}
		plats[i] = plat
	}
	// The platforms compile side by side: the linker, most of a warm build,
	// uses one core.
	paths := make([]string, len(plats))
	errs := make([]error, len(plats))
	var wg sync.WaitGroup
	for i, plat := range plats {
		paths[i] = filepath.Join(bins, "hca-runtime-"+plat.OS+"-"+plat.Architecture)
		wg.Go(func() { errs[i] = compile(ctx, o, plat, paths[i]) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	for i, plat := range plats {
		bin, err := os.ReadFile(paths[i])
		if err != nil {
			return nil, fmt.Errorf("read built binary: %w", err)
		}
		binaries = append(binaries, binary{platform: plat.String(), path: paths[i], data: bin})
		img, err := platformImage(o, plat, base, bin)
		if err != nil {
			return nil, fmt.Errorf("image for %s: %w", plat, err)
		}
		idx = mutate.AppendManifests(idx, mutate.IndexAddendum{
			Add:        img,
			Descriptor: v1.Descriptor{Platform: plat},
		})
	}
	idx = mutate.Annotations(idx, labels(o)).(v1.ImageIndex)
	digest, err := idx.Digest()
	if err != nil {
		return nil, fmt.Errorf("digest of the index: %w", err)
	}
	sbom, err := SPDX(o, digest, binaries)
	if err != nil {
		return nil, err
	}
	lp, err := layout.Write(o.Out, empty.Index)
	if err != nil {
		return nil, fmt.Errorf("write OCI layout %s: %w", o.Out, err)
	}
	if err := lp.AppendIndex(idx, layout.WithAnnotations(map[string]string{
		"org.opencontainers.image.ref.name": o.Version,
	})); err != nil {
		return nil, fmt.Errorf("write index to %s: %w", o.Out, err)
	}
	return &Result{Index: idx, Digest: digest, Platforms: o.Platforms, SBOM: sbom}, nil
}

// removeLayout removes a previous layout at dir, and refuses to remove a
// directory that holds anything but an OCI layout (a mistyped --out).
func removeLayout(dir string) error {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read output directory: %w", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "oci-layout")); len(entries) > 0 && err != nil {
		return fmt.Errorf("output directory %s is not empty and holds no OCI layout: not replacing it", dir)
	}
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("remove old layout: %w", err)
	}
	return nil
}

type binary struct {
	platform string
	path     string
	data     []byte
}

// compile builds a static, reproducible binary: no cgo, no file-system paths
// (-trimpath), no VCS stamp (the revision is in the labels; a dirty tree must
// not change the digest of an otherwise identical build).
func compile(ctx context.Context, o Options, plat *v1.Platform, out string) error {
	cmd := exec.CommandContext(ctx, o.Go, "build", "-trimpath", "-buildvcs=false",
		"-ldflags", "-s -w -buildid= -X main.version="+o.Version, "-o", out, Package)
	cmd.Dir = o.Dir
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+plat.OS, "GOARCH="+plat.Architecture, "GOFLAGS=")
	if plat.Variant != "" && plat.Architecture == "arm" {
		cmd.Env = append(cmd.Env, "GOARM="+strings.TrimPrefix(plat.Variant, "v"))
	}
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build hca-runtime for %s: %w\n%s", plat, err, b)
	}
	return nil
}

// labels are the OCI annotations of the image's config and of the index.
func labels(o Options) map[string]string {
	return map[string]string{
		"org.opencontainers.image.title":       "hca-runtime",
		"org.opencontainers.image.description": "HCA runtime: hybrid-cloud autoscaling controller installed by terraform-provider-hca",
		"org.opencontainers.image.version":     o.Version,
		"org.opencontainers.image.source":      o.Source,
		"org.opencontainers.image.revision":    o.Revision,
		"org.opencontainers.image.created":     o.Created.Format(time.RFC3339),
		"org.opencontainers.image.licenses":    o.Licenses,
	}
}

func platformImage(o Options, plat *v1.Platform, base v1.Layer, bin []byte) (v1.Image, error) {
	app, err := layer(o.Created, []file{{name: strings.TrimPrefix(Entrypoint, "/"), mode: 0o755, data: bin}})
	if err != nil {
		return nil, err
	}
	img := mutate.ConfigMediaType(mutate.MediaType(empty.Image, types.OCIManifestSchema1), types.OCIConfigJSON)
	img, err = mutate.Append(img,
		mutate.Addendum{Layer: base, History: v1.History{Created: v1.Time{Time: o.Created}, CreatedBy: "hca image: /etc/passwd, /etc/group (nonroot 65532), CA certificates", Comment: "base"}},
		mutate.Addendum{Layer: app, History: v1.History{Created: v1.Time{Time: o.Created}, CreatedBy: "hca image: go build " + Package, Comment: "hca-runtime " + o.Version}},
	)
	if err != nil {
		return nil, fmt.Errorf("append layers: %w", err)
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, fmt.Errorf("read config: %w", err)
	}
	cf = cf.DeepCopy()
	cf.OS, cf.Architecture, cf.Variant = plat.OS, plat.Architecture, plat.Variant
	cf.Created = v1.Time{Time: o.Created}
	cf.Author = "hca-project"
	cf.Config = v1.Config{
		Entrypoint: []string{Entrypoint},
		User:       fmt.Sprintf("%d:%d", UID, GID),
		WorkingDir: "/",
		Env: []string{
			"PATH=/",
			"SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt",
		},
		Labels: labels(o),
	}
	img, err = mutate.ConfigFile(img, cf)
	if err != nil {
		return nil, fmt.Errorf("set config: %w", err)
	}
	return img, nil
}

// baseLayer is what a distroless static base holds and the runtime needs: the
// nonroot user and group, a home and /tmp, and CA certificates for TLS to the
// cloud APIs (EKS, STS, ACK) and to member clusters.
func baseLayer(ca []byte, created time.Time) (v1.Layer, error) {
	passwd := fmt.Sprintf("root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:%d:%d:nonroot:/home/nonroot:/sbin/nologin\n", UID, GID)
	group := fmt.Sprintf("root:x:0:\nnonroot:x:%d:\n", GID)
	return layer(created, []file{
		{name: "etc/", mode: 0o755, dir: true},
		{name: "etc/group", mode: 0o644, data: []byte(group)},
		{name: "etc/passwd", mode: 0o644, data: []byte(passwd)},
		{name: "etc/ssl/", mode: 0o755, dir: true},
		{name: "etc/ssl/certs/", mode: 0o755, dir: true},
		{name: "etc/ssl/certs/ca-certificates.crt", mode: 0o644, data: ca},
		{name: "home/", mode: 0o755, dir: true},
		{name: "home/nonroot/", mode: 0o700, dir: true, uid: UID, gid: GID},
		{name: "tmp/", mode: 0o1777, dir: true},
	})
}

type file struct {
	name     string
	mode     int64
	dir      bool
	uid, gid int
	data     []byte
}

// layer writes files into a gzip-compressed tar with fixed times and owners,
// in name order, so that the same files give the same digest.
func layer(created time.Time, files []file) (v1.Layer, error) {
	sort.Slice(files, func(i, j int) bool { return files[i].name < files[j].name })
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, f := range files {
		h := &tar.Header{Name: f.name, Mode: f.mode, Uid: f.uid, Gid: f.gid, ModTime: created}
		if f.dir {
			h.Typeflag = tar.TypeDir
		} else {
			h.Typeflag, h.Size = tar.TypeReg, int64(len(f.data))
		}
		if err := tw.WriteHeader(h); err != nil {
			return nil, fmt.Errorf("tar header %s: %w", f.name, err)
		}
		if _, err := tw.Write(f.data); err != nil {
			return nil, fmt.Errorf("tar %s: %w", f.name, err)
		}
	}
	if err := tw.Close(); err != nil {
		return nil, fmt.Errorf("close tar: %w", err)
	}
	data := buf.Bytes()
	l, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(data)), nil
	}, tarball.WithMediaType(types.OCILayer))
	if err != nil {
		return nil, fmt.Errorf("layer: %w", err)
	}
	return l, nil
}

// CompressedSize is the sum of an image's compressed layers: what a registry
// stores and a node pulls.
func CompressedSize(img v1.Image) (int64, error) {
	layers, err := img.Layers()
	if err != nil {
		return 0, fmt.Errorf("read layers: %w", err)
	}
	var size int64
	for _, l := range layers {
		s, err := l.Size()
		if err != nil {
			return 0, fmt.Errorf("layer size: %w", err)
		}
		size += s
	}
	return size, nil
}

func sha256Hex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}
