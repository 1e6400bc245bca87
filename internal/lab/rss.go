package lab

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// RSS returns the resident set size in bytes of a process (0 if it is gone).
func RSS(pid int) int64 {
	f, err := os.Open(filepath.Join("/proc", strconv.Itoa(pid), "status"))
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "VmRSS:") {
			fields := strings.Fields(line)
			if len(fields) >= 2 {
				kb, _ := strconv.ParseInt(fields[1], 10, 64)
				return kb * 1024
			}
		}
	}
	return 0
}

// RSS returns the summed resident set size of the cluster's processes.
func (st *ClusterState) RSS() int64 {
	var total int64
	for _, p := range st.Procs {
		total += RSS(p.PID)
	}
	return total
}
