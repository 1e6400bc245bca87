//go:build !linux

package metrics

import "time"

func cpuTime() time.Duration { return 0 }

func peakRSS() int64 { return 0 }

func procCPU(int) time.Duration { return 0 }

func currentRSS() int64 { return 0 }
