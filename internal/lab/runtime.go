package lab

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
)

// compRuntime is the state.json name of the hca-runtime the lab runs locally.
const compRuntime = "hca-runtime"

// RuntimeDeployment is the name of the Deployment hca_runtime installs.
const RuntimeDeployment = "hca-runtime"

// LocalRuntime says how to run, as a local process, the hca-runtime Deployment
// that hca_runtime installed into a lab cluster: lab pods are not real
// containers, so the lab runs the binary with the Deployment's arguments.
type LocalRuntime struct {
	// Binary is the hca-runtime executable (required).
	Binary string
	// Kubeconfig of the cluster holding the Deployment, which is also the
	// runtime's control cluster (required).
	Kubeconfig string
	// Namespace of the Deployment (default hca-system).
	Namespace string
	// Env is added to the process's environment (such as AWS credentials for
	// the EKS emulator).
	Env []string
}

// LocalRuntimeArgs turns the container arguments of the runtime's Deployment
// into the arguments of a local process: the in-cluster config becomes
// --kubeconfig, and the metrics and probe servers move to the given loopback
// ports. Every other argument is kept as installed. It is pure.
func LocalRuntimeArgs(containerArgs []string, kubeconfig string, metricsPort, probePort int) ([]string, error) {
	if len(containerArgs) == 0 || containerArgs[0] != "run" {
		return nil, fmt.Errorf("container arguments %q do not start with the run command: not an hca-runtime Deployment", containerArgs)
	}
	out := []string{"run", "--kubeconfig=" + kubeconfig,
		fmt.Sprintf("--metrics-bind-address=127.0.0.1:%d", metricsPort),
		fmt.Sprintf("--health-probe-bind-address=127.0.0.1:%d", probePort)}
	for _, a := range containerArgs[1:] {
		name, _, _ := strings.Cut(a, "=")
		switch name {
		case "--kubeconfig", "--metrics-bind-address", "--health-probe-bind-address":
			continue
		}
		out = append(out, a)
	}
	return out, nil
}

// StartRuntime (re)starts the local hca-runtime for the Deployment rt names:
// a runtime it started before is stopped first. It returns once the runtime
// answers /healthz. `lab down` stops it.
func (l *Lab) StartRuntime(ctx context.Context, rt LocalRuntime) (*Proc, error) {
	if rt.Binary == "" || rt.Kubeconfig == "" {
		return nil, errors.New("local runtime needs the binary and the kubeconfig")
	}
	if rt.Namespace == "" {
		rt.Namespace = "hca-system"
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", rt.Kubeconfig)
	if err != nil {
		return nil, fmt.Errorf("load kubeconfig %s: %w", rt.Kubeconfig, err)
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("client for %s: %w", rt.Kubeconfig, err)
	}
	dep, err := cs.AppsV1().Deployments(rt.Namespace).Get(ctx, RuntimeDeployment, metav1.GetOptions{})
	if err != nil {
		return nil, fmt.Errorf("read the runtime Deployment %s/%s (install it with hca_runtime first): %w", rt.Namespace, RuntimeDeployment, err)
	}
	if len(dep.Spec.Template.Spec.Containers) == 0 {
		return nil, fmt.Errorf("the runtime Deployment %s/%s has no container", rt.Namespace, RuntimeDeployment)
	}
	ports, err := freePorts(2)
	if err != nil {
		return nil, err
	}
	args, err := LocalRuntimeArgs(dep.Spec.Template.Spec.Containers[0].Args, rt.Kubeconfig, ports[0], ports[1])
	if err != nil {
		return nil, fmt.Errorf("runtime Deployment %s/%s: %w", rt.Namespace, RuntimeDeployment, err)
	}

	podEnv, err := ContainerEnv(dep.Spec.Template.Spec.Containers[0], func(name, key string) (string, error) {
		sec, err := cs.CoreV1().Secrets(rt.Namespace).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return "", err
		}
		v, ok := sec.Data[key]
		if !ok {
			return "", fmt.Errorf("secret %s/%s has no key %q", rt.Namespace, name, key)
		}
		return string(v), nil
	})
	if err != nil {
		return nil, fmt.Errorf("runtime Deployment %s/%s: %w", rt.Namespace, RuntimeDeployment, err)
	}

	if err := l.StopRuntime(); err != nil {
		return nil, err
	}
	st, err := l.loadState()
	if err != nil {
		return nil, err
	}
	p, err := startProc(compRuntime, filepath.Join(l.Dir, "logs", "hca-runtime.log"), l.Dir, append(podEnv, rt.Env...), rt.Binary, args...)
	if err != nil {
		return nil, err
	}
	st.Procs[compRuntime] = *p
	if err := l.saveState(st); err != nil {
		stopProc(*p, time.Second)
		return nil, err
	}
	health := fmt.Sprintf("http://127.0.0.1:%d/healthz", ports[1])
	if err := waitFor(ctx, 60*time.Second, *p, func() error {
		resp, err := http.Get(health)
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("healthz answered %s", resp.Status)
		}
		return nil
	}); err != nil {
		return nil, fmt.Errorf("hca-runtime did not become healthy (log %s): %w", p.Log, err)
	}
	// Scraped by the lab's Prometheus, as hca_runtime's scrape annotations or
	// ServiceMonitor have it scraped in a cluster (the demo report draws the
	// dashboard's panels from it).
	if err := WriteScrapeTarget(l.PrometheusTargetsDir(), RuntimeScrapeTarget, fmt.Sprintf("127.0.0.1:%d", ports[0]), map[string]string{"job": "hca-runtime"}); err != nil {
		return nil, err
	}
	return p, nil
}

// RuntimeScrapeTarget names the lab Prometheus's file_sd target of the local
// runtime (written by StartRuntime, removed by StopRuntime).
const RuntimeScrapeTarget = "hca-runtime"

// ContainerEnv is the environment the kubelet would give the container, as
// NAME=value entries: literal values, and values from Secret keys read with
// secret (such as the Alibaba AccessKey hca_runtime keeps in a Secret). A
// missing Secret or key is an error, as the kubelet refuses to start the
// container; other value sources (field and resource references) are not
// used by the runtime's Deployment and are refused by name.
func ContainerEnv(ctr corev1.Container, secret func(name, key string) (string, error)) ([]string, error) {
	var out []string
	for _, e := range ctr.Env {
		switch {
		case e.ValueFrom == nil:
			out = append(out, e.Name+"="+e.Value)
		case e.ValueFrom.SecretKeyRef != nil:
			ref := e.ValueFrom.SecretKeyRef
			v, err := secret(ref.Name, ref.Key)
			if err != nil {
				if ref.Optional != nil && *ref.Optional {
					continue
				}
				return nil, fmt.Errorf("env %s from secret %s key %s: %w", e.Name, ref.Name, ref.Key, err)
			}
			out = append(out, e.Name+"="+v)
		default:
			return nil, fmt.Errorf("env %s: only literal values and secretKeyRef are supported by the local runtime", e.Name)
		}
	}
	return out, nil
}

// StopRuntime stops the local hca-runtime, if one runs.
func (l *Lab) StopRuntime() error {
	st, err := l.loadState()
	if err != nil {
		return err
	}
	if err := os.Remove(filepath.Join(l.PrometheusTargetsDir(), RuntimeScrapeTarget+".json")); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove the runtime's scrape target: %w", err)
	}
	if p, ok := st.Procs[compRuntime]; ok {
		stopProc(p, 10*time.Second)
		delete(st.Procs, compRuntime)
		return l.saveState(st)
	}
	return nil
}
