package lab

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Pinned versions of the lab's components. Changing one rebuilds that binary.
const (
	KubernetesVersion     = "v1.36.3"
	EtcdVersion           = "v3.6.5"
	KwokVersion           = "v0.7.0"
	ConsulVersion         = "v1.20.1"
	ConsulTemplateVersion = "v0.41.1"
	// TerraformFallbackVersion is built when no terraform >= 1.5 is on PATH.
	TerraformFallbackVersion = "v1.5.7"
)

// Binaries finds or builds the lab's executables. Built binaries live in CacheDir
// (outside the checkout by default, so that every clone and CI run on a machine
// reuses them), keyed by a hash of their pinned version and build inputs: nothing
// is rebuilt until a pin changes.
type Binaries struct {
	// RepoDir is the project root (holding tools/kube and tools/etcd).
	RepoDir string
	// CacheDir holds the built binaries (default: DefaultCacheDir()).
	CacheDir string
	// Log receives one line per build (nil: discarded).
	Log io.Writer
}

// DefaultCacheDir is $HCA_LAB_CACHE, else $XDG_CACHE_HOME/hca-lab, else
// ~/.cache/hca-lab.
func DefaultCacheDir() string {
	if d := os.Getenv("HCA_LAB_CACHE"); d != "" {
		return d
	}
	if d := os.Getenv("XDG_CACHE_HOME"); d != "" {
		return filepath.Join(d, "hca-lab")
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return filepath.Join(os.TempDir(), "hca-lab-cache")
	}
	return filepath.Join(home, ".cache", "hca-lab")
}

// Component names known to Path.
const (
	BinKubeAPIServer         = "kube-apiserver"
	BinKubeControllerManager = "kube-controller-manager"
	BinKubeScheduler         = "kube-scheduler"
	BinEtcd                  = "etcd"
	BinKwok                  = "kwok"
	BinConsul                = "consul"
	BinConsulTemplate        = "consul-template"
	BinTerraform             = "terraform"
	BinPrometheus            = "prometheus"
	BinNginx                 = "nginx"
)

// systemBinDirs are searched for Debian-packaged binaries missing from PATH.
var systemBinDirs = []string{"/usr/sbin", "/usr/bin"}

// AllBinaries lists every binary `lab up` needs.
var AllBinaries = []string{
	BinEtcd, BinKubeAPIServer, BinKubeControllerManager, BinKubeScheduler, BinKwok,
	BinConsul, BinConsulTemplate, BinTerraform, BinPrometheus, BinNginx,
}

// Path returns the executable for name, building it into the cache first if needed.
func (b *Binaries) Path(ctx context.Context, name string) (string, error) {
	switch name {
	case BinKubeAPIServer, BinKubeControllerManager, BinKubeScheduler:
		return b.nested(ctx, name, "kube", "./cmd/"+name, kubeLDFlags())
	case BinEtcd:
		return b.nested(ctx, name, "etcd", ".", "-s -w")
	case BinKwok:
		return b.install(ctx, name, "sigs.k8s.io/kwok/cmd/kwok", KwokVersion)
	case BinConsulTemplate:
		return b.install(ctx, name, "github.com/hashicorp/consul-template", ConsulTemplateVersion)
	case BinConsul:
		return b.consul(ctx)
	case BinTerraform:
		return b.terraform(ctx)
	case BinPrometheus, BinNginx:
		p, err := exec.LookPath(name)
		if err != nil {
			// Debian installs nginx in /usr/sbin, which may not be on PATH.
			for _, d := range systemBinDirs {
				if _, serr := os.Stat(filepath.Join(d, name)); serr == nil {
					return filepath.Join(d, name), nil
				}
			}
			return "", fmt.Errorf("%s is not installed: run `apt-get update && apt-get install -y prometheus nginx` (Debian packages)", name)
		}
		return p, nil
	default:
		return "", fmt.Errorf("unknown lab binary %q", name)
	}
}

// EnsureAll builds or finds every binary, returning name -> path.
func (b *Binaries) EnsureAll(ctx context.Context) (map[string]string, error) {
	out := make(map[string]string, len(AllBinaries))
	for _, n := range AllBinaries {
		p, err := b.Path(ctx, n)
		if err != nil {
			return nil, err
		}
		out[n] = p
	}
	return out, nil
}

func kubeLDFlags() string {
	v := strings.TrimPrefix(KubernetesVersion, "v")
	parts := strings.SplitN(v, ".", 3)
	pkg := "k8s.io/component-base/version"
	return fmt.Sprintf("-s -w -X %s.gitVersion=%s -X %s.gitMajor=%s -X %s.gitMinor=%s -X %s.gitTreeState=clean",
		pkg, KubernetesVersion, pkg, parts[0], pkg, parts[1], pkg)
}

func (b *Binaries) logf(format string, args ...any) {
	if b.Log != nil {
		fmt.Fprintf(b.Log, format+"\n", args...)
	}
}

// cached returns the cache path for name with the given key and whether it exists.
func (b *Binaries) cached(name, key string) (string, bool) {
	p := filepath.Join(b.cacheDir(), "bin", name+"-"+key[:16])
	st, err := os.Stat(p)
	return p, err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0
}

func (b *Binaries) cacheDir() string {
	if b.CacheDir != "" {
		return b.CacheDir
	}
	return DefaultCacheDir()
}

func hashKey(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// nested builds pkg from the nested module tools/<module> (its own go.mod keeps
// k8s.io/kubernetes and etcd out of the project's go.mod).
func (b *Binaries) nested(ctx context.Context, name, module, pkg, ldflags string) (string, error) {
	dir := filepath.Join(b.RepoDir, "tools", module)
	var inputs []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		if strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "go.mod") || strings.HasSuffix(p, "go.sum") {
			c, rerr := os.ReadFile(p)
			if rerr != nil {
				return rerr
			}
			rel, _ := filepath.Rel(dir, p)
			inputs = append(inputs, rel, string(c))
		}
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("read build inputs of %s in %s (is the repo root right?): %w", name, dir, err)
	}
	key := hashKey(append([]string{name, pkg, ldflags, goVersion()}, inputs...)...)
	out, ok := b.cached(name, key)
	if ok {
		return out, nil
	}
	b.logf("building %s from tools/%s (first time; a few minutes)...", name, module)
	return out, b.goBuild(ctx, name, dir, out, nil, "build", "-trimpath", "-ldflags", ldflags, "-o", out+".tmp", pkg)
}

// install builds a module that `go install` accepts as is.
func (b *Binaries) install(ctx context.Context, name, pkg, version string) (string, error) {
	key := hashKey(name, pkg, version, goVersion())
	out, ok := b.cached(name, key)
	if ok {
		return out, nil
	}
	b.logf("building %s %s (first time)...", name, version)
	gobin, err := os.MkdirTemp(b.cacheDir(), "gobin-")
	if err != nil {
		return "", fmt.Errorf("create build dir for %s in cache %s: %w", name, b.cacheDir(), err)
	}
	defer os.RemoveAll(gobin)
	base := filepath.Base(pkg)
	if err := b.goBuild(ctx, name, b.cacheDir(), "", []string{"GOBIN=" + gobin}, "install", "-trimpath", "-ldflags", "-s -w", pkg+"@"+version); err != nil {
		return "", err
	}
	return out, moveInto(filepath.Join(gobin, base), out)
}

// consul builds the Consul agent: `go install` refuses it (replace directives to
// ./api, ./sdk...), so it is built inside its module-cache folder with a copy of its
// go.mod stripped of the local replaces (LAB-NOTES).
func (b *Binaries) consul(ctx context.Context) (string, error) {
	key := hashKey(BinConsul, ConsulVersion, goVersion())
	out, ok := b.cached(BinConsul, key)
	if ok {
		return out, nil
	}
	b.logf("building consul %s (first time; about 5 minutes)...", ConsulVersion)
	cmd := exec.CommandContext(ctx, "go", "mod", "download", "-json", "github.com/hashicorp/consul@"+ConsulVersion)
	cmd.Dir = b.cacheDir()
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod")
	raw, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("download consul %s from the Go module proxy: %w (check GOPROXY and network)", ConsulVersion, err)
	}
	var info struct{ Dir, GoMod string }
	if err := json.Unmarshal(raw, &info); err != nil || info.Dir == "" {
		return "", fmt.Errorf("download consul %s: unexpected `go mod download` output", ConsulVersion)
	}
	work, err := os.MkdirTemp(b.cacheDir(), "consul-mod-")
	if err != nil {
		return "", fmt.Errorf("create consul build dir: %w", err)
	}
	defer os.RemoveAll(work)
	gomod, err := os.ReadFile(filepath.Join(info.Dir, "go.mod"))
	if err != nil {
		return "", fmt.Errorf("read consul go.mod: %w", err)
	}
	localReplace := regexp.MustCompile(`(?m)^\s*(replace\s+)?\S+(\s+v\S+)?\s+=>\s+\./\S*\s*$`)
	alt := localReplace.ReplaceAll(gomod, nil)
	altMod := filepath.Join(work, "alt.mod")
	if err := os.WriteFile(altMod, alt, 0o644); err != nil {
		return "", fmt.Errorf("write consul alt go.mod: %w", err)
	}
	if sum, err := os.ReadFile(filepath.Join(info.Dir, "go.sum")); err == nil {
		_ = os.WriteFile(filepath.Join(work, "alt.sum"), sum, 0o644)
	}
	return out, b.goBuild(ctx, BinConsul, info.Dir, out, []string{"GOFLAGS=-mod=mod"}, "build", "-modfile="+altMod, "-trimpath", "-ldflags", "-s -w", "-o", out+".tmp", ".")
}

// terraform returns the terraform on PATH when it is >= 1.5, else builds 1.5.7.
func (b *Binaries) terraform(ctx context.Context) (string, error) {
	if p, err := exec.LookPath("terraform"); err == nil {
		if v, err := terraformVersion(ctx, p); err == nil && versionAtLeast(v, 1, 5) {
			return p, nil
		}
	}
	return b.install(ctx, BinTerraform, "github.com/hashicorp/terraform", TerraformFallbackVersion)
}

func terraformVersion(ctx context.Context, path string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	raw, err := exec.CommandContext(ctx, path, "version", "-json").Output()
	if err != nil {
		return "", err
	}
	var v struct {
		TerraformVersion string `json:"terraform_version"`
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		return "", err
	}
	return v.TerraformVersion, nil
}

// versionAtLeast compares a "MAJOR.MINOR[.PATCH...]" version.
func versionAtLeast(v string, major, minor int) bool {
	parts := strings.SplitN(strings.TrimPrefix(v, "v"), ".", 3)
	if len(parts) < 2 {
		return false
	}
	ma, err1 := strconv.Atoi(parts[0])
	mi, err2 := strconv.Atoi(parts[1])
	if err1 != nil || err2 != nil {
		return false
	}
	return ma > major || (ma == major && mi >= minor)
}

func (b *Binaries) goBuild(ctx context.Context, name, dir, out string, env []string, args ...string) error {
	if err := os.MkdirAll(filepath.Join(b.cacheDir(), "bin"), 0o755); err != nil {
		return fmt.Errorf("create binary cache %s: %w", b.cacheDir(), err)
	}
	start := time.Now()
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	logPath := filepath.Join(b.cacheDir(), "build-"+name+".log")
	logf, err := os.Create(logPath)
	if err != nil {
		return fmt.Errorf("create build log: %w", err)
	}
	cmd.Stdout, cmd.Stderr = logf, logf
	err = cmd.Run()
	logf.Close()
	if err != nil {
		return fmt.Errorf("build %s failed (%v): %s; full log in %s (check GOPROXY/network, then rerun)", name, err, lastLine(tailLog(logPath, 2000)), logPath)
	}
	if out != "" {
		if err := os.Rename(out+".tmp", out); err != nil {
			return fmt.Errorf("store %s in cache: %w", name, err)
		}
	}
	b.logf("built %s in %s", name, time.Since(start).Round(time.Second))
	b.recordBuildTime(name, time.Since(start))
	return nil
}

// buildTimesFile records how long each cold build took (for `lab bench`).
const buildTimesFile = "build-times.json"

func (b *Binaries) recordBuildTime(name string, d time.Duration) {
	p := filepath.Join(b.cacheDir(), buildTimesFile)
	times := map[string]float64{}
	if raw, err := os.ReadFile(p); err == nil {
		_ = json.Unmarshal(raw, &times)
	}
	times[name] = d.Seconds()
	raw, _ := json.MarshalIndent(times, "", "  ")
	_ = os.WriteFile(p, raw, 0o644)
}

// BuildTimes returns the recorded cold build time of each binary built here.
func (b *Binaries) BuildTimes() map[string]time.Duration {
	times := map[string]float64{}
	raw, err := os.ReadFile(filepath.Join(b.cacheDir(), buildTimesFile))
	if err != nil {
		return nil
	}
	_ = json.Unmarshal(raw, &times)
	out := make(map[string]time.Duration, len(times))
	for k, v := range times {
		out[k] = time.Duration(v * float64(time.Second))
	}
	return out
}

// lastLine returns the last non-empty line of s.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

func moveInto(src, dst string) error {
	if err := os.Rename(src, dst); err != nil {
		return fmt.Errorf("store %s in cache: %w", filepath.Base(dst), err)
	}
	return nil
}

var goVersion = sync.OnceValue(func() string {
	raw, err := exec.Command("go", "env", "GOVERSION").Output()
	if err != nil {
		return "unknown"
	}
	return strings.TrimSpace(string(raw))
})
