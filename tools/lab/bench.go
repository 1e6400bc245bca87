package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/hca-project/terraform-provider-hca/internal/lab"
)

// bench measures the lab's figures in a temporary, independent lab (the running
// lab is not touched) and prints a Markdown table:
// cold build times (as recorded when the cache was filled), a warm `lab up`, the
// start of one more cluster, and the RSS of each part.
func bench(ctx context.Context, root string, bins *lab.Binaries, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	ups := fs.Int("ups", 3, "how many warm `lab up` runs to time")
	if err := fs.Parse(args); err != nil {
		return usageError{err.Error()}
	}
	if *ups < 1 {
		return usageError{"--ups must be at least 1"}
	}
	if _, err := bins.EnsureAll(ctx); err != nil {
		return err
	}
	var rows [][3]string
	times := bins.BuildTimes()
	var total time.Duration
	names := make([]string, 0, len(times))
	for n, d := range times {
		names = append(names, n)
		total += d
	}
	sort.Strings(names)
	for _, n := range names {
		rows = append(rows, [3]string{"cold build " + n, fmt.Sprintf("%.0f s", times[n].Seconds()), ""})
	}
	if len(times) > 0 {
		rows = append(rows, [3]string{"cold build, all lab binaries", fmt.Sprintf("%.0f s", total.Seconds()), "CI < 90 min in all"})
	}

	var upTimes []time.Duration
	var st []lab.ComponentStatus
	var l *lab.Lab
	for i := 0; i < *ups; i++ {
		dir, err := os.MkdirTemp("", "hca-lab-bench-")
		if err != nil {
			return err
		}
		daemon, err := daemonCommand(dir)
		if err != nil {
			return err
		}
		l = lab.New(dir, &lab.Binaries{RepoDir: root}, daemon, nil)
		t := time.Now()
		if _, err := l.Up(ctx, lab.Options{}); err != nil {
			_ = l.Down(context.Background(), true)
			return fmt.Errorf("warm lab up: %w", err)
		}
		upTimes = append(upTimes, time.Since(t))
		if i < *ups-1 {
			if err := l.Down(ctx, true); err != nil {
				return err
			}
		}
	}
	defer l.Down(context.Background(), true)
	sort.Slice(upTimes, func(i, j int) bool { return upTimes[i] < upTimes[j] })
	rows = append(rows, [3]string{fmt.Sprintf("warm lab up (median of %d)", len(upTimes)), fmt.Sprintf("%.1f s", upTimes[len(upTimes)/2].Seconds()), "< 60 s"})

	t := time.Now()
	if _, err := l.Clusters.CreateCluster(ctx, lab.ClusterSpec{Name: "bench", Pools: []lab.NodePool{{Name: "default", Count: 2, CPU: "4", Memory: "8Gi"}}}); err != nil {
		return fmt.Errorf("create bench cluster: %w", err)
	}
	rows = append(rows, [3]string{"start one more lab cluster (2 nodes)", fmt.Sprintf("%.1f s", time.Since(t).Seconds()), "EKS/ACK ACTIVE < 20 s"})
	time.Sleep(5 * time.Second) // let the control plane settle before reading RSS
	clusters, err := l.Clusters.List()
	if err != nil {
		return err
	}
	for _, c := range clusters {
		var parts []string
		for _, p := range c.Procs {
			parts = append(parts, fmt.Sprintf("%s %d", p.Name, lab.RSS(p.PID)>>20))
		}
		rows = append(rows, [3]string{"RSS of cluster " + c.Name, fmt.Sprintf("%d MiB (%s)", c.RSS()>>20, strings.Join(parts, ", ")), "< 700 MiB"})
	}
	if st, err = l.Status(); err != nil {
		return err
	}
	for _, s := range st {
		if !strings.HasPrefix(s.Name, "cluster/") {
			rows = append(rows, [3]string{"RSS of " + s.Name, fmt.Sprintf("%d MiB", lab.RSS(s.PID)>>20), ""})
		}
	}
	fmt.Fprintln(out, "| figure | measured | goal |")
	fmt.Fprintln(out, "| --- | --- | --- |")
	for _, r := range rows {
		fmt.Fprintf(out, "| %s | %s | %s |\n", r[0], r[1], r[2])
	}
	return nil
}
