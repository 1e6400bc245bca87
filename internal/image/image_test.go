package image_test

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	appsv1 "k8s.io/api/apps/v1"

	"github.com/hca-project/terraform-provider-hca/internal/image"
	"github.com/hca-project/terraform-provider-hca/runtime/config"
)

const testVersion = "1.2.3-test"

var platforms = []string{"linux/amd64", "linux/arm64"}

// built is one build of the image, shared by the tests of this file: the
// same Build that `make image` runs (tools/image), into a temporary layout.
type built struct {
	once     sync.Once
	dir      string
	res      *image.Result
	opts     image.Options
	err      error
	duration time.Duration
}

var shared built

func build(t *testing.T) (*image.Result, image.Options, string) {
	t.Helper()
	shared.once.Do(func() {
		shared.dir, shared.err = os.MkdirTemp("", "hca-image-test-")
		if shared.err != nil {
			return
		}
		shared.opts, shared.err = options(filepath.Join(shared.dir, "layout"))
		if shared.err != nil {
			return
		}
		start := time.Now()
		shared.res, shared.err = image.Build(context.Background(), shared.opts)
		shared.duration = time.Since(start)
	})
	if shared.err != nil {
		t.Fatalf("build image: %v", shared.err)
	}
	return shared.res, shared.opts, shared.opts.Out
}

func TestMain(m *testing.M) {
	code := m.Run()
	if shared.dir != "" {
		os.RemoveAll(shared.dir)
	}
	os.Exit(code)
}

func options(out string) (image.Options, error) {
	root, err := filepath.Abs("../..")
	if err != nil {
		return image.Options{}, err
	}
	rev, created, err := image.GitCommit(root)
	if err != nil {
		return image.Options{}, err
	}
	return image.Options{Dir: root, Out: out, Version: testVersion, Revision: rev, Created: created, Platforms: platforms}, nil
}

// TestLayout reads the layout back from disk as crane and skopeo do: one
// entry, the index, named by the version; one image per platform.
func TestLayout(t *testing.T) {
	res, _, out := build(t)
	t.Logf("built %s in %s", res.Digest, shared.duration.Round(time.Millisecond))
	lp, err := layout.FromPath(out)
	if err != nil {
		t.Fatalf("open layout: %v", err)
	}
	top, err := lp.ImageIndex()
	if err != nil {
		t.Fatalf("read index.json: %v", err)
	}
	tm, err := top.IndexManifest()
	if err != nil {
		t.Fatalf("read index.json: %v", err)
	}
	if len(tm.Manifests) != 1 || !tm.Manifests[0].MediaType.IsIndex() || tm.Manifests[0].Digest != res.Digest {
		t.Fatalf("index.json entries = %+v, want the one index %s", tm.Manifests, res.Digest)
	}
	if got := tm.Manifests[0].Annotations["org.opencontainers.image.ref.name"]; got != testVersion {
		t.Fatalf("ref name = %q, want %q", got, testVersion)
	}
	idx, err := top.ImageIndex(res.Digest)
	if err != nil {
		t.Fatalf("read index %s: %v", res.Digest, err)
	}
	im, err := idx.IndexManifest()
	if err != nil {
		t.Fatalf("read index manifest: %v", err)
	}
	var got []string
	for _, m := range im.Manifests {
		if m.Platform == nil {
			t.Fatalf("manifest %s has no platform", m.Digest)
		}
		got = append(got, m.Platform.String())
		img, err := idx.Image(m.Digest)
		if err != nil {
			t.Fatalf("read image %s: %v", m.Platform, err)
		}
		size, err := image.CompressedSize(img)
		if err != nil {
			t.Fatalf("size of %s: %v", m.Platform, err)
		}
		t.Logf("%s: %.1f MB compressed", m.Platform, float64(size)/1e6)
	}
	if !slices.Equal(got, platforms) {
		t.Fatalf("platforms = %v, want %v", got, platforms)
	}
}

// TestConfig checks what the container runtime reads: entrypoint, user,
// platform and labels of every image.
func TestConfig(t *testing.T) {
	res, opts, _ := build(t)
	for _, p := range platforms {
		t.Run(p, func(t *testing.T) {
			cf := configOf(t, res.Index, p)
			if cf.OS+"/"+cf.Architecture != p {
				t.Fatalf("config platform = %s/%s, want %s", cf.OS, cf.Architecture, p)
			}
			if !slices.Equal(cf.Config.Entrypoint, []string{"/hca-runtime"}) || len(cf.Config.Cmd) != 0 {
				t.Fatalf("entrypoint %q cmd %q, want [/hca-runtime] and no cmd", cf.Config.Entrypoint, cf.Config.Cmd)
			}
			if cf.Config.User != "65532:65532" {
				t.Fatalf("user = %q, want 65532:65532 (numeric, non-root)", cf.Config.User)
			}
			if !cf.Created.Time.Equal(opts.Created) {
				t.Fatalf("created = %s, want the commit time %s", cf.Created, opts.Created)
			}
			for k, want := range map[string]string{
				"org.opencontainers.image.version":  testVersion,
				"org.opencontainers.image.source":   "https://github.com/hca-project/terraform-provider-hca",
				"org.opencontainers.image.revision": opts.Revision,
				"org.opencontainers.image.created":  opts.Created.Format(time.RFC3339),
				"org.opencontainers.image.licenses": "NOASSERTION",
			} {
				if got := cf.Config.Labels[k]; got != want || want == "" {
					t.Errorf("label %s = %q, want %q", k, got, want)
				}
			}
		})
	}
}

func configOf(t *testing.T, idx v1.ImageIndex, platform string) *v1.ConfigFile {
	t.Helper()
	img := imageOf(t, idx, platform)
	cf, err := img.ConfigFile()
	if err != nil {
		t.Fatalf("config of %s: %v", platform, err)
	}
	return cf
}

func imageOf(t *testing.T, idx v1.ImageIndex, platform string) v1.Image {
	t.Helper()
	im, err := idx.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range im.Manifests {
		if m.Platform != nil && m.Platform.String() == platform {
			img, err := idx.Image(m.Digest)
			if err != nil {
				t.Fatalf("image %s: %v", platform, err)
			}
			return img
		}
	}
	t.Fatalf("no image for %s", platform)
	return nil
}

// deployment returns the runtime Deployment hca_runtime installs, with every
// option that adds an argument set, so that every flag it can pass is checked.
func deployment(t *testing.T) *appsv1.Deployment {
	t.Helper()
	objs, err := config.Objects(config.Options{
		Image: "ghcr.io/hca-project/hca-runtime:v" + testVersion, Replicas: 2,
		PrometheusURL: "http://prometheus:9090", ConsulAddr: "consul:8500", LogLevel: "debug",
		AWSRegion: "eu-west-1", EKSEndpoint: "https://eks.example", STSEndpoint: "https://sts.example",
		AutoScalingEndpoint: "https://autoscaling.example",
		Alicloud:            &config.Alicloud{AccessKeyID: "LTAI-test", AccessKeySecret: "test-secret", Endpoint: "https://cs.example"},
		ProbeInterval:       10 * time.Second, ControlInterval: 5 * time.Second,
	})
	if err != nil {
		t.Fatalf("runtime objects: %v", err)
	}
	for _, o := range objs {
		if d, ok := o.(*appsv1.Deployment); ok {
			return d
		}
	}
	t.Fatal("runtime/config installs no Deployment")
	return nil
}

// TestDeploymentMatchesImage checks that the container hca_runtime installs
// runs this image as built: the image's entrypoint (no command override), the
// image's non-root user, and only flags the binary has.
func TestDeploymentMatchesImage(t *testing.T) {
	res, _, _ := build(t)
	d := deployment(t)
	ctr := d.Spec.Template.Spec.Containers[0]
	cf := configOf(t, res.Index, "linux/amd64")
	argv := append(slices.Clone(cf.Config.Entrypoint), ctr.Args...)
	if len(ctr.Command) > 0 {
		argv = append(slices.Clone(ctr.Command), ctr.Args...)
	}
	if argv[0] != image.Entrypoint || len(argv) < 2 || argv[1] != "run" {
		t.Fatalf("the Deployment runs %q in an image whose entrypoint is %q: want %s run ...", argv, cf.Config.Entrypoint, image.Entrypoint)
	}
	sc := d.Spec.Template.Spec.SecurityContext
	if sc == nil || sc.RunAsUser == nil || *sc.RunAsUser != image.UID || sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot {
		t.Fatalf("pod security context %+v: want runAsNonRoot and runAsUser %d, the image's user %q", sc, image.UID, cf.Config.User)
	}
	if ro := ctr.SecurityContext.ReadOnlyRootFilesystem; ro == nil || !*ro {
		t.Fatalf("the runtime container's root file system is writable; the image needs none")
	}

	bin := unpack(t, res.Index, hostPlatform(t))
	help := runBinary(t, bin, "run", "--help")
	if missing := image.MissingFlags(ctr.Args[1:], help); len(missing) > 0 {
		t.Fatalf("the Deployment passes %v, which `hca-runtime run --help` does not list:\n%s", missing, help)
	}
}

func TestMissingFlags(t *testing.T) {
	help := "Usage of run:\n  -consul-addr string\n    \tConsul address\n  -leader-elect\n    \telect a leader\n"
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{"all listed", []string{"--consul-addr=c:8500", "--leader-elect=true", "-leader-elect"}, nil},
		{"unknown flag", []string{"--consul-addr=c:8500", "--prometheus=http://p"}, []string{"--prometheus"}},
		{"prefix of a flag is not the flag", []string{"--consul"}, []string{"--consul"}},
		{"values are not flags", []string{"--consul-addr", "c:8500"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := image.MissingFlags(tt.args, help); !slices.Equal(got, tt.want) {
				t.Fatalf("MissingFlags(%q) = %q, want %q", tt.args, got, tt.want)
			}
		})
	}
}

func hostPlatform(t *testing.T) string {
	p := runtime.GOOS + "/" + runtime.GOARCH
	if !slices.Contains(platforms, p) {
		t.Skipf("cannot run the image's binary on %s", p)
	}
	return p
}

// TestFilesystem unpacks the image for this machine and runs its binary: the
// version it was built with, a non-root user, CA certificates that parse.
func TestFilesystem(t *testing.T) {
	res, _, _ := build(t)
	bin := unpack(t, res.Index, hostPlatform(t))
	root := filepath.Dir(bin)
	if got := strings.TrimSpace(runBinary(t, bin, "version")); got != testVersion {
		t.Fatalf("hca-runtime version = %q, want %q", got, testVersion)
	}
	st, err := os.Stat(bin)
	if err != nil || st.Mode().Perm() != 0o755 {
		t.Fatalf("stat /hca-runtime: %v, mode %v; want 0755", err, st.Mode())
	}
	passwd, err := os.ReadFile(filepath.Join(root, "etc/passwd"))
	if err != nil || !strings.Contains(string(passwd), "nonroot:x:65532:65532:") {
		t.Fatalf("/etc/passwd = %q (%v), want the nonroot user 65532", passwd, err)
	}
	pem, err := os.ReadFile(filepath.Join(root, "etc/ssl/certs/ca-certificates.crt"))
	if err != nil {
		t.Fatalf("read CA certificates: %v", err)
	}
	if !x509.NewCertPool().AppendCertsFromPEM(pem) {
		t.Fatalf("/etc/ssl/certs/ca-certificates.crt holds no certificate")
	}
	if out, err := exec.Command("go", "version", "-m", bin).CombinedOutput(); err != nil ||
		!strings.Contains(string(out), "CGO_ENABLED=0") || !strings.Contains(string(out), "-trimpath=true") {
		t.Fatalf("go version -m: %v\n%s\nwant a static (CGO_ENABLED=0), -trimpath build", err, out)
	}
}

// TestSBOM checks the SPDX document against the image: the index digest, the
// binary's SHA-256, and modules of go.mod at their versions.
func TestSBOM(t *testing.T) {
	res, _, _ := build(t)
	var doc struct {
		SPDXVersion string `json:"spdxVersion"`
		Packages    []struct {
			SPDXID      string `json:"SPDXID"`
			Name        string `json:"name"`
			VersionInfo string `json:"versionInfo"`
			Checksums   []struct {
				Algorithm string `json:"algorithm"`
				Value     string `json:"checksumValue"`
			} `json:"checksums"`
		} `json:"packages"`
		Relationships []struct {
			Element string `json:"spdxElementId"`
			Type    string `json:"relationshipType"`
			Related string `json:"relatedSpdxElement"`
		} `json:"relationships"`
	}
	if err := json.Unmarshal(res.SBOM, &doc); err != nil {
		t.Fatalf("SBOM is not JSON: %v", err)
	}
	if doc.SPDXVersion != "SPDX-2.3" {
		t.Fatalf("spdxVersion = %q", doc.SPDXVersion)
	}
	bin := unpack(t, res.Index, hostPlatform(t))
	data, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	versions := map[string]string{}
	checksums := map[string]string{}
	for _, p := range doc.Packages {
		versions[p.Name] = p.VersionInfo
		for _, c := range p.Checksums {
			checksums[p.Name] = c.Algorithm + ":" + c.Value
		}
	}
	if got, want := checksums["hca-runtime"], "SHA256:"+res.Digest.Hex; got != want {
		t.Errorf("image checksum = %q, want the index digest %q", got, want)
	}
	host := "hca-runtime (" + runtime.GOOS + "/" + runtime.GOARCH + ")"
	if got, want := checksums[host], "SHA256:"+hex.EncodeToString(sum[:]); got != want {
		t.Errorf("%s checksum = %q, want the SHA-256 of the image's /hca-runtime %q", host, got, want)
	}
	for _, mod := range []string{"sigs.k8s.io/controller-runtime", "k8s.io/client-go", "github.com/aws/aws-sdk-go-v2/service/eks"} {
		out, err := exec.Command("go", "list", "-m", "-f", "{{.Version}}", mod).Output()
		if err != nil {
			t.Fatalf("go list -m %s: %v", mod, err)
		}
		if got, want := versions[mod], strings.TrimSpace(string(out)); got != want {
			t.Errorf("SBOM version of %s = %q, want go.mod's %q", mod, got, want)
		}
	}
	if _, ok := versions["stdlib"]; !ok {
		t.Errorf("SBOM lists no Go standard library")
	}
	deps := 0
	for _, r := range doc.Relationships {
		if r.Type == "DEPENDS_ON" {
			deps++
		}
	}
	if deps < 50 {
		t.Errorf("SBOM has %d DEPENDS_ON relationships; a binary linking client-go has far more", deps)
	}
}

// TestReproducible builds again into another directory: the same commit and
// options must give the same index digest.
func TestReproducible(t *testing.T) {
	if testing.Short() {
		t.Skip("second build skipped in -short mode")
	}
	res, _, _ := build(t)
	opts, err := options(filepath.Join(t.TempDir(), "again"))
	if err != nil {
		t.Fatal(err)
	}
	again, err := image.Build(context.Background(), opts)
	if err != nil {
		t.Fatalf("second build: %v", err)
	}
	if again.Digest != res.Digest {
		t.Fatalf("second build of the same commit: index %s, first %s; the build is not reproducible", again.Digest, res.Digest)
	}
	if !bytes.Equal(again.SBOM, res.SBOM) {
		t.Fatalf("second build wrote a different SBOM")
	}
}

// TestShippedBinariesLinkNoImageBuilder keeps go-containerregistry a build
// tool: neither the provider nor the runtime links it.
func TestShippedBinariesLinkNoImageBuilder(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "../..", "../../runtime/cmd/hca-runtime").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	for _, pkg := range strings.Fields(string(out)) {
		if strings.HasPrefix(pkg, "github.com/google/go-containerregistry") || strings.HasSuffix(pkg, "/internal/image") {
			t.Fatalf("a shipped binary links %s", pkg)
		}
	}
}

var unpacked sync.Map // platform -> path of /hca-runtime

// unpack extracts the image's flattened file system into a temporary
// directory and returns the path of its /hca-runtime.
func unpack(t *testing.T, idx v1.ImageIndex, platform string) string {
	t.Helper()
	if p, ok := unpacked.Load(platform); ok {
		return p.(string)
	}
	root, err := os.MkdirTemp(shared.dir, "rootfs-")
	if err != nil {
		t.Fatal(err)
	}
	rc := mutate.Extract(imageOf(t, idx, platform))
	defer rc.Close()
	tr := tar.NewReader(rc)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("read file system of %s: %v", platform, err)
		}
		path := filepath.Join(root, filepath.Clean("/"+h.Name))
		switch h.Typeflag {
		case tar.TypeDir:
			err = os.MkdirAll(path, 0o755)
		case tar.TypeReg:
			var f *os.File
			if f, err = os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, os.FileMode(h.Mode).Perm()); err == nil {
				_, err = io.Copy(f, tr)
				err = errors.Join(err, f.Close())
			}
		default:
			t.Fatalf("unexpected entry %s of type %c", h.Name, h.Typeflag)
		}
		if err != nil {
			t.Fatalf("unpack %s: %v", h.Name, err)
		}
	}
	bin := filepath.Join(root, image.Entrypoint)
	unpacked.Store(platform, bin)
	return bin
}

// runBinary runs the unpacked binary with an empty environment, as in the
// image (no $HOME, no $KUBECONFIG), and returns its output. `run --help`
// exits 2 (usage), which is expected.
func runBinary(t *testing.T, bin string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = []string{"PATH=/", "SSL_CERT_FILE=" + filepath.Join(filepath.Dir(bin), "etc/ssl/certs/ca-certificates.crt")}
	cmd.Dir = filepath.Dir(bin)
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if err != nil && !(errors.As(err, &exit) && exit.ExitCode() == 2 && slices.Contains(args, "--help")) {
		t.Fatalf("%s %q: %v\n%s", image.Entrypoint, args, err, out)
	}
	return string(out)
}

// TestBuildRefuses checks the inputs Build refuses before compiling anything.
func TestBuildRefuses(t *testing.T) {
	notLayout := t.TempDir()
	if err := os.WriteFile(filepath.Join(notLayout, "notes.txt"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	created := time.Unix(1700000000, 0)
	tests := []struct {
		name string
		opts image.Options
		want string
	}{
		{"no output", image.Options{Dir: root, Created: created}, "dir and out are required"},
		{"no commit time", image.Options{Dir: root, Out: filepath.Join(t.TempDir(), "l")}, "created time is required"},
		{"a directory that is not a layout", image.Options{Dir: root, Out: notLayout, Created: created}, "holds no OCI layout"},
		{"no CA certificates", image.Options{Dir: root, Out: filepath.Join(t.TempDir(), "l"), Created: created, CACerts: "/nonexistent/ca.crt"}, "read CA certificates"},
		{"not linux", image.Options{Dir: root, Out: filepath.Join(t.TempDir(), "l"), Created: created, Platforms: []string{"windows/amd64"}}, "only linux images"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := image.Build(context.Background(), tt.opts)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Build error = %v, want one containing %q", err, tt.want)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(notLayout, "notes.txt")); err != nil {
		t.Fatalf("Build removed a directory that was not its layout: %v", err)
	}
}
