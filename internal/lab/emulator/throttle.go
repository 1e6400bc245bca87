package emulator

import (
	"sync"
	"time"
)

// throttle decides which API calls a cloud refuses for their rate: the next n
// calls, and calls beyond a token bucket of rate per second and burst. Tests and
// the demo set it through the emulators' /lab/v1/throttling endpoints. A
// setting scoped to one cluster applies to the calls that name that cluster
// (in their path), so that tests sharing one lab do not take each other's
// throttled answers; an unscoped setting applies to every call, as a real
// account-wide rate limit does.
type throttle struct {
	mu     sync.Mutex
	scoped map[string]*bucket
	bucket
}

// bucket is one throttling setting.
type bucket struct {
	next   int
	rate   float64 // tokens per second; 0: no rate limit
	burst  float64
	tokens float64
	last   time.Time
}

// labFaults are the faults tests and the demo inject into an emulator; AWS and
// ACK embed them.
type labFaults struct {
	fleet        *fleet
	throttle     *throttle
	serverErrors *serverErrors
}

func newLabFaults() labFaults {
	return labFaults{throttle: &throttle{}, serverErrors: &serverErrors{}}
}

// SetVCPUQuota sets the account's vCPU limit for ON_DEMAND (EC2 "Running
// On-Demand Standard instances", ECS pay-as-you-go) or SPOT (EC2 "All Standard
// Spot Instance Requests", ECS preemptible) capacity; 0 removes it. Nodes
// beyond it never launch: EKS reports AsgInstanceLaunchFailures
// (VcpuLimitExceeded) in the node group's health, ACK fails the scaling task
// with QuotaExceed.ElasticQuota.
func (l labFaults) SetVCPUQuota(capacityType string, vcpus int) {
	l.fleet.setQuota(capacityType, vcpus)
}

// SetInsufficientCapacity makes launches of an instance type fail (or succeed
// again), as EC2's InsufficientInstanceCapacity and ECS's OperationDenied.NoStock.
func (l labFaults) SetInsufficientCapacity(instanceType string, insufficient bool) {
	l.fleet.setShort(instanceType, insufficient)
}

// SetThrottling injects throttling answers into the API (EKS
// ThrottlingException, ACK Throttling.User).
func (l labFaults) SetThrottling(c ThrottleConfig) { l.throttle.set(c) }

// ThrottleConfig injects throttling into an emulator's API.
type ThrottleConfig struct {
	// Next throttles the next Next calls.
	Next int `json:"next"`
	// RatePerSecond, when positive, throttles calls beyond a token bucket
	// refilled at this rate, holding Burst tokens (at least 1).
	RatePerSecond float64 `json:"ratePerSecond"`
	Burst         int     `json:"burst"`
	// Cluster, when set, scopes the setting to the calls about that cluster
	// (EKS: its name; ACK: its cluster ID); calls about other clusters and
	// calls naming none are not affected by it. A setting with only Cluster
	// turns that cluster's throttling off.
	Cluster string `json:"cluster,omitempty"`
}

func (t *throttle) set(c ThrottleConfig) {
	t.mu.Lock()
	defer t.mu.Unlock()
	b := &t.bucket
	if c.Cluster != "" {
		if t.scoped == nil {
			t.scoped = map[string]*bucket{}
		}
		if c.Next <= 0 && c.RatePerSecond <= 0 {
			delete(t.scoped, c.Cluster)
			return
		}
		b = &bucket{}
		t.scoped[c.Cluster] = b
	}
	b.next = max(c.Next, 0)
	b.rate = max(c.RatePerSecond, 0)
	b.burst = float64(max(c.Burst, 1))
	b.tokens = b.burst
	b.last = time.Now()
}

// allow takes one call's token, or reports that the call is throttled: the
// setting scoped to cluster first (none for a call naming no cluster), then the
// account-wide one.
func (t *throttle) allow(cluster string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if b, ok := t.scoped[cluster]; ok && !b.allow() {
		return false
	}
	return t.bucket.allow()
}

func (t *bucket) allow() bool {
	if t.next > 0 {
		t.next--
		return false
	}
	if t.rate <= 0 {
		return true
	}
	now := time.Now()
	t.tokens = min(t.burst, t.tokens+now.Sub(t.last).Seconds()*t.rate)
	t.last = now
	if t.tokens < 1 {
		return false
	}
	t.tokens--
	return true
}
