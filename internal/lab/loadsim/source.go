package loadsim

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// ClusterSource returns the lab's current clusters by name. The simulator
// calls it every rescan interval, since burst clusters come and go. It may
// return usable clusters together with an error about others.
type ClusterSource func(ctx context.Context) (map[string]*rest.Config, error)

// StaticSource always returns the same clusters.
func StaticSource(clusters map[string]*rest.Config) ClusterSource {
	return func(context.Context) (map[string]*rest.Config, error) {
		out := make(map[string]*rest.Config, len(clusters))
		for k, v := range clusters {
			out[k] = v
		}
		return out, nil
	}
}

// DirSource reads the lab's clusters from <dir>/clusters/<name>/kubeconfig,
// where the lab writes each cluster's admin kubeconfig; the directory name is
// the cluster name. A missing clusters directory means no clusters. An
// unreadable or invalid kubeconfig skips that cluster and is reported in the
// returned error (without the file's contents, which hold credentials), while
// the other clusters are still returned.
func DirSource(dir string) ClusterSource {
	return func(ctx context.Context) (map[string]*rest.Config, error) {
		paths, err := filepath.Glob(filepath.Join(dir, "clusters", "*", "kubeconfig"))
		if err != nil {
			return nil, fmt.Errorf("list cluster kubeconfigs in %s: %w", dir, err)
		}
		sort.Strings(paths)
		out := make(map[string]*rest.Config, len(paths))
		var errs []error
		for _, p := range paths {
			name := filepath.Base(filepath.Dir(p))
			data, err := os.ReadFile(p)
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					continue // the cluster was removed since the glob
				}
				errs = append(errs, fmt.Errorf("cluster %q: read kubeconfig: %w", name, err))
				continue
			}
			if len(data) == 0 {
				continue // being written
			}
			cfg, err := clientcmd.RESTConfigFromKubeConfig(data)
			if err != nil {
				// The parse error may quote the file, which holds credentials.
				errs = append(errs, fmt.Errorf("cluster %q: kubeconfig %s is not a valid kubeconfig (details withheld: the file holds credentials)", name, p))
				continue
			}
			out[name] = cfg
		}
		return out, errors.Join(errs...)
	}
}
