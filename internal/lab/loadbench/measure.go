package loadbench

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// clockTicks is the kernel's USER_HZ, the unit of utime and stime in
// /proc/<pid>/stat: 100 on every Linux architecture Go supports.
const clockTicks = 100

// cpuSeconds parses /proc/<pid>/stat and returns utime+stime in seconds.
// The command name (field 2) is in parentheses and may hold spaces, so the
// fields are counted after its closing parenthesis.
func cpuSeconds(stat string) (float64, error) {
	i := strings.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, errors.New("parse /proc stat: no ')' after the command name")
	}
	f := strings.Fields(stat[i+1:])
	// f[0] is field 3 (state); utime and stime are fields 14 and 15.
	if len(f) < 13 {
		return 0, fmt.Errorf("parse /proc stat: %d fields after the command name, want at least 13", len(f))
	}
	ut, err1 := strconv.ParseUint(f[11], 10, 64)
	st, err2 := strconv.ParseUint(f[12], 10, 64)
	if err := errors.Join(err1, err2); err != nil {
		return 0, fmt.Errorf("parse /proc stat utime/stime: %w", err)
	}
	return float64(ut+st) / clockTicks, nil
}

// procMemory is what /proc/<pid>/status says of a process's memory, in MiB.
type procMemory struct {
	// RSS and HWM are VmRSS and VmHWM (the resident set now and at its
	// largest since the start).
	RSS, HWM float64
	// Anon and File split the RSS (RssAnon, RssFile): the Go runtime's
	// memory, which GOMEMLIMIT bounds, against the binary's mapped pages,
	// which it does not see. Zero when the kernel does not report them.
	Anon, File float64
}

// memoryMiB parses /proc/<pid>/status; VmRSS and VmHWM must be there.
func memoryMiB(status string) (procMemory, error) {
	var m procMemory
	fields := map[string]*float64{"VmRSS": &m.RSS, "VmHWM": &m.HWM, "RssAnon": &m.Anon, "RssFile": &m.File}
	found := 0
	sc := bufio.NewScanner(strings.NewReader(status))
	for sc.Scan() {
		name, rest, ok := strings.Cut(sc.Text(), ":")
		into := fields[name]
		if !ok || into == nil {
			continue
		}
		f := strings.Fields(rest)
		if len(f) != 2 || f[1] != "kB" {
			return procMemory{}, fmt.Errorf("parse /proc status %s: %q, want \"<n> kB\"", name, strings.TrimSpace(rest))
		}
		kb, err := strconv.ParseUint(f[0], 10, 64)
		if err != nil {
			return procMemory{}, fmt.Errorf("parse /proc status %s: %w", name, err)
		}
		*into = float64(kb) / 1024
		if name == "VmRSS" || name == "VmHWM" {
			found++
		}
	}
	if found != 2 {
		return procMemory{}, errors.New("parse /proc status: VmRSS or VmHWM missing (a zombie process?)")
	}
	return m, nil
}

// scrape is one parsed metrics exposition.
type scrape map[string]*dto.MetricFamily

func parseScrape(r io.Reader) (scrape, error) {
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(r)
	if err != nil {
		return nil, fmt.Errorf("parse metrics: %w", err)
	}
	return fams, nil
}

// matches reports whether m has every label of want (value "" matches any;
// a value starting with "!" matches any other value).
func matches(m *dto.Metric, want map[string]string) bool {
	for k, v := range want {
		got, has := "", false
		for _, l := range m.GetLabel() {
			if l.GetName() == k {
				got, has = l.GetValue(), true
				break
			}
		}
		switch {
		case strings.HasPrefix(v, "!"):
			if got == v[1:] {
				return false
			}
		case v == "":
			if !has {
				return false
			}
		case got != v:
			return false
		}
	}
	return true
}

// sum adds up the counter, gauge or untyped values of family name whose
// labels match want (0 when the family is absent).
func (s scrape) sum(name string, want map[string]string) float64 {
	f := s[name]
	if f == nil {
		return 0
	}
	var t float64
	for _, m := range f.GetMetric() {
		if !matches(m, want) {
			continue
		}
		switch {
		case m.Counter != nil:
			t += m.GetCounter().GetValue()
		case m.Gauge != nil:
			t += m.GetGauge().GetValue()
		case m.Untyped != nil:
			t += m.GetUntyped().GetValue()
		}
	}
	return t
}

// sumBy is sum grouped by the values of the labels by, joined with a space
// (a label the series lacks counts as "").
func (s scrape) sumBy(name string, by []string, want map[string]string) map[string]float64 {
	out := map[string]float64{}
	f := s[name]
	if f == nil {
		return out
	}
	for _, m := range f.GetMetric() {
		if !matches(m, want) {
			continue
		}
		vals := make([]string, len(by))
		for _, l := range m.GetLabel() {
			for i, b := range by {
				if l.GetName() == b {
					vals[i] = l.GetValue()
				}
			}
		}
		key := strings.Join(vals, " ")
		switch {
		case m.Counter != nil:
			out[key] += m.GetCounter().GetValue()
		case m.Gauge != nil:
			out[key] += m.GetGauge().GetValue()
		case m.Untyped != nil:
			out[key] += m.GetUntyped().GetValue()
		}
	}
	return out
}

// hist is a cumulative histogram: counts[i] observations <= bounds[i]
// (the last bound +Inf), as Prometheus exposes it.
type hist struct {
	bounds []float64
	counts []float64
	sum    float64
}

// histogram returns the histogram of family name summed over the series
// matching want (zero value when absent).
func (s scrape) histogram(name string, want map[string]string) hist {
	var h hist
	f := s[name]
	if f == nil {
		return h
	}
	for _, m := range f.GetMetric() {
		if m.Histogram == nil || !matches(m, want) {
			continue
		}
		hb := m.GetHistogram()
		// The +Inf bucket, if the exposition lists it, is the sample count.
		var buckets []*dto.Bucket
		for _, b := range hb.GetBucket() {
			if !math.IsInf(b.GetUpperBound(), 1) {
				buckets = append(buckets, b)
			}
		}
		if h.bounds == nil {
			for _, b := range buckets {
				h.bounds = append(h.bounds, b.GetUpperBound())
			}
			h.bounds = append(h.bounds, math.Inf(1))
			h.counts = make([]float64, len(h.bounds))
		}
		for i, b := range buckets {
			if i < len(h.counts)-1 {
				// Non-integer counts (a gauge histogram, an exporter's
				// extrapolated counter) parse into the float field.
				h.counts[i] += float64(b.GetCumulativeCount()) + b.GetCumulativeCountFloat()
			}
		}
		h.counts[len(h.counts)-1] += float64(hb.GetSampleCount()) + hb.GetSampleCountFloat()
		h.sum += hb.GetSampleSum()
	}
	return h
}

// minus is h - before (the observations between two scrapes); before may be
// the zero hist (no observations yet).
func (h hist) minus(before hist) hist {
	out := hist{bounds: h.bounds, counts: make([]float64, len(h.counts)), sum: h.sum - before.sum}
	for i := range h.counts {
		out.counts[i] = h.counts[i]
		if i < len(before.counts) {
			out.counts[i] -= before.counts[i]
		}
	}
	return out
}

func (h hist) count() float64 {
	if len(h.counts) == 0 {
		return 0
	}
	return h.counts[len(h.counts)-1]
}

// upperBound returns the smallest bucket bound that holds at least a share q
// of the observations: an upper bound of the q-quantile (q = 1: of the
// maximum). It is NaN without observations and +Inf when the share needs the
// +Inf bucket.
func (h hist) upperBound(q float64) float64 {
	n := h.count()
	if n == 0 {
		return math.NaN()
	}
	need := q * n
	i := sort.Search(len(h.counts), func(i int) bool { return h.counts[i] >= need-1e-9 })
	if i == len(h.counts) {
		return math.Inf(1)
	}
	return h.bounds[i]
}
