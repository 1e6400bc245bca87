package emulator

import (
	"sync"
	"time"
)

// throttle decides which API calls a cloud refuses for their rate: the next n
// calls, and calls beyond a token bucket of rate per second and burst. Tests and
// the demo set it through the emulators' /lab/v1/throttling endpoints.
type throttle struct {
	mu     sync.Mutex
	next   int
	rate   float64 // tokens per second; 0: no rate limit
	burst  float64
	tokens float64
	last   time.Time
}

// ThrottleConfig injects throttling into an emulator's API.
type ThrottleConfig struct {
	// Next throttles the next Next calls.
	Next int `json:"next"`
	// RatePerSecond, when positive, throttles calls beyond a token bucket
	// refilled at this rate, holding Burst tokens (at least 1).
	RatePerSecond float64 `json:"ratePerSecond"`
	Burst         int     `json:"burst"`
}

func (t *throttle) set(c ThrottleConfig) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.next = max(c.Next, 0)
	t.rate = max(c.RatePerSecond, 0)
	t.burst = float64(max(c.Burst, 1))
	t.tokens = t.burst
	t.last = time.Now()
}

// allow takes one call's token, or reports that the call is throttled.
func (t *throttle) allow() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
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
