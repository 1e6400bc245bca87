package scaling

import (
	"encoding/binary"
	"math"
	"testing"
	"time"
)

// fuzzPods decodes pod samples from b, four bytes a pod: a flag byte and a
// 24-bit value. The flag's low bits make the pod not ready, missing, or give
// it a NaN, infinite, negative or huge value.
func fuzzPods(b []byte) []PodSample {
	var ps []PodSample
	for len(b) >= 4 && len(ps) < 300 {
		flag := b[0]
		v := float64(uint32(b[1])<<16|uint32(b[2])<<8|uint32(b[3])) / 100
		switch flag >> 4 {
		case 1:
			v = math.NaN()
		case 2:
			v = math.Inf(1)
		case 3:
			v = -v
		case 4:
			v = math.MaxFloat64
		}
		ps = append(ps, PodSample{Value: v, Ready: flag&1 == 0, Missing: flag&2 != 0, Pending: flag&4 != 0})
		b = b[4:]
	}
	return ps
}

// fuzzDecide runs four decisions of alg, time advancing by step (which may
// be negative or zero), each applied as the next Current, and checks that
// none panics and every decision on a valid input stays in [Min, Max]
// (but a ScalingDisabled hold at 0 from Current 0, Min > 0).
func fuzzDecide(t *testing.T, alg Algorithm, current, minR, maxR int32, target float64, pods []byte, total float64, useExt bool, step int64) {
	in := Input{Now: algT0, Current: current, Min: minR, Max: maxR, Target: target, Pods: fuzzPods(pods)}
	if useExt {
		in.External = &total
	}
	for i := range 4 {
		in.Now = algT0.Add(time.Duration(step) * time.Duration(i))
		d := alg.Decide(in)
		err := Validate(in)
		if d.ScalingDisabled && (err != nil || in.Current != 0 || in.Min == 0 || d.Desired != 0) {
			t.Fatalf("%s decision %d: ScalingDisabled with Desired %d on input %+v (valid: %v)", alg.Name(), i, d.Desired, in, err)
		}
		if (err == nil || (in.Min >= 0 && in.Min <= in.Max && in.Max >= 1)) && !d.ScalingDisabled {
			if d.Desired < in.Min || d.Desired > in.Max {
				t.Fatalf("%s decision %d: %d outside [%d, %d] (valid: %v); input %+v; reason %s", alg.Name(), i, d.Desired, in.Min, in.Max, err, in, d.Reason)
			}
		}
		if d.Headroom < 0 || d.Headroom > max(d.Desired, 0) {
			t.Fatalf("%s decision %d: headroom %d outside [0, Desired %d]; input %+v; reason %s", alg.Name(), i, d.Headroom, d.Desired, in, d.Reason)
		}
		if d.Reason == "" {
			t.Fatalf("%s decision %d: empty reason", alg.Name(), i)
		}
		if err == nil {
			in.Current = d.Desired
		}
	}
}

func addSeeds(f *testing.F) {
	vals := func(vs ...float64) []byte {
		var b []byte
		for _, v := range vs {
			var w [4]byte
			binary.BigEndian.PutUint32(w[:], uint32(v*100))
			b = append(b, w[:]...)
		}
		return b
	}
	f.Add(int32(6), int32(1), int32(20), 60.0, vals(48, 46, 42, 50, 41, 43), 0.0, false, int64(15*time.Second), uint8(0))
	f.Add(int32(6), int32(1), int32(20), 60.0, vals(74, 78, 80, 82, 85, 87), 0.0, false, int64(9*time.Minute), uint8(1))
	f.Add(int32(0), int32(0), int32(10), 100.0, []byte(nil), 450.0, true, int64(time.Second), uint8(2))
	f.Add(int32(3), int32(1), int32(5), 50.0, []byte{1, 0, 0, 9, 2, 0, 1, 0, 0x10, 0, 0, 0, 0x23, 1, 2, 3}, 0.0, false, int64(-time.Minute), uint8(3))
	f.Add(int32(math.MaxInt32), int32(0), int32(math.MaxInt32), 1e-300, []byte{0x40, 0, 0, 1, 0, 0xff, 0xff, 0xff}, 0.0, false, int64(0), uint8(4))
	f.Add(int32(5), int32(7), int32(3), math.NaN(), []byte{}, math.Inf(1), true, int64(time.Hour), uint8(5))
	f.Add(int32(-1), int32(-4), int32(0), -3.0, []byte{}, -1.0, true, int64(math.MinInt64), uint8(6))
	f.Add(int32(2), int32(1), int32(100), 0.001, vals(1e5, 1e5), 1e308, true, int64(6*time.Second), uint8(7))
	// A weekly period warmed with 8 days (cfg bit 16): a repeating
	// pattern, and one at the float limit.
	f.Add(int32(4), int32(1), int32(60), 40.0, []byte{1, 1, 2, 9, 3, 1}, 40.0, true, int64(10*time.Minute), uint8(16))
	f.Add(int32(4), int32(1), int32(60), 40.0, []byte{255, 0, 255}, 1e308, true, int64(time.Minute), uint8(16|8))
}

func FuzzKubernetes(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, current, minR, maxR int32, target float64, pods []byte, total float64, useExt bool, step int64, cfg uint8) {
		c := DefaultKubernetesConfig()
		c.Utilization = cfg&1 != 0
		c.Legacy = cfg&0x80 != 0
		c.IgnoreReadiness = cfg&0x80 != 0 && cfg&1 != 0
		c.ScaleUp.SelectPolicy = []SelectPolicy{SelectMax, SelectMin, SelectDisabled, SelectMax}[cfg>>1&3]
		c.ScaleDown.SelectPolicy = []SelectPolicy{SelectMax, SelectMin, SelectDisabled, SelectMax}[cfg>>3&3]
		if cfg&0x20 != 0 {
			c.ScaleDown.StabilizationWindow = 0
			c.ScaleUp.StabilizationWindow = time.Minute
			c.ScaleDown.Policies = append(c.ScaleDown.Policies, HPAPolicy{Type: PodsPolicy, Value: 1, Period: 30 * time.Minute})
			c.ScaleUp.Policies = append(c.ScaleUp.Policies, HPAPolicy{Type: PercentPolicy, Value: math.MaxInt32, Period: time.Second})
		}
		if cfg&0x40 != 0 {
			c.ScaleUp.Tolerance, c.ScaleDown.Tolerance = 0, 5
			c.ScaleDown.Policies = []HPAPolicy{{Type: PercentPolicy, Value: 250, Period: time.Minute}}
		}
		k, err := NewKubernetes(c)
		if err != nil {
			t.Fatal(err)
		}
		fuzzDecide(t, k, current, minR, maxR, target, pods, total, useExt, step)
	})
}

func FuzzFRSS(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, current, minR, maxR int32, target float64, pods []byte, total float64, useExt bool, step int64, cfg uint8) {
		c := DefaultFRSSConfig()
		if cfg&1 != 0 {
			c.DownWindow, c.UpWindow = 0, time.Minute
		}
		if cfg&2 != 0 {
			c.Tolerance, c.ScaleUpRate, c.ShrinkStep = 0, 1e300, math.MaxInt32
		}
		fr, err := NewFRSS(c)
		if err != nil {
			t.Fatal(err)
		}
		fuzzDecide(t, fr, current, minR, maxR, target, pods, total, useExt, step)
	})
}

func FuzzPanic(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, current, minR, maxR int32, target float64, pods []byte, total float64, useExt bool, step int64, cfg uint8) {
		c := DefaultPanicConfig()
		if cfg&1 != 0 {
			c.ScaleDownDelay = time.Minute
		}
		if cfg&2 != 0 {
			c.MaxScaleUpRate, c.MaxScaleDownRate, c.PanicThreshold = 1e300, 1e300, 110
		}
		if cfg&4 != 0 {
			c.StableWindow, c.PanicWindowPercentage, c.TargetUtilization = 6*time.Second, 1, 1e-300
		}
		p, err := NewPanic(c)
		if err != nil {
			t.Fatal(err)
		}
		fuzzDecide(t, p, current, minR, maxR, target, pods, total, useExt, step)
	})
}

func FuzzAdaptive(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, current, minR, maxR int32, target float64, pods []byte, total float64, useExt bool, step int64, cfg uint8) {
		c := DefaultAdaptiveConfig()
		if cfg&1 != 0 {
			c.ScaleDownWindow, c.ReleaseWindow = 0, 0
		}
		if cfg&2 != 0 {
			c.HeadroomReplicas, c.HeadroomPercent = math.MaxInt32, 1000
		}
		if cfg&4 != 0 {
			c.Step, c.TrendWindow, c.SeasonalPeriod, c.Horizon, c.Backtest, c.MinR2 = time.Second, 3*time.Second, 2*time.Second, time.Hour, time.Second, 0
		}
		if cfg&8 != 0 {
			c.Tolerance, c.Horizon = 0, 0
		}
		weekly := cfg&16 != 0
		if weekly {
			// A weekly period (which runs the daily one too) at 10 min
			// steps, warmed with 8 days cycling through the pods' bytes
			// scaled by total: the seasonal models forecast from the first
			// decision.
			c.Step, c.TrendWindow, c.Backtest, c.SeasonalPeriod, c.Horizon = 10*time.Minute, 30*time.Minute, 10*time.Minute, 7*24*time.Hour, 20*time.Minute
		}
		a, err := NewAdaptive(c)
		if err != nil {
			t.Fatal(err)
		}
		if weekly {
			var ts []time.Time
			var vs []float64
			for i := range 8 * 24 * 6 {
				v := total
				if len(pods) > 0 {
					v = float64(pods[i%len(pods)]) * total
				}
				ts, vs = append(ts, algT0.Add(time.Duration(i-8*24*6)*10*time.Minute)), append(vs, v)
			}
			_ = a.Warm(ts, vs, algT0)
		}
		fuzzDecide(t, a, current, minR, maxR, target, pods, total, useExt, step)
	})
}
