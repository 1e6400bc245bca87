// Command lab runs the HCA lab: a local hybrid cloud of real components on loopback.
//
//	go run ./tools/lab up [--nodes N --node-cpu Q --node-memory Q --node-boot-delay D --pod-startup-delay D]
//	go run ./tools/lab down [--purge]
//	go run ./tools/lab status
//	go run ./tools/lab env
//	go run ./tools/lab build
//	go run ./tools/lab cluster create NAME [--nodes N --node-cpu Q --node-memory Q]
//	go run ./tools/lab cluster delete NAME
//	go run ./tools/lab cluster list
//	go run ./tools/lab bench [--ups N]
//	go run ./tools/lab runtime start [--binary PATH --kubeconfig PATH --namespace NS]
//	go run ./tools/lab runtime stop
//
// `serve` is internal: the detached daemon that hosts the cloud emulators and loadsim.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"sort"
	"syscall"
	"time"

	"github.com/hca-project/terraform-provider-hca/internal/lab"
	"github.com/hca-project/terraform-provider-hca/internal/lab/emulator"
)

const usage = `usage: lab <command> [flags]

commands:
  up        build what is missing and start the lab (idempotent)
  down      stop every lab process (--purge also removes .lab)
  status    list lab processes; exits 1 if one has crashed
  env       print the lab's environment (source .lab/env for the same)
  build     build or find every lab binary, printing the cache paths
  cluster   create NAME | delete NAME | list: extra lab clusters
  bench     measure build, start-up and memory figures in a temporary lab
  runtime   start | stop: run the hca-runtime Deployment that hca_runtime installed
            as a local process (lab pods are not real containers)
`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "lab:", err)
		var u usageError
		if errors.As(err, &u) {
			os.Exit(2)
		}
		os.Exit(1)
	}
}

type usageError struct{ msg string }

func (u usageError) Error() string { return u.msg + "\n" + usage }

func run(ctx context.Context, args []string, out io.Writer) error {
	if len(args) == 0 {
		return usageError{"no command given"}
	}
	root, err := repoRoot()
	if err != nil {
		return err
	}
	dir := filepath.Join(root, ".lab")
	if d := os.Getenv("HCA_LAB_DIR"); d != "" && args[0] != "serve" {
		dir = d
	}
	bins := &lab.Binaries{RepoDir: root, Log: out}
	switch args[0] {
	case "up":
		fs := flag.NewFlagSet("up", flag.ContinueOnError)
		opts := poolFlags(fs)
		bootDelay := fs.Duration("node-boot-delay", envDuration("HCA_LAB_NODE_BOOT_DELAY", lab.DefaultNodeBootDelay),
			"how long a node asked of the EKS/ACK emulators takes to be Ready, each node on its own timer (0: none; default from $HCA_LAB_NODE_BOOT_DELAY, else 75s)")
		podDelay := fs.Duration("pod-startup-delay", envDuration("HCA_LAB_POD_STARTUP_DELAY", lab.DefaultPodStartupDelay),
			"how long pods stay Pending once bound, for image pull and readiness (0: none; default from $HCA_LAB_POD_STARTUP_DELAY, else 10s, a realistic figure)")
		if err := fs.Parse(args[1:]); err != nil {
			return usageError{err.Error()}
		}
		daemon, err := daemonCommand(dir)
		if err != nil {
			return err
		}
		l := lab.New(dir, bins, daemon, out)
		boot := *bootDelay
		if boot == 0 {
			boot = -1 // none
		}
		env, err := l.Up(ctx, lab.Options{PrivateNodes: *opts.nodes, NodeCPU: *opts.cpu, NodeMemory: *opts.mem, NodeBootDelay: boot, PodStartupDelay: *podDelay})
		if err != nil {
			return err
		}
		printEnv(out, env)
		return nil
	case "down":
		fs := flag.NewFlagSet("down", flag.ContinueOnError)
		purge := fs.Bool("purge", false, "also remove the lab directory (state, logs, PKI)")
		if err := fs.Parse(args[1:]); err != nil {
			return usageError{err.Error()}
		}
		if err := lab.New(dir, bins, nil, out).Down(ctx, *purge); err != nil {
			return err
		}
		fmt.Fprintln(out, "lab down: every lab process stopped")
		return nil
	case "status":
		sts, err := lab.New(dir, bins, nil, out).Status()
		if err != nil {
			return err
		}
		crashed := 0
		for _, s := range sts {
			state := "running"
			if !s.Running {
				state = "CRASHED"
				crashed++
			}
			fmt.Fprintf(out, "%-45s pid %-8d %-8s %s\n", s.Name, s.PID, state, s.Detail)
		}
		if len(sts) == 0 {
			fmt.Fprintln(out, "the lab is not running: go run ./tools/lab up")
		}
		if crashed > 0 {
			return fmt.Errorf("%d lab process(es) crashed: see their logs under %s/logs, then run `go run ./tools/lab up` to restart them", crashed, dir)
		}
		return nil
	case "env":
		env, err := lab.New(dir, bins, nil, out).Env()
		if err != nil {
			return err
		}
		printEnv(out, env)
		return nil
	case "build":
		t := time.Now()
		paths, err := bins.EnsureAll(ctx)
		if err != nil {
			return err
		}
		names := make([]string, 0, len(paths))
		for n := range paths {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			fmt.Fprintf(out, "%-24s %s\n", n, paths[n])
		}
		fmt.Fprintf(out, "all lab binaries ready in %s\n", time.Since(t).Round(time.Millisecond))
		return nil
	case "cluster":
		return clusterCmd(ctx, dir, bins, args[1:], out)
	case "bench":
		return bench(ctx, root, bins, args[1:], out)
	case "runtime":
		return runtimeCmd(ctx, root, dir, bins, args[1:], out)
	case "serve":
		return serve(ctx, root, args[1:])
	default:
		return usageError{fmt.Sprintf("unknown command %q", args[0])}
	}
}

// envDuration reads a duration from the environment, or returns def.
func envDuration(name string, def time.Duration) time.Duration {
	if d, err := time.ParseDuration(os.Getenv(name)); err == nil && d >= 0 {
		return d
	}
	return def
}

type poolOpts struct {
	nodes    *int
	cpu, mem *string
}

func poolFlags(fs *flag.FlagSet) poolOpts {
	return poolOpts{
		nodes: fs.Int("nodes", 2, "number of fake nodes"),
		cpu:   fs.String("node-cpu", "4", "allocatable CPU of each node (Kubernetes quantity)"),
		mem:   fs.String("node-memory", "8Gi", "allocatable memory of each node (Kubernetes quantity)"),
	}
}

func clusterCmd(ctx context.Context, dir string, bins *lab.Binaries, args []string, out io.Writer) error {
	cl := lab.NewClusters(dir, bins)
	if len(args) == 0 {
		return usageError{"cluster needs create NAME, delete NAME or list"}
	}
	switch args[0] {
	case "list":
		list, err := cl.List()
		if err != nil {
			return err
		}
		for _, c := range list {
			state := "running"
			if dead := c.Dead(); len(dead) > 0 {
				state = fmt.Sprintf("CRASHED %v", dead)
			}
			fmt.Fprintf(out, "%-24s %-30s %s %s\n", c.Name, c.Server, c.KubeconfigPath, state)
		}
		return nil
	case "create", "delete":
		if len(args) < 2 {
			return usageError{"cluster " + args[0] + " needs a NAME"}
		}
		name := args[1]
		if args[0] == "delete" {
			if _, err := cl.Get(name); err != nil {
				return err
			}
			return cl.DeleteCluster(ctx, name)
		}
		fs := flag.NewFlagSet("cluster create", flag.ContinueOnError)
		opts := poolFlags(fs)
		if err := fs.Parse(args[2:]); err != nil {
			return usageError{err.Error()}
		}
		t := time.Now()
		info, err := cl.CreateCluster(ctx, lab.ClusterSpec{Name: name, Pools: []lab.NodePool{{Name: "default", Count: *opts.nodes, CPU: *opts.cpu, Memory: *opts.mem}}})
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "cluster %s up in %s: %s (kubeconfig %s)\n", name, time.Since(t).Round(time.Millisecond), info.Server, info.KubeconfigPath)
		return nil
	default:
		return usageError{fmt.Sprintf("unknown cluster command %q", args[0])}
	}
}

func printEnv(out io.Writer, env map[string]string) {
	keys := make([]string, 0, len(env))
	for k := range env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(out, "export %s=%q\n", k, env[k])
	}
}

// daemonCommand copies this executable (which `go run` deletes when it exits) to
// .lab/bin/hca-lab and returns the command that starts the daemon.
func daemonCommand(dir string) ([]string, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("find own executable: %w", err)
	}
	dst := filepath.Join(dir, "bin", "hca-lab")
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return nil, fmt.Errorf("create %s: %w", filepath.Dir(dst), err)
	}
	raw, err := os.ReadFile(self)
	if err != nil {
		return nil, fmt.Errorf("read own executable: %w", err)
	}
	if err := os.WriteFile(dst+".tmp", raw, 0o755); err != nil {
		return nil, fmt.Errorf("write %s: %w", dst, err)
	}
	if err := os.Rename(dst+".tmp", dst); err != nil {
		return nil, fmt.Errorf("install %s: %w", dst, err)
	}
	return []string{dst, "serve"}, nil
}

// repoRoot finds the project root: the nearest parent holding tools/kube/go.mod.
func repoRoot() (string, error) {
	if r := os.Getenv("HCA_REPO_ROOT"); r != "" {
		return r, nil
	}
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "tools", "kube", "go.mod")); err == nil {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("not inside the HCA repository (no tools/kube/go.mod above %s): run the lab from the checkout or set HCA_REPO_ROOT", dir)
		}
	}
}

func runtimeCmd(ctx context.Context, root, dir string, bins *lab.Binaries, args []string, out io.Writer) error {
	if len(args) == 0 || (args[0] != "start" && args[0] != "stop") {
		return usageError{"runtime needs start or stop"}
	}
	l := lab.New(dir, bins, nil, out)
	if args[0] == "stop" {
		if err := l.StopRuntime(); err != nil {
			return err
		}
		fmt.Fprintln(out, "hca-runtime stopped")
		return nil
	}
	fs := flag.NewFlagSet("runtime start", flag.ContinueOnError)
	bin := fs.String("binary", "", "hca-runtime executable (default: build ./runtime/cmd/hca-runtime into .lab/bin)")
	kubeconfig := fs.String("kubeconfig", "", "kubeconfig of the cluster holding the Deployment (default: the private cluster's)")
	ns := fs.String("namespace", "hca-system", "namespace of the hca-runtime Deployment")
	if err := fs.Parse(args[1:]); err != nil {
		return usageError{err.Error()}
	}
	env, err := l.Env()
	if err != nil {
		return err
	}
	if *kubeconfig == "" {
		*kubeconfig = env["HCA_LAB_PRIVATE_KUBECONFIG"]
	}
	if *bin == "" {
		*bin = filepath.Join(dir, "bin", "hca-runtime")
		build := exec.CommandContext(ctx, "go", "build", "-o", *bin, "./runtime/cmd/hca-runtime")
		build.Dir, build.Stdout, build.Stderr = root, out, out
		if err := build.Run(); err != nil {
			return fmt.Errorf("build hca-runtime: %w", err)
		}
	}
	p, err := l.StartRuntime(ctx, lab.LocalRuntime{Binary: *bin, Kubeconfig: *kubeconfig, Namespace: *ns, Env: emulator.AWSEnv()})
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "hca-runtime running, pid %d, log %s\n", p.PID, p.Log)
	return nil
}
