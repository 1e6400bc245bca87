package scaling

import (
	"math"
	"strconv"
	"strings"
	"time"
)

// maxHistory caps every history slice an algorithm keeps. Entries are pruned
// by time first; the cap only bites for a caller deciding more than
// maxHistory times inside one window (a 1 h window at one decision per
// second), and then drops the oldest entries.
const maxHistory = 4096

// stamped is a replica count (a recommendation or a scale event's size) or a
// metric value recorded at a time.
type stamped struct {
	at time.Time
	n  int32
	v  float64
}

// pruneStamped keeps, in order and without allocating, the entries of s
// recorded after cutoff and not after now. Entries after now mean the clock
// went backwards (Input.Now is the caller's): they are dropped rather than
// trusted.
func pruneStamped(s []stamped, cutoff, now time.Time) []stamped {
	out := s[:0]
	for _, e := range s {
		if e.at.After(cutoff) && !e.at.After(now) {
			out = append(out, e)
		}
	}
	clear(s[len(out):])
	return out
}

// pushStamped appends e, dropping the oldest entry when s is at maxHistory.
func pushStamped(s []stamped, e stamped) []stamped {
	if len(s) >= maxHistory {
		n := copy(s, s[len(s)-maxHistory+1:])
		s = s[:n]
	}
	return append(s, e)
}

// sumAfter returns the sum of n over entries recorded after cutoff.
func sumAfter(s []stamped, cutoff time.Time) int64 {
	var sum int64
	for _, e := range s {
		if e.at.After(cutoff) {
			sum += int64(e.n)
		}
	}
	return sum
}

// stabilize is the HPA's stabilizeRecommendationWithBehaviors over the
// recommendations in *recs: it records proposed and returns cur moved
// towards proposed only as far as every recommendation agrees: not above
// the lowest made within upWindow, not below the highest made within
// downWindow (proposed included, so with both windows 0 it is proposed).
func stabilize(recs *[]stamped, now time.Time, upWindow, downWindow time.Duration, cur, proposed int32) int32 {
	upCut, downCut := now.Add(-upWindow), now.Add(-downWindow)
	up, down := proposed, proposed
	for _, r := range *recs {
		if r.at.After(upCut) {
			up = min(up, r.n)
		}
		if r.at.After(downCut) {
			down = max(down, r.n)
		}
	}
	*recs = pushStamped(*recs, stamped{at: now, n: proposed})
	return min(max(cur, up), down)
}

// ceilReplicas is math.Ceil(x) as a replica count: NaN and values <= 0 give
// 0, values beyond int32 give math.MaxInt32.
func ceilReplicas(x float64) int32 {
	switch {
	case math.IsNaN(x) || x <= 0:
		return 0
	case x >= math.MaxInt32:
		return math.MaxInt32
	}
	return int32(math.Ceil(x))
}

// clamp64 limits v to [lo, hi] and returns it as an int32 (lo <= hi, both
// within int32).
func clamp64(v int64, lo, hi int32) int32 {
	if v < int64(lo) {
		return lo
	}
	if v > int64(hi) {
		return hi
	}
	return int32(v)
}

// usable reports whether a pod sample value can be used: finite and not
// negative. Other values are treated as a missing sample.
func usable(v float64) bool {
	return !math.IsNaN(v) && !math.IsInf(v, 0) && v >= 0
}

// itoa formats a replica count.
func itoa(n int32) string { return strconv.FormatInt(int64(n), 10) }

// writeNum writes v for a reason: at most two decimals and no exponent for
// the values scaling deals with, so reasons stay deterministic and readable.
func writeNum(b *strings.Builder, v float64) {
	var buf [32]byte
	if math.IsInf(v, 0) || math.IsNaN(v) || math.Abs(v) >= 1e15 {
		b.Write(strconv.AppendFloat(buf[:0], v, 'g', 4, 64))
		return
	}
	b.Write(strconv.AppendFloat(buf[:0], math.Round(v*100)/100, 'f', -1, 64))
}

// writeInt writes n to b without an intermediate string.
func writeInt(b *strings.Builder, n int32) {
	var buf [12]byte
	b.Write(strconv.AppendInt(buf[:0], int64(n), 10))
}
